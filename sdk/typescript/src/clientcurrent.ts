// verifyCurrent: ask the service for the state answer of a lookup's entry and check it, as
// `svc verify --current --url` does (docs/state-index.md, "Verifying the present").

import type { SvcClient } from "./client.js";
import { SvcTextError } from "./client.js";
import { verifyStateAnswer, type CurrentVerdict, type VerifyCurrentOptions } from "./current.js";
import { verifyCheckpoint } from "./checkpoint.js";
import { logLeaf, lookupDataOf } from "./log.js";
import { verifyLookup, type LookupKind } from "./verify.js";

/** What verifyCurrent needs besides the trust of verifyStateAnswer. */
export interface VerifyCurrentFetchOptions extends VerifyCurrentOptions {
  /**
   * Check that the log's latest checkpoint (GET /svc/log/checkpoint) extends the answer's tree,
   * with the consistency proof between them (GET /svc/log/consistency): `fork` otherwise.
   * Default true.
   */
  forkCheck?: boolean;
  signal?: AbortSignal;
}

type Got = { data?: unknown; error?: unknown; response: Response };

// text reads one answer as text; statuses outside `ok` throw SvcTextError.
function text({ data, error, response }: Got, path: string, ok: readonly number[]): string {
  const body = typeof data === "string" ? data : typeof error === "string" ? error : JSON.stringify(error ?? "");
  if (!ok.includes(response.status)) {
    throw new SvcTextError(response.status, body, path);
  }
  return body;
}

/**
 * Is the version of a lookup the entry's latest logged version? It checks the lookup's digest
 * (verifyLookup: `bad_proof` when it fails), asks the service for the state answer of the
 * entry's id (GET /svc/log/state/{id}: a 200, or a 404 holding the absence proof), opens its
 * checkpoint with the log's key (and the witnesses' cosignatures), and, unless `forkCheck` is
 * false, checks that the log's latest checkpoint extends its tree; then checkStateAnswer gives
 * the outcome: `current`, `superseded` (naming the latest version, its version_count and log
 * index), `absent`, `stale_checkpoint`, `bad_proof` or `fork`, with a sentence.
 *
 * A stale instance, cache or mirror that serves an older version with its own valid inclusion
 * proof passes verifyLookup and verifyInclusion; here it is `superseded`.
 *
 * Throws SvcTextError when the service does not answer the state query (503 while its index
 * catches up, say) or the latest checkpoint; every verdict on what it did answer is returned.
 */
export async function verifyCurrent(client: SvcClient, kind: LookupKind, lookup: unknown, options: VerifyCurrentFetchOptions): Promise<CurrentVerdict> {
  const digest = verifyLookup(kind, lookup);
  if (!digest.ok) {
    return { outcome: "bad_proof", message: `the lookup does not verify: ${digest.reason}` };
  }
  let have: string;
  try {
    have = logLeaf(kind, lookupDataOf(lookup, kind));
  } catch (e) {
    return { outcome: "bad_proof", message: e instanceof Error ? e.message : String(e) };
  }
  const signal = options.signal ? { signal: options.signal } : {};
  const statePath = `/svc/log/state/${encodeURIComponent(digest.id)}`;
  const answer = text(await client.GET("/svc/log/state/{id}", { params: { path: { id: digest.id } }, parseAs: "text", ...signal }), statePath, [200, 404]);
  const key = { kind: "id" as const, parts: [digest.id] };
  if (options.forkCheck === false) {
    return verifyStateAnswer(answer, key, have, options);
  }
  // The fork check: the log's latest checkpoint and, when it is larger than the answer's, the
  // consistency proof to it.
  const first = verifyStateAnswer(answer, key, have, options);
  if (first.outcome === "bad_proof" || first.checkpointSize === undefined) {
    return first;
  }
  const latest = text(await client.GET("/svc/log/checkpoint", { parseAs: "text", ...signal }), "/svc/log/checkpoint", [200]);
  const l = verifyCheckpoint(latest, options.logKey);
  if (!l.ok) {
    return { outcome: "bad_proof", message: `the log's latest checkpoint: ${l.reason}` };
  }
  let consistency: unknown = [];
  if (l.size > first.checkpointSize) {
    const query = { from: first.checkpointSize, to: l.size };
    consistency = text(
      await client.GET("/svc/log/consistency", { params: { query }, parseAs: "text", ...signal }),
      `/svc/log/consistency?from=${query.from}&to=${query.to}`,
      [200],
    );
  }
  return verifyStateAnswer(answer, key, have, options, { checkpoint: latest, consistency });
}
