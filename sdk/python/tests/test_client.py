"""The client over urllib against a local HTTP server that records what it is sent."""

from __future__ import annotations

import http.server
import json
import threading
import unittest
import urllib.parse

import _support  # noqa: F401
from svc_sdk import CONSISTENCY_HEADER, Client, SvcError, token_position


class Recorder(http.server.BaseHTTPRequestHandler):
    seen: list[dict] = []

    def log_message(self, *args: object) -> None:
        pass

    def answer(self) -> None:
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n) if n else b""
        Recorder.seen.append({"method": self.command, "path": self.path, "headers": dict(self.headers), "body": body})
        if self.path.startswith("/svc/lookup/missing"):
            payload, status, ctype = b'{"message":"Namespace not found","code":"not_found"}', 404, "application/json"
        elif self.path == "/svc/log/checkpoint":
            payload, status, ctype = b"origin\n1\nAAAA\n\n\xe2\x80\x94 origin sig\n", 200, "text/plain; charset=utf-8"
        else:
            payload, status, ctype = b'{"message":"ok","data":{"x":1}}', 201 if self.command == "POST" else 200, "application/json"
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(payload)))
        if self.command == "POST":
            self.send_header(CONSISTENCY_HEADER, "0/1A" if b"first" in body else "0/2B")
        self.end_headers()
        self.wfile.write(payload)

    do_GET = do_POST = answer


class ClientOverHTTP(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        cls.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
        cls.thread = threading.Thread(target=cls.server.serve_forever, daemon=True)
        cls.thread.start()
        cls.base = f"http://127.0.0.1:{cls.server.server_address[1]}"

    @classmethod
    def tearDownClass(cls) -> None:
        cls.server.shutdown()
        cls.server.server_close()

    def setUp(self) -> None:
        Recorder.seen.clear()

    def test_paths_queries_and_key(self) -> None:
        c = Client(self.base + "/", "svc_key")
        c.lookup_record("did:svc:a/b", "employees", "alice", version_id="0x01")
        c.search_records("ns", record_name="al ice", extra_query={"address.city": "Zürich", "n": 5})
        c.get_log_tile("0/x001/234.p/17")
        anon = Client(self.base)
        anon.lookup_namespace("ns")
        paths = [s["path"] for s in Recorder.seen]
        self.assertEqual(paths[0], "/svc/lookup/did%3Asvc%3Aa%2Fb/employees/alice?version_id=0x01")
        self.assertEqual(paths[1], "/svc/search/ns?record_name=al%20ice&address.city=Z%C3%BCrich&n=5")
        self.assertEqual(paths[2], "/svc/log/tile/0/x001/234.p/17", "the rest-of-path parameter keeps its slashes")
        self.assertEqual(Recorder.seen[0]["headers"].get("Authorization"), "Bearer svc_key")
        self.assertNotIn("Authorization", Recorder.seen[3]["headers"])

    def test_any_name_is_one_encoded_segment(self) -> None:
        # The names of a hostile DeDi file (issue 42): each travels as one path segment,
        # percent-encoded, and the server reads back exactly the name.
        c = Client(self.base)
        names = {
            "<img src=x onerror=alert(1)>": "%3Cimg%20src%3Dx%20onerror%3Dalert%281%29%3E",
            "../../etc/passwd": "..%2F..%2Fetc%2Fpasswd",
            "a/b?c#d": "a%2Fb%3Fc%23d",
            " spaced ": "%20spaced%20",
            "ad\u202emin": "ad%E2%80%AEmin",
            "\u0430dmin": "%D0%B0dmin",
            "100%": "100%25",
        }
        for name, encoded in names.items():
            Recorder.seen.clear()
            c.lookup_record("pub.example", "<svg onload=alert(1)>", name)
            c.list_record_versions("pub.example", "<svg onload=alert(1)>", name)
            reg = "%3Csvg%20onload%3Dalert%281%29%3E"
            self.assertEqual(Recorder.seen[0]["path"], "/svc/lookup/pub.example/" + reg + "/" + encoded)
            self.assertEqual(Recorder.seen[1]["path"], "/svc/versions/pub.example/" + reg + "/" + encoded)
            self.assertEqual(urllib.parse.unquote(Recorder.seen[0]["path"].rsplit("/", 1)[1]), name)

    def test_bodies_and_answers(self) -> None:
        c = Client(self.base, "svc_key")
        res = c.create_namespace({"name": "Acme", "meta": {"n": 1.5}})
        self.assertEqual((res.status, res.ok, res.data), (201, True, {"x": 1}))
        sent = Recorder.seen[-1]
        self.assertEqual(sent["headers"]["Content-Type"], "application/json")
        self.assertEqual(json.loads(sent["body"]), {"name": "Acme", "meta": {"n": 1.5}})
        c.bulk_upload_records("ns", "reg", {"file": ("records.csv", b"record_name\nalice\n", "text/csv")})
        sent = Recorder.seen[-1]
        self.assertTrue(sent["headers"]["Content-Type"].startswith("multipart/form-data; boundary="))
        self.assertIn(b'filename="records.csv"', sent["body"])
        self.assertIn(b"record_name\nalice\n", sent["body"])
        missing = c.lookup_namespace("missing")
        self.assertEqual(missing.status, 404)
        with self.assertRaises(SvcError) as caught:
            missing.raise_for_status()
        self.assertEqual((caught.exception.status, caught.exception.code), (404, "not_found"))
        text = c.get_log_checkpoint()
        self.assertEqual(text.text, "origin\n1\nAAAA\n\n\u2014 origin sig\n")

    def test_reads_its_own_writes(self) -> None:
        c = Client(self.base, "svc_key")
        c.lookup_namespace("ns")
        self.assertNotIn(CONSISTENCY_HEADER, Recorder.seen[-1]["headers"])
        c.create_namespace({"name": "first"})  # answered 0/1A
        c.lookup_namespace("ns")
        self.assertEqual(Recorder.seen[-1]["headers"].get(CONSISTENCY_HEADER), "0/1A")
        c.create_namespace({"name": "second"})  # answered 0/2B: newer
        c.create_namespace({"name": "first"})  # answered 0/1A: older, 0/2B is kept
        c.lookup_namespace("ns")
        self.assertEqual(Recorder.seen[-1]["headers"].get(CONSISTENCY_HEADER), "0/2B")
        c.lookup_namespace("ns", svc_consistency_token="0/FF")
        self.assertEqual(Recorder.seen[-1]["headers"].get(CONSISTENCY_HEADER), "0/FF", "a token set by the call wins")
        off = Client(self.base, read_your_writes=False)
        off.create_namespace({"name": "x"})
        off.lookup_namespace("ns")
        self.assertNotIn(CONSISTENCY_HEADER, Recorder.seen[-1]["headers"])
        self.assertEqual(token_position("16/B374D848"), (0x16 << 32) | 0xB374D848)
        self.assertIsNone(token_position("nope"))


if __name__ == "__main__":
    unittest.main()
