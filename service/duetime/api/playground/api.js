// The duetime HTTP/JSON API as the playground calls it: the duetime.v1 RPCs
// (proto/duetime/v1/duetime.proto) in the protobuf JSON mapping, on the same
// origin as the page.
//
// A failed call answers {"error": {"code", "message", "status", "details"}},
// whose details may hold a google.rpc.BadRequest (fieldViolations: [{field,
// description}]) or a google.rpc.PreconditionFailure (violations: [{type,
// subject, description}]); it is thrown as a ServiceError.
//
// A server started with --auth-tokens answers every call without an accepted
// "Authorization: Bearer <token>" header 401 UNAUTHENTICATED. The page's API
// token (setApiToken) is sent as that header when set; it is kept in this
// tab's sessionStorage only (never in the URL, never logged). A token bound to
// namespaces and scopes (docs/operations.md) answers 403 PERMISSION_DENIED for
// a call it does not allow; the playground's calls name no namespace, so they
// are made in the token's default one.

const TOKEN_KEY = "duetime.apiToken";

/** Told after every answer what the server said of the token: "" (accepted,
 * or none needed) or why it refused the call. */
let tokenListener = () => {};

/** The API token this tab sends ("" when none is set). */
export function apiToken() {
  try {
    return sessionStorage.getItem(TOKEN_KEY) ?? "";
  } catch {
    return ""; // storage disabled: no token kept
  }
}

/** Sets (or, with "", forgets) the API token sent with every call. */
export function setApiToken(token) {
  try {
    if (token) sessionStorage.setItem(TOKEN_KEY, token);
    else sessionStorage.removeItem(TOKEN_KEY);
  } catch {
    // storage disabled: the token cannot be kept
  }
}

/** Calls `listener(problem)` after every answer: "this server needs an API
 * token" or "the token was not accepted" on a 401, "the token does not allow
 * this call: <why>" on a 403, "" on any other answer. */
export function watchToken(listener) {
  tokenListener = listener;
}

/** A call the service refused (or that never reached it). */
export class ServiceError extends Error {
  /**
   * @param {string} message the service's message, or what went wrong
   * @param {object} error the "error" object of the answer, if any
   */
  constructor(message, error = {}) {
    super(message);
    this.status = error.status ?? "";
    this.code = error.code ?? 0;
    const details = error.details ?? [];
    /** [{field, description}] from a google.rpc.BadRequest detail. */
    this.violations = details
      .filter((d) => String(d["@type"] ?? "").endsWith("google.rpc.BadRequest"))
      .flatMap((d) => d.fieldViolations ?? d.field_violations ?? []);
    /** [{type, subject, description}] from a google.rpc.PreconditionFailure. */
    this.preconditions = details
      .filter((d) => String(d["@type"] ?? "").endsWith("google.rpc.PreconditionFailure"))
      .flatMap((d) => d.violations ?? []);
  }
}

async function call(method, path, body) {
  const token = apiToken();
  const headers = body === undefined ? {} : { "Content-Type": "application/json" };
  if (token) headers.Authorization = `Bearer ${token}`;
  let response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (exc) {
    throw new ServiceError(`the duetime service did not answer (${exc.message})`);
  }
  if (response.status === 401) {
    tokenListener(token ? "the token was not accepted" : "this server needs an API token");
  } else if (response.status !== 403) {
    tokenListener("");
  }
  const text = await response.text();
  let answer;
  try {
    answer = text ? JSON.parse(text) : {};
  } catch {
    if (response.status === 403) tokenListener("the token does not allow this call");
    throw new ServiceError(`HTTP ${response.status} from ${path}: not a JSON answer`);
  }
  if (response.status === 403) {
    const why = answer.error?.message;
    tokenListener(why ? `the token does not allow this call: ${why}` : "the token does not allow this call");
  }
  if (!response.ok || answer.error) {
    const error = answer.error ?? {};
    throw new ServiceError(error.message || `HTTP ${response.status} from ${path}`, error);
  }
  return answer;
}

/** ComputeSchedule: a ComputeScheduleRequest → ComputeScheduleResponse. */
export const computeSchedule = (request) => call("POST", "/v1/schedules:compute", request);

/** ListHolidays: a ListHolidaysRequest → ListHolidaysResponse. */
export const listHolidays = (request) => call("POST", "/v1/holidays:list", request);

/** ListCalendars → ListCalendarsResponse (every loaded bundle). */
export const listCalendars = () => call("GET", "/v1/calendars");

/** GetCalendar: "name" or "name@version" → GetCalendarResponse. */
export const getCalendar = (name) => call("GET", `/v1/calendars/${encodeURIComponent(name)}`);

/** EvaluateSla: an EvaluateSlaRequest → EvaluateSlaResponse. */
export const evaluateSla = (request) => call("POST", "/v1/sla:evaluate", request);

/** GetPolicy: "name" or "name@version" → GetPolicyResponse (tiers, events). */
export const getPolicy = (name) => call("GET", `/v1/policies/${encodeURIComponent(name)}`);
