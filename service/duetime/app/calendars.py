"""The calendar a request computes in: resolution and the cache of built calendars.

A request names its calendar inline, as a bundle of the catalog, or as a
bundle plus extra inline holidays (how a calendar's parts combine:
``docs/semantics.md``, "Which rule wins for a date").
The transport hands the app a :class:`CalendarRequest` (the calendar as sent,
not yet parsed); :class:`CalendarResolver` turns it into a
:class:`ResolvedCalendar`, keeping inline calendars built in the app's own
:class:`CalendarCache`, so a calendar sent again is neither checked nor
compiled again. :class:`BatchCalendars` resolves each distinct calendar of a
batch once.
"""

from __future__ import annotations

import dataclasses
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Protocol

from duetime.bundles import Bundle, BundleStore
from duetime.core import (
    Calendar,
    DuetimeError,
    ErrorKind,
    FailedPrecondition,
    FieldViolation,
    InvalidArgument,
    OutOfRange,
)
from duetime.core.calendar import DEFAULT_CALENDAR_LIMITS, CalendarLimits
from duetime.app.limits import DEFAULT_CALENDAR_CACHE, DEFAULT_LIMITS, Limits


class CalendarRequest(Protocol):
    """A request's calendar as sent, before it is checked or parsed.

    ``bundle``: the bundle reference (``""``: inline). ``key()``: bytes equal
    for equal calendars (the cache key). ``text_problems(limits)``: what is
    too long or too many, or a name holding a control character, checked
    before parsing. ``build(check, limits)``: the inline calendar (errors of
    :meth:`Calendar.from_text`, which calls ``check`` as it goes and refuses
    a calendar larger than ``limits``). ``set_beside_bundle()``: the parts set beside
    ``bundle`` (all but ``bundle`` and ``holidays``). ``extra_holidays()``:
    the inline holidays given with a bundle, as a Calendar, or None.
    ``same_as(other)``: cheaply, whether ``other`` is the same calendar.
    """

    @property
    def bundle(self) -> str: ...
    def key(self) -> bytes: ...
    def text_problems(self, limits: Limits) -> list[FieldViolation]: ...
    def build(self, check: Callable[[], None] | None = None,
              limits: CalendarLimits = DEFAULT_CALENDAR_LIMITS) -> Calendar: ...
    def set_beside_bundle(self) -> list[str]: ...
    def extra_holidays(self) -> Calendar | None: ...
    def same_as(self, other: CalendarRequest) -> bool: ...


@dataclass(frozen=True)
class ResolvedCalendar:
    """The calendar a request computes in: ``calendar`` to compute with,
    ``version`` for the answer and its record (see the proto's Calendar), and
    ``bundle``, the bundle version it names, if any."""

    calendar: Calendar
    version: str
    bundle: Bundle | None = None

    def answering(self) -> ResolvedCalendar:
        """Around a computation (``with cal.answering(): ...``): for a bundle,
        the core's holiday-horizon OutOfRange (on
        ``calendar.holidays_valid_until`` / ``_from``) is reported on
        ``calendar.bundle``, naming the bundle's years."""
        return self

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind, exc, traceback) -> None:
        # A plain context manager, not a generator: it runs around every answer.
        if kind is not None and self.bundle is not None and issubclass(kind, OutOfRange):
            raise self.bundle_range_error(exc) from None

    def bundle_range_error(self, exc: OutOfRange) -> OutOfRange:
        """``exc`` (the core's holiday-horizon OutOfRange) as reported for a
        bundle calendar: on ``calendar.bundle``, naming the bundle's years."""
        name, (first, last) = self.bundle.name, self.bundle.years
        return OutOfRange([
            FieldViolation("calendar.bundle", f"{name} covers {first}–{last} only (version "
                                              f"{self.bundle.version}); {v.description}")
            if v.field.startswith("calendar.holidays_valid") else v
            for v in exc.violations
        ], exc.reason)


@contextmanager
def renamed(rename: Callable[[str], str]) -> Iterator[None]:
    """Errors raised inside name their fields as ``rename(field)`` says."""
    try:
        yield
    except DuetimeError as exc:
        kind = {ErrorKind.UNSUPPORTED_RANGE: OutOfRange,
                ErrorKind.STATE_CONFLICT: FailedPrecondition}.get(exc.kind, InvalidArgument)
        raise kind([v._replace(field=rename(v.field)) for v in exc.violations],
                   exc.reason) from None


