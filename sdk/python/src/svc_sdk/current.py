"""Proving the present (docs/state-index.md, "Verifying the present").

Is a version a relying party holds still the entry's latest logged version, as of a checkpoint
the log signed (and, with witness keys, a quorum of witnesses cosigned)?

- ``check_state_answer``: the pure check, the twin of Go's ``stateindex.CheckAnswer``, with the
  same outcome words (``current``, ``superseded``, ``absent``, ``stale_checkpoint``,
  ``bad_proof``, ``fork``);
- ``verify_state_answer``: opens the answer's checkpoint first (the log's key, the witnesses'
  cosignatures and their time) and, given the log's latest checkpoint, checks for a fork, as
  ``svc verify --current`` does;
- ``verify_current``: asks the service for the state answer of a lookup's entry and checks it.

None of them raises for bad input: anything that does not verify is ``bad_proof``.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any, Sequence

from .checkpoint import _b64, verify_checkpoint, verify_cosigned_checkpoint
from .jsontext import parse_json
from .log import log_leaf
from .merkle import leaf_hash, root_from_inclusion_proof, verify_consistency_proof
from .response import SvcError
from .stateindex import StateKey, verify_absence, verify_latest
from .statekeys import keys_of, parse_state_leaf
from .verify import lookup_data, verify_lookup

__all__ = ["CurrentVerdict", "OpenedCheckpoint", "check_state_answer", "verify_state_answer", "verify_current", "OUTCOMES"]

OUTCOMES = ("current", "superseded", "absent", "stale_checkpoint", "bad_proof", "fork")


@dataclass(frozen=True)
class OpenedCheckpoint:
    """A checkpoint whose signature the caller verified: its size and root hash."""

    size: int
    root_hash: bytes


@dataclass(frozen=True)
class CurrentVerdict:
    """What a check of a state answer found: the outcome word and a sentence; the key's latest
    leaf (its log index, text, version and version_count) when the answer proved one; the
    checkpoint's size; and the time the age was counted from (Unix milliseconds) and whose
    clock that is (``witnesses`` or ``log``)."""

    outcome: str
    message: str
    latest_index: int | None = None
    latest_leaf: str | None = None
    latest_version: str | None = None
    latest_version_count: int | None = None
    count: int | None = None
    checkpoint_size: int | None = None
    at_ms: int | None = None
    clock: str | None = None

    @property
    def ok(self) -> bool:
        """True only for ``current``."""
        return self.outcome == "current"

    def __str__(self) -> str:
        return f"{self.outcome}: {self.message}"


class _Bad(Exception):
    pass


def go_duration(ms: int) -> str:
    """Milliseconds as Go's time.Duration.String writes them ("1m0s", "1.5s", "3h2m1.004s")."""
    if ms == 0:
        return "0s"
    sign, rest = ("-" if ms < 0 else ""), abs(ms)
    if rest < 1000:
        return f"{sign}{rest}ms"
    h, rest = divmod(rest, 3_600_000)
    m, rest = divmod(rest, 60_000)
    s, frac = divmod(rest, 1000)
    secs = f"{s}" if frac == 0 else f"{s}.{frac:03d}".rstrip("0")
    return sign + (f"{h}h{m}m{secs}s" if h else f"{m}m{secs}s" if m else f"{secs}s")


def _int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _bytes(v: Any, what: str) -> bytes:
    if v is None:
        return b""
    b = _b64(v)
    if b is None:
        raise _Bad(f"the state answer's {what} is not base64")
    return b


def _hash_list(v: Any, what: str) -> list[bytes]:
    if v is None:
        return []
    if not isinstance(v, list):
        raise _Bad(f"the state answer's {what} is not a list")
    return [_bytes(h, f"{what}[{i}]") for i, h in enumerate(v)]


def _leaf(v: Any, what: str) -> tuple[int, str]:
    if not isinstance(v, dict):
        raise _Bad(f"the state answer's {what} is not an object")
    i, text = v.get("log_index", 0), v.get("leaf", "")
    if not _int(i) or not isinstance(text, str):
        raise _Bad(f"the state answer's {what} is not a log index and a leaf text")
    return i, text


