"""The HTTP client: the generated operations (``_generated.Operations``) over urllib."""

from __future__ import annotations

import json
import re
import threading
import urllib.error
import urllib.parse
import urllib.request
import uuid
from typing import Any, Mapping

from ._generated import Operations
from .response import Response

__all__ = ["Client", "CONSISTENCY_HEADER", "token_position"]

CONSISTENCY_HEADER = "Svc-Consistency-Token"
"""The header that carries a consistency token (docs/deployment.md)."""


def token_position(token: str) -> int | None:
    """The position a consistency token names ("16/B374D848"), to order tokens; None if malformed."""
    m = re.fullmatch(r"([0-9A-Fa-f]{1,8})/([0-9A-Fa-f]{1,8})", token)
    return None if m is None else (int(m.group(1), 16) << 32) | int(m.group(2), 16)


class Client(Operations):
    """A client of the svc API: one method per operation of the contract (generated from
    openapi.yaml), e.g. ``client.lookup_record(namespace, "employees", "alice")``.

    ``base_url`` is where the service answers, without ``/svc``. ``api_key`` (``svc_…``) is sent
    as ``Authorization: Bearer <key>``: lookups, queries, versions and searches work without
    one; publishing, the verify-*-lookup operations and domain operations need one.

    The client reads its own writes: it keeps the newest ``Svc-Consistency-Token`` its writes
    were answered with and sends it on its GET requests (unless the call sets one), so a service
    that reads from replicas answers them from a database that has the writes.
    ``read_your_writes=False`` turns that off.
    """

    def __init__(
        self,
        base_url: str,
        api_key: str | None = None,
        *,
        timeout: float = 30.0,
        headers: Mapping[str, str] | None = None,
        read_your_writes: bool = True,
        opener: urllib.request.OpenerDirector | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.headers = dict(headers or {})
        if api_key:
            self.headers["Authorization"] = f"Bearer {api_key}"
        self.read_your_writes = read_your_writes
        self._opener = opener or urllib.request.build_opener(_NoRedirect)
        self._lock = threading.Lock()
        self._newest: tuple[int, str] | None = None

    def _call(
        self,
        method: str,
        path: str,
        path_params: Mapping[str, str],
        query: Mapping[str, Any],
        headers: Mapping[str, Any],
        body: Any,
        body_type: str | None,
    ) -> Response[Any]:
        # {name} is one path segment; {+name} the rest of the path, slashes kept (RFC 6570)
        url = self.base_url + re.sub(
            r"\{(\+?)([^}]+)\}",
            lambda m: urllib.parse.quote(str(path_params[m.group(2)]), safe="/" if m.group(1) else ""),
            path,
        )
        pairs = [(k, _query_text(v)) for k, v in query.items() if v is not None]
        if pairs:
            url += "?" + urllib.parse.urlencode(pairs, quote_via=urllib.parse.quote)
        h = dict(self.headers)
        h.update({k: str(v) for k, v in headers.items() if v is not None})
        data = None
        if body is not None:
            data, h["Content-Type"] = _encode_body(body, body_type or "application/json")
        if method == "GET" and self.read_your_writes and CONSISTENCY_HEADER not in h:
            with self._lock:
                if self._newest is not None:
                    h[CONSISTENCY_HEADER] = self._newest[1]
        req = urllib.request.Request(url, data=data, headers=h, method=method)
        try:
            with self._opener.open(req, timeout=self.timeout) as r:
                status, raw_headers, payload = r.status, r.headers, r.read()
        except urllib.error.HTTPError as e:
            status, raw_headers, payload = e.code, e.headers, e.read()
        res: Response[Any] = Response(
            method=method, url=url, status=status, headers={k.lower(): v for k, v in raw_headers.items()}, body=payload
        )
        token = res.headers.get(CONSISTENCY_HEADER.lower())
        if method != "GET" and res.ok and token is not None:
            at = token_position(token)
            with self._lock:
                if at is not None and (self._newest is None or at > self._newest[0]):
                    self._newest = (at, token)
        return res


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    # The API does not redirect; a 3xx is answered to the caller as it is.
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


def _query_text(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def _encode_body(body: Any, content_type: str) -> tuple[bytes, str]:
    if content_type == "application/json":
        if isinstance(body, (bytes, bytearray)):
            return bytes(body), content_type  # JSON text as it is (a saved lookup, say)
        return json.dumps(body, ensure_ascii=False, allow_nan=False).encode("utf-8"), content_type
    if content_type == "multipart/form-data":
        boundary = uuid.uuid4().hex
        out = bytearray()
        for name, value in body.items():
            out += f"--{boundary}\r\n".encode()
            if isinstance(value, tuple):  # (filename, bytes[, content type])
                filename, content = value[0], value[1]
                ctype = value[2] if len(value) > 2 else "application/octet-stream"
                out += f'Content-Disposition: form-data; name="{name}"; filename="{filename}"\r\n'.encode()
                out += f"Content-Type: {ctype}\r\n\r\n".encode()
                out += content
            else:
                out += f'Content-Disposition: form-data; name="{name}"\r\n\r\n'.encode()
                out += value if isinstance(value, (bytes, bytearray)) else str(value).encode()
            out += b"\r\n"
        out += f"--{boundary}--\r\n".encode()
        return bytes(out), f"multipart/form-data; boundary={boundary}"
    return bytes(body), content_type
