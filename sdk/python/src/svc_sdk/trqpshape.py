"""The shape of TRQP v2.0 documents, checked by hand from the rules of TRQP's four JSON Schemas
(trqp/schemas in the repository: the SDK uses the standard library only). The shared vectors
trqp/testdata/answers.json hold this check to what a JSON Schema validator over the schemas
themselves says (the Go SDK's client.CheckTRQPDocument)."""

from __future__ import annotations

import re
from typing import Any

# [0-9], not \\d: \\d matches every Unicode digit in a str pattern.
_DATE_TIME = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt]([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.[0-9]+)?(?:[Zz]|([+-])([0-9]{2}):([0-9]{2}))"
)


def is_date_time(s: Any) -> bool:
    """Whether s is an RFC 3339 date-time (JSON Schema's ``date-time`` format): a real calendar
    date, hours to 23, minutes to 59, seconds to 60 (a leap second only at 23:59 UTC), an optional
    fraction, and ``Z`` or a numeric offset of at most 23:59."""
    if not isinstance(s, str):
        return False
    m = _DATE_TIME.fullmatch(s)
    if m is None:
        return False
    y, mo, d, h, mi, sec = (int(x) for x in m.groups()[:6])
    leap = (y % 4 == 0 and y % 100 != 0) or y % 400 == 0
    days = [31, 29 if leap else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
    if not 1 <= mo <= 12 or not 1 <= d <= days[mo - 1]:
        return False
    if h > 23 or mi > 59 or sec > 60:
        return False
    utc = h * 60 + mi
    if m.group(7) is not None:
        zh, zm = int(m.group(8)), int(m.group(9))
        if zh > 23 or zm > 59:
            return False
        utc = (utc - (1 if m.group(7) == "+" else -1) * (zh * 60 + zm)) % 1440
    return sec < 60 or utc == 23 * 60 + 59


def check_trqp_document(kind: str, side: str, doc: Any) -> str:
    """Checks a TRQP document against the rules of its schema: a request (the body of
    ``POST /authorization`` or ``/recognition``) or a response (its 200 answer). Returns "" when
    it is valid, else the first rule it breaks. The rules:

    - the document is an object; ``entity_id``, ``authority_id``, ``action`` and ``resource``
      are required strings (any string, the empty one too); other members are allowed;
    - a response requires ``time_evaluated`` and ``authorized`` (or ``recognized``), a boolean;
      ``message`` is a string; ``time_requested`` and ``time_evaluated`` are RFC 3339 date-times;
    - ``context``, when present, is an object whose members are all strings; in a request its
      ``time`` is also a date-time.
    """
    if kind not in ("authorization", "recognition"):
        return f"no TRQP query is called {kind!r}"
    if side not in ("request", "response"):
        return f"a TRQP document is a request or a response, not {side!r}"

    def fail(reason: str) -> str:
        return f"the {kind} {side}: {reason}"

    if not isinstance(doc, dict):
        return fail("is not an object")
    flag = "authorized" if kind == "authorization" else "recognized"
    required = ["entity_id", "action", "resource", "authority_id"]
    strings = ["entity_id", "authority_id", "action", "resource"]
    if side == "response":
        required += ["time_evaluated", flag]
        strings += ["message", "time_requested", "time_evaluated"]
    for k in required:
        if k not in doc:
            return fail(f"{k} is missing")
    for k in strings:
        if k in doc and not isinstance(doc[k], str):
            return fail(f"{k} is not a string")
    if side == "response":
        for k in ("time_requested", "time_evaluated"):
            if k in doc and not is_date_time(doc[k]):
                return fail(f"{k} is not an RFC 3339 date-time")
        if not isinstance(doc[flag], bool):
            return fail(f"{flag} is not a boolean")
    if "context" in doc:
        c = doc["context"]
        if not isinstance(c, dict):
            return fail("context is not an object")
        for k, v in c.items():
            if not isinstance(v, str):
                return fail(f"context.{k} is not a string")
        if side == "request" and "time" in c and not is_date_time(c["time"]):
            return fail("context.time is not an RFC 3339 date-time")
    return ""
