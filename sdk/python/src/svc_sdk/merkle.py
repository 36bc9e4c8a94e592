"""The Merkle tree hashes of the transparency log (RFC 6962 / RFC 9162 over SHA-256).

Leaf and interior node hashes, the root an inclusion proof's audit path leads to, and the check
of a consistency proof between two tree sizes.
"""

from __future__ import annotations

import hashlib
from typing import Sequence

__all__ = ["leaf_hash", "node_hash", "root_from_inclusion_proof", "verify_consistency_proof"]


def leaf_hash(leaf: str | bytes) -> bytes:
    """The RFC 6962 leaf hash: SHA-256(0x00 || leaf)."""
    b = leaf.encode("utf-8") if isinstance(leaf, str) else leaf
    return hashlib.sha256(b"\x00" + b).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    """The RFC 6962 interior node hash: SHA-256(0x01 || left || right)."""
    return hashlib.sha256(b"\x01" + left + right).digest()


def root_from_inclusion_proof(index: int, size: int, hash: bytes, path: Sequence[bytes]) -> bytes | None:
    """The root an RFC 6962 audit path leads to from a leaf hash at index in a tree of size
    (RFC 9162, 2.1.3.2), or None when the path cannot be one of that tree."""
    if not (isinstance(index, int) and isinstance(size, int)) or index < 0 or index >= size:
        return None
    fn, sn, r = index, size - 1, hash
    for p in path:
        if sn == 0:
            return None
        if fn & 1 or fn == sn:
            r = node_hash(p, r)
            while fn & 1 == 0 and fn != 0:
                fn >>= 1
                sn >>= 1
        else:
            r = node_hash(r, p)
        fn >>= 1
        sn >>= 1
    return r if sn == 0 else None


def verify_consistency_proof(old_size: int, new_size: int, old_root: bytes, new_root: bytes, proof: Sequence[bytes]) -> bool:
    """Whether an RFC 6962 consistency proof (RFC 9162, 2.1.4.2) shows the tree of old_size and
    old_root to be a prefix of the tree of new_size and new_root."""
    if not (isinstance(old_size, int) and isinstance(new_size, int)) or old_size < 0 or old_size > new_size:
        return False
    if old_size == new_size:
        return len(proof) == 0 and old_root == new_root
    if old_size == 0:
        return len(proof) == 0
    if len(proof) == 0:
        return False
    fn, sn = old_size - 1, new_size - 1
    # An old tree that is a complete subtree is a node of the new one: its root starts the path.
    path = [old_root, *proof] if fn & (fn + 1) == 0 else list(proof)
    while fn & 1:
        fn >>= 1
        sn >>= 1
    fr = sr = path[0]
    for c in path[1:]:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            fr = node_hash(c, fr)
            sr = node_hash(c, sr)
            while fn & 1 == 0 and fn != 0:
                fn >>= 1
                sn >>= 1
        else:
            sr = node_hash(sr, c)
        fn >>= 1
        sn >>= 1
    return sn == 0 and fr == old_root and sr == new_root
