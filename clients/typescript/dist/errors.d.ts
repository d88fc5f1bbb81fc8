/**
 * Errors of duetime calls: one class per status code, read from the rich
 * status the server sends (`google.rpc.Status` details: a `BadRequest` or a
 * `PreconditionFailure` with the fields at fault, then an `ErrorInfo` with
 * the reason and its facts), never from the message text.
 */
import { Code } from "@connectrpc/connect";
import type { Status } from "./gen/google/rpc/status_pb.js";
/** One problem the service named: a request field (or, for a refused clock
 * event, the subject `event`) and what is wrong, in words. */
export interface Violation {
    readonly field: string;
    readonly description: string;
}
/** The gRPC status code names, by number. */
export declare const CODE_NAMES: Readonly<Record<number, string>>;
/** The status codes whose errors are `retryable`, and which the client
 * retries: UNAVAILABLE (the server is down, stopping, or its ledger cannot
 * write: nothing was recorded), CANCELLED (a stopping server cancels the calls
 * it had not started), ABORTED, and DEADLINE_EXCEEDED (a call past the
 * server's call budget, nothing recorded). */
export declare const RETRY_CODES: readonly Code[];
/** Reasons whose errors are not retryable whatever their code. */
export declare const NOT_RETRYABLE_REASONS: readonly string[];
/** The reasons of a RESOURCE_EXHAUSTED that means the server is busy now (the
 * token's tenant has as many calls in flight as it may, or the server holds as
 * many request bytes, or streams, as it may): such an error is `retryable`, and the client
 * sends the call again after the server's `retry_after_seconds` (ErrorInfo
 * metadata; HTTP `Retry-After`), within the call's timeout. Any other
 * RESOURCE_EXHAUSTED (a request over the size limit) is not retryable. */
export declare const BUSY_REASONS: readonly string[];
/** What a DuetimeError is made of. */
export interface DuetimeErrorInit {
    /** The gRPC status code (`Code.InvalidArgument` …). */
    code: Code;
    /** The status message as the service sent it. */
    details: string;
    reason?: string;
    metadata?: Record<string, string>;
    violations?: readonly Violation[];
    cause?: unknown;
    /** Whether the same call may succeed later; default: by `code` and `reason` (see {@link DuetimeError.retryable}). */
    retryable?: boolean;
}
/**
 * A failed duetime call, or an argument refused before calling (then `code`
 * is INVALID_ARGUMENT). `code` is the status code's name (`"NOT_FOUND"`),
 * `grpcCode` its number, `details` the status message, `reason` the
 * service's UPPER_SNAKE reason (`IDEMPOTENCY_KEY_REUSED`, `TOKEN_MISSING` …),
 * `metadata` the facts of its ErrorInfo (e.g. `record_id`), `violations` the
 * problems it named, `field` the first of their fields (`""` when none) and
 * `retryable` whether the same call may succeed later. `message` is
 * `"CODE: details"`.
 */
export declare class DuetimeError extends Error {
    readonly code: string;
    readonly grpcCode: Code;
    readonly details: string;
    readonly reason: string;
    readonly metadata: Readonly<Record<string, string>>;
    readonly violations: readonly Violation[];
    private readonly retryableGiven;
    constructor(init: DuetimeErrorInit);
    /** The first violation's field (`"duration"`, `"calendar.time_zone"` …), `""` when none. */
    get field(): string;
    /** Whether the same call may succeed later: the codes of {@link RETRY_CODES},
     * except a call the server stopped at its call budget (DEADLINE_EXCEEDED
     * with reason CALL_BUDGET_EXCEEDED: the same call costs the same again), a
     * TLS or address mistake, and a call of a closed client; and a
     * RESOURCE_EXHAUSTED because the server is busy ({@link BUSY_REASONS}). */
    get retryable(): boolean;
    /** How long the server asked the caller to wait before it sends the call
     * again (its `retry_after_seconds`, in milliseconds), for a refusal because
     * it is busy ({@link BUSY_REASONS}); undefined otherwise. */
    get retryAfterMs(): number | undefined;
}
/** Bad input (INVALID_ARGUMENT), e.g. a malformed duration or an instant without an offset. */
export declare class InvalidArgument extends DuetimeError {
}
/** An input or result outside a supported range or a calendar's years (OUT_OF_RANGE). */
export declare class OutOfRange extends DuetimeError {
}
/** A clock event the clock's state does not allow (FAILED_PRECONDITION). */
export declare class FailedPrecondition extends DuetimeError {
}
/** The idempotency key was used before with a different request (ALREADY_EXISTS). */
export declare class AlreadyExists extends DuetimeError {
}
/** No record has the id asked for, or no policy the name (NOT_FOUND). */
export declare class NotFound extends DuetimeError {
}
/** The server needs a bearer token and got none, or one it does not accept
 * (UNAUTHENTICATED, reason TOKEN_MISSING or TOKEN_INVALID): pass `token`. */
export declare class Unauthenticated extends DuetimeError {
}
/** The token does not allow the call (PERMISSION_DENIED): a scope it lacks
 * (SCOPE_MISSING) or a namespace it is not bound to (NAMESPACE_NOT_PERMITTED). */
export declare class PermissionDenied extends DuetimeError {
}
/** The service or its ledger cannot answer now (UNAVAILABLE); retryable. */
export declare class Unavailable extends DuetimeError {
}
/** The call did not finish in time (DEADLINE_EXCEEDED); retryable, except
 * reason CALL_BUDGET_EXCEEDED (the server stopped a call that costs too much). */
export declare class DeadlineExceeded extends DuetimeError {
}
/** A request over the message size limit (RESOURCE_EXHAUSTED, reason
 * MESSAGE_TOO_LARGE when the client saw it before sending; not retryable), or
 * a server busy now (reason in {@link BUSY_REASONS}; retryable, after
 * {@link DuetimeError.retryAfterMs}). */
export declare class ResourceExhausted extends DuetimeError {
}
/** The call was cancelled (CANCELLED): by the caller's AbortSignal or
 * `close()` (reason CLIENT_CLOSED; not retryable), or by a stopping server (retryable). */
export declare class Cancelled extends DuetimeError {
}
/** The DuetimeError subclass of `code`'s errors, constructed from `init`. */
export declare function errorOfCode(init: DuetimeErrorInit): DuetimeError;
/** The error of a call made on (or in flight at) a closed client:
 * Cancelled, reason CLIENT_CLOSED, not retryable. */
export declare function clientClosed(): Cancelled;
/** An InvalidArgument found before calling: `field` and what is wrong. */
export declare function invalidArgument(field: string, description: string): InvalidArgument;
/** The DuetimeError of any error a call threw (a `ConnectError`, or anything
 * else, read as `ConnectError.from` reads it). A DuetimeError is returned as it is. */
export declare function errorOf(error: unknown): DuetimeError;
/** The DuetimeError of a `google.rpc.Status` message (a batch or stream
 * item's error), of the class its code chooses. */
export declare function errorOfStatus(status: Status): DuetimeError;
