"""A reader of the YAML that openapi.yaml is written in, with the standard library only.

Python's standard library has no YAML reader, and the SDK's generator must run on a bare
``python3``. This reads the block style the contract uses (mappings, sequences, ``|`` and ``>``
block scalars with ``-``/``+`` chomping, plain, single- and double-quoted scalars, flow
sequences and mappings, comments) into JSON values, and refuses what it does not know (anchors,
aliases, tags, documents, complex keys) with the line number, rather than guessing.
``tests/test_generate.py`` compares its reading of the whole contract with js-yaml's.
"""

from __future__ import annotations

import json
import re
from typing import Any

from yamlflow import Flow, YAMLError, balanced, closed, plain, strip_comment

__all__ = ["load", "YAMLError"]


_KEY = re.compile(r"""((?:'(?:[^']|'')*')|(?:"(?:[^"\\]|\\.)*")|(?:[^\s'"#{}\[\],&*!|>%@`-][^#]*?|-[^\s#][^#]*?)):(?:\s+|$)""")


def load(text: str) -> Any:
    lines = text.split("\n")
    r = _Reader(lines)
    r.skip_blank()
    if r.i >= len(lines):
        return None
    value = r.node(r.indent_of(r.i))
    r.skip_blank()
    if r.i < len(lines):
        raise YAMLError(f"line {r.i + 1}: unexpected text at this indentation")
    return value


