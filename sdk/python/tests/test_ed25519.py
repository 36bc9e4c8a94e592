"""The hand-written Ed25519 against RFC 8032's test vectors (section 7.1, TEST 1 to 3)."""

from __future__ import annotations

import unittest

import _support  # noqa: F401  (puts src/ on the path)
from svc_sdk import ed25519

VECTORS = [
    (
        "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
        "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
        "",
        "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
    ),
    (
        "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
        "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c",
        "72",
        "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00",
    ),
    (
        "c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
        "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025",
        "af82",
        "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a",
    ),
]

L = 2**252 + 27742317777372353535851937790883648493


class RFC8032(unittest.TestCase):
    def test_vectors(self) -> None:
        for secret, public, message, signature in VECTORS:
            sk, pk, msg, sig = (bytes.fromhex(x) for x in (secret, public, message, signature))
            with self.subTest(public=public[:16]):
                self.assertEqual(ed25519.public_key(sk), pk)
                self.assertEqual(ed25519.sign(sk, msg), sig)
                self.assertTrue(ed25519.verify(pk, msg, sig))

    def test_refusals(self) -> None:
        _, public, message, signature = VECTORS[2]
        pk, msg, sig = bytes.fromhex(public), bytes.fromhex(message), bytes.fromhex(signature)
        self.assertFalse(ed25519.verify(pk, msg + b"\x00", sig), "another message")
        for i in (0, 31, 32, 63):
            bad = bytearray(sig)
            bad[i] ^= 1
            self.assertFalse(ed25519.verify(pk, msg, bytes(bad)), f"signature byte {i} changed")
        other = bytes.fromhex(VECTORS[0][1])
        self.assertFalse(ed25519.verify(other, msg, sig), "another key")
        # S + L is the same scalar but not the canonical encoding: refused (as Go refuses it).
        s = int.from_bytes(sig[32:], "little") + L
        self.assertFalse(ed25519.verify(pk, msg, sig[:32] + s.to_bytes(32, "little")))
        self.assertFalse(ed25519.verify(pk[:31], msg, sig))
        self.assertFalse(ed25519.verify(pk, msg, sig[:63]))
        # y = p (not below the field order) is no point encoding.
        self.assertFalse(ed25519.verify((2**255 - 19).to_bytes(32, "little"), msg, sig))


if __name__ == "__main__":
    unittest.main()
