"""Test helper: the locked npm dependencies of a package in this repository.

:func:`npm_ci` runs ``npm ci --prefer-offline`` in a package directory (the
npm cache first, the registry only for what it lacks) unless its
``node_modules`` already holds exactly what ``package-lock.json`` locks: a
stamp of the lockfile's SHA-256 is written into ``node_modules`` after a
successful install, so a second run costs nothing.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
from pathlib import Path

import pytest

STAMP = ".duetime-package-lock.sha256"
"""The file in ``node_modules`` naming the lockfile it was installed from."""
INSTALL_TIMEOUT = 600.0


def npm() -> str:
    """The ``npm`` command; fails the test saying what to install when there is none."""
    found = shutil.which("npm")
    if found is None:
        pytest.fail("npm is not on PATH: install Node.js 20 or later with npm "
                    "(Debian: apt-get install nodejs npm)")
    return found


def npm_ci(directory: Path) -> None:
    """Install ``directory``'s locked dependencies into its ``node_modules``
    (``npm ci --prefer-offline``), unless the stamp says they are there;
    fails the test with npm's output when the install fails."""
    lock = hashlib.sha256((directory / "package-lock.json").read_bytes()).hexdigest()
    stamp = directory / "node_modules" / STAMP
    if stamp.is_file() and stamp.read_text().strip() == lock:
        return
    run = subprocess.run([npm(), "ci", "--prefer-offline", "--no-audit", "--no-fund"],
                         cwd=directory, capture_output=True, text=True, timeout=INSTALL_TIMEOUT)
    if run.returncode != 0:
        pytest.fail(f"npm ci in {directory} failed ({run.returncode}):\n{run.stdout}\n{run.stderr}")
    stamp.write_text(lock + "\n")
