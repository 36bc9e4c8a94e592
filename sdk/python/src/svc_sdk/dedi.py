"""verify_dedi_file(): the verification of a DeDi file ("Publishing DeDi Files"; the repository's
docs/dedi-files.md), written independently of the Go verifier (package dedi, `svc dedi verify`)
and of the TypeScript SDK's, and ending with the same outcome words. Signatures are detached JWS
(EdDSA, RFC 7797 unencoded payload) over the RFC 8785 canonical JSON of the document without
`proof`."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Callable
from urllib.parse import urlsplit

from . import ed25519
from .canonical import canonicalize

#: The protected header of every DeDi signature, base64url.
DEDI_PROTECTED_HEADER = "eyJhbGciOiJFZERTQSIsImI2NCI6ZmFsc2UsImNyaXQiOlsiYjY0Il19"
_WELL_KNOWN = "/.well-known/dedi.index.json"
_MAX_FILE_BYTES = 64 * 1024 * 1024
_MAX_MANIFEST_BYTES = 1024 * 1024

_DOMAIN = re.compile(r"^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?$", re.IGNORECASE)
_TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$")
# An absolute URI (a source_url, a file's or a schema's URL): information, or fetched only over https.
_URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:\S+$")
# A 0.x version of the format: read by the rules of 0.1.
_VERSION = re.compile(r"^0\.[0-9]+(?:\.[0-9]+)*$")
_DIGEST = re.compile(r"^[a-z0-9-]+:\S+$")
# The members of a private JWK (RFC 7518): refused in a public key.
_PRIVATE = ("d", "p", "q", "dp", "dq", "qi", "oth", "k")
_B64URL = re.compile(r"^[A-Za-z0-9_-]*$")


@dataclass
class DediVerifyResult:
    """The outcome (``authentic``, or the word of the step that failed), why, and whether an
    accepted manifest stood in for one that could not be had."""

    outcome: str
    reason: str = ""
    cached: bool = False
    #: Where the digest the file's bytes met came from: "digests" (the digests document, which
    #: takes precedence), "manifest" (its files[].digest) or "none" (no digest anywhere: the file
    #: rests on its signature and domain binding); "" for an inline file. On a digest_mismatch
    #: whose digest came from the digests document, fetch that document again and verify once
    #: more before refusing the file.
    digest_from: str = ""


class _Failure(Exception):
    def __init__(self, outcome: str, reason: str) -> None:
        super().__init__(reason)
        self.outcome = outcome


def _fail(outcome: str, reason: str) -> Any:
    raise _Failure(outcome, reason)


def verify_dedi_file(
    file: str | bytes | dict[str, Any],
    manifest: str | bytes | dict[str, Any] | None,
    *,
    now: datetime,
    manifest_url: str | None = None,
    accepted_manifest: str | bytes | dict[str, Any] | None = None,
    accepted_file_updated_at: str | None = None,
    validate_record: Callable[[Any, dict[str, Any]], str] | None = None,
    digests: str | bytes | dict[str, Any] | None = None,
    accepted_digests: str | bytes | dict[str, Any] | None = None,
) -> DediVerifyResult:
    """Verifies a DeDi file against its publisher's manifest, in the steps of docs/dedi-files.md:
    shape (``invalid``), signature by the embedded key (``bad_signature``), the manifest's
    authenticity and its listing of the file's key, domain, namespace and registry
    (``not_authenticated``) and digest (``digest_mismatch``), freshness of both at ``now``
    (``stale``), registry state (``inactive``), rollback against what was accepted before
    (``rollback``) and, when ``validate_record`` is given, the records against the registry's
    schema. This SDK holds no JSON Schema validator: ``validate_record(schema, details)`` returns
    "" when the details conform and a reason when not, and raises when a schema URL cannot be had
    (``schema_unavailable``).

    ``file`` is the file as received (text or bytes, needed for the digest), or the parsed object
    of a file the manifest embeds inline. ``manifest`` is the manifest as received, or None when
    it could not be fetched: then ``accepted_manifest`` stands in while fresh, else the outcome is
    ``unavailable_authority``. ``manifest_url`` defaults to https://{its domain}/.well-known/
    dedi.index.json (the caller vouches that it came from there). ``digests`` is the digests
    document the manifest names in its ``digests`` member, as received (None when it could not be
    fetched: then ``accepted_digests`` stands in while fresh, else a referenced file is
    ``digests_unavailable``); its entries take precedence over ``files[].digest``. It never raises."""
    cached = False
    frm: list[str] = [""]
    try:
        file_bytes = None if isinstance(file, dict) else _bytes_of(file, _MAX_FILE_BYTES, "file")
        f = _check_file(file if file_bytes is None else _parse(file_bytes, "file"))
        _verify_signature(f, f["publisher"]["key"], "bad_signature")
        if manifest is None:
            if accepted_manifest is None:
                return DediVerifyResult("unavailable_authority", "the manifest cannot be fetched and none was accepted before")
            m = _check_manifest(_parsed(accepted_manifest, _MAX_MANIFEST_BYTES, "manifest"))
            cached = True
            if now > _time(m["next_update"]):
                return DediVerifyResult(
                    "unavailable_authority", f"the manifest cannot be fetched and the accepted copy expired at {m['next_update']}", True
                )
        else:
            m = _authentic_manifest(manifest, manifest_url)
        _check_listed(f, file_bytes, m, lambda: _digests_of(m, digests, accepted_digests, now), frm)
        for what, d in (("manifest", m), ("file", f)):
            if now > _time(d["next_update"]):
                _fail("stale", f"the {what} expired at {d['next_update']}")
        reg = f["registry"]
        if reg["state"] != "live":
            _fail("inactive", f"registry {json.dumps(reg['name'])} is {reg['state']}")
        if not cached and accepted_manifest is not None:
            prev = _check_manifest(_parsed(accepted_manifest, _MAX_MANIFEST_BYTES, "manifest"))
            if _time(m["updated_at"]) < _time(prev["updated_at"]):
                _fail("rollback", f"the manifest's updated_at {m['updated_at']} is older than the accepted {prev['updated_at']}")
        if accepted_file_updated_at is not None and _time(reg["updated_at"]) < _time(accepted_file_updated_at):
            _fail("rollback", f"the file's updated_at {reg['updated_at']} is older than the accepted one")
        if validate_record is not None:
            _check_records(f, validate_record)
        return DediVerifyResult("authentic", "", cached, frm[0])
    except _Failure as e:
        return DediVerifyResult(e.outcome, str(e), cached, frm[0])
    except Exception as e:  # noqa: BLE001 (a verifier answers, it does not raise)
        return DediVerifyResult("invalid", str(e), cached)


def _bytes_of(v: str | bytes, limit: int, what: str) -> bytes:
    b = v.encode("utf-8") if isinstance(v, str) else bytes(v)
    if len(b) > limit:
        _fail("invalid", f"the {what} is larger than {limit} bytes")
    return b


def _parse(b: bytes, what: str) -> Any:
    try:
        text = b.decode("utf-8")
    except UnicodeDecodeError:
        return _fail("invalid", f"the {what} is not UTF-8")
    try:
        return json.loads(text)
    except ValueError as e:
        return _fail("invalid", f"the {what} is not JSON: {e}")


def _parsed(v: str | bytes | dict[str, Any], limit: int, what: str) -> Any:
    return v if isinstance(v, dict) else _parse(_bytes_of(v, limit, what), what)


def _time(v: Any) -> datetime:
    s = str(v)
    if not _TIMESTAMP.match(s):
        raise ValueError(f"{s!r} is not an RFC 3339 time")
    s = s.replace("z", "Z").replace("t", "T")
    if s.endswith("Z"):
        s = s[:-1] + "+00:00"
    # Python's fromisoformat takes at most 6 fraction digits.
    s = re.sub(r"\.(\d{6})\d+", r".\1", s)
    return datetime.fromisoformat(s)


def _b64url(s: str, outcome: str) -> bytes:
    if not _B64URL.match(s) or len(s) % 4 == 1:
        _fail(outcome, f"{json.dumps(s[:40])} is not base64url")
    return base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))


def _authentic_manifest(manifest: str | bytes | dict[str, Any], manifest_url: str | None) -> dict[str, Any]:
    try:
        m = _check_manifest(_parsed(manifest, _MAX_MANIFEST_BYTES, "manifest"))
    except _Failure as e:
        return _fail("not_authenticated", f"the manifest is not valid: {e}")
    href = manifest_url or f"https://{m['domain']}{_WELL_KNOWN}"
    try:
        u = urlsplit(href)
        port = u.port
    except ValueError:
        return _fail("not_authenticated", f"the manifest URL {href} is not a URL")
    if u.scheme != "https" or u.path != _WELL_KNOWN or u.query or port is not None or u.username or u.password:
        _fail("not_authenticated", f"the manifest did not come from a well-known URL (https://{{domain}}{_WELL_KNOWN}): {href}")
    if (u.hostname or "").lower() != str(m["domain"]).lower():
        _fail("not_authenticated", f"the manifest names domain {m['domain']} but was served by {u.hostname}")
    method = m["proof"]["verification_method"]
    signer = next((k for k in m["keys"] if k["kid"] == method), None)
    if signer is None:
        _fail("not_authenticated", f"the manifest is signed by {json.dumps(method)}, which is not among its keys")
    _verify_signature(m, signer, "not_authenticated")
    return m


def _digests_doc(v: str | bytes | dict[str, Any]) -> dict[str, Any]:
    if isinstance(v, dict):
        return _check_digests(v)
    b = v.encode("utf-8") if isinstance(v, str) else bytes(v)
    if len(b) > _MAX_MANIFEST_BYTES:
        _fail("digests_invalid", f"the digests document is larger than {_MAX_MANIFEST_BYTES} bytes")
    try:
        return _check_digests(json.loads(b.decode("utf-8")))
    except (ValueError, UnicodeDecodeError) as e:
        return _fail("digests_invalid", f"the digests document is not JSON: {e}")


def _digests_of(m: dict[str, Any], given: Any, acc: Any, now: datetime) -> dict[str, Any] | None:
    """The digests document of the manifest m, checked: its domain, its signature by a key m lists,
    freshness, rollback; or the accepted one while fresh. None when m names none."""
    if not isinstance(m.get("digests"), str):
        return None
    accepted = None if acc is None else _digests_doc(acc)
    if given is None:
        if accepted is None:
            _fail("digests_unavailable", f"the manifest names the digests document {m['digests']}, which cannot be had, and none was accepted before")
        if now > _time(accepted["next_update"]):
            _fail("digests_unavailable", f"the digests document {m['digests']} cannot be had and the accepted copy expired at {accepted['next_update']}")
        d = accepted
    else:
        d = _digests_doc(given)
    if str(d["domain"]).lower() != str(m["domain"]).lower():
        _fail("digests_not_authenticated", f"the digests document names domain {d['domain']}, the manifest {m['domain']}")
    method = d["proof"]["verification_method"]
    signer = next((k for k in m["keys"] if k["kid"] == method), None)
    if signer is None:
        _fail("digests_not_authenticated", f"the digests document is signed by {json.dumps(method)}, which is not among the manifest's keys")
    _verify_signature(d, signer, "digests_not_authenticated")
    if d is accepted:
        return d
    if now > _time(d["next_update"]):
        _fail("digests_stale", f"the digests document expired at {d['next_update']}")
    if accepted is not None and _time(d["updated_at"]) < _time(accepted["updated_at"]):
        _fail("digests_rollback", f"the digests document's updated_at {d['updated_at']} is older than the accepted {accepted['updated_at']}")
    return d


def _check_listed(f: dict[str, Any], file_bytes: bytes | None, m: dict[str, Any], digests: Callable[[], dict[str, Any] | None],
                  frm: list[str]) -> None:
    pub, key = f["publisher"], f["publisher"]["key"]
    domain = str(m["domain"]).lower()
    if str(pub["domain"]).lower() != domain:
        _fail("not_authenticated", f"the file's publisher domain {pub['domain']} is not the manifest's domain {m['domain']}")
    if str(f["namespace"]).lower() != domain:
        _fail("not_authenticated", f"the file's namespace {json.dumps(f['namespace'])} is not the manifest's domain {m['domain']}")

    def same_key(k: dict[str, Any]) -> bool:
        return (k["kid"] == key["kid"] and _is_ed25519(k)
                and _b64url(str(k["x"]), "not_authenticated") == _b64url(str(key["x"]), "not_authenticated"))

    if not any(same_key(k) for k in m["keys"]):
        _fail("not_authenticated", f"the file's key {json.dumps(key['kid'])} is not among the manifest's keys")
    name = f["registry"]["name"]
    entry = next((e for e in m["files"] if (e["registry"] if isinstance(e.get("url"), str) else e["registry"]["name"]) == name), None)
    if entry is None:
        _fail("not_authenticated", f"the manifest does not list registry {json.dumps(name)}")
    if isinstance(entry.get("url"), str):
        # The digests document's entry takes precedence over the manifest's own; none anywhere
        # leaves the file resting on its signature and domain binding.
        d = digests()
        listed = None if d is None else d["digests"].get(name)
        commitment, where = (listed, "digests document") if listed is not None else (entry.get("digest"), "manifest")
        frm[0] = "digests" if listed is not None else ("manifest" if commitment is not None else "none")
        if commitment is None:
            return
        if file_bytes is None:
            _fail("digest_mismatch", f"the {where} lists the file by digest: give the file's bytes")
        alg, _, value = str(commitment).partition(":")
        if alg != "sha-256":
            _fail("digest_mismatch", f"the {where} commits to the file by a {alg} digest; this verifier checks sha-256 digests only")
        digest = "sha-256:" + hashlib.sha256(file_bytes or b"").hexdigest()
        if digest != "sha-256:" + value.lower():
            _fail("digest_mismatch", f"the file's digest is {digest}, the {where} lists {commitment}")
    elif canonicalize(entry) != canonicalize(f):
        _fail("digest_mismatch", f"the file is not the manifest's inline copy of registry {json.dumps(name)}")


def _check_records(f: dict[str, Any], validate: Callable[[Any, dict[str, Any]], str]) -> None:
    schema = f["registry"]["schema"]
    for i, r in enumerate(f["records"]):
        try:
            problem = validate(schema, r["details"])
        except Exception as e:  # noqa: BLE001 (the validator's failure to have the schema)
            _fail("schema_unavailable", f"the registry's schema: {e}")
        if problem:
            _fail("invalid", f"record {json.dumps(r['record_name'])} (/records/{i}): {problem}")


def _is_ed25519(k: dict[str, Any]) -> bool:
    return k.get("kty") == "OKP" and k.get("crv") == "Ed25519"


def _verify_signature(doc: dict[str, Any], key: dict[str, Any], outcome: str) -> None:
    if not _is_ed25519(key):
        kind = str(key.get("kty")) + ("/" + str(key["crv"]) if key.get("crv") else "")
        _fail("unsupported_key", f"key {json.dumps(key.get('kid'))} is of type {kind}: this verifier checks Ed25519 signatures only")
    parts = str(doc["proof"]["jws"]).split(".")
    if len(parts) != 3 or parts[1] != "":
        _fail(outcome, "the jws is not a detached JWS (header..signature)")
    header, _, sig_text = parts
    if header != DEDI_PROTECTED_HEADER:
        try:
            h = json.loads(_b64url(header, outcome).decode("utf-8"))
        except (ValueError, _Failure):
            h = None
        if not (
            isinstance(h, dict)
            and len(h) == 3
            and h.get("alg") == "EdDSA"
            and h.get("b64") is False
            and h.get("crit") == ["b64"]
        ):
            _fail(outcome, 'the jws header is not {"alg":"EdDSA","b64":false,"crit":["b64"]}')
    body = {k: v for k, v in doc.items() if k != "proof"}
    message = f"{header}.{canonicalize(body)}".encode("utf-8")
    try:
        sig = _b64url(sig_text, outcome)
        pub = _b64url(str(key["x"]), outcome)
        ok = len(sig) == 64 and len(pub) == 32 and ed25519.verify(pub, message, sig)
    except _Failure:
        ok = False
    if not ok:
        _fail(outcome, f"the signature does not verify with key {json.dumps(key.get('kid'))}")


# ---- shape: the JSON Schemas of docs/dedi-files.md, checked by hand ----


def _is_obj(v: Any) -> bool:
    return isinstance(v, dict)


_fail_with = ["invalid"]


def _shape(ok: bool, where: str, what: str) -> None:
    if not ok:
        _fail(_fail_with[0], f"at {where}: {what}")


def _only(o: dict[str, Any], where: str, allowed: tuple[str, ...]) -> None:
    for k in o:
        _shape(k in allowed, where, f"member {json.dumps(k)} is not allowed")


def _str(o: dict[str, Any], k: str, where: str, pattern: re.Pattern[str] | None = None, lo: int = 0, hi: int | None = None) -> None:
    v = o.get(k)
    ok = isinstance(v, str) and len(v) >= lo and (hi is None or len(v) <= hi) and (pattern is None or pattern.match(v) is not None)
    _shape(ok, f"{where}/{k}", "wrong type or form")


def _check_key(k: Any, where: str) -> None:
    _shape(_is_obj(k), where, "not an object")
    _str(k, "kid", where, None, 1, 256)
    _str(k, "kty", where, None, 1)
    if _is_ed25519(k):
        _str(k, "x", where, re.compile(r"^[A-Za-z0-9_-]{43}$"))
    _shape(not any(p in k for p in _PRIVATE), where, "a private key")


def _check_proof(p: Any, where: str) -> None:
    _shape(_is_obj(p), where, "not an object")
    _only(p, where, ("verification_method", "canonicalization", "jws"))
    _str(p, "verification_method", where, None, 1, 256)
    _shape(p.get("canonicalization") == "JCS", f"{where}/canonicalization", 'not "JCS"')
    _str(p, "jws", where, re.compile(r"^[A-Za-z0-9_-]+\.\.[A-Za-z0-9_-]+$"))


def _check_time(o: dict[str, Any], k: str, where: str) -> None:
    _str(o, k, where, _TIMESTAMP)
    try:
        _time(o[k])
    except ValueError:
        _shape(False, f"{where}/{k}", "not a time")


_FILE_MEMBERS = ("dedi_version", "type", "source_url", "next_update", "publisher", "namespace", "registry", "records", "proof")


def _check_file(v: Any, where: str = "") -> dict[str, Any]:
    _shape(_is_obj(v), where or "the top level", "not an object")
    f: dict[str, Any] = v
    _only(f, where, _FILE_MEMBERS)
    for k in _FILE_MEMBERS:
        _shape(k in f, where or "the top level", f"missing {k}")
    _str(f, "dedi_version", where, _VERSION)
    _shape(f["type"] == "dedi-file", f"{where}/type", 'not "dedi-file"')
    _str(f, "source_url", where, _URI, 0, 2048)
    _check_time(f, "next_update", where)
    pub = f["publisher"]
    _shape(_is_obj(pub), f"{where}/publisher", "not an object")
    _only(pub, f"{where}/publisher", ("domain", "key"))
    _str(pub, "domain", f"{where}/publisher", _DOMAIN, 0, 253)
    _check_key(pub.get("key"), f"{where}/publisher/key")
    _str(f, "namespace", where, None, 1, 253)
    reg = f["registry"]
    _shape(_is_obj(reg), f"{where}/registry", "not an object")
    _only(reg, f"{where}/registry", ("name", "schema", "state", "updated_at", "description", "meta"))
    _str(reg, "name", f"{where}/registry", None, 1, 1024)
    schema = reg.get("schema")
    _shape(_is_obj(schema) or (isinstance(schema, str) and len(schema) <= 2048 and _URI.match(schema) is not None),
           f"{where}/registry/schema", "neither a URL nor an object")
    _shape(reg.get("state") in ("live", "inactive"), f"{where}/registry/state", "not live or inactive")
    _check_time(reg, "updated_at", f"{where}/registry")
    if "description" in reg:
        _str(reg, "description", f"{where}/registry")
    if "meta" in reg:
        _shape(_is_obj(reg["meta"]), f"{where}/registry/meta", "not an object")
    _shape(isinstance(f["records"], list), f"{where}/records", "not an array")
    names: set[str] = set()
    for i, r in enumerate(f["records"]):
        at = f"{where}/records/{i}"
        _shape(_is_obj(r), at, "not an object")
        _only(r, at, ("record_name", "details", "description", "meta"))
        _str(r, "record_name", at, None, 1, 1024)
        _shape(_is_obj(r.get("details")), f"{at}/details", "not an object")
        if "description" in r:
            _str(r, "description", at)
        if "meta" in r:
            _shape(_is_obj(r["meta"]), f"{at}/meta", "not an object")
        if r["record_name"] in names:
            _fail("invalid", f"record name {json.dumps(r['record_name'])} appears more than once (at {at})")
        names.add(r["record_name"])
    _check_proof(f["proof"], f"{where}/proof")
    if f["proof"]["verification_method"] != pub["key"]["kid"]:
        _fail("invalid", "proof.verification_method does not name publisher.key")
    return f


_MANIFEST_MEMBERS = ("dedi_version", "type", "domain", "name", "description", "keys", "updated_at", "next_update", "digests", "files",
                     "proof")


def _check_manifest(v: Any) -> dict[str, Any]:
    _shape(_is_obj(v), "the top level", "not an object")
    m: dict[str, Any] = v
    _only(m, "", _MANIFEST_MEMBERS)
    for k in ("dedi_version", "domain", "keys", "updated_at", "next_update", "files", "proof"):
        _shape(k in m, "the top level", f"missing {k}")
    _str(m, "dedi_version", "", _VERSION)
    if "digests" in m:
        _str(m, "digests", "", _URI, 0, 2048)
    if "type" in m:
        _shape(m["type"] == "dedi-manifest", "/type", 'not "dedi-manifest"')
    _str(m, "domain", "", _DOMAIN, 0, 253)
    for k in ("name", "description"):
        if k in m:
            _str(m, k, "")
    keys = m["keys"]
    _shape(isinstance(keys, list) and 1 <= len(keys) <= 64, "/keys", "not 1 to 64 keys")
    kids: set[Any] = set()
    for i, k in enumerate(keys):
        _check_key(k, f"/keys/{i}")
        _shape(k["kid"] not in kids, f"/keys/{i}", "a kid listed twice")
        kids.add(k["kid"])
    _check_time(m, "updated_at", "")
    _check_time(m, "next_update", "")
    files = m["files"]
    _shape(isinstance(files, list) and len(files) <= 10000, "/files", "not an array of at most 10000 entries")
    registries: set[Any] = set()
    for i, e in enumerate(files):
        at = f"/files/{i}"
        _shape(_is_obj(e), at, "not an object")
        if "url" in e:
            _only(e, at, ("registry", "url", "digest", "schema", "state"))
            _str(e, "registry", at, None, 1, 1024)
            _str(e, "url", at, _URI, 0, 2048)
            if "digest" in e:
                _str(e, "digest", at, _DIGEST, 0, 1024)
            name = e["registry"]
        else:
            _check_file(e, at)
            name = e["registry"]["name"]
        _shape(name not in registries, at, f"registry {json.dumps(name)} is listed more than once")
        registries.add(name)
    _check_proof(m["proof"], "/proof")
    return m


_DIGESTS_MEMBERS = ("dedi_version", "type", "domain", "updated_at", "next_update", "digests", "proof")


def _check_digests(v: Any) -> dict[str, Any]:
    """A digests document's shape; a failure is digests_invalid."""
    _fail_with[0] = "digests_invalid"
    try:
        _shape(_is_obj(v), "the top level", "not an object")
        d: dict[str, Any] = v
        _only(d, "", _DIGESTS_MEMBERS)
        for k in _DIGESTS_MEMBERS:
            _shape(k in d, "the top level", f"missing {k}")
        _str(d, "dedi_version", "", _VERSION)
        _shape(d["type"] == "dedi-digests", "/type", 'not "dedi-digests"')
        _str(d, "domain", "", _DOMAIN, 0, 253)
        _check_time(d, "updated_at", "")
        _check_time(d, "next_update", "")
        _shape(_is_obj(d["digests"]) and len(d["digests"]) <= 10000, "/digests", "not an object of at most 10000 members")
        for name, dg in d["digests"].items():
            _shape(1 <= len(name) <= 1024, "/digests", f"registry name {json.dumps(name[:40])}")
            _shape(isinstance(dg, str) and len(dg) <= 1024 and _DIGEST.match(dg) is not None, f"/digests/{name}", "not a digest")
        _check_proof(d["proof"], "/proof")
        return d
    finally:
        _fail_with[0] = "invalid"
