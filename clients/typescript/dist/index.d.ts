/**
 * @duetime/client: a typed client for duetime's gRPC API (duetime.v1).
 * See README.md for the public API.
 */
export * from "./client.js";
export * from "./errors.js";
export { calendarOf, parseDays, parseHours, parseWeekend, DAYS } from "./calendar.js";
export type { CalendarInit, CalendarLike, DateOverrideInit, HolidayInit } from "./calendar.js";
export { dateOf, millisecondsOf, stateMessage, stateText, timestampOf } from "./convert.js";
export type { Instant } from "./convert.js";
/** The generated messages, enums and services of duetime.v1 (protoc-gen-es). */
export * as pb from "./gen/duetime/v1/duetime_pb.js";
