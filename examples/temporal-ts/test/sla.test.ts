/**
 * The SLA workflow against a real Temporal server and a real duetime server,
 * with worker processes started and stopped here (`node dist/src/worker.js`).
 *
 * Environment: DUETIME_TEMPORAL_ADDRESS (a Temporal frontend, HOST:PORT) and
 * DUETIME_ADDRESS (duetime's gRPC port, serving the policy of
 * test/ticket-sla-test.toml, named by DUETIME_SLA_POLICY, default
 * `ticket-sla-test`). `tests/test_temporal_ts.py` starts both and runs these
 * tests. Every wait is bounded; the SLAs are seconds long on an always-open
 * calendar, so each warning and breach falls while the test watches.
 */

import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { DuetimeClient } from '@duetime/client';
import {
  ActivityFailure, ApplicationFailure, Client, Connection, WorkflowFailedError, type WorkflowHandleWithFirstExecutionRunId,
} from '@temporalio/client';
import { bundleWorkflowCode } from '@temporalio/worker';
import protos, { type temporal } from '@temporalio/proto';

import type { JournalLine } from '../src/activities.js';
import { evaluationOf } from '../src/activities.js';
import type { Alert, SlaProgress } from '../src/types.js';
import { WORKFLOWS_PATH } from '../src/worker.js';
import { awaitingThirdParty, customerReply, progress, resolved, slaWorkflow, tierChange } from '../src/workflows.js';

