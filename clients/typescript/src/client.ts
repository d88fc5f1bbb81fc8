/**
 * DuetimeClient: a connection to one duetime server over gRPC
 * (`@connectrpc/connect-node`), with typed calls that take `Date` or RFC 3339
 * text and plain calendars, and answer plain objects. See README.md.
 */

import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { create } from "@bufbuild/protobuf";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { createClient } from "@connectrpc/connect";
import type { Client, Interceptor, Transport } from "@connectrpc/connect";
import { createGrpcTransport, Http2SessionManager } from "@connectrpc/connect-node";
import {
  AtClose,
  BusinessEventSchema,
  CalendarService,
  ClockEventSchema,
  ClockEventType,
  ClockStatus,
  ComputeDueTimeRequestSchema,
  DeadlineSpecSchema,
  DueTimeService,
  RetargetAnchor,
  Roll,
  SlaDueKind,
  SlaMetricStatus,
} from "./gen/duetime/v1/duetime_pb.js";
import type {
  AnalyzeImpactResponse,
  ApplyClockEventResponse,
  BatchItemResult,
  ClockState,
  ComputeDueTimeRequest,
  ComputeDueTimeResponse,
  ExplanationStep as ExplanationStepMessage,
  GetCalendarResponse,
  GetPolicyResponse,
  ListCalendarsResponse,
  ListHolidaysResponse,
  ListPoliciesResponse,
  Record as RecordMessage,
  SlaNextAction as SlaNextActionMessage,
  StartClockResponse,
  TimelineEntry as TimelineEntryMessage,
  EvaluateSlaResponse,
} from "./gen/duetime/v1/duetime_pb.js";
import type { Timestamp } from "@bufbuild/protobuf/wkt";
import { Health, HealthCheckResponse_ServingStatus } from "./gen/grpc/health/v1/health_pb.js";
import { calendarOf } from "./calendar.js";
import type { CalendarLike } from "./calendar.js";
import { dateOf, millisecondsOf, requiredDateOf, stateMessage, stateText, timestampOf } from "./convert.js";
import type { Instant } from "./convert.js";
import { DuetimeError, RETRY_CODES, errorOf, errorOfStatus, invalidArgument } from "./errors.js";

/** The address a client calls by default. */
export const DEFAULT_ADDRESS = "127.0.0.1:50051";
/** Milliseconds each call may take (its deadline, retries included) by default. */
export const DEFAULT_TIMEOUT_MS = 5000;
/** Retries after the first attempt by default. */
export const DEFAULT_RETRIES = 4;
/** How an idempotency key the client made up begins; the rest is a random
 * UUID (and `/N` for a batch or stream's item N). */
export const GENERATED_KEY_PREFIX = "client/";
/** The call metadata naming the caller's idempotency namespace. */
export const NAMESPACE_HEADER = "x-duetime-namespace";
/** Items per message a stream sends by default. */
export const STREAM_MESSAGE_ITEMS = 1000;

/** PEM text, PEM bytes, or the path of a PEM file. */
export type PemSource = string | Uint8Array;

/** TLS settings: `ca` the roots to trust (default: the system's), `cert` and
 * `key` this client's certificate for mutual TLS, `serverName` the name to
 * check the server's certificate against (default: the address's host). */
export interface TlsOptions {
  ca?: PemSource;
  cert?: PemSource;
  key?: PemSource;
  serverName?: string;
}

/** How a DuetimeClient connects and calls; see README.md. */
export interface ClientOptions {
  /** `HOST:PORT` of the gRPC port (not a URL); default 127.0.0.1:50051. */
  address?: string;
  /** Milliseconds each call may take, retries included (default 5000). */
  timeoutMs?: number;
  /** The idempotency namespace every call is made in (1–64 characters of A-Z a-z 0-9 . _ -). */
  namespace?: string;
  /** A bearer token, sent as `authorization: Bearer <token>`. */
  token?: string;
  /** `true` for TLS with the system's roots, or TLS settings. */
  tls?: boolean | TlsOptions;
  /** Retries of a retryable failure (0 to 10, default 4; 0 also makes up no idempotency key). */
  retries?: number;
  /** The first wait before a retry, in milliseconds (default: the waits add up to half of `timeoutMs`). */
  backoffMs?: number;
  /** A transport to use instead of one built from the options above
   * (`address`, `tls`, `token`, `namespace` and retries are then the
   * transport's own business, and so is each call's deadline). */
  transport?: Transport;
}

// ---------------------------------------------------------------------------
// answers

/** What produced an answer and where it is recorded. */
export interface Recorded {
  recordId: string;
  calendarVersion: string;
  rulesVersion: string;
  tzdataVersion: string;
  timeZone: string;
  warnings: string[];
}

/** One step of an answer's explanation (asked for with `explain`). */
export interface ExplanationStep {
  kind: string;
  text: string;
  localDate: string;
  start: Date | null;
  end: Date | null;
  /** The business time it counted, in milliseconds; null when it counts none. */
  amountMs: number | null;
}

