"""C2SP tlog-proof@v1 and tlog-policy (docs/transparency-log.md, "Offline proofs and the policy").

A tlog-proof (``GET /svc/log/proof/{version}``) is a version's offline proof: its leaf text (as
``extra``), its index, its RFC 6962 inclusion proof and a (cosigned) checkpoint. A tlog-policy
(``GET /svc/log/policy``, better: the operator's) names the log's key, the witnesses and the
quorum of cosignatures a checkpoint needs. ``parse_tlog_policy`` reads a policy,
``parse_tlog_proof`` a proof, ``verify_checkpoint_with_policy`` a checkpoint and
``verify_tlog_proof`` a proof under a policy. The rules are the Go reader's
(translog/tlogproof), held to the shared vectors translog/tlogproof/testdata/vectors.json.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from . import ed25519
from .checkpoint import _SIG_LINE, _b64, _checkpoint, _key_hash, _parse_witness_key
from .merkle import leaf_hash, root_from_inclusion_proof

__all__ = [
    "TLOG_PROOF_HEADER",
    "TlogProof",
    "TlogPolicy",
    "PolicyGroup",
    "PolicyWitness",
    "TlogProofResult",
    "parse_tlog_proof",
    "parse_tlog_policy",
    "verify_checkpoint_with_policy",
    "verify_tlog_proof",
]

TLOG_PROOF_HEADER = "c2sp.org/tlog-proof@v1"
_MAX_PROOF = 1 << 20
_MAX_POLICY = 64 << 10
_MAX_ITEMS = 256
_MAX_INDEX = 2**63 - 1
NONE = "none"


@dataclass(frozen=True)
class TlogProof:
    """A parsed tlog-proof."""

    extra: bytes | None
    index: int
    hashes: tuple[bytes, ...]
    checkpoint: str


@dataclass(frozen=True)
class PolicyWitness:
    name: str
    key: str
    url: str = ""


@dataclass(frozen=True)
class PolicyGroup:
    name: str
    threshold: int
    members: tuple[str, ...]


@dataclass(frozen=True)
class TlogPolicy:
    """A parsed tlog-policy: the logs' verifier keys, the witnesses, the groups and the quorum
    (a witness's or group's name, or ``none``)."""

    logs: tuple[str, ...]
    witnesses: tuple[PolicyWitness, ...]
    groups: tuple[PolicyGroup, ...]
    quorum: str
    log_urls: tuple[str, ...] = field(default=())


@dataclass(frozen=True)
class TlogProofResult:
    """What verify_tlog_proof (or verify_checkpoint_with_policy) found. Refused: ``ok`` false,
    ``stage`` one of parse, checkpoint, inclusion, leaf, and ``reason``."""

    ok: bool
    stage: str = ""
    reason: str = ""
    origin: str = ""
    size: int = 0
    root_hash: bytes = b""
    index: int = 0
    leaf: str = ""
    log_key: str = ""
    witnesses: tuple[str, ...] = ()
    cosigned_at: int | None = None
    """When the quorum had cosigned (Unix seconds); None for the quorum ``none``."""

    def __bool__(self) -> bool:
        return self.ok


class _Refused(Exception):
    def __init__(self, stage: str, reason: str) -> None:
        super().__init__(reason)
        self.stage = stage
        self.reason = reason


def _text(t: Any, what: str) -> str:
    if isinstance(t, (bytes, bytearray)):
        try:
            return bytes(t).decode("utf-8")
        except UnicodeDecodeError:
            raise _Refused("parse", f"the {what} is not UTF-8 text") from None
    if not isinstance(t, str):
        raise _Refused("parse", f"the {what} must be text")
    return t


def parse_tlog_proof(text: str | bytes) -> TlogProof:
    """Reads a proof's text strictly; raises ValueError with the reason when it is not one."""
    try:
        return _parse_proof(text)
    except _Refused as e:
        raise ValueError(e.reason) from None


