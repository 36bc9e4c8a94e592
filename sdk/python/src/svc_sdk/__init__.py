"""Python SDK of the svc trust directory (standard library only).

- ``Client``: every operation of the contract (generated from openapi.yaml) over urllib;
- ``verify_lookup``: recomputes a lookup's digest offline (RFC 8785, BLAKE2b-256) and runs the
  checks of ``svc verify``;
- ``verify_checkpoint``, ``verify_inclusion``, ``verify_consistency`` and
  ``verify_cosigned_checkpoint``: the transparency log's signed checkpoints (Ed25519) and proofs;
- ``verify_membership``, ``verify_absence``, ``verify_extension``, ``verify_latest`` and
  ``keys_of``: the state index's proofs (a key's latest leaf, or its absence);
- ``trqp``: asks a Trust Registry Query Protocol query and checks the answer's shape
  (``check_trqp_document``) and its evidence;
- ``verify_tlog_proof``, ``parse_tlog_proof``, ``parse_tlog_policy`` and
  ``verify_checkpoint_with_policy``: C2SP tlog-proof bundles (``GET /svc/log/proof/{version}``)
  and tlog-policy texts (``GET /svc/log/policy``).
- ``check_state_answer``, ``verify_state_answer`` and ``verify_current``: is a version still the
  latest (``current``, ``superseded``, ``absent``, ``stale_checkpoint``, ``bad_proof``, ``fork``).
"""

from ._generated import *  # noqa: F401,F403  (the schema types)
from .canonical import canonicalize, digest_of, format_number
from .client import CONSISTENCY_HEADER, Client, token_position
from .log import (
    CheckpointResult,
    ConsistencyResult,
    InclusionResult,
    leaf_hash,
    log_leaf,
    node_hash,
    root_from_inclusion_proof,
    verify_checkpoint,
    verify_consistency,
    verify_consistency_proof,
    verify_cosigned_checkpoint,
    verify_inclusion,
)
from .dedi import DediVerifyResult, verify_dedi_file
from .logkeys import key_change_leaf, key_set_digest, parse_key_change_leaf, sort_dedi_keys
from .statekeys import domain_leaf, is_normal_domain, keys_of, parse_domain_leaf, parse_state_leaf
from .stateindex import (
    EMPTY_HASH,
    StateIndexResult,
    StateKey,
    StateProof,
    decode_state_proof,
    encode_state_key,
    index_leaf_hash,
    index_node_hash,
    list_root,
    state_key_hash,
    verify_absence,
    verify_extension,
    verify_latest,
    verify_membership,
)
from .tlogproof import (
    TLOG_PROOF_HEADER,
    PolicyGroup,
    PolicyWitness,
    TlogPolicy,
    TlogProof,
    TlogProofResult,
    parse_tlog_policy,
    parse_tlog_proof,
    verify_checkpoint_with_policy,
    verify_tlog_proof,
)
from .response import Response, SvcError
from .trqp import StateCheck, StateVerdict, TrqpEvidence, TrqpResult, default_state_check, trqp
from .trqpshape import check_trqp_document, is_date_time
from .current import CurrentVerdict, OpenedCheckpoint, check_state_answer, verify_current, verify_state_answer
from .verify import FIRST_PROOF_YEAR, MAX_DEPTH, VerifyResult, genesis_hex, proof_type, recompute_digest, verify_lookup

__version__ = "0.1.0"

__all__ = [
    "trqp",
    "TrqpResult",
    "TrqpEvidence",
    "StateCheck",
    "StateVerdict",
    "default_state_check",
    "check_trqp_document",
    "is_date_time",
    "Client",
    "Response",
    "SvcError",
    "CONSISTENCY_HEADER",
    "token_position",
    "verify_lookup",
    "VerifyResult",
    "recompute_digest",
    "digest_of",
    "canonicalize",
    "format_number",
    "proof_type",
    "genesis_hex",
    "FIRST_PROOF_YEAR",
    "MAX_DEPTH",
    "verify_checkpoint",
    "verify_cosigned_checkpoint",
    "verify_inclusion",
    "verify_consistency",
    "verify_consistency_proof",
    "root_from_inclusion_proof",
    "leaf_hash",
    "node_hash",
    "log_leaf",
    "verify_dedi_file",
    "DediVerifyResult",
    "key_change_leaf",
    "key_set_digest",
    "parse_key_change_leaf",
    "sort_dedi_keys",
    "CheckpointResult",
    "InclusionResult",
    "ConsistencyResult",
    "StateKey",
    "StateProof",
    "StateIndexResult",
    "EMPTY_HASH",
    "encode_state_key",
    "state_key_hash",
    "index_leaf_hash",
    "index_node_hash",
    "list_root",
    "decode_state_proof",
    "verify_membership",
    "verify_absence",
    "verify_extension",
    "verify_latest",
    "keys_of",
    "domain_leaf",
    "parse_domain_leaf",
    "parse_state_leaf",
    "is_normal_domain",
    "TLOG_PROOF_HEADER",
    "TlogProof",
    "TlogPolicy",
    "PolicyGroup",
    "PolicyWitness",
    "TlogProofResult",
    "parse_tlog_proof",
    "parse_tlog_policy",
    "verify_checkpoint_with_policy",
    "verify_tlog_proof",
    "CurrentVerdict",
    "OpenedCheckpoint",
    "check_state_answer",
    "verify_state_answer",
    "verify_current",
]
