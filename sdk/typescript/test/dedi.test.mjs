// verifyDediFile() against the DeDi protocol's published vectors (the copies in the
// repository's dedi/testdata, which the Go verifier is tested against too), every case of
// their lifecycle.json, and bad input. The documents of the lifecycle cases are signed here,
// with @noble/ed25519 over canonicalize's RFC 8785 text.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createHash } from "node:crypto";
import * as ed from "@noble/ed25519";
import { sha512 } from "@noble/hashes/sha2.js";
import canonicalize from "canonicalize";
import { verifyDediFile, DEDI_PROTECTED_HEADER } from "../dist/index.js";

ed.hashes.sha512 = sha512;

const vector = (name) => readFileSync(new URL(`../../../dedi/testdata/${name}`, import.meta.url));
const lifecycle = JSON.parse(vector("lifecycle.json").toString("utf8"));
const evaluation = new Date(lifecycle.evaluation_time);

test("the published vectors", () => {
  const valid = vector("valid-file.json");
  const manifest = vector("valid-manifest.json");
  assert.deepEqual(verifyDediFile(valid, manifest, { now: evaluation }), { outcome: "authentic", digestFrom: "manifest" });
  assert.equal(verifyDediFile(valid.toString("utf8"), manifest.toString("utf8"), { now: evaluation }).outcome, "authentic");
  assert.equal(verifyDediFile(vector("tampered-file.json"), manifest, { now: evaluation }).outcome, "bad_signature");
  assert.equal(verifyDediFile(valid, vector("removed-key-manifest.json"), { now: evaluation }).outcome, "not_authenticated");
  assert.equal(verifyDediFile(valid, manifest, { now: new Date("2026-09-01T00:00:01Z") }).outcome, "stale");
  assert.equal(verifyDediFile(valid, manifest, { now: new Date("2026-09-01T00:00:00Z") }).outcome, "authentic");
});

// ---- a signer, written from the protocol text ----

const keyOf = (kid) => {
  const seed = createHash("sha256").update(kid).digest();
  return { kid, seed: new Uint8Array(seed), pub: { kid, kty: "OKP", crv: "Ed25519", x: Buffer.from(ed.getPublicKey(new Uint8Array(seed))).toString("base64url") } };
};
const sign = (doc, key) => {
  const { proof, ...body } = doc;
  const input = new TextEncoder().encode(`${DEDI_PROTECTED_HEADER}.${canonicalize(body)}`);
  const sig = Buffer.from(ed.sign(input, key.seed)).toString("base64url");
  return { ...body, proof: { verification_method: key.kid, canonicalization: "JCS", jws: `${DEDI_PROTECTED_HEADER}..${sig}` } };
};
const digest = (text) => "sha-256:" + createHash("sha256").update(text).digest("hex");

// publisher builds a file of registry "keys" and the manifest listing it.
const publisher = (o = {}) => {
  const fileKey = keyOf(o.fileKey ?? "key-1");
  const file = sign({
    dedi_version: "0.1", type: "dedi-file", source_url: "https://pub.example/dedi/dedi.keys.json",
    next_update: o.fileNext ?? "2026-09-01T00:00:00Z",
    publisher: { domain: o.domain ?? "pub.example", key: fileKey.pub }, namespace: o.namespace ?? "pub.example",
    registry: { name: "keys", schema: { type: "object" }, state: o.state ?? "live", updated_at: o.fileUpdated ?? "2026-08-20T00:00:00Z" },
    records: o.records ?? [{ record_name: "a", details: { id: "a" } }],
  }, fileKey);
  const fileText = JSON.stringify(file, null, 2);
  const keys = (o.manifestKeys ?? ["key-1"]).map((k) => keyOf(k));
  const manifest = sign({
    dedi_version: "0.1", type: "dedi-manifest", domain: "pub.example", keys: keys.map((k) => k.pub),
    updated_at: o.manifestUpdated ?? "2026-08-20T00:00:00Z", next_update: o.manifestNext ?? "2026-09-01T00:00:00Z",
    files: o.inline ? [file] : [{ registry: "keys", url: file.source_url, digest: digest(fileText) }],
  }, keys[keys.length - 1]);
  return { file, fileText, manifest, manifestText: JSON.stringify(manifest) };
};