def _parse_proof(raw: Any) -> TlogProof:
    text = _text(raw, "proof")
    if len(text.encode("utf-8")) > _MAX_PROOF:
        raise _Refused("parse", f"the proof is more than {_MAX_PROOF} bytes")
    rest = text

    def line() -> str | None:
        nonlocal rest
        i = rest.find("\n")
        if i < 0:
            return None
        out, rest = rest[:i], rest[i + 1 :]
        return out

    def fail(reason: str) -> _Refused:
        return _Refused("parse", reason)

    if line() != TLOG_PROOF_HEADER:
        raise fail(f"the first line is not {TLOG_PROOF_HEADER!r}")
    ln = line()
    if ln is None:
        raise fail("the proof ends after its first line")
    extra = None
    if ln.startswith("extra "):
        extra = _b64(ln[6:])
        if not extra:
            raise fail("the extra line is not non-empty standard base64")
        ln = line()
        if ln is None:
            raise fail("the proof ends after its extra line")
    if not ln.startswith("index "):
        raise fail("the line after the header (and extra) is not the index line")
    idx = ln[6:]
    if not re.fullmatch(r"0|[1-9][0-9]*", idx) or int(idx) > _MAX_INDEX:
        raise fail(f"the index {idx!r} is not a decimal without leading zeros")
    hashes: list[bytes] = []
    while True:
        ln = line()
        if ln is None:
            raise fail("the proof ends before the empty line and the checkpoint")
        if ln == "":
            break
        if len(hashes) == 63:
            raise fail("more than 63 inclusion proof hashes")
        h = _b64(ln)
        if h is None or len(h) != 32:
            raise fail(f"inclusion proof line {len(hashes) + 1} is not a base64 SHA-256 hash")
        hashes.append(h)
    if rest == "" or not rest.endswith("\n") or "\n\n" not in rest or rest.startswith("\n"):
        raise fail("the checkpoint is missing or not a signed note")
    return TlogProof(extra=extra, index=int(idx), hashes=tuple(hashes), checkpoint=rest)


def parse_tlog_policy(text: str | bytes) -> TlogPolicy:
    """Reads a policy's text as C2SP tlog-policy specifies it (the Go reader's rules: log keys
    Ed25519 note keys, witness keys cosignature/v1 or Ed25519 note keys); raises ValueError with
    the reason when it is not one."""
    try:
        return _parse_policy(text)
    except _Refused as e:
        raise ValueError(e.reason) from None


def _vkey(vkey: str) -> tuple[int, bytes]:
    """The type byte and public key of a verifier key, checked strictly (the hash its own)."""
    parts = vkey.split("+", 2)
    if len(parts) != 3 or parts[0] == "" or re.search(r"[\s+\ufffd\ud800-\udfff]", parts[0]):
        raise ValueError(f"the key {vkey!r} is not <name>+<hash>+<key>")
    name, hexhash, b64 = parts
    key = _b64(b64)
    if not re.fullmatch(r"[0-9a-f]{8}", hexhash) or key is None or len(key) != 33 or key[0] not in (1, 4):
        raise ValueError(f"the key {vkey!r} is not an Ed25519 verifier key")
    if _key_hash(name, key) != int(hexhash, 16):
        raise ValueError(f"the key {vkey!r}: its hash is not the hash of its name and key")
    return key[0], key[1:]


