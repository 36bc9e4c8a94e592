// The request corpus of `make contract`: it sends every operation of openapi.yaml through a
// validating proxy (Stoplight Prism) in front of a real `svc serve`, first as an integrator
// would (publish, look up, query, verify, domains, delegates, notifications), then with invalid
// inputs derived from the contract for each operation: malformed and empty path segments, bad
// query values, bad headers, missing or bad authentication, bad bodies, wrong content types,
// oversized bodies and wrong methods.
//
// Prism reports what it finds in the `sl-violations` header of each answer. A response
// violation (the status is not declared for the operation, or the body or a header does not
// match) is what this corpus hunts; request violations are expected, since most requests here
// are invalid on purpose. The run fails on any response violation, on any 5xx (no client
// mistake may reach a 500) and when an operation of the contract was not exercised. The
// invalid inputs of the second phase are derived and sent by invalid.mjs.
//
// usage: node corpus.mjs OPENAPI_YAML PROXY_URL OWNER_KEY OTHER_KEY
import fs from "node:fs";
import yaml from "js-yaml";
import { exchange } from "./exchange.mjs";
import { sendInvalidInputs } from "./invalid.mjs";

const [specPath, base, ownerKey, otherKey] = process.argv.slice(2);
if (!otherKey) {
  console.error("usage: node corpus.mjs OPENAPI_YAML PROXY_URL OWNER_KEY OTHER_KEY");
  process.exit(2);
}
const spec = yaml.load(fs.readFileSync(specPath, "utf8"));

// The contract's operations.
const ops = [];
for (const [path, item] of Object.entries(spec.paths)) {
  for (const method of ["get", "post", "put", "patch", "delete"]) {
    if (item[method]) ops.push({ id: item[method].operationId, method: method.toUpperCase(), path, op: item[method] });
  }
}
const byId = Object.fromEntries(ops.map((o) => [o.id, o]));

