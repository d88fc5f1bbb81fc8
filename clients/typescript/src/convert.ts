/**
 * Conversions between the client's plain values and duetime.v1's messages:
 * instants (`Date` or RFC 3339 text) to `google.protobuf.Timestamp` and back,
 * durations to milliseconds, clock states to and from base64 text.
 */

import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { TimestampSchema } from "@bufbuild/protobuf/wkt";
import type { Duration, Timestamp } from "@bufbuild/protobuf/wkt";
import { ClockStateSchema } from "./gen/duetime/v1/duetime_pb.js";
import type { ClockState } from "./gen/duetime/v1/duetime_pb.js";
import { invalidArgument } from "./errors.js";

/** An instant: a `Date`, or RFC 3339 text with an offset
 * (`"2026-11-27T16:00:00+01:00"`, `"2026-11-27T15:00Z"`; seconds may be left
 * out, at most 6 fractional digits). */
export type Instant = Date | string;

const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?([Zz]|[+-]\d{2}:\d{2})?$/;

const HOW = "write RFC 3339 with an offset, e.g. '2026-11-27T16:00:00+01:00' or '2026-11-27T15:00:00Z'";

/** The Timestamp of `value`; InvalidArgument on `field` for text that is not
 * an RFC 3339 instant with an offset, an invalid Date, or any other type. */
export function timestampOf(value: Instant, field: string): Timestamp {
  if (value instanceof Date) {
    const ms = value.getTime();
    if (Number.isNaN(ms)) {
      throw invalidArgument(field, `is an invalid Date; ${HOW}`);
    }
    const seconds = Math.floor(ms / 1000);
    return create(TimestampSchema, { seconds: BigInt(seconds), nanos: (ms - seconds * 1000) * 1_000_000 });
  }
  if (typeof value !== "string") {
    throw invalidArgument(field, `is ${kindOf(value)}; give a Date or RFC 3339 text: ${HOW}`);
  }
  const text = value.trim();
  if (/^\d{4}-\d{2}-\d{2}$/.test(text)) {
    throw invalidArgument(field, `'${text}' is a date, not an instant; ${HOW}`);
  }
  const m = RFC3339.exec(text);
  if (!m) {
    throw invalidArgument(field, `'${text}' is not an RFC 3339 instant; ${HOW}`);
  }
  const [, y, mo, d, h, mi, s, fraction, offset] = m;
  if (offset === undefined) {
    throw invalidArgument(field, `'${text}' has no UTC offset (never read as UTC or local); ${HOW}`);
  }
  if (fraction !== undefined && fraction.length > 6) {
    throw invalidArgument(field, `'${text}' has more than 6 fractional digits; duetime counts microseconds`);
  }
  const parts = [y, mo, d, h, mi, s ?? "0"].map(Number) as [number, number, number, number, number, number];
  const [year, month, day, hour, minute, second] = parts;
  // setUTCFullYear takes the year as written (Date.UTC reads 0-99 as 1900-1999).
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, 0);
  if (
    year < 1 || month < 1 || month > 12 || date.getUTCDate() !== day || date.getUTCMonth() !== month - 1 ||
    hour > 23 || minute > 59 || second > 59
  ) {
    throw invalidArgument(field, `'${text}' is not a valid date and time (years 0001 to 9999); ${HOW}`);
  }
  const local = date.getTime();
  let offsetMinutes = 0;
  if (offset !== "Z" && offset !== "z") {
    const sign = offset.startsWith("-") ? -1 : 1;
    const offsetHours = Number(offset.slice(1, 3));
    const offsetMins = Number(offset.slice(4, 6));
    if (offsetHours > 23 || offsetMins > 59) {
      throw invalidArgument(field, `'${text}' has the offset '${offset}', not one of -23:59 to +23:59; ${HOW}`);
    }
    offsetMinutes = sign * (offsetHours * 60 + offsetMins);
  }
  const seconds = (local - offsetMinutes * 60_000) / 1000;
  const nanos = fraction === undefined ? 0 : Number(fraction.padEnd(9, "0"));
  return create(TimestampSchema, { seconds: BigInt(seconds), nanos });
}

/** The Date of a Timestamp (milliseconds: finer digits are cut), or null when unset. */
export function dateOf(timestamp: Timestamp | undefined): Date | null {
  if (timestamp === undefined) {
    return null;
  }
  return new Date(Number(timestamp.seconds) * 1000 + Math.floor(timestamp.nanos / 1_000_000));
}

/** Like {@link dateOf} for a field the server always sets (the epoch if it did not). */
export function requiredDateOf(timestamp: Timestamp | undefined): Date {
  return dateOf(timestamp) ?? new Date(0);
}

/** A Duration in milliseconds (microseconds as the fraction), or null when unset. */
export function millisecondsOf(duration: Duration | undefined): number | null {
  if (duration === undefined) {
    return null;
  }
  return Number(duration.seconds) * 1000 + duration.nanos / 1_000_000;
}

/** A clock state as the client hands it out: its binary serialization, base64. */
export function stateText(state: ClockState): string {
  return Buffer.from(toBinary(ClockStateSchema, state)).toString("base64");
}

/** A ClockState from base64 text, bytes, or the message itself; text or
 * bytes that do not parse are InvalidArgument on `state`. */
export function stateMessage(state: string | Uint8Array | ClockState): ClockState {
  if (typeof state === "object" && !(state instanceof Uint8Array)) {
    if (state.$typeName !== "duetime.v1.ClockState") {
      throw invalidArgument("state", "is not a duetime.v1.ClockState; give Clock.state as returned");
    }
    return state;
  }
  let bytes: Uint8Array;
  if (typeof state === "string") {
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(state)) {
      throw invalidArgument("state", "is not base64 text; give Clock.state as returned");
    }
    bytes = Buffer.from(state, "base64");
  } else {
    bytes = state;
  }
  try {
    return fromBinary(ClockStateSchema, bytes);
  } catch {
    throw invalidArgument("state", "does not parse as a serialized duetime.v1.ClockState");
  }
}

/** What a value is, for a refusal: "null", "undefined", "a list", "an object", "a number", … */
export function kindOf(value: unknown): string {
  if (value === null || value === undefined) {
    return String(value);
  }
  if (Array.isArray(value)) {
    return "a list";
  }
  const kind = typeof value;
  return /^[aeiou]/.test(kind) ? `an ${kind}` : `a ${kind}`;
}
