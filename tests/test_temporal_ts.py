"""The TypeScript Temporal example (examples/temporal-ts): its Node tests, run
against a real Temporal dev server and a real duetime server started here.

The Temporal server is ``$DUETIME_TEMPORAL_ADDRESS`` when set (``.ci/run``
starts one), else a dev server started by ``test_temporal``'s fixture. duetime
serves a copy of ``calendars/`` with the example's test policy
(``examples/temporal-ts/test/ticket-sla-test.toml``: seconds-long targets on
the always-open calendar, warnings at 50% and 1 s left) compiled into it.
The example is installed from its lockfile (``npm ci``, from the npm cache
when it holds every package) and its tests run with Node's test runner
(``npm test``): warnings and breaches at their instants, in order, once each;
a tier change that cancels the timer; a worker process stopped mid-history and
another one carrying on; continue-as-new keeping the absolute instants.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from server_process import ServerProcess
from test_temporal import temporal_address  # noqa: F401  (the fixture)

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "temporal-ts"
POLICY = "ticket-sla-test"
INSTALL_SECONDS = 300
TEST_SECONDS = 180


def _npm() -> str:
    npm = shutil.which("npm")
    if npm is None:
        pytest.fail("npm is not installed: the TypeScript example needs Node.js ≥ 20 and npm "
                    "(apt-get install nodejs npm)")
    return npm


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


def _run(command: list[str], timeout: float, env: dict[str, str] | None = None):
    return subprocess.run(command, cwd=EXAMPLE, capture_output=True, text=True, timeout=timeout,
                          env=env, stdin=subprocess.DEVNULL)


def test_the_typescript_sla_workflow(temporal_address, duetime_with_test_policy):  # noqa: F811
    npm = _npm()
    installed = _run([npm, "ci", "--prefer-offline", "--no-audit", "--no-fund"], INSTALL_SECONDS)
    assert installed.returncode == 0, f"npm ci failed:\n{installed.stdout}\n{installed.stderr}"
    env = {**os.environ,
           "DUETIME_TEMPORAL_ADDRESS": temporal_address,
           "DUETIME_ADDRESS": duetime_with_test_policy.address,
           "DUETIME_SLA_POLICY": POLICY}
    tested = _run([npm, "test"], TEST_SECONDS, env)
    output = tested.stdout + tested.stderr
    assert tested.returncode == 0, f"the Node tests failed:\n{output}"
    assert "# pass 5" in output and "# fail 0" in output, output