class _Reader:
    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.i = 0

    def indent_of(self, i: int) -> int:
        line = self.lines[i]
        if "\t" in line[: len(line) - len(line.lstrip(" \t"))]:
            raise YAMLError(f"line {i + 1}: tab in indentation")
        return len(line) - len(line.lstrip(" "))

    def blank(self, i: int) -> bool:
        s = self.lines[i].strip()
        return s == "" or s.startswith("#")

    def skip_blank(self) -> None:
        while self.i < len(self.lines) and self.blank(self.i):
            self.i += 1

    def fail(self, msg: str) -> YAMLError:
        return YAMLError(f"line {self.i + 1}: {msg}")

    def node(self, indent: int) -> Any:
        """The block node whose first line (self.i) is at indent."""
        content = self.lines[self.i][indent:]
        if content.startswith("- ") or content == "-":
            return self.sequence(indent)
        if content.startswith(("&", "*", "!", "%", "---", "...", "? ")):
            raise self.fail(f"unsupported YAML: {content[:20]!r}")
        if _KEY.match(content):
            return self.mapping(indent)
        # a scalar alone on its lines
        return self.scalar_lines(content, indent - 1)

    def sequence(self, indent: int) -> list[Any]:
        out: list[Any] = []
        while True:
            self.skip_blank()
            if self.i >= len(self.lines) or self.indent_of(self.i) != indent:
                if self.i < len(self.lines) and self.indent_of(self.i) > indent:
                    raise self.fail("unexpected indentation")
                return out
            content = self.lines[self.i][indent:]
            if not (content.startswith("- ") or content == "-"):
                return out
            rest = content[2:]
            if rest.strip() == "" or rest.lstrip().startswith("#"):
                out.append(self.value_after("", indent, seq_may_share_indent=False))
                continue
            # "- x": x is a node at the column after the dash; blank the dash and read it there
            lead = len(rest) - len(rest.lstrip(" "))
            self.lines[self.i] = " " * (indent + 2 + lead) + rest.lstrip(" ")
            out.append(self.node(indent + 2 + lead))

    def mapping(self, indent: int) -> dict[str, Any]:
        out: dict[str, Any] = {}
        while True:
            self.skip_blank()
            if self.i >= len(self.lines):
                return out
            ind = self.indent_of(self.i)
            if ind < indent:
                return out
            if ind > indent:
                raise self.fail("unexpected indentation")
            content = self.lines[self.i][indent:]
            m = _KEY.match(content)
            if not m or content.startswith("- "):
                return out if content.startswith("- ") else self._bad_key(content)
            key = self.key_text(m.group(1))
            if key in out:
                raise self.fail(f"duplicate key {key!r}")
            rest = content[m.end():]
            out[key] = self.value_after(rest, indent, seq_may_share_indent=True)

    def _bad_key(self, content: str) -> dict[str, Any]:
        raise self.fail(f"not a mapping entry: {content[:40]!r}")

    def key_text(self, k: str) -> str:
        k = k.strip()
        if k.startswith("'"):
            return k[1:-1].replace("''", "'")
        if k.startswith('"'):
            return json.loads(k)
        return k

    def value_after(self, rest: str, indent: int, seq_may_share_indent: bool) -> Any:
        """The value of an entry whose text after the indicator is rest (on line self.i)."""
        stripped = strip_comment(rest) if not rest.lstrip().startswith(("'", '"')) else rest.strip()
        if stripped == "":
            self.i += 1
            self.skip_blank()
            if self.i >= len(self.lines):
                return None
            ind = self.indent_of(self.i)
            content = self.lines[self.i][ind:]
            if ind > indent or (seq_may_share_indent and ind == indent and (content.startswith("- ") or content == "-")):
                return self.node(ind)
            return None
        if stripped[0] in "|>":
            return self.block_scalar(stripped, indent)
        if stripped[0] in "&*!":
            raise self.fail(f"unsupported YAML: {stripped[:20]!r}")
        return self.scalar_lines(rest.strip(), indent)

    def scalar_lines(self, first: str, indent: int) -> Any:
        """A flow or plain scalar starting with first on line self.i; a plain or quoted scalar
        may go on over lines more indented than indent."""
        start = self.i
        text = first
        self.i += 1
        if first.startswith(("[", "{")):
            while not balanced(text):
                if self.i >= len(self.lines):
                    raise YAMLError(f"line {start + 1}: unclosed flow collection")
                text += " " + self.lines[self.i].strip()
                self.i += 1
            p = Flow(text, start)
            v = p.value()
            p.end()
            return v
        if first.startswith(("'", '"')):
            q = first[0]
            while not closed(text, q):
                if self.i >= len(self.lines):
                    raise YAMLError(f"line {start + 1}: unclosed quoted scalar")
                nxt = self.lines[self.i].strip()
                text = text + ("\n" if nxt == "" else " ") + nxt if nxt else text + "\n"
                self.i += 1
            p = Flow(text, start)
            v = p.quoted()
            rest = strip_comment(text[p.pos:])
            if rest:
                raise YAMLError(f"line {start + 1}: text after a quoted scalar")
            return v
        parts = [strip_comment(first)]
        while self.i < len(self.lines):
            line = self.lines[self.i]
            if self.blank(self.i):
                # a blank line inside a plain scalar is a line break; look past it
                j = self.i
                while j < len(self.lines) and self.blank(j) and not self.lines[j].strip().startswith("#"):
                    j += 1
                if j < len(self.lines) and self.indent_of(j) > indent and not self.lines[j].strip().startswith("#") and j > self.i:
                    parts.append("\n" * (j - self.i))
                    self.i = j
                    continue
                break
            if self.indent_of(self.i) <= indent:
                break
            parts.append(strip_comment(line.strip()))
            self.i += 1
        out = ""
        for p in parts:
            if p.startswith("\n"):
                out += p
            elif out == "" or out.endswith("\n"):
                out += p
            else:
                out += " " + p
        return plain(out) if len(parts) == 1 else out

    def block_scalar(self, header: str, indent: int) -> str:
        m = re.fullmatch(r"([|>])([-+]?)", header)
        if not m:
            raise self.fail(f"unsupported block scalar header {header!r}")
        style, chomp = m.groups()
        self.i += 1
        body: list[str] = []
        block_indent = None
        while self.i < len(self.lines):
            line = self.lines[self.i]
            if line.strip() == "":
                body.append("")
                self.i += 1
                continue
            ind = self.indent_of(self.i)
            if block_indent is None:
                if ind <= indent:
                    break
                block_indent = ind
            if ind < block_indent:
                break
            body.append(line[block_indent:])
            self.i += 1
        # trailing blank lines belong to chomping; give back the lines after the last content
        while body and body[-1] == "" and self.i > 0 and self.lines[self.i - 1].strip() == "":
            body.pop()
            self.i -= 1
        if block_indent is None:
            return ""
        content = body
        trailing = 0
        j = self.i
        while j < len(self.lines) and self.lines[j].strip() == "":
            trailing += 1
            j += 1
        if style == "|":
            text = "\n".join(content)
        else:
            text = _fold(content)
        if chomp == "-":
            return text
        if chomp == "+":
            return text + "\n" + "\n" * trailing
        return text + "\n"


def _fold(lines: list[str]) -> str:
    out = ""
    prev_more = False
    for idx, line in enumerate(lines):
        more = line.startswith((" ", "\t"))
        if idx == 0:
            out = line
        elif line == "":
            out += "\n"
        elif out.endswith("\n") or more or prev_more:
            if out.endswith("\n") and not (more or prev_more):
                out += line
            else:
                out += "\n" + line
        else:
            out += " " + line
        if line != "":
            prev_more = more
    return out
