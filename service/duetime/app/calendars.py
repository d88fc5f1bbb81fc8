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
import functools
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
    settle: Callable[[], None] | None = dataclasses.field(default=None, compare=False,
                                                          repr=False)
    """Called when each computation with it ends (a cached inline calendar:
    :meth:`CalendarCache.measure`, charging what the computation added)."""

    def answering(self) -> ResolvedCalendar:
        """Around a computation (``with cal.answering(): ...``): for a bundle,
        the core's holiday-horizon OutOfRange (on
        ``calendar.holidays_valid_until`` / ``_from``) is reported on
        ``calendar.bundle``, naming the bundle's years; then :attr:`settle`
        is called."""
        return self

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind, exc, traceback) -> None:
        # A plain context manager, not a generator: it runs around every answer.
        if self.settle is not None:
            self.settle()
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


DEFAULT_MEMORY_BUDGET = 256 << 20
"""The memory one server may use beyond what it takes idle, in bytes
(``duetime serve --memory-budget``, env ``DUETIME_MEMORY_BUDGET``)."""
CACHE_SHARE = 3
"""The inline-calendar cache may hold 1/3 of the memory budget (estimated
bytes); the rest is room for calls in flight (their messages, answers and
the dates they look at) and for what the allocator keeps: memory freed by
evicted calendars is reused, but not always returned to the system."""
SEGMENT_SHARE = 32
"""A cached calendar's per-date segment cache may hold at most 1/32 of the
cache's bytes, so calls in flight, which grow the segment caches of the
calendars they use before the cache measures them again, stay within a
small part of it."""


def cache_bytes(memory_budget: int) -> int:
    """The estimated bytes the inline-calendar cache may hold under
    ``memory_budget`` bytes: :data:`CACHE_SHARE` of it."""
    return memory_budget // CACHE_SHARE


