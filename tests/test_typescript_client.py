"""The TypeScript client (clients/typescript, ``@duetime/client``): its
``node --test`` suite, run with ``npm test`` against real ``duetime serve``
processes it starts itself (every RPC, errors, idempotent retries, tokens,
TLS, and the committed generated code), and the README's "From TypeScript"
example run as written against a server started here.

The package's locked dependencies are installed first with ``npm ci
--prefer-offline`` (tests/npm_ci.py; skipped when ``node_modules`` already
holds them).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from npm_ci import npm, npm_ci
from server_process import ServerProcess

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "clients" / "typescript"
README = ROOT / "README.md"
TEST_TIMEOUT = 600.0


def _output(run: subprocess.CompletedProcess) -> str:
    text = run.stdout + run.stderr
    return text if len(text) < 30_000 else "…" + text[-30_000:]


def test_node_test_suite_passes() -> None:
    npm_ci(PACKAGE)
    env = {**os.environ, "DUETIME_PYTHON": sys.executable}
    run = subprocess.run([npm(), "test"], cwd=PACKAGE, env=env, capture_output=True, text=True,
                         timeout=TEST_TIMEOUT)
    assert run.returncode == 0, f"npm test failed ({run.returncode}):\n{_output(run)}"
    passed = re.search(r"^# pass (\d+)$", run.stdout, re.MULTILINE)
    failed = re.search(r"^# fail (\d+)$", run.stdout, re.MULTILINE)
    assert passed and failed, f"no node --test summary:\n{_output(run)}"
    assert int(failed[1]) == 0
    assert int(passed[1]) >= 40, f"fewer tests than written ran:\n{_output(run)}"


def _readme_example() -> str:
    """The TypeScript block of the README's "From TypeScript" section."""
    section = README.read_text().split("## From TypeScript", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```ts\n(.*?)```", section, re.DOTALL)
    assert blocks, "README.md: no ```ts block under \"From TypeScript\""
    return blocks[0]


def test_readme_example_runs_as_written(tmp_path: Path) -> None:
    npm_ci(PACKAGE)
    example = _readme_example()
    assert '"127.0.0.1:50051"' in example
    server = ServerProcess(tmp_path / "ledger.db")
    try:
        script = PACKAGE / "build" / "readme-example.mjs"
        script.parent.mkdir(exist_ok=True)
        script.write_text(example.replace('"127.0.0.1:50051"', f'"{server.address}"'))
        run = subprocess.run(["node", str(script)], cwd=PACKAGE, capture_output=True, text=True,
                             timeout=60)
    finally:
        server.terminate()
    assert run.returncode == 0, _output(run)
    assert run.stdout.splitlines() == ["2026-12-02T16:00:00+01:00", "2026-12-02T15:00:00.000Z"]