const TEMPORAL = required('DUETIME_TEMPORAL_ADDRESS');
const DUETIME = required('DUETIME_ADDRESS');
const POLICY = process.env.DUETIME_SLA_POLICY || 'ticket-sla-test';
const WORKER_JS = fileURLToPath(new URL('../src/worker.js', import.meta.url));
/** How late after its instant a timer may fire on a loaded machine. */
const LATE_MS = 2000;
const EventType = protos.temporal.api.enums.v1.EventType;

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run these tests through tests/test_temporal_ts.py, or set it to HOST:PORT`);
  return value;
}

// ---- worker processes -----------------------------------------------------------------

const dir = mkdtempSync(join(tmpdir(), 'duetime-sla-ts-'));
const bundlePath = join(dir, 'workflow-bundle.js');
const journals: string[] = [];

/** A worker in its own process, as in production: stopped with SIGTERM like a deploy. */
class WorkerProcess {
  readonly journal: string;
  private child: ChildProcess | undefined;
  private output = '';

  constructor(readonly taskQueue: string, readonly name: string) {
    this.journal = join(dir, `journal-${name}.jsonl`);
    journals.push(this.journal);
  }

  async start(): Promise<void> {
    const child = spawn(process.execPath, [
      WORKER_JS, '--temporal', TEMPORAL, '--duetime', DUETIME, '--task-queue', this.taskQueue,
      '--journal', this.journal, '--workflow-bundle', bundlePath,
    ], { stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    const ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`worker ${this.name} not polling within 30 s:\n${this.output}`)), 30_000);
      const onData = (chunk: Buffer) => {
        this.output += chunk.toString();
        if (this.output.includes('worker polling')) {
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout!.on('data', onData);
      child.stderr!.on('data', (chunk: Buffer) => { this.output += chunk.toString(); });
      child.on('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`worker ${this.name} exited (${code}) before polling:\n${this.output}`));
      });
    });
    await ready;
  }

  /** SIGTERM, and the exit code (bounded). */
  async stop(): Promise<number | null> {
    const child = this.child;
    if (!child || child.exitCode !== null) return child?.exitCode ?? null;
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    const timeout = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 20_000).unref());
    const code = await Promise.race([exited, timeout]);
    if (code === 'timeout') {
      child.kill('SIGKILL');
      throw new Error(`worker ${this.name} did not stop within 20 s:\n${this.output}`);
    }
    return code;
  }
}

// ---- fixtures ------------------------------------------------------------------------

let connection: Connection;
let client: Client;
let duetime: DuetimeClient;
const sharedQueue = `duetime-sla-ts-test-${randomUUID().slice(0, 8)}`;
const sharedWorker = new WorkerProcess(sharedQueue, 'shared');

before(async () => {
  const { code } = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, logger: quietLogger() });
  writeFileSync(bundlePath, code);
  connection = await Connection.connect({ address: TEMPORAL });
  client = new Client({ connection });
  duetime = new DuetimeClient({ address: DUETIME, timeoutMs: 10_000 });
  await sharedWorker.start();
});

after(async () => {
  await sharedWorker.stop();
  await connection?.close();
  duetime?.close();
});

function quietLogger() {
  const nothing = () => undefined;
  return { log: nothing, trace: nothing, debug: nothing, info: nothing, warn: nothing, error: nothing };
}

// ---- helpers -------------------------------------------------------------------------

type Handle = WorkflowHandleWithFirstExecutionRunId<typeof slaWorkflow>;

async function startTicket(name: string, taskQueue = sharedQueue, extra: Partial<Parameters<typeof slaWorkflow>[0]> = {}): Promise<Handle> {
  const handle = await client.workflow.start(slaWorkflow, {
    taskQueue,
    workflowId: `ticket-${name}-${randomUUID().slice(0, 8)}`,
    args: [{ policy: POLICY, ...extra }],
  });
  await until(handle, (p) => p.seq >= 0 && p.metrics.length > 0);
  return handle;
}

/** The workflow's progress once `condition` holds (bounded). */
async function until(handle: Handle, condition: (p: SlaProgress) => boolean, timeoutMs = 20_000): Promise<SlaProgress> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let seen: SlaProgress | undefined;
    try {
      seen = await handle.query(progress);
    } catch (err) {
      if (Date.now() > deadline) throw err; // e.g. no worker yet to answer the query
    }
    if (seen && condition(seen)) return seen;
    if (Date.now() > deadline) {
      throw new Error(`${handle.workflowId}: condition not met in ${timeoutMs} ms; progress ${JSON.stringify(seen)}`);
    }
    await sleep(100);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const ms = (text: string) => Date.parse(text);
const at = (base: string, plusMs: number) => new Date(ms(base) + plusMs).toISOString().replace('.000Z', 'Z');

/** An alert as expected (tier `normal` unless given). */
function alert(metric: string, kind: Alert['kind'], threshold: string, time: string, deadline: string, tier = 'normal'): Alert {
  return { metric, kind, threshold, time, deadline, tier };
}

function journalOf(workflowId: string): JournalLine[] {
  return journals.filter(existsSync).flatMap((path) => readFileSync(path, 'utf8').split('\n').filter(Boolean))
    .map((line) => JSON.parse(line) as JournalLine)
    .filter((line) => line.workflowId === workflowId);
}

/** The alerts duetime itself reports for a history, evaluated apart from the
 *  workflow: every WARNING and BREACH, in time order (then the policy's order). */
async function alertsOf(events: SlaProgress['events'], policy: string): Promise<Alert[]> {
  const evaluation = evaluationOf(await duetime.evaluateSla(policy, events));
  return evaluation.metrics.flatMap((m, order) => m.alerts.map((a, i) => ({ a, order, i })))
    .sort((x, y) => ms(x.a.time) - ms(y.a.time) || x.order - y.order || x.i - y.i)
    .map(({ a }) => a);
}

interface Timer { startedId: number; startedAt: number; timeoutMs: number; firedAt?: number; canceledId?: number }

/** The timers of one run's history, in the order they were started. */
async function timersOf(workflowId: string, runId?: string): Promise<{ timers: Timer[]; startedAt: number; continuedAs?: string }> {
  const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
  const timers = new Map<number, Timer>();
  let continuedAs: string | undefined;
  let startedAt = 0;
  const time = (e: temporal.api.history.v1.IHistoryEvent) =>
    Number(e.eventTime!.seconds) * 1000 + Math.floor((e.eventTime!.nanos ?? 0) / 1e6);
  for (const e of history.events ?? []) {
    const id = Number(e.eventId);
    if (e.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED) {
      startedAt = time(e);
    } else if (e.eventType === EventType.EVENT_TYPE_TIMER_STARTED) {
      const d = e.timerStartedEventAttributes!.startToFireTimeout!;
      timers.set(id, { startedId: id, startedAt: time(e), timeoutMs: Number(d.seconds) * 1000 + Math.round((d.nanos ?? 0) / 1e6) });
    } else if (e.eventType === EventType.EVENT_TYPE_TIMER_FIRED) {
      timers.get(Number(e.timerFiredEventAttributes!.startedEventId))!.firedAt = time(e);
    } else if (e.eventType === EventType.EVENT_TYPE_TIMER_CANCELED) {
      timers.get(Number(e.timerCanceledEventAttributes!.startedEventId))!.canceledId = id;
    } else if (e.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW) {
      continuedAs = e.workflowExecutionContinuedAsNewEventAttributes!.newExecutionRunId!;
    }
  }
  return { timers: [...timers.values()], startedAt, ...(continuedAs ? { continuedAs } : {}) };
}

/** At most one timer outstanding: each was fired or cancelled before the next started. */
function assertOneTimerAtATime(timers: Timer[]): void {
  timers.forEach((timer, i) => {
    const next = timers[i + 1];
    if (!next) return;
    assert.ok(timer.firedAt !== undefined || timer.canceledId !== undefined, `timer ${timer.startedId} neither fired nor was cancelled`);
    if (timer.canceledId !== undefined) {
      assert.ok(timer.canceledId < next.startedId, `timer ${timer.startedId} was cancelled after timer ${next.startedId} started`);
      assert.equal(timer.firedAt, undefined, `cancelled timer ${timer.startedId} fired`);
    }
  });
}

/** Timers fire at alerts' instants: each timer that fired did so at most
 *  LATE_MS after an alert's instant, and each alert that fell more than
 *  LATE_MS after the one before had a timer of its own (a workflow running
 *  late takes an instant already past at once, with no timer). */
function assertFiredOnTime(timers: Timer[], alerts: Alert[]): void {
  const fired = timers.filter((t) => t.firedAt !== undefined).map((t) => t.firedAt!);
  const shown = fired.map((f) => new Date(f).toISOString());
  for (const f of fired) {
    assert.ok(alerts.some((a) => f >= ms(a.time) && f < ms(a.time) + LATE_MS),
      `a timer fired at ${new Date(f).toISOString()}, at no alert's instant: ${JSON.stringify(alerts)}`);
  }
  alerts.forEach((a, i) => {
    if (i > 0 && ms(a.time) - ms(alerts[i - 1]!.time) <= LATE_MS) return;
    assert.ok(fired.some((f) => f >= ms(a.time) && f < ms(a.time) + LATE_MS),
      `no timer fired within ${LATE_MS} ms after ${a.metric} ${a.kind} ${a.threshold} at ${a.time}; fired: ${shown}`);
  });
}

