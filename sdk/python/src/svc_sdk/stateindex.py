"""The verifier of the log's state index (docs/state-index.md, translog/stateindex).

A sparse Merkle prefix tree over SHA-256 of each key's encoding, whose leaves commit to a key's
list of log indices (its count and RFC 6962 root). A membership proof shows that a key's list is
exactly these n indices, so the n-th is the latest; an absence proof that the key has no leaf.
Every verifier refuses what the Go verifier refuses, and returns a ``StateIndexResult`` (it never
raises).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Callable, Sequence

from .merkle import node_hash as _node6962
from .merkle import root_from_inclusion_proof, verify_consistency_proof

__all__ = [
    "StateKey",
    "StateProof",
    "OtherLeaf",
    "StateIndexResult",
    "EMPTY_HASH",
    "END_LEAF",
    "END_EMPTY",
    "END_OTHER",
    "encode_state_key",
    "state_key_hash",
    "index_leaf_hash",
    "index_node_hash",
    "list_root",
    "decode_state_proof",
    "verify_membership",
    "verify_absence",
    "verify_extension",
    "verify_latest",
]

# The kinds of key, named as the vectors name them: their first byte and number of strings.
_KINDS = {"id": (0x01, 1), "registry-name": (0x02, 2), "record-name": (0x03, 3), "publisher": (0x04, 1), "domain": (0x05, 1)}

END_LEAF = 0x00  # the key's own leaf: present (a membership proof)
END_EMPTY = 0x01  # an empty subtree: absent
END_OTHER = 0x02  # another key's leaf, alone where the key would be: absent

EMPTY_HASH = bytes(32)
"""The hash of an empty subtree, and the root of an index without keys: 32 zero bytes."""

_MAX_LIST = 1 << 62


@dataclass(frozen=True)
class StateKey:
    """An index key: its kind (``id``, ``registry-name``, ``record-name``, ``publisher``,
    ``domain``) and its strings (1, 2 or 3 by kind)."""

    kind: str
    parts: tuple[str, ...]

    def __str__(self) -> str:
        return f"{self.kind}:{'/'.join(self.parts)}"


@dataclass(frozen=True)
class OtherLeaf:
    """The leaf an END_OTHER proof reaches: another key's hash and its list's commitment."""

    key_hash: bytes
    count: int
    list_root: bytes


@dataclass(frozen=True)
class StateProof:
    """A decoded proof: its end, the siblings from depth 0 down (an empty one as EMPTY_HASH),
    and for END_OTHER the other key's leaf."""

    end: int
    siblings: tuple[bytes, ...]
    other: OtherLeaf | None = None


@dataclass(frozen=True)
class StateIndexResult:
    """A verifier's verdict: ``ok``, or why not in ``reason``."""

    ok: bool
    reason: str = field(default="")

    def __bool__(self) -> bool:
        return self.ok


class _Refused(ValueError):
    pass


def _verdict(check: Callable[[], None]) -> StateIndexResult:
    try:
        check()
    except _Refused as e:
        return StateIndexResult(False, str(e))
    except (ValueError, TypeError, OverflowError) as e:
        return StateIndexResult(False, f"cannot verify the proof: {e}")
    return StateIndexResult(True)


def encode_state_key(key: StateKey) -> bytes:
    """A key's encoding: its kind byte, then each of its strings as a big-endian uint16 length
    in bytes and its UTF-8 bytes. Raises ValueError on an unknown kind, a wrong number of
    strings, or a string that is empty, longer than 65535 bytes of UTF-8, or not UTF-8 (a lone
    surrogate)."""
    kind = _KINDS.get(key.kind) if isinstance(key.kind, str) else None
    if kind is None:
        raise ValueError(f"unknown key kind {key.kind!r}")
    if not isinstance(key.parts, (tuple, list)) or len(key.parts) != kind[1]:
        raise ValueError(f"a {key.kind} key has {kind[1]} parts")
    out = bytearray([kind[0]])
    for p in key.parts:
        b = p.encode("utf-8") if isinstance(p, str) else b""  # a lone surrogate raises
        if not b or len(b) > 0xFFFF:
            raise ValueError(f"a {key.kind} key's part {p!r} is empty or longer than 65535 bytes")
        out += len(b).to_bytes(2, "big") + b
    return bytes(out)


def state_key_hash(key: StateKey) -> bytes:
    """A key's hash, SHA-256 of its encoding: its path in the tree."""
    return hashlib.sha256(encode_state_key(key)).digest()


def index_leaf_hash(key_hash: bytes, count: int, list_root: bytes) -> bytes:
    """The hash of a key's leaf: SHA-256(0x02 || key_hash || uint64be(count) || list_root)."""
    return hashlib.sha256(b"\x02" + key_hash + count.to_bytes(8, "big") + list_root).digest()


