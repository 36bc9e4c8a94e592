"""RFC 8785 (JSON Canonicalization Scheme) and the BLAKE2b-256 digest of the svc proofs.

The text is what JavaScript's ``JSON.stringify`` writes for the value once its object keys are
sorted by UTF-16 code units: numbers in ECMAScript ``Number::toString`` form (ECMA-262,
6.1.6.1.20), strings with ``"`` and ``\\`` escaped, ``\\b \\f \\n \\r \\t``, other characters
below U+0020 as ``\\u00xx`` and everything else as literal UTF-8 (U+2028, U+2029 and ``/``
included). The Go service (``proof/canonical.go``) and the TypeScript SDK (the ``canonicalize``
package) write the same bytes.
"""

from __future__ import annotations

import hashlib
import math
from typing import Any

__all__ = ["canonicalize", "canonical_bytes", "format_number", "digest_of", "digest_of_text"]

_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def format_number(value: float | int) -> str:
    """Writes a number as ECMAScript's Number::toString does (as JSON.stringify and RFC 8785 do).

    The value is taken as a float64 first (a Python int beyond 2**53 is rounded to the nearest
    float64, as JavaScript's JSON.parse rounds it). The digits are the shortest that round-trip
    (Python's ``repr`` gives those, the closest when several are as short, as ECMA-262 asks),
    laid out as an integer up to 21 digits, as a plain decimal down to 1e-6, and in exponent
    form otherwise (``1e+21``, ``1.5e-7``). Negative zero is ``0``. NaN and infinities raise
    ValueError.
    """
    if isinstance(value, bool):
        raise TypeError("a bool is not a number")
    try:
        f = float(value)
    except OverflowError:
        raise ValueError(f"{value} is beyond float64: not a JSON number") from None
    if math.isnan(f) or math.isinf(f):
        raise ValueError(f"{value} is not a JSON number")
    if f == 0:
        return "0"
    sign = ""
    if f < 0:
        sign, f = "-", -f
    mantissa, _, exp_text = repr(f).partition("e")
    whole, _, frac = mantissa.partition(".")
    digits = whole + frac
    # f = 0.digits × 10^n, before leading zeros are dropped
    n = len(whole) + (int(exp_text) if exp_text else 0)
    stripped = digits.lstrip("0")
    n -= len(digits) - len(stripped)
    digits = stripped.rstrip("0")
    k = len(digits)
    if k <= n <= 21:  # an integer: the digits, then n−k zeros
        out = digits + "0" * (n - k)
    elif 0 < n <= 21:  # the decimal point inside the digits
        out = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:  # "0.", −n zeros, the digits
        out = "0." + "0" * (-n) + digits
    else:  # exponent form d[.ddd]e±x
        e = n - 1
        out = digits[0] + ("." + digits[1:] if k > 1 else "") + "e" + ("+" if e >= 0 else "-") + str(abs(e))
    return sign + out


def _string(s: str) -> str:
    out = ['"']
    for ch in s:
        esc = _ESCAPES.get(ch)
        if esc is not None:
            out.append(esc)
        elif ch < " ":
            out.append("\\u%04x" % ord(ch))
        elif "\ud800" <= ch <= "\udfff":
            # A lone surrogate has no UTF-8 form; JSON.stringify escapes it (ES2019).
            out.append("\\u%04x" % ord(ch))
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _utf16_key(s: str) -> bytes:
    # Big-endian UTF-16 bytes compare as the code units do.
    return s.encode("utf-16-be", "surrogatepass")


def canonicalize(value: Any) -> str:
    """The RFC 8785 canonical JSON text of a JSON value (dict, list, str, int, float, bool, None)."""
    out: list[str] = []
    _write(value, out, 0)
    return "".join(out)


def _write(v: Any, out: list[str], depth: int) -> None:
    if depth > 10000:
        raise ValueError("nesting too deep")
    if v is None:
        out.append("null")
    elif v is True:
        out.append("true")
    elif v is False:
        out.append("false")
    elif isinstance(v, str):
        out.append(_string(v))
    elif isinstance(v, (int, float)):
        out.append(format_number(v))
    elif isinstance(v, dict):
        for k in v:
            if not isinstance(k, str):
                raise TypeError(f"an object key must be text, not {type(k).__name__}")
        out.append("{")
        for i, k in enumerate(sorted(v, key=_utf16_key)):
            if i:
                out.append(",")
            out.append(_string(k))
            out.append(":")
            _write(v[k], out, depth + 1)
        out.append("}")
    elif isinstance(v, (list, tuple)):
        out.append("[")
        for i, x in enumerate(v):
            if i:
                out.append(",")
            _write(x, out, depth + 1)
        out.append("]")
    else:
        raise TypeError(f"a value of type {type(v).__name__} is not JSON")


def canonical_bytes(value: Any) -> bytes:
    """The UTF-8 bytes of canonicalize(value)."""
    return canonicalize(value).encode("utf-8", "surrogatepass")


def digest_of_text(text: str | bytes) -> str:
    """``0x`` + lowercase hex of BLAKE2b with a 32-byte output over the UTF-8 bytes of text."""
    b = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    return "0x" + hashlib.blake2b(b, digest_size=32).hexdigest()


def digest_of(value: Any) -> str:
    """``0x`` + BLAKE2b-256 of the RFC 8785 text of a JSON value: the digest of a proof."""
    return digest_of_text(canonical_bytes(value))
