"""Fixtures of the service tests: a real server on loopback, and a client
per test in a tenant of its own, so that tests share nothing."""

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


@pytest.fixture(scope="session")
def store_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("store") / "memorywire.sqlite3"


@pytest.fixture(scope="session")
def server(store_path: Path) -> Iterator[MemoryServer]:
    # A file store in WAL mode; every vector search goes through the quantized
    # index (threshold 0), and every response is validated before it is sent.
    store = Store(str(store_path), vector_exact_threshold=0)
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


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Callable[..., tuple[MemoryServer, str]]]:
    """Start a server on a file store of its own, with the fair-share
    settings given; stopped after the test."""
    started: list[tuple[MemoryServer, Store]] = []

    def make(**share: Any) -> tuple[MemoryServer, str]:
        store = Store(str(tmp_path / f"s{len(started)}.sqlite3"))
        server = MemoryServer(store, "127.0.0.1:0", share=FairShare(**share), log=None)
        port = server.start()
        started.append((server, store))
        return server, f"127.0.0.1:{port}"

    yield make
    for server, store in started:
        server.stop(grace=0.5)
        store.close()
