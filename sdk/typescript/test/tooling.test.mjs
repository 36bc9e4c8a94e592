// The package as integrators get it: it type-checks under tsc --strict (the sources and the
// README's example), and src/schema.ts is what openapi-typescript makes of openapi.yaml now.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const run = (script, args) =>
  execFileSync(process.execPath, [join(root, "node_modules", script), ...args], { cwd: root, encoding: "utf8", stdio: "pipe" });

test("tsc --strict --noEmit accepts the sources and the examples", () => {
  try {
    run("typescript/bin/tsc", ["-p", "tsconfig.json", "--strict", "--noEmit"]);
  } catch (e) {
    assert.fail(`tsc --strict found errors:\n${e.stdout}${e.stderr}`);
  }
});

test("src/schema.ts is current: `npm run generate` and commit when openapi.yaml changes", () => {
  const dir = mkdtempSync(join(tmpdir(), "svc-sdk-schema-"));
  try {
    const out = join(dir, "schema.ts");
    run("openapi-typescript/bin/cli.js", [join("..", "..", "openapi.yaml"), "-o", out]);
    const want = readFileSync(out, "utf8");
    const got = readFileSync(join(root, "src", "schema.ts"), "utf8");
    assert.ok(got === want, "src/schema.ts is stale: run `npm run generate` in sdk/typescript and commit it");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
