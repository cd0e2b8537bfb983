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