export interface DueTime {
  due: Date;
  /** `due` as RFC 3339 text in the calendar's zone, e.g. "2026-12-02T16:00:00+01:00". */
  dueLocal: string;
  explanation: ExplanationStep[];
  recorded: Recorded;
  message: ComputeDueTimeResponse;
}

/** One item's answer in a batch or stream: its due time, or its own error. */
export type DueTimeResult = { ok: true; dueTime: DueTime } | { ok: false; error: DuetimeError };

export interface BusinessTime {
  /** Business time between the instants, in milliseconds (microseconds as the fraction). */
  businessTimeMs: number;
  businessDays: number;
  explanation: ExplanationStep[];
  recorded: Recorded;
}

export interface OpenStatus {
  open: boolean;
  /** The open interval holding the instant, when open. */
  interval: { start: Date; end: Date } | null;
  nextOpen: Date | null;
  nextClose: Date | null;
  /** With `includeLastRun`: the opening of the run holding the instant (or the last before it). */
  lastOpen: Date | null;
  /** With `includeLastRun`: the last closing at or before the instant. */
  lastClose: Date | null;
  businessDay: boolean;
  localDate: string;
  closedReason: string;
  holidayName: string;
  recorded: Recorded;
}

export interface ScheduledDeadline {
  name: string;
  due: Date;
  dueLocal: string;
  countedFrom: Date | null;
  after: string;
  explanation: ExplanationStep[];
}

export interface Schedule {
  deadlines: ScheduledDeadline[];
  nextDue: string;
  nextDueTime: Date | null;
  recorded: Recorded;
}

export interface OpenPeriod {
  start: Date;
  end: Date;
  localDate: string;
  startLocal: string;
  endLocal: string;
}

export interface OpenPeriods {
  periods: OpenPeriod[];
  /** Empty on the last page. */
  nextPageToken: string;
  recorded: Recorded;
}

export interface BusinessDayCount {
  businessDays: number;
  recorded: Recorded;
}

export interface SlaDue {
  metric: string;
  kind: "WARNING" | "BREACH" | "UNSPECIFIED";
  /** A warning's threshold as written ("75%"); empty for a breach. */
  threshold: string;
}

/** The one timer to arm: when, and everything that falls then. */
export interface SlaNextAction {
  time: Date;
  due: SlaDue[];
}

export type ClockStatusName = "RUNNING" | "PAUSED" | "STOPPED" | "UNSPECIFIED";

/** An SLA clock after a call. `state` is the serialized duetime.v1.ClockState,
 * base64: keep it and hand it back with the next event. */
export interface Clock {
  state: string;
  status: ClockStatusName;
  target: string;
  /** Set while RUNNING. */
  deadline: Date | null;
  /** Set while PAUSED, in milliseconds of the clock's measure; negative when paused past the deadline. */
  remainingMs: number | null;
  /** The deadline that was missed, once an event showed it. */
  breachedAt: Date | null;
  /** Set when STOPPED. */
  met: boolean | null;
  recomputations: number;
  /** The next warning or breach (with warning thresholds or a policy with metrics); null: none. */
  nextAction: SlaNextAction | null;
  recorded: Recorded;
  stateMessage: ClockState;
}

export interface TimelineEntry {
  event: string;
  time: Date;
  action: string;
  tier: string;
  status: ClockStatusName;
  oldDeadline: Date | null;
  newDeadline: Date | null;
  remainingMs: number | null;
  reason: string;
  threshold: string;
}

export interface SlaMetric {
  name: string;
  status: "NOT_STARTED" | "RUNNING" | "PAUSED" | "STOPPED" | "UNSPECIFIED";
  cycles: number;
  tier: string;
  /** The metric's clock state, base64 ("" before its first start). */
  state: string;
  timeline: TimelineEntry[];
}

export interface SlaEvaluation {
  clock: Clock;
  tier: string;
  policyVersion: string;
  timeline: TimelineEntry[];
  metrics: SlaMetric[];
  nextAction: SlaNextAction | null;
  asOf: Date | null;
  message: EvaluateSlaResponse;
}

/** One business event of a ticket's history for evaluateSla. */
export interface SlaEvent {
  type: string;
  time: Instant;
  attributes?: Record<string, string>;
}

/** One item of computeDueTimes / streamDueTimes: computeDueTime's arguments. */
export interface DueTimeRequest extends DueTimeOptions {
  start: Instant;
  duration: string;
  calendar?: CalendarLike;
}

export interface RecordedOptions {
  /** The idempotency key; default: one made up (`client/<uuid>`) unless retries are 0. */
  idempotencyKey?: string;
}

export type AtCloseName = "next-open" | "end-of-window";
export type RollName = "following" | "preceding" | "modified-following" | "modified-preceding";

