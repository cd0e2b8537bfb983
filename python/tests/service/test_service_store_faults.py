"""A store that cannot be written: full, read-only, or in a directory that
does not exist. Writes fail with a retryable error naming the store, reads
are served; a store the service cannot write at all stops it from starting."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from service_helpers import fact, fails

from memorywire.client import Client
from memorywire.service import MemoryServer, Store


@pytest.mark.sqlite_only("fills the SQLite file by its page count")
def test_a_full_store_answers_writes_with_a_retryable_error(
        serve: Callable[..., tuple[MemoryServer, str]]) -> None:
    server, target = serve()
    with Client(target, tenant="acme") as acme:
        acme.put(fact("kept", "written before the disk filled"))
        # SQLite answers a write beyond max_page_count exactly as one beyond
        # the room on its disk: SQLITE_FULL, "database or disk is full".
        writer = server.store._writer
        pages = writer.execute("PRAGMA page_count").fetchone()[0]
        writer.execute(f"PRAGMA max_page_count = {pages}")
        e = fails("UNAVAILABLE", lambda: acme.put([fact(f"f{i}", "y" * 4000) for i in range(100)]))
        assert e.code == "UNAVAILABLE" and e.retry_after_millis == 5000
        assert "is full" in e.message and server.store.path in e.message
        assert acme.get("kept")["records"][0]["id"] == "kept"  # reads are served
        assert acme.get("f0")["missing_ids"] == ["f0"]  # the write did not take effect
        writer.execute("PRAGMA max_page_count = 1073741823")
        acme.put(fact("after", "written once there is room"))


@pytest.mark.sqlite_only("makes the SQLite connection query-only")
def test_a_store_made_read_only_refuses_writes_and_serves_reads(
        serve: Callable[..., tuple[MemoryServer, str]]) -> None:
    server, target = serve()
    with Client(target, tenant="acme") as acme:
        acme.put(fact("kept", "x"))
        server.store._writer.execute("PRAGMA query_only = ON")  # SQLITE_READONLY on every write
        e = fails("UNAVAILABLE", lambda: acme.put(fact("new", "y")))
        assert "is read-only" in e.message and server.store.path in e.message
        assert acme.get("kept")["records"][0]["id"] == "kept"
        server.store._writer.execute("PRAGMA query_only = OFF")


#: ``memorywire serve`` in a process of its own, which, started as root (whom
#: no file permission stops), becomes an unprivileged user once the service is
#: loaded.
_SERVE_AS_USER = """
import os, sys
from memorywire.service.server import main
if os.geteuid() == 0:
    os.setgid(65534)
    os.setuid(65534)
sys.exit(main(sys.argv[1:]))
"""


def _serve_fails(store: Path) -> str:
    proc = subprocess.run([sys.executable, "-c", _SERVE_AS_USER, "--listen", "127.0.0.1:0",
                           "--store", str(store), "--no-warm"], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 1, (proc.returncode, proc.stderr)
    assert '"event":"start_failed"' in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
    return proc.stderr


def test_a_read_only_store_fails_the_start_naming_it() -> None:
    directory = Path(tempfile.mkdtemp(prefix="memorywire-ro-"))
    try:
        directory.chmod(0o755)
        store = directory / "memorywire.sqlite3"
        Store(str(store)).close()
        # a file the service cannot write
        store.chmod(0o444)
        if os.geteuid() != 0:
            directory.chmod(0o555)
        out = _serve_fails(store)
        assert f"the store {store} is read-only" in out and "unable to open" not in out
        # a file it can write, in a directory it cannot
        directory.chmod(0o755)
        store.chmod(0o644)
        if os.geteuid() == 0:
            os.chown(store, 65534, 65534)
        else:
            directory.chmod(0o555)
        out = _serve_fails(store)
        assert f"the store {store} is in a directory this process cannot write ({directory}" in out
    finally:
        directory.chmod(0o755)
        for x in directory.iterdir():
            x.unlink()
        directory.rmdir()


def test_a_missing_directory_is_named() -> None:
    with pytest.raises(ValueError, match="the directory of the store .* does not exist"):
        Store("/nonexistent-memorywire/dir/store.sqlite3")
