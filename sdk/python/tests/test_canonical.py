"""RFC 8785 canonical JSON and digests against the shared vectors and the JavaScript reference."""

from __future__ import annotations

import json
import math
import random
import struct
import subprocess
import unittest

from _support import CONFORMANCE, PROOF_VECTORS, node, require
from svc_sdk import canonicalize, digest_of, format_number
from svc_sdk.verify import parse_json

# ECMAScript Number::toString forms, the table of proof/canonical_test.go (TestFormatNumber).
NUMBERS = [
    (0.0, "0"),
    (-0.0, "0"),
    (1.0, "1"),
    (-1.0, "-1"),
    (0.1, "0.1"),
    (-0.5, "-0.5"),
    (0.30000000000000004, "0.30000000000000004"),
    (1.0 / 3, "0.3333333333333333"),
    (2.0 / 3, "0.6666666666666666"),
    (100.0, "100"),
    (4.35, "4.35"),
    (333333333.3333333, "333333333.3333333"),
    (1e20, "100000000000000000000"),
    (123456789012345680000.0, "123456789012345680000"),
    (999999999999999900000.0, "999999999999999900000"),
    (1e21, "1e+21"),
    (-1e21, "-1e+21"),
    (2.5e21, "2.5e+21"),
    (1e300, "1e+300"),
    (1.7976931348623157e308 / 10, "1.7976931348623158e+307"),
    (1.7976931348623157e308, "1.7976931348623157e+308"),
    (-1.7976931348623157e308, "-1.7976931348623157e+308"),
    (1e-6, "0.000001"),
    (0.000001234, "0.000001234"),
    (1e-7, "1e-7"),
    (1.5e-7, "1.5e-7"),
    (2.5e-8, "2.5e-8"),
    (123e-20, "1.23e-18"),
    (-1e-300, "-1e-300"),
    (5e-324, "5e-324"),
    (2.2250738585072014e-308, "2.2250738585072014e-308"),
    (2.225073858507201e-308, "2.225073858507201e-308"),
    (float(2**53), "9007199254740992"),
    (float(2**53 + 2), "9007199254740994"),
    (-float(2**53), "-9007199254740992"),
    (float(2**53 - 1), "9007199254740991"),
    (float(2**60), "1152921504606847000"),
    (float(2**64), "18446744073709552000"),
    (1e15 + 0.5, "1000000000000000.5"),
    (123456.789, "123456.789"),
    (5e-7, "5e-7"),
    (0.00001, "0.00001"),
]


class NumberFormat(unittest.TestCase):
    def test_table(self) -> None:
        for value, want in NUMBERS:
            with self.subTest(want=want):
                self.assertEqual(format_number(value), want)
                self.assertEqual(float(want), value)

    def test_ints_are_float64(self) -> None:
        # A Python int is read as JSON.parse reads the same digits: rounded to a float64.
        self.assertEqual(format_number(2**53 + 1), "9007199254740992")
        self.assertEqual(format_number(123456789012345678901234567890), "1.2345678901234568e+29")
        self.assertEqual(format_number(-7), "-7")

    def test_not_numbers(self) -> None:
        for v in (math.nan, math.inf, -math.inf, 10**400):
            with self.assertRaises(ValueError):
                format_number(v)
        with self.assertRaises(TypeError):
            format_number(True)  # type: ignore[arg-type]


class SharedVectors(unittest.TestCase):
    def test_proof_testdata_vectors(self) -> None:
        lines = [l for l in PROOF_VECTORS.read_text(encoding="utf-8").split("\n") if l.strip()]
        self.assertGreaterEqual(len(lines), 10)
        for line in lines:
            v = json.loads(line)  # the reference's own reading: NUL characters are hashed as text
            value = parse_json(json.dumps(v["input"]))
            with self.subTest(canonical=v["canonical"][:60]):
                self.assertEqual(canonicalize(value), v["canonical"])
                self.assertEqual(digest_of(value), v["digest"])

    def test_inputs_as_written(self) -> None:
        # conformance/inputs.ndjson spells numbers and escapes oddly on purpose (1.0, 1E2, -0.0e0,
        # \u escapes): read as written, they give the committed vectors.
        inputs = [l for l in (CONFORMANCE / "inputs.ndjson").read_text(encoding="utf-8").split("\n") if l.strip()]
        vectors = [json.loads(l) for l in PROOF_VECTORS.read_text(encoding="utf-8").split("\n") if l.strip()]
        self.assertEqual(len(inputs), len(vectors))
        for text, v in zip(inputs, vectors):
            self.assertEqual(canonicalize(parse_json(text)), v["canonical"])

    def test_key_order_is_utf16(self) -> None:
        self.assertEqual(
            canonicalize({"\U0001f600": 1, "\uff41": 2, "z": 3, "": 4}),
            '{"":4,"z":3,"\U0001f600":1,"\uff41":2}',
        )

    def test_string_escapes(self) -> None:
        self.assertEqual(canonicalize("\u0000\u001f\b\t\n\f\r\"\\/\u2028\u007f<>&"), '"\\u0000\\u001f\\b\\t\\n\\f\\r\\"\\\\/\u2028\u007f<>&"')


def _random_double(r: random.Random) -> float:
    while True:
        kind = r.randrange(6)
        if kind == 0:
            f = struct.unpack("<d", r.getrandbits(64).to_bytes(8, "little"))[0]
        elif kind == 1:
            f = float(r.randrange(-(2**60), 2**60))
        elif kind == 2:
            f = r.choice([1e21, 1e-6, 1e-7, 1e20, 2.0**53]) * r.choice([1, -1]) * (1 + r.randrange(-3, 4) * 2**-52)
        elif kind == 3:
            f = round(r.uniform(-1e6, 1e6), r.randrange(0, 10))
        elif kind == 4:
            f = r.uniform(0, 1) * 10.0 ** r.randrange(-323, 308)
        else:
            f = float(r.randrange(-1000, 1000)) / r.choice([1, 3, 7, 10, 1000])
        if math.isfinite(f):
            return f


class JavaScriptReference(unittest.TestCase):
    """Thousands of random values: the Python text must be the JavaScript reference's
    (conformance/digest.mjs: the canonicalize package and @noble/hashes) byte for byte."""

    def test_random_values_agree(self) -> None:
        exe = node(self)
        require(self, (CONFORMANCE / "node_modules" / "canonicalize").is_dir(), "conformance/node_modules (make conformance)")
        r = random.Random(8785)
        values = []
        for i in range(3000):
            if i % 3 == 0:
                values.append([_random_double(r) for _ in range(5)])
            else:
                chars = [chr(r.choice([r.randrange(0, 0x80), r.randrange(0x80, 0xD800), r.randrange(0xE000, 0x110000)])) for _ in range(r.randrange(0, 8))]
                key = "".join(chars)
                values.append({key: _random_double(r), key + "x": "".join(reversed(chars)), "n": [True, None, {"": -0.0}]})
        text = "\n".join(json.dumps(v, allow_nan=False) for v in values) + "\n"
        for flag in ("--canonical", None):
            args = [exe, str(CONFORMANCE / "digest.mjs")] + ([flag] if flag else [])
            out = subprocess.run(args, input=text.encode(), capture_output=True, check=True).stdout.decode()
            got = out.split("\n")[:-1]
            self.assertEqual(len(got), len(values))
            for v, js in zip(values, got):
                mine = canonicalize(v) if flag else digest_of(v)
                self.assertEqual(mine, js, f"{v!r}")


if __name__ == "__main__":
    unittest.main()
