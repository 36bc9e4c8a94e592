#!/usr/bin/env python3
"""Runs tests/live_test.py and tests/live_trqp_test.py against a real `svc serve` on a temporary SQLite database.

    python3 sdk/python/tests/run_live.py [--svc bin/svc]

It makes a transparency-log key with `svc log key create` (the verifier key is what the test
trusts, not what the service says), serves on a free loopback port with that key, creates an API
key with `svc key create`, and runs the live test with SVC_SDK_BASE_URL, SVC_SDK_API_KEY and
SVC_SDK_LOG_KEY set. It fails when any test failed or was skipped, and stops the server.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import socket
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.request

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent.parent
ORIGIN = "python-sdk.test/svc/log"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--svc", default=str(ROOT / "bin" / "svc"), help="the svc binary (make build)")
    args = ap.parse_args()
    svc = pathlib.Path(args.svc).resolve()
    if not svc.exists():
        print(f"{svc} is missing: run `make build`", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="svc-python-sdk-") as tmp:
        port = free_port()
        env = dict(os.environ)
        env.update(
            SVC_DATABASE_URL=f"sqlite://{tmp}/svc.db",
            SVC_ADDR=f"127.0.0.1:{port}",
            SVC_LOG_ORIGIN=ORIGIN,
            SVC_LOG_KEY_FILE=f"{tmp}/log.key",
        )
        log_key = subprocess.run(
            [svc, "log", "key", "create", "--origin", ORIGIN, "--out", f"{tmp}/log.key"], env=env, capture_output=True, text=True, check=True
        ).stdout.strip()
        with open(f"{tmp}/svc.log", "w") as logf:
            server = subprocess.Popen([svc, "serve"], env=env, stdout=logf, stderr=subprocess.STDOUT)
        try:
            base = f"http://127.0.0.1:{port}"
            for _ in range(200):
                try:
                    with urllib.request.urlopen(base + "/readyz", timeout=1) as r:
                        if r.status == 200:
                            break
                except OSError:
                    time.sleep(0.05)
            else:
                print("the service did not get ready:\n" + pathlib.Path(f"{tmp}/svc.log").read_text(), file=sys.stderr)
                return 1
            api_key = subprocess.run(
                [svc, "key", "create", "--email", "python@example.com"], env=env, capture_output=True, text=True, check=True
            ).stdout.strip()
            os.environ.update(SVC_SDK_BASE_URL=base, SVC_SDK_API_KEY=api_key, SVC_SDK_LOG_KEY=log_key)
            sys.path.insert(0, str(HERE))
            suite = unittest.defaultTestLoader.loadTestsFromNames(["live_test", "live_trqp_test"])
            result = unittest.TextTestRunner(verbosity=2).run(suite)
            if result.skipped:
                print(f"{len(result.skipped)} live tests skipped: every one must run here", file=sys.stderr)
                return 1
            if not result.wasSuccessful():
                print("the service's log:\n" + pathlib.Path(f"{tmp}/svc.log").read_text()[-4000:], file=sys.stderr)
                return 1
            print(f"python live test: {result.testsRun} tests passed against {svc.name} serve")
            return 0
        finally:
            server.terminate()
            try:
                server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                server.kill()


if __name__ == "__main__":
    sys.exit(main())
