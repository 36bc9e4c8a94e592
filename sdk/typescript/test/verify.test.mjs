// verifyLookup() offline: the shared vectors (test/vectors.json, whose verdicts the Go verifier
// gives too: server/sdk_ts_test.go), the input forms, the strict reading of the input, and
// known digests of the Go proof package's tests.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { verifyLookup, recomputeDigest, digestOf, proofType, genesisHex } from "../dist/index.js";

const vectors = JSON.parse(readFileSync(new URL("./vectors.json", import.meta.url), "utf8"));
const now = new Date(Date.UTC(vectors.max_year, 6, 1));
const verifies = vectors.cases.filter((c) => c.ok);

test("the vectors hold lookups of every kind and tampered ones", () => {
  assert.ok(vectors.cases.length >= 20);
  for (const kind of ["namespace", "registry", "record"]) {
    assert.ok(verifies.some((c) => c.kind === kind), `no ${kind} lookup that verifies`);
  }
  assert.ok(vectors.cases.some((c) => !c.ok));
});

for (const c of vectors.cases) {
  test(`vector: ${c.name}`, () => {
    const got = verifyLookup(c.kind, c.lookup, { now });
    if (c.ok) {
      assert.deepEqual(got, {
        ok: true,
        kind: c.kind,
        id: c.lookup.data[`${c.kind}_id`],
        version: c.lookup.data.version,
        digest: c.lookup.data.proof.digest,
      });
    } else {
      assert.deepEqual(got, { ok: false, kind: c.kind, reason: c.reason });
    }
  });
}

test("the proof year is checked against the year of `now`", () => {
  const c = verifies.find((v) => v.kind === "record");
  const year = Number(c.lookup.data.proof.type.slice(-4));
  const before = verifyLookup("record", c.lookup, { now: new Date(Date.UTC(year - 1, 11, 31, 23, 59, 59)) });
  assert.deepEqual(before, {
    ok: false,
    kind: "record",
    reason: `proof.type ${c.lookup.data.proof.type} has a year outside 2025..${year - 1}`,
  });
  assert.equal(verifyLookup("record", c.lookup).ok, true, "the current year must accept a proof made this year or before");
});

test("input forms: the response, the verify request body, the data alone, JSON text", () => {
  for (const c of verifies) {
    const forms = [
      c.lookup,
      { [`${c.kind}_lookup_response`]: c.lookup },
      c.lookup.data,
      JSON.stringify(c.lookup),
      JSON.stringify({ [`${c.kind}_lookup_response`]: c.lookup }),
    ];
    for (const f of forms) {
      assert.equal(verifyLookup(c.kind, f, { now }).ok, true, `${c.name}: ${JSON.stringify(f).slice(0, 80)}`);
    }
  }
});

test("input that holds no lookup", () => {
  const c = verifies[0];
  const none = 'the input holds no lookup data (want {"message":…, "data":{…}})';
  for (const v of [null, 42, [c.lookup], { message: "x" }, { data: [1] }, "[]", { [`other_lookup_response`]: c.lookup }]) {
    assert.deepEqual(verifyLookup(c.kind, v, { now }), { ok: false, kind: c.kind, reason: none }, JSON.stringify(v));
  }
  const bad = verifyLookup(c.kind, "{nope", { now });
  assert.equal(bad.ok, false);
  assert.match(bad.reason, /^invalid JSON: /);
});