const deref = (x) => {
  while (x && x.$ref) {
    x = x.$ref.replace(/^#\//, "").split("/").reduce((o, k) => o[k], spec);
  }
  return x;
};

const { send, results, seen, retries } = exchange(base);

const enc = encodeURIComponent;

// ---- Phase 1: the integrator's flows (valid requests, and the expected refusals on the way).
const ns = await send("createNamespace", "POST", "/svc/create-namespace", {
  key: ownerKey,
  body: { name: "Acme", description: "Acme Corp", meta: { city: "Springfield" } },
});
if (ns.status !== 201) throw new Error(`create-namespace answered ${ns.status}`);
const nsId = ns.json.data.namespace_id;
const profileId = ns.json.data.created_by.split(":").pop();
const other = await send("createNamespace", "POST", "/svc/create-namespace", { key: otherKey, body: { name: "Other" } });
const otherNs = other.json.data.namespace_id;
const N = enc(nsId);

await send("updateNamespace", "POST", `/svc/${N}/update-namespace`, { key: ownerKey, body: { description: "Acme Corporation" } });
const schema = { type: "object", required: ["email"], properties: { email: { type: "string" } } };
await send("createRegistry", "POST", `/svc/${N}/create-registry`, {
  key: ownerKey,
  body: { registry_name: "employees", description: "staff", schema, ttl: 300 },
});
await send("createRegistry", "POST", `/svc/${N}/create-registry`, { key: ownerKey, body: { registry_name: "private", schema, query_allowed: false } });
await send("createRegistry", "POST", `/svc/${N}/create-registry`, { key: ownerKey, body: { registry_name: "members", tag: "membership" } });
await send("createRegistry", "POST", `/svc/${N}/create-registry`, { key: ownerKey, body: { registry_name: "employees", schema } }); // 409
const R = `/svc/${N}/employees`;
await send("addRecord", "POST", `${R}/add-record`, { key: ownerKey, body: { record_name: "alice", description: "Alice", details: { email: "alice@example.com" } } });
await send("addRecord", "POST", `${R}/add-record`, { key: ownerKey, body: { record_name: "alice", details: { email: "a@example.com" } } }); // 409
await send("addRecord", "POST", `${R}/add-record`, { key: ownerKey, body: { record_name: "nomail", details: {} } }); // schema: 400
await send("addRecords", "POST", `${R}/add-records`, {
  key: ownerKey,
  body: { records: [{ record_name: "bob", details: { email: "bob@example.com" } }, { record_name: "carol", details: { email: "carol@example.com" }, state: "draft" }] },
});
await send("updateRecord", "POST", `${R}/alice/update-record`, { key: ownerKey, body: { description: "Alice A." } });
await send("publishRecord", "POST", `${R}/carol/publish-record`, { key: ownerKey });
await send("publishRecord", "POST", `${R}/carol/publish-record`, { key: ownerKey }); // not a draft any more
await send("updateRegistry", "POST", `${R}/update-registry`, { key: ownerKey, body: { description: "all staff" } });
await send("deactivateRegistry", "POST", `/svc/${N}/private/deactivate-registry`, { key: ownerKey });
await send("addRecord", "POST", `/svc/${N}/private/add-record`, { key: ownerKey, body: { record_name: "x", details: { email: "x@example.com" } } }); // inactive
await send("activateRegistry", "POST", `/svc/${N}/private/activate-registry`, { key: ownerKey });
// The lifecycle (docs/lifecycle.md): record and registry states, legal and illegal changes.
await send("addRecord", "POST", `${R}/add-record`, { key: ownerKey, body: { record_name: "dave", details: { email: "dave@example.com" } } });
await send("reinstateRecord", "POST", `${R}/dave/reinstate-record`, { key: ownerKey }); // live already: the current version
await send("suspendRecord", "POST", `${R}/dave/suspend-record`, { key: ownerKey });
await send("reinstateRecord", "POST", `${R}/dave/reinstate-record`, { key: ownerKey });
await send("suspendRecord", "POST", `${R}/dave/suspend-record`, { key: ownerKey });
await send("revokeRecord", "POST", `${R}/dave/revoke-record`, { key: ownerKey });
await send("reinstateRecord", "POST", `${R}/dave/reinstate-record`, { key: ownerKey }); // 409: revocation is final
await send("suspendRecord", "POST", `${R}/dave/suspend-record`, { key: ownerKey }); // 409
await send("revokeRecord", "POST", `${R}/nobody/revoke-record`, { key: ownerKey }); // 404
await send("suspendRecord", "POST", `${R}/alice/suspend-record`, { key: otherKey }); // 403
await send("queryRecords", "GET", `/svc/query/${N}/employees?state=revoked`);
await send("queryRecords", "GET", `/svc/query/${N}/employees?state=expired`);
await send("searchRecords", "GET", `/svc/search/${N}?record_state=revoked`);
await send("createRegistry", "POST", `/svc/${N}/create-registry`, { key: ownerKey, body: { registry_name: "old", schema } });
await send("archiveRegistry", "POST", `/svc/${N}/old/archive-registry`, { key: ownerKey });
await send("addRecord", "POST", `/svc/${N}/old/add-record`, { key: ownerKey, body: { record_name: "x", details: { email: "x@example.com" } } }); // 409: archived
await send("activateRegistry", "POST", `/svc/${N}/old/activate-registry`, { key: ownerKey }); // 409: restore applies
await send("restoreRegistry", "POST", `/svc/${N}/old/restore-registry`, { key: ownerKey });
await send("revokeRegistry", "POST", `/svc/${N}/old/revoke-registry`, { key: ownerKey });
await send("restoreRegistry", "POST", `/svc/${N}/old/restore-registry`, { key: ownerKey }); // 409: revocation is final
await send("archiveRegistry", "POST", `/svc/${N}/old/archive-registry`, { key: ownerKey }); // 409
await send("revokeRegistry", "POST", `/svc/${N}/nothing/revoke-registry`, { key: ownerKey }); // 404
await send("queryRegistries", "GET", `/svc/query/${N}?status=revoked`);
// CSV import jobs and export (docs/csv.md).
const multipart = (field, filename, content) => {
  const boundary = "----svc-corpus-boundary";
  const body = `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${filename}"\r\nContent-Type: text/csv\r\n\r\n${content}\r\n--${boundary}--\r\n`;
  return { raw: true, body, contentType: `multipart/form-data; boundary=${boundary}` };
};
const uploaded = await send("bulkUploadRecords", "POST", `${R}/bulk-upload`, {
  key: ownerKey,
  ...multipart("file", "staff.csv", "record_name,email\nerin,erin@example.com\nfrank,frank@example.com\n"),
});
await send("bulkUploadRecords", "POST", `${R}/bulk-upload`, { key: ownerKey, ...multipart("file", "bad.csv", "email\nx@example.com\n") }); // 400: no record_name
await send("bulkUploadRecords", "POST", `${R}/bulk-upload`, { key: ownerKey, ...multipart("other", "x.csv", "record_name\nx\n") }); // 400: no field file
await send("bulkUploadRecords", "POST", `/svc/${N}/old/bulk-upload`, { key: ownerKey, ...multipart("file", "x.csv", "record_name\nx\n") }); // 409: revoked registry
await send("bulkUploadRecords", "POST", `${R}/bulk-upload`, { key: otherKey, ...multipart("file", "x.csv", "record_name\nx\n") }); // 403
const JOB = uploaded.json?.data?.job_id ?? "none";
await send("getJob", "GET", `/svc/jobs/${JOB}`, { key: ownerKey });
await send("getJob", "GET", `/svc/jobs/${JOB}`, { key: otherKey }); // 404: not theirs
await send("listJobs", "GET", `/svc/jobs`, { key: ownerKey });
// A job with failed rows (docs/csv.md, "Failed rows"), waited for so that they exist.
const failing = await send("bulkUploadRecords", "POST", `${R}/bulk-upload`, {
  key: ownerKey,
  ...multipart("file", "some-bad.csv", "record_name,email\ngina,gina@example.com\n.bad,x@example.com\nerin,=dup@example.com\n"),
});
const FJOB = failing.json?.data?.job_id ?? "none";
for (let i = 0; i < 50; i++) {
  const j = await send("getJob", "GET", `/svc/jobs/${FJOB}`, { key: ownerKey });
  if (j.json?.data?.state === "done" || j.json?.data?.state === "failed") break;
  await new Promise((r) => setTimeout(r, 200));
}
await send("getJobFailedEntries", "GET", `/svc/jobs/${FJOB}/failed-entries`, { key: ownerKey });
await send("getJobFailedEntries", "GET", `/svc/jobs/${FJOB}/failed-entries?page=2&page_size=1`, { key: ownerKey });
await send("getJobFailedEntries", "GET", `/svc/jobs/${FJOB}/failed-entries`, { key: otherKey }); // 404: not theirs
await send("getJobFailedEntries", "GET", `/svc/jobs/${FJOB}/failed-entries?page=0`, { key: ownerKey }); // 400
await send("downloadJobFailedEntriesCsv", "GET", `/svc/jobs/${FJOB}/failed-entries.csv`, { key: ownerKey });
await send("downloadJobFailedEntriesCsv", "GET", `/svc/jobs/${FJOB}/failed-entries.csv`, { key: otherKey }); // 404: not theirs
await send("downloadSampleCsv", "GET", `${R}/download-sample-csv`);
await send("downloadSampleCsv", "GET", `${R}/download-sample-csv`, { key: otherKey });
await send("downloadSampleCsv", "GET", `/svc/${N}/nothing/download-sample-csv`); // 404
await send("exportRecordsAsCsv", "GET", `${R}/export-records-as-csv`);
await send("exportRecordsAsCsv", "GET", `/svc/${N}/private/export-records-as-csv`); // 403: query not allowed
await send("exportRecordsAsCsv", "GET", `/svc/${N}/private/export-records-as-csv`, { key: ownerKey });
await send("exportRecordsAsCsv", "GET", `/svc/${N}/nothing/export-records-as-csv`); // 404
// Watch subscriptions (docs/webhooks.md). The sender of the service under test retries the
// unreachable hooks.example.com in the background; nothing here waits for a delivery.
const watched = await send("createWatchSubscription", "POST", `/svc/watch`, {
  key: otherKey,
  body: { watch_type: "namespace", target_id: nsId, webhook_url: "https://hooks.example.com/svc" },
});
const SUB = watched.json?.data?.subscription_id ?? "none";
await send("createWatchSubscription", "POST", `/svc/watch`, { key: otherKey, body: { watch_type: "record", target_id: "nope", webhook_url: "https://hooks.example.com/svc" } }); // 404
await send("createWatchSubscription", "POST", `/svc/watch`, { key: otherKey, body: { watch_type: "namespace", target_id: nsId, webhook_url: "http://10.0.0.1/hook" } }); // 400
const tagWatch = await send("createWatchSubscription", "POST", `/svc/watch`, {
  key: otherKey,
  body: { watch_type: "tag", registry_tag: "membership", webhook_url: "https://hooks.example.com/svc" },
});
await send("createWatchSubscription", "POST", `/svc/watch`, { key: otherKey, body: { watch_type: "tag", target_id: nsId, webhook_url: "https://hooks.example.com/svc" } }); // 400: no registry_tag
await send("createWatchSubscription", "POST", `/svc/watch`, { key: otherKey, body: { watch_type: "registry", registry_tag: "membership", webhook_url: "https://hooks.example.com/svc" } }); // 400: no target_id
await send("listWatchSubscriptions", "GET", `/svc/watch/subscriptions`, { key: otherKey });
await send("getWatchSubscription", "GET", `/svc/watch/${tagWatch.json?.data?.subscription_id ?? "none"}`, { key: otherKey });
await send("deleteWatchSubscription", "DELETE", `/svc/watch/${tagWatch.json?.data?.subscription_id ?? "none"}`, { key: otherKey });
await send("getWatchSubscription", "GET", `/svc/watch/${SUB}`, { key: otherKey });
await send("getWatchSubscription", "GET", `/svc/watch/${SUB}`, { key: ownerKey }); // 404: not theirs
await send("listWatchDeliveries", "GET", `/svc/watch/${SUB}/deliveries`, { key: otherKey });
await send("listWatchDeliveries", "GET", `/svc/watch/${SUB}/deliveries`, { key: ownerKey }); // 404: not theirs
await send("deleteWatchSubscription", "DELETE", `/svc/watch/${SUB}`, { key: otherKey });
await send("deleteWatchSubscription", "DELETE", `/svc/watch/${SUB}`, { key: otherKey }); // 404

const lookNs = await send("lookupNamespace", "GET", `/svc/lookup/${N}`);
const lookReg = await send("lookupRegistry", "GET", `/svc/lookup/${N}/employees`);
const lookRec = await send("lookupRecord", "GET", `/svc/lookup/${N}/employees/alice`);
await send("lookupRecord", "GET", `/svc/lookup/${N}/employees/alice`, { headers: { "If-None-Match": lookRec.headers.etag ?? "" } });
await send("lookupNamespace", "GET", `/svc/lookup/${N}`, { key: otherKey });
const recVersions = await send("listRecordVersions", "GET", `/svc/versions/${N}/employees/alice`);
const oldVersion = recVersions.json?.data?.versions?.at(-1) ?? "0x" + "0".repeat(32);
await send("lookupRecord", "GET", `/svc/lookup/${N}/employees/alice?version_id=${oldVersion}`);
await send("lookupRecord", "GET", `/svc/lookup/${N}/employees/alice?as_on=2000-01-01`);
await send("lookupRegistry", "GET", `/svc/lookup/${N}/employees?as_on=2999-01-01`);
await send("listNamespaceVersions", "GET", `/svc/versions/${N}`);
await send("listRegistryVersions", "GET", `/svc/versions/${N}/employees`);
const regVersion = lookReg.json.data.version;
await send("updateRegistry", "POST", `${R}/update-registry`, { key: ownerKey, body: { ttl: 60 }, headers: { "If-Match": `"${regVersion}"` } }); // 412: changed since
await send("updateRegistry", "POST", `${R}/update-registry`, { key: ownerKey, body: { ttl: 60 }, headers: { "If-Match": "not a version" } }); // 400

await send("queryRegistries", "GET", `/svc/query/${N}?sort=name&page=1&page_size=10&status=active&name=emp&from=2000-01-01&to=2999-12-31`);
await send("queryRegistries", "GET", `/svc/query/${N}?as_on=2999-01-01`);
await send("queryRecords", "GET", `/svc/query/${N}/employees?sort=date&name=a`);
await send("queryRecords", "GET", `/svc/query/${N}/private`); // query not allowed: 403
await send("queryRecords", "GET", `/svc/query/${N}/private`, { key: ownerKey });
await send("getRegistriesByTag", "GET", `/svc/membership/get-registry-by-tag`);
await send("getRegistriesByTag", "GET", `/svc/custom/get-registry-by-tag`);
await send("searchRecords", "GET", `/svc/search/${N}?email=alice@example.com`);
await send("searchRecords", "GET", `/svc/search/${N}?registry_name=employees&record_name=al&page_size=5`);
await send("searchRecords", "GET", `/svc/search/${N}`);
await send("searchNamespaces", "GET", `/svc/namespaces?q=acme`);
await send("searchNamespaces", "GET", `/svc/namespaces?q=${encodeURIComponent("100%_\\")}&page=2&page_size=5`);
await send("searchNamespaces", "GET", `/svc/namespaces`, { key: ownerKey });

await send("verifyNamespaceLookup", "POST", "/svc/verify-namespace-lookup", { key: ownerKey, body: { namespace_lookup_response: lookNs.json } });
await send("verifyRegistryLookup", "POST", "/svc/verify-registry-lookup", { key: ownerKey, body: { registry_lookup_response: lookReg.json } });
await send("verifyRecordLookup", "POST", "/svc/verify-record-lookup", { key: ownerKey, body: { record_lookup_response: lookRec.json } });
await send("verifyRecordLookup", "POST", "/svc/verify-record-lookup", {
  key: ownerKey,
  body: { record_lookup_response: { ...lookRec.json, data: { ...lookRec.json.data, description: "forged" } } },
});
await send("getNamespaceVerificationLogs", "GET", `/svc/${N}/get-namespace-verification-logs`, { key: ownerKey });
await send("getRegistryVerificationLogs", "GET", `/svc/${N}/employees/get-registry-verification-logs?page=1&page_size=5`, { key: ownerKey });
await send("getRecordVerificationLogs", "GET", `/svc/${N}/employees/alice/get-record-verification-logs`, { key: ownerKey });
await send("getRecordVerificationLogs", "GET", `/svc/${N}/employees/alice/get-record-verification-logs`, { key: otherKey }); // 403

await send("addDelegate", "POST", `/svc/${N}/add-delegate`, { key: ownerKey, body: { email: "other@example.com" } });
await send("addDelegate", "POST", `/svc/${N}/add-delegate`, { key: ownerKey, body: { email: "other@example.com" } }); // already
await send("getDelegates", "GET", `/svc/${N}/get-delegates`, { key: ownerKey });
await send("addDelegate", "POST", `/svc/${N}/add-delegate`, { key: otherKey, body: { email: "third@example.com" } }); // owner only
await send("removeDelegate", "POST", `/svc/${N}/remove-delegate`, { key: ownerKey, body: { email: "other@example.com" } });
await send("removeDelegate", "POST", `/svc/${N}/remove-delegate`, { key: ownerKey, body: { email: "other@example.com" } }); // not a delegate

// Ownership transfer, of a namespace of its own: refused (not the owner, no such user, the owner itself), then done.
const handed = await send("createNamespace", "POST", "/svc/create-namespace", { key: ownerKey, body: { name: "Handed over" } });
const H = enc(handed.json.data.namespace_id);
await send("transferOwnership", "POST", `/svc/${H}/transfer-ownership`, { key: otherKey, body: { email: "other@example.com" } }); // 403
await send("transferOwnership", "POST", `/svc/${H}/transfer-ownership`, { key: ownerKey, body: { email: "nobody@example.com" } }); // 404 user_not_found
await send("transferOwnership", "POST", `/svc/${H}/transfer-ownership`, { key: ownerKey, body: { email: "owner@example.com" } }); // 409
await send("transferOwnership", "POST", `/svc/${H}/transfer-ownership`, { key: ownerKey, body: { email: "other@example.com", keep_as_delegate: false } });

// Drafts: saved (201; a live state 400), published in a batch (200), refused by name (400 twice, 404 missing, 409 not a draft).
await send("saveRecordAsDraft", "POST", `/svc/${N}/employees/save-record-as-draft`, { key: ownerKey, body: { record_name: "draft-one", details: { name: "Draft", email: "d@example.com" } } });
await send("saveRecordAsDraft", "POST", `/svc/${N}/employees/save-record-as-draft`, { key: ownerKey, body: { record_name: "draft-two", details: { name: "Draft", email: "d@example.com" }, state: "live" } });
await send("saveRecordAsDraft", "POST", `/svc/${N}/employees/save-record-as-draft`, { key: otherKey, body: { record_name: "draft-two", details: {} } });
await send("publishRecords", "POST", `/svc/${N}/employees/publish-records`, { key: ownerKey, body: { records: ["draft-one", "draft-one"] } });
await send("publishRecords", "POST", `/svc/${N}/employees/publish-records`, { key: ownerKey, body: { records: ["draft-one", "ghost"] } });
await send("publishRecords", "POST", `/svc/${N}/employees/publish-records`, { key: otherKey, body: { records: ["draft-one"] } });
await send("publishRecords", "POST", `/svc/${N}/employees/publish-records`, { key: ownerKey, body: { records: ["draft-one"] } });
await send("publishRecords", "POST", `/svc/${N}/employees/publish-records`, { key: ownerKey, body: { records: ["draft-one"] } }); // 409

// Delete and restore (docs/lifecycle.md): tombstones, the lists of what may be restored, restores; refusals on the way.
const doomed = await send("createNamespace", "POST", "/svc/create-namespace", { key: ownerKey, body: { name: "Doomed" } });
const DID = doomed.json.data.namespace_id;
const D = enc(DID);
await send("createRegistry", "POST", `/svc/${D}/create-registry`, { key: ownerKey, body: { registry_name: "gone", schema } });
await send("addRecords", "POST", `/svc/${D}/gone/add-records`, {
  key: ownerKey,
  body: { records: [{ record_name: "x1", details: { email: "x1@example.com" } }, { record_name: "x2", details: { email: "x2@example.com" } }] },
});
await send("deleteRecords", "DELETE", `/svc/${D}/gone/delete-records`, { key: ownerKey, body: { records: [] } }); // 400
await send("deleteRecords", "DELETE", `/svc/${D}/gone/delete-records`, { key: ownerKey, body: { records: ["ghost"] } }); // 404
await send("deleteRecords", "DELETE", `/svc/${D}/gone/delete-records`, { key: otherKey, body: { records: ["x1"] } }); // 403
await send("deleteRecords", "DELETE", `/svc/${D}/gone/delete-records`, { key: ownerKey, body: { records: ["x1"], reason: "wrong" } });
await send("deleteRecords", "DELETE", `/svc/${D}/gone/delete-records`, { key: ownerKey, body: { records: ["x1"] } }); // 409
await send("listDeletedRecords", "GET", `/svc/deleted/records?namespace_id=${D}&registry_name=gone`, { key: ownerKey });
await send("restoreDeletedRecords", "POST", "/svc/restore/records", { key: ownerKey, body: { records: [{ namespace_id: DID, registry_name: "gone", record_name: "x2" }] } }); // 409
await send("restoreDeletedRecords", "POST", "/svc/restore/records", { key: otherKey, body: { records: [{ namespace_id: DID, registry_name: "gone", record_name: "x1" }] } }); // 403
await send("restoreDeletedRecords", "POST", "/svc/restore/records", { key: ownerKey, body: { records: [{ namespace_id: DID, registry_name: "gone", record_name: "x1" }] } });
await send("deleteRegistry", "DELETE", `/svc/${D}/gone/delete-registry`, { key: otherKey }); // 403
await send("deleteRegistry", "DELETE", `/svc/${D}/gone/delete-registry`, { key: ownerKey, body: { reason: "obsolete" } });
await send("deleteRegistry", "DELETE", `/svc/${D}/gone/delete-registry`, { key: ownerKey }); // 409
await send("listDeletedRegistries", "GET", `/svc/deleted/registries?namespace_id=${D}`, { key: ownerKey });
await send("restoreDeletedRegistry", "POST", "/svc/restore/registry", { key: ownerKey, body: { namespace_id: DID, registry_name: "ghost" } }); // 404
await send("restoreDeletedRegistry", "POST", "/svc/restore/registry", { key: ownerKey, body: { namespace_id: DID, registry_name: "gone" } });
await send("restoreDeletedRegistry", "POST", "/svc/restore/registry", { key: ownerKey, body: { namespace_id: DID, registry_name: "gone" } }); // 409
await send("deleteNamespace", "DELETE", `/svc/${D}/delete-namespace`, { key: otherKey }); // 403
await send("deleteNamespace", "DELETE", `/svc/${D}/delete-namespace`, { key: ownerKey, body: { reason: "closing" } });
await send("deleteNamespace", "DELETE", `/svc/${D}/delete-namespace`, { key: ownerKey }); // 409
await send("lookupNamespace", "GET", `/svc/lookup/${D}`); // 404
await send("listDeletedNamespaces", "GET", "/svc/deleted/namespaces?page=1&page_size=10", { key: ownerKey });
await send("restoreDeletedNamespace", "POST", "/svc/restore/namespace", { key: otherKey, body: { namespace_id: DID } }); // 403
await send("restoreDeletedNamespace", "POST", "/svc/restore/namespace", { key: ownerKey, body: { namespace_id: DID } });
await send("restoreDeletedNamespace", "POST", "/svc/restore/namespace", { key: ownerKey, body: { namespace_id: DID } }); // 409

await send("addRegistryDelegate", "POST", `${R}/add-registry-delegate`, { key: ownerKey, body: { email: "third@example.com" } });
await send("addRegistryDelegate", "POST", `${R}/add-registry-delegate`, { key: ownerKey, body: { email: "third@example.com" } }); // already: 409
await send("addRegistryDelegate", "POST", `${R}/add-registry-delegate`, { key: otherKey, body: { email: "fourth@example.com" } }); // not a member: 403
await send("getRegistryDelegates", "GET", `${R}/get-registry-delegates`, { key: ownerKey });
await send("removeRegistryDelegate", "POST", `${R}/remove-registry-delegate`, { key: ownerKey, body: { email: "third@example.com" } });
await send("removeRegistryDelegate", "POST", `${R}/remove-registry-delegate`, { key: ownerKey, body: { email: "third@example.com" } }); // not a delegate: 404

await send("generateDnsTxt", "GET", `/svc/generate-dns-txt/${N}/example.com?verification_method=self_dns`, { key: ownerKey });
await send("generateDnsTxt", "GET", `/svc/generate-dns-txt/${N}/example.com?verification_method=self_dns`, { key: ownerKey });
await send("generateDnsTxt", "GET", `/svc/generate-dns-txt/${N}/not-allowed.example?verification_method=self_http`, { key: ownerKey });
await send("generateDnsTxt", "GET", `/svc/generate-dns-txt/${N}/example.com?verification_method=request_other_namespace&target_namespace=${enc(otherNs)}`, { key: ownerKey });
await send("getDnsTxt", "GET", `/svc/get-dns-txt/${N}`, { key: ownerKey });
await send("checkVerification", "GET", `/svc/check-verification/${N}`, { key: ownerKey });
await send("verifyDomain", "POST", "/svc/verify-domain", { key: ownerKey, body: { namespace_id: nsId, domain: "example.com" } });
await send("removeNamespaceVerification", "POST", `/svc/${N}/example.com/remove-namespace-verification`, { key: ownerKey });
await send("removeNamespaceVerification", "POST", `/svc/${N}/example.com/remove-namespace-verification`, { key: ownerKey });

await send("listPendingNotifications", "GET", "/svc/notifications/pending", { key: ownerKey });
await send("listNotificationHistory", "GET", "/svc/notifications/history", { key: ownerKey });
await send("markNotificationRead", "POST", "/svc/notifications/0190f2a1-b2c3-7d4e-8f60-718293a4b5c6/read", { key: ownerKey });
await send("markAllNotificationsRead", "POST", "/svc/notifications/read-all", { key: ownerKey });
await send("clearReadNotifications", "POST", "/svc/notifications/clearall", { key: ownerKey });
await send("acceptVerificationRequest", "POST", "/svc/verification-requests/0190f2a1-b2c3-7d4e-8f60-718293a4b5c6/accept", { key: ownerKey });
await send("rejectVerificationRequest", "POST", "/svc/verification-requests/0190f2a1-b2c3-7d4e-8f60-718293a4b5c6/reject", { key: ownerKey });

// Self-service API keys: made, listed, revoked (by a stranger: 404; twice: 404), the 21st live key 409.
const made = await send("createApiKey", "POST", "/svc/api-keys", { key: otherKey, body: { name: "contract corpus" } });
const madeKey = JSON.parse(made.text).data;
await send("listApiKeys", "GET", "/svc/api-keys", { key: madeKey.key });
await send("revokeApiKey", "DELETE", `/svc/api-keys/${madeKey.key_id}`, { key: ownerKey }); // 404: not theirs
await send("revokeApiKey", "DELETE", `/svc/api-keys/${madeKey.key_id}`, { key: otherKey });
await send("revokeApiKey", "DELETE", `/svc/api-keys/${madeKey.key_id}`, { key: otherKey }); // 404: revoked
await send("listApiKeys", "GET", "/svc/api-keys", { key: madeKey.key }); // 401: revoked
await send("createApiKey", "POST", "/svc/api-keys", { key: otherKey, body: { name: "   " } }); // 400
for (let i = 0; i < 19; i++) await send("createApiKey", "POST", "/svc/api-keys", { key: otherKey, body: { name: `k${i}` } });
await send("createApiKey", "POST", "/svc/api-keys", { key: otherKey, body: { name: "one too many" } }); // 409

// The transparency log's tiles, once the integrator (four times a second) has logged the writes
// above. Prism matches a path parameter to one segment, so the tile path goes as a contract
// client sends it, slashes escaped (the service serves /svc/log/tile/0/000 alike; the Go tests
// read the tiles that way).
let logSize = 0;
for (let i = 0; i < 100 && logSize === 0; i++) {
  const cp = await send("getLogCheckpoint", "GET", "/svc/log/checkpoint");
  logSize = cp.status === 200 ? Number(cp.text.split("\n")[1]) : 0;
  if (logSize === 0) await new Promise((r) => setTimeout(r, 100));
}
if (!(logSize > 0 && logSize < 256)) throw new Error(`log size ${logSize} after the writes`);
await send("getLogTile", "GET", `/svc/log/tile/${enc(`0/000.p/${logSize}`)}`);
await send("getLogTile", "GET", `/svc/log/tile/${enc(`entries/000.p/${logSize}`)}`);
await send("getLogTile", "GET", `/svc/log/tile/${enc("0/000.p/1")}`);
await send("getLogTile", "GET", `/svc/log/tile/${enc("0/000")}`); // still partial: 404
await send("getLogTile", "GET", `/svc/log/tile/${enc("entries/x001/234")}`); // beyond the log: 404
await send("getLogTile", "GET", `/svc/log/tile/${enc("0/x000/001")}`); // not the shortest form: 400
await send("getLogTile", "GET", `/svc/log/tile/${enc("0/000.p/256")}`); // 400
await send("getLogTile", "GET", `/svc/log/tile/${enc("tile/0/000")}`); // 400
await send("getLogCosignedCheckpoint", "GET", "/svc/log/cosigned-checkpoint"); // no witnesses here: 404
await send("getLogInclusion", "GET", `/svc/log/inclusion/${regVersion}`);
await send("getLogInclusion", "GET", `/svc/log/inclusion/${regVersion}?size=${logSize}`); // 200, or 404 not_integrated if written after that tree
await send("getLogInclusion", "GET", `/svc/log/inclusion/${oldVersion}?size=1`); // 404 not_integrated (the first leaf is the namespace's)
await send("getLogInclusion", "GET", `/svc/log/inclusion/${regVersion}?size=${logSize + 100000}`); // beyond the log: 400
await send("getLogPolicy", "GET", "/svc/log/policy");
await send("getLogProof", "GET", `/svc/log/proof/${regVersion}`); // 200, or 404 not_integrated if just written
await send("getLogProof", "GET", `/svc/log/proof/${oldVersion}`);
await send("getLogProof", "GET", "/svc/log/proof/0x0190f2a1b2c3d4e5f60718293a4b5c6d"); // 404
await send("getLogProof", "GET", "/svc/log/proof/nope"); // 400
// Current lookups: 200 with the state proof, or 503 while the index catches up or the version
// shown is not yet in the checkpoint it serves.
await send("lookupNamespace", "GET", `/svc/lookup/${N}?prove=current`);
await send("lookupRegistry", "GET", `/svc/lookup/${N}/employees?prove=current`);
await send("lookupRecord", "GET", `/svc/lookup/${N}/employees/alice?prove=current`);
await send("lookupRecord", "GET", `/svc/lookup/${N}/employees/alice?prove=current&version_id=${oldVersion}`);
await send("lookupRecord", "GET", `/svc/lookup/${N}/employees/alice?prove=maybe`); // 400

await send("getDidDocument", "GET", `/${profileId}/did.json`);
await send("getDidDocument", "GET", `/4vJ9JU1bJJE96FWSJKvHsj/did.json`);
await send("getStats", "GET", "/svc/stats");
await send("healthz", "GET", "/healthz");
await send("readyz", "GET", "/readyz");

// ---- Phase 2: invalid inputs for every operation, derived from the contract.
const good = {
  namespace: nsId,
  namespace_id: nsId,
  registry_name: "employees",
  record_name: "alice",
  domain: "example.com",
  tag: "membership",
  profile_id: profileId,
  notification_id: "0190f2a1-b2c3-7d4e-8f60-718293a4b5c6",
  request_id: "0190f2a1-b2c3-7d4e-8f60-718293a4b5c6",
  key_id: "0190f2a1-b2c3-7d4e-8f60-718293a4b5c6",
  tile_path: "0/000.p/1",
};
await sendInvalidInputs({ spec, ops, deref, send, ownerKey, good });

// The status codes of the contract for each operation, against what the service answered.
const bad = results.filter((r) => r.responseViolations.length > 0);
const fivexx = results.filter((r) => r.status >= 500 || r.status === 0);
const missing = ops.filter((o) => !seen.has(o.id)).map((o) => o.id);

console.log(`contract corpus: ${results.length} requests over ${seen.size} of ${ops.length} operations`);
for (const o of ops) {
  const declared = Object.keys(o.op.responses).sort().join(" ");
  const got = [...(seen.get(o.id) ?? [])].sort().join(" ");
  console.log(`  ${o.id.padEnd(30)} answered ${got.padEnd(28)} declared ${declared}`);
}
for (const r of bad) {
  console.log(`VIOLATION ${r.op ?? "-"} ${r.method} ${r.path.slice(0, 120)} -> ${r.status}: ${r.responseViolations.map((v) => `${v.location.join(".")}: ${v.message}`).join("; ")}`);
}
for (const r of fivexx) console.log(`5XX/NO ANSWER ${r.op ?? "-"} ${r.method} ${r.path.slice(0, 120)} -> ${r.status}: ${r.body}`);
for (const id of missing) console.log(`NOT EXERCISED ${id}`);
console.log(`${bad.length} response violations, ${fivexx.length} 5xx answers, ${missing.length} operations not exercised (${retries()} requests sent again after a proxy connection reset)`);
process.exit(bad.length || fivexx.length || missing.length ? 1 : 0);
