/**
 * An SLA workflow whose arithmetic lives in duetime: one workflow per ticket.
 *
 * The workflow keeps the ticket's history of business events and what duetime
 * last answered for it (EvaluateSla under a policy with metrics and
 * warnings). Every recomputation is the `evaluate` activity, with the
 * idempotency key `workflowId/firstRunId/seq`; the workflow does no calendar
 * arithmetic. One timer is armed, at duetime's next action; a signal
 * cancels it before the history is evaluated again and a new one armed.
 * When the timer fires, the workflow evaluates as of the timer's instant (a
 * "tick"), notifies for each WARNING and escalates for each BREACH that fell
 * (each once, stamped with the instant it fell) and arms the following one.
 *
 * Signals: `customerReply`, `tierChange(tier)`, `awaitingThirdParty`,
 * `resolved` (ends the workflow), and `businessEvent(type, attributes)` for
 * any other event of the policy (e.g. `agent_reply`). Query: `progress`.
 */

import {
  ActivityFailure,
  ApplicationFailure,
  condition,
  continueAsNew,
  defineQuery,
  defineSignal,
  log,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';

import type * as activities from './activities.js';
import {
  type Alert,
  type BusinessEvent,
  type Carried,
  DEFAULT_EVENT_NAMES,
  type Evaluation,
  type Refusal,
  type SlaInput,
  type SlaProgress,
  type SlaResult,
} from './types.js';

const { evaluate, notify, escalate } = proxyActivities<ReturnType<typeof activities.createActivities>>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '500 milliseconds', maximumInterval: '10 seconds' },
});

export const customerReply = defineSignal('customerReply');
export const tierChange = defineSignal<[string]>('tierChange');
export const awaitingThirdParty = defineSignal('awaitingThirdParty');
export const resolved = defineSignal('resolved');
export const businessEvent = defineSignal<[string, Record<string, string>?]>('businessEvent');
export const progress = defineQuery<SlaProgress>('progress');

/** duetime's refusals of a history that has an event it cannot take (an
 *  unknown tier or event name): the event is dropped, the workflow goes on. */
const REFUSED = new Set(['InvalidArgument', 'FailedPrecondition', 'OutOfRange']);

interface Received {
  event: BusinessEvent;
  /** When it arrived, in ms since the epoch (the workflow's time). */
  at: number;
  ends: boolean;
}

