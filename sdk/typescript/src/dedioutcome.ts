// The outcomes of a DeDi file's verification and the failure that carries one out of a step
// (thrown by fail, caught by verifyDediFile).

/** The outcome of a verification: `authentic`, or the step that failed. */
export type DediOutcome =
  | "authentic"
  | "invalid"
  | "bad_signature"
  | "not_authenticated"
  | "digest_mismatch"
  | "stale"
  | "inactive"
  | "rollback"
  | "schema_unavailable"
  | "unavailable_authority"
  | "unsupported_key"
  | "digests_invalid"
  | "digests_not_authenticated"
  | "digests_stale"
  | "digests_rollback"
  | "digests_unavailable";

export type Obj = Record<string, unknown>;

export class Failure extends Error {
  constructor(readonly outcome: DediOutcome, reason: string) {
    super(reason);
  }
}

export const fail = (outcome: DediOutcome, reason: string): never => {
  throw new Failure(outcome, reason);
};
