"""Offline verification of lookup responses.

The digest of an entry is recomputed from the data of its lookup exactly as the service computes
it (Go: ``proof/fields.go``, ``proof/lookup.go``), and the checks of ``svc verify`` run in the
same order, with the reasons worded as the Go verifier words them (the shared vectors in
``sdk/typescript/test/vectors.json`` hold all three verifiers to the same verdicts).
"""

from __future__ import annotations

import datetime
import json
import math
import re
import unicodedata
from dataclasses import dataclass
from typing import Any, Callable

from .canonical import digest_of

__all__ = [
    "FIRST_PROOF_YEAR",
    "MAX_DEPTH",
    "KINDS",
    "VerifyResult",
    "verify_lookup",
    "recompute_digest",
    "proof_type",
    "genesis_hex",
    "parse_json",
    "lookup_data",
]

FIRST_PROOF_YEAR = 2025
"""The first proof-type year a verifier accepts."""

MAX_DEPTH = 256
"""The nesting depth of objects and arrays that the service's strict JSON reader admits."""

KINDS = ("namespace", "registry", "record")

_TYPE_PREFIXES = {"namespace": "SvcNamespaceProof", "registry": "SvcRegistryProof", "record": "SvcRecordProof"}
_ID_FIELDS = {"namespace": "namespace_id", "registry": "registry_id", "record": "record_id"}
_DIGEST_FORM = re.compile(r"0x[0-9a-f]{64}\Z")
_NO_DATA = 'the input holds no lookup data (want {"message":…, "data":{…}})'


@dataclass(frozen=True)
class VerifyResult:
    """What verify_lookup found: ``ok`` and, when it verifies, the entry's id, version and
    digest; otherwise ``reason``, the first check that failed, worded as ``svc verify`` words it."""

    ok: bool
    kind: str
    id: str = ""
    version: str = ""
    digest: str = ""
    reason: str = ""

    def __bool__(self) -> bool:
        return self.ok


class _Duplicate(ValueError):
    pass


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in pairs:
        if k in out:
            raise _Duplicate(f"duplicate object key {json.dumps(k)}")
        out[k] = v
    return out


def _constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def parse_json(text: str | bytes) -> Any:
    """Parses JSON text as JavaScript's JSON.parse reads it (every number a float64), refusing
    what the service's strict reader refuses in the grammar: NaN and Infinity literals and
    duplicate object keys. Raises ValueError."""
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode("utf-8")
    return json.loads(text, parse_int=float, parse_constant=_constant, object_pairs_hook=_pairs)


def verify_lookup(kind: str, lookup_response: Any, *, now: datetime.datetime | None = None) -> VerifyResult:
    """Recomputes the digest of a lookup response and checks its proof, offline, trusting nothing
    but the response itself. It runs the checks of ``svc verify``, in the same order:

    - ``proof`` is an object; ``proof.type`` is ``Svc<Kind>Proof<YYYY>`` for this kind, with a
      year from 2025 up to the UTC year of ``now`` (default: the current time);
    - ``proof.digest`` is ``0x`` + 64 lowercase hex digits and equals ``data.digest`` when present;
    - ``proof.namespace_did``, ``proof.registry_identifier`` and ``proof.record_identifier``
      match the data's identifiers (as the kind has them);
    - the digest recomputed from the kind's digest fields (RFC 8785, BLAKE2b-256; ``genesis`` in
      its timestamp or hex form) equals ``proof.digest``.

    ``lookup_response`` is the body of a lookup (``{"message", "data"}``), the body of a
    verify-*-lookup request (``{"<kind>_lookup_response": {...}}``), the ``data`` alone, or any of
    these as JSON text (str or bytes). It never raises for bad input, only for an unknown kind.

    It does not ask the directory whether it stored that digest: the service's
    ``POST /svc/verify-<kind>-lookup`` does that (with an API key).
    """
    if kind not in _TYPE_PREFIXES:
        raise ValueError(f'verify_lookup: kind must be "namespace", "registry" or "record", not {kind!r}')

    def fail(reason: str) -> VerifyResult:
        return VerifyResult(ok=False, kind=kind, reason=reason)

    try:
        value = lookup_response
        if isinstance(value, (str, bytes, bytearray)):
            try:
                value = parse_json(value)
            except (ValueError, RecursionError) as e:
                return fail(f"invalid JSON: {e}")
        problem = _check_json(value)
        if problem:
            return fail(problem)
        data = lookup_data(value, kind)
        if data is None:
            return fail(_NO_DATA)
        when = now or datetime.datetime.now(datetime.timezone.utc)
        if when.tzinfo is not None:
            when = when.astimezone(datetime.timezone.utc)
        reason = _check_lookup(kind, data, when.year)
        if reason:
            return fail(reason)
        return VerifyResult(
            ok=True,
            kind=kind,
            id=_str(data, _ID_FIELDS[kind]),
            version=_str(data, "version"),
            digest=_str(data["proof"], "digest"),
        )
    except Exception as e:  # only a value no JSON text gives gets here
        return fail(f"cannot verify: {e}")


