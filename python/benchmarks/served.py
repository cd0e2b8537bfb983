"""``memorywire serve`` in a subprocess on loopback, for the service benchmarks."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any


def rss_mib(pid: int) -> float:
    """The resident memory of a process, from /proc (NaN where there is none)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


class Served:
    """The service on one store, its port chosen by the system, its JSON log
    lines kept in ``lines``; ``flags`` are further options of ``memorywire serve``."""

    def __init__(self, store: Path, flags: Sequence[str] = ()) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "memorywire.service", "--listen", "127.0.0.1:0", "--store", str(store),
             "--quiet", *flags],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        ready = threading.Event()
        self.address = ""
        self.lines: list[dict[str, Any]] = []
        assert self.proc.stderr is not None

        def drain(stream: IO[str]) -> None:
            for line in stream:
                try:
                    entry = json.loads(line)
                except ValueError:
                    continue
                self.lines.append(entry)
                if entry.get("event") == "listening":
                    self.address = entry["address"]
                    ready.set()

        self._drain = threading.Thread(target=drain, args=(self.proc.stderr,), daemon=True)
        self._drain.start()
        if not ready.wait(60):
            self.proc.kill()
            raise SystemExit(f"the server did not start: {self.lines}")

    def rss(self) -> float:
        return rss_mib(self.proc.pid)

    def stop(self) -> None:
        """SIGTERM, as an operator would stop it; killed if it does not end."""
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)
        self._drain.join(5)
        if self.proc.stderr is not None:
            self.proc.stderr.close()
