"""The Trust Registry Query Protocol v2.0 (docs/trqp.md): ``trqp`` asks the service's
``POST /authorization`` or ``POST /recognition``, checks the answer's shape against TRQP's
schemas (trqpshape.py), and checks its evidence: the version that decided recomputes to its
digest (verify_lookup), its leaf is in the log under the log's key (verify_inclusion), and the
state proof shows that what decided is current, or that the name asked is not listed
(``check_state``: by default the SDK's verify_state_answer, current.py)."""

from __future__ import annotations

import json
import re
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from typing import Any, Callable

from .current import verify_state_answer
from .log import log_leaf, verify_inclusion
from .stateindex import StateKey
from .trqpshape import check_trqp_document
from .verify import verify_lookup


@dataclass(frozen=True)
class StateVerdict:
    """A state check's outcome, as ``svc verify --current`` words it (current, superseded,
    absent, stale_checkpoint, bad_proof, fork), and its sentence."""

    outcome: str
    message: str = ""


StateCheck = Callable[[Any, StateKey, "str | None", str], StateVerdict]
"""Checks a state answer (the JSON the answer's ``svc_state_url`` served, with status 200 or
404) about a key: its checkpoint signed by the log's key (the last argument), the state leaf and
the latest leaf in its tree, the index proof at the state leaf's root, and whether ``have`` (the
leaf text of the version the evidence names; None for a name's absence) is the key's latest
leaf. The Python twin of Go's stateindex.CheckAnswer."""


def default_state_check(answer: Any, key: StateKey, have: "str | None", log_key: str) -> StateVerdict:
    """The default state check: the SDK's verify_state_answer under the log's key, now, with no
    age bound (pass your own check for witnesses' cosignatures or a maximum age)."""
    v = verify_state_answer(answer, key, have, log_key=log_key, now_ms=int(time.time() * 1000))
    return StateVerdict(v.outcome, v.message)


@dataclass(frozen=True)
class TrqpEvidence:
    """What the evidence of an answer showed."""

    entry: str
    """record or registry: the kind of the version that decided."""
    version: str
    digest: str
    lookup: dict[str, Any]
    """The data of that version's lookup, its digest recomputed."""
    log_index: int
    """The index of its leaf, in the tree of a checkpoint signed by the log's key."""
    state: StateVerdict
    """current, superseded (accepted for a query about a past time only) or absent."""


@dataclass(frozen=True)
class TrqpResult:
    """A checked answer (``ok``, ``yes``, ``message``, the ``answer`` as served, its
    ``evidence``: None for a false answer without evidence), or ``reason``; an error answer
    also has its ``status`` and Problem Details document (``problem``)."""

    ok: bool
    yes: bool = False
    message: str = ""
    answer: dict[str, Any] = field(default_factory=dict)
    evidence: TrqpEvidence | None = None
    reason: str = ""
    status: int = 0
    problem: dict[str, Any] | None = None
    not_yet_logged: bool = False
    """The version that decided is not in the log yet: ask again after the log's next checkpoint."""

    def __bool__(self) -> bool:
        return self.ok


class _Refused(Exception):
    def __init__(self, result: TrqpResult) -> None:
        super().__init__(result.reason)
        self.result = result


def _refuse(reason: str, **extra: Any) -> _Refused:
    return _Refused(TrqpResult(ok=False, reason=reason, **extra))


def trqp(
    kind: str,
    query: dict[str, Any],
    *,
    base_url: str,
    log_key: str,
    check_state: StateCheck = default_state_check,
    opener: urllib.request.OpenerDirector | None = None,
    timeout: float = 30.0,
) -> TrqpResult:
    """Asks a TRQP query (``kind`` authorization or recognition; ``query`` its body:
    entity_id, authority_id, action, resource and an optional context of strings) and checks
    the answer and its evidence against the log's verifier key ``log_key`` (obtained out of
    band, never from the service). It never raises: a failed check, an error answer and a
    network failure are a result whose ``ok`` is false."""
    try:
        return _ask(kind, query, _Http(base_url, opener, timeout), log_key, check_state)
    except _Refused as e:
        return e.result
    except Exception as e:  # a network failure, a malformed answer
        return TrqpResult(ok=False, reason=f"cannot ask the {kind} query: {e}")


