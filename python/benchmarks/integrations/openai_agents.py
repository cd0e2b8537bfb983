#!/usr/bin/env python3
# Copyright 2026 The memorywire Authors
# SPDX-License-Identifier: Apache-2.0
"""Per-turn overhead of MemorywireSession against SQLiteSession (in memory).

A turn is what the Runner asks of its session: read the history
(``get_items()``, or the latest ``--window`` items), then add the turn's
items (a user message and the assistant's answer). A conversation of
``--turns`` turns runs on a fresh session of each backend; a round times
every turn with time.perf_counter_ns, and each figure is the median over
turns and ``--repeat`` rounds. The service is ``memorywire serve`` on
loopback on a SQLite file, started here; the baseline is the SDK's default
store, SQLiteSession(":memory:"). Prints milliseconds per turn and the ratio.

    python openai_agents.py [--turns 40] [--repeat 5] [--window 10]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from agents import SQLiteSession

# This script's folder would shadow the framework's package of the same name.
HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]

from memorywire.integrations.openai_agents import MemorywireSession  # noqa: E402
from memorywire.service.process import ServeProcess  # noqa: E402


def turn_items(n: int) -> list[Any]:
    return [{"content": f"Question {n}: what did we say about item {n - 1}?", "role": "user"},
            {"id": f"msg_{n}", "content": [{"annotations": [], "text": f"Answer {n}: it was fine.",
                                            "type": "output_text", "logprobs": []}],
             "role": "assistant", "status": "completed", "type": "message"}]


async def conversation(session: Any, turns: int, window: int | None) -> list[float]:
    """Milliseconds of each turn: read the history, add the turn."""
    times = []
    for n in range(turns):
        started = time.perf_counter_ns()
        await session.get_items(limit=window)
        await session.add_items(turn_items(n))
        times.append((time.perf_counter_ns() - started) / 1e6)
    return times


def measure(make: Any, turns: int, repeat: int, window: int | None) -> float:
    times: list[float] = []
    for _ in range(repeat):
        session = make()
        times += asyncio.run(conversation(session, turns, window))
        session.close()
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--turns", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--window", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        served = ServeProcess(Path(tmp) / "store.sqlite3", ["--quiet"])
        try:
            tenant = f"bench-{uuid.uuid4().hex[:8]}"
            print(f"openai-agents session, {args.turns} turns of 2 items, median of {args.repeat} rounds, "
                  f"ms per turn (baseline: SQLiteSession(':memory:'))")
            for label, window in (("whole history", None), (f"latest {args.window}", args.window)):
                base = measure(lambda: SQLiteSession(f"s-{uuid.uuid4().hex}"), args.turns, args.repeat, window)
                ours = measure(lambda: MemorywireSession(f"s-{uuid.uuid4().hex}", served.target, tenant=tenant),
                               args.turns, args.repeat, window)
                print(f"  read {label:<14} + add: SQLiteSession {base:8.3f}  MemorywireSession {ours:8.3f}"
                      f"  ratio {ours / base:6.1f}x")
        finally:
            served.stop()


if __name__ == "__main__":
    main()