def recompute_digest(kind: str, data: dict[str, Any]) -> str:
    """Recomputes the digest of lookup data (the ``data`` of a lookup response) from the kind's
    digest fields, without checking the proof. Raises ValueError naming the first field that is
    missing or of the wrong type."""
    if kind not in _TYPE_PREFIXES:
        raise ValueError(f"unknown kind {kind!r}")
    problem = _check_json(data)
    if problem:
        raise ValueError(problem)
    r = _FieldReader(data)
    fields = _digest_fields(kind, r)
    if r.err:
        raise ValueError(r.err)
    return digest_of(fields)


def proof_type(kind: str, year: int) -> str:
    """The proof type name of a kind of entry made in a UTC year, e.g. ``SvcRecordProof2026``."""
    if kind not in _TYPE_PREFIXES:
        raise ValueError(f"unknown kind {kind!r}")
    if not isinstance(year, int) or isinstance(year, bool) or not 0 <= year <= 9999:
        raise ValueError(f"proof_type: year {year!r} is not 0..9999")
    return f"{_TYPE_PREFIXES[kind]}{year:04d}"


def genesis_hex(timestamp: str) -> str:
    """The namespace lookup form of genesis: ``0x`` + lowercase hex of the timestamp's UTF-8 bytes."""
    return "0x" + timestamp.encode("utf-8").hex()


def lookup_data(v: Any, kind: str) -> dict[str, Any] | None:
    """Finds the data of a lookup as ``svc verify`` does: ``{message, data}``, the verify request
    form ``{<kind>_lookup_response: {message, data}}``, or the data itself (it has a proof)."""
    if not isinstance(v, dict):
        return None
    m = v
    inner = m.get(f"{kind}_lookup_response")
    if isinstance(inner, dict):
        m = inner
    d = m.get("data")
    if isinstance(d, dict):
        return d
    if "proof" in m:
        return m
    return None


def _check_lookup(kind: str, data: dict[str, Any], max_year: int) -> str:
    p = data.get("proof")
    if not isinstance(p, dict):
        return "data.proof is missing or not an object"
    ptype = _str(p, "type")
    parsed = _parse_proof_type(ptype)
    if isinstance(parsed, str):
        return f"proof.type: {parsed}"
    pkind, year = parsed
    if pkind != kind:
        return f"proof.type {ptype} is a {pkind} proof, not a {kind} proof"
    if year < FIRST_PROOF_YEAR or year > max_year:
        return f"proof.type {ptype} has a year outside {FIRST_PROOF_YEAR}..{max_year}"
    claimed = _str(p, "digest")
    if not _DIGEST_FORM.match(claimed):
        return "proof.digest is missing or not 0x + 64 hex digits"
    if "digest" in data and data["digest"] != claimed:
        return "data.digest differs from proof.digest"
    if _str(p, "namespace_did") != _str(data, "namespace_id"):
        return "proof.namespace_did differs from data.namespace_id"
    if kind != "namespace" and _str(p, "registry_identifier") != _str(data, "registry_id"):
        return "proof.registry_identifier differs from data.registry_id"
    if kind == "record" and _str(p, "record_identifier") != _str(data, "record_id"):
        return "proof.record_identifier differs from data.record_id"
    r = _FieldReader(data)
    fields = _digest_fields(kind, r)
    if r.err:
        return r.err
    computed = digest_of(fields)
    if computed != claimed:
        return f"recomputed digest {computed} differs from proof.digest {claimed}"
    return ""


