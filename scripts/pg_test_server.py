#!/usr/bin/env python3
"""A throwaway PostgreSQL server for the ledger tests (loopback only).

    eval "$(python3 scripts/pg_test_server.py start)"   # exports the two variables below
    ...                                                # tests use $DUETIME_TEST_PG_DSN
    eval "$DUETIME_TEST_PG_STOP"                       # stops it and deletes its files

``start`` runs ``initdb`` in a fresh temporary directory and starts the
server on 127.0.0.1 at a free port (``--port`` to choose one), with its Unix
socket in that directory, trust authentication and ``fsync=off`` (test data
is disposable). It prints two shell ``export`` lines: ``DUETIME_TEST_PG_DSN``
(``postgresql://duetime@127.0.0.1:PORT/postgres``; ``duetime`` is a superuser)
and ``DUETIME_TEST_PG_STOP`` (the command that stops it). ``stop DIR`` stops
the server of that directory (``pg_ctl stop -m immediate``) and deletes DIR.

The binaries are taken from ``/usr/lib/postgresql/<newest>/bin`` or PATH;
when there are none and this runs as root, ``apt-get install -y postgresql``
installs them. PostgreSQL refuses to run as root, so as root the server runs
as the ``postgres`` OS user (``runuser -u postgres --``), which the package
creates. Exit status 1 with a message on stderr if no server could be started.

``tests/pg.py`` imports this file and uses :class:`PgServer` directly.
"""

from __future__ import annotations

import argparse
import glob
import os
import pwd
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

SUPERUSER = "duetime"


class PgUnavailable(RuntimeError):
    """No PostgreSQL server could be installed, initialised or started."""


def _version_key(path: str) -> tuple:
    name = Path(path).parent.parent.name  # /usr/lib/postgresql/<version>/bin/initdb
    return tuple(int(p) if p.isdigit() else 0 for p in name.split("."))