const expected = {
  accept: "authentic", "accept-cached": "authentic", "reject-stale": "stale", "reject-inactive": "inactive",
  "reject-rollback": "rollback", "reject-removed-key": "not_authenticated", "reject-unavailable-authority": "unavailable_authority",
};

test("lifecycle.json has the 11 published cases", () => assert.equal(lifecycle.cases.length, 11));

for (const c of lifecycle.cases) {
  test(`lifecycle: ${c.id}`, () => {
    const want = expected[c.expected];
    assert.ok(want, `unknown expectation ${c.expected}`);
    let p;
    let manifest;
    const options = { now: evaluation };
    switch (c.kind) {
      case "manifest":
        p = publisher({ manifestNext: c.next_update });
        break;
      case "file":
        p = publisher({ fileNext: c.next_update, state: c.registry_state });
        break;
      case "manifest-sequence":
        p = publisher({ manifestUpdated: c.candidate_updated_at });
        options.accepted = { manifest: publisher({ manifestUpdated: c.observed_updated_at }).manifestText };
        break;
      case "key-state":
        p = publisher({ fileKey: c.file_key, manifestKeys: c.current_keys });
        options.accepted = { manifest: publisher({ fileKey: c.file_key, manifestKeys: c.previous_keys }).manifestText };
        break;
      case "refresh":
        assert.equal(c.refresh_succeeded, false);
        p = publisher({ manifestNext: c.cached_next_update });
        options.accepted = { manifest: p.manifestText };
        manifest = null;
        break;
      default:
        assert.fail(`unknown kind ${c.kind}`);
    }
    const got = verifyDediFile(p.fileText, manifest === null ? null : p.manifestText, options);
    assert.equal(got.outcome, want, got.reason);
    assert.equal(got.cached === true, c.kind === "refresh");
  });
}

test("bad input", () => {
  const now = { now: evaluation };
  const ok = publisher();
  assert.equal(verifyDediFile(ok.fileText, ok.manifestText, now).outcome, "authentic");
  assert.equal(verifyDediFile(ok.fileText.slice(0, 40), ok.manifestText, now).outcome, "invalid");
  const dup = publisher({ records: [{ record_name: "a", details: {} }, { record_name: "a", details: {} }] });
  assert.match(verifyDediFile(dup.fileText, dup.manifestText, now).reason, /more than once/);
  const wrongType = JSON.parse(ok.fileText);
  wrongType.type = "dedi-manifest";
  assert.equal(verifyDediFile(JSON.stringify(wrongType), ok.manifestText, now).outcome, "invalid");
  assert.equal(verifyDediFile(ok.fileText, ok.manifestText, { ...now, manifestUrl: "https://other.example/.well-known/dedi.index.json" }).outcome, "not_authenticated");
  assert.equal(verifyDediFile(ok.fileText, ok.manifestText, { ...now, manifestUrl: "http://pub.example/.well-known/dedi.index.json" }).outcome, "not_authenticated");
  const otherNs = publisher({ namespace: "other.example" });
  assert.match(verifyDediFile(otherNs.fileText, otherNs.manifestText, now).reason, /namespace/);
  const otherDomain = publisher({ domain: "evil.example" });
  assert.match(verifyDediFile(otherDomain.fileText, otherDomain.manifestText, now).reason, /publisher domain/);
  assert.equal(verifyDediFile(ok.fileText, ok.manifestText, { ...now, accepted: { fileUpdatedAt: "2026-08-21T00:00:00Z" } }).outcome, "rollback");
  assert.equal(verifyDediFile(ok.fileText + "\n", ok.manifestText, now).outcome, "digest_mismatch");
  assert.equal(verifyDediFile(ok.fileText, null, now).outcome, "unavailable_authority");
  const tampered = JSON.parse(ok.manifestText);
  tampered.next_update = "2026-10-01T00:00:00Z";
  assert.equal(verifyDediFile(ok.fileText, JSON.stringify(tampered), now).outcome, "not_authenticated");
  const inline = publisher({ inline: true });
  assert.equal(verifyDediFile(inline.file, inline.manifestText, now).outcome, "authentic");
  assert.equal(verifyDediFile(inline.fileText, inline.manifestText, now).outcome, "authentic");
  const schema = (s, d) => (typeof d.id === "string" ? "" : "id is missing");
  const noId = publisher({ records: [{ record_name: "a", details: {} }] });
  assert.equal(verifyDediFile(noId.fileText, noId.manifestText, { ...now, validateRecord: schema }).outcome, "invalid");
  assert.equal(verifyDediFile(noId.fileText, noId.manifestText, { ...now, validateRecord: () => { throw new Error("HTTP 404"); } }).outcome, "schema_unavailable");
});

