"""Ed25519 signature verification (RFC 8032, section 5.1), in pure Python.

The standard library has SHA-512 but no Ed25519, and the SDK takes no third-party package, so
this is the arithmetic of RFC 8032's reference (section 6), in extended coordinates. It checks
signatures as Go's crypto/ed25519 does (cofactorless: the encoding of [S]B − [k]A must be R's
bytes; S below the group order), which is what signs the log's checkpoints. It is not constant
time, which verification of public data does not need; ``sign`` exists for tests only.
"""

from __future__ import annotations

import hashlib

__all__ = ["verify", "public_key", "sign"]

_P = 2**255 - 19
_L = 2**252 + 27742317777372353535851937790883648493
_D = (-121665 * pow(121666, _P - 2, _P)) % _P
_SQRT_M1 = pow(2, (_P - 1) // 4, _P)


def _inv(x: int) -> int:
    return pow(x, _P - 2, _P)


# Points are (X, Y, Z, T) with x = X/Z, y = Y/Z, x*y = T/Z.
_Point = tuple[int, int, int, int]


def _add(p: _Point, q: _Point) -> _Point:
    a = (p[1] - p[0]) * (q[1] - q[0]) % _P
    b = (p[1] + p[0]) * (q[1] + q[0]) % _P
    c = 2 * p[3] * q[3] * _D % _P
    d = 2 * p[2] * q[2] % _P
    e, f, g, h = b - a, d - c, d + c, b + a
    return (e * f % _P, g * h % _P, f * g % _P, e * h % _P)


def _mul(s: int, p: _Point) -> _Point:
    q: _Point = (0, 1, 1, 0)  # the neutral element
    while s > 0:
        if s & 1:
            q = _add(q, p)
        p = _add(p, p)
        s >>= 1
    return q


def _recover_x(y: int, sign: int) -> int | None:
    if y >= _P:
        return None
    x2 = (y * y - 1) * _inv(_D * y * y + 1) % _P
    if x2 == 0:
        return None if sign else 0
    x = pow(x2, (_P + 3) // 8, _P)
    if (x * x - x2) % _P != 0:
        x = x * _SQRT_M1 % _P
    if (x * x - x2) % _P != 0:
        return None
    if (x & 1) != sign:
        x = _P - x
    return x


_GY = 4 * _inv(5) % _P
_GX = _recover_x(_GY, 0)
assert _GX is not None
_G: _Point = (_GX, _GY, 1, _GX * _GY % _P)


def _compress(p: _Point) -> bytes:
    zinv = _inv(p[2])
    x, y = p[0] * zinv % _P, p[1] * zinv % _P
    return (y | ((x & 1) << 255)).to_bytes(32, "little")


def _decompress(b: bytes) -> _Point | None:
    if len(b) != 32:
        return None
    y = int.from_bytes(b, "little")
    sign = y >> 255
    y &= (1 << 255) - 1
    x = _recover_x(y, sign)
    if x is None:
        return None
    return (x, y, 1, x * y % _P)


def _sha512_int(*parts: bytes) -> int:
    return int.from_bytes(hashlib.sha512(b"".join(parts)).digest(), "little")


def verify(public: bytes, message: bytes, signature: bytes) -> bool:
    """Whether signature is a valid Ed25519 signature of message by the 32-byte public key."""
    if len(public) != 32 or len(signature) != 64:
        return False
    a = _decompress(public)
    if a is None:
        return False
    r_bytes, s = signature[:32], int.from_bytes(signature[32:], "little")
    if s >= _L:
        return False
    k = _sha512_int(r_bytes, public, message) % _L
    # R' = [S]B − [k]A, whose encoding must be R's bytes.
    neg_a: _Point = ((_P - a[0]) % _P, a[1], a[2], (_P - a[3]) % _P)
    return _compress(_add(_mul(s, _G), _mul(k, neg_a))) == r_bytes


def _expand(secret: bytes) -> tuple[int, bytes]:
    if len(secret) != 32:
        raise ValueError("an Ed25519 secret key is 32 bytes")
    h = hashlib.sha512(secret).digest()
    a = int.from_bytes(h[:32], "little")
    a &= (1 << 254) - 8
    a |= 1 << 254
    return a, h[32:]


def public_key(secret: bytes) -> bytes:
    """The public key of a 32-byte secret key (RFC 8032, 5.1.5); for tests."""
    a, _ = _expand(secret)
    return _compress(_mul(a, _G))


def sign(secret: bytes, message: bytes) -> bytes:
    """An Ed25519 signature (RFC 8032, 5.1.6); for tests (not constant time)."""
    a, prefix = _expand(secret)
    pub = _compress(_mul(a, _G))
    r = _sha512_int(prefix, message) % _L
    r_bytes = _compress(_mul(r, _G))
    k = _sha512_int(r_bytes, pub, message) % _L
    s = (r + k * a) % _L
    return r_bytes + s.to_bytes(32, "little")

