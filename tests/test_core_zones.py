"""The integer offset tables agree exactly with zoneinfo (docs/semantics.md §1 rule)."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from duetime.core.durations import DAY, MINUTE, SECOND
from duetime.core.zones import (
    MAX_ORDINAL,
    MIN_ORDINAL,
    _offset_zoneinfo,
    get_zone,
    local_us_of,
    offset_us,
    resolve,
    resolve_zoneinfo,
    table,
)

ZONES = ["Europe/Zagreb", "America/New_York", "Australia/Lord_Howe", "Pacific/Apia", "America/Santiago",
         "Asia/Jerusalem", "Asia/Kolkata", "Europe/Dublin", "Africa/Casablanca", "America/St_Johns", "Europe/Amsterdam"]


@st.composite
def wall_times(draw):
    zone = get_zone(draw(st.sampled_from(ZONES)))
    year = draw(st.integers(1900, 2199))
    trans = table(zone).transitions(local_us_of(MIN_ORDINAL, 0) + (year - 1900) * 365 * DAY,
                                    local_us_of(MIN_ORDINAL, 0) + (year - 1899) * 365 * DAY)
    if trans and draw(st.booleans()):  # near a transition, in wall terms
        t = draw(st.sampled_from(trans))
        local = t + offset_us(zone, t) + draw(st.integers(-180, 180)) * MINUTE + draw(st.sampled_from([0, SECOND, 1]))
    else:
        local = local_us_of(draw(st.integers(MIN_ORDINAL + 2, MAX_ORDINAL - 2)), draw(st.integers(0, DAY - 1)))
    return zone, local


@settings(max_examples=400)
@given(wall_times())
def test_table_resolution_equals_zoneinfo_fold0(case):
    zone, local = case
    o, rest = divmod(local, DAY)
    o += 719163
    assert resolve(zone, o, rest) == resolve_zoneinfo(zone, o, rest)


@settings(max_examples=400)
@given(wall_times())
def test_table_offsets_equal_zoneinfo(case):
    zone, local = case
    for instant in (local, local - 1, local + 1):
        assert offset_us(zone, instant) == _offset_zoneinfo(zone, instant)


def test_every_wall_time_near_the_transitions_resolves_as_zoneinfo_does():
    """Around every transition of 11 zones in 1901, 1950, 1990, 2026, 2100 and
    2199 (zones whose DST moves by 30 minutes, by an hour, both ways, a whole
    day in Apia), the wall times at the gap's and the fold's edges (±1 µs)
    and every 5 minutes within 3 hours resolve as zoneinfo (fold=0) does:
    the table's path for a day with one transition near."""
    checked = 0
    for name in ZONES:
        zone = get_zone(name)
        for year in (1901, 1950, 1990, 2026, 2100, 2199):
            start = local_us_of(MIN_ORDINAL, 0) + (year - 1900) * 365 * DAY
            for t in table(zone).transitions(start, start + 365 * DAY):
                before, after = offset_us(zone, t - 1), offset_us(zone, t)
                edges = {t + before, t + after}
                walls = {e + d for e in edges for d in (-1, 0, 1)}
                walls |= {t + before + m * MINUTE for m in range(-180, 181, 5)}
                for local in walls:
                    o, rest = divmod(local, DAY)
                    o += 719163
                    assert resolve(zone, o, rest) == resolve_zoneinfo(zone, o, rest), (name, local)
                    checked += 1
    assert checked > 5_000
