"""Fixtures of the adapter tests: a real reference service on loopback."""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest

# The framework package tests run in environments of their own
# (tools/framework_tests.py), never beside the others.
collect_ignore = [] if os.environ.get("MEMORYWIRE_FRAMEWORK_ENV") else ["frameworks"]


@pytest.fixture(scope="session")
def adapter_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    from memorywire.service import MemoryServer, Store

    store = Store(str(tmp_path_factory.mktemp("adapters") / "store.sqlite3"))
    server = MemoryServer(store, "127.0.0.1:0", strict=True, log=None)
    port = server.start()
    yield f"127.0.0.1:{port}"
    server.stop(grace=1.0)
    store.close()


@pytest.fixture
def service(adapter_server: str) -> Iterator[Callable[[], Any]]:
    """A client of the service, each call in a tenant of its own."""
    from memorywire.client import Client

    clients: list[Any] = []

    def make() -> Any:
        c = Client(adapter_server, tenant=f"t-{uuid.uuid4().hex[:12]}", timeout=60)
        clients.append(c)
        return c

    yield make
    for c in clients:
        c.close()
