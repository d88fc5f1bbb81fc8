/**
 * The documented usage type-checks in a caller's strict project, also with
 * exactOptionalPropertyTypes: holiday pairs kept in a variable (inferred as
 * string[]), options given `string | undefined`, call options.
 */

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { PACKAGE_DIR, tempDir } from "./server.js";

const USAGE = `
import { DuetimeClient } from "@duetime/client";
import type { CalendarInit } from "@duetime/client";
const duetime = new DuetimeClient({ address: "127.0.0.1:50051", token: process.env["DUETIME_TOKEN"], namespace: process.env["NS"] });
const myCalendar = {
  timeZone: "Europe/Zagreb",
  holidays: ["2026-12-25", ["2026-12-26", "St. Stephen's Day"], { date: "2027-01-01", name: "New Year" }],
  weekend: [6, 7],
};
const overrides = {
  timeZone: "Europe/Zagreb",
  hours: ["mon-fri 09:00-12:00,13:00-17:00"],
  dateOverrides: [
    { date: "2026-12-24", intervals: [{ start: "09:00", end: "12:00" }], name: "Christmas Eve" },
    { date: "2026-12-31", closed: true, name: "Inventory" },
  ],
};
const extra: CalendarInit = { bundle: "hr-zagreb", holidays: [["2026-12-31", "Office closed"]] };
const key: string | undefined = process.env["KEY"];
const controller = new AbortController();
export async function run(): Promise<string> {
  const a = await duetime.computeDueTime("2026-12-24T15:00+01:00", "4bh", myCalendar, { idempotencyKey: key, timeoutMs: 2000, signal: controller.signal });
  const b = await duetime.computeDueTime("2026-12-24T15:00+01:00", "4bh", extra, { roll: undefined, explain: undefined });
  const c = await duetime.listOpenPeriods("2026-12-01T00:00Z", "2026-12-02T00:00Z", "hr-zagreb", { pageSize: undefined, pageToken: key });
  const d = await duetime.computeDueTime("2026-12-24T11:00+01:00", "2bh", overrides);
  return a.dueLocal + b.dueLocal + d.dueLocal + String(c.periods.length);
}
`;

for (const exact of [false, true]) {
  test(`the documented usage type-checks under --strict${exact ? " with exactOptionalPropertyTypes" : ""}`, () => {
    const dir = tempDir("duetime-ts-types-");
    try {
      mkdirSync(join(dir.path, "node_modules", "@duetime"), { recursive: true });
      mkdirSync(join(dir.path, "node_modules", "@types"), { recursive: true });
      symlinkSync(PACKAGE_DIR, join(dir.path, "node_modules", "@duetime", "client"));
      symlinkSync(join(PACKAGE_DIR, "node_modules", "@types", "node"), join(dir.path, "node_modules", "@types", "node"));
      writeFileSync(join(dir.path, "package.json"), JSON.stringify({ type: "module" }));
      writeFileSync(join(dir.path, "usage.ts"), USAGE);
      writeFileSync(join(dir.path, "tsconfig.json"), JSON.stringify({
        compilerOptions: {
          target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", strict: true, noEmit: true,
          types: ["node"], exactOptionalPropertyTypes: exact,
        },
        include: ["usage.ts"],
      }));
      const tsc = spawnSync(process.execPath, [join(PACKAGE_DIR, "node_modules", "typescript", "bin", "tsc"), "-p", dir.path], { encoding: "utf8" });
      assert.equal(`${tsc.stdout}${tsc.stderr}`, "");
      assert.equal(tsc.status, 0);
    } finally {
      dir.cleanup();
    }
  });
}