class CalendarCache:
    """A bounded LRU of built inline calendars, keyed by
    :meth:`CalendarRequest.key`, so a calendar sent again (the usual case: a
    workflow engine sends the same few calendars) is validated and compiled
    once. Only calendars that built without error are kept. Thread-safe.
    ``maxsize`` 0 keeps nothing. One per app."""

    def __init__(self, maxsize: int = DEFAULT_CALENDAR_CACHE):
        self._lock = threading.Lock()
        self._items: OrderedDict[bytes, Calendar] = OrderedDict()
        self.maxsize = maxsize

    @property
    def maxsize(self) -> int:
        """How many calendars are kept at most; setting it drops the least
        recently used beyond it (ValueError if negative)."""
        return self._maxsize

    @maxsize.setter
    def maxsize(self, value: int) -> None:
        if value < 0:
            raise ValueError(f"calendar cache size {value} is negative")
        with self._lock:
            self._maxsize = value
            while len(self._items) > value:
                self._items.popitem(last=False)

    def get(self, key: bytes) -> Calendar | None:
        """The calendar built for ``key`` (now the most recently used), or None."""
        with self._lock:
            found = self._items.get(key)
            if found is not None:
                self._items.move_to_end(key)
            return found

    def put(self, key: bytes, calendar: Calendar,
            check: Callable[[], None] | None = None) -> Calendar:
        """Keep ``calendar`` under ``key``, dropping the least recently used
        beyond :attr:`maxsize`; returns ``calendar``. Its compiled form is
        built here, outside the lock, so a cached calendar is ready to use
        (calling the cooperative ``check`` as it goes: what it raises stops
        the build and nothing is kept)."""
        calendar.compile(check)  # compile once, before sharing
        with self._lock:
            if self._maxsize:
                self._items[key] = calendar
                self._items.move_to_end(key)
                while len(self._items) > self._maxsize:
                    self._items.popitem(last=False)
        return calendar

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)

    def clear(self) -> None:
        """Drop every calendar kept."""
        with self._lock:
            self._items.clear()


class CalendarResolver:
    """Resolves requests' calendars with one app's cache and limits.
    Thread-safe."""

    def __init__(self, cache: CalendarCache | None = None, limits: Limits = DEFAULT_LIMITS):
        self.cache = cache if cache is not None else CalendarCache()
        self.limits = limits

    def resolve(self, cal: CalendarRequest, bundles: BundleStore | None = None,
                check: Callable[[], None] | None = None) -> ResolvedCalendar:
        """The calendar of a request: inline, a bundle of ``bundles``
        (``name`` or ``name@version``), or a bundle plus extra inline holidays.
        ``check`` (None: none): a cooperative check (a call's deadline)
        called while an inline calendar is built and compiled.

        With a bundle, every part but ``holidays`` must be unset, and a date
        the bundle already lists keeps the bundle's holiday. Raises
        InvalidArgument (a part too long, a part set beside the bundle, a bad
        inline calendar), BundleNotFound (an InvalidArgument on
        ``calendar.bundle``), or OutOfRange (dates outside the supported range).
        """
        if not cal.bundle:
            # The cache holds only calendars that passed every check, so a hit
            # (the same bytes) needs none of them again.
            key = cal.key()
            inline = self.cache.get(key)
            if inline is None:
                if problems := cal.text_problems(self.limits):
                    raise InvalidArgument(problems)
                inline = self.cache.put(key, cal.build(check, self.limits.calendar), check)
            return ResolvedCalendar(inline, inline.version)
        if problems := cal.text_problems(self.limits):
            raise InvalidArgument(problems)
        if beside := cal.set_beside_bundle():
            raise InvalidArgument([
                FieldViolation(f"calendar.{name}",
                               f"comes from bundle {cal.bundle!r}; leave it unset")
                for name in beside
            ])
        bundle = (bundles or BundleStore.empty()).resolve(cal.bundle, field="calendar.bundle")
        extra = cal.extra_holidays()
        if extra is None:
            return ResolvedCalendar(bundle.calendar, bundle.ref, bundle)
        listed = {h.date for h in bundle.calendar.holidays}
        holidays = (*bundle.calendar.holidays, *(h for h in extra.holidays if h.date not in listed))
        combined = dataclasses.replace(bundle.calendar, holidays=tuple(sorted(holidays)))
        return ResolvedCalendar(combined, f"{bundle.ref}+{combined.version}", bundle)


class BatchCalendars:
    """The calendars of one batch: each distinct calendar (compared by its
    key) resolved once, through ``resolve``, and shared by every item that
    sends it. A calendar that fails to resolve is not kept (each item gets
    its own error). Not thread-safe: one per batch."""

    def __init__(self, resolve: Callable[[CalendarRequest, BundleStore | None], ResolvedCalendar],
                 bundles: BundleStore | None = None):
        self._resolve = resolve
        self.bundles = bundles
        self._seen: dict[bytes, ResolvedCalendar] = {}
        self._last: tuple[CalendarRequest, ResolvedCalendar] | None = None

    def resolve(self, cal: CalendarRequest) -> ResolvedCalendar:
        """The resolved ``cal``, resolved at most once per batch."""
        # Items usually repeat the previous item's calendar: comparing the two
        # is cheaper than computing this one's key.
        last = self._last
        if last is not None and cal.same_as(last[0]):
            return last[1]
        key = cal.key()
        found = self._seen.get(key)
        if found is None:
            found = self._seen[key] = self._resolve(cal, self.bundles)
        self._last = (cal, found)
        return found
