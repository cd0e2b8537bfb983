"""A real ``memorywire serve`` on loopback for the backend tests: a process
of its own on a SQLite file, which a test can stop and start again on the
same store and port."""

from __future__ import annotations

import uuid
from pathlib import Path

from memorywire.service.process import ServeProcess


class Serve(ServeProcess):
    """``memorywire serve --store STORE`` at ``target`` (127.0.0.1:PORT)."""

    def __init__(self, store: Path) -> None:
        super().__init__(store, ["--quiet", "--grace", "1"])

    @staticmethod
    def tenant() -> str:
        """A tenant of its own for each test."""
        return f"t-{uuid.uuid4().hex[:12]}"
