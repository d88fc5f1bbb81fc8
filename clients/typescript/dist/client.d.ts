/**
 * DuetimeClient: a connection to one duetime server over gRPC
 * (`@connectrpc/connect-node`), with typed calls that take `Date` or RFC 3339
 * text and plain calendars, and answer plain objects. See README.md.
 */
import type { Client, Transport } from "@connectrpc/connect";
import { CalendarService, DueTimeService } from "./gen/duetime/v1/duetime_pb.js";
import type { AnalyzeImpactResponse, ClockState, ComputeDueTimeResponse, GetCalendarResponse, GetPolicyResponse, ListCalendarsResponse, ListHolidaysResponse, ListPoliciesResponse, Record as RecordMessage, EvaluateSlaResponse } from "./gen/duetime/v1/duetime_pb.js";
import type { Timestamp } from "@bufbuild/protobuf/wkt";
import { Health } from "./gen/grpc/health/v1/health_pb.js";
import type { CalendarLike } from "./calendar.js";
import type { Instant } from "./convert.js";
import { DuetimeError } from "./errors.js";
/** The address a client calls by default. */
export declare const DEFAULT_ADDRESS = "127.0.0.1:50051";
/** Milliseconds each call may take (its deadline, retries included) by default. */
export declare const DEFAULT_TIMEOUT_MS = 5000;
/** Retries after the first attempt by default. */
export declare const DEFAULT_RETRIES = 4;
/** How an idempotency key the client made up begins; the rest is a random
 * UUID (and `/N` for a batch or stream's item N). */
export declare const GENERATED_KEY_PREFIX = "client/";
/** The call metadata naming the caller's idempotency namespace. */
export declare const NAMESPACE_HEADER = "x-duetime-namespace";
/** Items per message a stream sends by default. */
export declare const STREAM_MESSAGE_ITEMS = 1000;
/** Milliseconds a whole stream (streamDueTimes) may take by default: 10 minutes. */
export declare const DEFAULT_STREAM_TIMEOUT_MS = 600000;
/** The largest timeout a call takes (Node's timers hold at most 2^31-1 ms, about 24.8 days). */
export declare const MAX_TIMEOUT_MS: number;
/** The largest serialized request the client sends by default: the server's
 * own limit, 16 MiB. A larger one is refused before sending (ResourceExhausted). */
export declare const DEFAULT_MAX_MESSAGE_BYTES: number;
/** Options every call takes: `signal` cancels it (it then rejects with
 * Cancelled, reason CALL_ABORTED, not retryable), `timeoutMs` replaces the
 * client's timeout for this call (retries included; 1 to 2^31-1 ms). */
export interface CallOptions {
    signal?: AbortSignal | undefined;
    timeoutMs?: number | undefined;
}
/** PEM text, PEM bytes, or the path of a PEM file. */
export type PemSource = string | Uint8Array;
/** TLS settings: `ca` the roots to trust (default: the system's), `cert` and
 * `key` this client's certificate for mutual TLS, `serverName` the name to
 * check the server's certificate against (default: the address's host). */
