from __future__ import annotations

import pathlib
import sys
from collections.abc import Iterator

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

from postgres_cluster import Cluster  # noqa: E402


@pytest.fixture(scope="session")
def root() -> pathlib.Path:
    return ROOT


@pytest.fixture(scope="session")
def postgres_cluster() -> Iterator[Cluster]:
    """A throwaway PostgreSQL cluster for the session (tools/postgres_cluster.py):
    Debian's server, installed where it is missing, as an unprivileged user."""
    with Cluster.start() as cluster:
        yield cluster


@pytest.fixture
def postgres_dsn(postgres_cluster: Cluster) -> str:
    """The URL of a new, empty database."""
    return postgres_cluster.create_database()
