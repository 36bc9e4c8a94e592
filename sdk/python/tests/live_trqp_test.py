"""trqp() against a running service (tests/run_live.py starts one and sets SVC_SDK_BASE_URL,
SVC_SDK_API_KEY and SVC_SDK_LOG_KEY). It publishes docs/trqp.md's worked examples through the
API: a namespace whose membership registry "licences" answers (issue, engineer-license) by
record name (alice live, carol revoked) and whose revocation registry "revocations" answers
(present, engineer-license), negative, by details.credential_id (did:example:mallory listed); then asks,
and checks every answer's evidence against the log's key. Skipped without SVC_SDK_BASE_URL."""

from __future__ import annotations

import base64
import io
import json
import os
import unittest
import urllib.request
import urllib.response
from typing import Any

import _support  # noqa: F401
from live_test import wait_for
from svc_sdk import (
    Client,
    StateKey,
    StateVerdict,
    keys_of,
    leaf_hash,
    parse_state_leaf,
    root_from_inclusion_proof,
    trqp,
    verify_absence,
    verify_checkpoint,
    verify_latest,
)

BASE = os.environ.get("SVC_SDK_BASE_URL", "")
KEY = os.environ.get("SVC_SDK_API_KEY", "")
LOG_KEY = os.environ.get("SVC_SDK_LOG_KEY", "")


def check_state_for_test(answer: Any, key: StateKey, have: str | None, log_key: str) -> StateVerdict:
    """Checks a state answer as Go's stateindex.CheckAnswer does (no age bound, no later
    checkpoint), from the SDK's own verifiers. It stands in for the SDK's check_current, built
    elsewhere: once it is in this branch, the lead passes that instead."""

    def bad(m: str) -> StateVerdict:
        return StateVerdict("bad_proof", m)

    b64 = base64.b64decode
    cp = verify_checkpoint(answer["checkpoint"], log_key)
    if not cp.ok:
        return bad(f"checkpoint: {cp.reason}")
    if answer["key"]["kind"] != key.kind or tuple(answer["key"]["parts"]) != key.parts:
        return bad("the answer is about another key")

    def in_tree(leaf: dict[str, Any], path: list[str] | None) -> bool:
        r = root_from_inclusion_proof(leaf["log_index"], cp.size, leaf_hash(leaf["leaf"]), [b64(h) for h in path or []])
        return r is not None and r == cp.root_hash

    st_leaf = answer["state"]
    if st_leaf["log_index"] != cp.size - 1 or not in_tree(st_leaf, answer.get("state_inclusion")):
        return bad("the state leaf is not the checkpoint's last")
    st = parse_state_leaf(st_leaf["leaf"])
    if st["size"] != st_leaf["log_index"]:
        return bad("not a state leaf of its index")
    root = b64(st["root"])
    if not answer["present"]:
        v = verify_absence(root, key, b64(answer["proof"]))
        return StateVerdict("absent", "absent") if v.ok else bad(v.reason)
    latest = answer["latest"]
    if not in_tree(latest, answer.get("latest_inclusion")) or key not in keys_of(latest["leaf"]):
        return bad("the latest leaf is not the key's, in the tree")
    v = verify_latest(root, key, answer["count"], b64(answer["list_root"]), latest["log_index"], [b64(h) for h in answer.get("list_proof") or []], b64(answer["proof"]))
    if not v.ok:
        return bad(v.reason)
    return StateVerdict("current", "current") if have is None or have == latest["leaf"] else StateVerdict("superseded", "a newer version exists")


@unittest.skipUnless(BASE, "SKIPPING: SVC_SDK_BASE_URL is not set (tests/run_live.py sets it)")
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
        opts: dict[str, Any] = {"base_url": BASE, "log_key": LOG_KEY, "check_state": check_state_for_test}
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
            check_state=check_state_for_test,
        )
        self.assertFalse(got.ok)
        self.assertEqual(got.status, 404)
        self.assertTrue(got.problem["detail"].startswith("Unknown authority"), got.problem)