export interface TlsOptions {
    ca?: PemSource | undefined;
    cert?: PemSource | undefined;
    key?: PemSource | undefined;
    serverName?: string | undefined;
}
/** How a DuetimeClient connects and calls; see README.md. */
export interface ClientOptions {
    /** `HOST:PORT` of the gRPC port (not a URL); default 127.0.0.1:50051. */
    address?: string | undefined;
    /** Milliseconds each call may take, retries included (default 5000; 1 to 2^31-1). */
    timeoutMs?: number | undefined;
    /** The idempotency namespace every call is made in (1–64 characters of A-Z a-z 0-9 . _ -, checked when the client is made). */
    namespace?: string | undefined;
    /** A bearer token, sent as `authorization: Bearer <token>` (visible ASCII only). */
    token?: string | undefined;
    /** `true` for TLS with the system's roots, or TLS settings. */
    tls?: boolean | TlsOptions | undefined;
    /** Retries of a retryable failure (0 to 10, default 4; 0 also makes up no idempotency key). */
    retries?: number | undefined;
    /** The first wait before a retry, in milliseconds, each next wait twice
     * the one before (default: sized so that the waits of all `retries` add up
     * to half of `timeoutMs`, jitter included). Retries stop when they are used
     * up, not at the deadline: with the default waits the last retry starts
     * about half of `timeoutMs` after the first attempt failed. */
    backoffMs?: number | undefined;
    /** The largest serialized request to send, in bytes (default 16 MiB, the
     * server's limit); a larger one rejects with ResourceExhausted at once. */
    maxMessageBytes?: number | undefined;
    /** A transport to use instead of one built from the options above
     * (`address`, `tls`, `token`, `namespace` and retries are then the
     * transport's own business, and so is each call's deadline). */
    transport?: Transport | undefined;
}
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
export type DueTimeResult = {
    ok: true;
    dueTime: DueTime;
} | {
    ok: false;
    error: DuetimeError;
};
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
    interval: {
        start: Date;
        end: Date;
    } | null;
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
    /** What fell at the start's or event's own instant (StartClock / ApplyClockEvent with
     * warning thresholds: a warning a resume re-armed, the breach of an overdue retarget);
     * `nextAction` holds only what falls after it (docs/semantics.md §17). */
    fellAtEvent: SlaDue[];
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
    /** When its BREACH fell, since its target was last set, whatever its status; null: not breached. */
    breachedAt: Date | null;
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
    attributes?: Record<string, string> | undefined;
}
/** One item of computeDueTimes / streamDueTimes: computeDueTime's arguments. */
export interface DueTimeRequest extends Omit<DueTimeOptions, keyof CallOptions> {
    start: Instant;
    duration: string;
    calendar?: CalendarLike | undefined;
}
export interface RecordedOptions extends CallOptions {
    /** The idempotency key; default: one made up (`client/<uuid>`) unless retries are 0. */
    idempotencyKey?: string | undefined;
}
export type AtCloseName = "next-open" | "end-of-window";
export type RollName = "following" | "preceding" | "modified-following" | "modified-preceding";
export interface DueTimeOptions extends RecordedOptions {
    /** Business time ending exactly at a closing: due at that closing (end-of-window, the default) or at the next opening. */
    atClose?: AtCloseName | undefined;
    /** Where a calendar duration landing on a closed day rolls (docs/semantics.md §15). */
    roll?: RollName | undefined;
    /** The landing time of the day it lands on (docs/semantics.md §15). */
    landingTime?: string | undefined;
    explain?: boolean | undefined;
}
/** A deadline of computeSchedule: `"remind=2bd"`, `"final=4bh@after:escalate"` or an object. */
export type DeadlineInit = string | {
    name: string;
    duration: string;
    after?: string | undefined;
    roll?: RollName | undefined;
    landingTime?: string | undefined;
};
/** The waits before each retry, in milliseconds, before jitter (±20%): by
 * default they add up to half of `timeoutMs` (jitter included), so retries
 * stop about half of `timeoutMs` after the first failure, not at the deadline. */