class _Http:
    def __init__(self, base_url: str, opener: urllib.request.OpenerDirector | None, timeout: float) -> None:
        self.base = base_url.rstrip("/")
        self.opener = opener or urllib.request.build_opener()
        self.timeout = timeout

    def call(self, path: str, body: bytes | None = None) -> tuple[int, str, bytes, Any]:
        """GETs (or, with a body, POSTs) a path of the service: status, content type, bytes, JSON (None when not JSON)."""
        if not path.startswith("/") or path.startswith("//"):
            raise _refuse(f"{path!r} is not a path of the service")
        headers = {"Accept": "application/json"}
        if body is not None:
            headers["Content-Type"] = "application/json"
        req = urllib.request.Request(self.base + path, data=body, headers=headers, method="POST" if body is not None else "GET")
        try:
            with self.opener.open(req, timeout=self.timeout) as r:
                status, ctype, raw = r.status, r.headers.get("Content-Type", ""), r.read(16 << 20)
        except urllib.error.HTTPError as e:
            status, ctype, raw = e.code, e.headers.get("Content-Type", ""), e.read(16 << 20)
        try:
            parsed = json.loads(raw)
        except ValueError:
            parsed = None
        return status, ctype, raw, parsed


def _ask(kind: str, query: dict[str, Any], http: _Http, log_key: str, check_state: StateCheck) -> TrqpResult:
    reason = check_trqp_document(kind, "request", query)
    if reason:
        raise _refuse(f"the query: {reason}")
    status, ctype, raw, a = http.call(f"/{kind}", json.dumps(query).encode())
    if status != 200:
        problem = a if ctype.startswith("application/problem+json") and isinstance(a, dict) else None
        detail = f"{problem.get('title')}: {problem.get('detail')}" if problem else raw.decode(errors="replace")
        raise _refuse(f"the {kind} query answered {status}: {detail}", status=status, problem=problem)
    reason = check_trqp_document(kind, "response", a)
    if reason:
        raise _refuse(f"the answer does not validate against TRQP's schema: {reason}")
    for k in ("entity_id", "authority_id", "action", "resource"):
        if a[k] != query[k]:
            raise _refuse(f"the answer is about {k} {a[k]!r}, not the query's {query[k]!r}")
    yes = a["authorized" if kind == "authorization" else "recognized"]
    message = a.get("message", "")
    c = a.get("context", {})
    if "svc_version" not in c:
        if yes:
            raise _refuse("a true answer without evidence (no svc_version in its context)")
        return TrqpResult(ok=True, yes=yes, message=message, answer=a)
    evidence = _check_evidence(http, log_key, check_state, query, message, c)
    return TrqpResult(ok=True, yes=yes, message=message, answer=a, evidence=evidence)


