/**
 * Errors of duetime calls: one class per status code, read from the rich
 * status the server sends (`google.rpc.Status` details: a `BadRequest` or a
 * `PreconditionFailure` with the fields at fault, then an `ErrorInfo` with
 * the reason and its facts), never from the message text.
 */

import { anyUnpack } from "@bufbuild/protobuf/wkt";
import type { Any } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError } from "@connectrpc/connect";
import {
  BadRequestSchema,
  ErrorInfoSchema,
  PreconditionFailureSchema,
} from "./gen/google/rpc/error_details_pb.js";
import type { Status } from "./gen/google/rpc/status_pb.js";

/** One problem the service named: a request field (or, for a refused clock
 * event, the subject `event`) and what is wrong, in words. */
export interface Violation {
  readonly field: string;
  readonly description: string;
}

/** The gRPC status code names, by number. */
export const CODE_NAMES: Readonly<Record<number, string>> = {
  0: "OK",
  1: "CANCELLED",
  2: "UNKNOWN",
  3: "INVALID_ARGUMENT",
  4: "DEADLINE_EXCEEDED",
  5: "NOT_FOUND",
  6: "ALREADY_EXISTS",
  7: "PERMISSION_DENIED",
  8: "RESOURCE_EXHAUSTED",
  9: "FAILED_PRECONDITION",
  10: "ABORTED",
  11: "OUT_OF_RANGE",
  12: "UNIMPLEMENTED",
  13: "INTERNAL",
  14: "UNAVAILABLE",
  15: "DATA_LOSS",
  16: "UNAUTHENTICATED",
};

/** The status codes whose errors are `retryable`, and which the client
 * retries: UNAVAILABLE (the server is down, stopping, or its ledger cannot
 * write: nothing was recorded), CANCELLED (a stopping server cancels the calls
 * it had not started), ABORTED, and DEADLINE_EXCEEDED (a call past the
 * server's call budget, nothing recorded). */
export const RETRY_CODES: readonly Code[] = [
  Code.Unavailable,
  Code.Canceled,
  Code.Aborted,
  Code.DeadlineExceeded,
];

/** Reasons whose errors are not retryable whatever their code. */
export const NOT_RETRYABLE_REASONS: readonly string[] = ["CALL_BUDGET_EXCEEDED"];

/** The reasons of a RESOURCE_EXHAUSTED that means the server is busy now (the
 * token's tenant has as many calls in flight as it may, or the server holds as
 * many request bytes, or streams, as it may): such an error is `retryable`, and the client
 * sends the call again after the server's `retry_after_seconds` (ErrorInfo
 * metadata; HTTP `Retry-After`), within the call's timeout. Any other
 * RESOURCE_EXHAUSTED (a request over the size limit) is not retryable. */
export const BUSY_REASONS: readonly string[] = ["TENANT_CALLS_EXHAUSTED", "IN_FLIGHT_BYTES_EXHAUSTED", "STREAMS_EXHAUSTED"];

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
export class DuetimeError extends Error {
  readonly code: string;
  readonly grpcCode: Code;
  readonly details: string;
  readonly reason: string;
  readonly metadata: Readonly<Record<string, string>>;
  readonly violations: readonly Violation[];
  private readonly retryableGiven: boolean | undefined;

