"""Offline verification of the transparency log's proofs (docs/transparency-log.md).

Inclusion proofs (RFC 6962 / RFC 9162 audit paths over SHA-256) as
``GET /svc/log/inclusion/{version}`` serves them, the leaf a lookup is logged as, and consistency
proofs between two checkpoints (``GET /svc/log/consistency``). The reasons of failure are worded
as the TypeScript SDK words them. The signed and cosigned checkpoints are verified in
checkpoint.py and the tree hashes computed in merkle.py; this module exports them as before.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from .canonical import canonicalize
from .checkpoint import _MAX_SAFE, CheckpointResult, _b64, verify_checkpoint, verify_cosigned_checkpoint
from .merkle import leaf_hash, node_hash, root_from_inclusion_proof, verify_consistency_proof
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

def _decode_hashes(hashes: Sequence[Any]) -> list[bytes] | str:
    path = []
    for i, h in enumerate(hashes):
        b = _b64(h)
        if b is None or len(b) != 32:
            return f"hashes[{i}] is not 32 bytes of base64"
        path.append(b)
    return path

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