def find_bindir() -> Path | None:
    """The newest PostgreSQL server bin directory, or None."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=_version_key)
    if found:
        return Path(found[-1]).parent
    on_path = shutil.which("initdb")
    if on_path and Path(on_path).resolve().with_name("pg_ctl").exists():
        return Path(on_path).resolve().parent
    return None


def ensure_bindir() -> Path:
    """:func:`find_bindir`, installing the ``postgresql`` package if needed (root only)."""
    bindir = find_bindir()
    if bindir:
        return bindir
    if os.geteuid() != 0 or not shutil.which("apt-get"):
        raise PgUnavailable(
            "PostgreSQL server binaries (initdb, pg_ctl) not found; "
            "install them with `apt-get install -y postgresql`"
        )
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    print("pg_test_server: installing postgresql with apt-get", file=sys.stderr)
    for cmd in (["apt-get", "update"], ["apt-get", "install", "-y", "--no-install-recommends", "postgresql"]):
        done = subprocess.run(cmd, env=env, stdout=sys.stderr, stderr=sys.stderr)
        if done.returncode:
            raise PgUnavailable(f"`{' '.join(cmd)}` failed with exit status {done.returncode}")
    bindir = find_bindir()
    if not bindir:
        raise PgUnavailable("apt-get installed postgresql but no initdb was found")
    return bindir


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class PgServer:
    """One PostgreSQL cluster in ``base`` (``base/data``, log ``base/server.log``)."""

    def __init__(self, base: Path, port: int, bindir: Path):
        self.base, self.port, self.bindir = Path(base), port, Path(bindir)
        self.data = self.base / "data"
        self.log = self.base / "server.log"

    @property
    def dsn(self) -> str:
        """Superuser URL of the ``postgres`` database."""
        return f"postgresql://{SUPERUSER}@127.0.0.1:{self.port}/postgres"

    @staticmethod
    def _run_as() -> list[str]:
        """The command prefix to run server binaries as a non-root user."""
        if os.geteuid() != 0:
            return []
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            raise PgUnavailable("running as root and there is no `postgres` OS user to run the server as") from None
        runuser = shutil.which("runuser")
        if not runuser:
            raise PgUnavailable("running as root and `runuser` is missing")
        return [runuser, "-u", "postgres", "--"]

    def _pg(self, tool: str, *args: str, timeout: float = 60) -> None:
        cmd = [*self._run_as(), str(self.bindir / tool), *args]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        if done.returncode:
            log = self.log.read_text(errors="replace")[-2000:] if self.log.exists() else ""
            raise PgUnavailable(
                f"{tool} failed ({done.returncode}): {done.stderr.strip() or done.stdout.strip()}\n{log}".strip()
            )

    @classmethod
    def create(cls, port: int | None = None, base: str | os.PathLike[str] | None = None) -> PgServer:
        """initdb a new cluster in a new temporary directory (or ``base``) and start it."""
        bindir = ensure_bindir()
        run_as = cls._run_as()
        base = Path(base) if base else Path(tempfile.mkdtemp(prefix="duetime-pg-"))
        base.mkdir(parents=True, exist_ok=True)
        if run_as:
            entry = pwd.getpwnam("postgres")
            os.chown(base, entry.pw_uid, entry.pw_gid)
        server = cls(base, port or free_port(), bindir)
        try:
            server._pg(
                "initdb", "-D", str(server.data), "-U", SUPERUSER, "--auth=trust",
                "-E", "UTF8", "--locale=C", "--no-sync",
            )
            for attempt in range(3):
                try:
                    server.start()
                    break
                except PgUnavailable:
                    if port or attempt == 2:  # a chosen port, or out of tries
                        raise
                    server.port = free_port()  # the free port was taken meanwhile
        except BaseException:
            shutil.rmtree(base, ignore_errors=True)
            raise
        return server

    def start(self) -> None:
        """Start (again) the cluster on 127.0.0.1:``port``; wait until it accepts connections."""
        options = " ".join([
            "-c listen_addresses=127.0.0.1", f"-c port={self.port}",
            f"-c unix_socket_directories={self.base}", "-c fsync=off",
            "-c max_connections=300", "-c shared_buffers=32MB",
        ])
        self._pg("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-w", "-t", "60", "-o", options, "start")

    def stop(self, mode: str = "immediate") -> None:
        """Stop the cluster (``pg_ctl stop -m mode``); it can be started again."""
        self._pg("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop")

    def destroy(self) -> None:
        """Stop the cluster if it runs and delete its directory."""
        if (self.data / "postmaster.pid").exists():
            try:
                self.stop()
            except (PgUnavailable, subprocess.TimeoutExpired):
                pass
        shutil.rmtree(self.base, ignore_errors=True)


def stop_dir(base: str) -> None:
    """Stop the server whose directory is ``base`` and delete it."""
    bindir = find_bindir()
    if bindir is None:
        shutil.rmtree(base, ignore_errors=True)
        return
    PgServer(Path(base), 0, bindir).destroy()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    start = sub.add_parser("start", help="start a server; print shell export lines")
    start.add_argument("--port", type=int, help="TCP port on 127.0.0.1 (default: a free one)")
    start.add_argument("--dir", help="directory for the cluster (default: a new temporary one)")
    stop = sub.add_parser("stop", help="stop the server of DIR and delete DIR")
    stop.add_argument("dir")
    args = parser.parse_args(argv)
    if args.command == "stop":
        stop_dir(args.dir)
        return 0
    try:
        server = PgServer.create(args.port, args.dir)
    except (PgUnavailable, OSError, subprocess.SubprocessError) as exc:
        print(f"pg_test_server: cannot start PostgreSQL: {exc}", file=sys.stderr)
        return 1
    stop_cmd = shlex.join([sys.executable, os.path.abspath(__file__), "stop", str(server.base)])
    print(f"export DUETIME_TEST_PG_DSN={shlex.quote(server.dsn)}")
    print(f"export DUETIME_TEST_PG_STOP={shlex.quote(stop_cmd)}")
    print(f"pg_test_server: PostgreSQL on {server.dsn} in {server.base}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
