/**
 * DuetimeClient: a connection to one duetime server over gRPC
 * (`@connectrpc/connect-node`), with typed calls that take `Date` or RFC 3339
 * text and plain calendars, and answer plain objects. See README.md.
 */
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { create, toBinary } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient, createContextKey, createContextValues } from "@connectrpc/connect";
import { createGrpcTransport, Http2SessionManager } from "@connectrpc/connect-node";
import { AtClose, BusinessEventSchema, CalendarService, ClockEventSchema, ClockEventType, ClockStatus, ComputeDueTimeRequestSchema, DueTimeService, RetargetAnchor, Roll, SlaDueKind, SlaMetricStatus, } from "./gen/duetime/v1/duetime_pb.js";
import { Health, HealthCheckResponse_ServingStatus } from "./gen/grpc/health/v1/health_pb.js";
import { calendarOf } from "./calendar.js";
import { dateOf, kindOf, millisecondsOf, requiredDateOf, stateMessage, stateText, timestampOf } from "./convert.js";
import { Cancelled, DuetimeError, NotFound, ResourceExhausted, Unavailable, clientClosed, errorOf, errorOfStatus, invalidArgument } from "./errors.js";
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
/** Milliseconds a whole stream (streamDueTimes) may take by default: 10 minutes. */
export const DEFAULT_STREAM_TIMEOUT_MS = 600_000;
/** The largest timeout a call takes (Node's timers hold at most 2^31-1 ms, about 24.8 days). */
export const MAX_TIMEOUT_MS = 2 ** 31 - 1;
/** The largest serialized request the client sends by default: the server's
 * own limit, 16 MiB. A larger one is refused before sending (ResourceExhausted). */
