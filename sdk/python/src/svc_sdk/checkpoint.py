"""Signed checkpoints of the transparency log (docs/transparency-log.md).

C2SP tlog-checkpoint in a C2SP signed note (Ed25519, verifier keys in the form of
golang.org/x/mod/sumdb/note), and witness cosignatures (C2SP tlog-cosignature) on it. The
reasons of failure are worded as the TypeScript SDK words them.
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

__all__ = ["CheckpointResult", "verify_checkpoint", "verify_cosigned_checkpoint"]

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
    cosigned_at: int | None = None
    """For verify_cosigned_checkpoint: the witnesses' time, Unix seconds: of the given witnesses'
    cosignatures (each witness's newest), sorted newest first, the quorum-th (as Go's
    translog.VerifyCosignedAt gives it)."""

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
    witnessed: dict[str, int] = {}
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
        witnessed[w.name] = max(t, witnessed.get(w.name, t))
    if len(witnessed) < quorum:
        return fail(f"{len(witnessed)} of the given witnesses cosigned the checkpoint, {quorum} needed")
    at = sorted(witnessed.values(), reverse=True)[quorum - 1]
    return CheckpointResult(ok=True, origin=cp.origin, size=cp.size, root_hash=cp.root_hash, witnesses=tuple(sorted(witnessed)), cosigned_at=at)
