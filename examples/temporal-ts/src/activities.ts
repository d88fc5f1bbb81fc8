/**
 * The SLA workflow's activities: `evaluate` asks duetime (EvaluateSla, through
 * `@duetime/client`), `notify` and `escalate` act on a WARNING or BREACH.
 *
 * `evaluate` sends the idempotency key the workflow made
 * (`workflowId/firstRunId/seq`), never one made from the attempt: a retried
 * activity sends the same request under the same key and gets the first
 * answer back, record id included. Errors come from the client by gRPC status
 * code alone: those no retry can fix (InvalidArgument, OutOfRange,
 * FailedPrecondition, AlreadyExists, NotFound, ...) become non-retryable
 * `ApplicationFailure`s whose type is the error's class name, with the
 * violations as details; the retryable ones (Unavailable, DeadlineExceeded)
 * are thrown as they are, so Temporal retries them.
 */

import { createHash } from 'node:crypto';
import { appendFile } from 'node:fs/promises';

import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { type DuetimeClient, DuetimeError, type SlaEvaluation } from '@duetime/client';

import type { Alert, AlertInput, EvaluateInput, Evaluation, MetricView, NextAction } from './types.js';

/** Longest idempotency key duetime takes; a longer one is sent hashed. */
export const MAX_KEY = 200;

/** `key` as duetime takes it: unchanged, or `sha256:` and its hash when longer than MAX_KEY. */
export function idempotencyKey(key: string): string {
  return key.length <= MAX_KEY ? key : `sha256:${createHash('sha256').update(key).digest('hex')}`;
}

export interface ActivityDeps {
  /** The duetime client (one per worker). */
  duetime: DuetimeClient;
  /** A file to which `notify` and `escalate` append one JSON line each (optional). */
  journal?: string;
}

/** One journal line: what an alert activity did. */
export interface JournalLine {
  action: 'notify' | 'escalate';
  workflowId: string;
  alert: Alert;
  /** The activity's attempt (1 the first time). */
  attempt: number;
  /** When the activity ran (wall clock), RFC 3339. */
  ranAt: string;
}

/** The activities, over one duetime client; register the object with the worker. */
export function createActivities(deps: ActivityDeps) {
  return {
    /** EvaluateSla over the ticket's history: the metrics, what fell, the next action. */
    async evaluate(input: EvaluateInput): Promise<Evaluation> {
      let answer: SlaEvaluation;
      try {
        answer = await deps.duetime.evaluateSla(input.policy, input.events, {
          idempotencyKey: idempotencyKey(input.key),
          ...(input.asOf !== undefined ? { asOf: input.asOf } : {}),
        });
      } catch (err) {
        throw asActivityFailure(err);
      }
      return evaluationOf(answer);
    },

    /** Notify that a warning fell. Here it logs and writes the journal; send
     *  a message to the assignee or the team channel instead. */
    async notify(input: AlertInput): Promise<string> {
      return record('notify', input, deps.journal);
    },

    /** Escalate a breach. Here it logs and writes the journal; page someone or
     *  open an incident instead. */
    async escalate(input: AlertInput): Promise<string> {
      return record('escalate', input, deps.journal);
    },
  };
}

async function record(action: JournalLine['action'], input: AlertInput, journal?: string): Promise<string> {
  const { alert, workflowId } = input;
  const what = alert.kind === 'WARNING' ? `warning ${alert.threshold}` : 'breach';
  const message = `SLA ${what}: ${workflowId} ${alert.metric} (${alert.tier}) at ${alert.time}, due ${alert.deadline}`;
  const context = Context.current();
  context.log.warn(message);
  if (journal) {
    const line: JournalLine = {
      action, workflowId, alert, attempt: context.info.attempt, ranAt: new Date().toISOString(),
    };
    await appendFile(journal, `${JSON.stringify(line)}\n`);
  }
  return message;
}

/** A duetime error as Temporal should see it: non-retryable unless a retry can fix it. */
export function asActivityFailure(err: unknown): unknown {
  if (!(err instanceof DuetimeError) || err.retryable) return err;
  return ApplicationFailure.create({
    type: err.constructor.name,
    message: err.message,
    nonRetryable: true,
    details: err.violations.map((v) => ({ field: v.field, description: v.description })),
    cause: err,
  });
}

type Message = SlaEvaluation['message'];
type Timestamp = { seconds: bigint; nanos: number };

/** What the workflow keeps of an EvaluateSla answer: exact instants (the
 *  answer's Timestamps as RFC 3339 text, to the microsecond), each metric's
 *  deadline or time left, and its WARNING and BREACH entries. */
export function evaluationOf(answer: SlaEvaluation): Evaluation {
  const message: Message = answer.message;
  const metrics: MetricView[] = message.metrics.map((metric, i) => {
    const state = metric.state;
    const alerts: Alert[] = metric.timeline
      .filter((entry) => entry.action === 'WARNING' || entry.action === 'BREACH')
      .map((entry) => ({
        metric: metric.name,
        kind: entry.action as Alert['kind'],
        threshold: entry.threshold,
        time: rfc3339(entry.time),
        deadline: rfc3339(entry.newDeadlineTime),
        tier: entry.tier,
      }));
    return {
      name: metric.name,
      status: answer.metrics[i]?.status ?? 'UNSPECIFIED',
      tier: metric.tier,
      cycles: metric.cycles,
      deadline: state?.deadlineTime ? rfc3339(state.deadlineTime) : null,
      remaining: state?.remaining ? durationText(state.remaining) : null,
      met: state?.met ?? null,
      alerts,
    };
  });
  const next = message.nextAction;
  const nextAction: NextAction | null = next?.time
    ? {
        time: rfc3339(next.time),
        due: (answer.nextAction?.due ?? []).map((d) => ({
          metric: d.metric, kind: d.kind as 'WARNING' | 'BREACH', threshold: d.threshold,
        })),
      }
    : null;
  return {
    recordId: message.recordId,
    policyVersion: message.policyVersion,
    tier: message.tier,
    asOf: message.asOfTime ? rfc3339(message.asOfTime) : '',
    metrics,
    nextAction,
  };
}

/** A protobuf Timestamp as RFC 3339 text in UTC, with 0, 3 or 6 fractional digits. */
export function rfc3339(ts: Timestamp | undefined): string {
  if (!ts) return '';
  const base = new Date(Number(ts.seconds) * 1000).toISOString().slice(0, 19);
  const micros = Math.floor(ts.nanos / 1000);
  if (micros === 0) return `${base}Z`;
  const digits = String(micros).padStart(6, '0');
  return `${base}.${digits.endsWith('000') ? digits.slice(0, 3) : digits}Z`;
}

/** A protobuf Duration as duetime writes it in JSON: `"5s"`, `"-1.5s"`, `"0.000001s"`. */
export function durationText(d: Timestamp): string {
  const negative = d.seconds < 0n || d.nanos < 0;
  const seconds = d.seconds < 0n ? -d.seconds : d.seconds;
  const nanos = Math.abs(d.nanos);
  const fraction = nanos === 0 ? '' : `.${String(nanos).padStart(9, '0').replace(/0+$/, '')}`;
  return `${negative ? '-' : ''}${seconds}${fraction}s`;
}
