"""The storage interface (storage.py): the SQLite and PostgreSQL stores
implement it, and no query crosses it: above the stores, no module of the
service imports sqlite3 or psycopg, runs a statement or reaches for a
store's connection."""

from __future__ import annotations

import ast
from pathlib import Path

from memorywire.service import storage
from memorywire.service.storage import Reads, Selection, Storage, Transaction
from memorywire.service.store import Reader, Store, WriteTx

SERVICE = Path(storage.__file__).resolve().parent
#: The stores. (The in-memory indexes take the rows their store gives.)
BELOW = {"store.py", "postgres.py", "stores_common.py"}
#: The methods of a database connection or cursor that run statements.
STATEMENTS = {"execute", "executemany", "executescript", "fetchone", "fetchall", "fetchmany", "cursor"}


def _above() -> list[Path]:
    return sorted(p for p in SERVICE.rglob("*.py") if p.relative_to(SERVICE).as_posix() not in BELOW)


def _missing(protocol: type, obj: object) -> list[str]:
    names = {n for n in dir(protocol) if not n.startswith("_")} | set(protocol.__annotations__)
    return sorted(n for n in names if not hasattr(obj, n))


def test_the_sqlite_store_implements_the_interface() -> None:
    store = Store(":memory:")
    try:
        assert isinstance(store, Storage)
        assert _missing(Storage, store) == []
        with store.reader() as reads:
            assert isinstance(reads, Reader) and _missing(Reads, reads) == []
        with store.write() as tx:
            assert isinstance(tx, WriteTx) and _missing(Transaction, tx) == []
            tx.abandon = True
    finally:
        store.close()


def test_no_sql_above_the_store() -> None:
    modules = _above()
    names = {p.relative_to(SERVICE).as_posix() for p in modules}
    assert {"operations/put.py", "search.py", "watch.py", "storage.py"} <= names
    found = []
    for path in modules:
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            else:
                names = []
            for name in names:
                if name.split(".")[0] in ("sqlite3", "psycopg", "psycopg_pool"):
                    found.append(f"{path.relative_to(SERVICE)}:{node.lineno} imports {name}")
            if isinstance(node, ast.Attribute) and node.attr in STATEMENTS | {"conn"}:
                found.append(f"{path.relative_to(SERVICE)}:{node.lineno} .{node.attr}")
    assert found == []


def test_the_operations_know_no_store_but_the_interface() -> None:
    """The operations, search and watch import the interface, not the SQLite store."""
    paths = [*(SERVICE / "operations").glob("*.py"), SERVICE / "search.py", SERVICE / "watch.py"]
    assert len(paths) > 10
    for path in paths:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
        assert "memorywire.service.store" not in imported, path.name


def test_a_selection_is_data() -> None:
    scope = {"user": "u", "agent": "", "namespace": ["a", "b"]}
    a = Selection.of(scope, statuses=("active",))
    assert a == Selection.of(dict(scope), statuses=("active",))
    assert hash(a) == hash(Selection.of(dict(scope), statuses=("active",)))
    assert a.fields == (("user", "u"),) and a.namespace is not None and a.scoped
    assert not Selection.of(None).scoped and not Selection.of({"agent": ""}).scoped
