"""The arithmetic core stays pure: no gRPC, storage, network, files or clock."""

from __future__ import annotations

import ast
import pathlib

CORE = pathlib.Path(__file__).resolve().parents[1] / "service" / "duetime" / "core"
FORBIDDEN_MODULES = {"grpc", "sqlite3", "psycopg", "socket", "os", "io", "pathlib", "time", "random", "subprocess", "google"}
FORBIDDEN_CALLS = {"open", "now", "utcnow", "today", "monotonic", "perf_counter", "time_ns"}


def test_core_imports_and_calls_nothing_impure():
    problems = []
    files = sorted(CORE.glob("*.py"))
    assert len(files) >= 5
    for path in files:
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            else:
                names = []
            for n in names:
                if n.split(".")[0] in FORBIDDEN_MODULES:
                    problems.append(f"{path.name}:{node.lineno} imports {n}")
            if isinstance(node, ast.Call):
                f = node.func
                name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
                if name in FORBIDDEN_CALLS:
                    problems.append(f"{path.name}:{node.lineno} calls {name}()")
    assert problems == []
