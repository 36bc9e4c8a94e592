"""The state index's verifiers against the project's shared vectors
(translog/stateindex/testdata/index.json and translog/leaf/testdata/domainleaves.json, generated
by the Go tests and read by the TypeScript tests too): every valid case verifies and every
forged one is refused."""

from __future__ import annotations

import base64
import json
import unittest

from _support import ROOT
from svc_sdk import (
    EMPTY_HASH,
    StateKey,
    decode_state_proof,
    domain_leaf,
    encode_state_key,
    index_leaf_hash,
    index_node_hash,
    keys_of,
    leaf_hash,
    list_root,
    parse_domain_leaf,
    parse_state_leaf,
    state_key_hash,
    verify_absence,
    verify_extension,
    verify_latest,
    verify_membership,
)


def load(path: str) -> dict:
    return json.loads((ROOT / path).read_text(encoding="utf-8"))


INDEX = load("translog/stateindex/testdata/index.json")
DOMAINS = load("translog/leaf/testdata/domainleaves.json")
KEY_LEAVES = load("translog/leaf/testdata/keyleaves.json")
STATES = load("translog/leaf/testdata/stateleaves.json")
FULL = len(INDEX["leaves"])


def b64(s: str) -> bytes:
    return base64.b64decode(s, validate=True)


def key(v: dict) -> StateKey:
    return StateKey(v["kind"], tuple(v["parts"]))


