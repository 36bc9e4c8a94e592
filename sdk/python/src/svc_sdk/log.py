"""Offline verification of the transparency log (docs/transparency-log.md).

Signed checkpoints (C2SP tlog-checkpoint in a C2SP signed note, Ed25519, verifier keys in the
form of golang.org/x/mod/sumdb/note), inclusion proofs (RFC 6962 / RFC 9162 audit paths over
SHA-256) as ``GET /svc/log/inclusion/{version}`` serves them, consistency proofs between two
checkpoints (``GET /svc/log/consistency``) and witness cosignatures (C2SP tlog-cosignature).
The reasons of failure are worded as the TypeScript SDK words them.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import re
from dataclasses import dataclass, field
from typing import Any, Sequence

from . import ed25519
from .canonical import canonicalize
from .verify import lookup_data, parse_json, verify_lookup

__all__ = [
    "CheckpointResult",
    "InclusionResult",
    "ConsistencyResult",
    "verify_checkpoint",
    "verify_cosigned_checkpoint",
    "verify_inclusion",
    "verify_consistency",
    "verify_consistency_proof",
    "root_from_inclusion_proof",
    "leaf_hash",
    "node_hash",
    "log_leaf",
    "leaf_of_fields",
    "parse_leaf",
]

_MAX_SAFE = 2**53 - 1
_SIG_LINE = re.compile(r"\u2014 (\S+) (\S+)\Z")
_BAD_TEXT = re.compile(r"[\x00-\x09\x0b-\x1f\ufffd\ud800-\udfff]")


@dataclass(frozen=True)
class CheckpointResult:
    """What verify_checkpoint found: the origin, tree size and 32-byte root hash, or a reason."""

    ok: bool
    origin: str = ""
    size: int = 0
    root_hash: bytes = b""
    reason: str = ""
    witnesses: tuple[str, ...] = field(default=())
    """For verify_cosigned_checkpoint: the names of the given witnesses whose cosignatures verify."""

    def __bool__(self) -> bool:
        return self.ok


@dataclass(frozen=True)
class InclusionResult:
    """What verify_inclusion found."""

    ok: bool
    origin: str = ""
    log_index: int = 0
    tree_size: int = 0
    root_hash: bytes = b""
    leaf: str = ""
    reason: str = ""

    def __bool__(self) -> bool:
        return self.ok


@dataclass(frozen=True)
class ConsistencyResult:
    """What verify_consistency found."""

    ok: bool
    origin: str = ""
    old_size: int = 0
    new_size: int = 0
    new_root_hash: bytes = b""
    reason: str = ""

    def __bool__(self) -> bool:
        return self.ok


@dataclass(frozen=True)
class _Key:
    name: str
    hash: int
    public_key: bytes


def _b64(s: Any) -> bytes | None:
    """Standard, padded base64, strictly (no stray bits in the last character); None if not."""
    if not isinstance(s, str) or len(s) % 4 or not re.fullmatch(r"[A-Za-z0-9+/]*={0,2}", s):
        return None
    try:
        b = base64.b64decode(s, validate=True)
    except (binascii.Error, ValueError):
        return None
    return b if base64.b64encode(b).decode() == s else None


def _split_key(vkey: str) -> tuple[str, str, str] | None:
    # "<name>+<hash>+<key>": the name and hash end at the first two plus signs.
    parts = vkey.strip().split("+", 2)
    return (parts[0], parts[1], parts[2]) if len(parts) == 3 else None


def _is_key_name(name: str) -> bool:
    return name != "" and not re.search(r"[\s+\ufffd]", name)


def _key_hash(name: str, key: bytes) -> int:
    return int.from_bytes(hashlib.sha256(name.encode("utf-8") + b"\n" + key).digest()[:4], "big")


def _parse_verifier_key(vkey: Any) -> _Key | str:
    parts = _split_key(vkey) if isinstance(vkey, str) else None
    if parts is None:
        return "the verifier key is not <name>+<hash>+<key>"
    name, hexhash, b64 = parts
    if not _is_key_name(name):
        return "the verifier key has an invalid name"
    if not re.fullmatch(r"[0-9a-f]{8}", hexhash):
        return "the verifier key's hash is not 8 lowercase hex digits"
    key = _b64(b64)
    if key is None or len(key) != 33 or key[0] != 1:
        return "the verifier key is not an Ed25519 key (0x01 and 32 bytes, base64)"
    if _key_hash(name, key) != int(hexhash, 16):
        return "the verifier key's hash does not match its name and key"
    return _Key(name, int(hexhash, 16), key[1:])


def _decode_hashes(hashes: Sequence[Any]) -> list[bytes] | str:
    path = []
    for i, h in enumerate(hashes):
        b = _b64(h)
        if b is None or len(b) != 32:
            return f"hashes[{i}] is not 32 bytes of base64"
        path.append(b)
    return path


def _text(note: Any) -> str | None:
    if isinstance(note, (bytes, bytearray)):
        try:
            return bytes(note).decode("utf-8")
        except UnicodeDecodeError:
            return None
    return note if isinstance(note, str) else None


def verify_checkpoint(note: str | bytes, verifier_key: str) -> CheckpointResult:
    """Verifies a signed checkpoint (the body of ``GET /svc/log/checkpoint``, or the
    ``checkpoint`` of an inclusion proof): a C2SP signed note whose text is a C2SP
    tlog-checkpoint (origin, decimal tree size, base64 root hash, optional extension lines),
    signed with Ed25519 by the verifier key ``<name>+<hex key hash>+<base64(0x01 || key)>``.
    Signature lines of other keys (witness cosignatures) are ignored; the key's name must be the
    origin. It never raises."""
    try:
        return _checkpoint(note, verifier_key)
    except Exception as e:
        return CheckpointResult(ok=False, reason=f"cannot verify the checkpoint: {e}")


def _checkpoint(note: Any, verifier_key: Any) -> CheckpointResult:
    def fail(reason: str) -> CheckpointResult:
        return CheckpointResult(ok=False, reason=reason)

    note_text = _text(note)
    if note_text is None or not isinstance(verifier_key, str):
        return fail("the checkpoint and the verifier key must be text")
    key = _parse_verifier_key(verifier_key)
    if isinstance(key, str):
        return fail(key)
    split = note_text.rfind("\n\n")
    if split < 0:
        return fail("the checkpoint is not a signed note (no blank line before the signatures)")
    text = note_text[: split + 1]
    if _BAD_TEXT.search(text):
        return fail("the checkpoint text holds control characters or invalid UTF-8")
    sig_block = note_text[split + 2 :]
    if sig_block == "" or not sig_block.endswith("\n"):
        return fail("the checkpoint's signature lines are missing or do not end with a newline")
    signed = False
    for line in sig_block[:-1].split("\n"):
        m = _SIG_LINE.match(line)
        sig = _b64(m.group(2)) if m else None
        if m is None or sig is None or len(sig) < 5:
            return fail(f"malformed signature line {json.dumps(line, ensure_ascii=False)}")
        if m.group(1) != key.name or int.from_bytes(sig[:4], "big") != key.hash:
            continue  # another signer's (a witness's cosignature, say)
        if len(sig) != 68 or not ed25519.verify(key.public_key, text.encode("utf-8"), sig[4:]):
            return fail(f"the signature of {key.name} does not verify")
        signed = True
    if not signed:
        return fail(f"the checkpoint is not signed by {key.name}+{key.hash:08x}")
    lines = text[:-1].split("\n")
    if len(lines) < 3:
        return fail("the checkpoint text is not origin, size and root hash")
    origin, size_text, hash_text = lines[0], lines[1], lines[2]
    if origin == "":
        return fail("the checkpoint has an empty origin")
    if origin != key.name:
        return fail(f"the checkpoint's origin {json.dumps(origin, ensure_ascii=False)} is not the key's name {json.dumps(key.name, ensure_ascii=False)}")
    if not re.fullmatch(r"0|[1-9][0-9]*", size_text) or int(size_text) > _MAX_SAFE:
        return fail(f"the checkpoint's size {json.dumps(size_text, ensure_ascii=False)} is not a decimal integer")
    root = _b64(hash_text)
    if root is None or len(root) != 32:
        return fail("the checkpoint's root hash is not 32 bytes of base64")
    return CheckpointResult(ok=True, origin=origin, size=int(size_text), root_hash=root)


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


def log_leaf(kind: str, data: dict[str, Any]) -> str:
    """The leaf text of a looked-up version: RFC 8785 canonical JSON of {kind, namespace_id,
    registry_id (registry and record), record_id (record), version, version_count, digest}, as
    the service logs it. ``data`` is the ``data`` of a lookup response. Raises ValueError."""
    leaf: dict[str, Any] = {"kind": kind, "namespace_id": data.get("namespace_id")}
    if kind != "namespace":
        leaf["registry_id"] = data.get("registry_id")
    if kind == "record":
        leaf["record_id"] = data.get("record_id")
    proof = data.get("proof")
    leaf["version"] = data.get("version")
    leaf["version_count"] = data.get("version_count")
    leaf["digest"] = proof.get("digest") if isinstance(proof, dict) else None
    for k, v in leaf.items():
        if k == "version_count":
            good = isinstance(v, (int, float)) and not isinstance(v, bool) and float(v).is_integer() and abs(v) <= _MAX_SAFE
        else:
            good = isinstance(v, str)
        if not good:
            raise ValueError(f"the lookup has no {'proof.digest' if k == 'digest' else k}")
    leaf["version_count"] = int(leaf["version_count"])
    return canonicalize(leaf)


def leaf_of_fields(fields: dict[str, Any]) -> str:
    """The leaf text of a leaf's fields (``kind``, ``namespace_id``, ``registry_id``,
    ``record_id``, ``version``, ``version_count``, ``digest``), the members the kind has; as the
    fields of translog/leaf/testdata/leaves.json give them. Raises ValueError."""
    kind = fields.get("kind")
    if kind not in ("namespace", "registry", "record"):
        raise ValueError(f"the leaf's kind {kind!r} is not namespace, registry or record")
    return log_leaf(kind, dict(fields, proof={"digest": fields.get("digest")}))


_LEAF_MEMBERS = {
    "namespace": {"kind", "namespace_id", "version", "version_count", "digest"},
    "registry": {"kind", "namespace_id", "registry_id", "version", "version_count", "digest"},
    "record": {"kind", "namespace_id", "registry_id", "record_id", "version", "version_count", "digest"},
}


def parse_leaf(text: str | bytes) -> dict[str, Any]:
    """Reads a leaf text: a JSON object of exactly the members of its kind (text members, a
    version_count from 1 to 2^53 − 1) that is its own canonical form, byte for byte. Returns
    the members; raises ValueError for anything else."""
    raw = text.decode("utf-8") if isinstance(text, (bytes, bytearray)) else text
    try:
        v = parse_json(raw)
    except (ValueError, RecursionError) as e:
        raise ValueError(f"the leaf is not JSON: {e}") from None
    if not isinstance(v, dict) or v.get("kind") not in _LEAF_MEMBERS:
        raise ValueError("the leaf is not an object with a known kind")
    if set(v) != _LEAF_MEMBERS[v["kind"]]:
        raise ValueError(f"the members of a {v['kind']} leaf are {sorted(_LEAF_MEMBERS[v['kind']])}")
    count = v["version_count"]
    if not _safe_int(count) or count < 1:
        raise ValueError("the leaf's version_count is not an integer from 1")
    if any(not isinstance(x, str) for k, x in v.items() if k != "version_count"):
        raise ValueError("the leaf's members but version_count must be text")
    v["version_count"] = int(count)
    if canonicalize(v) != raw:
        raise ValueError("the leaf is not in its canonical form")
    return v


def verify_inclusion(
    proof: Any, verifier_key: str, *, kind: str | None = None, lookup: Any = None, leaf_fields: dict[str, Any] | None = None
) -> InclusionResult:
    """Verifies an inclusion proof (the body of ``GET /svc/log/inclusion/{version}``, as a dict or
    JSON text): the checkpoint is signed by the verifier key (verify_checkpoint), its size is
    the proof's tree_size, and the audit path of SHA-256(0x00 || leaf) at log_index leads to its
    root hash. With ``kind`` and ``lookup`` (any form verify_lookup takes), the lookup must
    verify and its leaf (log_leaf) must be the proof's leaf; with ``leaf_fields``, the proof's
    leaf must be theirs (leaf_of_fields). It never raises."""
    try:
        result = _inclusion(proof, verifier_key, kind, lookup)
        if result.ok and leaf_fields is not None:
            want = leaf_of_fields(leaf_fields)
            if want != result.leaf:
                return InclusionResult(ok=False, reason=f"the proof's leaf {result.leaf} is not the expected leaf {want}")
        return result
    except Exception as e:
        return InclusionResult(ok=False, reason=f"cannot verify the inclusion proof: {e}")


def _safe_int(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and float(v).is_integer() and abs(v) <= _MAX_SAFE


def _inclusion(proof: Any, verifier_key: str, kind: str | None, lookup: Any) -> InclusionResult:
    def fail(reason: str) -> InclusionResult:
        return InclusionResult(ok=False, reason=reason)

    p = proof
    if isinstance(p, (str, bytes, bytearray)):
        try:
            p = parse_json(p)
        except (ValueError, RecursionError) as e:
            return fail(f"invalid JSON: {e}")
    if not isinstance(p, dict):
        return fail("the inclusion proof is not an object")
    index, size, leaf, hashes, cp = (p.get(k) for k in ("log_index", "tree_size", "leaf", "hashes", "checkpoint"))
    if not _safe_int(index) or index < 0:
        return fail("log_index is missing or not a non-negative integer")
    if not _safe_int(size) or size < 1:
        return fail("tree_size is missing or not a positive integer")
    index, size = int(index), int(size)
    if not isinstance(leaf, str):
        return fail("leaf is missing or not text")
    if not isinstance(hashes, list):
        return fail("hashes is missing or not an array")
    if not isinstance(cp, str):
        return fail("checkpoint is missing or not text")
    path = _decode_hashes(hashes)
    if isinstance(path, str):
        return fail(path)
    tree = verify_checkpoint(cp, verifier_key)
    if not tree.ok:
        return fail(f"checkpoint: {tree.reason}")
    if tree.size != size:
        return fail(f"tree_size {size} is not the checkpoint's size {tree.size}")
    if index >= tree.size:
        return fail(f"log_index {index} is beyond the tree of size {tree.size}")
    root = root_from_inclusion_proof(index, tree.size, leaf_hash(leaf), path)
    if root is None:
        return fail(f"{len(path)} hashes are not an audit path of index {index} in a tree of size {tree.size}")
    if root != tree.root_hash:
        return fail("the audit path does not lead to the checkpoint's root hash")
    if kind is not None or lookup is not None:
        if kind is None:
            return fail("a lookup to compare was given without its kind")
        v = verify_lookup(kind, lookup)
        if not v.ok:
            return fail(f"the lookup does not verify: {v.reason}")
        value = parse_json(lookup) if isinstance(lookup, (str, bytes, bytearray)) else lookup
        want = log_leaf(kind, lookup_data(value, kind) or {})
        if want != leaf:
            return fail(f"the proof's leaf {leaf} is not the lookup's leaf {want}")
    return InclusionResult(ok=True, origin=tree.origin, log_index=index, tree_size=tree.size, root_hash=tree.root_hash, leaf=leaf)


def verify_consistency(old_checkpoint: str | bytes, new_checkpoint: str | bytes, proof: Any, verifier_key: str) -> ConsistencyResult:
    """Verifies that a log did not fork between two checkpoints a reader saw: both are signed by
    the verifier key for one origin, the old one is not larger, and the consistency proof (the
    body of ``GET /svc/log/consistency?from=OLD&to=NEW`` as a dict or JSON text, or its
    ``hashes`` list) shows the old tree as a prefix of the new one. It never raises."""

    def fail(reason: str) -> ConsistencyResult:
        return ConsistencyResult(ok=False, reason=reason)

    try:
        older = verify_checkpoint(old_checkpoint, verifier_key)
        if not older.ok:
            return fail(f"old checkpoint: {older.reason}")
        newer = verify_checkpoint(new_checkpoint, verifier_key)
        if not newer.ok:
            return fail(f"new checkpoint: {newer.reason}")
        if older.origin != newer.origin:
            return fail(f"the checkpoints are of two logs: {older.origin} and {newer.origin}")
        if older.size > newer.size:
            return fail(f"the log shrank from {older.size} to {newer.size}")
        p = parse_json(proof) if isinstance(proof, (str, bytes, bytearray)) else proof
        hashes = p if isinstance(p, list) else p.get("hashes") if isinstance(p, dict) else None
        if not isinstance(hashes, list):
            return fail("the proof has no hashes array")
        path = _decode_hashes(hashes)
        if isinstance(path, str):
            return fail(path)
        if not verify_consistency_proof(older.size, newer.size, older.root_hash, newer.root_hash, path):
            return fail(
                f"the proof does not show the tree of {older.size} as a prefix of the tree of {newer.size}: "
                "the log forked or the proof is wrong"
            )
        return ConsistencyResult(ok=True, origin=newer.origin, old_size=older.size, new_size=newer.size, new_root_hash=newer.root_hash)
    except Exception as e:
        return fail(f"cannot verify the consistency proof: {e}")


def _parse_witness_key(vkey: Any) -> _Key | str:
    # "<name>+<hash>+<base64(0x04 || key)>" (a cosignature/v1 key), or an Ed25519 note key
    # (0x01), which signs cosignatures under the cosignature/v1 key of the same public key.
    text = vkey.strip() if isinstance(vkey, str) else ""
    parts = _split_key(text)
    if parts is None:
        return "a witness key is not <name>+<hash>+<key>"
    name, hexhash, b64 = parts
    key = _b64(b64)
    quoted = json.dumps(text, ensure_ascii=False)
    if not _is_key_name(name) or not re.fullmatch(r"[0-9a-f]{8}", hexhash):
        return f"the witness key {quoted} has an invalid name or hash"
    if key is None or len(key) != 33 or key[0] not in (1, 4):
        return f"the witness key {quoted} is not an Ed25519 key (0x04 or 0x01 and 32 bytes, base64)"
    if _key_hash(name, key) != int(hexhash, 16):
        return f"the witness key {quoted}: its hash does not match its name and key"
    return _Key(name, _key_hash(name, b"\x04" + key[1:]), key[1:])


def verify_cosigned_checkpoint(note: str | bytes, verifier_key: str, witness_keys: Sequence[str], quorum: int | None = None) -> CheckpointResult:
    """Verifies a cosigned checkpoint (``GET /svc/log/cosigned-checkpoint``): the log's signature
    as verify_checkpoint checks it, and C2SP tlog-cosignature (cosignature/v1, Ed25519) lines of
    at least ``quorum`` (default: all) of the given witnesses. A line of a given witness that does
    not verify fails the checkpoint; lines of other keys are ignored. It never raises."""
    try:
        return _cosigned(note, verifier_key, list(witness_keys), len(witness_keys) if quorum is None else quorum)
    except Exception as e:
        return CheckpointResult(ok=False, reason=f"cannot verify the cosigned checkpoint: {e}")


def _cosigned(note: Any, verifier_key: str, witness_keys: list[str], quorum: int) -> CheckpointResult:
    def fail(reason: str) -> CheckpointResult:
        return CheckpointResult(ok=False, reason=reason)

    if not isinstance(quorum, int) or quorum < 1 or quorum > len(witness_keys):
        return fail(f"the quorum {quorum} is not between 1 and the {len(witness_keys)} witness keys given")
    cp = _checkpoint(note, verifier_key)
    if not cp.ok:
        return cp
    keys = []
    for k in witness_keys:
        w = _parse_witness_key(k)
        if isinstance(w, str):
            return fail(w)
        keys.append(w)
    note_text = _text(note) or ""
    split = note_text.rfind("\n\n")
    text = note_text[: split + 1].encode("utf-8")
    witnessed: set[str] = set()
    for line in note_text[split + 2 : -1].split("\n"):
        m = _SIG_LINE.match(line)
        sig = _b64(m.group(2)) if m else None
        if m is None or sig is None:
            continue  # _checkpoint checked every line's form
        h = int.from_bytes(sig[:4], "big")
        w = next((k for k in keys if k.name == m.group(1) and k.hash == h), None)
        if w is None:
            continue  # the log's signature, or another witness's
        if len(sig) != 4 + 8 + 64:
            return fail(f"the cosignature of {w.name} is not a timestamp and an Ed25519 signature")
        t = int.from_bytes(sig[4:12], "big")
        msg = f"cosignature/v1\ntime {t}\n".encode() + text
        if not ed25519.verify(w.public_key, msg, sig[12:]):
            return fail(f"the cosignature of {w.name} does not verify")
        witnessed.add(w.name)
    if len(witnessed) < quorum:
        return fail(f"{len(witnessed)} of the given witnesses cosigned the checkpoint, {quorum} needed")
    return CheckpointResult(ok=True, origin=cp.origin, size=cp.size, root_hash=cp.root_hash, witnesses=tuple(sorted(witnessed)))
