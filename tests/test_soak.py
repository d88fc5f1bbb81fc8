"""A short soak: ``scripts/soak.py`` for 8 s with 2 client processes.

The script starts its own server on 127.0.0.1 and calls it with the whole
mix of RPCs (see its docstring). Asserted from its JSON report: every RPC of
the mix was called, no error other than the intentional bad requests (each
of the five kinds refused with its own status), no wrong answer, no ERROR
line in the server's log, exit 0 on SIGTERM, and the server's resident
memory grew by less than :data:`RSS_GROWTH_BOUND_MB` after the warm-up.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SOAK = Path(__file__).resolve().parents[1] / "scripts" / "soak.py"
RSS_GROWTH_BOUND_MB = 24.0
"""Most the server's RSS may grow in 8 s of load. What grows is bounded
(SQLite's page cache, per-calendar date caches, allocator arenas of the 8
worker threads): a 60 s run on a 2-core machine grew by about 12 MB
(bench/results/2026-11-29-soak.txt); a leak of one object per call would not
stay under it."""


def test_short_soak_has_no_unexpected_errors_and_bounded_memory(tmp_path):
    report = tmp_path / "soak.json"
    run = subprocess.run(
        [sys.executable, str(SOAK), "--duration", "8", "--clients", "2", "--warmup", "2",
         "--json", str(report)],
        capture_output=True, text=True, timeout=180)
    assert run.returncode == 0, run.stdout + run.stderr
    result = json.loads(report.read_text())
    assert result["ok"] and result["failed"] == []
    assert result["unexpected_errors"] == 0, result["unexpected"]
    assert result["wrong_answers"] == 0
    assert result["log_errors"] == []
    assert result["server_exit_code"] == 0
    calls = {row["rpc"]: row["calls"] for row in result["rpcs"]}
    assert set(calls) == {
        "ComputeDueTime (inline)", "ComputeDueTime (bundle)", "ComputeBusinessTime",
        "GetOpenStatus", "ComputeSchedule", "StartClock", "ApplyClockEvent", "GetRecord",
        "ListCalendars", "bad request"}
    assert all(count > 0 for count in calls.values()), calls
    assert sum(calls.values()) == result["calls"] > 100
    assert set(result["intentional_bad_requests"]) == {
        "bad duration", "start past 2199", "unknown record", "key reused",
        "resume a running clock"}
    assert sum(result["intentional_bad_requests"].values()) == calls["bad request"]
    assert result["rss_growth_mb"] < RSS_GROWTH_BOUND_MB, result["rss_timeline_kib"]
    assert "result: ok" in run.stdout