class CalendarCache:
    """A bounded LRU of built inline calendars, keyed by
    :meth:`CalendarRequest.key`, so a calendar sent again (the usual case: a
    workflow engine sends the same few calendars) is validated and compiled
    once. Only calendars that built without error are kept. Thread-safe.
    One per app.

    Bounded twice: by ``maxsize`` calendars (0 keeps nothing) and by
    ``max_bytes`` estimated bytes (a server's: :func:`cache_bytes` of its
    memory budget). Each calendar is
    charged its key's length plus
    :meth:`~duetime.core.compiled.CompiledCalendar.estimated_bytes` (its
    declaration, tables, and the per-date segments and DST corrections it
    has kept so far). Those last grow as calls ask about dates, so a
    calendar is measured when it is put and again when each answer computed
    with it ends (:meth:`ResolvedCalendar.answering`); whenever the
    charges pass ``max_bytes`` the least recently used calendars are dropped
    until they fit. Each cached calendar's segment cache is bounded to
    ``max_bytes // SEGMENT_SHARE``; a calendar charged more than ``max_bytes``
    on its own is not kept."""

    def __init__(self, maxsize: int = DEFAULT_CALENDAR_CACHE,
                 max_bytes: int = DEFAULT_MEMORY_BUDGET):
        self._lock = threading.Lock()
        self._items: OrderedDict[bytes, tuple[Calendar, int]] = OrderedDict()
        self._bytes = 0
        self._maxsize = self._max_bytes = 0
        self.maxsize = maxsize
        self.max_bytes = max_bytes

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
            self._evict()

    @property
    def max_bytes(self) -> int:
        """The most estimated bytes the calendars kept may hold together;
        setting it drops the least recently used beyond it
        (ValueError if negative). Calendars put from then on get a segment
        cache of at most ``max_bytes // SEGMENT_SHARE`` bytes."""
        return self._max_bytes

    @max_bytes.setter
    def max_bytes(self, value: int) -> None:
        if value < 0:
            raise ValueError(f"memory budget {value} is negative")
        with self._lock:
            self._max_bytes = value
            self._evict()

    @property
    def bytes(self) -> int:
        """The estimated bytes the calendars kept hold, as last measured."""
        with self._lock:
            return self._bytes

    def _evict(self) -> None:
        """Drop least recently used calendars until both bounds hold (lock held)."""
        items = self._items
        while items and (len(items) > self._maxsize or self._bytes > self._max_bytes):
            _, (_, charged) = items.popitem(last=False)
            self._bytes -= charged

    def get(self, key: bytes) -> Calendar | None:
        """The calendar built for ``key`` (now the most recently used), or None."""
        with self._lock:
            found = self._items.get(key)
            if found is None:
                return None
            self._items.move_to_end(key)
            return found[0]

    def put(self, key: bytes, calendar: Calendar,
            check: Callable[[], None] | None = None) -> Calendar:
        """Keep ``calendar`` under ``key``, dropping the least recently used
        beyond :attr:`maxsize` and :attr:`max_bytes`; returns ``calendar``.
        Its compiled form is built here, outside the lock, so a cached
        calendar is ready to use (calling the cooperative ``check`` as it
        goes: what it raises stops the build and nothing is kept)."""
        compiled = calendar.compile(check)  # compile once, before sharing
        if not self._maxsize:
            return calendar
        compiled.limit_segment_cache(self._max_bytes // SEGMENT_SHARE)
        charge = len(key) + compiled.estimated_bytes()
        with self._lock:
            if charge > self._max_bytes:  # alone over the budget: used once, not kept
                return calendar
            old = self._items.pop(key, None)
            if old is not None:
                self._bytes -= old[1]
            self._items[key] = (calendar, charge)
            self._bytes += charge
            self._evict()
        return calendar

    def measure(self, key: bytes, calendar: Calendar) -> None:
        """Charge the calendar kept under ``key`` what it holds now (if
        ``calendar`` is still the one kept there), then drop least recently
        used calendars while the charges pass :attr:`max_bytes`. Called when
        an answer computed with it ends."""
        charge = len(key) + calendar.compiled.estimated_bytes()
        with self._lock:
            found = self._items.get(key)
            if found is None or found[0] is not calendar or found[1] == charge:
                return
            self._items[key] = (calendar, charge)
            self._bytes += charge - found[1]
            if self._bytes > self._max_bytes:
                if charge > self._max_bytes:
                    del self._items[key]
                    self._bytes -= charge
                self._evict()

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)

    def clear(self) -> None:
        """Drop every calendar kept."""
        with self._lock:
            self._items.clear()
            self._bytes = 0


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
            return ResolvedCalendar(inline, inline.version,
                                    settle=functools.partial(self.cache.measure, key, inline))
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
    its own error). Not thread-safe: one per batch.

    A resolved calendar's :attr:`~ResolvedCalendar.settle` (the cache's
    measure of what its computations added) runs once per distinct calendar,
    when the batch calls :meth:`settle`, not after each item: the calendar's
    segment cache is bounded on its own (:data:`SEGMENT_SHARE`), so what the
    items of one batch add stays within that bound until then."""

    def __init__(self, resolve: Callable[[CalendarRequest, BundleStore | None], ResolvedCalendar],
                 bundles: BundleStore | None = None):
        self._resolve = resolve
        self.bundles = bundles
        self._seen: dict[bytes, ResolvedCalendar] = {}
        self._last: tuple[CalendarRequest, ResolvedCalendar] | None = None
        self._settles: list[Callable[[], None]] = []

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
            found = self._resolve(cal, self.bundles)
            if found.settle is not None:
                self._settles.append(found.settle)
                found = dataclasses.replace(found, settle=None)
            self._seen[key] = found
        self._last = (cal, found)
        return found

    def settle(self) -> None:
        """Settle (measure in the cache) each distinct calendar resolved so
        far, once; called when the batch's computations end."""
        settles, self._settles = self._settles, []
        for settle in settles:
            settle()
