// The "Verify in this browser" button of the explorer's entry pages (docs/explorer.md), bundled
// with the TypeScript SDK into ../assets/verify.js by `make explorer-assets`. It trusts nothing
// the server says but the verifier key the page names (compare it with one from elsewhere):
// it recomputes the digest from the digest fields of the lookup the page was made from,
// fetches the inclusion proof and the checkpoint, checks the checkpoint's signature, the
// proof, and the witnesses' cosignatures when the page names witnesses; then, with the SDK's
// check of the state answer (verifyStateAnswer, the twin of svc verify --current), whether
// this version is still the entry's latest: current, or superseded by a newer one.
import { verifyLookup, type LookupKind } from "../../sdk/typescript/src/verify.js";
import { logLeaf, lookupDataOf, verifyCheckpoint, verifyCosignedCheckpoint, verifyInclusion } from "../../sdk/typescript/src/log.js";
import { verifyStateAnswer, type CurrentVerdict } from "../../sdk/typescript/src/current.js";

type Outcome = "ok" | "fail" | "skip";

function start(): void {
  const entry = document.getElementById("svc-entry");
  const button = document.getElementById("verify-button") as HTMLButtonElement | null;
  const steps = document.getElementById("verify-steps");
  const summary = document.getElementById("verify-summary");
  if (!entry || !button || !steps || !summary) {
    return;
  }
  // Without this script the page explains that verification needs JavaScript, and shows no
  // button; with it, the button replaces the explanation.
  document.getElementById("verify-needs-script")?.remove();
  button.hidden = false;
  button.addEventListener("click", () => {
    button.disabled = true;
    steps.replaceChildren();
    summary.textContent = "Verifying…";
    verify(entry, steps, summary).finally(() => {
      button.disabled = false;
    });
  });
}