def _read(raw: Any) -> dict[str, Any]:
    """Reads a state answer (a dict, or its JSON text) as Go reads it into stateindex.Answer."""
    v = raw
    if isinstance(v, (str, bytes, bytearray)):
        try:
            v = json.loads(v)
        except ValueError as e:
            raise _Bad(f"the state answer is not a state answer's JSON: {e}") from None
    if not isinstance(v, dict):
        raise _Bad("the state answer is not a state answer's JSON")
    k = v.get("key") or {}
    kind, parts = (k.get("kind", ""), k.get("parts") or []) if isinstance(k, dict) else (None, None)
    if not isinstance(kind, str) or not isinstance(parts, list) or not all(isinstance(p, str) for p in parts):
        raise _Bad("the state answer's key is not a kind and its strings")
    count, present, cp = v.get("count", 0), v.get("present", False), v.get("checkpoint", "")
    if not _int(count) or count < 0:
        raise _Bad("the state answer's count is not a count")
    if not isinstance(present, bool):
        raise _Bad("the state answer's present is not true or false")
    if not isinstance(cp, str):
        raise _Bad("the state answer's checkpoint is not text")
    return {
        "key": (kind, tuple(parts)),
        "present": present,
        "count": count,
        "latest": None if v.get("latest") is None else _leaf(v["latest"], "latest"),
        "latest_inclusion": _hash_list(v.get("latest_inclusion"), "latest_inclusion"),
        "list_root": _bytes(v.get("list_root"), "list_root"),
        "list_proof": _hash_list(v.get("list_proof"), "list_proof"),
        "state": _leaf(v.get("state") if v.get("state") is not None else {}, "state"),
        "state_inclusion": _hash_list(v.get("state_inclusion"), "state_inclusion"),
        "proof": _bytes(v.get("proof"), "proof"),
        "checkpoint": cp,
    }


def _included(hashes: list[bytes], cp: OpenedCheckpoint, index: int, text: str) -> str:
    for h in hashes:
        if len(h) != 32:
            return f"a hash of {len(h)} bytes"
    if not 0 <= index < cp.size:
        return f"index {index} is not in a tree of size {cp.size}"
    root = root_from_inclusion_proof(index, cp.size, leaf_hash(text), hashes)
    if root is None or root != cp.root_hash:
        return "the audit path does not lead to the checkpoint's root hash"
    return ""


def _version_leaf(text: str) -> tuple[str, int] | None:
    # A version's leaf (namespace, registry, record; Go: leaf.Parse): its version and version_count.
    try:
        keys_of(text)  # a canonical leaf of its kind
        m = json.loads(text)
    except ValueError:
        return None
    if m.get("kind") not in ("namespace", "registry", "record"):
        return None
    return m["version"], m["version_count"]


def check_state_answer(
    answer: Any,
    checkpoint: OpenedCheckpoint,
    key: StateKey,
    *,
    now_ms: int,
    have: str | None = None,
    max_age_ms: int = 0,
    cosigned_at: int | None = None,
    later: tuple[OpenedCheckpoint, Sequence[bytes]] | None = None,
) -> CurrentVerdict:
    """Checks a state answer (Go: stateindex.CheckAnswer): its checkpoint (opened by the caller)
    ends in its state leaf, which commits the index of every leaf before it; both leaves are in
    the checkpoint's tree; the index proof holds at the state leaf's root; and ``later`` (a
    later checkpoint and the consistency proof to it), when given, extends its tree. It then says
    whether ``have`` (the leaf text of the version held) is the key's latest leaf, an older one
    (``superseded``), whether the key is ``absent``, and whether the answer is older than
    ``max_age_ms`` (``stale_checkpoint``) by ``cosigned_at`` (the witnesses' time, Unix
    seconds) or, when none, by the state leaf's time (the log's clock). ``key`` is any kind of
    key. It never raises."""
    try:
        return _check(answer, checkpoint, key, now_ms, have, max_age_ms, cosigned_at, later)
    except _Bad as e:
        return CurrentVerdict("bad_proof", str(e))
    except Exception as e:
        return CurrentVerdict("bad_proof", f"cannot check the state answer: {e}")


