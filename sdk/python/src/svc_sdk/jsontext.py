"""The JSON text checks of lookups.

JSON text read as JavaScript's JSON.parse reads it, what the service's strict JSON reader refuses
in a lookup (nesting, NUL characters, lone surrogates, numbers that are not finite, values that
are not JSON), and Go's %q quoting (go_quote), in which the reasons of failure quote text.
"""

from __future__ import annotations

import json
import math
import unicodedata
from typing import Any, Callable

__all__ = ["MAX_DEPTH", "parse_json", "go_quote"]

MAX_DEPTH = 256
"""The nesting depth of objects and arrays that the service's strict JSON reader admits."""


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


def _as_float(v: Any) -> float | None:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    try:
        f = float(v)
    except OverflowError:
        return None
    return f if math.isfinite(f) else None


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
