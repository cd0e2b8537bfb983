#!/usr/bin/env python3
# Copyright 2026 The memorywire Authors
# SPDX-License-Identifier: Apache-2.0
"""The per-turn overhead of MemorywireStore against LangGraph's own stores.

A turn is what a graph node that keeps memories does: put one item into
the user's namespace, get it back, and search the namespace (10 items);
``--query`` adds a text query to the search (which InMemoryStore and
SqliteStore ignore without an index, and MemorywireStore searches). Each store runs --turns turns
per round, after --warm items already in the namespace; a figure is the
median of --rounds rounds, per turn. The stores:

  InMemoryStore      LangGraph's default store (the baseline of the ratios)
  SqliteStore        langgraph-checkpoint-sqlite on a file (WAL), its
                     persistent store
  MemorywireStore    on ``memorywire serve`` on loopback (a subprocess on a
                     SQLite file), every call a gRPC round trip

Run it in the langgraph framework environment:

    python python/benchmarks/integrations/langgraph.py [--turns 200] [--rounds 5] [--query] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

# This file is named after the framework: keep its folder off the path, so
# that "langgraph" is the package; the shared helpers are one folder up.
HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]
sys.path.insert(0, str(HERE.parent))

from langgraph.store.base import BaseStore  # noqa: E402
from langgraph.store.memory import InMemoryStore  # noqa: E402
from langgraph.store.sqlite import SqliteStore  # noqa: E402
from served import Served  # noqa: E402

from memorywire.integrations.langgraph import MemorywireStore  # noqa: E402


def turn_runner(store: BaseStore, namespace: tuple[str, ...], query: bool) -> Callable[[int], None]:
    def turn(i: int) -> None:
        store.put(namespace, f"m{i}", {"text": f"Turn {i}: the user mentioned topic {i % 17} and pizza."})
        assert store.get(namespace, f"m{i}") is not None
        store.search(namespace, query="pizza topic" if query else None, limit=10)
    return turn


def measure(store: BaseStore, turns: int, rounds: int, warm: int, query: bool) -> float:
    """The median seconds of one turn."""
    times = []
    for r in range(rounds):
        namespace = ("users", f"round-{r}", "memories")
        for i in range(warm):
            store.put(namespace, f"w{i}", {"text": f"An earlier memory {i}."})
        turn = turn_runner(store, namespace, query)
        turn(-1)  # first-call costs (connections, statements) out of the timing
        start = time.perf_counter()
        for i in range(turns):
            turn(i)
        times.append((time.perf_counter() - start) / turns)
    return statistics.median(times)


@contextmanager
def stores(tmp: Path) -> Iterator[dict[str, BaseStore]]:
    served = Served(tmp / "memorywire.sqlite3")
    try:
        with SqliteStore.from_conn_string(str(tmp / "langgraph.sqlite3")) as sqlite:
            sqlite.setup()
            memorywire = MemorywireStore(served.address, tenant="bench")
            try:
                yield {"InMemoryStore": InMemoryStore(), "SqliteStore": sqlite, "MemorywireStore": memorywire}
            finally:
                memorywire.close()
    finally:
        served.stop()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--warm", type=int, default=50, help="items in the namespace before the turns")
    parser.add_argument("--query", action="store_true", help="search with a text query")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp, stores(Path(tmp)) as all_stores:
        results = {name: measure(store, args.turns, args.rounds, args.warm, args.query)
                   for name, store in all_stores.items()}
    base = results["InMemoryStore"]
    rows: list[dict[str, Any]] = [{"store": name, "ms_per_turn": t * 1000, "vs_InMemoryStore": t / base,
                                   "vs_SqliteStore": t / results["SqliteStore"]} for name, t in results.items()]
    if args.json:
        print(json.dumps({"turns": args.turns, "rounds": args.rounds, "warm": args.warm, "query": args.query,
                          "results": rows}))
        return
    what = "put + get + search" + (" with a text query" if args.query else "")
    print(f"LangGraph store, one turn = {what}; median of {args.rounds} rounds of {args.turns} turns, "
          f"{args.warm} items before; Python {sys.version.split()[0]}")
    print(f"{'store':<18}{'ms/turn':>10}{'x InMemoryStore':>18}{'x SqliteStore':>16}")
    for row in rows:
        print(f"{row['store']:<18}{row['ms_per_turn']:>10.3f}{row['vs_InMemoryStore']:>18.1f}"
              f"{row['vs_SqliteStore']:>16.2f}")


if __name__ == "__main__":
    main()