def _check(a: Any, cp: OpenedCheckpoint, key: StateKey, now_ms: int, have: str | None, max_age_ms: int, cosigned_at: int | None, later: Any) -> CurrentVerdict:
    a = _read(a)
    kind, parts = a["key"]
    if kind != key.kind or parts != tuple(key.parts):
        raise _Bad(f"the answer is about the key {kind} [{' '.join(parts)}], not {key}")
    s_index, s_text = a["state"]
    if s_index != cp.size - 1:
        raise _Bad(f"the state leaf (index {s_index}) is not the last leaf of the checkpoint of size {cp.size}")
    try:
        st = parse_state_leaf(s_text)
    except ValueError as e:
        raise _Bad(f"the state leaf: {e}") from None
    if st["size"] != s_index:
        raise _Bad(f"the state leaf at index {s_index} commits the index of {st['size']} leaves, not of the {s_index} before it")
    problem = _included(a["state_inclusion"], cp, s_index, s_text)
    if problem:
        raise _Bad(f"the state leaf is not in the checkpoint's tree: {problem}")
    root = _b64(st["root"]) or b""
    fields: dict[str, Any] = {"checkpoint_size": cp.size}
    count = a["count"]
    if a["present"]:
        latest = a["latest"]
        if latest is None or count == 0 or len(a["list_root"]) != 32:
            raise _Bad("a present key's answer without its latest leaf, count or list root")
        l_index, l_text = latest
        if not 0 <= l_index < st["size"]:
            raise _Bad(f"the latest leaf's index {l_index} is not among the {st['size']} leaves the state commits")
        problem = _included(a["latest_inclusion"], cp, l_index, l_text)
        if problem:
            raise _Bad(f"the latest leaf is not in the checkpoint's tree: {problem}")
        try:
            keys = keys_of(l_text)
        except ValueError:
            keys = []
        if not any(k.kind == key.kind and tuple(k.parts) == tuple(key.parts) for k in keys):
            raise _Bad(f"the latest leaf is not a leaf of {key}")
        for h in a["list_proof"]:
            if len(h) != 32:
                raise _Bad(f"a list proof hash of {len(h)} bytes")
        r = verify_latest(root, key, count, a["list_root"], l_index, a["list_proof"], a["proof"])
        if not r.ok:
            raise _Bad(r.reason)
        outcome = "current"
        v = _version_leaf(l_text)
        fields.update(latest_index=l_index, latest_leaf=l_text, count=count)
        if v is not None:
            fields.update(latest_version=v[0], latest_version_count=v[1])
    else:
        if a["latest"] is not None or count != 0:
            raise _Bad("an absent key's answer names a latest leaf")
        r = verify_absence(root, key, a["proof"])
        if not r.ok:
            raise _Bad(r.reason)
        outcome = "absent"
        fields["count"] = 0
    # A later checkpoint must extend this one.
    if later is not None and later[0].size >= cp.size:
        lc, proof = later
        forked = lc.root_hash != cp.root_hash if lc.size == cp.size else not verify_consistency_proof(cp.size, lc.size, cp.root_hash, lc.root_hash, list(proof))
        if forked:
            return CurrentVerdict(
                "fork",
                f"the answer's tree of size {cp.size} (root {cp.root_hash.hex()}) is not a prefix of the log's checkpoint "
                f"of size {lc.size} (root {lc.root_hash.hex()}): the log shows two histories",
                checkpoint_size=cp.size,
            )
    # Its age.
    at, clock, fields["clock"] = st["time"], "the log's own clock (the state leaf's time; no witness was required)", "log"
    if cosigned_at is not None:
        at, clock, fields["clock"] = cosigned_at * 1000, "the witnesses' clock (their cosignature time)", "witnesses"
    fields["at_ms"] = at
    age = int(now_ms - at)
    if max_age_ms > 0 and age > max_age_ms:
        return CurrentVerdict(
            "stale_checkpoint", f"the checkpoint of size {cp.size} is {go_duration(age)} old by {clock}, more than the {go_duration(max_age_ms)} allowed", **fields
        )
    as_of = f"as of the checkpoint of size {cp.size} (the index of the first {st['size']} leaves), {go_duration(age)} old by {clock}"
    if outcome == "absent":
        return CurrentVerdict("absent", f"{key} has no leaf in the log {as_of}", **fields)
    if have is None or have == fields["latest_leaf"]:
        return CurrentVerdict("current", f"the version held is the latest of {key} (leaf {fields['latest_index']}, {count} leaves) {as_of}", **fields)
    held = _version_leaf(have)
    latest_vc = fields.get("latest_version_count")
    if held is not None and latest_vc is not None and held[1] > latest_vc:
        return CurrentVerdict(
            "stale_checkpoint",
            f"the version held (version_count {held[1]}) is newer than the latest the checkpoint of size {cp.size} knows "
            f"(version_count {latest_vc}): the answer predates it",
            **fields,
        )
    name = f"version {fields['latest_version']} (version_count {latest_vc})" if latest_vc is not None else "its latest leaf"
    return CurrentVerdict(
        "superseded", f"a newer version of {key} exists: {name}, at log index {fields['latest_index']} ({count} leaves) {as_of}", **fields
    )


def _checkpoint_text(answer: Any) -> str:
    try:
        return _read(answer)["checkpoint"]
    except _Bad:
        return ""