/** The SLA workflow of one ticket. */
export async function slaWorkflow(input: SlaInput): Promise<SlaResult> {
  const names = { ...DEFAULT_EVENT_NAMES, ...input.eventNames };
  const carried: Carried | undefined = input.carried;
  const events: BusinessEvent[] = carried ? [...carried.events] : [];
  const alerts: Alert[] = carried ? [...carried.alerts] : [];
  const refused: Refusal[] = carried ? [...carried.refused] : [];
  const sent = new Set(alerts.map(alertKey));
  const runs = carried?.runs ?? 0;
  let seq = carried?.seq ?? -1;
  let policy = carried?.policyVersion ?? input.policy;
  let last: Evaluation | undefined = carried?.last;
  let eventsThisRun = 0;
  const inbox: Received[] = [];

  const receive = (type: string, attributes: Record<string, string> = {}, ends = false): void => {
    const at = Date.now();
    inbox.push({ event: { type, time: new Date(at).toISOString(), attributes }, at, ends });
  };
  setHandler(customerReply, () => receive(names.customerReply));
  setHandler(awaitingThirdParty, () => receive(names.awaitingThirdParty));
  setHandler(resolved, () => receive(names.resolved, {}, true));
  setHandler(tierChange, (tier: string) => {
    if (!tier) {
      log.warn('tierChange without a tier (send the new tier, e.g. "urgent"): ignored');
      return;
    }
    receive(names.tierChange, { tier });
  });
  setHandler(businessEvent, (type: string, attributes?: Record<string, string>) => {
    if (!type || type === 'start') {
      log.warn(`businessEvent ${JSON.stringify(type)} ignored: name one of the policy's events`);
      return;
    }
    receive(type, attributes ?? {}, type === names.resolved);
  });
  setHandler(progress, (): SlaProgress => ({
    seq,
    runs,
    events: [...events],
    policyVersion: last?.policyVersion ?? '',
    tier: last?.tier ?? '',
    metrics: last?.metrics ?? [],
    nextAction: last?.nextAction ?? null,
    alerts: [...alerts],
    refused: [...refused],
    lastRecordId: last?.recordId ?? '',
  }));

  /** One recomputation: EvaluateSla over the whole history, as of `asOf` (a
   *  tick) or of the last event, under the next key. */
  async function recompute(asOf?: string): Promise<Evaluation> {
    seq += 1;
    const info = workflowInfo();
    const answer = await evaluate({
      key: `${info.workflowId}/${info.firstExecutionRunId}/${seq}`,
      policy,
      events,
      ...(asOf ? { asOf } : {}),
    });
    last = answer;
    policy = answer.policyVersion; // pinned: a newer policy version never changes this ticket
    return answer;
  }

  /** Notify for each WARNING and escalate for each BREACH the answer shows
   *  that was not sent yet, in the order they fell. */
  async function alert(answer: Evaluation): Promise<void> {
    const fell = answer.metrics
      .flatMap((metric, order) => metric.alerts.map((a, i) => ({ a, order, i })))
      .filter(({ a }) => !sent.has(alertKey(a)))
      .sort((x, y) => instantCompare(x.a.time, y.a.time) || x.order - y.order || x.i - y.i);
    for (const { a } of fell) {
      sent.add(alertKey(a));
      alerts.push(a);
      const request = { workflowId: workflowInfo().workflowId, alert: a };
      await (a.kind === 'BREACH' ? escalate(request) : notify(request));
    }
  }

  if (!carried) {
    const start = input.startTime ?? new Date(Date.now()).toISOString();
    events.push({ type: 'start', time: start, attributes: input.tier ? { tier: input.tier } : {} });
    await alert(await recompute());
  }

  for (;;) {
    const next = last?.nextAction ?? null;
    const nextMs = next ? ceilMs(next.time) : Infinity;
    if (inbox.length === 0) {
      if (shouldContinueAsNew(input, eventsThisRun)) {
        await continueAsNew<typeof slaWorkflow>({
          ...input,
          carried: { events, seq, policyVersion: policy, last: last!, alerts, refused, runs: runs + 1 },
        });
      }
      // The one timer: armed for the next action's absolute instant, cancelled
      // (TimerCanceled) when a signal arrives first.
      if (next === null) {
        await condition(() => inbox.length > 0);
      } else if (nextMs > Date.now()) {
        await condition(() => inbox.length > 0, nextMs - Date.now(), { summary: `SLA next action ${next.time}` });
      }
    }
    const first = inbox[0];
    // Events at an instant come before what falls at it (docs/semantics.md §17).
    if (next !== null && Date.now() >= nextMs && (first === undefined || first.at > nextMs)) {
      await alert(await recompute(next.time)); // the tick, as of the timer's own instant
      continue;
    }
    if (first === undefined) continue;
    inbox.shift();
    events.push(first.event);
    eventsThisRun += 1;
    let answer: Evaluation;
    try {
      answer = await recompute();
    } catch (err) {
      const cause = err instanceof ActivityFailure ? err.cause : undefined;
      if (!(cause instanceof ApplicationFailure) || !cause.nonRetryable || !REFUSED.has(cause.type ?? '')) throw err;
      events.pop(); // the history stays one duetime takes; its key (seq) stays used
      const field = (cause.details?.[0] as { field?: string } | undefined)?.field ?? '';
      refused.push({ event: first.event, error: cause.type!, message: cause.message, field });
      log.warn(`${first.event.type} refused by duetime and dropped: ${cause.message}`);
      continue;
    }
    await alert(answer);
    if (first.ends) break;
  }
  const final = last!;
  return {
    events,
    policyVersion: final.policyVersion,
    tier: final.tier,
    metrics: final.metrics,
    alerts,
    refused,
    seq,
    runs,
    lastRecordId: final.recordId,
  };
}

function shouldContinueAsNew(input: SlaInput, eventsThisRun: number): boolean {
  const after = input.continueAsNewAfter ?? 0;
  return workflowInfo().continueAsNewSuggested || (after > 0 && eventsThisRun >= after);
}

function alertKey(alert: Alert): string {
  return `${alert.metric}|${alert.kind}|${alert.threshold}|${alert.time}`;
}

const RFC3339 = /^(.*T\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d)$/;

/** Microseconds since the epoch of RFC 3339 text (duetime writes at most 6 fractional digits). */
function instantUs(text: string): number {
  const match = RFC3339.exec(text);
  if (!match) throw new Error(`not an RFC 3339 instant: ${text}`);
  const seconds = Date.parse(`${match[1]}${match[3]}`);
  const fraction = (match[2] ?? '').padEnd(6, '0').slice(0, 6);
  return seconds * 1000 + Number(fraction);
}

/** The first millisecond at or after the instant: a timer never fires before it. */
function ceilMs(text: string): number {
  return Math.ceil(instantUs(text) / 1000);
}

function instantCompare(a: string, b: string): number {
  return instantUs(a) - instantUs(b);
}
