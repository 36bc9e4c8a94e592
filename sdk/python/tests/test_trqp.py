"""The TRQP helper's hand-written shape check against the shared vectors
(trqp/testdata/answers.json, whose verdicts the Go SDK's JSON Schema validation over TRQP's own
schemas holds), and its refusals that need no service. live_test.py asks a real service."""

from __future__ import annotations

import http.server
import json
import threading
import unittest

from _support import ROOT
from svc_sdk import check_trqp_document, is_date_time, trqp

VECTORS = json.loads((ROOT / "trqp" / "testdata" / "answers.json").read_text())


class Shape(unittest.TestCase):
    def test_vectors(self) -> None:
        valid = 0
        for c in VECTORS["cases"]:
            reason = check_trqp_document(c["kind"], c["side"], c["document"])
            self.assertEqual(reason == "", c["valid"], f"{c['name']}: {reason}")
            if reason:
                self.assertTrue(reason.startswith(f"the {c['kind']} {c['side']}: "), reason)
            valid += c["valid"]
        self.assertTrue(0 < valid < len(VECTORS["cases"]) and len(VECTORS["cases"]) >= 20)

    def test_date_time(self) -> None:
        for ok in ("2026-04-01T00:00:00Z", "2026-04-01t00:00:00.123456789z", "2000-02-29T23:59:60Z", "2026-06-30T19:59:60-04:00", "2026-01-01T00:00:00+23:59"):
            self.assertTrue(is_date_time(ok), ok)
        for bad in (
            "2026-04-01",
            "2026-04-01T00:00:00",
            "1900-02-29T00:00:00Z",
            "2026-04-31T00:00:00Z",
            "2026-04-01T00:00:60Z",
            "2026-04-01T00:00:00+24:00",
            "2026-04-01T00:00:00.Z",
            "٢٠٢٦-04-01T00:00:00Z",
            "2026-04-01T00:00:00Z\n",
            "2026-4-01T00:00:00Z",
            None,
        ):
            self.assertFalse(is_date_time(bad), bad)


class Refusals(unittest.TestCase):
    def test_an_invalid_query_is_not_sent(self) -> None:
        def never(*_: object) -> None:
            raise AssertionError("no state check for an invalid query")

        got = trqp(
            "authorization",
            {"entity_id": "a", "authority_id": "b", "action": "c", "resource": "d", "context": {"time": "now"}},
            base_url="http://127.0.0.1:9",
            log_key="k",
            check_state=never,  # type: ignore[arg-type]
        )
        self.assertFalse(got)
        self.assertEqual(got.reason, "the query: the authorization request: context.time is not an RFC 3339 date-time")

    def test_a_problem_answer(self) -> None:
        problem = {"type": "about:blank", "title": "Not Found", "status": 404, "detail": "Unknown authority: no namespace is b", "code": "not_found"}

        class H(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                self.rfile.read(int(self.headers["Content-Length"]))
                body = json.dumps(problem).encode()
                self.send_response(404 if self.path == "/recognition" else 500)
                self.send_header("Content-Type", "application/problem+json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *_: object) -> None:
                pass

        srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
        threading.Thread(target=srv.serve_forever, daemon=True).start()
        try:
            got = trqp(
                "recognition",
                {"entity_id": "a", "authority_id": "b", "action": "c", "resource": "d"},
                base_url=f"http://127.0.0.1:{srv.server_address[1]}",
                log_key="k",
                check_state=lambda *_: None,  # type: ignore[arg-type,return-value]
            )
        finally:
            srv.shutdown()
            srv.server_close()
        self.assertFalse(got)
        self.assertEqual(got.status, 404)
        self.assertEqual(got.problem, problem)
        self.assertEqual(got.reason, "the recognition query answered 404: Not Found: Unknown authority: no namespace is b")


if __name__ == "__main__":
    unittest.main()
