"""verify_dedi_file() against the DeDi protocol's published vectors (the copies in the
repository's dedi/testdata, which the Go and TypeScript verifiers are tested against too), every
case of their lifecycle.json, and bad input. The documents of the lifecycle cases are signed here,
with the SDK's Ed25519 over its RFC 8785 text."""

from __future__ import annotations

import base64
import copy
import hashlib
import json
import unittest
from datetime import datetime, timezone
from typing import Any

from _support import ROOT
from svc_sdk import verify_dedi_file
from svc_sdk import ed25519
from svc_sdk.canonical import canonicalize
from svc_sdk.dedi import DEDI_PROTECTED_HEADER

DATA = ROOT / "dedi" / "testdata"
LIFECYCLE = json.loads((DATA / "lifecycle.json").read_text(encoding="utf-8"))


def when(s: str) -> datetime:
    return datetime.fromisoformat(s.replace("Z", "+00:00")).astimezone(timezone.utc)


EVALUATION = when(LIFECYCLE["evaluation_time"])


def b64url(b: bytes) -> str:
    return base64.urlsafe_b64encode(b).rstrip(b"=").decode("ascii")


def key_of(kid: str) -> dict[str, Any]:
    seed = hashlib.sha256(kid.encode("utf-8")).digest()
    return {"kid": kid, "seed": seed, "pub": {"kid": kid, "kty": "OKP", "crv": "Ed25519", "x": b64url(ed25519.public_key(seed))}}


def sign(doc: dict[str, Any], key: dict[str, Any]) -> dict[str, Any]:
    body = {k: v for k, v in doc.items() if k != "proof"}
    sig = ed25519.sign(key["seed"], f"{DEDI_PROTECTED_HEADER}.{canonicalize(body)}".encode("utf-8"))
    return dict(body, proof={"verification_method": key["kid"], "canonicalization": "JCS", "jws": f"{DEDI_PROTECTED_HEADER}..{b64url(sig)}"})


def publisher(**o: Any) -> dict[str, Any]:
    """A file of registry "keys" and the manifest listing it, signed."""
    file_key = key_of(o.get("file_key", "key-1"))
    file = sign(
        {
            "dedi_version": "0.1",
            "type": "dedi-file",
            "source_url": "https://pub.example/dedi/dedi.keys.json",
            "next_update": o.get("file_next", "2026-09-01T00:00:00Z"),
            "publisher": {"domain": o.get("domain", "pub.example"), "key": file_key["pub"]},
            "namespace": o.get("namespace", "pub.example"),
            "registry": {"name": "keys", "schema": {"type": "object"}, "state": o.get("state", "live"),
                         "updated_at": o.get("file_updated", "2026-08-20T00:00:00Z")},
            "records": o.get("records", [{"record_name": "a", "details": {"id": "a"}}]),
        },
        file_key,
    )
    file_text = json.dumps(file, indent=2)
    keys = [key_of(k) for k in o.get("manifest_keys", ["key-1"])]
    listed = [file] if o.get("inline") else [
        {"registry": "keys", "url": file["source_url"], "digest": "sha-256:" + hashlib.sha256(file_text.encode("utf-8")).hexdigest()}
    ]
    manifest = sign(
        {
            "dedi_version": "0.1",
            "type": "dedi-manifest",
            "domain": "pub.example",
            "keys": [k["pub"] for k in keys],
            "updated_at": o.get("manifest_updated", "2026-08-20T00:00:00Z"),
            "next_update": o.get("manifest_next", "2026-09-01T00:00:00Z"),
            "files": listed,
        },
        keys[-1],
    )
    return {"file": file, "file_text": file_text, "manifest": manifest, "manifest_text": json.dumps(manifest)}


EXPECTED = {
    "accept": "authentic",
    "accept-cached": "authentic",
    "reject-stale": "stale",
    "reject-inactive": "inactive",
    "reject-rollback": "rollback",
    "reject-removed-key": "not_authenticated",
    "reject-unavailable-authority": "unavailable_authority",
}


