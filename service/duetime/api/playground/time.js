// Instants, wall times, local dates and UTC offsets for the playground page.
//
// An instant is a Number of microseconds since 1970-01-01T00:00:00Z, the
// service's own resolution (docs/semantics.md, "Instants"); every instant of
// the service's range (1900–2199) is exact in a double (|us| < 2^53).
// A local date is "YYYY-MM-DD" text; a wall time is seconds since the local
// midnight (0 … 86400).
//
// Offsets and wall times are read from the browser's time zone database
// (Intl.DateTimeFormat). The service answers every due time, holiday and
// explanation itself; the page uses the browser's zones only to turn a local
// entry time into an instant, to place the entry and "now" markers, and to
// mark the days whose UTC offset changes.

const US_PER_MS = 1000;
const US_PER_S = 1_000_000;
export const DAY_S = 86_400;

/** A bad input typed by the person, said in words. */
export class InputError extends Error {}

/** A local time was given in a time zone the browser does not know. */
export class UnknownZoneError extends InputError {}

const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?\s*([Zz]|[+-]\d{2}:\d{2})?$/;

/** Milliseconds since the epoch of a proleptic-Gregorian UTC date-time
 * (unlike Date.UTC, years 0–99 are taken literally). */
function utcMs(year, month, day, hour = 0, minute = 0, second = 0) {
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, 0);
  return date.getTime();
}

function pad(n, width = 2) {
  return String(Math.abs(n)).padStart(width, "0");
}

/** "HH:MM" (or "HH:MM:SS" when the seconds are not zero) of a wall time in
 * seconds since midnight. */
export function formatWall(seconds) {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  return s ? `${pad(h)}:${pad(m)}:${pad(s)}` : `${pad(h)}:${pad(m)}`;
}

/** Seconds since midnight of "HH:MM" or "HH:MM:SS" ("24:00" is 86400); null
 * when the text is not a wall time. */
export function parseWall(text) {
  const m = /^(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(text.trim());
  if (!m) return null;
  const [h, mi, s] = [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)];
  if (h === 24 && mi === 0 && s === 0) return DAY_S;
  if (h > 23 || mi > 59 || s > 59) return null;
  return h * 3600 + mi * 60 + s;
}

/** "+01:00", "-03:30", "+05:45" of an offset in seconds ("+00:00" for zero,
 * as the service writes it). */
export function formatOffset(seconds) {
  const sign = seconds < 0 ? "-" : "+";
  const abs = Math.abs(seconds);
  const text = `${sign}${pad(Math.floor(abs / 3600))}:${pad(Math.floor((abs % 3600) / 60))}`;
  return abs % 60 ? `${text}:${pad(abs % 60)}` : text;
}

const offsetFormats = new Map();

/** True when the browser knows the IANA time zone `zone`. */
export function knowsZone(zone) {
  try {
    offsetFormat(zone);
    return true;
  } catch {
    return false;
  }
}

function offsetFormat(zone) {
  let format = offsetFormats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-US", { timeZone: zone, timeZoneName: "longOffset" });
    offsetFormats.set(zone, format);
  }
  return format;
}

/** The UTC offset of `zone` at the instant `ms` (milliseconds), in seconds. */
export function offsetAt(zone, ms) {
  const name = offsetFormat(zone)
    .formatToParts(new Date(ms))
    .find((part) => part.type === "timeZoneName").value;
  const m = /GMT(?:([+-])(\d{2}):(\d{2})(?::(\d{2}))?)?$/.exec(name);
  if (!m || !m[1]) return 0;
  const seconds = Number(m[2]) * 3600 + Number(m[3]) * 60 + Number(m[4] ?? 0);
  return m[1] === "-" ? -seconds : seconds;
}

/** The wall-clock reading of instant `us` in `zone`: its local date, wall
 * time (seconds), weekday (ISO, Monday = 1) and offset (seconds). */
export function wallOf(us, zone) {
  const ms = Math.floor(us / US_PER_MS);
  const offset = offsetAt(zone, ms);
  const local = new Date(ms + offset * 1000);
  const date = `${pad(local.getUTCFullYear(), 4)}-${pad(local.getUTCMonth() + 1)}-${pad(local.getUTCDate())}`;
  const seconds = local.getUTCHours() * 3600 + local.getUTCMinutes() * 60 + local.getUTCSeconds();
  return { date, seconds, weekday: isoWeekday(date), offset };
}

/** The instant at which the wall time `seconds` of the local date `date`
 * happens in `zone`, by the service's rule for DST (docs/semantics.md, "When a
 * wall time does not exist, or happens twice"): in a gap, move forward by the
 * gap's length; in a fold, take the earlier instant. Returns { us, how } with
 * how = "exact", "gap" or "fold". */