async function verify(entry: HTMLElement, steps: HTMLElement, summary: HTMLElement): Promise<void> {
  let failed = "";
  let n = 0;
  const step = (name: string, outcome: Outcome, text: string): boolean => {
    n++;
    const li = document.createElement("li");
    li.className = outcome;
    li.dataset.step = name;
    const word = outcome === "ok" ? "passed" : outcome === "fail" ? "FAILED" : "skipped";
    li.textContent = `Step ${n}, ${name}: ${word}. ${text}`;
    steps.appendChild(li);
    if (outcome === "fail" && !failed) {
      failed = `step ${n}, ${name}`;
    }
    return outcome !== "fail";
  };
  let superseded = "";
  let latestAsOf = "";
  const done = () => {
    summary.className = failed ? "fail" : "ok";
    summary.textContent = superseded
      ? `Not verified: ${failed} failed. ${superseded} Do not rely on this version.`
      : failed
        ? `Not verified: ${failed} failed. Do not trust what this page shows.`
        : `Verified: this page's entry is the one the log holds, under a checkpoint signed by the key shown${latestAsOf}.`;
  };
  const kind = (entry.dataset.kind ?? "") as LookupKind;
  const key = entry.dataset.key ?? "";
  const lookupText = entry.dataset.lookup ?? "";

  const digest = verifyLookup(kind, lookupText);
  if (!step("digest", digest.ok ? "ok" : "fail", digest.ok ? `The digest recomputed from the digest fields, ${digest.digest}, is the proof's.` : `The digest recomputed from the digest fields does not match the proof: ${digest.reason}.`)) {
    return done();
  }
  let version = "";
  try {
    version = String(JSON.parse(lookupText).data.version ?? "");
  } catch {
    /* verifyLookup has read it */
  }
  let proof: unknown;
  let checkpoint = "";
  try {
    const [p, c] = await Promise.all([
      fetch(`/svc/log/inclusion/${encodeURIComponent(version)}`, { headers: { Accept: "application/json" } }),
      fetch("/svc/log/checkpoint"),
    ]);
    const body = await p.json();
    checkpoint = await c.text();
    if (!p.ok) {
      step("fetch the inclusion proof and checkpoint", "fail", `The log answered ${p.status}: ${body?.message ?? "no proof"}.`);
      return done();
    }
    if (!c.ok) {
      step("fetch the inclusion proof and checkpoint", "fail", `The log answered ${c.status} for its checkpoint.`);
      return done();
    }
    proof = body;
    step("fetch the inclusion proof and checkpoint", "ok", `Fetched the proof of version ${version} and the log's checkpoint.`);
  } catch (e) {
    step("fetch the inclusion proof and checkpoint", "fail", `The log could not be read: ${e instanceof Error ? e.message : String(e)}.`);
    return done();
  }
  if (!key) {
    step("checkpoint signature", "fail", "The page names no verifier key to check the checkpoint against.");
    return done();
  }
  const cp = verifyCheckpoint(checkpoint, key);
  if (!step("checkpoint signature", cp.ok ? "ok" : "fail", cp.ok ? `The checkpoint of ${cp.origin}, size ${cp.size}, is signed by the verifier key shown.` : `The checkpoint's signature does not verify with the key shown: ${cp.reason}.`)) {
    return done();
  }
  const inc = verifyInclusion(proof, key, { kind, lookup: lookupText });
  if (!step("inclusion in the log", inc.ok ? "ok" : "fail", inc.ok ? `This version is leaf ${inc.logIndex} of the log's tree of size ${inc.treeSize}, under a signed checkpoint.` : `The inclusion proof does not hold for this entry: ${inc.reason}.`)) {
    return done();
  }
  const witnesses = (entry.dataset.witnesses ?? "").split(" ").filter((w) => w !== "");
  const quorum = Number(entry.dataset.quorum) || witnesses.length;
  if (witnesses.length === 0) {
    step("witness cosignatures", "skip", "No witnesses are configured for this explorer.");
  } else {
    try {
      const res = await fetch("/svc/log/cosigned-checkpoint");
      const text = await res.text();
      const co = res.ok ? verifyCosignedCheckpoint(text, key, witnesses, quorum) : { ok: false as const, reason: `the log answered ${res.status}` };
      if (!step("witness cosignatures", co.ok ? "ok" : "fail", co.ok ? `${quorum} of the configured witnesses cosigned the log's checkpoint of size ${co.size}.` : `The witnesses' cosignatures do not verify: ${co.reason}.`)) {
        return done();
      }
    } catch (e) {
      step("witness cosignatures", "fail", `The cosigned checkpoint could not be read: ${e instanceof Error ? e.message : String(e)}.`);
      return done();
    }
  }
  // Step 6: is this version still the latest? The state answer of the entry's id, checked in
  // this browser against the key (and the witnesses) shown, and against the log's checkpoint
  // fetched in step 2 (a tree it does not extend is a fork).
  const have = (() => {
    try {
      return logLeaf(kind, lookupDataOf(lookupText, kind));
    } catch {
      return undefined;
    }
  })();
  let verdict: CurrentVerdict;
  try {
    const res = await fetch(`/svc/log/state/${encodeURIComponent(entry.dataset.id ?? "")}`, { headers: { Accept: "application/json" } });
    const answer = await res.text();
    if (res.status !== 200 && res.status !== 404) {
      step("current", "skip", `Whether this is the latest version cannot be told now: the log answered ${res.status} for its state (it may be catching up).`);
      return done();
    }
    const options = { logKey: key, witnessKeys: witnesses, quorum };
    const first = verifyStateAnswer(answer, { kind: "id", parts: [entry.dataset.id ?? ""] }, have, options);
    const later = verifyCheckpoint(checkpoint, key);
    let consistency: unknown = [];
    if (later.ok && first.checkpointSize !== undefined && later.size > first.checkpointSize) {
      const c = await fetch(`/svc/log/consistency?from=${first.checkpointSize}&to=${later.size}`, { headers: { Accept: "application/json" } });
      consistency = c.ok ? await c.json() : [];
    }
    verdict = first.checkpointSize === undefined ? first : verifyStateAnswer(answer, { kind: "id", parts: [entry.dataset.id ?? ""] }, have, options, { checkpoint, consistency });
  } catch (e) {
    step("current", "fail", `The log's state could not be read: ${e instanceof Error ? e.message : String(e)}.`);
    return done();
  }
  const size = verdict.checkpointSize ?? 0;
  const ago = verdict.at ? timeAgo(Date.now() - verdict.at.getTime()) : "";
  const signed = verdict.clock === "witnesses" ? `cosigned ${ago} ago` : `signed ${ago} ago by the log's own clock (no witnesses are configured)`;
  switch (verdict.outcome) {
    case "current":
      latestAsOf = `, and it is the latest version as of checkpoint ${size}`;
      step("current", "ok", `current: this is the latest version as of checkpoint ${size}, ${signed}.`);
      break;
    case "superseded": {
      const l = verdict.latest;
      const which = l?.versionCount !== undefined ? `version ${l.versionCount} (${l.version})` : "a newer leaf";
      superseded = `A newer version exists: ${which}, at log index ${l?.logIndex}.`;
      step("current", "fail", `superseded: ${which} is the latest version as of checkpoint ${size}, ${signed}; this page shows an older one, logged and signed, but no longer current.`);
      break;
    }
    case "absent":
    case "stale_checkpoint":
      step("current", "skip", `Not provable yet: ${verdict.message}. The log's state lags this version; try again in a moment.`);
      break;
    default:
      step("current", "fail", `${verdict.outcome}: ${verdict.message}.`);
  }
  done();
}

// timeAgo says a duration in milliseconds in words: "12 seconds", "3 minutes", "2 hours", "5 days".
function timeAgo(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  const unit = (n: number, w: string) => `${n} ${w}${n === 1 ? "" : "s"}`;
  if (s < 90) return unit(s, "second");
  if (s < 90 * 60) return unit(Math.round(s / 60), "minute");
  if (s < 36 * 3600) return unit(Math.round(s / 3600), "hour");
  return unit(Math.round(s / 86400), "day");
}

if (document.readyState === "loading") {
  document.addEventListener("DOMContentLoaded", start);
} else {
  start();
}