class PublishedVectors(unittest.TestCase):
    def test_vectors(self) -> None:
        valid = (DATA / "valid-file.json").read_bytes()
        manifest = (DATA / "valid-manifest.json").read_bytes()
        got = verify_dedi_file(valid, manifest, now=EVALUATION)
        self.assertEqual((got.outcome, got.reason, got.cached), ("authentic", "", False))
        self.assertEqual(verify_dedi_file(valid.decode(), manifest.decode(), now=EVALUATION).outcome, "authentic")
        self.assertEqual(verify_dedi_file((DATA / "tampered-file.json").read_bytes(), manifest, now=EVALUATION).outcome, "bad_signature")
        removed = (DATA / "removed-key-manifest.json").read_bytes()
        self.assertEqual(verify_dedi_file(valid, removed, now=EVALUATION).outcome, "not_authenticated")
        self.assertEqual(verify_dedi_file(valid, manifest, now=when("2026-09-01T00:00:01Z")).outcome, "stale")
        self.assertEqual(verify_dedi_file(valid, manifest, now=when("2026-09-01T00:00:00Z")).outcome, "authentic")


class Lifecycle(unittest.TestCase):
    def test_cases(self) -> None:
        self.assertEqual(len(LIFECYCLE["cases"]), 11)
        for c in LIFECYCLE["cases"]:
            with self.subTest(c["id"]):
                want = EXPECTED[c["expected"]]
                opts: dict[str, Any] = {}
                manifest: Any = ""
                kind = c["kind"]
                if kind == "manifest":
                    p = publisher(manifest_next=c["next_update"])
                elif kind == "file":
                    p = publisher(file_next=c["next_update"], state=c["registry_state"])
                elif kind == "manifest-sequence":
                    p = publisher(manifest_updated=c["candidate_updated_at"])
                    opts["accepted_manifest"] = publisher(manifest_updated=c["observed_updated_at"])["manifest_text"]
                elif kind == "key-state":
                    p = publisher(file_key=c["file_key"], manifest_keys=c["current_keys"])
                    opts["accepted_manifest"] = publisher(file_key=c["file_key"], manifest_keys=c["previous_keys"])["manifest_text"]
                elif kind == "refresh":
                    self.assertFalse(c["refresh_succeeded"])
                    p = publisher(manifest_next=c["cached_next_update"])
                    opts["accepted_manifest"] = p["manifest_text"]
                    manifest = None
                else:
                    self.fail(f"unknown kind {kind}")
                got = verify_dedi_file(p["file_text"], p["manifest_text"] if manifest is not None else None, now=EVALUATION, **opts)
                self.assertEqual(got.outcome, want, got.reason)
                self.assertEqual(got.cached, kind == "refresh")


