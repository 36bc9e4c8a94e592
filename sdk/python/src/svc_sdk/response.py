"""The answer of an operation, whatever its status."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar, cast

T = TypeVar("T")

__all__ = ["Response", "SvcError"]


class SvcError(Exception):
    """An answer outside 2xx, raised by Response.raise_for_status(): its status, the body's
    ``message`` and ``code`` (docs/errors.md), and the response."""

    def __init__(self, response: "Response[Any]") -> None:
        self.response = response
        self.status = response.status
        body = response.error_body()
        self.message = str(body.get("message", "")) if body else response.text[:200]
        self.code = str(body.get("code", "")) if body else ""
        super().__init__(f"{response.method} {response.url}: {self.status} {self.code} {self.message}".replace("  ", " "))


@dataclass
class Response(Generic[T]):
    """An HTTP answer: ``status``, ``headers`` (names in lower case), the raw ``body`` bytes
    and, for convenience, ``json()`` (the JSON body, typed by the operation's 2xx schema),
    ``data`` (its ``data`` member) and ``text`` (the body as UTF-8: the checkpoint, the log key).
    Verify lookups from ``body``, the bytes the service signed, not from a re-serialization."""

    method: str
    url: str
    status: int
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300

    @property
    def content_type(self) -> str:
        return self.headers.get("content-type", "")

    @property
    def text(self) -> str:
        return self.body.decode("utf-8")

    def json(self) -> T:
        """The body parsed as JSON (ValueError when it is not JSON)."""
        return cast(T, json.loads(self.body))

    @property
    def data(self) -> Any:
        """The ``data`` member of a JSON body (None when there is none)."""
        v = self.json()
        return v.get("data") if isinstance(v, dict) else None

    def error_body(self) -> dict[str, Any] | None:
        try:
            v = json.loads(self.body)
        except ValueError:
            return None
        return v if isinstance(v, dict) else None

    def raise_for_status(self) -> "Response[T]":
        """Returns the response when its status is 2xx (or 304); raises SvcError otherwise."""
        if not self.ok and self.status != 304:
            raise SvcError(self)
        return self
