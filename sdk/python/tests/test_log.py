"""The log verifiers offline: audit and consistency paths of trees of 1 to 17 leaves computed
from RFC 6962's definitions, and checkpoints signed in the test with the note key format."""

from __future__ import annotations

import base64
import json
import unittest

from _notes import checkpoint_text, cosignature_line, leaf, mth, path, sign_note, subproof, verifier_key
from svc_sdk import (
    leaf_hash,
    root_from_inclusion_proof,
    verify_checkpoint,
    verify_consistency,
    verify_consistency_proof,
    verify_cosigned_checkpoint,
    verify_inclusion,
)

ORIGIN = "log.example/svc/log"
SECRET = bytes(range(32))
VKEY = verifier_key(ORIGIN, SECRET)
b64 = lambda b: base64.b64encode(b).decode()  # noqa: E731


def checkpoint(leaves: list[bytes]) -> str:
    return sign_note(checkpoint_text(ORIGIN, len(leaves), mth(leaves)), ORIGIN, SECRET)


class Trees(unittest.TestCase):
    def test_inclusion_paths(self) -> None:
        for n in range(1, 18):
            leaves = [leaf(i) for i in range(n)]
            root = mth(leaves)
            for m in range(n):
                p = path(m, leaves)
                self.assertEqual(root_from_inclusion_proof(m, n, leaf_hash(leaves[m]), p), root, f"{m} of {n}")
                if p:
                    self.assertIsNone(root_from_inclusion_proof(m, n, leaf_hash(leaves[m]), p[:-1]))
                    wrong = root_from_inclusion_proof(m, n, leaf_hash(leaves[m]), p[:-1] + [bytes(32)])
                    self.assertNotEqual(wrong, root)
                self.assertIsNone(root_from_inclusion_proof(m, n, leaf_hash(leaves[m]), p + [bytes(32)]))
            self.assertIsNone(root_from_inclusion_proof(n, n, leaf_hash(b"x"), []))

    def test_consistency_paths(self) -> None:
        for n in range(1, 18):
            leaves = [leaf(i) for i in range(n)]
            for m in range(0, n + 1):
                p = subproof(m, leaves, True) if 0 < m < n else []
                old, new = mth(leaves[:m]), mth(leaves)
                self.assertTrue(verify_consistency_proof(m, n, old, new, p), f"{m} to {n}")
                if p:
                    self.assertFalse(verify_consistency_proof(m, n, old, new, p[:-1]))
                    self.assertFalse(verify_consistency_proof(m, n, old, mth(leaves[:-1] + [b"other"]), p))
                    self.assertFalse(verify_consistency_proof(m, n, bytes(32), new, p))


class Checkpoints(unittest.TestCase):
    def test_signed(self) -> None:
        leaves = [leaf(i) for i in range(5)]
        got = verify_checkpoint(checkpoint(leaves), VKEY)
        self.assertTrue(got.ok, got.reason)
        self.assertEqual((got.origin, got.size, got.root_hash), (ORIGIN, 5, mth(leaves)))
        self.assertTrue(verify_checkpoint(checkpoint(leaves).encode(), VKEY).ok)

    def test_refused(self) -> None:
        note = checkpoint([leaf(0)])
        other = verifier_key(ORIGIN, bytes(32))
        cases = [
            (note.replace("\n1\n", "\n2\n", 1), VKEY, f"the signature of {ORIGIN} does not verify"),
            (note, other, f"the checkpoint is not signed by {other.split('+')[0]}+{other.split('+')[1]}"),
            (note, "nope", "the verifier key is not <name>+<hash>+<key>"),
            (note, VKEY.replace("+", "+0", 1), "the verifier key's hash is not 8 lowercase hex digits"),
            (note.replace("\n\n", "\n"), VKEY, "the checkpoint is not a signed note (no blank line before the signatures)"),
            (note[:-1], VKEY, "the checkpoint's signature lines are missing or do not end with a newline"),
            (note + "junk\n", VKEY, 'malformed signature line "junk"'),
        ]
        for text, key, reason in cases:
            self.assertEqual(verify_checkpoint(text, key).reason, reason)
        # a key whose name is not the origin
        elsewhere = "other.example/log"
        signed = sign_note(checkpoint_text(ORIGIN, 1, mth([leaf(0)])), elsewhere, SECRET)
        self.assertEqual(
            verify_checkpoint(signed, verifier_key(elsewhere, SECRET)).reason,
            f'the checkpoint\'s origin "{ORIGIN}" is not the key\'s name "{elsewhere}"',
        )
        # the hash of the key must be the key's
        name, h, k = VKEY.split("+", 2)
        self.assertEqual(verify_checkpoint(note, f"{name}+{'0' * 8}+{k}").reason, "the verifier key's hash does not match its name and key")

    def test_cosigned(self) -> None:
        text = checkpoint_text(ORIGIN, 3, mth([leaf(i) for i in range(3)]))
        note = sign_note(text, ORIGIN, SECRET)
        w1, w2 = bytes([1] * 32), bytes([2] * 32)
        cosigned = note + cosignature_line(text, "w1.example", w1, 1700000000) + cosignature_line(text, "w2.example", w2, 1700000001)
        keys = [verifier_key("w1.example", w1, 4), verifier_key("w2.example", w2, 1)]
        got = verify_cosigned_checkpoint(cosigned, VKEY, keys)
        self.assertTrue(got.ok, got.reason)
        self.assertEqual(got.witnesses, ("w1.example", "w2.example"))
        self.assertEqual(verify_cosigned_checkpoint(note, VKEY, keys, 1).reason, "0 of the given witnesses cosigned the checkpoint, 1 needed")
        forged = note + cosignature_line(text.replace("\n3\n", "\n4\n"), "w1.example", w1, 5)
        self.assertEqual(verify_cosigned_checkpoint(forged, VKEY, keys, 1).reason, "the cosignature of w1.example does not verify")
        self.assertTrue(verify_checkpoint(cosigned, VKEY).ok, "cosignatures are other signers' lines to verify_checkpoint")


