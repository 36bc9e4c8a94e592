"""verify_lookup offline: the shared vectors (the Go verifier's verdicts, which the TypeScript
SDK's tests check too), the input forms, and the strict reading of the input."""

from __future__ import annotations

import copy
import datetime
import json
import unittest

from _support import LOOKUP_VECTORS
from svc_sdk import digest_of, genesis_hex, proof_type, recompute_digest, verify_lookup

VECTORS = json.loads(LOOKUP_VECTORS.read_text(encoding="utf-8"))
NOW = datetime.datetime(VECTORS["max_year"], 7, 1, tzinfo=datetime.timezone.utc)
VERIFIES = [c for c in VECTORS["cases"] if c["ok"]]


def record_case() -> dict:
    return next(c for c in VERIFIES if c["kind"] == "record")


class Vectors(unittest.TestCase):
    def test_the_file_holds_every_kind(self) -> None:
        self.assertEqual(len(VECTORS["cases"]), 49)
        for kind in ("namespace", "registry", "record"):
            self.assertTrue(any(c["kind"] == kind for c in VERIFIES), kind)
        self.assertTrue(any(not c["ok"] for c in VECTORS["cases"]))

    def test_every_vector(self) -> None:
        # As a dict (json.load's reading: ints stay ints) and as the JSON text (every number a
        # float64, as JSON.parse reads it): the same verdict, reason for reason.
        for c in VECTORS["cases"]:
            for form in (c["lookup"], json.dumps(c["lookup"], ensure_ascii=False).encode()):
                with self.subTest(name=c["name"], form=type(form).__name__):
                    got = verify_lookup(c["kind"], form, now=NOW)
                    if c["ok"]:
                        d = c["lookup"]["data"]
                        self.assertTrue(got.ok, got.reason)
                        self.assertEqual((got.id, got.version, got.digest), (d[f"{c['kind']}_id"], d["version"], d["proof"]["digest"]))
                    else:
                        self.assertFalse(got.ok)
                        self.assertEqual(got.reason, c["reason"])

    def test_year_of_now(self) -> None:
        c = record_case()
        ptype = c["lookup"]["data"]["proof"]["type"]
        year = int(ptype[-4:])
        before = verify_lookup("record", c["lookup"], now=datetime.datetime(year - 1, 12, 31, 23, 59, 59, tzinfo=datetime.timezone.utc))
        self.assertEqual(before.reason, f"proof.type {ptype} has a year outside 2025..{year - 1}")
        self.assertTrue(verify_lookup("record", c["lookup"]).ok, "the current year accepts a proof of this year or before")


class InputForms(unittest.TestCase):
    def test_forms(self) -> None:
        for c in VERIFIES:
            k = c["kind"]
            wrapped = {f"{k}_lookup_response": c["lookup"]}
            for f in (c["lookup"], wrapped, c["lookup"]["data"], json.dumps(c["lookup"]), json.dumps(wrapped).encode()):
                self.assertTrue(verify_lookup(k, f, now=NOW).ok, f"{c['name']}: {str(f)[:80]}")

    def test_no_lookup(self) -> None:
        c = VERIFIES[0]
        none = 'the input holds no lookup data (want {"message":…, "data":{…}})'
        for v in (None, 42, [c["lookup"]], {"message": "x"}, {"data": [1]}, "[]", {"other_lookup_response": c["lookup"]}):
            self.assertEqual(verify_lookup(c["kind"], v, now=NOW).reason, none, repr(v)[:60])
        bad = verify_lookup(c["kind"], "{nope", now=NOW)
        self.assertFalse(bad.ok)
        self.assertTrue(bad.reason.startswith("invalid JSON: "))

    def test_unknown_kind(self) -> None:
        with self.assertRaises(ValueError):
            verify_lookup("thing", VERIFIES[0]["lookup"])


