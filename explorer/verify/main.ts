// The "Verify in this browser" button of the explorer's entry pages (docs/explorer.md), bundled
// with the TypeScript SDK into ../assets/verify.js by `make explorer-assets`. It trusts nothing
// the server says but the verifier key the page names (compare it with one from elsewhere):
// it recomputes the digest from the digest fields of the lookup the page was made from,
// fetches the inclusion proof and the checkpoint, checks the checkpoint's signature, the
// proof, and the witnesses' cosignatures when the page names witnesses.
import { verifyLookup, type LookupKind } from "../../sdk/typescript/src/verify.js";
import { verifyCheckpoint, verifyCosignedCheckpoint, verifyInclusion } from "../../sdk/typescript/src/log.js";

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
  const done = () => {
    summary.className = failed ? "fail" : "ok";
    summary.textContent = failed
      ? `Not verified: ${failed} failed. Do not trust what this page shows.`
      : "Verified: this page's entry is the one the log holds, under a checkpoint signed by the key shown.";
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
  if (witnesses.length === 0) {
    step("witness cosignatures", "skip", "No witnesses are configured for this explorer.");
    return done();
  }
  try {
    const res = await fetch("/svc/log/cosigned-checkpoint");
    const text = await res.text();
    const quorum = Number(entry.dataset.quorum) || witnesses.length;
    const co = res.ok ? verifyCosignedCheckpoint(text, key, witnesses, quorum) : { ok: false as const, reason: `the log answered ${res.status}` };
    step("witness cosignatures", co.ok ? "ok" : "fail", co.ok ? `${quorum} of the configured witnesses cosigned the log's checkpoint of size ${co.size}.` : `The witnesses' cosignatures do not verify: ${co.reason}.`);
  } catch (e) {
    step("witness cosignatures", "fail", `The cosigned checkpoint could not be read: ${e instanceof Error ? e.message : String(e)}.`);
  }
  done();
}

if (document.readyState === "loading") {
  document.addEventListener("DOMContentLoaded", start);
} else {
  start();
}
