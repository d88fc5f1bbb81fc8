"""Generate (or check) the committed Python gRPC stubs for duetime's protos.

Usage, from anywhere::

    python scripts/gen_protos.py           # regenerate service/duetime/v1/*
    python scripts/gen_protos.py --check   # exit 1 if the committed stubs are stale

It runs ``grpc_tools.protoc -Iproto -I<grpc_tools bundled protos>
--python_out=service --pyi_out=service --grpc_python_out=service
proto/duetime/v1/duetime.proto`` from the repository root, producing
``service/duetime/v1/duetime_pb2.py``, ``duetime_pb2.pyi`` and
``duetime_pb2_grpc.py``. ``--check`` generates into a temporary directory and
compares byte for byte, so the result depends on the installed grpcio-tools
version (the generated files name it).

``proto/google/rpc/status.proto``, ``proto/google/api/annotations.proto`` and
``proto/google/api/http.proto`` are googleapis' files, vendored unchanged so
that protoc and ``buf lint`` (which ignores ``proto/google``) resolve the
imports offline; no stubs are generated for them: the generated code imports
``google.rpc.status_pb2`` and ``google.api.annotations_pb2`` from the
googleapis-common-protos package.

Exit codes: 0 success / up to date, 1 stale stubs (``--check``), 2 protoc error.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from importlib import resources
from pathlib import Path

from grpc_tools import protoc

ROOT = Path(__file__).resolve().parent.parent
PROTO_ROOT = ROOT / "proto"
PROTOS = ["duetime/v1/duetime.proto"]
OUT_ROOT = ROOT / "service"
GENERATED = [
    "duetime/v1/duetime_pb2.py",
    "duetime/v1/duetime_pb2.pyi",
    "duetime/v1/duetime_pb2_grpc.py",
]


def generate(out_dir: Path) -> None:
    """Run protoc for every proto in PROTOS, writing stubs under ``out_dir``.

    Raises SystemExit(2) if protoc reports an error.
    """
    bundled = resources.files("grpc_tools") / "_proto"
    args = [
        "grpc_tools.protoc",
        f"-I{PROTO_ROOT}",
        f"-I{bundled}",  # google/protobuf/*
        f"--python_out={out_dir}",
        f"--pyi_out={out_dir}",
        f"--grpc_python_out={out_dir}",
        *(str(PROTO_ROOT / p) for p in PROTOS),
    ]
    if protoc.main(args) != 0:
        raise SystemExit(2)


def stale_files() -> list[str]:
    """Return the GENERATED paths whose committed content differs from a fresh run."""
    with tempfile.TemporaryDirectory() as tmp:
        generate(Path(tmp))
        return [
            rel
            for rel in GENERATED
            if not (OUT_ROOT / rel).is_file()
            or (OUT_ROOT / rel).read_bytes() != (Path(tmp) / rel).read_bytes()
        ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--check", action="store_true", help="fail if the committed stubs are stale"
    )
    args = parser.parse_args(argv)
    if not args.check:
        generate(OUT_ROOT)
        return 0
    stale = stale_files()
    for rel in stale:
        print(f"stale generated stub: service/{rel} (run python scripts/gen_protos.py)",
              file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