class BadInput(unittest.TestCase):
    def test_each_refused_with_its_word(self) -> None:
        now = {"now": EVALUATION}
        ok = publisher()
        ft, mt = ok["file_text"], ok["manifest_text"]
        self.assertEqual(verify_dedi_file(ft, mt, **now).outcome, "authentic")
        self.assertEqual(verify_dedi_file(ft[:40], mt, **now).outcome, "invalid")
        dup = publisher(records=[{"record_name": "a", "details": {}}, {"record_name": "a", "details": {}}])
        self.assertIn("more than once", verify_dedi_file(dup["file_text"], dup["manifest_text"], **now).reason)
        wrong_type = json.loads(ft)
        wrong_type["type"] = "dedi-manifest"
        self.assertEqual(verify_dedi_file(json.dumps(wrong_type), mt, **now).outcome, "invalid")
        for url in ("https://other.example/.well-known/dedi.index.json", "http://pub.example/.well-known/dedi.index.json",
                    "https://pub.example:8443/.well-known/dedi.index.json"):
            self.assertEqual(verify_dedi_file(ft, mt, manifest_url=url, **now).outcome, "not_authenticated", url)
        other_ns = publisher(namespace="other.example")
        self.assertIn("namespace", verify_dedi_file(other_ns["file_text"], other_ns["manifest_text"], **now).reason)
        other_domain = publisher(domain="evil.example")
        self.assertIn("publisher domain", verify_dedi_file(other_domain["file_text"], other_domain["manifest_text"], **now).reason)
        self.assertEqual(verify_dedi_file(ft, mt, accepted_file_updated_at="2026-08-21T00:00:00Z", **now).outcome, "rollback")
        self.assertEqual(verify_dedi_file(ft + "\n", mt, **now).outcome, "digest_mismatch")
        self.assertEqual(verify_dedi_file(ft, None, **now).outcome, "unavailable_authority")
        tampered = copy.deepcopy(ok["manifest"])
        tampered["next_update"] = "2026-10-01T00:00:00Z"
        self.assertEqual(verify_dedi_file(ft, json.dumps(tampered), **now).outcome, "not_authenticated")
        inline = publisher(inline=True)
        self.assertEqual(verify_dedi_file(inline["file"], inline["manifest_text"], **now).outcome, "authentic")
        self.assertEqual(verify_dedi_file(inline["file_text"], inline["manifest_text"], **now).outcome, "authentic")

        def needs_id(schema: Any, details: dict[str, Any]) -> str:
            return "" if isinstance(details.get("id"), str) else "id is missing"

        def unreachable(schema: Any, details: dict[str, Any]) -> str:
            raise OSError("HTTP 404")

        no_id = publisher(records=[{"record_name": "a", "details": {}}])
        self.assertEqual(verify_dedi_file(no_id["file_text"], no_id["manifest_text"], validate_record=needs_id, **now).outcome, "invalid")
        self.assertEqual(
            verify_dedi_file(no_id["file_text"], no_id["manifest_text"], validate_record=unreachable, **now).outcome, "schema_unavailable"
        )
        self.assertEqual(verify_dedi_file(ok["file_text"], mt, validate_record=needs_id, **now).outcome, "authentic")


def sha(text: str) -> str:
    return "sha-256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def with_digests(**o: Any) -> dict[str, Any]:
    """The publisher's manifest names a digests document and lists the file without a digest
    (unless manifest_digest is given); the digests document commits to the file."""
    p = publisher()
    key = key_of("key-1")
    entry = {"registry": "keys", "url": p["file"]["source_url"]}
    if "manifest_digest" in o:
        entry["digest"] = o["manifest_digest"]
    manifest = sign({"dedi_version": "0.1", "type": "dedi-manifest", "domain": "pub.example", "keys": [key["pub"]] + o.get("extra_keys", []),
                     "updated_at": "2026-08-20T00:00:00Z", "next_update": "2026-09-01T00:00:00Z",
                     "digests": "https://pub.example/dedi/dedi.digests.json", "files": [entry]}, key)
    digests = sign({"dedi_version": "0.1", "type": "dedi-digests", "domain": o.get("digests_domain", "pub.example"),
                    "updated_at": o.get("digests_updated", "2026-08-21T00:00:00Z"), "next_update": "2026-08-23T00:00:00Z",
                    "digests": o.get("digests", {"keys": sha(p["file_text"])})}, o.get("digests_key", key))
    return dict(p, manifest_text=json.dumps(manifest), digests_text=json.dumps(digests))


