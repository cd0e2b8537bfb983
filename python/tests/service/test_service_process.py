"""memorywire serve as a process of its own (memorywire.service.process)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memorywire.client import Client
from memorywire.service.errors import ServiceError
from memorywire.service.process import ServeProcess


def test_a_restart_keeps_the_port_and_the_store(tmp_path: Path) -> None:
    with ServeProcess(tmp_path / "store.sqlite3", ["--quiet"]) as served:
        target = served.target
        assert served.port != 0
        with Client(target, tenant="acme", timeout=10) as mw:
            mw.put({"id": "f1", "kind": "fact", "fact": {"text": "kept"}})
            with pytest.raises(RuntimeError, match="running already"):
                served.start()
            served.restart()
            assert served.target == target
            assert mw.get("f1")["records"][0]["fact"] == {"text": "kept"}
            served.stop()
            with pytest.raises(ServiceError) as e:
                mw.get("f1")
            assert e.value.code == "UNAVAILABLE"
            assert served.rss_mib() != served.rss_mib()  # NaN once stopped


def test_the_log_is_read_as_json_lines(tmp_path: Path) -> None:
    with ServeProcess(tmp_path / "store.sqlite3") as served:
        assert any(line.get("event") == "listening" for line in served.lines)
        assert served.rss_mib() > 0


def test_a_service_that_cannot_start_says_why(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError, match="(?s)did not start:.*invalid int value"):
        ServeProcess(tmp_path / "store.sqlite3", ["--max-workers", "zero"])


def test_a_second_service_on_one_sqlite_file_is_refused(tmp_path: Path) -> None:
    # Its searches and watches would miss the first one's writes; the
    # message points to replicas on PostgreSQL instead.
    store = tmp_path / "store.sqlite3"
    with ServeProcess(store) as first:
        with pytest.raises(RuntimeError, match="(?s)did not start:.*in use by another memorywire "
                                               "service.*postgresql://"):
            ServeProcess(store)
        with Client(first.target, tenant="t", timeout=10) as mw:
            assert mw.capabilities()["operations"]
    with ServeProcess(store) as again:  # released when the first one stops
        assert again.target


def test_a_store_file_is_released_by_a_killed_service(tmp_path: Path) -> None:
    store = tmp_path / "store.sqlite3"
    first = ServeProcess(store)
    assert first.process is not None
    first.process.kill()
    first.stop()  # reaps the killed process
    with ServeProcess(store) as again:
        assert again.target
