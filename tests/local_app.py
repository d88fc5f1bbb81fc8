"""Answers computed in-process and unrecorded, as the command line computes
them without a server: for tests of the conversions and of the use cases."""

from __future__ import annotations

from duetime.api.convert import DUE_TIME, WireCalendar, record_filter, records_page
from duetime.api.convert import clock_state_from_proto as _state_from_proto
from duetime.app import DueTimeApp
from duetime.compose import build_app

APP = build_app()
"""An app over an in-memory ledger, no bundles, the default limits."""


def compute(request, app: DueTimeApp = APP):
    """The ComputeDueTimeResponse of ``request`` (no record id)."""
    return app.answer(DUE_TIME, request)


def resolve_calendar(calendar, app: DueTimeApp = APP):
    """The ResolvedCalendar of a Calendar message, through ``app``'s cache."""
    return app.calendars.resolve(WireCalendar(calendar), app.catalog.bundles)


def clock_state_from_proto(state, app: DueTimeApp = APP):
    """The core ClockState of a ClockState message and its ResolvedCalendar."""
    return _state_from_proto(state, app.answering())


def list_records(app: DueTimeApp, request):
    """The ListRecordsResponse ``app`` gives ``request``, as the server builds it."""
    return records_page(app.list_records(record_filter(request, app.limits), request.page_size,
                                         request.page_token))
