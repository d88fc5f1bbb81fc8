// Errors shown next to the input they name.
//
// The service names the field of a bad input with its request path, e.g.
// "deadlines[1].duration" or "calendar.holidays[0].date" (snake_case, as in
// the .proto; a camelCase spelling is read the same). A form registers the
// path of every input when it builds its request; a violation is shown next
// to the input with the longest registered path that is a prefix of its field
// ("calendar.working_hours.days[0].intervals[1].end" → the Monday hours
// input), and in the form's general error area when none is.

let slots = 0;

/** Adds an (empty, hidden) error slot right after `input`, tied to it with
 * aria-describedby; its data-testid is the input's with "-error" appended. */
export function attachErrorSlot(input) {
  const slot = document.createElement("span");
  slot.className = "field-error";
  slot.id = `field-error-${++slots}`;
  slot.hidden = true;
  slot.setAttribute("role", "alert");
  if (input.dataset.testid) slot.dataset.testid = `${input.dataset.testid}-error`;
  input.setAttribute("aria-describedby", [input.getAttribute("aria-describedby"), slot.id].filter(Boolean).join(" "));
  // In a list row (a holiday, a deadline, an event) the message goes on its
  // own line below the whole row, so the row's inputs stay on one line.
  const row = input.closest("li");
  if (row) row.append(slot);
  else input.after(slot);
  input.errorSlot = slot;
  return slot;
}

/** "calendar.workingHours.days[0]" → "calendar.working_hours.days[0]". */
export function snakePath(field) {
  return field.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase();
}

/** The shorter paths of a field path: "a.b[2].c" → "a.b[2]", "a.b", "a". */
function* prefixes(path) {
  let rest = path;
  while (rest) {
    yield rest;
    const cut = Math.max(rest.lastIndexOf("."), rest.lastIndexOf("["));
    rest = cut > 0 ? rest.slice(0, cut) : "";
  }
}

/** The error display of one form: its registered inputs and general area. */
export class FieldErrors {
  /** @param {HTMLElement} general where errors that name no input go */
  constructor(general) {
    this.general = general;
    this.inputs = new Map();
    this.shown = [];
  }

  /** Names `input` (which has an error slot) as the one for `path`. */
  register(path, input) {
    this.inputs.set(path, input);
  }

  /** Forgets every registered path (before the request is built again). */
  reset() {
    this.clear();
    this.inputs = new Map();
  }

  /** Hides every error shown. */
  clear() {
    for (const input of this.shown) {
      input.removeAttribute("aria-invalid");
      input.errorSlot.hidden = true;
      input.errorSlot.textContent = "";
    }
    this.shown = [];
    this.general.hidden = true;
    this.general.textContent = "";
  }

  /** The registered input for a violation's field, or null. */
  inputFor(field) {
    for (const path of prefixes(snakePath(field))) {
      const input = this.inputs.get(path);
      if (input) return input;
    }
    return null;
  }

  /** Shows `description` next to the input of `field` (general area when no
   * input has that path). */
  showField(field, description) {
    const input = this.inputFor(field);
    if (input) this.showOn(input, description);
    else this.showGeneral(field ? `${field}: ${description}` : description);
  }

  /** Shows `description` next to `input` (one with an error slot). */
  showOn(input, description) {
    const slot = input.errorSlot;
    slot.textContent = slot.textContent ? `${slot.textContent}; ${description}` : description;
    slot.hidden = false;
    input.setAttribute("aria-invalid", "true");
    if (!this.shown.includes(input)) this.shown.push(input);
  }

  /** Scrolls to and focuses the first place an error is shown, in the
   * page's order: an input in error (a group of inputs, such as the weekend
   * days: its first input), or the general error area. Nothing when no
   * error is shown. */
  focusFirst() {
    const places = [...this.shown];
    if (!this.general.hidden) places.push(this.general);
    if (!places.length) return;
    places.sort((a, b) => (a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1));
    const first = places[0];
    const target = first.matches("input, select, textarea, button, [tabindex]")
      ? first
      : first.querySelector("input, select, textarea, button") ?? first;
    target.scrollIntoView({ block: "center", inline: "nearest", behavior: "instant" });
    target.focus({ preventScroll: true });
  }

  /** Adds a line to the general error area. */
  showGeneral(text) {
    const line = document.createElement("p");
    line.textContent = text;
    this.general.append(line);
    this.general.hidden = false;
  }

  /** Shows a ServiceError (or any Error): each field violation next to its
   * input; a precondition failure next to the input its subject names (an
   * SLA event refused by the clock names "events[3]"), else in the general
   * area; a bare message in the general area. */
  showError(error) {
    const violations = error.violations ?? [];
    const preconditions = error.preconditions ?? [];
    for (const v of violations) this.showField(v.field ?? "", v.description ?? "");
    for (const p of preconditions) {
      if (p.subject && this.inputFor(p.subject)) this.showField(p.subject, p.description ?? "");
      else this.showGeneral(`${p.subject || p.type}: ${p.description}`);
    }
    if (!violations.length && !preconditions.length) {
      this.showGeneral(error.status ? `${error.status}: ${error.message}` : error.message);
    }
  }
}