/** The records duetime holds for a workflow's keys, as key → record id. */
async function recordKeys(workflowId: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const record of duetime.listRecords({ keyPrefix: `${workflowId}/` })) keys.push(record.idempotencyKey);
  return keys.sort((a, b) => Number(a.split('/').pop()) - Number(b.split('/').pop()));
}

// ---- the scenarios (run side by side) -------------------------------------------------
//
// The test policy (test/ticket-sla-test.toml), always open:
//   first_response: normal 10 s, urgent 4 s; warning at 50%
//   resolution:     normal 20 s, urgent 8 s; warnings at 50% and 2 s left;
//                   paused by awaiting_third_party, resumed by customer_reply

const S = 1000;

describe('the SLA workflow', { concurrency: true }, () => {
  test('warnings and breaches fire at the computed instants, in order, once each', async () => {
    const handle = await startTicket('on-time');
    const first = await handle.query(progress);
    const start = first.events[0]!.time;
    assert.deepEqual(first.metrics.map((m) => [m.name, m.status, m.deadline]), [
      ['first_response', 'RUNNING', at(start, 10 * S)],
      ['resolution', 'RUNNING', at(start, 20 * S)],
    ]);
    await until(handle, (p) => p.alerts.length === 5 && p.nextAction === null, 40_000);
    await handle.signal(resolved);
    const result = await handle.result();

    const expected = [
      alert('first_response', 'WARNING', '50%', at(start, 5 * S), at(start, 10 * S)),
      alert('first_response', 'BREACH', '', at(start, 10 * S), at(start, 10 * S)),
      alert('resolution', 'WARNING', '50%', at(start, 10 * S), at(start, 20 * S)),
      alert('resolution', 'WARNING', '2s', at(start, 18 * S), at(start, 20 * S)),
      alert('resolution', 'BREACH', '', at(start, 20 * S), at(start, 20 * S)),
    ];
    assert.deepEqual(result.alerts, expected);
    // the activities ran once per alert, in order: notify for a warning, escalate for a breach
    const journal = journalOf(handle.workflowId);
    assert.deepEqual(journal.map((l) => l.alert), expected);
    assert.deepEqual(journal.map((l) => [l.action, l.attempt]), [
      ['notify', 1], ['escalate', 1], ['notify', 1], ['notify', 1], ['escalate', 1]]);
    // one timer per distinct instant (5 s, 10 s, 18 s, 20 s), each firing on time, none cancelled
    const { timers } = await timersOf(handle.workflowId);
    assert.equal(timers.length, 4);
    assert.ok(timers.every((t) => t.firedAt !== undefined && t.canceledId === undefined));
    assertOneTimerAtATime(timers);
    assertFiredOnTime(timers, expected);
    assert.deepEqual(result.metrics.map((m) => [m.name, m.status, m.met]), [
      ['first_response', 'STOPPED', false], ['resolution', 'STOPPED', false]]);
    assert.deepEqual(result.alerts, await alertsOf(result.events, result.policyVersion));
    // every recomputation was recorded under workflowId/firstRunId/seq: the start, 4 ticks, resolved
    assert.equal(result.seq, 5);
    assert.deepEqual(await recordKeys(handle.workflowId),
      [0, 1, 2, 3, 4, 5].map((seq) => `${handle.workflowId}/${handle.firstExecutionRunId}/${seq}`));
  });

  test('a tier change cancels the timer before the next one is armed', async () => {
    const handle = await startTicket('tier');
    const start = (await handle.query(progress)).events[0]!.time;
    await handle.signal(tierChange, 'urgent');
    const changed = await until(handle, (p) => p.tier === 'urgent');
    const e = changed.events[1]!;
    assert.deepEqual([e.type, e.attributes], ['tier_change', { tier: 'urgent' }]);
    assert.ok(ms(e.time) < ms(start) + 18 * S, `the tier change came ${ms(e.time) - ms(start)} ms after the start: the machine is too slow for this test`);
    // retargeted from the event: 4 s and 8 s from it
    assert.deepEqual(changed.metrics.map((m) => m.deadline), [at(e.time, 4 * S), at(e.time, 8 * S)]);
    await until(handle, (p) => p.alerts.length > 0 && p.nextAction === null, 30_000);
    await handle.signal(resolved);
    const result = await handle.result();
    // what fell in the normal tier before the change (usually nothing), then the urgent tier's
    const normal = [
      alert('first_response', 'WARNING', '50%', at(start, 5 * S), at(start, 10 * S)),
      alert('first_response', 'BREACH', '', at(start, 10 * S), at(start, 10 * S)),
      alert('resolution', 'WARNING', '50%', at(start, 10 * S), at(start, 20 * S)),
    ].filter((a) => ms(a.time) < ms(e.time));
    const expected = [
      ...normal,
      alert('first_response', 'WARNING', '50%', at(e.time, 2 * S), at(e.time, 4 * S), 'urgent'),
      alert('first_response', 'BREACH', '', at(e.time, 4 * S), at(e.time, 4 * S), 'urgent'),
      alert('resolution', 'WARNING', '50%', at(e.time, 4 * S), at(e.time, 8 * S), 'urgent'),
      alert('resolution', 'WARNING', '2s', at(e.time, 6 * S), at(e.time, 8 * S), 'urgent'),
      alert('resolution', 'BREACH', '', at(e.time, 8 * S), at(e.time, 8 * S), 'urgent'),
    ];
    assert.deepEqual(result.alerts, expected);
    assert.deepEqual(journalOf(handle.workflowId).map((l) => l.alert), expected);
    const { timers } = await timersOf(handle.workflowId);
    // the timer outstanding at the change, armed for the normal tier's next
    // instant, was cancelled and never fired; none other was cancelled
    const superseded = timers.filter((t) => t.canceledId !== undefined);
    assert.equal(superseded.length, 1);
    const normalNext = [5, 10, 18, 20].map((n) => ms(start) + n * S).find((t) => t > ms(e.time))!;
    assertArmedFor(superseded[0]!, normalNext);
    assert.equal(superseded[0]!.firedAt, undefined);
    assertOneTimerAtATime(timers);
    assertFiredOnTime(timers, expected);
  });

  test('a worker restart mid-history: the new worker carries on, nothing twice', async () => {
    const queue = `duetime-sla-ts-restart-${randomUUID().slice(0, 8)}`;
    const one = new WorkerProcess(queue, 'restart-1');
    const two = new WorkerProcess(queue, 'restart-2');
    await one.start();
    let handle: Handle;
    let start: string;
    try {
      handle = await startTicket('restart', queue);
      start = (await handle.query(progress)).events[0]!.time;
    } finally {
      assert.equal(await one.stop(), 0); // SIGTERM: the worker drains and exits 0
    }
    // no worker: the first warning's timer fires on the server, a signal waits in the history
    await sleep(Math.max(0, ms(start) + 5 * S + 300 - Date.now()));
    await handle.signal(awaitingThirdParty);
    await two.start();
    try {
      const paused = await until(handle, (p) => p.metrics[1]?.status === 'PAUSED');
      const pause = paused.events[1]!;
      assert.equal(pause.type, 'awaiting_third_party');
      // a signal's instant is when a worker handled it: after the restart
      assert.ok(ms(pause.time) > ms(start) + 5 * S);
      assert.ok(ms(pause.time) < ms(start) + 15 * S, 'the machine is too slow for this test');
      // the resolution clock paused with what was left at the pause, to the microsecond
      const left = ms(start) + 20 * S - ms(pause.time);
      assert.equal(paused.metrics[1]!.remaining, `${left / 1000}s`);
      await handle.signal(customerReply);
      const resumed = await until(handle, (p) => p.metrics[1]?.status === 'RUNNING' && p.events.length === 3);
      const resume = resumed.events[2]!;
      const deadline = at(resume.time, left);
      assert.equal(resumed.metrics[1]!.deadline, deadline);
      await until(handle, (p) => p.alerts.some((a) => a.metric === 'resolution' && a.kind === 'BREACH'), 40_000);
      await handle.signal(resolved);
      const result = await handle.result();
      // the first response was not paused: its warning (fired while no worker ran) and breach stand
      assert.deepEqual(result.alerts.filter((a) => a.metric === 'first_response'), [
        alert('first_response', 'WARNING', '50%', at(start, 5 * S), at(start, 10 * S)),
        alert('first_response', 'BREACH', '', at(start, 10 * S), at(start, 10 * S)),
      ]);
      assert.deepEqual(result.alerts.filter((a) => a.metric === 'resolution').map((a) => [a.kind, a.threshold]),
        [['WARNING', '50%'], ['WARNING', '2s'], ['BREACH', '']]);
      assert.deepEqual(result.alerts.at(-1), alert('resolution', 'BREACH', '', deadline, deadline));
      assert.deepEqual(result.alerts, await alertsOf(result.events, result.policyVersion));
      // each alert once, from whichever worker ran it: the new worker replayed the history, it did not redo it
      const journal = journalOf(handle.workflowId);
      assert.deepEqual(journal.map((l) => l.alert), result.alerts);
      assert.deepEqual(await recordKeys(handle.workflowId),
        Array.from({ length: result.seq + 1 }, (_, seq) => `${handle.workflowId}/${handle.firstExecutionRunId}/${seq}`));
      const { timers } = await timersOf(handle.workflowId);
      assertOneTimerAtATime(timers);
      assertArmedFor(timers[0]!, ms(start) + 5 * S);
      assert.ok(timers[0]!.firedAt! < ms(start) + 5 * S + LATE_MS, 'the first timer fired late without a worker');
    } finally {
      assert.equal(await two.stop(), 0);
    }
  });

  test('continue-as-new keeps the absolute instants and the key sequence', async () => {
    const handle = await startTicket('can', sharedQueue, { continueAsNewAfter: 1 });
    const start = (await handle.query(progress)).events[0]!.time;
    await handle.signal(awaitingThirdParty); // the run continues as new once it is handled
    const second = await until(handle, (p) => p.runs === 1);
    assert.deepEqual(second.events.map((e) => e.type), ['start', 'awaiting_third_party']);
    const pause = second.events[1]!;
    assert.ok(ms(pause.time) < ms(start) + 9 * S, 'the machine is too slow for this test');
    // a continued run's timer fires the first response's warning at start + 5 s
    await until(handle, (p) => p.alerts.length >= 1, 20_000);
    await handle.signal(customerReply); // resumes resolution; continues as new again
    const third = await until(handle, (p) => p.runs === 2);
    const resume = third.events[2]!;
    const deadline = at(resume.time, ms(start) + 20 * S - ms(pause.time));
    assert.equal(third.metrics[1]!.deadline, deadline);
    await until(handle, (p) => p.alerts.length === 5 && p.nextAction === null, 40_000);
    await handle.signal(resolved);
    const result = await handle.result();
    assert.equal(result.runs, 2); // resolved was handled in the third run, after two continue-as-new
    assert.deepEqual(result.alerts.slice(0, 2), [
      alert('first_response', 'WARNING', '50%', at(start, 5 * S), at(start, 10 * S)),
      alert('first_response', 'BREACH', '', at(start, 10 * S), at(start, 10 * S)),
    ]);
    assert.deepEqual(result.alerts.at(-1), alert('resolution', 'BREACH', '', deadline, deadline));
    assert.deepEqual(result.alerts, await alertsOf(result.events, result.policyVersion));
    assert.deepEqual(journalOf(handle.workflowId).map((l) => l.alert), result.alerts);
    // the keys run on across runs under the first run's id, each once
    assert.deepEqual(await recordKeys(handle.workflowId),
      Array.from({ length: result.seq + 1 }, (_, seq) => `${handle.workflowId}/${handle.firstExecutionRunId}/${seq}`));
    // each continued run armed its first timer for the absolute instant the
    // run before it computed last (a query of a closed run replays it to its end)
    const run1 = await timersOf(handle.workflowId, handle.firstExecutionRunId);
    const run2 = await timersOf(handle.workflowId, run1.continuedAs);
    const run3 = await timersOf(handle.workflowId, run2.continuedAs);
    const firstEnded = await client.workflow.getHandle(handle.workflowId, handle.firstExecutionRunId).query(progress);
    const secondEnded = await client.workflow.getHandle(handle.workflowId, run1.continuedAs).query(progress);
    assert.deepEqual(second.events, firstEnded.events);
    for (const [ended, run] of [[firstEnded, run2], [secondEnded, run3]] as const) {
      const carried = ms(ended.nextAction!.time);
      assert.ok([5, 10].map((n) => ms(start) + n * S).includes(carried)); // first response's warning or breach
      // armed for the instant itself (not for a fresh duration), unless it was already past
      if (carried > run.startedAt) assertArmedFor(run.timers[0]!, carried);
    }
    assertFiredOnTime([...run1.timers, ...run2.timers, ...run3.timers], result.alerts);
  });

  test('a refused event is dropped and the ticket goes on; an unknown policy fails the workflow at once', async () => {
    const handle = await startTicket('refused');
    await handle.signal(tierChange, 'platinum');
    const seen = await until(handle, (p) => p.refused.length === 1);
    const refusal = seen.refused[0]!;
    assert.deepEqual([refusal.event.type, refusal.event.attributes, refusal.error, refusal.field],
      ['tier_change', { tier: 'platinum' }, 'InvalidArgument', 'events[1].attributes']);
    assert.match(refusal.message, /tier 'platinum' is not a tier of policy 'ticket-sla-test' \(tiers: normal, urgent\)/);
    assert.deepEqual([seen.events.length, seen.tier], [1, 'normal']);
    await handle.signal(resolved);
    const result = await handle.result();
    assert.deepEqual(result.events.map((e) => e.type), ['start', 'resolved']);
    assert.deepEqual(result.metrics.map((m) => [m.status, m.met]), [['STOPPED', true], ['STOPPED', true]]);
    // the refused call used key 1 (nothing recorded under it); the rest went on from 2
    assert.ok(result.seq >= 2);
    assert.deepEqual(await recordKeys(handle.workflowId),
      Array.from({ length: result.seq + 1 }, (_, seq) => seq).filter((seq) => seq !== 1)
        .map((seq) => `${handle.workflowId}/${handle.firstExecutionRunId}/${seq}`));

    const unknown = await client.workflow.start(slaWorkflow, {
      taskQueue: sharedQueue, workflowId: `ticket-unknown-policy-${randomUUID().slice(0, 8)}`,
      args: [{ policy: 'no-such-policy' }],
    });
    const failure = await unknown.result().then(() => undefined, (err: unknown) => err);
    assert.ok(failure instanceof WorkflowFailedError, String(failure));
    assert.ok(failure.cause instanceof ActivityFailure);
    const cause = failure.cause.cause;
    assert.ok(cause instanceof ApplicationFailure);
    assert.deepEqual([cause.type, cause.nonRetryable], ['InvalidArgument', true]);
    assert.equal((cause.details?.[0] as { field: string }).field, 'policy');
    const history = await unknown.fetchHistory();
    const attempts = (history.events ?? [])
      .filter((e) => e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED)
      .map((e) => e.activityTaskStartedEventAttributes!.attempt);
    assert.deepEqual(attempts, [1]); // not retried
  });
});

/** The timer was armed for `instant` (ms): started before it, due at it (the
 *  workflow's time when it armed the timer, plus the timeout, is the instant;
 *  the server records the start a little later). */
function assertArmedFor(timer: Timer, instant: number): void {
  const due = timer.startedAt + timer.timeoutMs;
  assert.ok(due >= instant && due < instant + LATE_MS,
    `timer ${timer.startedId} is due at ${new Date(due).toISOString()}, not at ${new Date(instant).toISOString()}`);
}
