#!/usr/bin/env python3
"""Generates svc_sdk/_generated.py from the repository's openapi.yaml (standard library only).

    python3 sdk/python/tools/generate.py            # rewrite src/svc_sdk/_generated.py
    python3 sdk/python/tools/generate.py --check    # exit 1 when the committed file is stale

The output holds a TypedDict (or a type alias) for every schema of ``components/schemas`` and a
method for every operation of the contract on the class ``Operations``, which ``svc_sdk.Client``
implements over urllib. Run it (``make sdk-py-generate``) and commit the result with every change
of the contract; ``tests/test_generate.py`` fails while it is stale.
"""

from __future__ import annotations

import argparse
import keyword
import pathlib
import re
import sys
import textwrap
from typing import Any

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import yamlsubset  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent.parent
SPEC = ROOT / "openapi.yaml"
OUT = HERE.parent / "src" / "svc_sdk" / "_generated.py"
METHODS = ("get", "put", "post", "delete", "patch", "head", "options")


def snake(name: str) -> str:
    s = re.sub(r"[^0-9A-Za-z]+", "_", name)
    s = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", s).strip("_").lower()
    if keyword.iskeyword(s) or s in ("body", "extra_query", "headers", "self"):
        s += "_"
    return s


def ref_name(ref: str) -> str:
    return ref.rsplit("/", 1)[-1]