def _digest_fields(kind: str, r: "_FieldReader") -> dict[str, Any]:
    # Read in the order the Go verifier reads them, so the first problem reported is the same.
    # A namespace's state is a digest field only when it is not live (a tombstone's deleted):
    # absent, "" and live leave it out, so live versions digest as before namespaces had a state.
    if kind == "namespace":
        fields: dict[str, Any] = {
            "namespace_id": r.str("namespace_id"),
            "description": r.str("description"),
            "genesis": r.genesis(),
            "created_by": r.str("created_by"),
            "version": r.str("version"),
            "version_count": r.integer("version_count"),
        }
        state = r.optional_str("state")
        if state not in ("", "live"):
            fields["state"] = state
        return fields
    if kind == "registry":
        return {
            "namespace_id": r.str("namespace_id"),
            "registry_name": r.str("registry_name"),
            "description": r.str("description"),
            "schema": r.object("schema"),
            "tag": r.str("tag"),
            "version": r.str("version"),
            "version_count": r.integer("version_count"),
            "state": r.str("state"),
            "genesis": r.genesis(),
            "created_by": r.str("created_by"),
            "meta": r.object("meta"),
            "ttl": r.integer("ttl"),
        }
    return {
        "namespace_id": r.str("namespace_id"),
        "registry_id": r.str("registry_id"),
        "registry_name": r.str("registry_name"),
        "record_name": r.str("record_name"),
        "description": r.str("description"),
        "details": r.object("details"),
        "version": r.str("version"),
        "version_count": r.integer("version_count"),
        "state": r.str("state"),
        "genesis": r.genesis(),
        "created_by": r.str("created_by"),
        "meta": r.object("meta"),
        "ttl": r.integer("ttl"),
    }


class _FieldReader:
    """Reads digest fields out of lookup data, remembering the first problem."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data
        self.err = ""

    def _note(self, reason: str) -> None:
        if not self.err:
            self.err = reason

    def str(self, name: str) -> str:
        v = self.data.get(name)
        if not isinstance(v, str):
            self._note(f"data.{name} is missing or not a string")
            return ""
        return v

    def optional_str(self, name: str) -> str:
        """A text field lookup data may leave out ("" then): a namespace's state."""
        if name not in self.data:
            return ""
        v = self.data[name]
        if not isinstance(v, str):
            self._note(f"data.{name} is not a string")
            return ""
        return v

    def integer(self, name: str) -> int:
        v = self.data.get(name)
        f = _as_float(v)
        if f is None or not f.is_integer() or abs(f) > 2**53:
            self._note(f"data.{name} is missing or not an integer")
            return 0
        return int(f)  # -0 is written 0

    def object(self, name: str) -> dict[str, Any]:
        v = self.data.get(name)
        if not isinstance(v, dict):
            self._note(f"data.{name} is missing or not an object")
            return {}
        return v

    def genesis(self) -> str:
        g = _genesis_from_either(self.str("genesis"))
        if isinstance(g, tuple):
            self._note(f"data.genesis: {g[0]}")
            return ""
        return g


def _as_float(v: Any) -> float | None:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    try:
        f = float(v)
    except OverflowError:
        return None
    return f if math.isfinite(f) else None


def _genesis_from_either(s: str) -> str | tuple[str]:
    # Text starting with "0x" is the hex form: a non-empty, even number of hex digits (either
    # case) that decode to UTF-8 (Go: proof.GenesisFromEither).
    if not s.startswith("0x"):
        return s
    digits = s[2:]
    if not digits or len(digits) % 2 or not re.fullmatch(r"[0-9a-fA-F]*", digits):
        return (f"genesis {go_quote(s)} is neither a timestamp nor its hex form",)
    try:
        return bytes.fromhex(digits).decode("utf-8")
    except UnicodeDecodeError:
        return (f"genesis {go_quote(s)} does not decode to UTF-8 text",)


