"""The key-change leaves of the transparency log (docs/transparency-log.md, kind "dedi-keys"): a
DeDi publisher's key set as the service accepted it, logged whenever it differs from the last
one logged. A monitor reads them from the log's entry bundles; an inclusion proof of one is
checked with verify_inclusion like any other leaf's."""

from __future__ import annotations

import json
from typing import Any

from .canonical import canonicalize, digest_of

_KEY_MEMBERS = ("kid", "kty", "crv", "x")
_LEAF_MEMBERS = {"digest", "domain", "keys", "kind", "updated_at"}


def sort_dedi_keys(keys: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The keys in the leaf's order (by the UTF-8 bytes of kid, then of x), each with only its
    public members (kid, kty, crv, x)."""
    ordered = sorted(keys, key=lambda k: (str(k["kid"]).encode("utf-8"), str(k["x"]).encode("utf-8")))
    return [{m: k[m] for m in _KEY_MEMBERS} for k in ordered]


def key_set_digest(domain: str, keys: list[dict[str, Any]], updated_at: str) -> str:
    """The digest of a key set: ``0x`` + hex of BLAKE2b-256 of RFC 8785 {domain, keys, updated_at}."""
    return digest_of({"domain": domain, "keys": sort_dedi_keys(keys), "updated_at": updated_at})


def key_change_leaf(domain: str, keys: list[dict[str, Any]], updated_at: str) -> str:
    """The leaf text the service logs for a key set: RFC 8785 of {kind, domain, keys,
    updated_at, digest}."""
    return canonicalize(
        {
            "kind": "dedi-keys",
            "domain": domain,
            "keys": sort_dedi_keys(keys),
            "updated_at": updated_at,
            "digest": key_set_digest(domain, keys, updated_at),
        }
    )


def _text(v: Any) -> bool:
    return isinstance(v, str) and v != ""


def parse_key_change_leaf(text: str | bytes) -> dict[str, Any]:
    """Reads a key-change leaf: exactly its members, a domain, updated_at, at least one key (each
    exactly kid, kty, crv and x, with a kid and an x), no kid twice, the digest that of its key
    set, and the text byte for byte as key_change_leaf writes it. Returns the members; raises
    ValueError for anything else."""
    v = key_change_leaf_form(text)
    if key_set_digest(v["domain"], v["keys"], v["updated_at"]) != v["digest"]:
        raise ValueError("the key-change leaf's digest is not its key set's")
    return v


def key_change_leaf_form(text: str | bytes) -> dict[str, Any]:
    """The form of a key-change leaf, as the Go parser (translog/leaf.ParseKeys) and the state
    index's map function check it: all that parse_key_change_leaf checks but the digest, which
    must only be present (the text byte for byte as key_change_leaf writes it with that digest)."""
    raw = text.decode("utf-8") if isinstance(text, (bytes, bytearray)) else text
    try:
        v = json.loads(raw)
    except ValueError as e:
        raise ValueError(f"the key-change leaf is not JSON: {e}") from None
    if not isinstance(v, dict) or v.get("kind") != "dedi-keys" or set(v) != _LEAF_MEMBERS:
        raise ValueError(f"a key-change leaf is an object of exactly {sorted(_LEAF_MEMBERS)}, of kind dedi-keys")
    domain, keys, updated_at = v["domain"], v["keys"], v["updated_at"]
    if not _text(domain) or not _text(updated_at) or not isinstance(keys, list) or not keys:
        raise ValueError("a key-change leaf has a domain, an updated_at and at least one key")
    for k in keys:
        if not isinstance(k, dict) or set(k) != set(_KEY_MEMBERS) or not _text(k["kid"]) or not _text(k["x"]):
            raise ValueError("each key of a key-change leaf is exactly kid, kty, crv and x, with a kid and an x")
        if not isinstance(k["kty"], str) or not isinstance(k["crv"], str):
            raise ValueError("a key's kty and crv are text")
    kids = [k["kid"] for k in keys]
    if len(set(kids)) != len(kids):
        raise ValueError("a kid stands twice in the key-change leaf")
    if not _text(v["digest"]) or canonicalize(
        {"kind": "dedi-keys", "domain": domain, "keys": sort_dedi_keys(keys), "updated_at": updated_at, "digest": v["digest"]}
    ) != raw:
        raise ValueError("the key-change leaf is not in its canonical form")
    return v
