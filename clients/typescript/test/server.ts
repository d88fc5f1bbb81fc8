/**
 * Test helper: a real `duetime serve` on 127.0.0.1 (port 0, read from its
 * "duetime listening on" log line), with its own temporary ledger, stopped
 * (SIGTERM, then SIGKILL) by `stop()`. The Python that runs it is
 * $DUETIME_PYTHON, else the repository's .venv/bin/python, else python3.
 */

import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { DuetimeError } from "@duetime/client";

/** The package's directory (this file runs from build/test/). */
export const PACKAGE_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
/** The repository's root. */
export const REPO_DIR = resolve(PACKAGE_DIR, "../..");
const STARTUP_MS = 30_000;

/** The Python interpreter that runs duetime (and makes certificates). */
export function python(): string {
  const given = process.env["DUETIME_PYTHON"];
  if (given) {
    return given;
  }
  const venv = join(REPO_DIR, ".venv", "bin", "python");
  return existsSync(venv) ? venv : "python3";
}

/** A fresh temporary directory, removed by `cleanup()`. */
export function tempDir(prefix: string): { path: string; cleanup: () => void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, cleanup: () => rmSync(path, { recursive: true, force: true }) };
}

export interface Server {
  /** "127.0.0.1:PORT" */
  address: string;
  port: number;
  /** Every log line so far. */
  log: string[];
  stop(): Promise<void>;
  /** Kills the server at once (SIGKILL), as a crash would; resolves once it exited. */
  kill(): Promise<void>;
}

/** Starts `duetime serve --port 0 --db <temp> --calendars <repo>/calendars ...args`
 * (or on `port`) and resolves once it is listening. */
export async function startServer(args: readonly string[] = [], port = 0): Promise<Server> {
  const dir = tempDir("duetime-ts-");
  const child: ChildProcess = spawn(
    python(),
    ["-m", "duetime", "serve", "--port", String(port), "--db", join(dir.path, "ledger.db"),
      "--calendars", join(REPO_DIR, "calendars"), ...args],
    { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, PYTHONUNBUFFERED: "1" } },
  );
  const log: string[] = [];
  let exited = false;
  const exit = new Promise<void>((done) => child.once("exit", () => { exited = true; done(); }));
  const listening = new Promise<number>((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`duetime serve did not listen within ${STARTUP_MS} ms:\n${log.join("\n")}`)), STARTUP_MS);
    let buffered = "";
    const read = (chunk: Buffer) => {
      buffered += chunk.toString("utf8");
      const lines = buffered.split("\n");
      buffered = lines.pop() ?? "";
      for (const line of lines) {
        log.push(line);
        const m = /duetime listening on 127\.0\.0\.1:(\d+)/.exec(line);
        if (m) {
          clearTimeout(timer);
          done(Number(m[1]));
        }
      }
    };
    child.stdout?.on("data", read);
    child.stderr?.on("data", read);
    void exit.then(() => {
      clearTimeout(timer);
      fail(new Error(`duetime serve exited (${String(child.exitCode)}) before listening:\n${log.join("\n")}`));
    });
  });
  const stop = async () => {
    if (!exited) {
      child.kill("SIGTERM");
      const killer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exit;
      clearTimeout(killer);
    }
    dir.cleanup();
  };
  let bound: number;
  try {
    bound = await listening;
  } catch (error) {
    await stop();
    throw error;
  }
  const kill = async () => {
    if (!exited) {
      child.kill("SIGKILL");
      await exit;
    }
  };
  return { address: `127.0.0.1:${bound}`, port: bound, log, stop, kill };
}

/** A TCP port free on 127.0.0.1 right now. */
export async function freePort(): Promise<number> {
  const { createServer } = await import("node:net");
  return new Promise((done, fail) => {
    const s = createServer();
    s.once("error", fail);
    s.listen(0, "127.0.0.1", () => {
      const address = s.address();
      s.close(() => done(typeof address === "object" && address ? address.port : 0));
    });
  });
}

/** PEM files of test/make_certs.py in a temporary directory. */
export function makeCerts(): { dir: string; cleanup: () => void; file: (name: string) => string } {
  const dir = tempDir("duetime-ts-certs-");
  const run = spawnSync(python(), [join(PACKAGE_DIR, "test", "make_certs.py"), dir.path], { encoding: "utf8" });
  if (run.status !== 0) {
    dir.cleanup();
    throw new Error(`test/make_certs.py failed (${String(run.status)}): ${run.stderr}`);
  }
  return { dir: dir.path, cleanup: dir.cleanup, file: (name) => join(dir.path, name) };
}

/** Writes `lines` to a token file in `dir` and returns its path. */
export function tokenFile(dir: string, lines: readonly string[]): string {
  const path = join(dir, "tokens");
  writeFileSync(path, lines.join("\n") + "\n", { mode: 0o600 });
  return path;
}

/** Runs `call` and returns the DuetimeError it rejects with (fails the test
 * when it resolves, or rejects with anything else). */
export async function failure(call: () => Promise<unknown>): Promise<DuetimeError> {
  try {
    await call();
  } catch (error) {
    assert.ok(error instanceof DuetimeError, `not a DuetimeError: ${String(error)}`);
    return error;
  }
  assert.fail("the call did not fail");
}