export declare function retryWaits(retries: number, timeoutMs: number, backoffMs?: number): number[];
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
export declare class DuetimeClient {
    readonly address: string;
    readonly timeoutMs: number;
    readonly namespace: string;
    readonly retries: number;
    readonly maxMessageBytes: number;
    /** The generated clients (every RPC of duetime.v1), with token, namespace and retries. */
    readonly raw: RawClients;
    private readonly sessions;
    private readonly state;
    private readonly closing;
    constructor(options?: ClientOptions);
    /** Closes the connection; the process may then exit. Calls in flight
     * reject with Cancelled (reason CLIENT_CLOSED, not retryable) and are not
     * retried; calls made after close() are refused the same way. Never throws;
     * closing twice does nothing more. */
    close(): void;
    /** Drops the connection (a broken one): the next call opens a new one. */
    private replaceConnection;
    /** Whether close() was called. */
    get closed(): boolean;
    /** `given`, or when it is empty and retries are on, a new key (`client/<uuid>`). */
    private key;
    /** The connect call options of `opts`: the caller's signal joined with
     * close(), the call's timeout (checked), for the retry waits too. */
    private callOptions;
    /** The DuetimeError of a call's `error`: a failure that looks like a peer
     * that is not a gRPC server, from a server that answered before, is a
     * connection that broke (a server killed mid-call): retryable. */
    private classify;
    /** The DuetimeError of `error`, a call's failure under `options`. */
    private failure;
    private call;
    private dueTimeRequest;
    /** `start + duration` ("3bd", "8bh", "48h", "P1M", "P1M@following" …) in `calendar`: ComputeDueTime. */
    computeDueTime(start: Instant, duration: string, calendar?: CalendarLike, opts?: DueTimeOptions): Promise<DueTime>;
    /** The idempotency key of a batch or stream's item `i`: its own, or `base/i`. */
    private itemKey;
    /** Many due times in one BatchComputeDueTimes call (at most the server's
     * batch size): one result per item, in order; an item without a key gets
     * `client/<uuid>/N`. */
    computeDueTimes(items: Iterable<DueTimeRequest>, opts?: CallOptions): Promise<DueTimeResult[]>;
    /** Due times for any number of items through one StreamComputeDueTimes
     * call, at most `messageItems` (default 1000) a message and at most
     * `maxMessageBytes` a message; yields one result per item, in order, as
     * they arrive. The whole stream may take `timeoutMs` (default 10 minutes,
     * {@link DEFAULT_STREAM_TIMEOUT_MS}). Not retried (a stream is not resent).
     * Leaving the loop early (break, return, throw) cancels the call.
     * An item the client refuses (InvalidArgument on `items[N].…`) or an
     * exception from `items` itself ends what is sent: the results of the
     * messages already sent are yielded, then the stream rejects with that
     * error (the caller's own exception as it is). */
    streamDueTimes(items: Iterable<DueTimeRequest> | AsyncIterable<DueTimeRequest>, opts?: CallOptions & {
        messageItems?: number | undefined;
    }): AsyncGenerator<DueTimeResult>;
    /** The DuetimeError of a stream that failed: a connection that broke
     * mid-stream (the server killed or gone) is Unavailable. */
    private streamFailure;
    /** Business time between two instants (negative when `end` is before `start`): ComputeBusinessTime. */
    computeBusinessTime(start: Instant, end: Instant, calendar?: CalendarLike, opts?: RecordedOptions & {
        explain?: boolean | undefined;
    }): Promise<BusinessTime>;
    /** Whether the calendar is open at `at`, and the next opening and closing: GetOpenStatus. */
    getOpenStatus(at: Instant, calendar?: CalendarLike, opts?: RecordedOptions & {
        includeLastRun?: boolean | undefined;
    }): Promise<OpenStatus>;
    /** A stage's named deadlines from `entered`: ComputeSchedule. */
    computeSchedule(entered: Instant, deadlines: readonly DeadlineInit[], calendar?: CalendarLike, opts?: RecordedOptions & {
        atClose?: AtCloseName | undefined;
        explain?: boolean | undefined;
    }): Promise<Schedule>;
    /** One page of the open periods in [start, end): ListOpenPeriods (`pageSize` 0: 100, at most 1000). */
    listOpenPeriods(start: Instant, end: Instant, calendar?: CalendarLike, opts?: RecordedOptions & {
        pageSize?: number | undefined;
        pageToken?: string | undefined;
    }): Promise<OpenPeriods>;
    /** Every open period in [start, end), page after page (each page one recorded call). */
    openPeriods(start: Instant, end: Instant, calendar?: CalendarLike, opts?: CallOptions & {
        pageSize?: number | undefined;
    }): AsyncGenerator<OpenPeriod>;
    /** The business days from local date `from` to `to`, both included: CountBusinessDays. */
    countBusinessDays(from: string, to: string, calendar?: CalendarLike, opts?: RecordedOptions): Promise<BusinessDayCount>;
    /** A new RUNNING SLA clock: deadline = `at` + `target`: StartClock. */
    startClock(target: string, at: Instant, calendar?: CalendarLike, opts?: RecordedOptions & {
        warningThresholds?: readonly string[] | undefined;
    }): Promise<Clock>;
    /** The clock after `event` ("pause", "resume", "reset", "retarget" with
     * `target` and optionally `anchor: "start"`, "stop") at `at`:
     * ApplyClockEvent. An event the state does not allow rejects with FailedPrecondition. */
    applyClockEvent(state: string | Uint8Array | ClockState, event: "pause" | "resume" | "reset" | "retarget" | "stop", at: Instant, opts?: RecordedOptions & {
        target?: string | undefined;
        anchor?: "event" | "start" | undefined;
        warningThresholds?: readonly string[] | undefined;
    }): Promise<Clock>;
    /** Replays a ticket's `events` (the first "start") under `policy` ("name" or
     * "name@version"): EvaluateSla. `asOf`: evaluate as of that instant, filling
     * `metrics` and `nextAction` (docs/semantics.md §17). */
    evaluateSla(policy: string, events: readonly SlaEvent[], opts?: RecordedOptions & {
        asOf?: Instant | undefined;
    }): Promise<SlaEvaluation>;
    /** The stored record of an answer (request and response as Any): GetRecord. */
    getRecord(recordId: string, opts?: CallOptions): Promise<RecordMessage>;
    /** The stored records received in [start, end) (either open), whose key
     * starts with `keyPrefix`, in `namespace` ("" the default; undefined: every
     * namespace the caller may read), page after page: ListRecords. */
    listRecords(opts?: CallOptions & {
        start?: Instant | undefined;
        end?: Instant | undefined;
        keyPrefix?: string | undefined;
        namespace?: string | undefined;
        pageSize?: number | undefined;
    }): AsyncGenerator<RecordMessage>;
    /** Which recorded due times a newer bundle version (`calendar`: "NAME@NEW"
     * or "NAME") or, with `tzdata`, the server's tz database would move: AnalyzeImpact. */
    analyzeImpact(calendar?: string, opts?: CallOptions & {
        tzdata?: boolean | undefined;
        limit?: number | undefined;
        start?: Instant | undefined;
        end?: Instant | undefined;
        namespace?: string | undefined;
    }): Promise<AnalyzeImpactResponse>;
    /** The gRPC health status of `service` ("": the whole server, SERVING
     * while its ledger accepts writes): "SERVING", "NOT_SERVING", "UNKNOWN", or
     * "SERVICE_UNKNOWN" for a service the server does not have (the server
     * answers NOT_FOUND; the client reads it as this status). Never retried (it
     * says how the server is now); needs no token. A failed call (UNAVAILABLE:
     * nothing listening …) rejects. */
    health(service?: string, opts?: CallOptions): Promise<string>;
    /** The calendar bundles the server has loaded: ListCalendars. */
    listCalendars(opts?: CallOptions): Promise<ListCalendarsResponse>;
    /** A bundle ("name" or "name@version") written out: GetCalendar. */
    getCalendar(name: string, opts?: CallOptions): Promise<GetCalendarResponse>;
    /** The holidays of `calendar` from local date `from` to `to`, inclusive: ListHolidays. */
    listHolidays(calendar: CalendarLike, from: string, to: string, opts?: CallOptions): Promise<ListHolidaysResponse>;
    /** The SLA policies the server has loaded: ListPolicies. */
    listPolicies(opts?: CallOptions): Promise<ListPoliciesResponse>;
    /** SLA policy "name" or "name@version" written out: GetPolicy. */
    getPolicy(name: string, opts?: CallOptions): Promise<GetPolicyResponse>;
}
export type { Timestamp };