test("what the service's strict JSON reader refuses is refused", () => {
  const c = verifies.find((v) => v.kind === "record");
  const withDetail = (k, v) => {
    const l = structuredClone(c.lookup);
    l.data.details[k] = v;
    return l;
  };
  const cases = [
    [withDetail("email", "a\u0000b"), "invalid JSON at /data/details/email: NUL character (\\u0000) in a string"],
    [withDetail("x\u0000", 1), "invalid JSON at /data/details: NUL character (\\u0000) in an object key"],
    [withDetail("email", "\ud800"), "invalid JSON at /data/details/email: unpaired UTF-16 surrogate \\ud800 in a string"],
    [withDetail("a/b~c", ["\udc00"]), "invalid JSON at /data/details/a~1b~0c/0: unpaired UTF-16 surrogate \\udc00 in a string"],
    [withDetail("n", NaN), "invalid JSON at /data/details/n: NaN is not a JSON number"],
    [withDetail("n", -Infinity), "invalid JSON at /data/details/n: -Infinity is not a JSON number"],
    [withDetail("u", undefined), "invalid JSON at /data/details/u: a value of type undefined is not JSON"],
    [withDetail("d", new Date(0)), "invalid JSON at /data/details/d: an instance of a class is not a JSON value"],
  ];
  for (const [lookup, reason] of cases) {
    assert.deepEqual(verifyLookup("record", lookup, { now }), { ok: false, kind: "record", reason });
  }
  // 256 levels of nesting in all are admitted, 257 are not (the lookup and data are 2 of them).
  const nested = (n) => {
    let v = 1;
    for (let i = 0; i < n; i++) v = [v];
    return v;
  };
  const deep = (n) => withDetail("deep", nested(n));
  const admitted = verifyLookup("record", deep(253), { now });
  assert.match(admitted.ok ? "" : admitted.reason, /^recomputed digest/);
  const refused = verifyLookup("record", deep(254), { now });
  assert.equal(refused.ok, false);
  assert.match(refused.reason, /nesting deeper than 256 levels$/);
  // A cycle is refused, not followed for ever.
  const cyclic = structuredClone(c.lookup);
  cyclic.data.details.self = cyclic.data.details;
  assert.match(verifyLookup("record", cyclic, { now }).reason, /nesting deeper than 256 levels$/);
});

test("verifyLookup answers instead of throwing, even for a value no JSON text gives", () => {
  const hostile = {};
  Object.defineProperty(hostile, "data", { enumerable: true, get() { throw new Error("boom"); } });
  assert.deepEqual(verifyLookup("record", hostile, { now }), { ok: false, kind: "record", reason: "cannot verify: boom" });
});

test("an unknown kind is a programming error", () => {
  assert.throws(() => verifyLookup("thing", verifies[0].lookup), TypeError);
});

test("inherited members are not digest fields", () => {
  const c = verifies.find((v) => v.kind === "registry");
  const data = Object.assign(Object.create({ meta: {} }), structuredClone(c.lookup.data));
  delete data.meta;
  // Object.create gives a non-plain prototype: refused as not JSON before any field is read.
  assert.equal(verifyLookup("registry", data, { now }).ok, false);
  const plain = structuredClone(c.lookup.data);
  delete plain.meta;
  assert.deepEqual(verifyLookup("registry", plain, { now }), {
    ok: false,
    kind: "registry",
    reason: "data.meta is missing or not an object",
  });
});