class Strictness(unittest.TestCase):
    def with_detail(self, key: str, value: object) -> dict:
        lookup = copy.deepcopy(record_case()["lookup"])
        lookup["data"]["details"][key] = value
        return lookup

    def test_refused_values(self) -> None:
        cases = [
            (self.with_detail("email", "a\u0000b"), "invalid JSON at /data/details/email: NUL character (\\u0000) in a string"),
            (self.with_detail("x\u0000", 1), "invalid JSON at /data/details: NUL character (\\u0000) in an object key"),
            (self.with_detail("email", "\ud800"), "invalid JSON at /data/details/email: unpaired UTF-16 surrogate \\ud800 in a string"),
            (self.with_detail("a/b~c", ["\udc00"]), "invalid JSON at /data/details/a~1b~0c/0: unpaired UTF-16 surrogate \\udc00 in a string"),
            (self.with_detail("n", float("nan")), "invalid JSON at /data/details/n: NaN is not a JSON number"),
            (self.with_detail("n", float("-inf")), "invalid JSON at /data/details/n: -Infinity is not a JSON number"),
            (self.with_detail("d", datetime.date(2026, 1, 1)), "invalid JSON at /data/details/d: a value of type date is not JSON"),
        ]
        for lookup, reason in cases:
            self.assertEqual(verify_lookup("record", lookup, now=NOW).reason, reason)

    def test_refused_text(self) -> None:
        text = json.dumps(record_case()["lookup"])
        for bad in (text.replace('"details": {', '"details": {"a": NaN, ', 1), text.replace('"details": {', '"details": {"a": 1, "a": 2, ', 1)):
            got = verify_lookup("record", bad, now=NOW)
            self.assertTrue(got.reason.startswith("invalid JSON: "), got.reason)
        escaped = text.replace('"details": {', '"details": {"e": "\\ud800", ', 1)
        self.assertEqual(verify_lookup("record", escaped, now=NOW).reason, "invalid JSON at /data/details/e: unpaired UTF-16 surrogate \\ud800 in a string")
        paired = text.replace('"details": {', '"details": {"e": "\\ud83d\\ude00", ', 1)
        self.assertTrue(verify_lookup("record", paired, now=NOW).reason.startswith("recomputed digest"))

    def test_depth(self) -> None:
        def nested(n: int) -> object:
            v: object = 1
            for _ in range(n):
                v = [v]
            return v

        # 256 levels in all are admitted, 257 are not (the lookup and data are 2 of them).
        admitted = verify_lookup("record", self.with_detail("deep", nested(253)), now=NOW)
        self.assertTrue(admitted.reason.startswith("recomputed digest"), admitted.reason)
        refused = verify_lookup("record", self.with_detail("deep", nested(254)), now=NOW)
        self.assertTrue(refused.reason.endswith("nesting deeper than 256 levels"), refused.reason)
        cyclic = copy.deepcopy(record_case()["lookup"])
        cyclic["data"]["details"]["self"] = cyclic["data"]["details"]
        self.assertTrue(verify_lookup("record", cyclic, now=NOW).reason.endswith("nesting deeper than 256 levels"))

    def test_missing_field(self) -> None:
        c = next(v for v in VERIFIES if v["kind"] == "registry")
        data = copy.deepcopy(c["lookup"]["data"])
        del data["meta"]
        self.assertEqual(verify_lookup("registry", data, now=NOW).reason, "data.meta is missing or not an object")