export const DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
// ---------------------------------------------------------------------------
// conversions of answers
function recordedOf(r) {
    return {
        recordId: r.recordId,
        calendarVersion: r.calendarVersion,
        rulesVersion: r.rulesVersion,
        tzdataVersion: r.tzdataVersion,
        timeZone: r.timeZone,
        warnings: [...r.warnings],
    };
}
function explanationOf(steps) {
    return steps.map((s) => ({
        kind: s.kind,
        text: s.text,
        localDate: s.localDate,
        start: dateOf(s.startTime),
        end: dateOf(s.endTime),
        amountMs: millisecondsOf(s.amount),
    }));
}
function dueTimeOf(r) {
    return {
        due: requiredDateOf(r.due),
        dueLocal: r.dueLocal,
        explanation: explanationOf(r.explanation),
        recorded: recordedOf(r),
        message: r,
    };
}
function resultOf(r) {
    if (r.result.case === "response") {
        return { ok: true, dueTime: dueTimeOf(r.result.value) };
    }
    if (r.result.case === "error") {
        return { ok: false, error: errorOfStatus(r.result.value) };
    }
    return { ok: false, error: errorOfStatus({ $typeName: "google.rpc.Status", code: 2, message: "the server sent an empty result", details: [] }) };
}
function enumName(table, value, prefix = "") {
    const name = table[value];
    return name === undefined ? "UNSPECIFIED" : name.replace(prefix, "");
}
/** "Running" → "RUNNING": the generated enums' names in the proto's spelling. */
function upper(name) {
    return name.replace(/([a-z])([A-Z])/g, "$1_$2").toUpperCase();
}
function statusName(value) {
    return upper(enumName(ClockStatus, value));
}
function slaDueOf(due) {
    return due.map((d) => ({
        metric: d.metric,
        kind: upper(enumName(SlaDueKind, d.kind)),
        threshold: d.threshold,
    }));
}
function nextActionOf(a) {
    if (a === undefined) {
        return null;
    }
    return { time: requiredDateOf(a.time), due: slaDueOf(a.due) };
}
function clockOf(r) {
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
        fellAtEvent: "fellAtEvent" in r ? slaDueOf(r.fellAtEvent) : [],
        recorded: recordedOf(r),
        stateMessage: state,
    };
}
function timelineOf(entries) {
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
const AT_CLOSE = {
    "next-open": AtClose.NEXT_OPEN,
    "end-of-window": AtClose.END_OF_WINDOW,
};
const ROLL = {
    following: Roll.FOLLOWING,
    preceding: Roll.PRECEDING,
    "modified-following": Roll.MODIFIED_FOLLOWING,
    "modified-preceding": Roll.MODIFIED_PRECEDING,
};
const EVENTS = {
    pause: ClockEventType.PAUSE,
    resume: ClockEventType.RESUME,
    reset: ClockEventType.RESET,
    retarget: ClockEventType.RETARGET,
    stop: ClockEventType.STOP,
};
const ANCHORS = {
    event: RetargetAnchor.EVENT,
    start: RetargetAnchor.START,
};
function choice(table, value, field) {
    if (value === undefined || value === "") {
        return undefined;
    }
    if (typeof value !== "string") {
        throw invalidArgument(field, `is ${kindOf(value)}; give one of ${Object.keys(table).join(", ")}`);
    }
    const found = table[value.toLowerCase().replace(/_/g, "-")];
    if (found === undefined) {
        throw invalidArgument(field, `'${value}' is not one of ${Object.keys(table).join(", ")}`);
    }
    return found;
}
function durationText(value, field) {
    if (typeof value !== "string") {
        throw invalidArgument(field, `is ${kindOf(value)}; give text with a unit such as '2h', '3bd' or 'P1M'`);
    }
    return value;
}
function deadlineOf(deadline, i) {
    const field = `deadlines[${i}]`;
    if (deadline === null || (typeof deadline !== "string" && typeof deadline !== "object")) {
        throw invalidArgument(field, `is ${kindOf(deadline)}; give "NAME=DURATION" or { name, duration }`);
    }
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
        name: text(deadline.name, `${field}.name`, "the deadline's name"),
        duration: durationText(deadline.duration, `${field}.duration`),
        after: deadline.after === undefined ? "" : text(deadline.after, `${field}.after`, "the name of an earlier deadline"),
        roll: choice(ROLL, deadline.roll, `${field}.roll`) ?? Roll.UNSPECIFIED,
        landingTime: deadline.landingTime === undefined ? "" : text(deadline.landingTime, `${field}.landing_time`, "a clock time HH:MM"),
    };
}
// ---------------------------------------------------------------------------
// transport: token, namespace, retries
function pem(source, field) {
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
    }
    catch (error) {
        const why = error instanceof Error ? error.message : String(error);
        throw invalidArgument(field, `cannot read the PEM file '${source}': ${why}`);
    }
}
function checkAddress(address) {
    if (typeof address !== "string") {
        throw invalidArgument("address", `is ${kindOf(address)}; give HOST:PORT text, e.g. 127.0.0.1:50051`);
    }
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(address)) {
        throw invalidArgument("address", `'${address}' is a URL; give HOST:PORT, e.g. 127.0.0.1:50051`);
    }
    const m = /^(\[[0-9a-fA-F:.]+\]|[^:\s/]+):(\d{1,5})$/.exec(address);
    if (!m || Number(m[2]) < 1 || Number(m[2]) > 65535) {
        throw invalidArgument("address", `'${address}' is not HOST:PORT, e.g. 127.0.0.1:50051`);
    }
    return address;
}
/** `value` as a timeout in milliseconds: a number over 0 and at most 2^31-1; InvalidArgument on `field`. */
function milliseconds(value, field) {
    if (typeof value !== "number" || !Number.isFinite(value) || value <= 0 || value > MAX_TIMEOUT_MS) {
        throw invalidArgument(field, `${typeof value === "number" ? String(value) : `a ${typeof value}`} is not a number of milliseconds over 0 and at most ${MAX_TIMEOUT_MS} (2^31-1)`);
    }
    return value;
}
/** `value` as text; InvalidArgument on `field` for any other type. */
function text(value, field, what = "text") {
    if (typeof value !== "string") {
        throw invalidArgument(field, `is ${kindOf(value)}; give ${what}`);
    }
    return value;
}
/** `value` as a whole number from 0 to 2^31-1 (undefined: 0); InvalidArgument on `field`. */
function count(value, field) {
    if (value === undefined) {
        return 0;
    }
    if (typeof value !== "number" || !Number.isInteger(value) || value < 0 || value > 2 ** 31 - 1) {
        throw invalidArgument(field, `${typeof value === "number" ? String(value) : `a ${typeof value}`} is not a whole number from 0 to ${2 ** 31 - 1} (0: the server's default)`);
    }
    return value;
}
/** `value` as a boolean (undefined: false); InvalidArgument on `field`. */
function flag(value, field) {
    if (value === undefined) {
        return false;
    }
    if (typeof value !== "boolean") {
        throw invalidArgument(field, `is ${kindOf(value)}; give true or false`);
    }
    return value;
}
/** `value` as a list of text (undefined: []); InvalidArgument on `field`. */
function texts(value, field, what) {
    if (value === undefined) {
        return [];
    }
    if (!Array.isArray(value)) {
        throw invalidArgument(field, `is ${kindOf(value)}; give a list of ${what}`);
    }
    return value.map((item, i) => text(item, `${field}[${i}]`, what));
}
/** `value` as a list (an array); InvalidArgument on `field`. */
function list(value, field, what) {
    if (!Array.isArray(value)) {
        throw invalidArgument(field, `is ${kindOf(value)}; give a list of ${what}`);
    }
    return value;
}
const VISIBLE_ASCII = /^[\x21-\x7e]+$/;
const NAMESPACE = /^[A-Za-z0-9._-]{1,64}$/;
/** A call's options object (undefined: none); InvalidArgument on `field` for anything else. */
function optionsOf(value, field) {
    if (value === undefined) {
        return {};
    }
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
        throw invalidArgument(field, `is ${kindOf(value)}; give an object of options, or leave it out`);
    }
    return value;
}
function sleep(ms, signal) {
    return new Promise((resolve) => {
        if (signal.aborted) {
            resolve();
            return;
        }
        const timer = setTimeout(done, ms);
        function done() {
            clearTimeout(timer);
            signal.removeEventListener("abort", done);
            resolve();
        }
        signal.addEventListener("abort", done, { once: true });
    });
}
/** The waits before each retry, in milliseconds, before jitter (±20%): by
 * default they add up to half of `timeoutMs` (jitter included), so retries
 * stop about half of `timeoutMs` after the first failure, not at the deadline. */