export function resolveWall(zone, date, seconds, fractionUs = 0) {
  const [y, mo, d] = date.split("-").map(Number);
  const wallMs = utcMs(y, mo, d) + seconds * 1000;
  const offsets = new Set([-1, 0, 1].map((days) => offsetAt(zone, wallMs + days * DAY_S * 1000)));
  const found = [...offsets]
    .map((offset) => wallMs - offset * 1000)
    .filter((ms) => {
      const wall = wallOf(ms * US_PER_MS, zone);
      return wall.date === date && wall.seconds === seconds;
    })
    .sort((a, b) => a - b);
  if (found.length) {
    return { us: found[0] * US_PER_MS + fractionUs, how: found.length > 1 ? "fold" : "exact" };
  }
  // A gap: read the wall time with the offset in force before it.
  const before = offsetAt(zone, wallMs - DAY_S * 1000);
  return { us: (wallMs - before * 1000) * US_PER_MS + fractionUs, how: "gap" };
}

function fractionToUs(digits) {
  return digits ? Number(digits.slice(0, 6).padEnd(6, "0")) : 0;
}

function checkDate(y, mo, d, text) {
  const date = new Date(utcMs(y, mo, 1));
  date.setUTCDate(d);
  if (mo < 1 || mo > 12 || d < 1 || date.getUTCMonth() !== mo - 1) {
    throw new InputError(`'${text}' is not a real calendar date`);
  }
}

/** Reads a date-time typed by the person: RFC 3339 with an offset
 * ("2026-11-27T16:00:00+01:00", "…Z"; seconds may be left out), or a local
 * date-time without one ("2026-11-27T16:00"), which is wall time in `zone`
 * (refused when `offsetRequired`). `where` names `zone` in the messages
 * ("the calendar's zone"). Returns { us, how } (how: "offset", or
 * resolveWall's "exact", "gap", "fold"); throws InputError saying how to
 * write it. */
export function parseDateTime(text, zone, { offsetRequired = false, where = "the calendar's zone" } = {}) {
  const how = offsetRequired
    ? "write an instant with its offset, e.g. 2026-12-11T10:00:00+01:00"
    : `write 2026-11-27T16:00 (local time in ${where}) or 2026-11-27T16:00:00+01:00`;
  if (!text.trim()) throw new InputError(`is required: ${how}`);
  const m = RFC3339.exec(text.trim());
  if (!m) throw new InputError(`'${text.trim()}' is not a date-time: ${how}`);
  if (offsetRequired && !m[8]) throw new InputError(`'${text.trim()}' has no offset: ${how}`);
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map((part) => Number(part ?? 0));
  checkDate(y, mo, d, text.trim());
  if (h > 23 || mi > 59 || s > 59) throw new InputError(`'${text.trim()}' is not a wall time of a day`);
  const fractionUs = fractionToUs(m[7]);
  const offsetText = m[8];
  if (offsetText) {
    let offset = 0;
    if (offsetText.toUpperCase() !== "Z") {
      const [oh, om] = offsetText.slice(1).split(":").map(Number);
      offset = (offsetText[0] === "-" ? -1 : 1) * (oh * 3600 + om * 60);
    }
    return { us: (utcMs(y, mo, d, h, mi, s) - offset * 1000) * US_PER_MS + fractionUs, how: "offset" };
  }
  if (!knowsZone(zone)) {
    throw new UnknownZoneError(
      `this browser does not know the time zone '${zone}': use an IANA name (e.g. Europe/Zagreb), ` +
        "or give the time with an offset",
    );
  }
  return resolveWall(zone, `${pad(y, 4)}-${pad(mo)}-${pad(d)}`, h * 3600 + mi * 60 + s, fractionUs);
}

/** The instant of a protobuf JSON Timestamp ("2026-12-01T15:00:00Z", any
 * offset, 0–9 fractional digits). */
export function parseTimestamp(text) {
  return parseDateTime(text, "UTC", { offsetRequired: true }).us;
}

function fractionText(us) {
  const fraction = ((us % US_PER_S) + US_PER_S) % US_PER_S;
  return fraction ? `.${pad(fraction, 6)}` : "";
}

/** RFC 3339 text of an instant in UTC: "2026-12-01T15:00:00Z" (the form sent
 * to the service as a protobuf JSON Timestamp). */
export function formatUtc(us) {
  const ms = Math.floor(us / US_PER_MS);
  const iso = new Date(Math.floor(ms / 1000) * 1000).toISOString().slice(0, 19);
  return `${iso}${fractionText(us)}Z`;
}

/** RFC 3339 text of an instant with `zone`'s offset, as the service writes
 * due_local: "2026-12-01T16:00:00+01:00". */