def index_node_hash(left: bytes, right: bytes) -> bytes:
    """The hash of an inner node: SHA-256(0x03 || left || right), an empty child as EMPTY_HASH."""
    return hashlib.sha256(b"\x03" + left + right).digest()


def _index(x: object) -> int:
    if not isinstance(x, int) or isinstance(x, bool) or not 0 <= x < 1 << 64:
        raise _Refused(f"{x!r} is not a log index")
    return x


def _element_hash(x: int) -> bytes:
    return hashlib.sha256(b"\x00" + x.to_bytes(8, "big")).digest()


def list_root(lst: Sequence[int]) -> bytes:
    """The RFC 6962 root of a list of log indices (element i the 8 bytes of the index,
    big-endian); EMPTY_HASH for none."""

    def mth(hs: list[bytes]) -> bytes:
        if len(hs) == 1:
            return hs[0]
        k = 1
        while k * 2 < len(hs):
            k *= 2
        return _node6962(mth(hs[:k]), mth(hs[k:]))

    return mth([_element_hash(_index(x)) for x in lst]) if lst else EMPTY_HASH


def decode_state_proof(b: bytes) -> StateProof:
    """Decodes a proof's bytes (docs/state-index.md, "Proofs"), refusing with ValueError every
    encoding the writer would not make: fewer than 3 bytes, an unknown end, a depth beyond 256, a
    bitmap bit past the depth, a missing sibling, a sibling of 32 zero bytes written out, a
    missing other leaf, a byte after the proof."""
    if not isinstance(b, (bytes, bytearray)) or len(b) < 3:
        raise _Refused("a proof of fewer than 3 bytes")
    b = bytes(b)
    end = b[0]
    if end > END_OTHER:
        raise _Refused(f"unknown proof end 0x{end:02x}")
    depth = int.from_bytes(b[1:3], "big")
    if depth > 256:
        raise _Refused(f"a path of depth {depth} (at most 256)")
    bm = (depth + 7) // 8
    if len(b) < 3 + bm:
        raise _Refused("the proof ends in its bitmap")
    bitmap = b[3 : 3 + bm]
    if depth % 8 and bitmap[-1] & (0xFF >> depth % 8):
        raise _Refused(f"bitmap bits past the depth {depth} are set")
    at = 3 + bm
    siblings: list[bytes] = []
    for i in range(depth):
        if not bitmap[i // 8] & (0x80 >> i % 8):
            siblings.append(EMPTY_HASH)
            continue
        if len(b) - at < 32:
            raise _Refused(f"the proof ends in sibling {i}")
        s = b[at : at + 32]
        at += 32
        if s == EMPTY_HASH:
            raise _Refused(f"sibling {i} is written out as 32 zero bytes (an empty sibling is a clear bitmap bit)")
        siblings.append(s)
    other = None
    if end == END_OTHER:
        if len(b) - at < 72:
            raise _Refused("the proof ends in the other key's leaf")
        other = OtherLeaf(b[at : at + 32], int.from_bytes(b[at + 32 : at + 40], "big"), b[at + 40 : at + 72])
        at += 72
    if at != len(b):
        raise _Refused(f"{len(b) - at} bytes after the proof")
    return StateProof(end, tuple(siblings), other)


def _bit(h: bytes, i: int) -> int:
    return (h[i // 8] >> (7 - i % 8)) & 1


def _fold(p: StateProof, kh: bytes, end: bytes) -> bytes:
    # A canonical path never ends beside an empty subtree (a subtree of one key is its leaf).
    d = len(p.siblings)
    if d and p.siblings[-1] == EMPTY_HASH:
        raise _Refused(f"the deepest sibling (depth {d - 1}) is empty: a subtree of one key is that key's leaf")
    h = end
    for i in range(d - 1, -1, -1):
        h = index_node_hash(h, p.siblings[i]) if _bit(kh, i) == 0 else index_node_hash(p.siblings[i], h)
    return h


def _prepare(root: bytes, key: StateKey, proof: bytes) -> tuple[bytes, StateProof]:
    if not isinstance(root, (bytes, bytearray)) or len(root) != 32:
        raise _Refused("the root is not 32 bytes")
    try:
        kh = state_key_hash(key)
    except (ValueError, AttributeError) as e:
        raise _Refused(str(e)) from None
    return kh, decode_state_proof(proof)


def verify_membership(root: bytes, key: StateKey, lst: Sequence[int], proof: bytes) -> StateIndexResult:
    """Verifies that in the index of root, key's list is exactly lst (strictly increasing log
    indices, at least one), so its last element is the key's latest leaf. proof is the encoded
    membership proof."""

    def check() -> None:
        kh, p = _prepare(root, key, proof)
        if not isinstance(lst, (list, tuple)) or not lst:
            raise _Refused("the list is empty (a key without leaves has no list; prove its absence)")
        xs = [_index(x) for x in lst]
        for i in range(1, len(xs)):
            if xs[i] <= xs[i - 1]:
                raise _Refused(f"the list is not strictly increasing: element {i} ({xs[i]}) after {xs[i - 1]}")
        if p.end != END_LEAF:
            raise _Refused(f"the proof of {key} is an absence proof, not a membership proof")
        got = _fold(p, kh, index_leaf_hash(kh, len(xs), list_root(xs)))
        if got != root:
            raise _Refused(f"the path of {key} with a list of {len(xs)} (latest {xs[-1]}) leads to root {got.hex()}, not {bytes(root).hex()}")

    return _verdict(check)


def verify_absence(root: bytes, key: StateKey, proof: bytes) -> StateIndexResult:
    """Verifies that in the index of root, key has no leaf. proof is the encoded absence proof."""

    def check() -> None:
        kh, p = _prepare(root, key, proof)
        if p.end == END_LEAF:
            raise _Refused(f"the proof of {key} is a membership proof, not an absence proof")
        end = EMPTY_HASH
        if p.other is not None:
            o = p.other
            if o.key_hash == kh:
                raise _Refused(f"the absence proof of {key} ends at that key's own leaf")
            if any(_bit(o.key_hash, i) != _bit(kh, i) for i in range(len(p.siblings))):
                raise _Refused(f"the other key's leaf is not on the path of {key}")
            if o.count == 0:
                raise _Refused("the other key's leaf has an empty list")
            end = index_leaf_hash(o.key_hash, o.count, o.list_root)
        got = _fold(p, kh, end)
        if got != root:
            raise _Refused(f"the absence proof of {key} leads to root {got.hex()}, not {bytes(root).hex()}")

    return _verdict(check)


def _count(n: object, what: str) -> int:
    if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= _MAX_LIST:
        raise _Refused(f"{what} of {n!r} elements")
    return n


def _hashes(proof: Sequence[bytes]) -> list[bytes]:
    if not isinstance(proof, (list, tuple)) or not all(isinstance(h, (bytes, bytearray)) and len(h) == 32 for h in proof):
        raise _Refused("a proof hash is not 32 bytes")
    return [bytes(h) for h in proof]


def verify_extension(old_count: int, old_root: bytes, new_count: int, new_root: bytes, proof: Sequence[bytes]) -> StateIndexResult:
    """Verifies that the list of old_count elements whose RFC 6962 root is old_root is a prefix
    of the list of new_count elements whose root is new_root, by the RFC 6962 consistency proof:
    what a client that knew a key's list at n needs to accept its list at m. A list that shrank,
    an empty old list, or two roots for one count are refused."""

    def check() -> None:
        if old_count == 0:
            raise _Refused("the old list is empty: a key that had no leaf has no list to extend")
        if isinstance(old_count, int) and isinstance(new_count, int) and new_count < old_count:
            raise _Refused(f"the list shrank from {old_count} to {new_count} elements")
        m, n = _count(old_count, "an old list"), _count(new_count, "a new list")
        if len(old_root) != 32 or len(new_root) != 32:
            raise _Refused("a list root is not 32 bytes")
        p = _hashes(proof)
        if m == n and (p or old_root != new_root):
            raise _Refused(f"two different lists of {m} elements")
        if not verify_consistency_proof(m, n, bytes(old_root), bytes(new_root), p):
            raise _Refused(f"the list of {m} is not a prefix of the list of {n}")

    return _verdict(check)


def verify_latest(
    root: bytes, key: StateKey, count: int, list_root_hash: bytes, latest: int, list_proof: Sequence[bytes], proof: bytes
) -> StateIndexResult:
    """Verifies the compact membership proof: in the index of root, key's list has count
    elements, its RFC 6962 root is list_root_hash, and its last element is latest, shown by
    list_proof (the RFC 6962 inclusion proof of element count - 1 in the list's tree) and proof
    (the key's encoded membership proof)."""

    def check() -> None:
        n, x = _count(count, "a list"), _index(latest)
        if len(list_root_hash) != 32:
            raise _Refused("the list root is not 32 bytes")
        got = root_from_inclusion_proof(n - 1, n, _element_hash(x), _hashes(list_proof))
        if got is None or got != list_root_hash:
            raise _Refused(f"log index {x} is not element {n} of the list of {key}")
        kh, p = _prepare(root, key, proof)
        if p.end != END_LEAF:
            raise _Refused(f"the proof of {key} is an absence proof, not a membership proof")
        r = _fold(p, kh, index_leaf_hash(kh, n, bytes(list_root_hash)))
        if r != root:
            raise _Refused(f"the path of {key} with a list of {n} (latest {x}) leads to root {r.hex()}, not {bytes(root).hex()}")

    return _verdict(check)
