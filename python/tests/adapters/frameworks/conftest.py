"""Fixtures of the framework package and backend tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from live import Serve


@pytest.fixture
def memorywire_serve(tmp_path: Path) -> Iterator[Serve]:
    """A real ``memorywire serve`` on loopback on a store of its own."""
    serve = Serve(tmp_path / "store.sqlite3")
    try:
        yield serve
    finally:
        serve.stop()


@pytest.fixture(scope="module")
def serve(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Serve]:
    """One ``memorywire serve`` for the tests of a module that do not stop
    it; each takes a tenant of its own (``serve.tenant()``)."""
    serve = Serve(tmp_path_factory.mktemp("serve") / "store.sqlite3")
    try:
        yield serve
    finally:
        serve.stop()
