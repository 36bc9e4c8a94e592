"""The key-change leaves (kind dedi-keys) against the shared vectors of translog/leaf/testdata
(keyleaves.json, read by the Go and TypeScript tests and the JavaScript reference too): the key
set's canonical text and digest, the leaf text and its hash, and the texts that are not key
leaves."""

from __future__ import annotations

import base64
import json
import unittest

from _support import ROOT
from svc_sdk import key_change_leaf, key_set_digest, leaf_hash, parse_key_change_leaf
from svc_sdk.canonical import canonicalize
from svc_sdk.logkeys import sort_dedi_keys

VECTORS = json.loads((ROOT / "translog" / "leaf" / "testdata" / "keyleaves.json").read_text(encoding="utf-8"))


class KeyLeaves(unittest.TestCase):
    def test_leaves(self) -> None:
        self.assertGreaterEqual(len(VECTORS["leaves"]), 2)
        for c in VECTORS["leaves"]:
            f = c["fields"]
            with self.subTest(c["name"]):
                key_set = canonicalize({"domain": f["domain"], "keys": sort_dedi_keys(f["keys"]), "updated_at": f["updated_at"]})
                self.assertEqual(key_set, c["key_set"])
                self.assertEqual(key_set_digest(f["domain"], f["keys"], f["updated_at"]), c["digest"])
                self.assertEqual(key_change_leaf(f["domain"], f["keys"], f["updated_at"]), c["canonical"])
                self.assertEqual(leaf_hash(c["canonical"]), base64.b64decode(c["leaf_hash"]))
                self.assertEqual(parse_key_change_leaf(c["canonical"])["digest"], c["digest"])

    def test_invalid(self) -> None:
        self.assertGreaterEqual(len(VECTORS["invalid"]), 5)
        for c in VECTORS["invalid"]:
            with self.subTest(c["name"]):
                with self.assertRaises(ValueError):
                    parse_key_change_leaf(c["text"])


if __name__ == "__main__":
    unittest.main()