export function retryWaits(retries, timeoutMs, backoffMs) {
    if (retries <= 0) {
        return [];
    }
    const first = Math.max(1, backoffMs ?? timeoutMs / 2 / (1.2 * (2 ** retries - 1)));
    return Array.from({ length: retries }, (_, i) => first * 2 ** i);
}
/** The timeout of the call at hand, for the retry waits (a context value). */
const CALL_TIMEOUT = createContextKey(undefined, { description: "duetime call timeout (ms)" });
function retryInterceptor(retries, timeoutMs, backoffMs, classify) {
    return (next) => async (req) => {
        if (req.stream || req.service.typeName === Health.typeName) {
            return next(req);
        }
        const waits = retryWaits(retries, req.contextValues.get(CALL_TIMEOUT) ?? timeoutMs, backoffMs);
        for (let attempt = 0;; attempt++) {
            try {
                return await next(req);
            }
            catch (error) {
                const failure = classify(error);
                // a busy server says how long to wait (RESOURCE_EXHAUSTED, retry_after_seconds):
                // sent again as often as the call's deadline allows, beyond `retries`
                const busy = failure.retryAfterMs !== undefined && retries > 0;
                const wait = waits[attempt] ?? (busy ? 0 : undefined);
                if (wait === undefined || req.signal.aborted || !failure.retryable) {
                    throw error;
                }
                await sleep(Math.max(wait * (0.8 + 0.4 * Math.random()), failure.retryAfterMs ?? 0), req.signal);
                if (req.signal.aborted) {
                    throw error;
                }
            }
        }
    };
}
function tooLarge(size, maxBytes, field, fix) {
    const description = `the request is ${size} bytes serialized, over the limit of ${maxBytes} (maxMessageBytes); ${fix}`;
    return new ResourceExhausted({
        code: Code.ResourceExhausted,
        details: field ? `${field}: ${description}` : description,
        reason: "MESSAGE_TOO_LARGE",
        metadata: { size: String(size), max_message_bytes: String(maxBytes) },
        violations: field ? [{ field, description }] : [],
        retryable: false,
    });
}
/** A request this large that timed out may have stalled its connection. */
const LARGE_REQUEST_BYTES = 1024 * 1024;
/** Whether `error` says the HTTP/2 connection itself is broken (the peer
 * answered a flood with ENHANCE_YOUR_CALM, or reset the session). */
function sessionBroken(error) {
    const connect = ConnectError.from(error);
    return /ENHANCE_YOUR_CALM|ERR_HTTP2_SESSION_ERROR|ERR_HTTP2_GOAWAY_SESSION/.test(`${connect.rawMessage} ${String(connect.cause?.code ?? "")}`);
}
/** Refuses a unary request whose serialization is over `maxBytes` before
 * sending it (the server would reset the stream and the connection stall);
 * calls `replace` (a new connection for the next call) when a large request
 * timed out or the connection broke, so that one request never poisons
 * the client. */