// ---- the digests document (upstream PR #38) and what the protocol accepts ----

// withDigests: the publisher's manifest names a digests document and lists the file without a
// digest (unless manifestDigest is given); the digests document commits to the file.
const withDigests = (o = {}) => {
  const p = publisher(o);
  const key = keyOf("key-1");
  const keys = [key.pub, ...(o.extraKeys ?? [])];
  const manifest = sign({
    dedi_version: "0.1", type: "dedi-manifest", domain: "pub.example", keys, updated_at: "2026-08-20T00:00:00Z",
    next_update: "2026-09-01T00:00:00Z", digests: "https://pub.example/dedi/dedi.digests.json",
    files: [{ registry: "keys", url: p.file.source_url, ...(o.manifestDigest ? { digest: o.manifestDigest } : {}) }],
  }, key);
  const digestsKey = o.digestsKey ?? key;
  const digests = sign({
    dedi_version: "0.1", type: "dedi-digests", domain: o.digestsDomain ?? "pub.example", updated_at: o.digestsUpdated ?? "2026-08-21T00:00:00Z",
    next_update: o.digestsNext ?? "2026-08-23T00:00:00Z", digests: o.digests ?? { keys: digest(p.fileText) },
  }, digestsKey);
  return { ...p, manifestText: JSON.stringify(manifest), digestsText: JSON.stringify(digests), digestsKeyPub: digestsKey.pub };
};

