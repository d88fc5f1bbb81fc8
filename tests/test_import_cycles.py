"""No import cycles in ``service/duetime``, lazy imports included.

Every ``import`` statement of a duetime module counts, wherever it stands: at
the top of a module, inside a function (a lazy import that dodges a cycle at
load time is the same cycle in hiding) or under ``if TYPE_CHECKING``. Two
modules that need each other are one module, or one of them holds what both
need (docs/architecture.md draws the layers this keeps).
"""

from __future__ import annotations

import ast
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[1] / "service"
PACKAGE = ROOT / "duetime"


def module_name(path: pathlib.Path, root: pathlib.Path = ROOT) -> str:
    """``duetime.api.server`` for service/duetime/api/server.py; a package's
    ``__init__.py`` is the package itself."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_modules(path: pathlib.Path, modules: set[str], root: pathlib.Path = ROOT) -> dict[str, int]:
    """The modules of ``modules`` that ``path`` imports, each with the line of
    its first import. ``from P import N`` imports the module ``P.N`` when that
    is a module, else ``P``; relative imports are resolved against ``path``."""
    name = module_name(path, root)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: dict[str, int] = {}

    def add(target: str, line: int) -> None:
        if target in modules and target != name:
            found.setdefault(target, line)

    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name, node.lineno)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            for alias in node.names:
                submodule = f"{source}.{alias.name}"
                add(submodule if submodule in modules else source, node.lineno)
    return found


def import_graph(root: pathlib.Path = ROOT, package: pathlib.Path = PACKAGE) -> dict[str, dict[str, int]]:
    """Module → {imported module: line} over every hand-written module of
    ``package`` (generated protobuf code under ``v1/`` is left out)."""
    paths = {module_name(p, root): p for p in sorted(package.rglob("*.py"))
             if not p.name.endswith(("_pb2.py", "_pb2_grpc.py"))}
    modules = set(paths)
    return {m: imported_modules(p, modules, root) for m, p in paths.items()}


def cycles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """Every strongly connected set of two or more modules (Tarjan), each
    sorted, as a list of sorted lists."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(found)


def describe(component: list[str], graph: dict[str, dict[str, int]]) -> str:
    members = set(component)
    edges = [f"{a} imports {b} (line {line})" for a in component
             for b, line in sorted(graph[a].items()) if b in members]
    return "; ".join(edges)


def test_service_has_no_import_cycles():
    graph = import_graph()
    assert len(graph) >= 30, sorted(graph)
    # the walk sees the imports: the gRPC server reaches the app through the calls table
    assert "duetime.api.calls" in graph["duetime.api.server"]
    assert "duetime.app" in graph["duetime.api.calls"]
    problems = [describe(c, graph) for c in cycles(graph)]
    assert problems == []


def test_the_walk_finds_lazy_relative_and_package_cycles(tmp_path):
    pkg = tmp_path / "duetime"
    (pkg / "api").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "api" / "__init__.py").write_text("")
    # a lazy import inside a function closes the cycle server -> http -> server
    (pkg / "api" / "server.py").write_text("def start():\n    from duetime.api.http import run\n")
    (pkg / "api" / "http.py").write_text("from .server import start\n")
    # a package whose submodule imports the package itself
    (pkg / "ledger").mkdir()
    (pkg / "ledger" / "__init__.py").write_text("from duetime.ledger import sqlite\n")
    (pkg / "ledger" / "sqlite.py").write_text("from duetime.ledger import Ledger\n")
    # no cycle: a one-way chain
    (pkg / "a.py").write_text("import duetime.b\n")
    (pkg / "b.py").write_text("x = 1\n")
    graph = import_graph(tmp_path, pkg)
    assert graph["duetime.api.server"] == {"duetime.api.http": 2}
    assert graph["duetime.api.http"] == {"duetime.api.server": 1}
    assert cycles(graph) == [["duetime.api.http", "duetime.api.server"],
                             ["duetime.ledger", "duetime.ledger.sqlite"]]
    assert describe(["duetime.api.http", "duetime.api.server"], graph) == (
        "duetime.api.http imports duetime.api.server (line 1); "
        "duetime.api.server imports duetime.api.http (line 2)")


def third_party_imports(path: pathlib.Path) -> set[str]:
    """Top-level names of every non-duetime module ``path`` imports."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names.add(node.module.split(".")[0])
    return names - {"duetime"}


def test_layers():
    """docs/architecture.md's rules: each layer imports only the layers below it."""
    graph = import_graph()
    allowed = {
        "duetime.core": ("duetime.core",),
        "duetime.ledger": ("duetime.ledger", "duetime.core"),
        "duetime.bundles": ("duetime.bundles", "duetime.core"),
        "duetime.app": ("duetime.app", "duetime.core", "duetime.ledger", "duetime.bundles",
                        "duetime.catalog"),
        "duetime.client": ("duetime.channels", "duetime.parsing", "duetime.v1"),
        "duetime.parsing": (),
    }
    problems = []
    for module, imports in sorted(graph.items()):
        for layer, may in allowed.items():
            if module == layer or module.startswith(layer + "."):
                problems += [f"{module} imports {m} (line {line})" for m, line in imports.items()
                             if not any(m == ok or m.startswith(ok + ".") for ok in may)]
    for path in sorted((PACKAGE / "app").glob("*.py")):
        problems += [f"app/{path.name} imports {name}" for name in
                     sorted(third_party_imports(path) & {"google", "grpc", "starlette"})]
    assert problems == []
