"""The TypeScript Temporal example (examples/temporal-ts): its Node tests, run
against a real Temporal dev server and a real duetime server started here.

The Temporal server is ``$DUETIME_TEMPORAL_ADDRESS`` when set (``.ci/run``
starts one), else a dev server started by ``test_temporal``'s fixture. duetime
serves a copy of ``calendars/`` with the example's test policy
(``examples/temporal-ts/test/ticket-sla-test.toml``: seconds-long targets on
the always-open calendar, warnings at 50% and 1 s left) compiled into it.
The TypeScript client and the example are installed from their lockfiles
(tests/npm_ci.py: ``npm ci --prefer-offline``, skipped when ``node_modules``
already holds them; the example links ``@duetime/client`` to
``clients/typescript``) and the example's tests run with Node's test runner
(``npm test``): warnings and breaches at their instants, in order, once each;
a tier change that cancels the timer; a worker process stopped mid-history and
another one carrying on; continue-as-new keeping the absolute instants.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from npm_ci import npm, npm_ci
from server_process import ServerProcess
from test_temporal import temporal_address  # noqa: F401  (the fixture)

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "temporal-ts"
POLICY = "ticket-sla-test"
CLIENT = ROOT / "clients" / "typescript"
TEST_SECONDS = 180
TESTS = 8
"""How many Node tests test/ holds: all of them must run and pass."""


@pytest.fixture(scope="module")
def duetime_with_test_policy(tmp_path_factory):
    """A duetime server whose calendars hold the example's test policy."""
    root = tmp_path_factory.mktemp("calendars") / "calendars"
    shutil.copytree(ROOT / "calendars", root)
    shutil.copy(EXAMPLE / "test" / f"{POLICY}.toml", root / "policies")
    compiled = subprocess.run(
        [sys.executable, "-m", "duetime", "calendars", "compile", "--dir", str(root)],
        capture_output=True, text=True, timeout=120)
    assert compiled.returncode == 0, compiled.stdout + compiled.stderr
    assert f"policy {POLICY}@" in compiled.stdout, compiled.stdout
    running = ServerProcess(tmp_path_factory.mktemp("duetime") / "ledger.db", root)
    try:
        yield running
    finally:
        running.kill()


def test_the_typescript_sla_workflow(temporal_address, duetime_with_test_policy):  # noqa: F811
    npm_ci(CLIENT)  # the example links @duetime/client, whose own dependencies live here
    npm_ci(EXAMPLE)
    env = {**os.environ,
           "DUETIME_TEMPORAL_ADDRESS": temporal_address,
           "DUETIME_ADDRESS": duetime_with_test_policy.address,
           "DUETIME_SLA_POLICY": POLICY}
    tested = subprocess.run([npm(), "test"], cwd=EXAMPLE, env=env, capture_output=True, text=True,
                            timeout=TEST_SECONDS, stdin=subprocess.DEVNULL)
    output = tested.stdout + tested.stderr
    assert tested.returncode == 0, f"the Node tests failed:\n{output}"
    passed = re.search(r"^# pass (\d+)$", tested.stdout, re.MULTILINE)
    failed = re.search(r"^# fail (\d+)$", tested.stdout, re.MULTILINE)
    assert passed and failed, f"no node --test summary:\n{output}"
    assert (int(passed[1]), int(failed[1])) == (TESTS, 0), output
