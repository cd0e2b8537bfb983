"""Durability: a server killed with SIGKILL in the middle of a stream of
batched writes loses no acknowledged write and leaves no partial batch; and
``memorywire serve`` stops gracefully on SIGTERM."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import IO

import pytest

from memorywire.client import Client, ServiceError

# Servers killed and restarted under load: make test runs them, make check does not.
pytestmark = pytest.mark.slow

BATCH = 25


class Server:
    """``python -m memorywire.service`` on loopback, port chosen by the system."""

    def __init__(self, store: Path) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "memorywire.service", "--listen", "127.0.0.1:0", "--store", str(store),
             "--quiet", "--grace", "2"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        self.lines: list[dict[str, object]] = []
        ready = threading.Event()
        assert self.proc.stderr is not None

        def drain(stream: IO[str]) -> None:
            for line in stream:
                try:
                    entry = json.loads(line)
                except ValueError:
                    continue
                self.lines.append(entry)
                if entry.get("event") == "listening":
                    ready.set()

        self._drain = threading.Thread(target=drain, args=(self.proc.stderr,), daemon=True)
        self._drain.start()
        if not ready.wait(30):
            self.proc.kill()
            raise AssertionError(f"the server did not start: {self.lines}")
        address = next(x["address"] for x in self.lines if x.get("event") == "listening")
        self.target = str(address)

    def wait(self, timeout: float) -> int:
        code = self.proc.wait(timeout)
        self._drain.join(timeout)
        assert self.proc.stderr is not None
        self.proc.stderr.close()
        return code


def test_sigkill_mid_stream_loses_no_acknowledged_batch(tmp_path: Path) -> None:
    store = tmp_path / "durable.sqlite3"
    server = Server(store)
    acknowledged: list[int] = []
    sent: list[int] = []
    failures: list[BaseException] = []

    def writer() -> None:
        with Client(server.target, tenant="durability", timeout=10) as mw:
            for i in range(100_000):
                batch = [{"id": f"b{i}-{j}", "kind": "fact", "fact": {"text": f"batch {i} item {j}"},
                          "tags": [f"batch-{i}"]} for j in range(BATCH)]
                sent.append(i)
                try:
                    mw.put(batch, atomic=i % 2 == 0, operation_id=f"batch-{i}")
                except ServiceError as e:
                    if e.code not in ("UNAVAILABLE", "CANCELLED", "UNKNOWN", "INTERNAL"):
                        failures.append(e)
                    return
                acknowledged.append(i)

    thread = threading.Thread(target=writer)
    thread.start()
    deadline = time.monotonic() + 30
    while len(acknowledged) < 120 and time.monotonic() < deadline and thread.is_alive():
        time.sleep(0.01)
    os.kill(server.proc.pid, signal.SIGKILL)  # in the middle of the stream of writes
    server.wait(10)
    thread.join(30)
    assert not thread.is_alive() and not failures
    assert len(acknowledged) >= 120

    restarted = Server(store)
    try:
        with Client(restarted.target, tenant="durability") as mw:
            counts = Counter(r["tags"][0] for r in mw.export())
            # every acknowledged batch is there, whole
            for i in acknowledged:
                assert counts[f"batch-{i}"] == BATCH, i
            # no batch is there in part: the one in flight is all there or not at all
            assert all(n == BATCH for n in counts.values())
            assert set(counts) <= {f"batch-{i}" for i in sent}
            # a retry of the batch in flight is answered without a second effect
            last = sent[-1]
            batch = [{"id": f"b{last}-{j}", "kind": "fact", "fact": {"text": f"batch {last} item {j}"},
                      "tags": [f"batch-{last}"]} for j in range(BATCH)]
            out = mw.put(batch, atomic=last % 2 == 0, operation_id=f"batch-{last}")
            assert len(out["results"]) == BATCH
            assert Counter(r["tags"][0] for r in mw.export())[f"batch-{last}"] == BATCH
    finally:
        restarted.proc.send_signal(signal.SIGTERM)
        assert restarted.wait(20) == 0  # a graceful stop
    assert any(x.get("event") == "stopped" for x in restarted.lines)


@pytest.mark.parametrize("args", [["--listen", "256.0.0.1:1"]])
def test_serve_reports_a_bad_address(tmp_path: Path, args: list[str]) -> None:
    from memorywire.service.server import main

    assert main([*args, "--store", str(tmp_path / "x.sqlite3"), "--quiet"]) == 1