// Known answers of the JavaScript reference, from proof/fields_test.go (knownDigests): the digest
// field objects of a namespace, a registry with empty meta, a record, and a record with every
// form that matters (escapes, U+2028, keys beyond the BMP and at U+FFFF, 1e21, 1e-7, -0, a
// rounded large integer, null), and a namespace's tombstone (namespaceStateDigests).
const known = [
  [
    '{"namespace_id":"did:svc:5HueCGU8rMjxEXxiPuD5BD","description":"Acme","genesis":"2026-11-22T08:00:00.000Z","created_by":"did:web:localhost%3A8080:4vJ9JU1bJJE96FWSJKvHsj","version":"0x0190f2a1b2c3d4e5f60718293a4b5c71","version_count":2,"state":"deleted"}',
    "0x810e0db66df19fbccd7b58c6421e28f26e4fe23f8c16257fa5ae6607a21634df",
    "namespace",
  ],
  [
    '{"namespace_id":"did:svc:5HueCGU8rMjxEXxiPuD5BD","description":"Acme","genesis":"2026-11-22T08:00:00.000Z","created_by":"did:web:localhost%3A8080:4vJ9JU1bJJE96FWSJKvHsj","version":"0x0190f2a1b2c3d4e5f60718293a4b5c6d","version_count":1}',
    "0x68a2381f85cc8f484e92167d8af6287022c7d512b6740b3b8517630aa7f00408",
    "namespace",
  ],
  [
    '{"namespace_id":"did:svc:5HueCGU8rMjxEXxiPuD5BD","registry_name":"employees","description":"","schema":{"type":"object"},"tag":"custom","version":"0x0190f2a1b2c3d4e5f60718293a4b5c6e","version_count":2,"state":"inactive","genesis":"2026-11-22T08:00:00.000Z","created_by":"did:web:localhost%3A8080:4vJ9JU1bJJE96FWSJKvHsj","meta":{},"ttl":600}',
    "0x7e25dbdbe67e328c698310ee7323bcc7e97e2128cc4a2c9e35e6db0a112877a3",
    "registry",
  ],
  [
    '{"namespace_id":"did:svc:5HueCGU8rMjxEXxiPuD5BD","registry_id":"0190f2a1-b2c3-7d4e-8f60-718293a4b5c6","registry_name":"employees","record_name":"alice","description":"Alice","details":{"email":"alice@example.com","tags":["a","b"],"n":1.5},"version":"0x0190f2a1b2c3d4e5f60718293a4b5c6f","version_count":3,"state":"live","genesis":"2026-11-22T08:00:00.000Z","created_by":"did:web:localhost%3A8080:4vJ9JU1bJJE96FWSJKvHsj","meta":{"src":"hr"},"ttl":300}',
    "0x979eaf921b2187b969e350808bf94f37e4e2a3ab1a60f1c6279b66b55f1aa5ea",
    "record",
  ],
  [
    '{"namespace_id":"did:svc:5HueCGU8rMjxEXxiPuD5BD","registry_id":"0190f2a1-b2c3-7d4e-8f60-718293a4b5c6","registry_name":"employees","record_name":"zoe.mueller","description":"Zoë – \\"lead\\" <ops> & co\\u2028","details":{"name":{"first":"Zoë","last":"Müller"},"emails":["zoe@example.com"],"address":{"city":"Zürich","zip":"8001"},"tags":["a","b"],"score":1e21,"ratio":0.1,"tiny":1e-7,"neg":-0,"big":123456789012345680000,"\\uffff":"bmp","😀":"astral","":null,"ok":true},"version":"0x0190f2a1b2c3d4e5f60718293a4b5c70","version_count":12,"state":"draft","genesis":"2025-01-31T23:59:59.999Z","created_by":"did:web:localhost%3A8080:4vJ9JU1bJJE96FWSJKvHsj","meta":{},"ttl":86400}',
    "0xcf793036c16fbc7e7a7fba0690c7fc2961ccf3e1da07b22e9c0d784299362884",
    "record",
  ],
];

test("known digests of the Go proof package's tests", () => {
  for (const [json, digest, kind] of known) {
    const fields = JSON.parse(json);
    assert.equal(digestOf(fields), digest);
    // recomputeDigest reads the same fields out of lookup data, with anything else beside them
    // and genesis in its hex form.
    const data = { ...fields, genesis: genesisHex(fields.genesis), extra: "not a digest field", proof: {} };
    assert.equal(recomputeDigest(kind, data), digest);
  }
});

test("a namespace's state is a digest field only when it is not live", () => {
  const live = JSON.parse(known[1][0]);
  const tomb = JSON.parse(known[0][0]);
  assert.equal(recomputeDigest("namespace", live), known[1][1]);
  for (const state of ["", "live"]) {
    assert.equal(recomputeDigest("namespace", { ...live, state }), known[1][1], `live with state ${state}`);
  }
  // The tombstone shown as live, or without its state, digests to another value (the
  // reference's digest of its fields without state).
  const { state, ...withoutState } = tomb;
  assert.equal(state, "deleted");
  const dropped = "0xa378874766996aaf19bc26da0f2d2308cda5153a8bfa3be465ba9fec65a6944a";
  assert.equal(recomputeDigest("namespace", withoutState), dropped);
  assert.equal(recomputeDigest("namespace", { ...tomb, state: "live" }), dropped);
  for (const bad of [7, null, false, {}]) {
    assert.throws(() => recomputeDigest("namespace", { ...tomb, state: bad }), { message: "data.state is not a string" });
  }
});

test("proofType and genesisHex", () => {
  assert.equal(proofType("record", 2026), "SvcRecordProof2026");
  assert.equal(proofType("namespace", 25), "SvcNamespaceProof0025");
  assert.throws(() => proofType("registry", 10000), RangeError);
  assert.equal(genesisHex("2026-11-22T08:00:00.000Z"), "0x323032362d31312d32325430383a30303a30302e3030305a");
});
