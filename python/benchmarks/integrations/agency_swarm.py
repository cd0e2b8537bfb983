#!/usr/bin/env python3
# Copyright 2026 The memorywire Authors
# SPDX-License-Identifier: Apache-2.0
"""Per-turn overhead of the Agency Swarm backend against a list in memory.

Agency Swarm hands save_threads_callback its whole flat list after every
message, and a new Agency calls load_threads_callback once. One step here is
what a thread of n messages costs when message n arrives: the save of the
list of n messages, and a load of it (timed apart). The thread grows by the captured messages of one
real run (python/tests/adapters/data/agency_swarm.thread_message), repeated
with fresh ids, up to -n messages.

  baseline     a list-in-memory callback pair (deep copies, as the callbacks
               of Agency Swarm's own tests keep what they are given)
  memorywire   MemorywireThreads on a memorywire serve started on loopback
               (SQLite store in a temporary directory)

Each figure is the median of --repeat rounds; the ratio is memorywire over
the baseline, at a few thread lengths. Run it in the agency_swarm framework
environment:

    PYTHONPATH=python/src .venv-fw/agency_swarm/bin/python python/benchmarks/integrations/agency_swarm.py
"""

from __future__ import annotations

import argparse
import copy
import functools
import json
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
# This script's name is its framework's: its own folder must not hide the package.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]

from memorywire.integrations.agency_swarm import MemorywireThreads  # noqa: E402
from memorywire.service.process import ServeProcess  # noqa: E402

DATA = HERE.parents[1] / "tests" / "adapters" / "data" / "agency_swarm.thread_message" / "agency_run.json"


def messages(n: int) -> list[dict[str, Any]]:
    run = json.loads(DATA.read_text())["items"]
    out: list[dict[str, Any]] = []
    while len(out) < n:
        for m in copy.deepcopy(run):
            if "id" in m:
                m["id"] = f"{m['id']}_{uuid.uuid4().hex[:8]}"
            m["timestamp"] += len(out)
            out.append(m)
    return out[:n]


class ListThreads:
    def __init__(self) -> None:
        self.stored: list[dict[str, Any]] = []

    def load(self) -> list[dict[str, Any]]:
        return copy.deepcopy(self.stored)

    def save(self, msgs: list[dict[str, Any]]) -> None:
        self.stored = copy.deepcopy(msgs)


def steps(make: Callable[[], Any], thread: list[dict[str, Any]], at: list[int]) -> dict[int, tuple[float, float]]:
    """Seconds of the save and of the load when the thread reaches each length of ``at``."""
    threads = make()
    out = {}
    for k in range(1, len(thread) + 1):
        start = time.perf_counter()
        threads.save(thread[:k])
        saved = time.perf_counter()
        threads.load()
        if k in at:
            out[k] = (saved - start, time.perf_counter() - saved)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("-n", type=int, default=200, help="messages in the thread (default 200)")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    at = sorted({1, 10, args.n // 2, args.n})
    thread = messages(args.n)
    with tempfile.TemporaryDirectory() as tmp:
        served = ServeProcess(Path(tmp) / "store.sqlite3", ["--quiet"])
        try:
            rounds: dict[str, list[dict[int, tuple[float, float]]]] = {"baseline": [], "memorywire": []}
            for r in range(args.repeat):
                rounds["baseline"].append(steps(ListThreads, thread, at))
                ours = functools.partial(MemorywireThreads, served.target, tenant=f"bench-{r}", chat_id="chat")
                rounds["memorywire"].append(steps(ours, thread, at))
        finally:
            served.stop()
    print(f"save, then load, of a growing Agency Swarm thread: median of {args.repeat} rounds, in ms")
    print("baseline: a list-in-memory callback pair (deep copies); ratio: memorywire / baseline")
    print(f"{'messages':>9} {'save base':>10} {'save mw':>9} {'ratio':>7} "
          f"{'load base':>10} {'load mw':>9} {'ratio':>7}")
    for k in at:
        cells = []
        for part in (0, 1):
            base = statistics.median(r[k][part] for r in rounds["baseline"]) * 1000
            mw = statistics.median(r[k][part] for r in rounds["memorywire"]) * 1000
            cells.append(f"{base:>10.3f} {mw:>9.3f} {mw / base:>7.1f}")
        print(f"{k:>9} " + " ".join(cells))

if __name__ == "__main__":
    main()
