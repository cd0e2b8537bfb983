"""A real ``memorywire serve`` on loopback for the backend tests: a process
of its own on a SQLite file, which a test can stop and start again on the
same store and port."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

START_SECONDS = 60


class Serve:
    """``memorywire serve --store STORE`` at ``target`` (127.0.0.1:PORT)."""

    def __init__(self, store: Path) -> None:
        self.store = store
        self.port = 0
        self.process: subprocess.Popen[str] | None = None
        self._log: threading.Thread | None = None
        self.start()

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self) -> None:
        if self.process is not None:
            raise RuntimeError("memorywire serve is running already")
        process = subprocess.Popen(
            [sys.executable, "-m", "memorywire", "serve", "--listen", f"127.0.0.1:{self.port}",
             "--store", str(self.store), "--grace", "1"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
            env=dict(os.environ, PYTHONUNBUFFERED="1"))
        assert process.stderr is not None
        deadline = time.monotonic() + START_SECONDS
        log = []
        while time.monotonic() < deadline:
            line = process.stderr.readline()
            if not line:
                break
            log.append(line)
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if event.get("event") == "listening":
                self.port = int(event["address"].rsplit(":", 1)[1])
                self.process = process
                # Read the rest of its log, so that it never blocks on a full pipe.
                self._log = threading.Thread(target=process.stderr.read, daemon=True)
                self._log.start()
                return
        process.kill()
        process.wait()
        process.stderr.close()
        raise RuntimeError("memorywire serve did not start:\n" + "".join(log))

    def stop(self) -> None:
        """Stop it as an operator would (SIGTERM), and wait for the end."""
        process, self.process = self.process, None
        if process is None:
            return
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if self._log is not None:
            self._log.join(timeout=10)
        assert process.stderr is not None
        process.stderr.close()

    def restart(self) -> None:
        """Stop, then start again on the same store file and the same port."""
        self.stop()
        self.start()

    @staticmethod
    def tenant() -> str:
        """A tenant of its own for each test."""
        return f"t-{uuid.uuid4().hex[:12]}"