test("the digests document", () => {
  const now = evaluation;
  const v = (p, extra = {}) => verifyDediFile(p.fileText, p.manifestText, { now, digests: p.digestsText, ...extra });
  let p = withDigests();
  assert.deepEqual(v(p), { outcome: "authentic", digestFrom: "digests" });
  // precedence over files[].digest
  p = withDigests({ manifestDigest: "sha-256:" + "0".repeat(64) });
  assert.equal(v(p).outcome, "authentic");
  p = withDigests({ manifestDigest: digest(publisher().fileText), digests: { keys: "sha-256:" + "a".repeat(64) } });
  assert.deepEqual([v(p).outcome, v(p).digestFrom], ["digest_mismatch", "digests"]);
  // a registry the document leaves out falls back to the manifest's digest; none at all rests on the signature
  p = withDigests({ manifestDigest: digest(publisher().fileText), digests: {} });
  assert.equal(v(p).digestFrom, "manifest");
  p = withDigests({ digests: {} });
  assert.deepEqual(v(p), { outcome: "authentic", digestFrom: "none" });
  assert.equal(v(p, { accepted: { fileUpdatedAt: "2026-08-21T00:00:00Z" } }).outcome, "rollback");
  p = withDigests();
  assert.equal(verifyDediFile(p.fileText, p.manifestText, { now }).outcome, "digests_unavailable");
  assert.equal(verifyDediFile(p.fileText, p.manifestText, { now, digests: null, accepted: { digests: p.digestsText } }).outcome, "authentic");
  assert.equal(verifyDediFile(p.fileText, p.manifestText, { now: new Date("2026-08-23T00:00:01Z"), digests: null, accepted: { digests: p.digestsText } }).outcome, "digests_unavailable");
  assert.equal(v(p, { now: new Date("2026-08-23T00:00:01Z") }).outcome, "digests_stale");
  assert.equal(v(p, { now: new Date("2026-08-23T00:00:00Z") }).outcome, "authentic");
  assert.equal(v(p, { accepted: { digests: withDigests({ digestsUpdated: "2026-08-22T00:00:00Z" }).digestsText } }).outcome, "digests_rollback");
  assert.equal(v(withDigests({ digestsKey: keyOf("stranger") })).outcome, "digests_not_authenticated");
  assert.equal(v(withDigests({ digestsKey: keyOf("key-2"), extraKeys: [keyOf("key-2").pub] })).outcome, "authentic");
  assert.equal(v(withDigests({ digestsDomain: "evil.example" })).outcome, "digests_not_authenticated");
  assert.equal(v(withDigests({ digestsDomain: "PUB.Example" })).outcome, "authentic");
  assert.equal(v(p, { digests: p.digestsText.replace("2026-08-21", "2026-08-22") }).outcome, "digests_not_authenticated");
  assert.equal(v(p, { digests: p.digestsText.replace('"type":"dedi-digests"', '"type":"dedi-digests","x":1') }).outcome, "digests_invalid");
  assert.equal(v(p, { digests: "{" }).outcome, "digests_invalid");
  assert.equal(v(withDigests({ digests: { keys: "sha-512:abcd" } })).outcome, "digest_mismatch");
});

test("keys of any type, 0.x versions, capitals, source_url over http", () => {
  const now = { now: evaluation };
  const rsa = { kid: "rsa-1", kty: "RSA", n: "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw", e: "AQAB" };
  const p = publisher();
  const key = keyOf("key-1");
  const resignManifest = (change) => {
    const { proof, ...m } = JSON.parse(p.manifestText);
    change(m);
    return JSON.stringify(sign(m, key));
  };
  // a manifest that also lists an RSA key
  assert.equal(verifyDediFile(p.fileText, resignManifest((m) => m.keys.push(rsa)), now).outcome, "authentic");
  // a file signed by that RSA key: unsupported_key, for that file only
  const rsaFile = { ...p.file, publisher: { ...p.file.publisher, key: rsa }, proof: { ...p.file.proof, verification_method: "rsa-1" } };
  const rsaText = JSON.stringify(rsaFile);
  assert.equal(verifyDediFile(rsaText, resignManifest((m) => { m.keys.push(rsa); m.files[0].digest = digest(rsaText); }), now).outcome, "unsupported_key");
  // a private member
  assert.equal(verifyDediFile(p.fileText, resignManifest((m) => m.keys.push({ ...rsa, p: "secret" })), now).outcome, "not_authenticated");
  // capitals, dedi_version 0.2, http source_url
  const f2 = sign({ ...p.file, dedi_version: "0.2", source_url: "http://pub.example/dedi/dedi.keys.json", publisher: { ...p.file.publisher, domain: "Pub.EXAMPLE" } }, key);
  const f2Text = JSON.stringify(f2);
  const m2 = resignManifest((m) => { m.domain = "PUB.example"; m.dedi_version = "0.3.1"; m.files[0].digest = digest(f2Text); });
  assert.equal(verifyDediFile(f2Text, m2, now).outcome, "authentic");
  const f3 = JSON.stringify(sign({ ...p.file, dedi_version: "1.0" }, key));
  assert.equal(verifyDediFile(f3, resignManifest((m) => { m.files[0].digest = digest(f3); }), now).outcome, "invalid");
});
