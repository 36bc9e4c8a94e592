// The packed SDK as integrators install it, from a CommonJS project (`npm init -y`: no "type")
// and from an ES module project ("type": "module"): each installs the tarball that `make sdk-ts`
// packs (SVC_SDK_TARBALL), compiles a program against it with tsc --strict, and runs it with
// node. Node.js 20.19+ require()s the SDK's ES modules (as it does its @noble dependencies,
// which are ES modules only). Skipped without SVC_SDK_TARBALL, except under CI=true.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const tarball = process.env.SVC_SDK_TARBALL ?? "";
const opts = tarball !== "" || process.env.CI === "true" ? {} : { skip: "SVC_SDK_TARBALL is not set: `make sdk-ts` packs the SDK and sets it" };
const tsc = join(root, "node_modules", "typescript", "bin", "tsc");
const vectors = JSON.parse(readFileSync(join(root, "test", "vectors.json"), "utf8"));
const record = vectors.cases.find((c) => c.ok && c.kind === "record").lookup;

// The program: verifies a lookup, and a tampered copy, and names the text helpers.
const program = `import { verifyLookup, getCheckpoint, getLogKey, type RecordLookupResponse } from "@svc-directory/sdk";
const lookup = ${JSON.stringify(record)};
const typed: RecordLookupResponse["data"]["proof"] = lookup.data.proof;
const good = verifyLookup("record", lookup, { now: new Date(Date.UTC(${vectors.max_year}, 6, 1)) });
const bad = verifyLookup("record", { ...lookup, data: { ...lookup.data, description: "changed" } });
console.log(JSON.stringify({ good: good.ok, bad: bad.ok, helpers: typeof getCheckpoint === "function" && typeof getLogKey === "function" && typed.digest === lookup.data.digest }));
`;

function project(pkg, tsconfig) {
  assert.ok(existsSync(tarball), `${tarball} does not exist (make sdk-ts packs it)`);
  const dir = mkdtempSync(join(tmpdir(), "svc-sdk-consumer-"));
  writeFileSync(join(dir, "package.json"), JSON.stringify(pkg, null, 2));
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions: { strict: true, target: "es2022", lib: ["ES2022", "DOM"], outDir: "out", skipLibCheck: false, ...tsconfig }, files: ["index.ts"] }));
  writeFileSync(join(dir, "index.ts"), program);
  execFileSync("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error", tarball], { cwd: dir, stdio: "pipe" });
  return dir;
}

function compileAndRun(dir) {
  try {
    execFileSync(process.execPath, [tsc, "-p", "tsconfig.json"], { cwd: dir, stdio: "pipe", encoding: "utf8" });
  } catch (e) {
    assert.fail(`tsc --strict: ${e.stdout}${e.stderr}`);
  }
  const out = execFileSync(process.execPath, [join(dir, "out", "index.js")], { cwd: dir, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  assert.deepEqual(JSON.parse(out), { good: true, bad: false, helpers: true });
}

test("a CommonJS project (npm init -y) compiles against the SDK and runs", opts, () => {
  const dir = project({ name: "cjs-consumer", version: "1.0.0", main: "index.js", license: "ISC" }, { module: "commonjs", esModuleInterop: true });
  try {
    compileAndRun(dir);
    // tsc --init's module setting, nodenext, in the same CommonJS project
    writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions: { strict: true, module: "nodenext", target: "es2022", lib: ["ES2022", "DOM"], outDir: "out" }, files: ["index.ts"] }));
    compileAndRun(dir);
    // and plain require() from JavaScript
    const out = execFileSync(process.execPath, ["-e", 'const s = require("@svc-directory/sdk"); console.log(typeof s.verifyLookup, typeof s.createSvcClient)'], { cwd: dir, encoding: "utf8" });
    assert.equal(out.trim(), "function function");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("an ES module project compiles against the SDK and runs", opts, () => {
  const dir = project({ name: "esm-consumer", version: "1.0.0", type: "module", license: "ISC" }, { module: "nodenext" });
  try {
    compileAndRun(dir);
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", 'import { verifyLookup } from "@svc-directory/sdk"; console.log(typeof verifyLookup)'], { cwd: dir, encoding: "utf8" });
    assert.equal(out.trim(), "function");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