def _parse_policy(raw: Any) -> TlogPolicy:
    text = _text(raw, "policy")
    if len(text.encode("utf-8")) > _MAX_POLICY:
        raise _Refused("parse", f"the policy is more than {_MAX_POLICY} bytes")
    m = re.search(r"[\x00-\x08\x0b-\x1f\x7f]", text)
    if m:
        raise _Refused("parse", f"the policy holds the control character {ord(m.group()):#04x}")
    if not text.endswith("\n"):
        raise _Refused("parse", "the policy's last line does not end with a newline")
    logs: list[str] = []
    urls: list[str] = []
    witnesses: list[PolicyWitness] = []
    groups: list[PolicyGroup] = []
    defined: set[str] = set()
    member: set[str] = set()
    log_keys: set[bytes] = set()
    wit_keys: set[bytes] = set()
    quorum: str | None = None
    for n, line in enumerate(text[:-1].split("\n"), 1):

        def fail(reason: str) -> _Refused:
            return _Refused("parse", f"policy line {n}: {reason}")

        f = [x for x in re.split(r"[ \t]+", line) if x]
        if not f or f[0].startswith("#"):
            continue
        if quorum is not None and f[0] == "quorum":
            raise fail("a second quorum line")
        kw = f[0]
        if kw == "log":
            if len(f) not in (2, 3):
                raise fail("want log <vkey> [<url>]")
            try:
                typ, pub = _vkey(f[1])
            except ValueError as e:
                raise fail(str(e)) from None
            if typ != 1:
                raise fail("the log key is not an Ed25519 note key (type 0x01)")
            if pub in log_keys:
                raise fail("a second log with the public key of an earlier one")
            if len(logs) == _MAX_ITEMS:
                raise fail(f"more than {_MAX_ITEMS} logs")
            log_keys.add(pub)
            logs.append(f[1])
            urls.append(f[2] if len(f) == 3 else "")
        elif kw == "witness":
            if len(f) not in (3, 4):
                raise fail("want witness <name> <vkey> [<url>]")
            _new_name(f[1], defined, fail)
            try:
                _, pub = _vkey(f[2])
            except ValueError as e:
                raise fail(str(e)) from None
            if pub in wit_keys:
                raise fail("a second witness with the public key of an earlier one")
            if len(witnesses) == _MAX_ITEMS:
                raise fail(f"more than {_MAX_ITEMS} witnesses")
            wit_keys.add(pub)
            defined.add(f[1])
            witnesses.append(PolicyWitness(f[1], f[2], f[3] if len(f) == 4 else ""))
        elif kw == "group":
            if len(f) < 4:
                raise fail("want group <name> all|any|<k> <name>...")
            _new_name(f[1], defined, fail)
            members = f[3:]
            for mname in members:
                if mname == NONE:
                    raise fail("'none' cannot be a group member")
                if mname not in defined:
                    raise fail(f"the member {mname!r} is not a witness or group defined before")
                if mname in member:
                    raise fail(f"{mname!r} is listed as a group member a second time")
                member.add(mname)
            if f[2] == "all":
                k = len(members)
            elif f[2] == "any":
                k = 1
            elif re.fullmatch(r"[0-9]+", f[2]) and 1 <= int(f[2]) <= len(members):
                k = int(f[2])
            else:
                raise fail(f"the threshold {f[2]!r} is not all, any or a decimal between 1 and the {len(members)} members")
            if len(groups) == _MAX_ITEMS:
                raise fail(f"more than {_MAX_ITEMS} groups")
            defined.add(f[1])
            groups.append(PolicyGroup(f[1], k, tuple(members)))
        elif kw == "quorum":
            if len(f) != 2:
                raise fail("want quorum <name>")
            if f[1] != NONE and f[1] not in defined:
                raise fail(f"the quorum {f[1]!r} is not a witness or group defined before")
            quorum = f[1]
        else:
            raise fail(f"unknown line {kw!r} (want log, witness, group or quorum)")
    if quorum is None:
        raise _Refused("parse", "the policy has no quorum line")
    return TlogPolicy(logs=tuple(logs), witnesses=tuple(witnesses), groups=tuple(groups), quorum=quorum, log_urls=tuple(urls))


def _new_name(name: str, defined: set[str], fail: Any) -> None:
    if name == NONE:
        raise fail("'none' is a predefined name")
    if name in defined:
        raise fail(f"the name {name!r} is defined a second time")


def verify_checkpoint_with_policy(note: str | bytes, policy: TlogPolicy | str | bytes) -> TlogProofResult:
    """Verifies a checkpoint under a policy: signed by one of its logs (the one whose key's name
    is the origin), cosigned (cosignature/v1) to its quorum. A policy witness's cosignature that
    does not verify refuses it; lines of other keys are ignored. It never raises."""
    try:
        pol = policy if isinstance(policy, TlogPolicy) else _parse_policy(policy)
        return _verify_checkpoint(_text(note, "checkpoint"), pol)
    except _Refused as e:
        return TlogProofResult(ok=False, stage=e.stage, reason=e.reason)
    except Exception as e:  # never raises
        return TlogProofResult(ok=False, stage="checkpoint", reason=f"cannot verify the checkpoint: {e}")


