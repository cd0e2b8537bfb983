#!/usr/bin/env python3
# Copyright 2026 The memorywire Authors
# SPDX-License-Identifier: Apache-2.0
"""Per-turn overhead of MemorywireChatMessageHistory against
InMemoryChatMessageHistory.

A turn is what RunnableWithMessageHistory asks of its history: read the
messages, then add the turn's messages (a HumanMessage and the AIMessage of
the answer). A conversation of ``--turns`` turns runs on a fresh history of
each backend, through the synchronous methods and through the asynchronous
ones; a round times every turn with time.perf_counter_ns, and each figure is
the median over turns and ``--repeat`` rounds. The service is
``memorywire serve`` on loopback on a SQLite file, started here; the
baseline is langchain-core's own InMemoryChatMessageHistory. Prints
milliseconds per turn and the ratio.

    python langchain.py [--turns 40] [--repeat 5]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
import uuid
import warnings
from pathlib import Path
from typing import Any

from langchain_core.chat_history import InMemoryChatMessageHistory
from langchain_core.messages import AIMessage, HumanMessage

# This script's folder would shadow the framework's package of the same name.
HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]

from memorywire.integrations.langchain import MemorywireChatMessageHistory  # noqa: E402
from memorywire.service.process import ServeProcess  # noqa: E402

warnings.simplefilter("ignore")  # InMemoryChatMessageHistory is deprecated since langchain-core 1.6.4


def turn(n: int) -> list[Any]:
    return [HumanMessage(content=f"Question {n}: what did we say about item {n - 1}?"),
            AIMessage(content=f"Answer {n}: it was fine.", id=f"run-{n}",
                      usage_metadata={"input_tokens": 12, "output_tokens": 6, "total_tokens": 18})]


def sync_turns(history: Any, turns: int) -> list[float]:
    times = []
    for n in range(turns):
        started = time.perf_counter_ns()
        history.messages  # noqa: B018
        history.add_messages(turn(n))
        times.append((time.perf_counter_ns() - started) / 1e6)
    return times


async def async_turns(history: Any, turns: int) -> list[float]:
    times = []
    for n in range(turns):
        started = time.perf_counter_ns()
        await history.aget_messages()
        await history.aadd_messages(turn(n))
        times.append((time.perf_counter_ns() - started) / 1e6)
    return times


def measure(make: Any, turns: int, repeat: int, asynchronous: bool) -> float:
    times: list[float] = []
    for _ in range(repeat):
        history = make()
        times += asyncio.run(async_turns(history, turns)) if asynchronous else sync_turns(history, turns)
        if isinstance(history, MemorywireChatMessageHistory):
            history.close()
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--turns", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        served = ServeProcess(Path(tmp) / "store.sqlite3", ["--quiet"])
        try:
            tenant = f"bench-{uuid.uuid4().hex[:8]}"
            print(f"LangChain chat history, {args.turns} turns of 2 messages, median of {args.repeat} rounds, "
                  "ms per turn (baseline: InMemoryChatMessageHistory)")
            for label, asynchronous in (("messages + add_messages", False), ("aget_messages + aadd_messages", True)):
                base = measure(InMemoryChatMessageHistory, args.turns, args.repeat, asynchronous)
                ours = measure(lambda: MemorywireChatMessageHistory(f"s-{uuid.uuid4().hex}", served.target,
                                                                    tenant=tenant),
                               args.turns, args.repeat, asynchronous)
                print(f"  {label:<30}: InMemory {base:8.3f}  Memorywire {ours:8.3f}  ratio {ours / base:8.1f}x")
        finally:
            served.stop()


if __name__ == "__main__":
    main()