  constructor(init: DuetimeErrorInit) {
    const name = CODE_NAMES[init.code] ?? `CODE_${init.code}`;
    super(`${name}: ${init.details}`, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = new.target.name;
    this.code = name;
    this.grpcCode = init.code;
    this.details = init.details;
    this.reason = init.reason ?? "";
    this.metadata = { ...(init.metadata ?? {}) };
    this.violations = [...(init.violations ?? [])];
    this.retryableGiven = init.retryable;
    Object.defineProperty(this, "retryableGiven", { enumerable: false });
  }

  /** The first violation's field (`"duration"`, `"calendar.time_zone"` …), `""` when none. */
  get field(): string {
    return this.violations[0]?.field ?? "";
  }

  /** Whether the same call may succeed later: the codes of {@link RETRY_CODES},
   * except a call the server stopped at its call budget (DEADLINE_EXCEEDED
   * with reason CALL_BUDGET_EXCEEDED: the same call costs the same again), a
   * TLS or address mistake, and a call of a closed client; and a
   * RESOURCE_EXHAUSTED because the server is busy ({@link BUSY_REASONS}). */
  get retryable(): boolean {
    if (this.retryableGiven !== undefined) {
      return this.retryableGiven;
    }
    if (this.grpcCode === Code.ResourceExhausted) {
      return BUSY_REASONS.includes(this.reason);
    }
    return RETRY_CODES.includes(this.grpcCode) && !NOT_RETRYABLE_REASONS.includes(this.reason);
  }

  /** How long the server asked the caller to wait before it sends the call
   * again (its `retry_after_seconds`, in milliseconds), for a refusal because
   * it is busy ({@link BUSY_REASONS}); undefined otherwise. */
  get retryAfterMs(): number | undefined {
    if (this.grpcCode !== Code.ResourceExhausted || !BUSY_REASONS.includes(this.reason)) {
      return undefined;
    }
    const seconds = Number(this.metadata["retry_after_seconds"] ?? "1");
    return Number.isFinite(seconds) ? Math.min(Math.max(seconds, 0), 60) * 1000 : 1000;
  }
}

/** Bad input (INVALID_ARGUMENT), e.g. a malformed duration or an instant without an offset. */
export class InvalidArgument extends DuetimeError {}
/** An input or result outside a supported range or a calendar's years (OUT_OF_RANGE). */
export class OutOfRange extends DuetimeError {}
/** A clock event the clock's state does not allow (FAILED_PRECONDITION). */
export class FailedPrecondition extends DuetimeError {}
/** The idempotency key was used before with a different request (ALREADY_EXISTS). */
export class AlreadyExists extends DuetimeError {}
/** No record has the id asked for, or no policy the name (NOT_FOUND). */
export class NotFound extends DuetimeError {}
/** The server needs a bearer token and got none, or one it does not accept
 * (UNAUTHENTICATED, reason TOKEN_MISSING or TOKEN_INVALID): pass `token`. */
export class Unauthenticated extends DuetimeError {}
/** The token does not allow the call (PERMISSION_DENIED): a scope it lacks
 * (SCOPE_MISSING) or a namespace it is not bound to (NAMESPACE_NOT_PERMITTED). */
export class PermissionDenied extends DuetimeError {}
/** The service or its ledger cannot answer now (UNAVAILABLE); retryable. */
export class Unavailable extends DuetimeError {}
/** The call did not finish in time (DEADLINE_EXCEEDED); retryable, except
 * reason CALL_BUDGET_EXCEEDED (the server stopped a call that costs too much). */
export class DeadlineExceeded extends DuetimeError {}
/** A request over the message size limit (RESOURCE_EXHAUSTED, reason
 * MESSAGE_TOO_LARGE when the client saw it before sending; not retryable), or
 * a server busy now (reason in {@link BUSY_REASONS}; retryable, after
 * {@link DuetimeError.retryAfterMs}). */
export class ResourceExhausted extends DuetimeError {}
/** The call was cancelled (CANCELLED): by the caller's AbortSignal or
 * `close()` (reason CLIENT_CLOSED; not retryable), or by a stopping server (retryable). */
export class Cancelled extends DuetimeError {}

const CLASSES: Partial<Record<Code, new (init: DuetimeErrorInit) => DuetimeError>> = {
  [Code.InvalidArgument]: InvalidArgument,
  [Code.OutOfRange]: OutOfRange,
  [Code.FailedPrecondition]: FailedPrecondition,
  [Code.AlreadyExists]: AlreadyExists,
  [Code.NotFound]: NotFound,
  [Code.Unauthenticated]: Unauthenticated,
  [Code.PermissionDenied]: PermissionDenied,
  [Code.Unavailable]: Unavailable,
  [Code.DeadlineExceeded]: DeadlineExceeded,
  [Code.ResourceExhausted]: ResourceExhausted,
  [Code.Canceled]: Cancelled,
};

/** The DuetimeError subclass of `code`'s errors, constructed from `init`. */
export function errorOfCode(init: DuetimeErrorInit): DuetimeError {
  const Class = CLASSES[init.code] ?? DuetimeError;
  return new Class(init);
}

/** The error of a call made on (or in flight at) a closed client:
 * Cancelled, reason CLIENT_CLOSED, not retryable. */
export function clientClosed(): Cancelled {
  return new Cancelled({
    code: Code.Canceled,
    details: "the client is closed; make a new DuetimeClient to call again",
    reason: "CLIENT_CLOSED",
    retryable: false,
  });
}

/** An InvalidArgument found before calling: `field` and what is wrong. */
export function invalidArgument(field: string, description: string): InvalidArgument {
  return new InvalidArgument({
    code: Code.InvalidArgument,
    details: `${field}: ${description}`,
    reason: "INVALID_ARGUMENT",
    violations: [{ field, description }],
  });
}

interface Parts {
  violations: Violation[];
  reason: string;
  metadata: Record<string, string>;
}

function partsOfDetails(details: Iterable<unknown>, unpack: (detail: unknown) => Parts): Parts {
  const parts: Parts = { violations: [], reason: "", metadata: {} };
  for (const detail of details) {
    const found = unpack(detail);
    parts.violations.push(...found.violations);
    if (found.reason) {
      parts.reason = found.reason;
      parts.metadata = found.metadata;
    }
  }
  return parts;
}

/** Node error codes of a TLS handshake refused for the client's own
 * settings (a certificate not trusted, a host name it does not name, a
 * plain-text server on the other end): retrying cannot help. */
const TLS_CONFIG_ERRORS = /^(ERR_SSL_|ERR_TLS_CERT|UNABLE_TO_|CERT_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH)/;
/** Node error codes of a connection that broke (retryable), or of a peer
 * that does not speak HTTP/2 (ERR_HTTP2_: the HTTP/JSON port; not retryable). */
const CONNECTION_ERRORS = /^(ERR_TLS_|EPROTO$|ECONNRESET$|EPIPE$|ERR_HTTP2_)/;

/** Why a connection failed before the server sent anything (no headers,
 * no trailers), or undefined when it did not: "tls" a TLS handshake refused
 * for the client's settings, "peer" a peer that is not a gRPC server (an
 * HTTP/1 server, or a TLS port reached in plain text, which resets the
 * stream), "network" a connection that broke. */
function connectionFailed(error: ConnectError): "tls" | "peer" | "network" | undefined {
  if ([...error.metadata.keys()].length > 0) {
    return undefined;
  }
  const cause = error.cause as { code?: unknown } | undefined;
  if ((error.code === Code.Internal || error.code === Code.Unknown || error.code === Code.Unavailable) && typeof cause?.code === "string") {
    if (TLS_CONFIG_ERRORS.test(cause.code)) {
      return "tls";
    }
    if (CONNECTION_ERRORS.test(cause.code)) {
      return cause.code.startsWith("ERR_HTTP2_") ? "peer" : "network";
    }
    return undefined;
  }
  if (error.code === Code.Canceled && error.rawMessage.startsWith("http/2 stream closed with error code")) {
    return "peer";
  }
  return undefined;
}

/** The DuetimeError of any error a call threw (a `ConnectError`, or anything
 * else, read as `ConnectError.from` reads it). A DuetimeError is returned as it is. */
export function errorOf(error: unknown): DuetimeError {
  if (error instanceof DuetimeError) {
    return error;
  }
  const connect = ConnectError.from(error);
  if (connect.cause instanceof DuetimeError) {
    return connect.cause;
  }
  const failed = connectionFailed(connect);
  if (failed !== undefined) {
    return new Unavailable({
      code: Code.Unavailable,
      details: `the connection failed before the server answered (${connect.rawMessage}); ` +
        "is the address the gRPC port, and do the TLS settings match the server's?",
      reason: failed === "network" ? "" : failed === "tls" ? "TLS_CONFIGURATION" : "NOT_A_GRPC_SERVER",
      retryable: failed === "network",
      cause: error,
    });
  }
  const violations: Violation[] = [];
  for (const bad of connect.findDetails(BadRequestSchema)) {
    violations.push(...bad.fieldViolations.map((v) => ({ field: v.field, description: v.description })));
  }
  for (const failed of connect.findDetails(PreconditionFailureSchema)) {
    violations.push(...failed.violations.map((v) => ({ field: v.subject, description: v.description })));
  }
  const info = connect.findDetails(ErrorInfoSchema)[0];
  return errorOfCode({
    code: connect.code,
    details: connect.rawMessage,
    reason: info?.reason ?? "",
    metadata: info ? { ...info.metadata } : {},
    violations,
    cause: error,
  });
}

function unpackAny(detail: unknown): Parts {
  const any = detail as Any;
  const bad = anyUnpack(any, BadRequestSchema);
  if (bad) {
    return {
      violations: bad.fieldViolations.map((v) => ({ field: v.field, description: v.description })),
      reason: "",
      metadata: {},
    };
  }
  const failed = anyUnpack(any, PreconditionFailureSchema);
  if (failed) {
    return {
      violations: failed.violations.map((v) => ({ field: v.subject, description: v.description })),
      reason: "",
      metadata: {},
    };
  }
  const info = anyUnpack(any, ErrorInfoSchema);
  if (info) {
    return { violations: [], reason: info.reason, metadata: { ...info.metadata } };
  }
  return { violations: [], reason: "", metadata: {} };
}

/** The DuetimeError of a `google.rpc.Status` message (a batch or stream
 * item's error), of the class its code chooses. */
export function errorOfStatus(status: Status): DuetimeError {
  const parts = partsOfDetails(status.details, unpackAny);
  const code = CODE_NAMES[status.code] !== undefined ? (status.code as Code) : Code.Unknown;
  return errorOfCode({ code, details: status.message, ...parts });
}
