"""The log verifiers against the project's shared log vectors (translog/leaf/testdata, made with
golang.org/x/mod's tlog and note and read by the Go and TypeScript tests too): leaf texts and
hashes, invalid leaves, roots, audit paths and consistency proofs of trees up to 21 leaves,
signed checkpoints, and inclusion and consistency proofs with their verdicts."""

from __future__ import annotations

import base64
import json
import unittest

from _support import ROOT
from svc_sdk import leaf_hash, root_from_inclusion_proof, verify_checkpoint, verify_consistency, verify_consistency_proof, verify_inclusion
from svc_sdk.log import leaf_of_fields, parse_leaf

DATA = ROOT / "translog" / "leaf" / "testdata"


def load(name: str) -> dict:
    return json.loads((DATA / f"{name}.json").read_text(encoding="utf-8"))


def b64(s: str) -> bytes:
    return base64.b64decode(s)


class Leaves(unittest.TestCase):
    def test_leaves(self) -> None:
        v = load("leaves")
        self.assertGreaterEqual(len(v["leaves"]), 3)
        for c in v["leaves"]:
            with self.subTest(c["name"]):
                self.assertEqual(leaf_of_fields(c["fields"]), c["canonical"])
                self.assertEqual(leaf_hash(c["canonical"]), b64(c["leaf_hash"]))
                self.assertEqual(parse_leaf(c["canonical"])["kind"], c["fields"]["kind"])

    def test_invalid_leaves(self) -> None:
        v = load("leaves")
        self.assertGreaterEqual(len(v["invalid"]), 5)
        for c in v["invalid"]:
            with self.subTest(c["name"]):
                with self.assertRaises(ValueError):
                    parse_leaf(c["text"])


class Tree(unittest.TestCase):
    def setUp(self) -> None:
        self.v = load("tree")
        self.roots = {r["size"]: b64(r["root_hash"]) for r in self.v["roots"]}

    def test_inclusion(self) -> None:
        leaves = self.v["leaves"]
        self.assertGreaterEqual(len(self.v["inclusion"]), 50)
        for c in self.v["inclusion"]:
            path = [b64(h) for h in c["hashes"]]
            got = root_from_inclusion_proof(c["index"], c["size"], leaf_hash(leaves[c["index"]]), path)
            self.assertEqual(got, self.roots[c["size"]], f"leaf {c['index']} of {c['size']}")
            if path:
                self.assertNotEqual(root_from_inclusion_proof(c["index"], c["size"], leaf_hash(leaves[c["index"]] + " "), path), self.roots[c["size"]])

    def test_consistency(self) -> None:
        self.assertGreaterEqual(len(self.v["consistency"]), 50)
        for c in self.v["consistency"]:
            m, n, path = c["old_size"], c["new_size"], [b64(h) for h in c["hashes"]]
            self.assertTrue(verify_consistency_proof(m, n, self.roots[m], self.roots[n], path), f"{m} to {n}")
            if path:
                self.assertFalse(verify_consistency_proof(m, n, self.roots[m], self.roots[n], path[:-1]))
                self.assertFalse(verify_consistency_proof(m, n, bytes(32), self.roots[n], path))


class Checkpoints(unittest.TestCase):
    def setUp(self) -> None:
        self.v = load("checkpoints")

    def test_checkpoints(self) -> None:
        self.assertTrue(any(c["ok"] for c in self.v["checkpoints"]) and any(not c["ok"] for c in self.v["checkpoints"]))
        for c in self.v["checkpoints"]:
            with self.subTest(c["name"]):
                got = verify_checkpoint(c["signed"], c["verifier_key"])
                self.assertEqual(got.ok, c["ok"], got.reason)
                if c["ok"]:
                    self.assertEqual((got.origin, got.size, got.root_hash), (c["origin"], c["size"], b64(c["root_hash"])))

    def test_inclusion_proofs(self) -> None:
        for c in self.v["inclusion_proofs"]:
            with self.subTest(c["name"]):
                got = verify_inclusion(c["proof"], c["verifier_key"], leaf_fields=c["expected_leaf"])
                self.assertEqual(got.ok, c["ok"], got.reason)

    def test_consistency_proofs(self) -> None:
        for c in self.v["consistency_proofs"]:
            with self.subTest(c["name"]):
                got = verify_consistency(c["old_checkpoint"], c["new_checkpoint"], c["hashes"], c["verifier_key"])
                self.assertEqual(got.ok, c["ok"], got.reason)


if __name__ == "__main__":
    unittest.main()