export interface DueTimeOptions extends RecordedOptions {
  /** Business time ending exactly at a closing: due at that closing (end-of-window, the default) or at the next opening. */
  atClose?: AtCloseName;
  /** Where a calendar duration landing on a closed day rolls (docs/semantics.md §15). */
  roll?: RollName;
  /** The landing time of the day it lands on (docs/semantics.md §15). */
  landingTime?: string;
  explain?: boolean;
}

/** A deadline of computeSchedule: `"remind=2bd"`, `"final=4bh@after:escalate"` or an object. */
export type DeadlineInit = string | { name: string; duration: string; after?: string; roll?: RollName; landingTime?: string };

// ---------------------------------------------------------------------------
// conversions of answers

function recordedOf(r: {
  recordId: string;
  calendarVersion: string;
  rulesVersion: string;
  tzdataVersion: string;
  timeZone: string;
  warnings: string[];
}): Recorded {
  return {
    recordId: r.recordId,
    calendarVersion: r.calendarVersion,
    rulesVersion: r.rulesVersion,
    tzdataVersion: r.tzdataVersion,
    timeZone: r.timeZone,
    warnings: [...r.warnings],
  };
}

function explanationOf(steps: ExplanationStepMessage[]): ExplanationStep[] {
  return steps.map((s) => ({
    kind: s.kind,
    text: s.text,
    localDate: s.localDate,
    start: dateOf(s.startTime),
    end: dateOf(s.endTime),
    amountMs: millisecondsOf(s.amount),
  }));
}

function dueTimeOf(r: ComputeDueTimeResponse): DueTime {
  return {
    due: requiredDateOf(r.due),
    dueLocal: r.dueLocal,
    explanation: explanationOf(r.explanation),
    recorded: recordedOf(r),
    message: r,
  };
}

function resultOf(r: BatchItemResult): DueTimeResult {
  if (r.result.case === "response") {
    return { ok: true, dueTime: dueTimeOf(r.result.value) };
  }
  if (r.result.case === "error") {
    return { ok: false, error: errorOfStatus(r.result.value) };
  }
  return { ok: false, error: errorOfStatus({ $typeName: "google.rpc.Status", code: 2, message: "the server sent an empty result", details: [] }) };
}

function enumName<E extends Record<string, string | number>>(table: E, value: number, prefix = ""): string {
  const name = (table as Record<number, string>)[value];
  return name === undefined ? "UNSPECIFIED" : name.replace(prefix, "");
}

/** "Running" → "RUNNING": the generated enums' names in the proto's spelling. */
function upper(name: string): string {
  return name.replace(/([a-z])([A-Z])/g, "$1_$2").toUpperCase();
}

function statusName(value: ClockStatus): ClockStatusName {
  return upper(enumName(ClockStatus, value)) as ClockStatusName;
}

function nextActionOf(a: SlaNextActionMessage | undefined): SlaNextAction | null {
  if (a === undefined) {
    return null;
  }
  return {
    time: requiredDateOf(a.time),
    due: a.due.map((d) => ({
      metric: d.metric,
      kind: upper(enumName(SlaDueKind, d.kind)) as SlaDue["kind"],
      threshold: d.threshold,
    })),
  };
}

function clockOf(
  r: StartClockResponse | ApplyClockEventResponse | EvaluateSlaResponse,
): Clock {
  const state = r.state ?? stateMessage(new Uint8Array());
  return {
    state: stateText(state),
    status: statusName(state.status),
    target: state.target,
    deadline: dateOf(state.deadlineTime),
    remainingMs: millisecondsOf(state.remaining),
    breachedAt: dateOf(state.breachTime),
    met: state.met ?? null,
    recomputations: Number(state.recomputations),
    nextAction: nextActionOf(r.nextAction),
    recorded: recordedOf(r),
    stateMessage: state,
  };
}

function timelineOf(entries: TimelineEntryMessage[]): TimelineEntry[] {
  return entries.map((e) => ({
    event: e.event,
    time: requiredDateOf(e.time),
    action: e.action,
    tier: e.tier,
    status: statusName(e.status),
    oldDeadline: dateOf(e.oldDeadlineTime),
    newDeadline: dateOf(e.newDeadlineTime),
    remainingMs: millisecondsOf(e.remaining),
    reason: e.reason,
    threshold: e.threshold,
  }));
}

const AT_CLOSE: Record<AtCloseName, AtClose> = {
  "next-open": AtClose.NEXT_OPEN,
  "end-of-window": AtClose.END_OF_WINDOW,
};
const ROLL: Record<RollName, Roll> = {
  following: Roll.FOLLOWING,
  preceding: Roll.PRECEDING,
  "modified-following": Roll.MODIFIED_FOLLOWING,
  "modified-preceding": Roll.MODIFIED_PRECEDING,
};
const EVENTS: Record<string, ClockEventType> = {
  pause: ClockEventType.PAUSE,
  resume: ClockEventType.RESUME,
  reset: ClockEventType.RESET,
  retarget: ClockEventType.RETARGET,
  stop: ClockEventType.STOP,
};
const ANCHORS: Record<string, RetargetAnchor> = {
  event: RetargetAnchor.EVENT,
  start: RetargetAnchor.START,
};

