"""Flow collections and scalars for yamlsubset: the part of the YAML reader that reads one value
written on a line (flow sequences and mappings, quoted and plain scalars), with the standard
library only. ``yamlsubset`` reads the block structure around them.
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["YAMLError", "balanced", "closed", "plain", "strip_comment", "Flow"]


class YAMLError(ValueError):
    pass


_INT = re.compile(r"[-+]?(0|[1-9][0-9]*)\Z")
_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?\Z")


def strip_comment(s: str) -> str:
    # A comment starts at " #" outside quotes (the caller has taken quoted scalars already).
    m = re.search(r"(^|\s)#", s)
    return (s[: m.start()] if m else s).rstrip()


def balanced(s: str) -> bool:
    depth = 0
    q = ""
    i = 0
    while i < len(s):
        c = s[i]
        if q:
            if q == "'" and c == "'" and s[i + 1 : i + 2] == "'":
                i += 2
                continue
            if q == '"' and c == "\\":
                i += 2
                continue
            if c == q:
                q = ""
        elif c in "'\"":
            q = c
        elif c in "[{":
            depth += 1
        elif c in "]}":
            depth -= 1
        i += 1
    return depth == 0


def closed(s: str, q: str) -> bool:
    i = 1
    while i < len(s):
        c = s[i]
        if q == "'" and c == "'":
            if s[i + 1 : i + 2] == "'":
                i += 2
                continue
            return True
        if q == '"':
            if c == "\\":
                i += 2
                continue
            if c == '"':
                return True
        i += 1
    return False


def plain(s: str) -> Any:
    if s in ("", "~", "null", "Null", "NULL"):
        return None
    if s in ("true", "True", "TRUE"):
        return True
    if s in ("false", "False", "FALSE"):
        return False
    if _INT.match(s):
        return int(s)
    if _FLOAT.match(s) and any(ch.isdigit() for ch in s):
        return float(s)
    if s[0] in "&*!|>%@`":
        raise YAMLError(f"unsupported plain scalar {s[:20]!r}")
    return s


class Flow:
    def __init__(self, text: str, line: int) -> None:
        self.s = text
        self.pos = 0
        self.line = line

    def fail(self, msg: str) -> YAMLError:
        return YAMLError(f"line {self.line + 1}: {msg} in {self.s[:60]!r}")

    def ws(self) -> None:
        while self.pos < len(self.s) and self.s[self.pos] in " \n":
            self.pos += 1

    def end(self) -> None:
        self.ws()
        rest = strip_comment(self.s[self.pos:])
        if rest:
            raise self.fail("text after a flow collection")

    def value(self) -> Any:
        self.ws()
        c = self.s[self.pos : self.pos + 1]
        if c == "[":
            self.pos += 1
            out = []
            self.ws()
            if self.s[self.pos : self.pos + 1] == "]":
                self.pos += 1
                return out
            while True:
                out.append(self.value())
                self.ws()
                c = self.s[self.pos : self.pos + 1]
                self.pos += 1
                if c == "]":
                    return out
                if c != ",":
                    raise self.fail("expected , or ]")
        if c == "{":
            self.pos += 1
            obj: dict[str, Any] = {}
            self.ws()
            if self.s[self.pos : self.pos + 1] == "}":
                self.pos += 1
                return obj
            while True:
                self.ws()
                k = self.value()
                self.ws()
                if self.s[self.pos : self.pos + 1] != ":":
                    raise self.fail("expected :")
                self.pos += 1
                key = k if isinstance(k, str) else json.dumps(k)
                obj[key] = self.value()
                self.ws()
                c = self.s[self.pos : self.pos + 1]
                self.pos += 1
                if c == "}":
                    return obj
                if c != ",":
                    raise self.fail("expected , or }")
        if c in ("'", '"'):
            return self.quoted()
        m = re.compile(r"[^,\[\]{}:\n]*(?::(?![\s,\]}])[^,\[\]{}:\n]*)*").match(self.s, self.pos)
        assert m is not None
        self.pos = m.end()
        return plain(m.group(0).strip())

    def quoted(self) -> str:
        q = self.s[self.pos]
        i = self.pos + 1
        out = []
        while i < len(self.s):
            c = self.s[i]
            if q == "'":
                if c == "'":
                    if self.s[i + 1 : i + 2] == "'":
                        out.append("'")
                        i += 2
                        continue
                    self.pos = i + 1
                    return _fold_quoted("".join(out))
                out.append(c)
                i += 1
                continue
            if c == "\\":
                e = self.s[i + 1 : i + 2]
                simple = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "/": "/", "0": "\0", "r": "\r", " ": " ", "b": "\b", "f": "\f", "e": "\x1b", "N": "\x85", "_": "\xa0"}
                if e in simple:
                    out.append(simple[e])
                    i += 2
                    continue
                if e in "xuU":
                    n = {"x": 2, "u": 4, "U": 8}[e]
                    out.append(chr(int(self.s[i + 2 : i + 2 + n], 16)))
                    i += 2 + n
                    continue
                raise self.fail(f"unknown escape \\{e}")
            if c == '"':
                self.pos = i + 1
                return _fold_quoted("".join(out))
            out.append(c)
            i += 1
        raise self.fail("unclosed quoted scalar")


def _fold_quoted(s: str) -> str:
    # The caller joined continuation lines with a space, and an empty line with "\n".
    return s
