"""DueTimeApp: one app's parts put together, the calls every face makes.

Built by the composition root (:func:`duetime.compose.build_app`), which hands
it its ledger, catalog, limits, calendar cache and the recorded methods.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import date, datetime
from typing import Any

from duetime.app.calendars import CalendarCache, CalendarRequest, CalendarResolver
from duetime.app.catalog_reads import (
    CalendarInfo,
    HolidayList,
    bundle_listing,
    bundle_named,
    calendar_info,
    holidays_of,
)
from duetime.app.catalog_reads import PolicyListing, PolicyView, policy_listing, policy_named
from duetime.app.call_deadline import CallDeadline
from duetime.app.limits import DEFAULT_LIMITS, Limits
from duetime.app.recorded import Answering, LedgerGate, PreparedBatch, RecordedMethod, RecordedPath
from duetime.app.records import RecordPage, RecordReader
from duetime.bundles import Bundle
from duetime.catalog import Catalog
from duetime.ledger import (
    MAX_PAGE_SIZE,
    Concern,
    Ledger,
    LedgerRow,
    LedgerUnavailable,
    Position,
    RecordFilter,
)


def _recorded_call(rpc: str) -> Callable:
    """A DueTimeApp method ``(request, received_at, namespace="") -> response``
    running the recorded method ``rpc`` through :meth:`DueTimeApp.call`."""

    def use_case(self: DueTimeApp, request: Any, received_at: datetime,
                 namespace: str = "") -> Any:
        return self.call(self.methods[rpc], request, received_at, namespace)

    use_case.__name__ = use_case.__qualname__ = rpc
    use_case.__doc__ = f"{rpc}, recorded: see :meth:`DueTimeApp.call`."
    return use_case


class DueTimeApp:
    """The use cases over one ledger, answering from :attr:`catalog`. Safe to
    share across threads.

    ``methods``: the recorded methods by short name (``"ComputeDueTime"``),
    as the composition root builds them; ``limits``: the size limits;
    ``calendar_cache``: this app's cache of built inline calendars (default:
    a new one of 1024); ``on_ledger_unavailable``: called with the error
    whenever a ledger call raises LedgerUnavailable (the server's health
    check listens).
    """

    def __init__(self, ledger: Ledger, catalog: Catalog | None = None,
                 on_ledger_unavailable: Callable[[LedgerUnavailable], None] | None = None, *,
                 methods: Mapping[str, RecordedMethod] | None = None,
                 limits: Limits = DEFAULT_LIMITS, calendar_cache: CalendarCache | None = None):
        self.ledger = ledger
        self.catalog = catalog or Catalog.empty()
        """The bundles and policies answered from. A reload replaces it whole,
        in one assignment; every call reads it once, at its start."""
        self.methods: Mapping[str, RecordedMethod] = dict(methods or {})
        self.limits = limits
        self.calendars = CalendarResolver(calendar_cache, limits)
        self._gate = LedgerGate(ledger, on_ledger_unavailable)
        self._recorded = RecordedPath(self._gate, self.answering, limits)
        self._records = RecordReader(self._gate, limits)

    @property
    def calendar_cache(self) -> CalendarCache:
        """This app's cache of built inline calendars."""
        return self.calendars.cache

    @property
    def on_ledger_unavailable(self) -> Callable[[LedgerUnavailable], None] | None:
        """Called with the error whenever a ledger call raises LedgerUnavailable."""
        return self._gate.on_unavailable

    @on_ledger_unavailable.setter
    def on_ledger_unavailable(self, listener: Callable[[LedgerUnavailable], None] | None) -> None:
        self._gate.on_unavailable = listener

    # --- computing ------------------------------------------------------------
    def answering(self, batch: bool = False, catalog: Catalog | None = None,
                  check: Callable[[], None] | None = None) -> Answering:
        """What one call (``batch``: one batch) answers from: ``catalog``
        (default: the current one, read now), the limits and the calendars,
        built with the cooperative ``check`` (a call's deadline; None: none)."""
        return Answering(catalog or self.catalog, self.limits, self.calendars, batch, check)

    def answer(self, method: RecordedMethod, request: Any,
               answering: Answering | None = None) -> Any:
        """The response to ``request``, computed but not recorded (no record
        id): the CLI without a server, impact analysis. ``answering``: what
        to answer from (default: :meth:`answering`). Raises the domain
        errors of the method."""
        return method.answer(request, answering or self.answering())

    def call(self, method: RecordedMethod, request: Any, received_at: datetime,
             namespace: str = "", deadline: CallDeadline | None = None) -> Any:
        """Answer ``request`` on the recorded path, within ``deadline`` (None:
        no limit): see :meth:`RecordedPath.call`."""
        return self._recorded.call(method, request, received_at, namespace, deadline)

    def call_many(self, method: RecordedMethod, requests: Sequence[Any], received_at: datetime,
                  namespace: str = "", deadline: CallDeadline | None = None) -> list[Any | Exception]:
        """Answer a batch on the recorded path, within ``deadline`` (None: no
        limit): see :meth:`RecordedPath.call_many`."""
        return self._recorded.call_many(method, requests, received_at, namespace, deadline)

    def prepare_many(self, method: RecordedMethod, requests: Sequence[Any],
                     received_at: datetime, namespace: str = "",
                     deadline: CallDeadline | None = None) -> PreparedBatch:
        """A batch computed but not yet recorded, for a stream to commit one
        batch while it computes the next: see :meth:`RecordedPath.prepare_many`;
        its ``commit()`` records it and returns what :meth:`call_many` returns."""
        return self._recorded.prepare_many(method, requests, received_at, namespace, deadline)

    # The recorded use cases by name.
    compute_due_time = _recorded_call("ComputeDueTime")
    compute_business_time = _recorded_call("ComputeBusinessTime")
    get_open_status = _recorded_call("GetOpenStatus")
    compute_schedule = _recorded_call("ComputeSchedule")
    start_clock = _recorded_call("StartClock")
    apply_clock_event = _recorded_call("ApplyClockEvent")
    evaluate_sla = _recorded_call("EvaluateSla")
    list_open_periods = _recorded_call("ListOpenPeriods")
    count_business_days = _recorded_call("CountBusinessDays")

    # --- the ledger -------------------------------------------------------------
    def probe_ledger(self) -> None:
        """One durable probe write (:meth:`Ledger.ping_write`). Raises
        LedgerUnavailable or ShuttingDown."""
        with self._gate.use() as ledger:
            ledger.ping_write()

    def close(self, timeout: float = 5.0) -> int:
        """Refuse further ledger use, wait (up to ``timeout`` s) for the ledger
        calls in progress, then close the ledger. A recorded call still
        computing gets ShuttingDown when it reaches the ledger. Returns how
        many recorded calls were still running."""
        return self._gate.close(timeout)

    def get_record(self, record_id: str,
                   namespaces: frozenset[str] | None = None) -> LedgerRow:
        """The stored record with this id, in one of ``namespaces`` (None:
        any): see :meth:`RecordReader.get`."""
        return self._records.get(record_id, namespaces)

    def list_records(self, flt: RecordFilter, page_size: int = 0,
                     page_token: str = "") -> RecordPage:
        """One page of records: see :meth:`RecordReader.page`."""
        return self._records.page(flt, page_size, page_token)

    def records(self, flt: RecordFilter, batch_size: int = MAX_PAGE_SIZE) -> Iterator[LedgerRow]:
        """Every row ``flt`` selects, in listing order: see :meth:`RecordReader.all`."""
        return self._records.all(flt, batch_size)

    def concerned_records(self, flt: RecordFilter, concern: Concern, batch_size: int = 100,
                          check: Callable[[], None] | None = None) -> Iterator[LedgerRow]:
        """Every row ``flt`` and ``concern`` select, in listing order, a page
        at a time: see :meth:`RecordReader.concerned`."""
        return self._records.concerned(flt, concern, batch_size, check)

    def count_records(self, flt: RecordFilter, through: Position | None = None) -> int:
        """How many rows ``flt`` selects (at or before ``through``): see :meth:`RecordReader.count`."""
        return self._records.count(flt, through)

    # --- CalendarService: read-only, unrecorded, over the current catalog ---------
    def list_calendars(self) -> list[CalendarInfo]:
        """Every loaded bundle, by name."""
        return bundle_listing(self.catalog.bundles)

    def get_calendar(self, ref: str) -> tuple[Bundle, CalendarInfo]:
        """Bundle version ``ref`` (``name`` or ``name@version``) and its
        bundle's listing. Raises InvalidArgument / BundleNotFound on ``name``."""
        bundles = self.catalog.bundles
        bundle = bundle_named(ref, bundles, self.limits)
        return bundle, calendar_info(bundles, bundle.name, bundle)

    def list_holidays(self, first: date, last: date, calendar: CalendarRequest) -> HolidayList:
        """The holidays of ``calendar`` from ``first`` to ``last`` inclusive:
        see :func:`~duetime.app.catalog_reads.holidays_of`."""
        return holidays_of(first, last, calendar, self.catalog.bundles, self.calendars)

    def list_policies(self) -> list[PolicyListing]:
        """Every loaded SLA policy, by name."""
        return policy_listing(self.catalog.policies)

    def get_policy(self, ref: str) -> PolicyView:
        """SLA policy version ``ref`` (``name`` or ``name@version``) written
        out: see :func:`~duetime.app.catalog_reads.policy_named`."""
        return policy_named(ref, self.catalog.policies, self.limits)