function choice<T>(table: Record<string, T>, value: string | undefined, field: string): T | undefined {
  if (value === undefined || value === "") {
    return undefined;
  }
  const found = table[value.toLowerCase().replace(/_/g, "-")];
  if (found === undefined) {
    throw invalidArgument(field, `'${value}' is not one of ${Object.keys(table).join(", ")}`);
  }
  return found;
}

function durationText(value: unknown, field: string): string {
  if (typeof value !== "string") {
    throw invalidArgument(field, `is a ${typeof value}; give text with a unit such as '2h', '3bd' or 'P1M'`);
  }
  return value;
}

function deadlineOf(deadline: DeadlineInit, i: number): MessageInitShape<typeof DeadlineSpecSchema> {
  const field = `deadlines[${i}]`;
  if (typeof deadline === "string") {
    const eq = deadline.indexOf("=");
    const name = deadline.slice(0, eq).trim();
    let rest = deadline.slice(eq + 1);
    let after = "";
    const at = rest.lastIndexOf("@after:");
    if (at >= 0) {
      after = rest.slice(at + "@after:".length).trim();
      rest = rest.slice(0, at);
    }
    const duration = rest.trim();
    if (eq < 0 || !name || !duration || (at >= 0 && !after)) {
      throw invalidArgument(field, `'${deadline}' is not NAME=DURATION or NAME=DURATION@after:NAME`);
    }
    return { name, duration, after };
  }
  return {
    name: deadline.name,
    duration: durationText(deadline.duration, `${field}.duration`),
    after: deadline.after ?? "",
    roll: choice(ROLL, deadline.roll, `${field}.roll`) ?? Roll.UNSPECIFIED,
    landingTime: deadline.landingTime ?? "",
  };
}

// ---------------------------------------------------------------------------
// transport: token, namespace, retries

function pem(source: PemSource | undefined, field: string): Buffer | undefined {
  if (source === undefined) {
    return undefined;
  }
  if (source instanceof Uint8Array) {
    return Buffer.from(source);
  }
  if (source.includes("-----BEGIN")) {
    return Buffer.from(source, "utf8");
  }
  try {
    return readFileSync(source);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw invalidArgument(field, `cannot read the PEM file '${source}': ${why}`);
  }
}

function checkAddress(address: string): void {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(address)) {
    throw invalidArgument("address", `'${address}' is a URL; give HOST:PORT, e.g. 127.0.0.1:50051`);
  }
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:\s/]+):(\d{1,5})$/.exec(address);
  if (!m || Number(m[2]) < 1 || Number(m[2]) > 65535) {
    throw invalidArgument("address", `'${address}' is not HOST:PORT, e.g. 127.0.0.1:50051`);
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) {
      resolve();
      return;
    }
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

/** The waits before each retry, in milliseconds, before jitter. */
export function retryWaits(retries: number, timeoutMs: number, backoffMs?: number): number[] {
  if (retries <= 0) {
    return [];
  }
  const first = Math.max(1, backoffMs ?? timeoutMs / 2 / (1.2 * (2 ** retries - 1)));
  return Array.from({ length: retries }, (_, i) => first * 2 ** i);
}

function retryInterceptor(waits: number[]): Interceptor {
  return (next) => async (req) => {
    if (req.stream || req.service.typeName === Health.typeName) {
      return next(req);
    }
    for (let attempt = 0; ; attempt++) {
      try {
        return await next(req);
      } catch (error) {
        const wait = waits[attempt];
        const code = errorOf(error).grpcCode;
        if (wait === undefined || req.signal.aborted || !RETRY_CODES.includes(code)) {
          throw error;
        }
        await sleep(wait * (0.8 + 0.4 * Math.random()), req.signal);
        if (req.signal.aborted) {
          throw error;
        }
      }
    }
  };
}

function headerInterceptor(token: string | undefined, namespace: string | undefined): Interceptor {
  return (next) => (req) => {
    if (token !== undefined) {
      req.header.set("authorization", `Bearer ${token}`);
    }
    if (namespace) {
      req.header.set(NAMESPACE_HEADER, namespace);
    }
    return next(req);
  };
}

// ---------------------------------------------------------------------------
// the client

/** The generated clients of duetime.v1's services, over the client's transport. */
export interface RawClients {
  dueTime: Client<typeof DueTimeService>;
  calendars: Client<typeof CalendarService>;
  /** The gRPC health service (grpc.health.v1.Health, its Check method). */
  health: Client<typeof Health>;
}

/**
 * A connection to one duetime server. Every method returns a promise that
 * rejects with a {@link DuetimeError} subclass; an argument the client can
 * see is wrong rejects with InvalidArgument naming it before anything is sent.
 */
