/**
 * The committed code is what `npm run generate` makes: src/gen/ from
 * ../../proto (buf with the local protoc-gen-es), and dist/ from src/ (tsc).
 * Fails, naming the files, while either is stale: run `npm run generate`.
 */

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { test } from "node:test";
import { PACKAGE_DIR, tempDir } from "./server.js";

function files(root: string): Map<string, string> {
  const found = new Map<string, string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else found.set(relative(root, path), readFileSync(path, "utf8"));
    }
  };
  if (existsSync(root)) walk(root);
  return found;
}

function stale(committed: Map<string, string>, fresh: Map<string, string>): string[] {
  const names = new Set([...committed.keys(), ...fresh.keys()]);
  return [...names].filter((name) => committed.get(name) !== fresh.get(name)).sort();
}

async function run(command: string, args: string[]): Promise<void> {
  try {
    await promisify(execFile)(command, args, { cwd: PACKAGE_DIR, encoding: "utf8" });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    assert.fail(`${command} ${args.join(" ")} failed:\n${stdout ?? ""}\n${stderr ?? String(error)}`);
  }
}

test("src/gen/ is what buf generate makes from proto/", async () => {
  const out = tempDir("duetime-ts-gen-");
  try {
    await run(join(PACKAGE_DIR, "node_modules", ".bin", "buf"), ["generate", "--template", "buf.gen.yaml", "-o", out.path]);
    const differ = stale(files(join(PACKAGE_DIR, "src", "gen")), files(join(out.path, "src", "gen")));
    assert.deepEqual(differ, [], `src/gen/ is stale (run npm run generate): ${differ.join(", ")}`);
  } finally {
    out.cleanup();
  }
});

test("dist/ is what tsc makes from src/", () => {
  // npm test compiles src/ with the tests, into build/src/, with dist/'s options
  const differ = stale(files(join(PACKAGE_DIR, "dist")), files(join(PACKAGE_DIR, "build", "src")));
  assert.deepEqual(differ, [], `dist/ is stale (run npm run build): ${differ.join(", ")}`);
});
