"""Signed notes and trees made in the tests, from the specifications' definitions."""

from __future__ import annotations

import base64
import hashlib

import _support  # noqa: F401  (puts src/ on the path)
from svc_sdk import ed25519


def key_hash(name: str, key: bytes) -> bytes:
    return hashlib.sha256(name.encode() + b"\n" + key).digest()[:4]


def verifier_key(name: str, secret: bytes, kind: int = 1) -> str:
    """A note verifier key (golang.org/x/mod/sumdb/note; kind 4: a cosignature/v1 key)."""
    key = bytes([kind]) + ed25519.public_key(secret)
    return f"{name}+{key_hash(name, key).hex()}+{base64.b64encode(key).decode()}"


def sign_note(text: str, name: str, secret: bytes) -> str:
    """A signed note: the text (ending in a newline), a blank line, one signature line."""
    sig = key_hash(name, b"\x01" + ed25519.public_key(secret)) + ed25519.sign(secret, text.encode())
    return f"{text}\n\u2014 {name} {base64.b64encode(sig).decode()}\n"


def cosignature_line(text: str, name: str, secret: bytes, timestamp: int) -> str:
    """A C2SP tlog-cosignature line (cosignature/v1) of a checkpoint text."""
    msg = f"cosignature/v1\ntime {timestamp}\n".encode() + text.encode()
    sig = key_hash(name, b"\x04" + ed25519.public_key(secret)) + timestamp.to_bytes(8, "big") + ed25519.sign(secret, msg)
    return f"\u2014 {name} {base64.b64encode(sig).decode()}\n"


def checkpoint_text(origin: str, size: int, root: bytes) -> str:
    return f"{origin}\n{size}\n{base64.b64encode(root).decode()}\n"


def leaf(i: int) -> bytes:
    return f'{{"kind":"namespace","n":{i}}}'.encode()


def mth(leaves: list[bytes]) -> bytes:
    """RFC 6962, 2.1: the Merkle tree hash."""
    if not leaves:
        return hashlib.sha256(b"").digest()
    if len(leaves) == 1:
        return hashlib.sha256(b"\x00" + leaves[0]).digest()
    k = 1
    while k * 2 < len(leaves):
        k *= 2
    return hashlib.sha256(b"\x01" + mth(leaves[:k]) + mth(leaves[k:])).digest()


def path(m: int, leaves: list[bytes]) -> list[bytes]:
    """RFC 6962, 2.1.1: the audit path of leaf m."""
    n = len(leaves)
    if n <= 1:
        return []
    k = 1
    while k * 2 < n:
        k *= 2
    if m < k:
        return path(m, leaves[:k]) + [mth(leaves[k:])]
    return path(m - k, leaves[k:]) + [mth(leaves[:k])]


def subproof(m: int, leaves: list[bytes], b: bool) -> list[bytes]:
    """RFC 6962, 2.1.2: the consistency proof of the first m leaves."""
    n = len(leaves)
    if m == n:
        return [] if b else [mth(leaves)]
    k = 1
    while k * 2 < n:
        k *= 2
    if m <= k:
        return subproof(m, leaves[:k], b) + [mth(leaves[k:])]
    return subproof(m - k, leaves[k:], False) + [mth(leaves[:k])]