export class DuetimeClient {
  readonly address: string;
  readonly timeoutMs: number;
  readonly namespace: string;
  readonly retries: number;
  /** The generated clients (every RPC of duetime.v1), with token, namespace and retries. */
  readonly raw: RawClients;
  private readonly sessions: Http2SessionManager | undefined;

  constructor(options: ClientOptions = {}) {
    this.address = options.address ?? DEFAULT_ADDRESS;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.namespace = options.namespace ?? "";
    this.retries = options.retries ?? DEFAULT_RETRIES;
    if (!Number.isInteger(this.retries) || this.retries < 0 || this.retries > 10) {
      throw invalidArgument("retries", `${String(options.retries)} is not 0 to 10 retries`);
    }
    if (!(this.timeoutMs > 0)) {
      throw invalidArgument("timeoutMs", `${String(options.timeoutMs)} is not a number of milliseconds over 0`);
    }
    if (options.backoffMs !== undefined && !(options.backoffMs > 0)) {
      throw invalidArgument("backoffMs", `${String(options.backoffMs)} is not a number of milliseconds over 0`);
    }
    if (options.token !== undefined && !options.token) {
      throw invalidArgument("token", "is empty; give the token, or leave it out");
    }
    const interceptors = [
      headerInterceptor(options.token, options.namespace),
      retryInterceptor(retryWaits(this.retries, this.timeoutMs, options.backoffMs)),
    ];
    let transport = options.transport;
    if (transport === undefined) {
      checkAddress(this.address);
      const tls = options.tls === true ? {} : options.tls || undefined;
      const baseUrl = `${tls ? "https" : "http"}://${this.address}`;
      const nodeOptions = tls
        ? {
            ca: pem(tls.ca, "tls.ca"),
            cert: pem(tls.cert, "tls.cert"),
            key: pem(tls.key, "tls.key"),
            ...(tls.serverName ? { servername: tls.serverName } : {}),
          }
        : {};
      if (tls && (tls.cert === undefined) !== (tls.key === undefined)) {
        throw invalidArgument(tls.cert === undefined ? "tls.cert" : "tls.key", "mutual TLS needs both tls.cert and tls.key");
      }
      this.sessions = new Http2SessionManager(baseUrl, {}, nodeOptions);
      transport = createGrpcTransport({
        baseUrl,
        sessionManager: this.sessions,
        interceptors,
        defaultTimeoutMs: this.timeoutMs,
      });
    } else {
      this.sessions = undefined;
    }
    this.raw = {
      dueTime: createClient(DueTimeService, transport),
      calendars: createClient(CalendarService, transport),
      health: createClient(Health, transport),
    };
  }

  /** Closes the connection (calls in flight fail); the process may then exit. */
  close(): void {
    this.sessions?.abort();
  }

  /** `given`, or when it is empty and retries are on, a new key (`client/<uuid>`). */
  private key(given: string | undefined): string {
    if (given || this.retries === 0) {
      return given ?? "";
    }
    return GENERATED_KEY_PREFIX + randomUUID().replace(/-/g, "");
  }

