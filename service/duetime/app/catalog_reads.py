"""CalendarService's reads: which bundles there are, one bundle's content, a calendar's holidays.

Read-only and unrecorded, over the catalog the app answers from.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from duetime.app.answers import check_holiday_range, holidays_between
from duetime.app.calendars import CalendarRequest, CalendarResolver
from duetime.app.limits import DEFAULT_LIMITS, Limits, check_length
from duetime.bundles import Bundle, BundleStore
from duetime.core import Holiday, InvalidArgument


@dataclass(frozen=True)
class CalendarInfo:
    """A bundle by name: its versions (oldest first) and the one ``shown``
    (whose description, zone and years are given)."""

    name: str
    versions: tuple[Bundle, ...]
    shown: Bundle


@dataclass(frozen=True)
class HolidayList:
    """The holidays of a calendar in a date range, the calendar's version and
    the warnings of that range."""

    holidays: list[Holiday]
    calendar_version: str
    warnings: tuple[str, ...]


def calendar_info(bundles: BundleStore, name: str, shown: Bundle | None = None) -> CalendarInfo:
    """Bundle ``name`` of ``bundles``, showing ``shown`` (default: the newest version)."""
    versions = tuple(bundles.versions(name))
    return CalendarInfo(name, versions, shown or versions[-1])


def bundle_listing(bundles: BundleStore) -> list[CalendarInfo]:
    """Every bundle of ``bundles``, by name."""
    return [calendar_info(bundles, name) for name in bundles.names()]


def bundle_named(ref: str, bundles: BundleStore, limits: Limits = DEFAULT_LIMITS) -> Bundle:
    """One bundle version (``name`` or ``name@version``). Raises
    InvalidArgument / BundleNotFound on ``name``."""
    if not ref:
        raise InvalidArgument.at("name", "is required: a bundle name, or name@version")
    check_length(ref, "name", limits.max_bundle_ref)
    return bundles.resolve(ref, field="name")


def holidays_of(first: date, last: date, cal: CalendarRequest, bundles: BundleStore,
                resolver: CalendarResolver) -> HolidayList:
    """The holidays of ``cal`` from ``first`` to ``last`` inclusive. Raises
    InvalidArgument (reversed dates, a range too long, a bad calendar) or
    OutOfRange (the calendar's holiday horizon or a bundle's years)."""
    check_holiday_range(first, last, resolver.limits)
    resolved = resolver.resolve(cal, bundles)
    holidays, warnings = holidays_between(first, last, resolved)
    return HolidayList(holidays, resolved.version, warnings)
