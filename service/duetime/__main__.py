"""``python -m duetime …`` runs the CLI (see :mod:`duetime.cli`)."""

from duetime.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
