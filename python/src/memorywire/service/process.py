"""``memorywire serve`` as a process of its own on loopback, for tests,
benchmarks and demonstrations: started on a store file, its address read
from its JSON log, stopped as an operator would stop it (SIGTERM), and
started again on the same store and port.

Example::

    from memorywire.service.process import ServeProcess

    served = ServeProcess("memories.sqlite3")
    try:
        with Client(served.target, tenant="acme") as mw:
            ...
        served.restart()          # same store, same port: clients reconnect
    finally:
        served.stop()
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

#: How long a start may take before it is given up, in seconds.
START_SECONDS = 60.0


class ServeProcess:
    """``memorywire serve --store STORE`` on 127.0.0.1, at ``target``.

    ``flags`` are further options of ``memorywire serve`` (``--tokens``,
    ``--max-workers`` ...); ``port`` 0 lets the system choose one, which a
    restart keeps. ``lines`` holds the service's JSON log, one dict a line.
    """

    def __init__(self, store: str | Path, flags: Sequence[str] = (), *, port: int = 0,
                 python: str = sys.executable) -> None:
        self.store = str(store)  # a file, or a database URL (kept as written)
        self.flags = tuple(flags)
        self.port = port
        self.python = python
        self.lines: list[dict[str, Any]] = []
        self.process: subprocess.Popen[str] | None = None
        self._drain: threading.Thread | None = None
        self.start()

    @property
    def target(self) -> str:
        """The address clients connect to: ``127.0.0.1:PORT``."""
        return f"127.0.0.1:{self.port}"

    def start(self) -> None:
        """Start the service; return once it listens. RuntimeError, with
        its log, when it does not within :data:`START_SECONDS`."""
        if self.process is not None:
            raise RuntimeError("memorywire serve is running already")
        process = subprocess.Popen(
            [self.python, "-m", "memorywire", "serve", "--listen", f"127.0.0.1:{self.port}",
             "--store", str(self.store), *self.flags],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
            env=dict(os.environ, PYTHONUNBUFFERED="1"))
        assert process.stderr is not None
        ready, listening = threading.Event(), threading.Event()
        text: list[str] = []

        def drain(stream: IO[str]) -> None:
            # Read the whole log, so that the service never blocks on a full pipe.
            for line in stream:
                text.append(line)
                try:
                    entry = json.loads(line)
                except ValueError:
                    continue
                if not isinstance(entry, dict):
                    continue
                self.lines.append(entry)
                if entry.get("event") == "listening":
                    self.port = int(str(entry["address"]).rsplit(":", 1)[1])
                    listening.set()
                    ready.set()
            ready.set()  # the log ended: the process did

        self._drain = threading.Thread(target=drain, args=(process.stderr,), daemon=True)
        self._drain.start()
        self.process = process
        ready.wait(START_SECONDS)
        if not listening.is_set():
            self.stop()
            raise RuntimeError("memorywire serve did not start:\n" + "".join(text))

    def stop(self) -> None:
        """Stop the service with SIGTERM, killed if it does not end; wait."""
        process, self.process = self.process, None
        if process is None:
            return
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if self._drain is not None:
            self._drain.join(timeout=10)
        assert process.stderr is not None
        process.stderr.close()

    def restart(self) -> None:
        """Stop, then start again on the same store and the same port."""
        self.stop()
        self.start()

    def rss_mib(self) -> float:
        """The resident memory of the service, from /proc (NaN where there is none)."""
        if self.process is None:
            return float("nan")
        try:
            with open(f"/proc/{self.process.pid}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        return int(line.split()[1]) / 1024
        except OSError:
            pass
        return float("nan")

    def __enter__(self) -> ServeProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