# Known answers of the JavaScript reference, from proof/fields_test.go (knownDigests), as the
# TypeScript SDK's test/verify.test.mjs has them: a namespace's tombstone first.
KNOWN = [
    (
        '{"namespace_id":"did:svc:5HueCGU8rMjxEXxiPuD5BD","description":"Acme","genesis":"2026-11-22T08:00:00.000Z","created_by":"did:web:localhost%3A8080:4vJ9JU1bJJE96FWSJKvHsj","version":"0x0190f2a1b2c3d4e5f60718293a4b5c71","version_count":2,"state":"deleted"}',
        "0x810e0db66df19fbccd7b58c6421e28f26e4fe23f8c16257fa5ae6607a21634df",
        "namespace",
    ),
    (
        '{"namespace_id":"did:svc:5HueCGU8rMjxEXxiPuD5BD","description":"Acme","genesis":"2026-11-22T08:00:00.000Z","created_by":"did:web:localhost%3A8080:4vJ9JU1bJJE96FWSJKvHsj","version":"0x0190f2a1b2c3d4e5f60718293a4b5c6d","version_count":1}',
        "0x68a2381f85cc8f484e92167d8af6287022c7d512b6740b3b8517630aa7f00408",
        "namespace",
    ),
    (
        '{"namespace_id":"did:svc:5HueCGU8rMjxEXxiPuD5BD","registry_name":"employees","description":"","schema":{"type":"object"},"tag":"custom","version":"0x0190f2a1b2c3d4e5f60718293a4b5c6e","version_count":2,"state":"inactive","genesis":"2026-11-22T08:00:00.000Z","created_by":"did:web:localhost%3A8080:4vJ9JU1bJJE96FWSJKvHsj","meta":{},"ttl":600}',
        "0x7e25dbdbe67e328c698310ee7323bcc7e97e2128cc4a2c9e35e6db0a112877a3",
        "registry",
    ),
    (
        '{"namespace_id":"did:svc:5HueCGU8rMjxEXxiPuD5BD","registry_id":"0190f2a1-b2c3-7d4e-8f60-718293a4b5c6","registry_name":"employees","record_name":"alice","description":"Alice","details":{"email":"alice@example.com","tags":["a","b"],"n":1.5},"version":"0x0190f2a1b2c3d4e5f60718293a4b5c6f","version_count":3,"state":"live","genesis":"2026-11-22T08:00:00.000Z","created_by":"did:web:localhost%3A8080:4vJ9JU1bJJE96FWSJKvHsj","meta":{"src":"hr"},"ttl":300}',
        "0x979eaf921b2187b969e350808bf94f37e4e2a3ab1a60f1c6279b66b55f1aa5ea",
        "record",
    ),
    (
        '{"namespace_id":"did:svc:5HueCGU8rMjxEXxiPuD5BD","registry_id":"0190f2a1-b2c3-7d4e-8f60-718293a4b5c6","registry_name":"employees","record_name":"zoe.mueller","description":"Zoë – \\"lead\\" <ops> & co\\u2028","details":{"name":{"first":"Zoë","last":"Müller"},"emails":["zoe@example.com"],"address":{"city":"Zürich","zip":"8001"},"tags":["a","b"],"score":1e21,"ratio":0.1,"tiny":1e-7,"neg":-0,"big":123456789012345680000,"\\uffff":"bmp","😀":"astral","":null,"ok":true},"version":"0x0190f2a1b2c3d4e5f60718293a4b5c70","version_count":12,"state":"draft","genesis":"2025-01-31T23:59:59.999Z","created_by":"did:web:localhost%3A8080:4vJ9JU1bJJE96FWSJKvHsj","meta":{},"ttl":86400}',
        "0xcf793036c16fbc7e7a7fba0690c7fc2961ccf3e1da07b22e9c0d784299362884",
        "record",
    ),
]


class KnownDigests(unittest.TestCase):
    def test_known(self) -> None:
        for text, digest, kind in KNOWN:
            fields = json.loads(text)
            self.assertEqual(digest_of(fields), digest)
            data = dict(fields, genesis=genesis_hex(fields["genesis"]), extra="not a digest field", proof={})
            self.assertEqual(recompute_digest(kind, data), digest)

    def test_namespace_state(self) -> None:
        # A namespace's state is a digest field only when it is not live.
        live, tomb = json.loads(KNOWN[1][0]), json.loads(KNOWN[0][0])
        for state in ("", "live"):
            self.assertEqual(recompute_digest("namespace", dict(live, state=state)), KNOWN[1][1])
        self.assertEqual(tomb.pop("state"), "deleted")
        dropped = "0xa378874766996aaf19bc26da0f2d2308cda5153a8bfa3be465ba9fec65a6944a"
        self.assertEqual(recompute_digest("namespace", tomb), dropped)
        self.assertEqual(recompute_digest("namespace", dict(tomb, state="live")), dropped)
        for bad in (7, None, False, {}):
            with self.assertRaisesRegex(ValueError, "^data.state is not a string$"):
                recompute_digest("namespace", dict(tomb, state=bad))

    def test_helpers(self) -> None:
        self.assertEqual(proof_type("record", 2026), "SvcRecordProof2026")
        self.assertEqual(proof_type("namespace", 25), "SvcNamespaceProof0025")
        with self.assertRaises(ValueError):
            proof_type("registry", 10000)
        self.assertEqual(genesis_hex("2026-11-22T08:00:00.000Z"), "0x323032362d31312d32325430383a30303a30302e3030305a")


if __name__ == "__main__":
    unittest.main()
