"""The digest fields of a lookup.

The kind's digest fields read out of lookup data in the order the Go verifier reads them (Go:
``proof/fields.go``), and genesis in either its timestamp or its hex form; canonical.digest_of
hashes them.
"""

from __future__ import annotations

import re
from typing import Any

from .jsontext import _as_float, go_quote

__all__ = ["genesis_hex"]


def genesis_hex(timestamp: str) -> str:
    """The namespace lookup form of genesis: ``0x`` + lowercase hex of the timestamp's UTF-8 bytes."""
    return "0x" + timestamp.encode("utf-8").hex()


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
