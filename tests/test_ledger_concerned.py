"""The store selects the records a calendar or tz database change may concern
(``Ledger.concerned_page``: in SQL on SQLite and PostgreSQL, so that the other
records are never read) and counts a range's records (``count_records``),
alike on every store."""

from __future__ import annotations

import pytest
from duetime.ledger import Concern, LedgerRow, RecordFilter
from pg import pg_database, pg_dsn, scratch_server  # noqa: F401  (fixtures)
from test_ledger import T0, backend  # noqa: F401  (fixtures)


def row(i: int, calendar_version: str, tzdata: str = "2026a", namespace: str = "") -> LedgerRow:
    return LedgerRow.create(
        record_id=f"{i:032x}", method="/duetime.v1.DueTimeService/ComputeDueTime",
        receive_time_us=T0 + i, idempotency_key=f"k{i}", request=b"req", response=b"resp",
        calendar_version=calendar_version, rules_version="2026.1", tzdata_version=tzdata,
        namespace=namespace)


VERSIONS = [
    "hr-zagreb@aaaa",                    # 0: the old version
    "hr-zagreb@bbbb",                    # 1: the new one
    "hr-zagreb@aaaa+cal-0123456789abcdef",  # 2: the old one with extra holidays
    "cal-0123456789abcdef",              # 3: an inline calendar
    "us-ny@aaaa,hr-zagreb@aaaa",         # 4: a policy's tiers
    "HR-ZAGREB@AAAA",                    # 5: other case: not the bundle (SQLite's LIKE lets it through)
    "hr_zagreb@aaaa",                    # 6: "_" is no wildcard
    "hr-zagreb@aaaa%",                   # 7: holds the text
]


@pytest.fixture
def filled(backend):  # noqa: F811
    ledger = backend.open()
    ledger.put_many([row(i, v, tzdata="2020a" if i == 3 else "2026a",
                         namespace="team-b" if i == 7 else "")
                     for i, v in enumerate(VERSIONS)])
    return ledger


def ids(rows: list[LedgerRow]) -> list[int]:
    return [int(r.record_id, 16) for r in rows]


def test_the_store_selects_the_rows_a_change_may_concern(filled):
    old = Concern(("hr-zagreb@aaaa",))
    found = ids(filled.concerned_page(RecordFilter(), old, None, 100))
    # a superset of the rows concerned, never missing one (SQLite compares without case)
    assert [i for i in found if i != 5] == [0, 2, 4, 7]
    assert 5 not in found or filled.__class__.__name__ == "SqliteLedger"
    assert ids(filled.concerned_page(RecordFilter(), Concern((), "2026a"), None, 100)) == [3]
    assert ids(filled.concerned_page(RecordFilter(), Concern(("hr-zagreb@bbbb",), "2026a"),
                                     None, 100)) == [1, 3]
    assert filled.concerned_page(RecordFilter(), Concern(), None, 100) == []


def test_pages_of_concerned_rows_resume_after_a_position_within_the_filter(filled):
    old = Concern(("hr-zagreb@aaaa",))
    first = filled.concerned_page(RecordFilter(), old, None, 2)
    assert ids(first) == [0, 2]
    after = (first[-1].receive_time_us, first[-1].record_id)
    assert [i for i in ids(filled.concerned_page(RecordFilter(), old, after, 2)) if i != 5][:1] == [4]
    assert ids(filled.concerned_page(RecordFilter(since_us=T0 + 1, until_us=T0 + 5), old, None, 10)) == [2, 4]
    assert ids(filled.concerned_page(RecordFilter(namespace="team-b"), old, None, 10)) == [7]


def test_the_store_counts_a_range_s_rows(filled):
    assert filled.count_records(RecordFilter()) == 8
    assert filled.count_records(RecordFilter(namespace="")) == 7
    assert filled.count_records(RecordFilter(), (T0 + 2, f"{2:032x}")) == 3
    assert filled.count_records(RecordFilter(since_us=T0 + 1), (T0 + 4, f"{4:032x}")) == 4
    assert filled.count_records(RecordFilter(until_us=T0)) == 0