def _verify_checkpoint(note: str, policy: TlogPolicy) -> TlogProofResult:
    origin = note.split("\n", 1)[0]
    cp = None
    log_key = ""
    reason = ""
    for k in policy.logs:
        if k.split("+", 1)[0] != origin:
            continue
        r = _checkpoint(note, k)
        if r.ok:
            cp, log_key = r, k
            break
        reason = r.reason
    if cp is None:
        raise _Refused("checkpoint", reason or f"the checkpoint's origin {origin!r} is not a log of the policy")
    if policy.quorum == NONE:
        return TlogProofResult(ok=True, origin=cp.origin, size=cp.size, root_hash=cp.root_hash, log_key=log_key)
    keys = {}
    for w in policy.witnesses:
        k = _parse_witness_key(w.key)
        if isinstance(k, str):
            raise _Refused("checkpoint", k)
        keys[(k.name, k.hash)] = (w.name, k)
    split = note.rfind("\n\n")
    text = note[: split + 1].encode("utf-8")
    times: dict[str, int] = {}
    for line in note[split + 2 : -1].split("\n"):
        m = _SIG_LINE.match(line)
        sig = _b64(m.group(2)) if m else None
        if m is None or sig is None or len(sig) < 4:
            continue  # _checkpoint checked every line's form
        hit = keys.get((m.group(1), int.from_bytes(sig[:4], "big")))
        if hit is None:
            continue  # the log's signature, or a key outside the policy
        name, k = hit
        if len(sig) != 4 + 8 + 64:
            raise _Refused("checkpoint", f"the cosignature of {name} is not a timestamp and an Ed25519 signature")
        t = int.from_bytes(sig[4:12], "big")
        if not ed25519.verify(k.public_key, f"cosignature/v1\ntime {t}\n".encode() + text, sig[12:]):
            raise _Refused("checkpoint", f"the cosignature of {name} does not verify")
        times[name] = max(t, times.get(name, t))
    at = _witnessed(policy, policy.quorum, times)
    if at is None:
        raise _Refused("checkpoint", f"the cosignatures of {len(times)} witnesses do not meet the policy's quorum {policy.quorum!r}")
    return TlogProofResult(ok=True, origin=cp.origin, size=cp.size, root_hash=cp.root_hash, log_key=log_key,
                           witnesses=tuple(sorted(times)), cosigned_at=at)


def _witnessed(policy: TlogPolicy, name: str, times: dict[str, int]) -> int | None:
    """When the witness or group name had witnessed the checkpoint (None: it has not): a
    group's time is, of its members that witnessed, sorted newest first, the threshold-th's."""
    if name in times:
        return times[name]
    group = next((g for g in policy.groups if g.name == name), None)
    if group is None:
        return None
    ts = sorted((t for t in (_witnessed(policy, m, times) for m in group.members) if t is not None), reverse=True)
    return ts[group.threshold - 1] if len(ts) >= group.threshold else None


def verify_tlog_proof(proof: str | bytes, policy: TlogPolicy | str | bytes, leaf: str | bytes | None = None) -> TlogProofResult:
    """Verifies a tlog-proof under a policy: its checkpoint (verify_checkpoint_with_policy), then
    that its hashes lead from the leaf at its index to the checkpoint's root. The leaf is
    ``leaf`` when given (the leaf text of the version held, log_leaf of a lookup; a proof whose
    extra is another text is refused), else the proof's extra. It never raises."""
    try:
        pol = policy if isinstance(policy, TlogPolicy) else _parse_policy(policy)
        p = _parse_proof(proof)
        c = _verify_checkpoint(p.checkpoint, pol)
        want = leaf.encode("utf-8") if isinstance(leaf, str) else (bytes(leaf) if leaf is not None else None)
        text = p.extra
        if want is not None and p.extra is not None and want != p.extra:
            raise _Refused("leaf", "the proof's extra data is not the leaf expected")
        if want is not None:
            text = want
        if text is None:
            raise _Refused("leaf", "the proof carries no extra data (the leaf text), and no leaf was given")
        if p.index >= c.size:
            raise _Refused("inclusion", f"the index {p.index} is not in the checkpoint's tree of size {c.size}")
        root = root_from_inclusion_proof(p.index, c.size, leaf_hash(text), list(p.hashes))
        if root is None or root != c.root_hash:
            raise _Refused("inclusion", f"the inclusion proof of index {p.index} does not lead to the root of the tree of size {c.size}")
        try:
            leaf_text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise _Refused("leaf", "the leaf is not UTF-8 text") from None
        return TlogProofResult(ok=True, origin=c.origin, size=c.size, root_hash=c.root_hash, index=p.index, leaf=leaf_text,
                               log_key=c.log_key, witnesses=c.witnesses, cosigned_at=c.cosigned_at)
    except _Refused as e:
        return TlogProofResult(ok=False, stage=e.stage, reason=e.reason)
    except Exception as e:  # never raises
        return TlogProofResult(ok=False, stage="parse", reason=f"cannot verify the proof: {e}")
