"""Offline verification of lookup responses.

The digest of an entry is recomputed from the data of its lookup exactly as the service computes
it (Go: ``proof/fields.go``, ``proof/lookup.go``), and the checks of ``svc verify`` run in the
same order, with the reasons worded as the Go verifier words them (the shared vectors in
``sdk/typescript/test/vectors.json`` hold all three verifiers to the same verdicts). The digest
fields are read in digest.py and the JSON text checked in jsontext.py; this module exports
MAX_DEPTH, parse_json, go_quote and genesis_hex from there as before.
"""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass
from typing import Any

from .canonical import digest_of
from .digest import _digest_fields, _FieldReader, genesis_hex
from .jsontext import MAX_DEPTH, _check_json, go_quote, parse_json

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


def _str(m: dict[str, Any], key: str) -> str:
    v = m.get(key)
    return v if isinstance(v, str) else ""
