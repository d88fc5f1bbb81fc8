/**
 * The shapes the SLA workflow and its activities exchange. Plain data only:
 * instants are RFC 3339 text in UTC as duetime writes them
 * (`"2026-12-02T08:00:00Z"`, up to 6 fractional digits), so every value
 * crosses Temporal's JSON payloads unchanged.
 */

/** One business event of a ticket's history, named as in the SLA policy. */
export interface BusinessEvent {
  /** `"start"` (always first) or one of the policy's events, e.g. `"customer_reply"`. */
  type: string;
  /** When it happened: the workflow's time when the signal arrived (RFC 3339, UTC). */
  time: string;
  /** Details, e.g. `{ tier: "urgent" }` for a tier change. */
  attributes: Record<string, string>;
}

/** What falls at the next action: a metric's WARNING (with its threshold) or BREACH. */
export interface SlaDue {
  metric: string;
  kind: 'WARNING' | 'BREACH';
  /** The warning's threshold as written in the policy (`"75%"`, `"30bm"`); `""` for a breach. */
  threshold: string;
}

/** The one instant the workflow arms its timer for, and what falls then. */
export interface NextAction {
  /** RFC 3339, UTC. */
  time: string;
  due: SlaDue[];
}

/** A WARNING or BREACH that fell, at the instant it fell (never the moment it was noticed). */
export interface Alert {
  metric: string;
  kind: 'WARNING' | 'BREACH';
  threshold: string;
  /** The instant it fell (RFC 3339, UTC). */
  time: string;
  /** The metric's deadline it counts towards (RFC 3339, UTC). */
  deadline: string;
  /** The tier in force when it fell. */
  tier: string;
}

/** A policy metric as of an evaluation. */
export interface MetricView {
  name: string;
  /** NOT_STARTED, RUNNING, PAUSED or STOPPED. */
  status: string;
  tier: string;
  cycles: number;
  /** The absolute deadline while the metric runs; `null` otherwise. */
  deadline: string | null;
  /** Time left in the metric's measure while paused, as duetime writes it (`"5s"`); `null` otherwise. */
  remaining: string | null;
  /** `true`/`false` once stopped; `null` before. */
  met: boolean | null;
  /** Its WARNING and BREACH entries up to the evaluation's as-of instant, in time order. */
  alerts: Alert[];
}

/** The `evaluate` activity's input: one recomputation of the ticket's SLA. */
export interface EvaluateInput {
  /** Idempotency key: `workflowId/firstRunId/seq` (see README, "Idempotency keys"). */
  key: string;
  /** The policy, `name` for the first call, then the `name@version` the first call answered. */
  policy: string;
  /** The whole history, oldest first, beginning with `start`. */
  events: BusinessEvent[];
  /** A tick: evaluate as of this instant (RFC 3339); unset: as of the last event. */
  asOf?: string;
}

/** What the workflow keeps of one EvaluateSla answer. */
export interface Evaluation {
  recordId: string;
  /** `name@version`: the workflow pins it for every later call. */
  policyVersion: string;
  tier: string;
  /** The instant evaluated as of. */
  asOf: string;
  metrics: MetricView[];
  /** `null` when nothing is due (no metric runs, or every warning and breach already fell). */
  nextAction: NextAction | null;
}

/** What a `notify` / `escalate` activity is given. */
export interface AlertInput {
  workflowId: string;
  alert: Alert;
}

/** The signals' event names in the policy. The defaults are those of the
 *  `support-contract` policy; `calendars/policy-examples/support-sla.toml`
 *  uses `priority_change` and `solved`. */
export interface EventNames {
  customerReply: string;
  tierChange: string;
  awaitingThirdParty: string;
  resolved: string;
}

export const DEFAULT_EVENT_NAMES: EventNames = {
  customerReply: 'customer_reply',
  tierChange: 'tier_change',
  awaitingThirdParty: 'awaiting_third_party',
  resolved: 'resolved',
};

/** A signal whose event duetime refused (an unknown tier or event name, say):
 *  the workflow dropped it from the history and carried on. */
export interface Refusal {
  event: BusinessEvent;
  /** The error's class, e.g. `"InvalidArgument"`. */
  error: string;
  message: string;
  /** The field duetime named, e.g. `"events[3].attributes"`. */
  field: string;
}

/** What a run hands the next one when it continues as new. */
export interface Carried {
  events: BusinessEvent[];
  /** The last sequence number used in an idempotency key. */
  seq: number;
  policyVersion: string;
  /** The last evaluation (its next action is the timer the new run arms, unchanged). */
  last: Evaluation;
  /** Every alert sent so far (so none is sent twice). */
  alerts: Alert[];
  refused: Refusal[];
  /** How many runs came before. */
  runs: number;
}

/** The workflow's input. */
export interface SlaInput {
  /** The SLA policy, e.g. `"support-sla"` or `"support-contract@8b65ed13fadb"`. */
  policy: string;
  /** The starting tier (the `start` event's `tier` attribute); unset: the policy's initial tier. */
  tier?: string;
  /** When the ticket was created (RFC 3339); unset: when the workflow started. */
  startTime?: string;
  /** Event names of the four signals in this policy; unset: DEFAULT_EVENT_NAMES. */
  eventNames?: Partial<EventNames>;
  /** Continue as new after this many events in one run (0 or unset: when Temporal suggests it). */
  continueAsNewAfter?: number;
  /** Set by the workflow itself when it continues as new. */
  carried?: Carried;
}

/** The `progress` query's answer: the workflow's view of the ticket's SLA. */
export interface SlaProgress {
  /** How many times duetime was asked (the last idempotency key's sequence number). */
  seq: number;
  /** How many runs came before this one (continue-as-new). */
  runs: number;
  /** The ticket's history so far, oldest first (what every evaluation replays). */
  events: BusinessEvent[];
  policyVersion: string;
  tier: string;
  metrics: MetricView[];
  /** The timer the workflow has armed (or will arm); `null`: none. */
  nextAction: NextAction | null;
  alerts: Alert[];
  /** Signals whose events duetime refused (dropped from the history). */
  refused: Refusal[];
  lastRecordId: string;
}

/** The workflow's result, once the ticket is resolved. */
export interface SlaResult {
  /** The ticket's whole history, oldest first. */
  events: BusinessEvent[];
  policyVersion: string;
  tier: string;
  metrics: MetricView[];
  alerts: Alert[];
  refused: Refusal[];
  seq: number;
  runs: number;
  lastRecordId: string;
}