class DigestsDocument(unittest.TestCase):
    def test_each_word(self) -> None:
        def v(p: dict[str, Any], **kw: Any) -> Any:
            kw.setdefault("now", EVALUATION)
            kw.setdefault("digests", p["digests_text"])
            return verify_dedi_file(p["file_text"], p["manifest_text"], **kw)

        p = with_digests()
        got = v(p)
        self.assertEqual((got.outcome, got.digest_from), ("authentic", "digests"), got.reason)
        self.assertEqual(v(with_digests(manifest_digest="sha-256:" + "0" * 64)).outcome, "authentic")
        mism = v(with_digests(manifest_digest=sha(p["file_text"]), digests={"keys": "sha-256:" + "a" * 64}))
        self.assertEqual((mism.outcome, mism.digest_from), ("digest_mismatch", "digests"))
        self.assertEqual(v(with_digests(manifest_digest=sha(p["file_text"]), digests={})).digest_from, "manifest")
        none = with_digests(digests={})
        self.assertEqual((v(none).outcome, v(none).digest_from), ("authentic", "none"))
        self.assertEqual(v(none, accepted_file_updated_at="2026-08-21T00:00:00Z").outcome, "rollback")
        self.assertEqual(v(p, digests=None).outcome, "digests_unavailable")
        self.assertEqual(v(p, digests=None, accepted_digests=p["digests_text"]).outcome, "authentic")
        self.assertEqual(v(p, digests=None, accepted_digests=p["digests_text"], now=when("2026-08-23T00:00:01Z")).outcome, "digests_unavailable")
        self.assertEqual(v(p, now=when("2026-08-23T00:00:01Z")).outcome, "digests_stale")
        self.assertEqual(v(p, now=when("2026-08-23T00:00:00Z")).outcome, "authentic")
        self.assertEqual(v(p, accepted_digests=with_digests(digests_updated="2026-08-22T00:00:00Z")["digests_text"]).outcome, "digests_rollback")
        self.assertEqual(v(with_digests(digests_key=key_of("stranger"))).outcome, "digests_not_authenticated")
        self.assertEqual(v(with_digests(digests_key=key_of("key-2"), extra_keys=[key_of("key-2")["pub"]])).outcome, "authentic")
        self.assertEqual(v(with_digests(digests_domain="evil.example")).outcome, "digests_not_authenticated")
        self.assertEqual(v(with_digests(digests_domain="PUB.Example")).outcome, "authentic")
        self.assertEqual(v(p, digests=p["digests_text"].replace("2026-08-21", "2026-08-22")).outcome, "digests_not_authenticated")
        self.assertEqual(v(p, digests=p["digests_text"].replace('"type": "dedi-digests"', '"type": "dedi-digests", "x": 1')).outcome, "digests_invalid")
        self.assertEqual(v(p, digests="{").outcome, "digests_invalid")
        self.assertEqual(v(with_digests(digests={"keys": "sha-512:abcd"})).outcome, "digest_mismatch")


class AcceptWhatTheProtocolAccepts(unittest.TestCase):
    def test_keys_versions_capitals_source_url(self) -> None:
        now = {"now": EVALUATION}
        rsa = {"kid": "rsa-1", "kty": "RSA", "n": "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc", "e": "AQAB"}
        p = publisher()
        key = key_of("key-1")

        def resign_manifest(change: Any) -> str:
            m = {k: v for k, v in p["manifest"].items() if k != "proof"}
            m = copy.deepcopy(m)
            change(m)
            return json.dumps(sign(m, key))

        self.assertEqual(verify_dedi_file(p["file_text"], resign_manifest(lambda m: m["keys"].append(rsa)), **now).outcome, "authentic")
        rsa_file = json.dumps(dict(p["file"], publisher=dict(p["file"]["publisher"], key=rsa), proof=dict(p["file"]["proof"], verification_method="rsa-1")))

        def list_rsa(m: dict[str, Any]) -> None:
            m["keys"].append(rsa)
            m["files"][0]["digest"] = sha(rsa_file)

        self.assertEqual(verify_dedi_file(rsa_file, resign_manifest(list_rsa), **now).outcome, "unsupported_key")
        self.assertEqual(verify_dedi_file(p["file_text"], resign_manifest(lambda m: m["keys"].append(dict(rsa, p="secret"))), **now).outcome,
                         "not_authenticated")
        f2 = json.dumps(sign(dict(p["file"], dedi_version="0.2", source_url="http://pub.example/dedi/dedi.keys.json",
                                  publisher=dict(p["file"]["publisher"], domain="Pub.EXAMPLE")), key))

        def caps(m: dict[str, Any]) -> None:
            m.update(domain="PUB.example", dedi_version="0.3.1")
            m["files"][0]["digest"] = sha(f2)

        self.assertEqual(verify_dedi_file(f2, resign_manifest(caps), **now).outcome, "authentic")
        f3 = json.dumps(sign(dict(p["file"], dedi_version="1.0"), key))
        self.assertEqual(verify_dedi_file(f3, resign_manifest(lambda m: m["files"][0].update(digest=sha(f3))), **now).outcome, "invalid")


if __name__ == "__main__":
    unittest.main()
