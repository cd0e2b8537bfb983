"""Fixtures of the service tests: a real server on loopback, and a client
per test in a tenant of its own, so that tests share nothing.

The servers run on each store: ``sqlite`` (a file in WAL mode) and
``postgresql`` (a database of the session's throwaway cluster), so that
every test that uses them runs against both. A test about what only the
SQLite store has (its file, its faults, its migrations) carries the marker
``sqlite_only`` with the reason, and is not run on PostgreSQL."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest

from memorywire.client import Client
from memorywire.service import MemoryServer, Store
from memorywire.service.fairness import FairShare
from memorywire.service.storage import Storage

STORES = ("sqlite", "postgresql")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "sqlite_only(reason): a test of what only the SQLite store has")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # A test of what only SQLite has is not made for PostgreSQL at all.
    postgres_only_copies = []
    for item in items:
        callspec = getattr(item, "callspec", None)
        if item.get_closest_marker("sqlite_only") is not None and callspec is not None \
                and "postgresql" in (callspec.params.get("server"), callspec.params.get("serve")):
            postgres_only_copies.append(item)
    if postgres_only_copies:
        config.hook.pytest_deselected(items=postgres_only_copies)
        items[:] = [item for item in items if item not in postgres_only_copies]


def open_test_store(kind: str, request: pytest.FixtureRequest, path: Path, **options: Any) -> Storage:
    """A new, empty store of a kind: a SQLite file at ``path``, or a new
    database of the session's PostgreSQL cluster."""
    if kind == "sqlite":
        return Store(str(path), **options)
    from memorywire.service.postgres import PostgresStore

    return PostgresStore(request.getfixturevalue("postgres_cluster").create_database(), **options)


@pytest.fixture(scope="session")
def store_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("store") / "memorywire.sqlite3"


@pytest.fixture(scope="session", params=STORES)
def server(request: pytest.FixtureRequest, store_path: Path) -> Iterator[MemoryServer]:
    # Every vector search goes through the in-memory index (threshold 0),
    # and every response is validated before it is sent.
    store = open_test_store(request.param, request, store_path, vector_exact_threshold=0)
    srv = MemoryServer(store, "127.0.0.1:0", strict=True, log=None)
    srv.start()
    yield srv
    srv.stop(grace=1.0)
    store.close()


@pytest.fixture(scope="session")
def target(server: MemoryServer) -> str:
    return f"127.0.0.1:{server.port}"


@pytest.fixture
def connect(target: str) -> Iterator[Callable[..., Client]]:
    clients: list[Client] = []

    def make(tenant: str | None = None, **kwargs: Any) -> Client:
        c = Client(target, tenant=tenant, timeout=30, **kwargs)
        clients.append(c)
        return c

    yield make
    for c in clients:
        c.close()


@pytest.fixture
def tenant() -> str:
    return f"t-{uuid.uuid4().hex[:12]}"


@pytest.fixture
def mw(connect: Callable[..., Client], tenant: str) -> Client:
    """A client in a tenant of its own."""
    return connect(tenant)


@pytest.fixture
def raw_channel(target: str) -> Iterator[grpc.Channel]:
    channel = grpc.insecure_channel(target)
    yield channel
    channel.close()


@pytest.fixture(params=STORES)
def serve(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Callable[..., tuple[MemoryServer, str]]]:
    """Start a server on a store of its own (of each kind), with the
    fair-share settings given; stopped after the test."""
    started: list[tuple[MemoryServer, Storage]] = []

    def make(**share: Any) -> tuple[MemoryServer, str]:
        store = open_test_store(request.param, request, tmp_path / f"s{len(started)}.sqlite3")
        server = MemoryServer(store, "127.0.0.1:0", share=FairShare(**share), log=None)
        port = server.start()
        started.append((server, store))
        return server, f"127.0.0.1:{port}"

    yield make
    for server, store in started:
        server.stop(grace=0.5)
        store.close()