class Inclusion(unittest.TestCase):
    def proof(self, m: int, n: int) -> dict:
        leaves = [leaf(i) for i in range(n)]
        return {
            "log_index": m,
            "tree_size": n,
            "leaf": leaves[m].decode(),
            "hashes": [b64(h) for h in path(m, leaves)],
            "checkpoint": checkpoint(leaves),
        }

    def test_every_leaf(self) -> None:
        for n in (1, 2, 7, 17):
            for m in range(n):
                got = verify_inclusion(self.proof(m, n), VKEY)
                self.assertTrue(got.ok, got.reason)
                self.assertEqual((got.log_index, got.tree_size, got.origin), (m, n, ORIGIN))
        self.assertTrue(verify_inclusion(json.dumps(self.proof(3, 7)), VKEY).ok)

    def test_refused(self) -> None:
        p = self.proof(3, 7)
        cases = [
            (dict(p, leaf=p["leaf"] + " "), "the audit path does not lead to the checkpoint's root hash"),
            (dict(p, log_index=4), "the audit path does not lead to the checkpoint's root hash"),
            (dict(p, tree_size=6), "tree_size 6 is not the checkpoint's size 7"),
            (dict(p, hashes=p["hashes"][:-1]), "2 hashes are not an audit path of index 3 in a tree of size 7"),
            (dict(p, hashes=p["hashes"][:-1] + ["AAAA"]), "hashes[2] is not 32 bytes of base64"),
            (dict(p, log_index=-1), "log_index is missing or not a non-negative integer"),
            (dict(p, log_index=True), "log_index is missing or not a non-negative integer"),
            (dict(p, checkpoint=None), "checkpoint is missing or not text"),
            (dict(p, log_index=9), "log_index 9 is beyond the tree of size 7"),
            ([], "the inclusion proof is not an object"),
        ]
        for proof, reason in cases:
            self.assertEqual(verify_inclusion(proof, VKEY).reason, reason)
        self.assertTrue(verify_inclusion("{", VKEY).reason.startswith("invalid JSON: "))
        self.assertTrue(verify_inclusion(p, verifier_key(ORIGIN, bytes(32))).reason.startswith("checkpoint: the checkpoint is not signed by"))


class Consistency(unittest.TestCase):
    def test_checkpoints(self) -> None:
        leaves = [leaf(i) for i in range(11)]
        old, new = checkpoint(leaves[:6]), checkpoint(leaves)
        proof = {"hashes": [b64(h) for h in subproof(6, leaves, True)]}
        got = verify_consistency(old, new, proof, VKEY)
        self.assertTrue(got.ok, got.reason)
        self.assertEqual((got.old_size, got.new_size), (6, 11))
        self.assertTrue(verify_consistency(old, new, json.dumps(proof), VKEY).ok)
        forked = checkpoint(leaves[:5] + [b"other"])
        self.assertTrue(verify_consistency(forked, new, proof, VKEY).reason.endswith("the log forked or the proof is wrong"))
        self.assertEqual(verify_consistency(new, old, proof, VKEY).reason, "the log shrank from 11 to 6")


if __name__ == "__main__":
    unittest.main()
