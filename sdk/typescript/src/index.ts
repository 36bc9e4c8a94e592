// @svc-directory/sdk: a typed client of the svc trust directory, an offline verifier of its
// lookups, verifiers of its transparency log's checkpoints and inclusion proofs, and of its
// state index's proofs (the latest leaf of a key, or its absence), the check that a version is
// still the latest (checkStateAnswer, verifyStateAnswer, verifyCurrent: current, superseded,
// absent, stale_checkpoint, bad_proof or fork), readers of the log's C2SP tlog-proof bundles and
// tlog-policy texts, and trqp(), which asks a Trust Registry Query Protocol query and checks the
// answer and its evidence.

export { createSvcClient, consistencyHeader, tokenPosition, getCheckpoint, getCosignedCheckpoint, getLogKey, getLogPolicy, getLogProof, SvcTextError } from "./client.js";
export type { SvcClient, SvcClientOptions, NamespaceLookupResponse, RegistryLookupResponse, RecordLookupResponse } from "./client.js";
export { verifyLookup, recomputeDigest, digestOf, proofType, genesisHex, FIRST_PROOF_YEAR, MAX_DEPTH } from "./verify.js";
export type { LookupKind, VerifyResult, VerifyOptions } from "./verify.js";
export type { paths, components, operations } from "./schema.js";
export { verifyCheckpoint, verifyCosignedCheckpoint, verifyInclusion, verifyConsistency, verifyConsistencyProof, leafHash, nodeHash, rootFromInclusionProof, logLeaf } from "./log.js";
export type { CheckpointResult, CosignedCheckpointResult, ConsistencyResult, InclusionProof, InclusionResult, ExpectedLeaf } from "./log.js";
export { keyChangeLeaf, keySetDigest, parseKeyChangeLeaf, sortDediKeys } from "./logkeys.js";
export type { DediKey, KeyChangeLeaf } from "./logkeys.js";
export { verifyDediFile, DEDI_PROTECTED_HEADER } from "./dedi.js";
export type { DediOutcome, DediVerifyResult, DediVerifyOptions } from "./dedi.js";
export {
  encodeStateKey,
  stateKeyHash,
  indexLeafHash,
  indexNodeHash,
  listRoot,
  decodeStateProof,
  verifyMembership,
  verifyAbsence,
  verifyExtension,
  verifyLatest,
  EMPTY_HASH,
  END_LEAF,
  END_EMPTY,
  END_OTHER,
} from "./stateindex.js";
export type { StateKey, StateKeyKind, StateProof, StateIndexResult } from "./stateindex.js";
export { keysOf, domainLeaf, parseDomainLeaf, parseStateLeaf, isNormalDomain } from "./statekeys.js";
export type { DomainLeaf } from "./statekeys.js";
export { trqp, defaultStateCheck } from "./trqp.js";
export type { TrqpQuery, TrqpOptions, TrqpResult, TrqpEvidence, TrqpStateCheck, StateVerdict } from "./trqp.js";
export { checkTrqpDocument, isDateTime } from "./trqpshape.js";
export type { TrqpKind, TrqpShapeResult } from "./trqpshape.js";
export { TLOG_PROOF_HEADER, parseTlogProof, parseTlogPolicy, verifyCheckpointWithPolicy, verifyTlogProof } from "./tlogproof.js";
export type { TlogProof, TlogPolicy, TlogProofStage, TlogProofResult, PolicyCheckpointResult } from "./tlogproof.js";
export { checkStateAnswer, verifyStateAnswer, stateAnswerCheckpoint } from "./current.js";
export type { CurrentOutcome, CurrentVerdict, StateCheck, OpenedCheckpoint, LaterCheckpoint, VerifyCurrentOptions, VersionLeaf } from "./current.js";
export { verifyCurrent } from "./clientcurrent.js";
export type { VerifyCurrentFetchOptions } from "./clientcurrent.js";