  private async call<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw errorOf(error);
    }
  }

  private dueTimeRequest(item: DueTimeRequest, prefix: string, key: string): ComputeDueTimeRequest {
    return create(ComputeDueTimeRequestSchema, {
      start: timestampOf(item.start, `${prefix}start`),
      duration: durationText(item.duration, `${prefix}duration`),
      calendar: calendarOf(item.calendar, `${prefix}calendar`),
      atClose: choice(AT_CLOSE, item.atClose, `${prefix}at_close`) ?? AtClose.UNSPECIFIED,
      roll: choice(ROLL, item.roll, `${prefix}roll`) ?? Roll.UNSPECIFIED,
      landingTime: item.landingTime ?? "",
      explain: item.explain ?? false,
      idempotencyKey: key,
    });
  }

  /** `start + duration` ("3bd", "8bh", "48h", "P1M", "P1M@following" …) in `calendar`: ComputeDueTime. */
  async computeDueTime(start: Instant, duration: string, calendar?: CalendarLike, opts: DueTimeOptions = {}): Promise<DueTime> {
    const request = this.dueTimeRequest({ ...opts, start, duration, calendar }, "", this.key(opts.idempotencyKey));
    return dueTimeOf(await this.call(() => this.raw.dueTime.computeDueTime(request)));
  }

  /** Many due times in one BatchComputeDueTimes call (at most the server's
   * batch size): one result per item, in order; an item without a key gets
   * `client/<uuid>/N`. */
  async computeDueTimes(items: Iterable<DueTimeRequest>): Promise<DueTimeResult[]> {
    const base = this.key(undefined);
    const list = [...items];
    const request = {
      items: list.map((item, i) =>
        this.dueTimeRequest(item, `items[${i}].`, item.idempotencyKey || (base ? `${base}/${i}` : "")),
      ),
    };
    const response = await this.call(() => this.raw.dueTime.batchComputeDueTimes(request));
    return response.results.map(resultOf);
  }

  /** Due times for any number of items through one StreamComputeDueTimes
   * call, `messageItems` (default 1000) a message; yields one result per item,
   * in order, as they arrive. Not retried (a stream is not resent). */
  async *streamDueTimes(
    items: Iterable<DueTimeRequest> | AsyncIterable<DueTimeRequest>,
    opts: { messageItems?: number; timeoutMs?: number } = {},
  ): AsyncGenerator<DueTimeResult> {
    const size = opts.messageItems ?? STREAM_MESSAGE_ITEMS;
    if (!Number.isInteger(size) || size < 1 || size > 10_000) {
      throw invalidArgument("messageItems", `${String(opts.messageItems)} is not 1 to 10000 items a message`);
    }
    const base = this.key(undefined);
    const self = this;
    async function* messages() {
      let chunk: ComputeDueTimeRequest[] = [];
      let i = 0;
      for await (const item of items as AsyncIterable<DueTimeRequest>) {
        chunk.push(self.dueTimeRequest(item, `items[${i}].`, item.idempotencyKey || (base ? `${base}/${i}` : "")));
        i++;
        if (chunk.length === size) {
          yield { items: chunk };
          chunk = [];
        }
      }
      if (chunk.length) {
        yield { items: chunk };
      }
    }
    try {
      const responses = this.raw.dueTime.streamComputeDueTimes(messages(), {
        timeoutMs: opts.timeoutMs ?? 600_000,
      });
      for await (const response of responses) {
        for (const result of response.results) {
          yield resultOf(result);
        }
      }
    } catch (error) {
      throw errorOf(error);
    }
  }

  /** Business time between two instants (negative when `end` is before `start`): ComputeBusinessTime. */
  async computeBusinessTime(
    start: Instant,
    end: Instant,
    calendar?: CalendarLike,
    opts: RecordedOptions & { explain?: boolean } = {},
  ): Promise<BusinessTime> {
    const request = {
      startTime: timestampOf(start, "start_time"),
      endTime: timestampOf(end, "end_time"),
      calendar: calendarOf(calendar),
      explain: opts.explain ?? false,
      idempotencyKey: this.key(opts.idempotencyKey),
    };
    const r = await this.call(() => this.raw.dueTime.computeBusinessTime(request));
    return {
      businessTimeMs: millisecondsOf(r.businessTime) ?? 0,
      businessDays: Number(r.businessDays),
      explanation: explanationOf(r.explanation),
      recorded: recordedOf(r),
    };
  }

  /** Whether the calendar is open at `at`, and the next opening and closing: GetOpenStatus. */
  async getOpenStatus(at: Instant, calendar?: CalendarLike, opts: RecordedOptions & { includeLastRun?: boolean } = {}): Promise<OpenStatus> {
    const request = {
      time: timestampOf(at, "time"),
      calendar: calendarOf(calendar),
      includeLastRun: opts.includeLastRun ?? false,
      idempotencyKey: this.key(opts.idempotencyKey),
    };
    const r = await this.call(() => this.raw.dueTime.getOpenStatus(request));
    const current = r.currentInterval;
    return {
      open: r.open,
      interval: current ? { start: requiredDateOf(current.startTime), end: requiredDateOf(current.endTime) } : null,
      nextOpen: dateOf(r.nextOpenTime),
      nextClose: dateOf(r.nextCloseTime),
      lastOpen: dateOf(r.lastOpenTime),
      lastClose: dateOf(r.lastCloseTime),
      businessDay: r.businessDay,
      localDate: r.localDate,
      closedReason: r.closedReason,
      holidayName: r.holidayName,
      recorded: recordedOf(r),
    };
  }

  /** A stage's named deadlines from `entered`: ComputeSchedule. */
  async computeSchedule(
    entered: Instant,
    deadlines: readonly DeadlineInit[],
    calendar?: CalendarLike,
    opts: RecordedOptions & { atClose?: AtCloseName; explain?: boolean } = {},
  ): Promise<Schedule> {
    const request = {
      enteredTime: timestampOf(entered, "entered_time"),
      calendar: calendarOf(calendar),
      deadlines: deadlines.map(deadlineOf),
      atClose: choice(AT_CLOSE, opts.atClose, "at_close") ?? AtClose.UNSPECIFIED,
      explain: opts.explain ?? false,
      idempotencyKey: this.key(opts.idempotencyKey),
    };
    const r = await this.call(() => this.raw.dueTime.computeSchedule(request));
    return {
      deadlines: r.deadlines.map((d) => ({
        name: d.name,
        due: requiredDateOf(d.dueTime),
        dueLocal: d.dueLocal,
        countedFrom: dateOf(d.fromTime),
        after: d.after,
        explanation: explanationOf(d.explanation),
      })),
      nextDue: r.nextDue,
      nextDueTime: dateOf(r.nextDueTime),
      recorded: recordedOf(r),
    };
  }

  /** One page of the open periods in [start, end): ListOpenPeriods (`pageSize` 0: 100, at most 1000). */
  async listOpenPeriods(
    start: Instant,
    end: Instant,
    calendar?: CalendarLike,
    opts: RecordedOptions & { pageSize?: number; pageToken?: string } = {},
  ): Promise<OpenPeriods> {
    const request = {
      startTime: timestampOf(start, "start_time"),
      endTime: timestampOf(end, "end_time"),
      calendar: calendarOf(calendar),
      pageSize: opts.pageSize ?? 0,
      pageToken: opts.pageToken ?? "",
      idempotencyKey: this.key(opts.idempotencyKey),
    };
    const r = await this.call(() => this.raw.dueTime.listOpenPeriods(request));
    return {
      periods: r.periods.map((p) => ({
        start: requiredDateOf(p.startTime),
        end: requiredDateOf(p.endTime),
        localDate: p.localDate,
        startLocal: p.startLocal,
        endLocal: p.endLocal,
      })),
      nextPageToken: r.nextPageToken,
      recorded: recordedOf(r),
    };
  }

  /** Every open period in [start, end), page after page (each page one recorded call). */
  async *openPeriods(start: Instant, end: Instant, calendar?: CalendarLike, opts: { pageSize?: number } = {}): AsyncGenerator<OpenPeriod> {
    let pageToken = "";
    do {
      const page = await this.listOpenPeriods(start, end, calendar, { pageSize: opts.pageSize ?? 0, pageToken });
      yield* page.periods;
      pageToken = page.nextPageToken;
    } while (pageToken);
  }

  /** The business days from local date `from` to `to`, both included: CountBusinessDays. */
  async countBusinessDays(from: string, to: string, calendar?: CalendarLike, opts: RecordedOptions = {}): Promise<BusinessDayCount> {
    const request = { fromDate: from, toDate: to, calendar: calendarOf(calendar), idempotencyKey: this.key(opts.idempotencyKey) };
    const r = await this.call(() => this.raw.dueTime.countBusinessDays(request));
    return { businessDays: Number(r.businessDays), recorded: recordedOf(r) };
  }

  /** A new RUNNING SLA clock: deadline = `at` + `target`: StartClock. */
  async startClock(
    target: string,
    at: Instant,
    calendar?: CalendarLike,
    opts: RecordedOptions & { warningThresholds?: readonly string[] } = {},
  ): Promise<Clock> {
    const request = {
      target: durationText(target, "target"),
      startTime: timestampOf(at, "start_time"),
      calendar: calendarOf(calendar),
      warningThresholds: [...(opts.warningThresholds ?? [])],
      idempotencyKey: this.key(opts.idempotencyKey),
    };
    return clockOf(await this.call(() => this.raw.dueTime.startClock(request)));
  }

  /** The clock after `event` ("pause", "resume", "reset", "retarget" with
   * `target` and optionally `anchor: "start"`, "stop") at `at`:
   * ApplyClockEvent. An event the state does not allow rejects with FailedPrecondition. */
  async applyClockEvent(
    state: string | Uint8Array | ClockState,
    event: "pause" | "resume" | "reset" | "retarget" | "stop",
    at: Instant,
    opts: RecordedOptions & { target?: string; anchor?: "event" | "start"; warningThresholds?: readonly string[] } = {},
  ): Promise<Clock> {
    const request = {
      state: stateMessage(state),
      event: create(ClockEventSchema, {
        type: choice(EVENTS, event, "event.type") ?? ClockEventType.UNSPECIFIED,
        time: timestampOf(at, "event.time"),
        target: opts.target ?? "",
        anchor: choice(ANCHORS, opts.anchor, "event.anchor") ?? RetargetAnchor.UNSPECIFIED,
      }),
      warningThresholds: [...(opts.warningThresholds ?? [])],
      idempotencyKey: this.key(opts.idempotencyKey),
    };
    if (request.event.type === ClockEventType.UNSPECIFIED) {
      throw invalidArgument("event.type", `is empty; give one of ${Object.keys(EVENTS).join(", ")}`);
    }
    return clockOf(await this.call(() => this.raw.dueTime.applyClockEvent(request)));
  }

  /** Replays a ticket's `events` (the first "start") under `policy` ("name" or
   * "name@version"): EvaluateSla. `asOf`: evaluate as of that instant, filling
   * `metrics` and `nextAction` (docs/semantics.md §17). */
  async evaluateSla(policy: string, events: readonly SlaEvent[], opts: RecordedOptions & { asOf?: Instant } = {}): Promise<SlaEvaluation> {
    const request = {
      policy,
      events: events.map((e, i) =>
        create(BusinessEventSchema, {
          type: e.type,
          time: timestampOf(e.time, `events[${i}].time`),
          attributes: { ...(e.attributes ?? {}) },
        }),
      ),
      idempotencyKey: this.key(opts.idempotencyKey),
      ...(opts.asOf !== undefined ? { asOfTime: timestampOf(opts.asOf, "as_of_time") } : {}),
    };
    const r = await this.call(() => this.raw.dueTime.evaluateSla(request));
    return {
      clock: clockOf(r),
      tier: r.tier,
      policyVersion: r.policyVersion,
      timeline: timelineOf(r.timeline),
      metrics: r.metrics.map((m) => ({
        name: m.name,
        status: upper(enumName(SlaMetricStatus, m.status)) as SlaMetric["status"],
        cycles: m.cycles,
        tier: m.tier,
        state: m.state ? stateText(m.state) : "",
        timeline: timelineOf(m.timeline),
      })),
      nextAction: nextActionOf(r.nextAction),
      asOf: dateOf(r.asOfTime),
      message: r,
    };
  }

  /** The stored record of an answer (request and response as Any): GetRecord. */
  async getRecord(recordId: string): Promise<RecordMessage> {
    const r = await this.call(() => this.raw.dueTime.getRecord({ recordId }));
    if (r.record === undefined) {
      throw errorOfStatus({ $typeName: "google.rpc.Status", code: 2, message: "the server sent no record", details: [] });
    }
    return r.record;
  }

  /** The stored records received in [start, end) (either open), whose key
   * starts with `keyPrefix`, in `namespace` ("" the default; undefined: every
   * namespace the caller may read), page after page: ListRecords. */
  async *listRecords(
    opts: { start?: Instant; end?: Instant; keyPrefix?: string; namespace?: string; pageSize?: number } = {},
  ): AsyncGenerator<RecordMessage> {
    let pageToken = "";
    const base = {
      keyPrefix: opts.keyPrefix ?? "",
      pageSize: opts.pageSize ?? 0,
      ...(opts.start !== undefined ? { startTime: timestampOf(opts.start, "start_time") } : {}),
      ...(opts.end !== undefined ? { endTime: timestampOf(opts.end, "end_time") } : {}),
      ...(opts.namespace !== undefined ? { namespace: opts.namespace } : {}),
    };
    do {
      const page = await this.call(() => this.raw.dueTime.listRecords({ ...base, pageToken }));
      yield* page.records;
      pageToken = page.nextPageToken;
    } while (pageToken);
  }

  /** Which recorded due times a newer bundle version (`calendar`: "NAME@NEW"
   * or "NAME") or, with `tzdata`, the server's tz database would move: AnalyzeImpact. */
  async analyzeImpact(
    calendar = "",
    opts: { tzdata?: boolean; limit?: number; start?: Instant; end?: Instant; namespace?: string } = {},
  ): Promise<AnalyzeImpactResponse> {
    const request = {
      calendar,
      tzdata: opts.tzdata ?? false,
      limit: opts.limit ?? 0,
      ...(opts.start !== undefined ? { startTime: timestampOf(opts.start, "start_time") } : {}),
      ...(opts.end !== undefined ? { endTime: timestampOf(opts.end, "end_time") } : {}),
      ...(opts.namespace !== undefined ? { namespace: opts.namespace } : {}),
    };
    return this.call(() => this.raw.dueTime.analyzeImpact(request));
  }

  /** The gRPC health status of `service` ("": the whole server, SERVING
   * while its ledger accepts writes): "SERVING", "NOT_SERVING", "UNKNOWN" or
   * "SERVICE_UNKNOWN". Never retried (it says how the server is now); needs
   * no token. A failed call (UNAVAILABLE: nothing listening …) rejects. */
  async health(service = "", opts: { timeoutMs?: number } = {}): Promise<string> {
    const r = await this.call(() => this.raw.health.check({ service }, { timeoutMs: opts.timeoutMs ?? this.timeoutMs }));
    return HealthCheckResponse_ServingStatus[r.status] ?? "UNKNOWN";
  }

  /** The calendar bundles the server has loaded: ListCalendars. */
  async listCalendars(): Promise<ListCalendarsResponse> {
    return this.call(() => this.raw.calendars.listCalendars({}));
  }

  /** A bundle ("name" or "name@version") written out: GetCalendar. */
  async getCalendar(name: string): Promise<GetCalendarResponse> {
    return this.call(() => this.raw.calendars.getCalendar({ name }));
  }

  /** The holidays of `calendar` from local date `from` to `to`, inclusive: ListHolidays. */
  async listHolidays(calendar: CalendarLike, from: string, to: string): Promise<ListHolidaysResponse> {
    const request = { calendar: calendarOf(calendar), startDate: from, endDate: to };
    return this.call(() => this.raw.calendars.listHolidays(request));
  }

  /** The SLA policies the server has loaded: ListPolicies. */
  async listPolicies(): Promise<ListPoliciesResponse> {
    return this.call(() => this.raw.calendars.listPolicies({}));
  }

  /** SLA policy "name" or "name@version" written out: GetPolicy. */
  async getPolicy(name: string): Promise<GetPolicyResponse> {
    return this.call(() => this.raw.calendars.getPolicy({ name }));
  }
}

export type { Timestamp };
