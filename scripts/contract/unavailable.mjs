// The corpus of a service whose primary database is unreachable (run.sh: `svc serve` on
// Postgres through a relay that is then cut, no replicas): every operation of the contract once,
// through the validating proxy. Each operation that needs the database must answer 503 with
// the code primary_unavailable and a Retry-After header (docs/deployment.md, "Losing the
// primary"), and Prism must find no response violation: the declared 503s are checked against
// real answers. /readyz answers 503 too, with the code unavailable (it can neither write nor
// read: there is no replica either). The operations that need no database answer as usual:
// healthz, and the log's verifier key and policy (held in memory).
//
// usage: node unavailable.mjs OPENAPI_YAML PROXY_URL KEY
import fs from "node:fs";
import yaml from "js-yaml";
import { exchange } from "./exchange.mjs";

const [specPath, base, key] = process.argv.slice(2);
if (!key) {
  console.error("usage: node unavailable.mjs OPENAPI_YAML PROXY_URL KEY");
  process.exit(2);
}
const spec = yaml.load(fs.readFileSync(specPath, "utf8"));
const deref = (x) => {
  while (x && x.$ref) {
    x = x.$ref.replace(/^#\//, "").split("/").reduce((o, k) => o[k], spec);
  }
  return x;
};
const { send, results, seen } = exchange(base);

// Well-formed values for the path parameters: the database is not reached to find them missing.
const values = {
  namespace: "did:web:example.com:ns",
  namespace_id: "did:web:example.com:ns",
  registry_name: "employees",
  record_name: "alice",
  domain: "example.com",
  tag: "membership",
  profile_id: "4vJ9JU1bJJE96FWSJKvHsj",
  notification_id: "0190f2a1-b2c3-7d4e-8f60-718293a4b5c6",
  request_id: "0190f2a1-b2c3-7d4e-8f60-718293a4b5c6",
  key_id: "0190f2a1-b2c3-7d4e-8f60-718293a4b5c6",
  job_id: "0190f2a1-b2c3-7d4e-8f60-718293a4b5c6",
  subscription_id: "0190f2a1-b2c3-7d4e-8f60-718293a4b5c6",
  version: "0x" + "ab".repeat(16),
  tile_path: "0/000.p/1",
};

// Values for the required query parameters.
const queries = { from: "1", to: "2" };
// The operations that declare 503 but need no database, and the code /readyz answers.
const noDatabase = new Set(["getLogKey", "getLogPolicy"]);
const codeOf = (id) => (id === "readyz" ? "unavailable" : "primary_unavailable");

const ops = [];
for (const [path, item] of Object.entries(spec.paths)) {
  for (const method of ["get", "post", "put", "patch", "delete"]) {
    if (item[method]) ops.push({ id: item[method].operationId, method: method.toUpperCase(), path, op: item[method] });
  }
}

const wrong = []; // operations that declare 503 and answered otherwise, or without its code and header
for (const o of ops) {
  const required = (o.op.parameters ?? []).map(deref).filter((p) => p.in === "query" && p.required);
  const query = required.map((p) => `${p.name}=${encodeURIComponent(queries[p.name] ?? "1")}`).join("&");
  const path = o.path.replace(/\{([^}]+)\}/g, (_, name) => encodeURIComponent(values[name] ?? "x")) + (query ? `?${query}` : "");
  const sec = o.op.security ?? spec.security ?? [];
  const opts = { key: sec.length > 0 ? key : undefined };
  if (o.op.requestBody?.content?.["application/json"]) opts.body = {};
  const res = await send(o.id, o.method, path, opts);
  if (!o.op.responses["503"] || noDatabase.has(o.id)) continue;
  const retryAfter = res.headers["retry-after"];
  if (res.status !== 503 || res.json?.code !== codeOf(o.id) || !/^[1-9][0-9]*$/.test(retryAfter ?? "")) {
    wrong.push(`${o.id} ${o.method} ${path} -> ${res.status} code ${res.json?.code} (want ${codeOf(o.id)}) Retry-After ${retryAfter}: ${res.text.slice(0, 200)}`);
  }
}

const bad = results.filter((r) => r.responseViolations.length > 0);
const declared = ops.filter((o) => o.op.responses["503"]).length;
const answered503 = ops.filter((o) => seen.get(o.id)?.has(503)).length;
for (const r of bad) {
  console.log(`VIOLATION ${r.op} ${r.method} ${r.path.slice(0, 120)} -> ${r.status}: ${r.responseViolations.map((v) => `${v.location.join(".")}: ${v.message}`).join("; ")}`);
}
for (const w of wrong) console.log(`NOT 503 primary_unavailable WITH Retry-After: ${w}`);
console.log(`unavailable primary: ${results.length} requests; ${answered503} of the ${declared} operations that declare 503 answered it (${[...noDatabase].join(", ")} need no database); ${bad.length} response violations, ${wrong.length} operations without the 503`);
process.exit(bad.length || wrong.length ? 1 : 0);
