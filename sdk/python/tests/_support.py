"""Paths of the repository's shared test data, and the CI rule for missing tools."""

from __future__ import annotations

import os
import pathlib
import shutil
import sys
import unittest

SDK = pathlib.Path(__file__).resolve().parent.parent
ROOT = SDK.parent.parent
sys.path.insert(0, str(SDK / "src"))

# The shared vectors: the Go verifier's verdicts on lookups (also read by the TypeScript SDK's
# tests and server/sdk_ts_test.go), and the JavaScript reference's canonical texts and digests
# (proof/testdata, written by conformance/vectors.mjs).
LOOKUP_VECTORS = ROOT / "sdk" / "typescript" / "test" / "vectors.json"
PROOF_VECTORS = ROOT / "proof" / "testdata" / "vectors.ndjson"
CONFORMANCE = ROOT / "conformance"


def in_ci() -> bool:
    return os.environ.get("CI") == "true"


def require(test: unittest.TestCase, ok: bool, what: str) -> None:
    """Skips the test when ok is false, with what is missing; under CI=true fails it instead."""
    if ok:
        return
    if in_ci():
        test.fail(f"{what} is required in CI")
    test.skipTest(f"SKIPPING: {what} is missing")


def node(test: unittest.TestCase) -> str:
    path = shutil.which("node")
    require(test, path is not None, "node")
    assert path is not None
    return path
