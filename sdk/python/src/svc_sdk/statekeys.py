"""The state index's map function (docs/state-index.md, "Keys"): the keys a log leaf names, and
the leaf of kind ``domain`` (a namespace gained or lost a verified domain), which the index keys
by its domain. Each parser accepts only the canonical text of its kind, as the Go parsers of
translog/leaf do, and raises ValueError for anything else."""

from __future__ import annotations

import json
import re
from datetime import datetime, timezone
from typing import Any

from .canonical import canonicalize
from .logkeys import key_change_leaf_form
from .stateindex import StateKey, encode_state_key

__all__ = ["domain_leaf", "parse_domain_leaf", "parse_state_leaf", "keys_of", "is_normal_domain"]

_LABEL = re.compile(r"[a-z0-9-]{1,63}\Z")
_TIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z\Z")
_METHODS = ("self_dns", "self_http", "request_other_namespace")
_SURROGATE = re.compile("[\ud800-\udfff]")
# 32 bytes in standard padded base64: 43 characters, the last with its two low bits clear, and '='.
_ROOT = re.compile(r"[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=\Z")


def _object(text: str | bytes, members: set[str], numbers: frozenset[str] = frozenset()) -> tuple[str, dict[str, Any]]:
    # The text and its object, whose members are exactly members, each a string (without a lone
    # surrogate) but those in numbers, which are integers.
    raw = text.decode("utf-8") if isinstance(text, (bytes, bytearray)) else text
    try:
        v = json.loads(raw)
    except ValueError as e:
        raise ValueError(f"the leaf is not JSON: {e}") from None
    if not isinstance(v, dict) or set(v) != members:
        raise ValueError(f"the leaf is not an object of exactly {sorted(members)}")
    for k, x in v.items():
        if k in numbers:
            if not isinstance(x, int) or isinstance(x, bool):
                raise ValueError(f"the leaf's {k} is not an integer")
        elif not isinstance(x, str) or _SURROGATE.search(x):
            raise ValueError(f"the leaf's {k} is not text")
    return raw, v


def is_normal_domain(d: str) -> bool:
    """Whether d is a normalized domain: labels of 1 to 63 of [a-z0-9-], not starting or ending
    with '-', at least two, at most 253 characters."""
    if not isinstance(d, str) or not 0 < len(d) <= 253:
        return False
    labels = d.split(".")
    return len(labels) >= 2 and all(_LABEL.match(lb) and lb[0] != "-" and lb[-1] != "-" for lb in labels)


def _is_domain_time(t: str) -> bool:
    if not _TIME.match(t):
        return False
    try:
        d = datetime.strptime(t, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc)
    except ValueError:
        return False
    return d.strftime("%Y-%m-%dT%H:%M:%S.") + f"{d.microsecond // 1000:03d}Z" == t


def _check_domain(m: dict[str, Any]) -> None:
    if m.get("kind") != "domain":
        raise ValueError("the leaf's kind is not domain")
    if not is_normal_domain(m.get("domain")):
        raise ValueError(f"the domain {m.get('domain')!r} is not normalized (lowercase, punycode, a dot, no trailing dot)")
    ns = m.get("namespace_id")
    if not isinstance(ns, str) or not ns or _SURROGATE.search(ns):
        raise ValueError("the domain leaf's namespace_id is empty")
    if m.get("method") not in _METHODS:
        raise ValueError(f"the method {m.get('method')!r} is not one of {', '.join(_METHODS)}")
    if m.get("change") not in ("gained", "lost"):
        raise ValueError(f"the change {m.get('change')!r} is not gained or lost")
    if not isinstance(m.get("time"), str) or not _is_domain_time(m["time"]):
        raise ValueError(f"the time {m.get('time')!r} is not UTC with milliseconds (2026-11-27T20:00:00.000Z)")


def domain_leaf(domain: str, namespace_id: str, method: str, change: str, time: str) -> str:
    """The text of a domain leaf: RFC 8785 canonical JSON of {kind "domain", change, domain,
    method, namespace_id, time}. Raises ValueError on a field a domain leaf may not hold."""
    m = {"kind": "domain", "change": change, "domain": domain, "method": method, "namespace_id": namespace_id, "time": time}
    _check_domain(m)
    return canonicalize(m)


