/**
 * Conversions between the client's plain values and duetime.v1's messages:
 * instants (`Date` or RFC 3339 text) to `google.protobuf.Timestamp` and back,
 * durations to milliseconds, clock states to and from base64 text.
 */
import type { Duration, Timestamp } from "@bufbuild/protobuf/wkt";
import type { ClockState } from "./gen/duetime/v1/duetime_pb.js";
/** An instant: a `Date`, or RFC 3339 text with an offset
 * (`"2026-11-27T16:00:00+01:00"`, `"2026-11-27T15:00Z"`; seconds may be left
 * out, at most 6 fractional digits). */
export type Instant = Date | string;
/** The Timestamp of `value`; InvalidArgument on `field` for text that is not
 * an RFC 3339 instant with an offset, an invalid Date, or any other type. */
export declare function timestampOf(value: Instant, field: string): Timestamp;
/** The Date of a Timestamp (milliseconds: finer digits are cut), or null when unset. */
export declare function dateOf(timestamp: Timestamp | undefined): Date | null;
/** Like {@link dateOf} for a field the server always sets (the epoch if it did not). */
export declare function requiredDateOf(timestamp: Timestamp | undefined): Date;
/** A Duration in milliseconds (microseconds as the fraction), or null when unset. */
export declare function millisecondsOf(duration: Duration | undefined): number | null;
/** A clock state as the client hands it out: its binary serialization, base64. */
export declare function stateText(state: ClockState): string;
/** A ClockState from base64 text, bytes, or the message itself; text or
 * bytes that do not parse are InvalidArgument on `state`. */
export declare function stateMessage(state: string | Uint8Array | ClockState): ClockState;
/** What a value is, for a refusal: "null", "undefined", "a list", "an object", "a number", … */
export declare function kindOf(value: unknown): string;
