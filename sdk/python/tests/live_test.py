"""The SDK against a running service (tests/run_live.py starts one and sets the variables):
SVC_SDK_BASE_URL, SVC_SDK_API_KEY and SVC_SDK_LOG_KEY (the log's verifier key, from
`svc log key create`, not from the service). Skipped without SVC_SDK_BASE_URL."""

from __future__ import annotations

import json
import os
import time
import unittest
import uuid

import _support  # noqa: F401
from svc_sdk import (
    Client,
    SvcError,
    log_leaf,
    parse_tlog_policy,
    verify_checkpoint,
    verify_checkpoint_with_policy,
    verify_consistency,
    verify_current,
    verify_inclusion,
    verify_lookup,
    verify_tlog_proof,
)

BASE = os.environ.get("SVC_SDK_BASE_URL", "")
KEY = os.environ.get("SVC_SDK_API_KEY", "")
LOG_KEY = os.environ.get("SVC_SDK_LOG_KEY", "")


def wait_for(fn, what: str, timeout: float = 30.0):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while True:
        v = fn()
        if v:
            return v
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


@unittest.skipUnless(BASE, "SKIPPING: SVC_SDK_BASE_URL is not set (tests/run_live.py sets it)")
class Live(unittest.TestCase):
    ns = ""

    @classmethod
    def setUpClass(cls) -> None:
        cls.owner = Client(BASE, KEY)
        cls.anyone = Client(BASE)
        ns = cls.owner.create_namespace({"name": "Acme", "description": "Acme from Python"}).raise_for_status()
        assert ns.status == 201
        cls.ns = ns.json()["data"]["namespace_id"]
        schema = {"type": "object", "properties": {"email": {"type": "string"}, "n": {"type": "number"}}}
        cls.owner.create_registry(cls.ns, {"registry_name": "employees", "tag": "custom", "schema": schema}).raise_for_status()
        details = {"email": "alice@example.com", "n": 1e21, "tiny": 1e-7, "name": "Zoë \u2028 😀"}
        cls.owner.add_record(cls.ns, "employees", {"record_name": "alice", "details": details}).raise_for_status()

    def test_lookups_verify(self) -> None:
        for kind, res in (
            ("namespace", self.anyone.lookup_namespace(self.ns)),
            ("registry", self.anyone.lookup_registry(self.ns, "employees")),
            ("record", self.anyone.lookup_record(self.ns, "employees", "alice")),
        ):
            self.assertEqual(res.status, 200, res.text)
            got = verify_lookup(kind, res.body)
            self.assertTrue(got.ok, got.reason)
            self.assertEqual(got.digest, res.json()["data"]["proof"]["digest"])
            self.assertTrue(verify_lookup(kind, res.json()).ok, "the parsed body verifies too")
            tampered = res.body.replace(b'"version_count":1', b'"version_count":2', 1)
            self.assertNotEqual(tampered, res.body)
            self.assertFalse(verify_lookup(kind, tampered).ok)

    def test_verify_through_the_service_needs_a_key(self) -> None:
        res = self.anyone.lookup_record(self.ns, "employees", "alice")
        body = {"record_lookup_response": json.loads(res.body)}
        self.assertEqual(self.owner.verify_record_lookup(body).status, 200)
        without = self.anyone.verify_record_lookup(body)
        self.assertEqual(without.status, 401, without.text)
        with self.assertRaises(SvcError) as caught:
            without.raise_for_status()
        self.assertEqual(caught.exception.status, 401)
        body["record_lookup_response"]["data"]["details"]["email"] = "mallory@example.com"
        self.assertEqual(self.owner.verify_record_lookup(body).status, 400)

    def test_search_and_errors(self) -> None:
        found = self.anyone.search_records(self.ns, extra_query={"email": "ALICE@"}).raise_for_status()
        self.assertEqual([r["record_name"] for r in found.json()["data"]], ["alice"])
        missing = self.anyone.lookup_record(self.ns, "employees", "bob")
        self.assertEqual(missing.status, 404)
        with self.assertRaises(SvcError) as caught:
            missing.raise_for_status()
        self.assertTrue(caught.exception.code, "an error has a code")

    def test_tlog_proof_and_current_lookup(self) -> None:
        self.assertTrue(LOG_KEY, "SVC_SDK_LOG_KEY")
        policy = parse_tlog_policy(self.anyone.get_log_policy().raise_for_status().text)
        self.assertEqual((policy.logs, policy.quorum), ((LOG_KEY,), "none"))
        res = self.anyone.lookup_record(self.ns, "employees", "alice").raise_for_status()
        data = res.json()["data"]
        proof = wait_for(lambda: (lambda r: r if r.status == 200 else None)(self.anyone.get_log_proof(data["version"])), "the record's tlog-proof")
        self.assertTrue(proof.content_type.startswith("text/plain"))
        got = verify_tlog_proof(proof.text, policy, log_leaf("record", data))
        self.assertTrue(got.ok, got.reason)
        self.assertEqual(verify_tlog_proof(proof.text, policy).leaf, log_leaf("record", data))
        reg = self.anyone.lookup_registry(self.ns, "employees").json()["data"]
        self.assertEqual(verify_tlog_proof(proof.text, policy, log_leaf("registry", reg)).stage, "leaf")
        # A lookup with prove=current carries the state proof of the record; its checkpoint
        # verifies under the policy.
        cur = wait_for(lambda: (lambda r: r if r.status == 200 else None)(self.anyone.lookup_record(self.ns, "employees", "alice", prove="current")),
                       "the record's state proof")
        body = cur.json()
        self.assertTrue(body["is_latest"])
        self.assertEqual(body["latest_logged"]["version"], data["version"])
        cp = verify_checkpoint_with_policy(body["state_proof"]["checkpoint"], policy)
        self.assertTrue(cp.ok, cp.reason)

    def test_log(self) -> None:
        self.assertTrue(LOG_KEY, "SVC_SDK_LOG_KEY")
        key = self.anyone.get_log_key().raise_for_status()
        self.assertEqual(key.text.strip(), LOG_KEY, "the service serves the operator's verifier key")
        res = self.anyone.lookup_record(self.ns, "employees", "alice")
        version = res.json()["data"]["version"]

        def inclusion():  # type: ignore[no-untyped-def]
            r = self.anyone.get_log_inclusion(version)
            return r if r.status == 200 else None

        proof = wait_for(inclusion, "the record's version in the log")
        got = verify_inclusion(proof.body, LOG_KEY, kind="record", lookup=res.body)
        self.assertTrue(got.ok, got.reason)
        other = self.anyone.lookup_registry(self.ns, "employees")
        wrong = verify_inclusion(proof.body, LOG_KEY, kind="registry", lookup=other.body)
        self.assertFalse(wrong.ok)
        self.assertIn("is not the lookup's leaf", wrong.reason)
        tampered = json.loads(proof.body)
        tampered["leaf"] = tampered["leaf"].replace('"version_count":1', '"version_count":2')
        self.assertEqual(verify_inclusion(tampered, LOG_KEY).reason, "the audit path does not lead to the checkpoint's root hash")

        old = self.anyone.get_log_checkpoint().raise_for_status()
        self.assertTrue(old.content_type.startswith("text/plain"))
        old_cp = verify_checkpoint(old.text, LOG_KEY)
        self.assertTrue(old_cp.ok, old_cp.reason)
        for i in range(3):
            self.owner.add_record(self.ns, "employees", {"record_name": f"r{i}-{uuid.uuid4().hex[:6]}", "details": {}}).raise_for_status()

        def grown():  # type: ignore[no-untyped-def]
            r = self.anyone.get_log_checkpoint()
            cp = verify_checkpoint(r.text, LOG_KEY)
            return r if cp.ok and cp.size >= old_cp.size + 3 else None

        new = wait_for(grown, "three more leaves in the log")
        new_cp = verify_checkpoint(new.text, LOG_KEY)
        cons = self.anyone.get_log_consistency(from_=old_cp.size, to=new_cp.size).raise_for_status()
        got_c = verify_consistency(old.text, new.text, cons.body, LOG_KEY)
        self.assertTrue(got_c.ok, got_c.reason)
        self.assertEqual((got_c.old_size, got_c.new_size), (old_cp.size, new_cp.size))
        # The entry bundle of the first leaves (C2SP tlog-tiles: a 16-bit big-endian length, then
        # the leaf) holds the leaves of the log in order; this namespace's first version is one.
        size = min(new_cp.size, 256)
        bundle = self.anyone.get_log_tile("entries/000" if size == 256 else f"entries/000.p/{size}")
        self.assertEqual(bundle.status, 200)
        leaves, b = [], bundle.body
        while b:
            n = int.from_bytes(b[:2], "big")
            leaves.append(b[2 : 2 + n].decode())
            b = b[2 + n :]
        self.assertEqual(len(leaves), size)
        ns = self.anyone.lookup_namespace(self.ns).json()["data"]
        self.assertIn(log_leaf("namespace", ns), leaves)

    def test_stale_answer_is_superseded(self) -> None:
        """The stale-answer attack: a lookup of a record's first version (what a stale instance,
        cache or mirror serves after the record changed) still verifies, digest and inclusion
        proof, but verify_current, asking the service's state query, finds it superseded and
        names the latest version; the latest is current."""
        name = f"stale-{uuid.uuid4().hex[:6]}"
        self.owner.add_record(self.ns, "employees", {"record_name": name, "details": {"n": 1}}).raise_for_status()
        first = self.anyone.lookup_record(self.ns, "employees", name).raise_for_status()

        def judged(body: bytes, want: str):  # type: ignore[no-untyped-def]
            # The serving index follows the published checkpoints (every 250 ms): wait until the
            # verdict is the one the log will settle on; any other is returned at the deadline.
            try:
                v = verify_current(self.anyone, "record", body, log_key=LOG_KEY)
            except SvcError as e:  # 503 while the index catches up
                self.assertEqual(e.status, 503, str(e))
                return None
            return v if v.outcome == want else None

        v = wait_for(lambda: judged(first.body, "current"), "the first version to be current")
        self.assertIn("the log's own clock", v.message)
        self.owner.update_record(self.ns, "employees", name, {"details": {"n": 2}}).raise_for_status()
        second = self.anyone.lookup_record(self.ns, "employees", name).raise_for_status()
        self.assertTrue(verify_lookup("record", first.body).ok, "the stale answer is a real version: its digest verifies")
        v = wait_for(lambda: judged(first.body, "superseded"), "the first version to be superseded")
        data = second.json()["data"]
        self.assertEqual((v.latest_version, v.latest_version_count), (data["version"], 2))
        self.assertIn(f"version {data['version']} (version_count 2), at log index {v.latest_index}", v.message)
        self.assertEqual(wait_for(lambda: judged(second.body, "current"), "the second version to be current").outcome, "current")
        # The verdict of a lookup that does not verify is bad_proof, without asking.
        tampered = json.loads(first.body)
        tampered["data"]["details"]["n"] = 3
        self.assertEqual(verify_current(self.anyone, "record", tampered, log_key=LOG_KEY).outcome, "bad_proof")


if __name__ == "__main__":
    unittest.main()