def parse_domain_leaf(text: str | bytes) -> dict[str, Any]:
    """Reads a domain leaf: exactly its members, each as a domain leaf may hold it, and the text
    byte for byte as domain_leaf writes it. Returns the members; raises ValueError otherwise."""
    raw, m = _object(text, {"change", "domain", "kind", "method", "namespace_id", "time"})
    _check_domain(m)
    if canonicalize(m) != raw:
        raise ValueError("the domain leaf is not in its canonical form")
    return m


def parse_state_leaf(text: str | bytes) -> dict[str, Any]:
    """Reads a state leaf (the log's commitment to its index root over the leaves before it):
    exactly kind "state", root (32 bytes in standard padded base64), size and time (integers
    from 0 to 2^53 - 1), the text byte for byte in its canonical form. Returns the members;
    raises ValueError otherwise."""
    raw, m = _object(text, {"kind", "root", "size", "time"}, frozenset({"size", "time"}))
    if m["kind"] != "state":
        raise ValueError("the leaf's kind is not state")
    if not _ROOT.match(m["root"]):
        raise ValueError("the state leaf's root is not 32 bytes in standard padded base64")
    for k in ("size", "time"):
        if not 0 <= m[k] < 1 << 53:
            raise ValueError(f"the state leaf's {k} is not an integer from 0 to 2^53 - 1")
    if canonicalize(m) != raw:
        raise ValueError("the state leaf is not in its canonical form")
    return m


def _version_leaf_id(text: str | bytes, kind: str) -> str:
    members = {"digest", "kind", "namespace_id", "version", "version_count"}
    if kind != "namespace":
        members.add("registry_id")
    if kind == "record":
        members.add("record_id")
    raw, m = _object(text, members, frozenset({"version_count"}))
    if m["version_count"] < 1 or m["version_count"] >= 1 << 63 or canonicalize(m) != raw:
        raise ValueError(f"the leaf is not a canonical {kind} leaf")
    return m[{"namespace": "namespace_id", "registry": "registry_id"}.get(kind, "record_id")]


def _well_formed(v: Any) -> bool:
    # No string of a canonical leaf holds a lone surrogate (Go's decoder would replace it).
    if isinstance(v, str):
        return not _SURROGATE.search(v)
    if isinstance(v, dict):
        return all(_well_formed(k) and _well_formed(x) for k, x in v.items())
    if isinstance(v, list):
        return all(_well_formed(x) for x in v)
    return True


def keys_of(leaf_text: str | bytes) -> list[StateKey]:
    """The map function: the keys the index files a log leaf under, by its kind. A version's
    leaf (namespace, registry, record) names its entry's id; a key change (dedi-keys) its
    publisher's domain; a domain leaf its domain; a state leaf none. No leaf names a registry-name or record-name
    key yet. Raises ValueError when the text is not a canonical leaf of one of these kinds (or
    names a key that has no encoding)."""
    try:
        v = json.loads(leaf_text)
        kind = v.get("kind")
    except (ValueError, AttributeError):
        raise ValueError("the leaf is not a JSON object") from None
    if not _well_formed(v):
        raise ValueError("the leaf holds a string that is not UTF-8 (a lone surrogate)")
    if kind in ("namespace", "registry", "record"):
        key = StateKey("id", (_version_leaf_id(leaf_text, kind),))
    elif kind == "dedi-keys":
        # Its digest is the monitor's to check, not the map's (as translog/leaf.ParseKeys).
        key = StateKey("publisher", (key_change_leaf_form(leaf_text)["domain"],))
    elif kind == "domain":
        key = StateKey("domain", (parse_domain_leaf(leaf_text)["domain"],))
    elif kind == "state":
        parse_state_leaf(leaf_text)  # the log's commitment to the index itself: no key
        return []
    else:
        raise ValueError(f"the leaf is of no kind the index knows ({kind!r})")
    encode_state_key(key)
    return [key]