def root_of(lists: list[tuple[bytes, list[int]]], depth: int = 0) -> bytes:
    """The index root by its definition: an empty subtree is 32 zero bytes, a subtree of one
    key is its leaf, one of more an inner node over its halves."""
    if not lists:
        return EMPTY_HASH
    if len(lists) == 1:
        kh, lst = lists[0]
        return index_leaf_hash(kh, len(lst), list_root(lst))
    side = [[x for x in lists if (x[0][depth // 8] >> (7 - depth % 8)) & 1 == b] for b in (0, 1)]
    return index_node_hash(root_of(side[0], depth + 1), root_of(side[1], depth + 1))


class Keys(unittest.TestCase):
    def test_vectors_are_there(self) -> None:
        self.assertEqual(len(INDEX["roots"]), FULL + 1)
        self.assertGreaterEqual(len(INDEX["keys"]), 10)
        for s in ("membership", "absence", "extension", "latest", "decoding"):
            self.assertTrue(any(c["ok"] for c in INDEX[s]) and any(not c["ok"] for c in INDEX[s]), s)

    def test_encoding_and_hash(self) -> None:
        for v in INDEX["keys"]:
            with self.subTest(v["parts"]):
                self.assertEqual(encode_state_key(key(v)), b64(v["encoding"]))
                self.assertEqual(state_key_hash(key(v)), b64(v["hash"]))
        # The example of docs/state-index.md.
        self.assertEqual(encode_state_key(StateKey("record-name", ("ns", "reg", "é"))).hex(), "0300026e7300037265670002c3a9")

    def test_keys_without_encoding(self) -> None:
        bad = [("id", ("",)), ("id", ("a", "b")), ("registry-name", ("a",)), ("record-name", ("a", "b")), ("name", ("a",)),
               ("domain", ("\ud800.example",)), ("id", ("x" * 65536,))]
        for kind, parts in bad:
            with self.subTest(kind=kind, parts=parts[0][:10]):
                with self.assertRaises(ValueError):
                    encode_state_key(StateKey(kind, parts))
        self.assertEqual(len(encode_state_key(StateKey("id", ("x" * 65535,)))), 3 + 65535)


class MapFunction(unittest.TestCase):
    def test_roots_at_every_size(self) -> None:
        lists: dict[bytes, list[int]] = {}
        self.assertEqual(root_of([]), b64(INDEX["roots"][0]["root"]))
        for i, text in enumerate(INDEX["leaves"]):
            keys = keys_of(text)
            self.assertEqual(len(keys), 0 if json.loads(text)["kind"] == "state" else 1, text)
            for k in keys:
                lists.setdefault(state_key_hash(k), []).append(i)
            self.assertEqual(root_of(list(lists.items())), b64(INDEX["roots"][i + 1]["root"]), f"size {i + 1}")

    def test_keys_of_each_leaf(self) -> None:
        full = [c for c in INDEX["membership"] if c["ok"] and c["size"] == FULL]
        for i, text in enumerate(INDEX["leaves"]):
            want = [key(c["key"]) for c in full if i in c["list"]]
            self.assertEqual(len(want), 0 if json.loads(text)["kind"] == "state" else 1)
            self.assertEqual(keys_of(text), want, f"leaf {i}")

    def test_keys_of_refuses(self) -> None:
        ns = INDEX["leaves"][0]
        bad = ["", "null", "[]", ns.replace(",", ", ", 1), ns + "\n",
               ns.replace('"version_count":1', '"version_count":0'), ns.replace('"version_count":1', '"version_count":1.0'),
               ns.replace('"version_count":1', '"version_count":"1"'), ns.replace('"kind":"namespace"', '"kind":"registry"'),
               ns.replace('"kind":"namespace"', '"kind":"checkpoint"'), ns.replace('"kind":"namespace"', '"extra":1,"kind":"namespace"'),
               ns.replace('"namespace_id":"did:svc:HmjQXvZmGWGrnMiSxkhJKX"', '"namespace_id":""'),
               ns.replace('"namespace_id":"did:svc:HmjQXvZmGWGrnMiSxkhJKX"', '"namespace_id":"\\ud800"'),
               INDEX["leaves"][2].replace('"record_id":"0193a1b2-0000-7000-8000-0000000000a1",', ""),
               INDEX["leaves"][6].replace('"kid":"key-2026"', '"kid":"\\udc00"'),
               INDEX["leaves"][6].replace('"updated_at":"2026-11-22T08:00:00.000Z"', '"updated_at":"\\udc00"')]
        bad += [c["text"] for c in DOMAINS["invalid"]]
        bad += [c["text"] for c in STATES["invalid"]]
        bad += [c["text"] for c in KEY_LEAVES["invalid"] if json.loads(c["text"]).get("kind") == "dedi-keys"]
        for text in bad:
            with self.subTest(text[:60]):
                with self.assertRaises(ValueError):
                    keys_of(text)

    def test_state_leaves(self) -> None:
        self.assertGreaterEqual(len(STATES["leaves"]), 3)
        for v in STATES["leaves"]:
            with self.subTest(v["name"]):
                self.assertEqual(leaf_hash(v["canonical"]), b64(v["leaf_hash"]))
                self.assertEqual(parse_state_leaf(v["canonical"]), {"kind": "state", **v["fields"]})
                self.assertEqual(keys_of(v["canonical"]), [])
        for v in STATES["invalid"]:
            with self.subTest(v["name"]):
                with self.assertRaises(ValueError):
                    parse_state_leaf(v["text"])

    def test_domain_leaves(self) -> None:
        self.assertGreaterEqual(len(DOMAINS["leaves"]), 3)
        self.assertGreaterEqual(len(DOMAINS["invalid"]), 10)
        for v in DOMAINS["leaves"]:
            f = v["fields"]
            with self.subTest(v["name"]):
                self.assertEqual(domain_leaf(f["domain"], f["namespace_id"], f["method"], f["change"], f["time"]), v["canonical"])
                self.assertEqual(leaf_hash(v["canonical"]), b64(v["leaf_hash"]))
                self.assertEqual(parse_domain_leaf(v["canonical"]), {"kind": "domain", **f})
                self.assertEqual(keys_of(v["canonical"]), [StateKey("domain", (f["domain"],))])
        for v in DOMAINS["invalid"]:
            with self.subTest(v["name"]):
                with self.assertRaises(ValueError):
                    parse_domain_leaf(v["text"])
        f = DOMAINS["leaves"][0]["fields"]
        for time in ("2026-02-30T00:00:00.000Z", "2026-11-27T24:00:00.000Z", "2026-11-27T20:00:60.000Z"):
            with self.assertRaises(ValueError):
                domain_leaf(f["domain"], f["namespace_id"], f["method"], f["change"], time)
        for domain in ("-a.example", "a-.example", "a..example", "é.example", "a" * 64 + ".example"):
            with self.assertRaises(ValueError):
                domain_leaf(domain, f["namespace_id"], f["method"], f["change"], f["time"])


class Proofs(unittest.TestCase):
    def test_decoding(self) -> None:
        for c in INDEX["decoding"]:
            with self.subTest(c["name"]):
                b = b64(c["proof"])
                if c["ok"]:
                    p = decode_state_proof(b)
                    self.assertEqual((p.end, len(p.siblings)), (b[0], int.from_bytes(b[1:3], "big")))
                else:
                    with self.assertRaises(ValueError):
                        decode_state_proof(b)

    def test_membership(self) -> None:
        for c in INDEX["membership"]:
            with self.subTest(c["name"]):
                r = verify_membership(b64(c["root"]), key(c["key"]), c["list"], b64(c["proof"]))
                self.assertEqual(r.ok, c["ok"], r.reason)
                self.assertEqual(r.reason == "", c["ok"])
        c = next(c for c in INDEX["membership"] if c["ok"] and len(c["list"]) > 1)
        for lst in ([-1], [0.5], ["1"], [1 << 64], [True]):
            self.assertFalse(verify_membership(b64(c["root"]), key(c["key"]), lst, b64(c["proof"])).ok, lst)

    def test_absence(self) -> None:
        for c in INDEX["absence"]:
            with self.subTest(c["name"]):
                r = verify_absence(b64(c["root"]), key(c["key"]), b64(c["proof"]))
                self.assertEqual(r.ok, c["ok"], r.reason)

    def test_any_byte_changed(self) -> None:
        n = 0
        for c in INDEX["membership"] + INDEX["absence"]:
            if not c["ok"] or c["size"] != FULL:
                continue
            root, proof = b64(c["root"]), b64(c["proof"])

            def check(r: bytes, p: bytes) -> bool:
                if c["list"] is None:
                    return verify_absence(r, key(c["key"]), p).ok
                return verify_membership(r, key(c["key"]), c["list"], p).ok

            self.assertTrue(check(root, proof), c["name"])
            self.assertFalse(check(b64(INDEX["roots"][9]["root"]), proof), c["name"])
            for i in range(len(proof)):
                p = bytearray(proof)
                p[i] ^= 0x01
                self.assertFalse(check(root, bytes(p)), f"{c['name']}: byte {i}")
                n += 1
        self.assertGreater(n, 1000)

    def test_extension(self) -> None:
        for c in INDEX["extension"]:
            with self.subTest(c["name"]):
                r = verify_extension(c["old_count"], b64(c["old_root"]), c["new_count"], b64(c["new_root"]), [b64(h) for h in c["proof"]])
                self.assertEqual(r.ok, c["ok"], r.reason)
        c = next(c for c in INDEX["extension"] if c["ok"] and c["proof"])
        proof = [b64(h) for h in c["proof"]]
        self.assertFalse(verify_extension(0, EMPTY_HASH, c["new_count"], b64(c["new_root"]), []).ok)
        self.assertFalse(verify_extension(c["old_count"], b64(c["old_root"]), (1 << 62) + 1, b64(c["new_root"]), proof).ok)
        self.assertFalse(verify_extension(c["old_count"], b64(c["old_root"]), c["new_count"], b64(c["new_root"]), proof[1:]).ok)

    def test_latest(self) -> None:
        for c in INDEX["latest"]:
            with self.subTest(c["name"]):
                r = verify_latest(b64(c["root"]), key(c["key"]), c["count"], b64(c["list_root"]), c["latest"],
                                  [b64(h) for h in c["list_proof"]], b64(c["proof"]))
                self.assertEqual(r.ok, c["ok"], r.reason)
        for c in (c for c in INDEX["latest"] if c["ok"]):
            m = next(m for m in INDEX["membership"] if m["ok"] and m["size"] == c["size"] and m["key"]["hash"] == c["key"]["hash"])
            self.assertEqual((len(m["list"]), m["list"][-1]), (c["count"], c["latest"]))
            self.assertEqual(list_root(m["list"]), b64(c["list_root"]))
            self.assertFalse(verify_latest(b64(c["root"]), key(c["key"]), 0, b64(c["list_root"]), c["latest"],
                                           [b64(h) for h in c["list_proof"]], b64(c["proof"])).ok)


class PathForm(unittest.TestCase):
    """Proofs that a root agrees with, made here for it, but that no canonical index gives: each
    check of a path's form must refuse them on its own (the vectors' roots would refuse them too)."""

    K = StateKey("id", ("0193a1b2-0000-7000-8000-0000000000a1",))

    def test_path_forms(self) -> None:
        kh = state_key_hash(self.K)
        other = state_key_hash(StateKey("id", ("another",)))
        sib = bytes([7]) * 32
        lst = [2, 5]
        leaf = index_leaf_hash(kh, 2, list_root(lst))
        one = lambda h: index_node_hash(h, sib) if kh[0] & 0x80 == 0 else index_node_hash(sib, h)  # noqa: E731
        side = lambda h: index_node_hash(h, bytes(32)) if kh[0] & 0x80 == 0 else index_node_hash(bytes(32), h)  # noqa: E731
        tail = lambda k, n, r: k + n.to_bytes(8, "big") + r  # noqa: E731
        self.assertTrue(verify_membership(one(leaf), self.K, lst, b"\x00\x00\x01\x80" + sib).ok)
        # A path ending beside an empty subtree (its one sibling empty).
        self.assertFalse(verify_membership(side(leaf), self.K, lst, b"\x00\x00\x01\x00").ok)
        # A list not strictly increasing, at the root of that list.
        self.assertFalse(verify_membership(index_leaf_hash(kh, 2, list_root([5, 2])), self.K, [5, 2], b"\x00\x00\x00").ok)
        self.assertFalse(verify_membership(index_leaf_hash(kh, 2, list_root([5, 5])), self.K, [5, 5], b"\x00\x00\x00").ok)
        # An absence proof ending at the key's own leaf.
        self.assertFalse(verify_absence(leaf, self.K, b"\x02\x00\x00" + tail(kh, 2, list_root(lst))).ok)
        # An absence proof ending at a leaf of an empty list.
        self.assertTrue(verify_absence(index_leaf_hash(other, 1, sib), self.K, b"\x02\x00\x00" + tail(other, 1, sib)).ok)
        self.assertFalse(verify_absence(index_leaf_hash(other, 0, sib), self.K, b"\x02\x00\x00" + tail(other, 0, sib)).ok)
        # An absence proof ending at another key's leaf off the key's path.
        off = bytes([other[0] ^ ((kh[0] ^ other[0]) & 0x80 ^ 0x80)]) + other[1:]  # its first bit unlike the key's
        self.assertNotEqual(off[0] & 0x80, kh[0] & 0x80)
        self.assertFalse(verify_absence(one(index_leaf_hash(off, 1, sib)), self.K, b"\x02\x00\x01\x80" + sib + tail(off, 1, sib)).ok)
        # Two roots for one count, with a proof.
        self.assertFalse(verify_extension(2, list_root(lst), 2, list_root(lst), [sib]).ok)


if __name__ == "__main__":
    unittest.main()
