"""The modules of the service import one another without a cycle: the
context of a call is a leaf, which operations, search and watch all import."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

SERVICE_DIR = Path(__file__).resolve().parents[2] / "src" / "memorywire" / "service"


def _imports(path: Path) -> set[str]:
    """The modules of memorywire.service that a file imports, anywhere in it
    (within functions and under TYPE_CHECKING too)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if module == "memorywire.service":
                found |= {a.name for a in node.names}
            elif module.startswith("memorywire.service."):
                found.add(module.split(".")[2])
        elif isinstance(node, ast.Import):
            found |= {a.name.split(".")[2] for a in node.names if a.name.startswith("memorywire.service.")}
    return found


def test_the_modules_of_the_service_import_one_another_without_a_cycle() -> None:
    graph = {p.stem: _imports(p) for p in SERVICE_DIR.glob("*.py") if p.stem != "__init__"}
    assert graph["context"] == set() and graph["registry"] == set()
    for module in ("search", "watch"):
        assert "operations" not in graph[module] and "context" in graph[module]
    done: set[str] = set()

    def visit(module: str, path: tuple[str, ...]) -> None:
        assert module not in path, " -> ".join((*path, module))
        if module in done:
            return
        for dep in sorted(graph.get(module, ())):
            visit(dep, (*path, module))
        done.add(module)

    for module in sorted(graph):
        visit(module, ())


@pytest.mark.parametrize("module", ["context", "registry", "operations", "search", "watch"])
def test_each_module_imports_alone(module: str) -> None:
    done = subprocess.run([sys.executable, "-c", f"import memorywire.service.{module}"],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
