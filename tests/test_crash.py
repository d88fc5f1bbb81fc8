"""Crash test on both stores: a server SIGKILLed under load at random
moments loses nothing it answered (scripts/crash_test.py; CI runs 3 kills a
store with 300 calls each, the script runs 10 with 2,000)."""

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path

import pytest
from pg import pg_database  # noqa: F401  (fixture)

_SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "crash_test.py"
KILLS = 3
CALLS = 300


def crash_test():
    if "crash_test" not in sys.modules:
        spec = importlib.util.spec_from_file_location("crash_test", _SCRIPT)
        module = importlib.util.module_from_spec(spec)
        sys.modules["crash_test"] = module
        spec.loader.exec_module(module)
    return sys.modules["crash_test"]


@pytest.mark.parametrize("store", ["sqlite", "postgres"])
def test_sigkill_under_load_loses_no_answered_call(store, tmp_path, request):
    db = str(tmp_path / "ledger.db") if store == "sqlite" else request.getfixturevalue("pg_database")
    rng = random.Random(f"crash-{store}")  # reproducible kill moments
    for _ in range(KILLS):
        result = crash_test().crash_round(store, db, CALLS, threads=8, rng=rng)
        print(result.line())
        assert result.ok, result.line()
        assert result.answered >= result.kill_at > 0
