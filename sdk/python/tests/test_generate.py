"""The generated client is what openapi.yaml gives today, and the generator's YAML reader reads
the contract as js-yaml does."""

from __future__ import annotations

import inspect
import json
import subprocess
import sys
import unittest

from _support import ROOT, SDK, node, require

sys.path.insert(0, str(SDK / "tools"))
import generate  # noqa: E402
import yamlsubset  # noqa: E402

import svc_sdk  # noqa: E402


class Current(unittest.TestCase):
    def test_generated_code_is_current(self) -> None:
        committed = (SDK / "src" / "svc_sdk" / "_generated.py").read_text(encoding="utf-8")
        self.assertTrue(
            committed == generate.generate(),
            "src/svc_sdk/_generated.py is stale: run `make sdk-py-generate` (python3 sdk/python/tools/generate.py) and commit",
        )

    def test_every_operation_is_a_method(self) -> None:
        spec = yamlsubset.load((ROOT / "openapi.yaml").read_text(encoding="utf-8"))
        ops = [op for item in spec["paths"].values() for m, op in item.items() if m in generate.METHODS]
        self.assertGreater(len(ops), 60)
        for op in ops:
            name = generate.snake(op["operationId"])
            self.assertTrue(callable(getattr(svc_sdk.Client, name, None)), name)
        sig = inspect.signature(svc_sdk.Client.lookup_record)
        self.assertEqual(list(sig.parameters)[:4], ["self", "namespace", "registry_name", "record_name"])
        self.assertIn("version_id", sig.parameters)


class YAMLReader(unittest.TestCase):
    def test_contract_as_js_yaml_reads_it(self) -> None:
        exe = node(self)
        require(self, (ROOT / "node_modules" / "js-yaml").is_dir(), "node_modules/js-yaml (make node-tools)")
        script = 'const y=require("js-yaml"),fs=require("fs");process.stdout.write(JSON.stringify(y.load(fs.readFileSync(process.argv[1],"utf8"))))'
        out = subprocess.run([exe, "-e", script, str(ROOT / "openapi.yaml")], cwd=ROOT, capture_output=True, check=True).stdout
        mine = json.loads(json.dumps(yamlsubset.load((ROOT / "openapi.yaml").read_text(encoding="utf-8"))))
        self.assertTrue(mine == json.loads(out), "the generator's YAML reader and js-yaml read openapi.yaml differently")

    def test_forms(self) -> None:
        text = (
            "a: 1\n"
            "b: 'it''s'\n"
            'c: "tab\\tend"\n'
            "d: [x, {y: []}, 'z']\n"
            "e: |\n  one\n    two\n\n  three\n"
            "f: >-\n  folded\n  text\n\n  para\n"
            "g:\n- 1\n- k: v\n  l: w\n"
            "h: plain # comment\n"
            "'200': ok\n"
            "i: null\n"
            "j: true\n"
        )
        self.assertEqual(
            yamlsubset.load(text),
            {
                "a": 1,
                "b": "it's",
                "c": "tab\tend",
                "d": ["x", {"y": []}, "z"],
                "e": "one\n  two\n\nthree\n",
                "f": "folded text\npara",
                "g": [1, {"k": "v", "l": "w"}],
                "h": "plain",
                "200": "ok",
                "i": None,
                "j": True,
            },
        )

    def test_refuses_what_it_does_not_know(self) -> None:
        for text in ("a: &x 1\nb: *x\n", "a: !!str 1\n", "? complex\n: key\n", "a: 1\na: 2\n"):
            with self.assertRaises(yamlsubset.YAMLError, msg=text):
                yamlsubset.load(text)


if __name__ == "__main__":
    unittest.main()