def verify_state_answer(
    answer: Any,
    key: StateKey,
    have: str | None,
    *,
    log_key: str,
    now_ms: int,
    witness_keys: Sequence[str] = (),
    quorum: int | None = None,
    max_age_ms: int = 0,
    later_checkpoint: str | bytes | None = None,
    consistency: Any = None,
) -> CurrentVerdict:
    """Opens a state answer's checkpoint with the log's key (with ``witness_keys``: also a
    quorum's cosignatures, whose time the age is counted from: of the quorum's cosignatures
    sorted newest first, the quorum-th), then checks the answer with check_state_answer, as
    ``svc verify --current`` does. ``later_checkpoint`` (the log's latest checkpoint text) and
    ``consistency`` (the hashes from the answer's tree to it, base64, or the body of
    ``GET /svc/log/consistency``), when given, are the fork check. It never raises."""
    try:
        text = _checkpoint_text(answer)
        if not text:
            return CurrentVerdict("bad_proof", "the state answer carries no checkpoint")
        if witness_keys:
            r = verify_cosigned_checkpoint(text, log_key, list(witness_keys), quorum)
        else:
            r = verify_checkpoint(text, log_key)
        if not r.ok:
            return CurrentVerdict("bad_proof", f"the answer's checkpoint: {r.reason}")
        later = None
        if later_checkpoint is not None:
            lc = verify_checkpoint(later_checkpoint, log_key)
            if not lc.ok:
                return CurrentVerdict("bad_proof", f"the log's latest checkpoint: {lc.reason}")
            p = consistency if consistency is not None else []
            if isinstance(p, (str, bytes, bytearray)):
                p = json.loads(p)
            hashes = p.get("hashes") if isinstance(p, dict) else p
            if not isinstance(hashes, list):
                return CurrentVerdict("bad_proof", "the consistency proof has no hashes")
            proof = [h if isinstance(h, (bytes, bytearray)) else _b64(h) for h in hashes]
            if any(h is None or len(h) != 32 for h in proof):
                return CurrentVerdict("bad_proof", "the consistency proof: a hash is not 32 bytes")
            later = (OpenedCheckpoint(lc.size, lc.root_hash), proof)
        return check_state_answer(
            answer,
            OpenedCheckpoint(r.size, r.root_hash),
            key,
            now_ms=now_ms,
            have=have,
            max_age_ms=max_age_ms,
            cosigned_at=r.cosigned_at if witness_keys else None,
            later=later,
        )
    except Exception as e:
        return CurrentVerdict("bad_proof", f"cannot check the state answer: {e}")


def verify_current(
    client: Any,
    kind: str,
    lookup: Any,
    *,
    log_key: str,
    witness_keys: Sequence[str] = (),
    quorum: int | None = None,
    max_age_ms: int = 0,
    fork_check: bool = True,
    now_ms: int | None = None,
) -> CurrentVerdict:
    """Is the version of a lookup (its body, bytes or text or parsed) the entry's latest logged
    version? It checks the lookup's digest (verify_lookup: ``bad_proof`` when it fails), asks the
    service (``client``, a ``Client``) for the state answer of the entry's id
    (``GET /svc/log/state/{id}``: a 200, or a 404 holding the absence proof), opens its
    checkpoint with the log's key (and the witnesses' cosignatures), and, unless ``fork_check``
    is false, checks that the log's latest checkpoint extends its tree; the outcome is
    ``current``, ``superseded`` (naming the latest version, its version_count and log index),
    ``absent``, ``stale_checkpoint``, ``bad_proof`` or ``fork``, with a sentence.

    A stale instance, cache or mirror that serves an older version with its own valid inclusion
    proof passes verify_lookup and verify_inclusion; here it is ``superseded``.

    Raises SvcError when the service does not answer the state query (503 while its index
    catches up, say) or the latest checkpoint; every verdict on what it did answer is returned.
    """
    checked = verify_lookup(kind, lookup)
    if not checked.ok:
        return CurrentVerdict("bad_proof", f"the lookup does not verify: {checked.reason}")
    value = parse_json(lookup) if isinstance(lookup, (str, bytes, bytearray)) else lookup
    try:
        have = log_leaf(kind, lookup_data(value, kind) or {})
    except ValueError as e:
        return CurrentVerdict("bad_proof", str(e))
    res = client.get_log_state(checked.id)
    if res.status not in (200, 404):
        raise SvcError(res)
    answer = res.body
    key = StateKey("id", (checked.id,))
    now = int(time.time() * 1000) if now_ms is None else now_ms
    opts: dict[str, Any] = dict(log_key=log_key, now_ms=now, witness_keys=witness_keys, quorum=quorum, max_age_ms=max_age_ms)
    first = verify_state_answer(answer, key, have, **opts)
    if not fork_check or first.outcome == "bad_proof" or first.checkpoint_size is None:
        return first
    # The fork check: the log's latest checkpoint and, when it is larger than the answer's, the
    # consistency proof to it.
    latest = client.get_log_checkpoint().raise_for_status().text
    lc = verify_checkpoint(latest, log_key)
    if not lc.ok:
        return CurrentVerdict("bad_proof", f"the log's latest checkpoint: {lc.reason}")
    consistency: Any = []
    if lc.size > first.checkpoint_size:
        consistency = client.get_log_consistency(from_=first.checkpoint_size, to=lc.size).raise_for_status().body
    return verify_state_answer(answer, key, have, later_checkpoint=latest, consistency=consistency, **opts)
