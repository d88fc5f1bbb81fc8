/**
 * Bearer tokens, tenants and namespaces: a `duetime serve --auth-tokens FILE`
 * and clients with and without a token.
 */

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { DuetimeClient, NotFound, PermissionDenied, Unauthenticated } from "@duetime/client";
import { failure, startServer, tempDir, tokenFile } from "./server.js";
import type { Server } from "./server.js";

const ADMIN = "ts-admin-token-0123456789";
const TEAM_A = "ts-team-a-token-0123456789";

let server: Server;
let dir: { path: string; cleanup: () => void };
const clients: DuetimeClient[] = [];

function client(options: ConstructorParameters<typeof DuetimeClient>[0]): DuetimeClient {
  const made = new DuetimeClient({ address: server.address, timeoutMs: 10_000, ...options });
  clients.push(made);
  return made;
}

before(async () => {
  dir = tempDir("duetime-ts-tokens-");
  const tokens = tokenFile(dir.path, [
    "# the operator",
    ADMIN,
    `${TEAM_A} namespaces=team-a scopes=compute,read`,
  ]);
  server = await startServer(["--auth-tokens", tokens]);
});

after(async () => {
  for (const c of clients) c.close();
  await server?.stop();
  dir?.cleanup();
});

test("without a token: Unauthenticated, TOKEN_MISSING, not retried", async () => {
  const error = await failure(() => client({}).computeDueTime("2026-11-27T16:00+01:00", "3bd", "hr-zagreb"));
  assert.ok(error instanceof Unauthenticated);
  assert.equal(error.code, "UNAUTHENTICATED");
  assert.equal(error.reason, "TOKEN_MISSING");
  assert.equal(error.retryable, false);
});

test("the health check needs no token", async () => {
  assert.equal(await client({}).health(), "SERVING");
});

test("a token the server does not know: TOKEN_INVALID", async () => {
  const error = await failure(() => client({ token: "not-a-known-token" }).countBusinessDays("2026-12-01", "2026-12-31", "hr-zagreb"));
  assert.ok(error instanceof Unauthenticated);
  assert.equal(error.reason, "TOKEN_INVALID");
});

test("with the token every call goes through", async () => {
  const duetime = client({ token: ADMIN });
  const answer = await duetime.computeDueTime("2026-11-27T16:00+01:00", "3bd", "hr-zagreb");
  assert.equal(answer.dueLocal, "2026-12-02T16:00:00+01:00");
  const calendars = await duetime.listCalendars();
  assert.ok(calendars.calendars.length > 0);
});

test("a token bound to team-a: another namespace is PermissionDenied, records stay in team-a", async () => {
  const teamA = client({ token: TEAM_A });
  const answer = await teamA.computeDueTime("2026-11-27T16:00+01:00", "3bd", "hr-zagreb", { idempotencyKey: "ts-tenant/1" });
  const record = await teamA.getRecord(answer.recorded.recordId);
  assert.equal(record.namespace, "team-a");
  const elsewhere = await failure(() =>
    client({ token: TEAM_A, namespace: "team-b" }).computeDueTime("2026-11-27T16:00+01:00", "3bd", "hr-zagreb"),
  );
  assert.ok(elsewhere instanceof PermissionDenied);
  assert.equal(elsewhere.reason, "NAMESPACE_NOT_PERMITTED");
  assert.equal(elsewhere.retryable, false);
  const impact = await failure(() => teamA.analyzeImpact("", { tzdata: true }));
  assert.ok(impact instanceof PermissionDenied);
  assert.equal(impact.reason, "SCOPE_MISSING");
});

test("namespaces: the same key in two namespaces is two records; another's record is NotFound", async () => {
  const a = client({ token: ADMIN, namespace: "ns-a" });
  const b = client({ token: ADMIN, namespace: "ns-b" });
  const inA = await a.computeDueTime("2026-11-27T16:00+01:00", "3bd", "hr-zagreb", { idempotencyKey: "ts-ns/1" });
  const inB = await b.computeDueTime("2026-11-27T16:00+01:00", "5bd", "hr-zagreb", { idempotencyKey: "ts-ns/1" });
  assert.notEqual(inA.recorded.recordId, inB.recorded.recordId);
  assert.equal(inB.dueLocal, "2026-12-04T16:00:00+01:00");
  const ids = [];
  for await (const record of a.listRecords({ namespace: "ns-b" })) {
    ids.push(record.recordId);
  }
  assert.deepEqual(ids, [inB.recorded.recordId]);
  const teamA = client({ token: TEAM_A });
  const hidden = await failure(() => teamA.getRecord(inA.recorded.recordId));
  assert.ok(hidden instanceof NotFound);
});

test("a busy tenant: ResourceExhausted TENANT_CALLS_EXHAUSTED, retryable; the client waits as the server asks and sends again", async () => {
  const busyDir = tempDir("duetime-ts-busy-");
  const tokens = tokenFile(busyDir.path, [`${TEAM_A} namespaces=team-a scopes=compute,read`]);
  const busy = await startServer(["--auth-tokens", tokens, "--tenant-calls", "1"]);
  const holder = new DuetimeClient({ address: busy.address, token: TEAM_A, timeoutMs: 60_000 });
  const once = new DuetimeClient({ address: busy.address, token: TEAM_A, retries: 0 });
  const patient = new DuetimeClient({ address: busy.address, token: TEAM_A, timeoutMs: 10_000 });
  let release: () => void = () => {};
  const released = new Promise<void>((done) => { release = done; });
  async function* waiting() {
    await released;
    yield { start: "2026-11-27T16:00+01:00", duration: "1bd", calendar: "hr-zagreb" };
  }
  const held = (async () => {
    const due = [];
    for await (const result of holder.streamDueTimes(waiting())) due.push(result);
    return due;
  })();
  try {
    await new Promise((done) => setTimeout(done, 1000)); // the stream holds team-a's one call
    const refused = await failure(() => once.computeDueTime("2026-11-27T16:00+01:00", "3bd", "hr-zagreb"));
    assert.equal(refused.code, "RESOURCE_EXHAUSTED");
    assert.equal(refused.reason, "TENANT_CALLS_EXHAUSTED");
    assert.equal(refused.retryable, true);
    assert.equal(refused.retryAfterMs, 1000);
    setTimeout(release, 6500); // longer than the 4 retries of other failures take
    const began = Date.now();
    const answer = await patient.computeDueTime("2026-11-27T16:00+01:00", "3bd", "hr-zagreb");
    const took = Date.now() - began;
    assert.equal(answer.dueLocal, "2026-12-02T16:00:00+01:00");
    assert.ok(took >= 6500 && took < 9500, `took ${took} ms`);
    assert.equal((await held).length, 1);
  } finally {
    release();
    for (const c of [holder, once, patient]) c.close();
    await busy.stop();
    busyDir.cleanup();
  }
});
