// The second phase of the contract corpus (corpus.mjs): invalid inputs for every operation of
// openapi.yaml, derived from the contract: malformed and empty path segments, bad query values,
// bad headers, missing or bad authentication, bad bodies, wrong content types, oversized bodies
// and wrong methods. Most of them are request violations on purpose; corpus.mjs judges the
// answers.

const enc = encodeURIComponent;

// Prism itself stops on a malformed percent-encoding ("%ff": URIError), so the corpus leaves
// those out; the Go tests send them (server/codes_test.go).
const badSegments = ["", "%20", "%00", "%2F", "..", "x".repeat(300), "did:svc:nope", "nope", "-", "%C3%A9", "%E2%80%AE", "a%20b"];
const badQuery = {
  integer: ["abc", "0", "-1", "1.5", "99999999999999999999", ""],
  string: ["", "%00", "x".repeat(600), "bogus"],
  date: ["2026-13-45", "yesterday", "", "2026-02-30"],
};
// Prism never answers a request whose body is declared application/json and does not parse,
// so syntactically broken JSON goes with another content type here; the Go tests send it as
// application/json (server/badinput_test.go).
const badBodies = [
  { raw: true, body: "not json", contentType: "text/plain" },
  { raw: true, body: '{"name":', contentType: "text/plain" },
  { raw: true, body: "[]" },
  { raw: true, body: "null" },
  { raw: true, body: "{}" },
  { raw: true, body: '{"a":1,"a":2}' },
  { raw: true, body: '{"unknown_field":1}' },
  { raw: true, body: '{"name":"\\u0000"}' },
  { raw: true, body: '{"name":"\\ud800"}' },
  { raw: true, body: "[".repeat(100) + "]".repeat(100) },
  { raw: true, body: "{}", contentType: "text/plain" },
  { raw: true, body: "{}", contentType: "application/x-www-form-urlencoded" },
  { raw: true, body: "" },
];

/**
 * Sends the invalid inputs of every operation of ops through send (exchange.mjs). good holds a
 * valid value for each path parameter by name, ownerKey authenticates where the operation needs
 * it, deref resolves a $ref of spec.
 */
export async function sendInvalidInputs({ spec, ops, deref, send, ownerKey, good }) {
  const fill = (path, values) => path.replace(/\{([^}]+)\}/g, (_, name) => (name in values ? values[name] : enc(good[name] ?? "x")));
  const paramsOf = (o) => (o.op.parameters ?? []).map(deref);
  const needsAuth = (o) => {
    const sec = o.op.security ?? spec.security ?? [];
    return sec.length > 0;
  };

  for (const o of ops) {
    const key = needsAuth(o) ? ownerKey : undefined;
    const okPath = fill(o.path, {});
    const params = paramsOf(o);
    // Path segments: empty, blank, NUL, invalid UTF-8, encoded slash, overlong, unknown.
    for (const p of params.filter((p) => p.in === "path")) {
      for (const bad of badSegments) await send(o.id, o.method, fill(o.path, { [p.name]: bad }), { key });
    }
    // Query values by type.
    for (const p of params.filter((p) => p.in === "query")) {
      const s = deref(p.schema) ?? {};
      const kind = s.type === "integer" ? "integer" : s.format === "date" ? "date" : "string";
      for (const bad of badQuery[kind]) await send(o.id, o.method, `${okPath}?${p.name}=${bad === "%00" ? bad : enc(bad)}`, { key });
      await send(o.id, o.method, `${okPath}?${p.name}=1&${p.name}=2`, { key });
    }
    // Headers.
    for (const p of params.filter((p) => p.in === "header")) {
      for (const bad of ["bogus", '"0x00"', "W/", '"', "*"]) await send(o.id, o.method, okPath, { key, headers: { [p.name]: bad } });
    }
    await send(o.id, o.method, `${okPath}?%00=1`, { key });
    // Authentication: none, an unknown key, a malformed key, another scheme.
    for (const k of [undefined, "svc_" + "A".repeat(43), "svc_short", "Basic dXNlcjpwYXNz", "Bearer", "Bearer  "]) {
      await send(o.id, o.method, okPath, { key: k, body: o.method === "POST" ? {} : undefined });
    }
    // Bodies, on every POST operation (a body where none is expected is checked too). Prism does
    // not forward a GET with a body (it answers 501 itself), and does not answer a DELETE with an
    // oversized one, so the Go tests cover those (TestBodiesOnDeleteAndGet).
    if (o.method === "POST") {
      for (const b of badBodies) await send(o.id, o.method, okPath, { key, ...b });
      // Over the body limit (8 MiB for add-records, 1 MiB for the others).
      const limit = o.id === "addRecords" ? 8 << 20 : 1 << 20;
      await send(o.id, o.method, okPath, { key, raw: true, body: `{"x":"${"y".repeat(limit)}"}` });
    }
    // A method the path does not have (answered 405; no operation of the contract).
    await send(null, o.method === "GET" ? "POST" : "GET", okPath, { key });
  }
}