function sizeInterceptor(maxBytes, replace) {
    return (next) => async (req) => {
        let size = 0;
        if (!req.stream) {
            size = toBinary(req.method.input, req.message).byteLength;
            if (size > maxBytes) {
                throw tooLarge(size, maxBytes, "", "send fewer items a batch (or use streamDueTimes), or smaller calendars");
            }
        }
        try {
            return await next(req);
        }
        catch (error) {
            const code = ConnectError.from(error).code;
            if (sessionBroken(error) || (size > LARGE_REQUEST_BYTES && code === Code.DeadlineExceeded)) {
                replace();
            }
            throw error;
        }
    };
}
/** Refuses every call once the client is closed. */
function closedInterceptor(state) {
    return (next) => (req) => {
        if (state.closed) {
            throw clientClosed();
        }
        return next(req);
    };
}
function headerInterceptor(token, namespace) {
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
/** An Http2SessionManager whose sessions never raise an unhandled 'error'
 * event (a peer that is not an HTTP/2 server, e.g. the HTTP/JSON port, makes
 * the session emit one after its call failed, or on close()): the calls on
 * it fail with their own errors. */
class GuardedSessionManager extends Http2SessionManager {
    guarded = new WeakSet();
    /** Whether the server ever sent its HTTP/2 SETTINGS or a response: it is
     * a gRPC server, and a connection that fails later broke (it is not a
     * wrong address). */
    answered = false;
    notifyResponseByteRead(...args) {
        this.answered = true;
        super.notifyResponseByteRead(...args);
    }
    async request(...args) {
        const stream = await super.request(...args);
        const session = stream.session;
        if (session !== undefined && !this.guarded.has(session)) {
            this.guarded.add(session);
            session.on("error", () => {
                // The calls on the session fail with their own errors.
            });
            // A peer that sends HTTP/2 SETTINGS is an HTTP/2 server, not duetime's
            // HTTP/1 port or a TLS port reached in plain text: a connection of its
            // that fails before its first answer broke (a server killed or
            // restarting). The session is handed over once its socket connects,
            // before the server's SETTINGS can have been read.
            session.once("remoteSettings", () => {
                this.answered = true;
            });
        }
        return stream;
    }
}
/** The error of a call cancelled by its caller's `signal`: Cancelled, reason CALL_ABORTED, not retryable. */
function callAborted() {
    return new Cancelled({
        code: Code.Canceled,
        details: "the call was aborted by its signal",
        reason: "CALL_ABORTED",
        retryable: false,
    });
}
/**
 * A connection to one duetime server. Every method returns a promise that
 * rejects with a {@link DuetimeError} subclass; an argument the client can
 * see is wrong rejects with InvalidArgument naming it before anything is sent.
 */
export class DuetimeClient {
    address;
    timeoutMs;
    namespace;
    retries;
    maxMessageBytes;
    /** The generated clients (every RPC of duetime.v1), with token, namespace and retries. */
    raw;
    sessions;
    state = { closed: false };
    closing = new AbortController();
    constructor(options = {}) {
        this.address = options.address ?? DEFAULT_ADDRESS;
        this.timeoutMs = options.timeoutMs === undefined ? DEFAULT_TIMEOUT_MS : milliseconds(options.timeoutMs, "timeoutMs");
        this.namespace = options.namespace === undefined ? "" : text(options.namespace, "namespace", "the namespace's name");
        this.retries = options.retries ?? DEFAULT_RETRIES;
        if (!Number.isInteger(this.retries) || this.retries < 0 || this.retries > 10) {
            throw invalidArgument("retries", `${String(options.retries)} is not 0 to 10 retries`);
        }
        const backoffMs = options.backoffMs === undefined ? undefined : milliseconds(options.backoffMs, "backoffMs");
        const maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
        if (!Number.isInteger(maxMessageBytes) || maxMessageBytes < 1 || maxMessageBytes > 2 ** 31 - 1) {
            throw invalidArgument("maxMessageBytes", `${String(options.maxMessageBytes)} is not a whole number of bytes from 1 to ${2 ** 31 - 1}`);
        }
        this.maxMessageBytes = maxMessageBytes;
        if (this.namespace && !NAMESPACE.test(this.namespace)) { // the server's own rule (README "Namespaces")
            throw invalidArgument("namespace", "is not 1-64 characters of A-Z a-z 0-9 . _ -");
        }
        const token = options.token;
        if (token !== undefined) {
            if (typeof token !== "string") {
                throw invalidArgument("token", `is ${kindOf(token)}; give the token as text, or leave it out`);
            }
            if (!token) {
                throw invalidArgument("token", "is empty; give the token, or leave it out");
            }
            if (!VISIBLE_ASCII.test(token)) {
                // Never echo the token: it is a secret.
                throw invalidArgument("token", "holds characters other than visible ASCII (spaces, line breaks, control or non-ASCII characters); give the token exactly as issued");
            }
        }
        const interceptors = [
            closedInterceptor(this.state),
            sizeInterceptor(this.maxMessageBytes, () => this.replaceConnection()),
            headerInterceptor(options.token, options.namespace),
            retryInterceptor(this.retries, this.timeoutMs, backoffMs, (error) => this.classify(error)),
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
            this.sessions = new GuardedSessionManager(baseUrl, {}, nodeOptions);
            transport = createGrpcTransport({
                baseUrl,
                sessionManager: this.sessions,
                interceptors,
                defaultTimeoutMs: this.timeoutMs,
            });
        }
        else {
            this.sessions = undefined;
        }
        this.raw = {
            dueTime: createClient(DueTimeService, transport),
            calendars: createClient(CalendarService, transport),
            health: createClient(Health, transport),
        };
    }
    /** Closes the connection; the process may then exit. Calls in flight
     * reject with Cancelled (reason CLIENT_CLOSED, not retryable) and are not
     * retried; calls made after close() are refused the same way. Never throws;
     * closing twice does nothing more. */
    close() {
        if (this.state.closed) {
            return;
        }
        this.state.closed = true;
        try {
            this.closing.abort(clientClosed());
        }
        catch {
            // An abort listener's failure is the call's own business.
        }
        try {
            this.sessions?.abort();
        }
        catch {
            // The connection is gone either way.
        }
    }
    /** Drops the connection (a broken one): the next call opens a new one. */
    replaceConnection() {
        if (this.state.closed) {
            return;
        }
        try {
            this.sessions?.abort();
        }
        catch {
            // The connection is gone either way.
        }
    }
    /** Whether close() was called. */
    get closed() {
        return this.state.closed;
    }
    /** `given`, or when it is empty and retries are on, a new key (`client/<uuid>`). */
    key(given, field = "idempotency_key") {
        if (given !== undefined && typeof given !== "string") {
            throw invalidArgument(field, `is ${kindOf(given)}; give the key as text, or leave it out`);
        }
        if (given || this.retries === 0) {
            return given ?? "";
        }
        return GENERATED_KEY_PREFIX + randomUUID().replace(/-/g, "");
    }
    /** The connect call options of `opts`: the caller's signal joined with
     * close(), the call's timeout (checked), for the retry waits too. */
    callOptions(opts, defaultTimeoutMs = this.timeoutMs) {
        const given = opts ?? {};
        const timeoutMs = given.timeoutMs === undefined ? defaultTimeoutMs : milliseconds(given.timeoutMs, "timeoutMs");
        const signal = given.signal;
        if (signal !== undefined && !(signal instanceof AbortSignal)) {
            throw invalidArgument("signal", "is not an AbortSignal; give AbortController.signal, or leave it out");
        }
        return {
            timeoutMs,
            // A signal of its own for each call (AbortSignal.any holds its sources
            // weakly), so that no listener piles up on the client's close() signal.
            signal: AbortSignal.any(signal === undefined ? [this.closing.signal] : [this.closing.signal, signal]),
            contextValues: createContextValues().set(CALL_TIMEOUT, timeoutMs),
        };
    }
    /** The DuetimeError of a call's `error`: a failure that looks like a peer
     * that is not a gRPC server, from a server that answered before, is a
     * connection that broke (a server killed mid-call): retryable. */
    classify(error) {
        const found = errorOf(error);
        const answered = this.sessions instanceof GuardedSessionManager && this.sessions.answered;
        if (found instanceof Unavailable && found.reason === "NOT_A_GRPC_SERVER" && answered) {
            return new Unavailable({
                code: Code.Unavailable,
                details: `the connection broke before the server answered (${ConnectError.from(error).rawMessage})`,
                cause: error,
            });
        }
        return found;
    }
    /** The DuetimeError of `error`, a call's failure under `options`. */
    failure(error, opts) {
        if (this.state.closed) {
            return clientClosed();
        }
        if (opts?.signal?.aborted && !(error instanceof DuetimeError)) {
            return callAborted();
        }
        return this.classify(error);
    }
    async call(run, opts) {
        if (this.state.closed) {
            throw clientClosed();
        }
        const options = this.callOptions(opts);
        try {
            return await run(options);
        }
        catch (error) {
            throw this.failure(error, opts);
        }
    }
    dueTimeRequest(item, prefix, key) {
        if (item === null || typeof item !== "object") {
            throw invalidArgument(prefix ? prefix.slice(0, -1) : "request", "is not an item; give { start, duration, calendar? }");
        }
        return create(ComputeDueTimeRequestSchema, {
            start: timestampOf(item.start, `${prefix}start`),
            duration: durationText(item.duration, `${prefix}duration`),
            calendar: calendarOf(item.calendar, `${prefix}calendar`),
            atClose: choice(AT_CLOSE, item.atClose, `${prefix}at_close`) ?? AtClose.UNSPECIFIED,
            roll: choice(ROLL, item.roll, `${prefix}roll`) ?? Roll.UNSPECIFIED,
            landingTime: item.landingTime === undefined ? "" : text(item.landingTime, `${prefix}landing_time`, "a clock time HH:MM"),
            explain: flag(item.explain, `${prefix}explain`),
            idempotencyKey: key,
        });
    }
    /** `start + duration` ("3bd", "8bh", "48h", "P1M", "P1M@following" …) in `calendar`: ComputeDueTime. */
    async computeDueTime(start, duration, calendar, opts = {}) {
        opts = optionsOf(opts, "opts");
        const request = this.dueTimeRequest({ ...opts, start, duration, calendar }, "", this.key(opts.idempotencyKey));
        return dueTimeOf(await this.call((o) => this.raw.dueTime.computeDueTime(request, o), opts));
    }
    /** The idempotency key of a batch or stream's item `i`: its own, or `base/i`. */
    itemKey(item, base, i) {
        const given = item?.idempotencyKey;
        if (given !== undefined && typeof given !== "string") {
            throw invalidArgument(`items[${i}].idempotency_key`, `is ${kindOf(given)}; give the key as text, or leave it out`);
        }
        return given || (base ? `${base}/${i}` : "");
    }
    /** Many due times in one BatchComputeDueTimes call (at most the server's
     * batch size): one result per item, in order; an item without a key gets
     * `client/<uuid>/N`. */
    async computeDueTimes(items, opts = {}) {
        opts = optionsOf(opts, "opts");
        if (items === null || typeof items?.[Symbol.iterator] !== "function" || typeof items === "string") {
            throw invalidArgument("items", "is not a list of items; give [{ start, duration, calendar? }, ...]");
        }
        const base = this.key(undefined);
        const all = [...items];
        const request = {
            items: all.map((item, i) => this.dueTimeRequest(item, `items[${i}].`, this.itemKey(item, base, i))),
        };
        const response = await this.call((o) => this.raw.dueTime.batchComputeDueTimes(request, o), opts);
        return response.results.map(resultOf);
    }
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
    async *streamDueTimes(items, opts = {}) {
        opts = optionsOf(opts, "opts");
        const size = opts.messageItems ?? STREAM_MESSAGE_ITEMS;
        if (!Number.isInteger(size) || size < 1 || size > 10_000) {
            throw invalidArgument("messageItems", `${String(opts.messageItems)} is not 1 to 10000 items a message`);
        }
        const source = items;
        if (source === null || typeof source !== "object" ||
            (typeof source[Symbol.iterator] !== "function" && typeof source[Symbol.asyncIterator] !== "function")) {
            throw invalidArgument("items", "is not an iterable of items; give a list, a generator or an async generator of { start, duration, calendar? }");
        }
        if (this.state.closed) {
            throw clientClosed();
        }
        const ended = new AbortController();
        const options = this.callOptions(opts, DEFAULT_STREAM_TIMEOUT_MS);
        options.signal = AbortSignal.any([options.signal, ended.signal]);
        const base = this.key(undefined);
        const maxBytes = this.maxMessageBytes;
        const self = this;
        let stopped;
        async function* messages() {
            // Only the caller's items and their reading end the stream early
            // (stopped); what the transport throws in at a yield passes through.
            const iterable = items;
            const iterator = typeof iterable[Symbol.asyncIterator] === "function"
                ? iterable[Symbol.asyncIterator]()
                : iterable[Symbol.iterator]();
            let chunk = [];
            let bytes = 0;
            let i = 0;
            let done = false;
            try {
                for (;;) {
                    let request;
                    let itemBytes;
                    try {
                        const step = await iterator.next();
                        if (step.done) {
                            done = true;
                            break;
                        }
                        request = self.dueTimeRequest(step.value, `items[${i}].`, self.itemKey(step.value, base, i));
                        // An item in a message costs its size, a tag and a length of at most 5 bytes.
                        itemBytes = toBinary(ComputeDueTimeRequestSchema, request).byteLength + 6;
                        if (itemBytes > maxBytes) {
                            throw tooLarge(itemBytes, maxBytes, `items[${i}]`, "give this item a smaller calendar");
                        }
                    }
                    catch (error) {
                        stopped = { error };
                        return;
                    }
                    if (chunk.length > 0 && bytes + itemBytes > maxBytes) {
                        yield { items: chunk };
                        chunk = [];
                        bytes = 0;
                    }
                    chunk.push(request);
                    bytes += itemBytes;
                    i++;
                    if (chunk.length === size) {
                        yield { items: chunk };
                        chunk = [];
                        bytes = 0;
                    }
                }
            }
            finally {
                if (!done && stopped === undefined) {
                    // The call ended first: let the caller's iterable clean up.
                    try {
                        await iterator.return?.();
                    }
                    catch {
                        // Its own failure to close is not the call's.
                    }
                }
            }
            if (chunk.length) {
                yield { items: chunk };
            }
        }
        let finished = false;
        let received = 0;
        let responses;
        try {
            responses = this.raw.dueTime.streamComputeDueTimes(messages(), options)[Symbol.asyncIterator]();
            for (;;) {
                const step = await responses.next();
                if (step.done) {
                    break;
                }
                received++;
                for (const result of step.value.results) {
                    yield resultOf(result);
                }
            }
            finished = true;
        }
        catch (error) {
            finished = true;
            if (stopped !== undefined) {
                throw stopped.error;
            }
            throw this.streamFailure(error, opts, received);
        }
        finally {
            if (!finished) {
                // The caller left the loop early: cancel the call, and read it to its
                // end (its failure) so that its deadline timer is cleared.
                ended.abort();
                try {
                    while (responses !== undefined && !(await responses.next()).done) {
                        // Results after the caller left are dropped.
                    }
                }
                catch {
                    // The cancelled call's own error.
                }
            }
        }
        if (stopped !== undefined) {
            throw stopped.error;
        }
    }
    /** The DuetimeError of a stream that failed: a connection that broke
     * mid-stream (the server killed or gone) is Unavailable. */
    streamFailure(error, opts, received) {
        const failure = this.failure(error, opts);
        if (received > 0 && failure instanceof Unavailable && !failure.retryable) {
            // The server answered before: the connection broke, its address and settings are right.
            return new Unavailable({
                code: Code.Unavailable,
                details: `the connection broke during the stream (${ConnectError.from(error).rawMessage}); the results not yielded were not answered or not received`,
                cause: error,
            });
        }
        const cause = failure.cause?.cause;
        const broke = typeof cause?.code === "string" && /^(ECONNRESET|EPIPE|ERR_HTTP2_)/.test(cause.code);
        if (!(error instanceof DuetimeError) &&
            failure.reason === "" &&
            (failure.grpcCode === Code.Internal || failure.grpcCode === Code.Unknown ||
                (failure.grpcCode === Code.Aborted && broke) ||
                (failure.grpcCode === Code.Canceled && failure.details.startsWith("http/2 stream closed")))) {
            return new Unavailable({
                code: Code.Unavailable,
                details: `the connection broke during the stream (${failure.details}); the results not yielded were not answered or not received`,
                cause: error,
            });
        }
        return failure;
    }
    /** Business time between two instants (negative when `end` is before `start`): ComputeBusinessTime. */
    async computeBusinessTime(start, end, calendar, opts = {}) {
        opts = optionsOf(opts, "opts");
        const request = {
            startTime: timestampOf(start, "start_time"),
            endTime: timestampOf(end, "end_time"),
            calendar: calendarOf(calendar),
            explain: flag(opts.explain, "explain"),
            idempotencyKey: this.key(opts.idempotencyKey),
        };
        const r = await this.call((o) => this.raw.dueTime.computeBusinessTime(request, o), opts);
        return {
            businessTimeMs: millisecondsOf(r.businessTime) ?? 0,
            businessDays: Number(r.businessDays),
            explanation: explanationOf(r.explanation),
            recorded: recordedOf(r),
        };
    }
    /** Whether the calendar is open at `at`, and the next opening and closing: GetOpenStatus. */
    async getOpenStatus(at, calendar, opts = {}) {
        opts = optionsOf(opts, "opts");
        const request = {
            time: timestampOf(at, "time"),
            calendar: calendarOf(calendar),
            includeLastRun: flag(opts.includeLastRun, "include_last_run"),
            idempotencyKey: this.key(opts.idempotencyKey),
        };
        const r = await this.call((o) => this.raw.dueTime.getOpenStatus(request, o), opts);
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
    async computeSchedule(entered, deadlines, calendar, opts = {}) {
        opts = optionsOf(opts, "opts");
        const request = {
            enteredTime: timestampOf(entered, "entered_time"),
            calendar: calendarOf(calendar),
            deadlines: list(deadlines, "deadlines", '"NAME=DURATION" or { name, duration }').map(deadlineOf),
            atClose: choice(AT_CLOSE, opts.atClose, "at_close") ?? AtClose.UNSPECIFIED,
            explain: flag(opts.explain, "explain"),
            idempotencyKey: this.key(opts.idempotencyKey),
        };
        const r = await this.call((o) => this.raw.dueTime.computeSchedule(request, o), opts);
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
    async listOpenPeriods(start, end, calendar, opts = {}) {
        opts = optionsOf(opts, "opts");
        const request = {
            startTime: timestampOf(start, "start_time"),
            endTime: timestampOf(end, "end_time"),
            calendar: calendarOf(calendar),
            pageSize: count(opts.pageSize, "page_size"),
            pageToken: opts.pageToken === undefined ? "" : text(opts.pageToken, "page_token", "the nextPageToken of the page before"),
            idempotencyKey: this.key(opts.idempotencyKey),
        };
        const r = await this.call((o) => this.raw.dueTime.listOpenPeriods(request, o), opts);
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
    async *openPeriods(start, end, calendar, opts = {}) {
        opts = optionsOf(opts, "opts");
        let pageToken = "";
        do {
            const page = await this.listOpenPeriods(start, end, calendar, { ...opts, pageSize: opts.pageSize ?? 0, pageToken });
            yield* page.periods;
            pageToken = page.nextPageToken;
        } while (pageToken);
    }
    /** The business days from local date `from` to `to`, both included: CountBusinessDays. */
    async countBusinessDays(from, to, calendar, opts = {}) {
        opts = optionsOf(opts, "opts");
        const request = {
            fromDate: text(from, "from_date", "a local date YYYY-MM-DD"),
            toDate: text(to, "to_date", "a local date YYYY-MM-DD"),
            calendar: calendarOf(calendar),
            idempotencyKey: this.key(opts.idempotencyKey),
        };
        const r = await this.call((o) => this.raw.dueTime.countBusinessDays(request, o), opts);
        return { businessDays: Number(r.businessDays), recorded: recordedOf(r) };
    }
    /** A new RUNNING SLA clock: deadline = `at` + `target`: StartClock. */
    async startClock(target, at, calendar, opts = {}) {
        opts = optionsOf(opts, "opts");
        const request = {
            target: durationText(target, "target"),
            startTime: timestampOf(at, "start_time"),
            calendar: calendarOf(calendar),
            warningThresholds: texts(opts.warningThresholds, "warning_thresholds", 'thresholds such as "75%"'),
            idempotencyKey: this.key(opts.idempotencyKey),
        };
        return clockOf(await this.call((o) => this.raw.dueTime.startClock(request, o), opts));
    }
    /** The clock after `event` ("pause", "resume", "reset", "retarget" with
     * `target` and optionally `anchor: "start"`, "stop") at `at`:
     * ApplyClockEvent. An event the state does not allow rejects with FailedPrecondition. */
    async applyClockEvent(state, event, at, opts = {}) {
        opts = optionsOf(opts, "opts");
        if (state === null || (typeof state !== "string" && typeof state !== "object")) {
            throw invalidArgument("state", `is ${kindOf(state)}; give Clock.state as returned`);
        }
        const request = {
            state: stateMessage(state),
            event: create(ClockEventSchema, {
                type: choice(EVENTS, event, "event.type") ?? ClockEventType.UNSPECIFIED,
                time: timestampOf(at, "event.time"),
                target: opts.target === undefined ? "" : durationText(opts.target, "event.target"),
                anchor: choice(ANCHORS, opts.anchor, "event.anchor") ?? RetargetAnchor.UNSPECIFIED,
            }),
            warningThresholds: texts(opts.warningThresholds, "warning_thresholds", 'thresholds such as "75%"'),
            idempotencyKey: this.key(opts.idempotencyKey),
        };
        if (request.event.type === ClockEventType.UNSPECIFIED) {
            throw invalidArgument("event.type", `is empty; give one of ${Object.keys(EVENTS).join(", ")}`);
        }
        return clockOf(await this.call((o) => this.raw.dueTime.applyClockEvent(request, o), opts));
    }
    /** Replays a ticket's `events` (the first "start") under `policy` ("name" or
     * "name@version"): EvaluateSla. `asOf`: evaluate as of that instant, filling
     * `metrics` and `nextAction` (docs/semantics.md §17). */
    async evaluateSla(policy, events, opts = {}) {
        opts = optionsOf(opts, "opts");
        const request = {
            policy: text(policy, "policy", 'a policy name such as "support-sla"'),
            events: list(events, "events", "{ type, time, attributes? }").map((e, i) => {
                if (e === null || typeof e !== "object") {
                    throw invalidArgument(`events[${i}]`, `is ${kindOf(e)}; give { type, time, attributes? }`);
                }
                const attributes = e.attributes ?? {};
                if (attributes === null || typeof attributes !== "object" || Array.isArray(attributes) ||
                    !Object.values(attributes).every((v) => typeof v === "string")) {
                    throw invalidArgument(`events[${i}].attributes`, "is not an object of text values; give e.g. { tier: \"priority\" }");
                }
                return create(BusinessEventSchema, {
                    type: text(e.type, `events[${i}].type`, 'the event\'s type, e.g. "start"'),
                    time: timestampOf(e.time, `events[${i}].time`),
                    attributes: { ...attributes },
                });
            }),
            idempotencyKey: this.key(opts.idempotencyKey),
            ...(opts.asOf !== undefined ? { asOfTime: timestampOf(opts.asOf, "as_of_time") } : {}),
        };
        const r = await this.call((o) => this.raw.dueTime.evaluateSla(request, o), opts);
        return {
            clock: clockOf(r),
            tier: r.tier,
            policyVersion: r.policyVersion,
            timeline: timelineOf(r.timeline),
            metrics: r.metrics.map((m) => ({
                name: m.name,
                status: upper(enumName(SlaMetricStatus, m.status)),
                cycles: m.cycles,
                tier: m.tier,
                state: m.state ? stateText(m.state) : "",
                timeline: timelineOf(m.timeline),
                breachedAt: dateOf(m.breachTime),
            })),
            nextAction: nextActionOf(r.nextAction),
            asOf: dateOf(r.asOfTime),
            message: r,
        };
    }
    /** The stored record of an answer (request and response as Any): GetRecord. */
    async getRecord(recordId, opts = {}) {
        opts = optionsOf(opts, "opts");
        const request = { recordId: text(recordId, "record_id", "a record id as an answer's recorded.recordId gives it") };
        const r = await this.call((o) => this.raw.dueTime.getRecord(request, o), opts);
        if (r.record === undefined) {
            throw errorOfStatus({ $typeName: "google.rpc.Status", code: 2, message: "the server sent no record", details: [] });
        }
        return r.record;
    }
    /** The stored records received in [start, end) (either open), whose key
     * starts with `keyPrefix`, in `namespace` ("" the default; undefined: every
     * namespace the caller may read), page after page: ListRecords. */
    async *listRecords(opts = {}) {
        opts = optionsOf(opts, "opts");
        let pageToken = "";
        const base = {
            keyPrefix: opts.keyPrefix === undefined ? "" : text(opts.keyPrefix, "key_prefix", "the start of the idempotency keys"),
            pageSize: count(opts.pageSize, "page_size"),
            ...(opts.start !== undefined ? { startTime: timestampOf(opts.start, "start_time") } : {}),
            ...(opts.end !== undefined ? { endTime: timestampOf(opts.end, "end_time") } : {}),
            ...(opts.namespace !== undefined ? { namespace: text(opts.namespace, "namespace", "the namespace's name") } : {}),
        };
        do {
            const page = await this.call((o) => this.raw.dueTime.listRecords({ ...base, pageToken }, o), opts);
            yield* page.records;
            pageToken = page.nextPageToken;
        } while (pageToken);
    }
    /** Which recorded due times a newer bundle version (`calendar`: "NAME@NEW"
     * or "NAME") or, with `tzdata`, the server's tz database would move: AnalyzeImpact. */
    async analyzeImpact(calendar = "", opts = {}) {
        opts = optionsOf(opts, "opts");
        const request = {
            calendar: text(calendar, "calendar", 'a bundle reference such as "hr-zagreb@NEW"'),
            tzdata: flag(opts.tzdata, "tzdata"),
            limit: count(opts.limit, "limit"),
            ...(opts.start !== undefined ? { startTime: timestampOf(opts.start, "start_time") } : {}),
            ...(opts.end !== undefined ? { endTime: timestampOf(opts.end, "end_time") } : {}),
            ...(opts.namespace !== undefined ? { namespace: text(opts.namespace, "namespace", "the namespace's name") } : {}),
        };
        return this.call((o) => this.raw.dueTime.analyzeImpact(request, o), opts);
    }
    /** The gRPC health status of `service` ("": the whole server, SERVING
     * while its ledger accepts writes): "SERVING", "NOT_SERVING", "UNKNOWN", or
     * "SERVICE_UNKNOWN" for a service the server does not have (the server
     * answers NOT_FOUND; the client reads it as this status). Never retried (it
     * says how the server is now); needs no token. A failed call (UNAVAILABLE:
     * nothing listening …) rejects. */
    async health(service = "", opts = {}) {
        opts = optionsOf(opts, "opts");
        const request = { service: text(service, "service", 'a service name such as "duetime.v1.DueTimeService", or "" for the server') };
        try {
            const r = await this.call((o) => this.raw.health.check(request, o), opts);
            return HealthCheckResponse_ServingStatus[r.status] ?? "UNKNOWN";
        }
        catch (error) {
            if (error instanceof NotFound) {
                return "SERVICE_UNKNOWN";
            }
            throw error;
        }
    }
    /** The calendar bundles the server has loaded: ListCalendars. */
    async listCalendars(opts = {}) {
        opts = optionsOf(opts, "opts");
        return this.call((o) => this.raw.calendars.listCalendars({}, o), opts);
    }
    /** A bundle ("name" or "name@version") written out: GetCalendar. */
    async getCalendar(name, opts = {}) {
        opts = optionsOf(opts, "opts");
        const request = { name: text(name, "name", 'a bundle name such as "hr-zagreb"') };
        return this.call((o) => this.raw.calendars.getCalendar(request, o), opts);
    }
    /** The holidays of `calendar` from local date `from` to `to`, inclusive: ListHolidays. */
    async listHolidays(calendar, from, to, opts = {}) {
        opts = optionsOf(opts, "opts");
        const request = {
            calendar: calendarOf(calendar),
            startDate: text(from, "start_date", "a local date YYYY-MM-DD"),
            endDate: text(to, "end_date", "a local date YYYY-MM-DD"),
        };
        return this.call((o) => this.raw.calendars.listHolidays(request, o), opts);
    }
    /** The SLA policies the server has loaded: ListPolicies. */
    async listPolicies(opts = {}) {
        opts = optionsOf(opts, "opts");
        return this.call((o) => this.raw.calendars.listPolicies({}, o), opts);
    }
    /** SLA policy "name" or "name@version" written out: GetPolicy. */
    async getPolicy(name, opts = {}) {
        opts = optionsOf(opts, "opts");
        const request = { name: text(name, "name", 'a policy name such as "support-sla"') };
        return this.call((o) => this.raw.calendars.getPolicy(request, o), opts);
    }
}