class Generator:
    def __init__(self, spec: dict[str, Any]) -> None:
        self.spec = spec
        self.schemas: dict[str, Any] = spec.get("components", {}).get("schemas", {})
        self.out: list[str] = []

    def resolve(self, obj: dict[str, Any]) -> dict[str, Any]:
        while isinstance(obj, dict) and "$ref" in obj:
            parts = obj["$ref"].lstrip("#/").split("/")
            node: Any = self.spec
            for p in parts:
                node = node[p.replace("~1", "/").replace("~0", "~")]
            obj = node
        return obj

    # --- types -----------------------------------------------------------------------------

    def type_of(self, schema: dict[str, Any] | None) -> str:
        """A type expression that is valid at run time inside typing constructs (names quoted)."""
        if not schema:
            return "Any"
        if "$ref" in schema:
            t = repr(ref_name(schema["$ref"]))
        elif "allOf" in schema or "oneOf" in schema or "anyOf" in schema:
            t = "Any"
        elif "enum" in schema:
            t = "Literal[" + ", ".join(repr(v) for v in schema["enum"]) + "]"
        else:
            ty = schema.get("type")
            if ty == "string":
                t = "bytes" if schema.get("format") == "binary" else "str"
            elif ty == "integer":
                t = "int"
            elif ty == "number":
                t = "float"
            elif ty == "boolean":
                t = "bool"
            elif ty == "array":
                t = f"list[{self.type_of(schema.get('items'))}]"
            elif ty == "object" or "properties" in schema:
                extra = schema.get("additionalProperties")
                t = f"dict[str, {self.type_of(extra) if isinstance(extra, dict) else 'Any'}]"
            else:
                t = "Any"
        if schema.get("nullable"):
            t = f"Optional[{t}]"
        return t

    def schema_decls(self) -> None:
        classes, aliases = [], {}
        for name, schema in self.schemas.items():
            if schema.get("type") == "object" and "properties" in schema and not schema.get("additionalProperties"):
                classes.append(name)
            elif "allOf" in schema and all("$ref" in p or p.get("type") == "object" for p in schema["allOf"]):
                classes.append(name)
            else:
                aliases[name] = schema
        for name in classes:
            self.typed_dict(name, self.schemas[name])
        # aliases in an order where each comes after the aliases it names
        done: set[str] = set()

        def emit(n: str, stack: tuple[str, ...] = ()) -> None:
            if n in done or n in stack:
                return
            for dep in re.findall(r"'([A-Za-z0-9_]+)'", self.type_of(aliases[n])):
                if dep in aliases:
                    emit(dep, stack + (n,))
            done.add(n)
            self.comment_doc(aliases[n].get("description"))
            t = self.type_of(aliases[n])
            if re.fullmatch(r"'[A-Za-z0-9_]+'", t):
                t = t.strip("'")  # an alias of another name, emitted before it
            self.out.append(f"{n} = {t}")
            self.out.append("")

        for n in aliases:
            emit(n)

    def comment_doc(self, text: str | None) -> None:
        if text:
            for line in textwrap.wrap(" ".join(text.split()), 96):
                self.out.append(f"# {line}")

    def properties(self, schema: dict[str, Any]) -> tuple[dict[str, Any], set[str]]:
        props: dict[str, Any] = {}
        required: set[str] = set()
        parts = schema["allOf"] if "allOf" in schema else [schema]
        for p in parts:
            p = self.resolve(p)
            if "allOf" in p:
                sub, req = self.properties(p)
                props.update(sub)
                required |= req
                continue
            props.update(p.get("properties", {}))
            required |= set(p.get("required", []))
        return props, required

    def typed_dict(self, name: str, schema: dict[str, Any]) -> None:
        props, required = self.properties(schema)
        self.comment_doc(schema.get("description"))
        self.out.append(f"{name} = TypedDict(")
        self.out.append(f"    {name!r},")
        self.out.append("    {")
        for prop, ps in props.items():
            t = self.type_of(ps)
            t = f"Required[{t}]" if prop in required else f"NotRequired[{t}]"
            self.out.append(f"        {prop!r}: {t},")
        self.out.append("    },")
        self.out.append("    total=False,")
        self.out.append(")")
        self.out.append("")

    # --- operations --------------------------------------------------------------------------

    def operations(self) -> None:
        self.out.append("")
        self.out.append("class Operations:")
        self.out.append('    """Every operation of the contract as a method. Path parameters are positional; query')
        self.out.append("    and header parameters are keyword arguments (None leaves them out); ``extra_query``")
        self.out.append("    adds query parameters the contract does not name (the details paths of a search). The")
        self.out.append('    answer is a Response whatever its status: check ``status`` or call ``raise_for_status()``."""')
        self.out.append("")
        self.out.append("    def _call(")
        self.out.append("        self,")
        self.out.append("        method: str,")
        self.out.append("        path: str,")
        self.out.append("        path_params: Mapping[str, str],")
        self.out.append("        query: Mapping[str, Any],")
        self.out.append("        headers: Mapping[str, Any],")
        self.out.append("        body: Any,")
        self.out.append("        body_type: str | None,")
        self.out.append("    ) -> Response[Any]:")
        self.out.append("        raise NotImplementedError")
        for path, item in self.spec["paths"].items():
            common = item.get("parameters", [])
            for method in METHODS:
                if method in item:
                    self.operation(path, method, item[method], common)

    def answer_type(self, op: dict[str, Any]) -> str:
        for code in ("200", "201", "202"):
            r = op.get("responses", {}).get(code)
            if r is None:
                continue
            content = self.resolve(r).get("content", {})
            if "application/json" in content:
                return self.type_of(content["application/json"].get("schema")).strip("'")
            if any(ct.startswith("text/") for ct in content):
                return "str"
            if content:
                return "bytes"
        return "Any"

    def operation(self, path: str, method: str, op: dict[str, Any], common: list[Any]) -> None:
        params = [self.resolve(p) for p in common + op.get("parameters", [])]
        seen: dict[tuple[str, str], dict[str, Any]] = {}
        for p in params:
            seen[(p["in"], p["name"])] = p
        params = list(seen.values())
        path_params = [p for p in params if p["in"] == "path"]
        # path parameters in the order the path names them
        order = re.findall(r"\{([^}]+)\}", path)
        path_params.sort(key=lambda p: order.index(p["name"]))
        others = [p for p in params if p["in"] in ("query", "header")]
        body = self.resolve(op["requestBody"]) if "requestBody" in op else None
        body_type = None
        body_schema: Any = None
        if body is not None:
            body_type = next(iter(body.get("content", {})), None)
            body_schema = body.get("content", {}).get(body_type, {}).get("schema")
        fname = snake(op["operationId"])
        args = ["self"]
        for p in path_params:
            args.append(f"{snake(p['name'])}: str")
        if body is not None and body.get("required"):
            args.append(f"body: {self.body_type(body_type, body_schema)}")
        args.append("*")
        if body is not None and not body.get("required"):
            args.append(f"body: {self.body_type(body_type, body_schema)} | None = None")
        for p in others:
            args.append(f"{snake(p['name'])}: {self.param_type(p)} | None = None")
        args.append("extra_query: Mapping[str, Any] | None = None")
        ret = self.answer_type(op)
        self.out.append("")
        self.out.append(f"    def {fname}(")
        for a in args:
            self.out.append(f"        {a},")
        self.out.append(f"    ) -> Response[{ret}]:")
        self.docstring(path, method, op, others)
        pp = ", ".join(f"{p['name']!r}: {snake(p['name'])}" for p in path_params)
        q = ", ".join(f"{p['name']!r}: {snake(p['name'])}" for p in others if p["in"] == "query")
        h = ", ".join(f"{p['name']!r}: {snake(p['name'])}" for p in others if p["in"] == "header")
        template = path
        rest = op.get("x-svc-rest-of-path")
        if rest:  # a parameter that holds the rest of the path, slashes included (RFC 6570 {+var})
            template = template.replace("{" + rest + "}", "{+" + rest + "}")
        self.out.append("        return self._call(")
        self.out.append(f"            {method.upper()!r},")
        self.out.append(f"            {template!r},")
        self.out.append(f"            {{{pp}}},")
        self.out.append(f"            {{{q}, **(extra_query or {{}})}}," if q else "            {**(extra_query or {})},")
        self.out.append(f"            {{{h}}},")
        self.out.append(f"            {'body' if body is not None else 'None'},")
        self.out.append(f"            {body_type!r},")
        self.out.append("        )")

    def body_type(self, content_type: str | None, schema: Any) -> str:
        if content_type == "application/json":
            return self.type_of(schema).strip("'")
        if content_type == "multipart/form-data":
            return "Mapping[str, Any]"
        return "bytes"

    def param_type(self, p: dict[str, Any]) -> str:
        schema = p.get("schema") or {}
        t = self.type_of(self.resolve(schema) if "$ref" in schema else schema).strip("'")
        return t if t in ("str", "int", "bool", "float") or t.startswith("Literal[") else "Any"

    def docstring(self, path: str, method: str, op: dict[str, Any], others: list[dict[str, Any]]) -> None:
        lines = [f"{method.upper()} {path}: {op.get('summary', '').rstrip('.')}."]
        answers = []
        for code, r in op.get("responses", {}).items():
            r = self.resolve(r)
            content = r.get("content", {})
            what = ""
            if "application/json" in content:
                what = " " + self.type_of(content["application/json"].get("schema")).strip("'")
            elif content:
                what = " " + next(iter(content))
            answers.append(f"{code}{what}")
        lines.append("")
        lines.extend(textwrap.wrap("Answers: " + ", ".join(answers) + ".", 88))
        sec = op.get("security", self.spec.get("security", []))
        if sec == []:
            lines.append("No API key.")
        elif {} in sec:
            lines.append("API key optional.")
        else:
            lines.append("API key required.")
        self.out.append('        """' + lines[0])
        for line in lines[1:]:
            self.out.append(("        " + line).rstrip())
        self.out.append('        """')

    def render(self) -> str:
        self.out = [
            "# Code generated by sdk/python/tools/generate.py from openapi.yaml. DO NOT EDIT.",
            '"""The types and operations of the svc contract (openapi.yaml), generated."""',
            "",
            "from __future__ import annotations",
            "",
            "from typing import Any, Literal, Mapping, NotRequired, Optional, Required, TypedDict",
            "",
            "from .response import Response",
            "",
        ]
        self.schema_decls()
        self.operations()
        return "\n".join(self.out).rstrip() + "\n"


def generate() -> str:
    spec = yamlsubset.load(SPEC.read_text(encoding="utf-8"))
    return Generator(spec).render()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="exit 1 when the committed file is not what openapi.yaml gives")
    args = ap.parse_args()
    text = generate()
    if args.check:
        if not OUT.exists() or OUT.read_text(encoding="utf-8") != text:
            print(f"{OUT.relative_to(ROOT)} is stale: run 'make sdk-py-generate' and commit", file=sys.stderr)
            return 1
        print(f"{OUT.relative_to(ROOT)} is up to date")
        return 0
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
