"""``python -m duetime …`` and the ``duetime`` command: the CLI (see
:mod:`duetime.cli`), after quieting gRPC's C core.

gRPC's C core writes its own diagnostics straight to stderr — a failed TLS
handshake from any client is an INFO line — and reads ``GRPC_VERBOSITY``
once, when :mod:`grpc` is first imported. Unless the variable is set, the
command keeps errors only, and none at all for ``serve`` with JSON logs
(``--log-format json`` or ``DUETIME_LOG_FORMAT=json``), where every line must
be one JSON object (the server reports a failed bind itself).
"""

from __future__ import annotations

import os
import sys


def _json_logs(argv: list[str]) -> bool:
    """Whether ``argv`` runs ``serve`` with JSON logs (flag over variable)."""
    if "serve" not in argv:
        return False
    chosen = os.environ.get("DUETIME_LOG_FORMAT", "")
    for i, arg in enumerate(argv):
        if arg == "--log-format" and i + 1 < len(argv):
            chosen = argv[i + 1]
        elif arg.startswith("--log-format="):
            chosen = arg.partition("=")[2]
    return chosen.strip().lower() == "json"


def main(argv: list[str] | None = None) -> int:
    """Set ``GRPC_VERBOSITY`` (unless set) and run :func:`duetime.cli.main`."""
    args = sys.argv[1:] if argv is None else argv
    os.environ.setdefault("GRPC_VERBOSITY", "NONE" if _json_logs(args) else "ERROR")
    from duetime.cli import main as cli_main

    return cli_main(argv)


if __name__ == "__main__":
    raise SystemExit(main())
