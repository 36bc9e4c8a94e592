"""trqp() against a running service (tests/run_live.py starts one and sets SVC_SDK_BASE_URL,
SVC_SDK_API_KEY and SVC_SDK_LOG_KEY). It publishes docs/trqp.md's worked examples through the
API: a namespace whose membership registry "licences" answers (issue, engineer-license) by
record name (alice live, carol revoked) and whose revocation registry "revocations" answers
(present, engineer-license), negative, by details.credential_id (did:example:mallory listed); then asks,
and checks every answer's evidence against the log's key. Skipped without SVC_SDK_BASE_URL."""

from __future__ import annotations

import io
import json
import os
import unittest
import urllib.request
import urllib.response
from typing import Any

import _support  # noqa: F401
from live_test import wait_for
from svc_sdk import Client, StateVerdict, trqp

BASE = os.environ.get("SVC_SDK_BASE_URL", "")
KEY = os.environ.get("SVC_SDK_API_KEY", "")
LOG_KEY = os.environ.get("SVC_SDK_LOG_KEY", "")


class LiveTRQP(unittest.TestCase):
    ns = ""

    @classmethod
    def setUpClass(cls) -> None:
        owner, anyone = Client(BASE, KEY), Client(BASE)
        meta = {"trqp": {"governance_framework": "https://board.example/egf"}}
        cls.ns = owner.create_namespace({"name": "Board", "meta": meta}).raise_for_status().json()["data"]["namespace_id"]
        auth = [{"action": "issue", "resource": "engineer-license"}]
        # The standard tags' built-in schemas (docs/trqp.md's worked examples).
        owner.create_registry(cls.ns, {"registry_name": "licences", "tag": "membership", "meta": {"trqp": {"authorizations": auth}}}).raise_for_status()
        neg = {"authorizations": [{"action": "present", "resource": "engineer-license"}], "polarity": "negative", "entity": "details.credential_id"}
        owner.create_registry(cls.ns, {"registry_name": "revocations", "tag": "revoke", "meta": {"trqp": neg}}).raise_for_status()
        owner.add_record(cls.ns, "revocations", {"record_name": "r-2026-001", "details": {"credential_id": "did:example:mallory", "status": "revoked"}}).raise_for_status()
        owner.add_record(cls.ns, "licences", {"record_name": "alice", "details": {"member_id": "alice", "status": "active"}}).raise_for_status()
        owner.add_record(cls.ns, "licences", {"record_name": "carol", "details": {"member_id": "carol", "status": "active"}}).raise_for_status()
        carol = owner.revoke_record(cls.ns, "licences", "carol").raise_for_status().json()["data"]

        def served():  # type: ignore[no-untyped-def]
            r = anyone.get_log_state(carol["record_id"])
            return r if r.status == 200 and carol["version"] in r.text else None

        wait_for(served, "carol's revocation in the served state index", timeout=60)

    def ask(self, entity: str, action: str, **kw: Any) -> Any:
        q = {"entity_id": entity, "authority_id": self.ns, "action": action, "resource": "engineer-license"}
        opts: dict[str, Any] = {"base_url": BASE, "log_key": LOG_KEY}  # the SDK's own state check
        opts.update(kw)
        return trqp("authorization", q, **opts)

    def test_answers_and_their_evidence(self) -> None:
        for entity, action, yes, message, entry in (
            ("alice", "issue", True, "listed and live", "record"),
            ("carol", "issue", False, "the record is revoked", "record"),
            ("did:example:mallory", "present", False, "listed as revoked", "record"),
            ("did:example:peggy", "present", True, "not listed", "registry"),
        ):
            got = self.ask(entity, action)
            self.assertTrue(got.ok, f"{entity}: {got.reason}")
            self.assertEqual((got.yes, got.message, got.evidence.entry, got.evidence.state.outcome), (yes, message, entry, "current"), entity)
            self.assertEqual(str(got.evidence.log_index), got.answer["context"]["svc_log_index"])

    def test_the_false_of_a_revoked_record_and_forged_answers(self) -> None:
        got = self.ask("carol", "issue")
        self.assertTrue(got.ok, got.reason)
        self.assertFalse(got.yes)
        self.assertEqual(got.evidence.lookup["state"], "revoked")
        real = got.answer

        def forged(change: Any) -> urllib.request.OpenerDirector:
            class Forge(urllib.request.BaseHandler):
                def http_response(self, req: urllib.request.Request, res: Any) -> Any:
                    if req.get_method() != "POST":
                        return res
                    a = json.loads(json.dumps(real))
                    change(a, a["context"])
                    body = json.dumps(a).encode()
                    out = urllib.response.addinfourl(io.BytesIO(body), res.headers, res.url, res.status)
                    out.msg = res.msg
                    return out

            return urllib.request.build_opener(Forge())

        def made_true(a: Any, c: Any) -> None:
            a["authorized"], a["message"] = True, "listed and live"

        for name, change, reason in (
            ("made true", made_true, "the record version that decided is revoked"),
            ("another digest", lambda a, c: c.update(svc_digest="0x" + "0" * 64), "not the evidence's"),
            ("without time_evaluated", lambda a, c: a.pop("time_evaluated"), "time_evaluated is missing"),
            ("a nested context", lambda a, c: c.update(x={}), "context.x is not a string"),
            ("about another entity", lambda a, c: a.update(entity_id="alice"), "not the query's"),
            ("another index", lambda a, c: c.update(svc_log_index=str(int(c["svc_log_index"]) + 1)), "the inclusion proof is of log index"),
            ("another entry's state proof", lambda a, c: c.update(svc_state_url=f"/svc/log/state/{self.ns}"), "is not the state proof"),
            ("not yet logged", lambda a, c: c.pop("svc_log_index"), "not in the transparency log yet"),
        ):
            bad = self.ask("carol", "issue", opener=forged(change))
            self.assertFalse(bad.ok, name)
            self.assertIn(reason, bad.reason, name)
        other = self.ask("carol", "issue", log_key="other.example+00000000+AbCd")
        self.assertFalse(other.ok)
        self.assertIn("the inclusion proof", other.reason)
        stale = self.ask("carol", "issue", check_state=lambda *_: StateVerdict("stale_checkpoint", "too old"))
        self.assertFalse(stale.ok)
        self.assertIn("stale_checkpoint: too old", stale.reason)

    def test_an_unknown_authority(self) -> None:
        got = trqp(
            "authorization",
            {"entity_id": "alice", "authority_id": "did:web:nobody.example", "action": "issue", "resource": "engineer-license"},
            base_url=BASE,
            log_key=LOG_KEY,
        )
        self.assertFalse(got.ok)
        self.assertEqual(got.status, 404)
        self.assertTrue(got.problem["detail"].startswith("Unknown authority"), got.problem)