export function formatLocal(us, zone) {
  const wall = wallOf(us, zone);
  const time = `${pad(Math.floor(wall.seconds / 3600))}:${pad(Math.floor((wall.seconds % 3600) / 60))}:${pad(wall.seconds % 60)}`;
  return `${wall.date}T${time}${fractionText(us)}${formatOffset(wall.offset)}`;
}

/** The local date and wall time of an RFC 3339 text with an offset, as
 * written (for the service's due_local): { date, seconds, offset }. */
export function splitLocal(text) {
  const m = RFC3339.exec(text);
  if (!m) throw new InputError(`'${text}' is not RFC 3339`);
  const offsetText = m[8] ?? "Z";
  const offset = offsetText.toUpperCase() === "Z" ? "+00:00" : offsetText;
  return {
    date: `${m[1]}-${m[2]}-${m[3]}`,
    seconds: Number(m[4]) * 3600 + Number(m[5]) * 60 + Number(m[6] ?? 0),
    offset,
  };
}

/** Microseconds of a protobuf JSON Duration ("144000s", "-7200s", "1.5s"). */
export function parseDuration(text) {
  const m = /^(-)?(\d+)(?:\.(\d{1,9}))?s$/.exec(text);
  if (!m) throw new InputError(`'${text}' is not a duration`);
  const us = Number(m[2]) * US_PER_S + fractionToUs(m[3]);
  return m[1] ? -us : us;
}

/** A length of time in hours and minutes, as duetime prints one: "40h",
 * "2h 30m", "-2h", "45s". */
export function formatDuration(us) {
  const sign = us < 0 ? "-" : "";
  let seconds = Math.round(Math.abs(us) / US_PER_S);
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  seconds %= 60;
  const parts = [];
  if (h) parts.push(`${h}h`);
  if (m) parts.push(`${m}m`);
  if (seconds || !parts.length) parts.push(`${seconds}s`);
  return sign + parts.join(" ");
}

// ---- local dates ------------------------------------------------------------------

/** The local date `days` after `date`. */
export function addDays(date, days) {
  const [y, mo, d] = date.split("-").map(Number);
  const next = new Date(utcMs(y, mo, d) + days * DAY_S * 1000);
  return `${pad(next.getUTCFullYear(), 4)}-${pad(next.getUTCMonth() + 1)}-${pad(next.getUTCDate())}`;
}

/** Whole days from local date `a` to local date `b`. */
export function daysBetween(a, b) {
  const ms = (date) => {
    const [y, mo, d] = date.split("-").map(Number);
    return utcMs(y, mo, d);
  };
  return Math.round((ms(b) - ms(a)) / (DAY_S * 1000));
}

/** ISO weekday of a local date: Monday = 1 … Sunday = 7. */
export function isoWeekday(date) {
  const [y, mo, d] = date.split("-").map(Number);
  return ((new Date(utcMs(y, mo, d)).getUTCDay() + 6) % 7) + 1;
}

/** The Monday of the ISO week holding `date`. */
export function mondayOf(date) {
  return addDays(date, 1 - isoWeekday(date));
}

/** The ISO 8601 week number of `date` ("2026-W48"). */
export function isoWeekName(date) {
  const thursday = addDays(date, 4 - isoWeekday(date));
  const year = Number(thursday.slice(0, 4));
  const week = Math.floor(daysBetween(`${pad(year, 4)}-01-01`, thursday) / 7) + 1;
  return `${pad(year, 4)}-W${pad(week)}`;
}

/** "Fri 27 Nov 2026" for a local date. */
export function formatDateShort(date) {
  const [y, mo, d] = date.split("-").map(Number);
  return new Intl.DateTimeFormat("en-GB", {
    timeZone: "UTC",
    weekday: "short",
    day: "numeric",
    month: "short",
    year: "numeric",
  }).format(new Date(utcMs(y, mo, d)));
}

/** How the UTC offset of `zone` changes during the local date `date`, or null
 * when it does not: { from, to } offsets in seconds and the wall times
 * before and after the change ({ wallBefore, wallAfter }, seconds). */
export function offsetChangeOn(zone, date) {
  const start = resolveWall(zone, date, 0).us / US_PER_MS;
  const end = resolveWall(zone, addDays(date, 1), 0).us / US_PER_MS;
  const from = offsetAt(zone, start);
  const to = offsetAt(zone, end);
  if (from === to) return null;
  // Bisect to the first millisecond with the new offset.
  let [lo, hi] = [start, end];
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (offsetAt(zone, mid) === from) lo = mid;
    else hi = mid;
  }
  const at = hi;
  const wallBefore = (((Math.floor(at / 1000) + from) % DAY_S) + DAY_S) % DAY_S;
  const wallAfter = (((Math.floor(at / 1000) + to) % DAY_S) + DAY_S) % DAY_S;
  return { from, to, wallBefore: wallBefore || DAY_S, wallAfter };
}