def _check_evidence(http: _Http, log_key: str, check_state: StateCheck, query: dict[str, Any], message: str, c: dict[str, str]) -> TrqpEvidence:
    entry = c.get("svc_entry", "")
    if entry not in ("record", "registry"):
        raise _refuse(f"svc_entry {entry!r} is neither record nor registry")
    version, digest = c.get("svc_version", ""), c.get("svc_digest", "")
    # 1. The version: its lookup recomputes to the digest the answer names.
    lookup_url = c.get("svc_lookup_url", "")
    if not lookup_url.startswith("/svc/lookup/"):
        raise _refuse(f"svc_lookup_url {lookup_url!r} is not a lookup")
    status, _, raw, lookup = http.call(lookup_url)
    if status != 200:
        raise _refuse(f"the lookup of the version that decided answered {status}: {raw.decode(errors='replace')}")
    v = verify_lookup(entry, lookup)
    if not v.ok:
        raise _refuse(f"the lookup of the version that decided does not verify: {v.reason}")
    if v.version != version or v.digest != digest:
        raise _refuse(f"svc_lookup_url answers version {v.version} with digest {v.digest}, not the evidence's {version} with {digest}")
    data = lookup["data"]
    disagrees = _decision_disagrees(entry, message, data)
    if disagrees:
        raise _refuse(disagrees)
    # 2. Its leaf is in the log's tree, signed by the log's key, at the index the answer names.
    if "svc_log_index" not in c:
        raise _refuse("the version that decided is not in the transparency log yet: ask again after the log's next checkpoint", not_yet_logged=True)
    if not re.fullmatch(r"[0-9]+", c["svc_log_index"]):
        raise _refuse(f"svc_log_index {c['svc_log_index']!r} is not an index")
    log_index = int(c["svc_log_index"])
    if _segments(c.get("svc_proof_url"), "/svc/log/inclusion/") != [version]:
        raise _refuse(f"svc_proof_url {c.get('svc_proof_url')!r} is not the inclusion proof of {version}")
    status, _, raw, inclusion = http.call(c["svc_proof_url"])
    if status != 200:
        raise _refuse(f"the inclusion proof answered {status}: {raw.decode(errors='replace')}")
    inc = verify_inclusion(inclusion, log_key, kind=entry, lookup=lookup)
    if not inc.ok:
        raise _refuse(f"the inclusion proof: {inc.reason}")
    if inc.log_index != log_index:
        raise _refuse(f"the inclusion proof is of log index {inc.log_index}, the answer names {log_index}")
    # 3. The state proof: what decided is current, or the name asked is absent.
    entry_id = data.get(f"{entry}_id")
    parts = _segments(c.get("svc_state_url"), "/svc/log/state/")
    have: str | None
    if parts == [entry_id]:
        key, have = StateKey("id", (entry_id,)), log_leaf(entry, data)
    elif entry == "registry" and message == "not listed" and parts == [data.get("namespace_id"), data.get("registry_name"), query["entity_id"]]:
        key, have = StateKey("record-name", tuple(parts)), None
    else:
        raise _refuse(
            f"svc_state_url {c.get('svc_state_url')!r} is not the state proof of {entry} {entry_id}, nor of the absence of {query['entity_id']!r}"
        )
    status, _, raw, answer = http.call(c["svc_state_url"])
    if status not in (200, 404):
        raise _refuse(f"the state proof answered {status}: {raw.decode(errors='replace')}")
    state = check_state(answer, key, have, log_key)
    fine = (
        (have is None and state.outcome == "absent")
        or (have is not None and state.outcome == "current")
        or (have is not None and state.outcome == "superseded" and "time" in query.get("context", {}))
    )
    if not fine:
        raise _refuse(f"the state proof of {key}: {state.outcome}: {state.message}")
    return TrqpEvidence(entry=entry, version=version, digest=digest, lookup=data, log_index=log_index, state=state)


def _decision_disagrees(entry: str, message: str, data: dict[str, Any]) -> str:
    """How the version that decided disagrees with the answer's message (docs/trqp.md,
    Polarity), or "": a message naming a state must be that version's state."""
    want = ""
    if entry == "record" and message in ("listed and live", "listed as revoked"):
        want = "live"
    elif entry == "record" and message in ("the record is expired", "the listing is expired"):
        if data.get("valid_till") is None:
            return f'the answer says "{message}", but the record version has no valid_till'
    elif entry == "record" and message.startswith("the record is "):
        want = message[len("the record is ") :]
    elif entry == "record" and message.startswith("the listing is "):
        want = message[len("the listing is ") :]
    elif entry == "registry" and message.startswith("the registry is "):
        want = message[len("the registry is ") :]
    elif entry == "registry" and message == "not listed":
        want = "live"
    if want and data.get("state") != want:
        return f'the answer says "{message}", but the {entry} version that decided is {data.get("state")}'
    return ""


def _segments(url: Any, prefix: str) -> list[str] | None:
    """The decoded path segments of url after prefix, or None when it is not under it."""
    if not isinstance(url, str) or not url.startswith(prefix) or "?" in url or "#" in url:
        return None
    return [urllib.parse.unquote(s, errors="strict") for s in url[len(prefix) :].split("/")]