def _parse_proof_type(s: str) -> tuple[str, int] | str:
    for kind in KINDS:
        prefix = _TYPE_PREFIXES[kind]
        if not s.startswith(prefix):
            continue
        rest = s[len(prefix):]
        if len(rest.encode("utf-8", "surrogatepass")) != 4:
            break
        if not re.fullmatch(r"[0-9]{4}", rest):
            return f"proof type {go_quote(s)}: the year must be four digits"
        return kind, int(rest)
    return f"proof type {go_quote(s)} is not Svc{{Namespace,Registry,Record}}Proof<YYYY>"


_NAMED = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v"}


def go_quote(s: str) -> str:
    """Writes s as Go's %q (strconv.Quote) does: in double quotes, ``"`` and ``\\`` escaped,
    ``\\a \\b \\f \\n \\r \\t \\v``, other control characters as ``\\x..``, characters that are
    not printable (not a letter, mark, number, punctuation or symbol) as ``\\u....`` or
    ``\\U........``, the rest as is."""
    out = ['"']
    for ch in s:
        c = ord(ch)
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch in _NAMED:
            out.append(_NAMED[ch])
        elif c < 0x20 or c == 0x7F:
            out.append("\\x%02x" % c)
        elif ch == " " or unicodedata.category(ch)[0] in "LMNPS":
            out.append(ch)
        elif c < 0x10000:
            out.append("\\u%04x" % c)
        else:
            out.append("\\U%08x" % c)
    out.append('"')
    return "".join(out)


def _escape_pointer_token(k: str) -> str:
    return k.replace("~", "~0").replace("/", "~1")


def _bad_text(s: str, what: str) -> str:
    for ch in s:
        if ch == "\x00":
            return f"NUL character (\\u0000) in {what}"
        if "\ud800" <= ch <= "\udfff":
            # Python's json joins escaped pairs into one character: a surrogate left is alone.
            return f"unpaired UTF-16 surrogate \\u{ord(ch):04x} in {what}"
    return ""


def _check_json(root: Any) -> str:
    """Refuses what the service's strict JSON reader refuses in a lookup and what has no JSON
    form: nesting deeper than MAX_DEPTH, NUL characters and lone surrogates in strings and keys,
    numbers that are not finite, and values that are not JSON. Returns the reason with the JSON
    pointer of the place, or ""."""
    stack: list[tuple[Any, str, int]] = [(root, "", 0)]
    while stack:
        v, path, depth = stack.pop()
        at: Callable[[str], str] = lambda reason, path=path: f"invalid JSON at {path or 'the top level'}: {reason}"
        if v is None or isinstance(v, bool):
            continue
        if isinstance(v, str):
            bad = _bad_text(v, "a string")
            if bad:
                return at(bad)
            continue
        if isinstance(v, (int, float)):
            if _as_float(v) is None:
                return at(f"{_js_number_name(v)} is not a JSON number")
            continue
        if not isinstance(v, (dict, list)):
            return at(f"a value of type {type(v).__name__} is not JSON")
        if depth + 1 > MAX_DEPTH:  # a cycle ends here too
            return at(f"nesting deeper than {MAX_DEPTH} levels")
        if isinstance(v, list):
            for i in range(len(v) - 1, -1, -1):
                stack.append((v[i], f"{path}/{i}", depth + 1))
            continue
        keys = list(v)
        for k in reversed(keys):
            if not isinstance(k, str):
                return at(f"an object key of type {type(k).__name__} is not JSON")
            bad = _bad_text(k, "an object key")
            if bad:
                return at(bad)
            stack.append((v[k], f"{path}/{_escape_pointer_token(k)}", depth + 1))
    return ""


def _js_number_name(v: Any) -> str:
    try:
        f = float(v)
    except OverflowError:
        return str(v)
    if math.isnan(f):
        return "NaN"
    return "Infinity" if f > 0 else "-Infinity"


def _str(m: dict[str, Any], key: str) -> str:
    v = m.get(key)
    return v if isinstance(v, str) else ""
