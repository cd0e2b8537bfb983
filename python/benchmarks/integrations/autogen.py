"""The per-turn cost of AutoGen's memory on a memorywire service
(MemorywireMemory) against AutoGen's own ListMemory, in process.

A turn is what an agent with a memory does: add one memory (MemoryContent
text), then update the model context holding the user's new message
(update_context: ListMemory adds every memory, MemorywireMemory a text
search of the service). The service is ``memorywire serve`` on loopback on
a SQLite file in a temporary directory. Medians over rounds; each round
starts on an empty memory. Run in the autogen environment:

    .venv-fw/autogen/bin/python python/benchmarks/integrations/autogen.py [-n TURNS] [--rounds R] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

# This script's folder would shadow the framework's package of the same name:
# served.py is taken from the folder above instead.
HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]
sys.path.insert(0, str(HERE.parent))

from autogen_core.memory import ListMemory, Memory, MemoryContent, MemoryMimeType  # noqa: E402
from autogen_core.model_context import UnboundedChatCompletionContext  # noqa: E402
from autogen_core.models import UserMessage  # noqa: E402
from served import Served  # noqa: E402

from memorywire.integrations.autogen import MemorywireMemory  # noqa: E402

TOPICS = ["tea", "Lyon", "trains", "jazz", "peanuts", "window seats", "Python", "hiking", "cats", "opera"]


async def turns(memory: Memory, n: int) -> tuple[float, float]:
    """Seconds per add and per update_context, the medians over ``n`` turns."""
    adds, updates = [], []
    for i in range(n):
        topic = TOPICS[i % len(TOPICS)]
        started = time.perf_counter()
        await memory.add(MemoryContent(content=f"Turn {i}: the user mentioned {topic}.",
                                       mime_type=MemoryMimeType.TEXT))
        added = time.perf_counter()
        context = UnboundedChatCompletionContext()
        await context.add_message(UserMessage(content=f"What do you know about {topic}?", source="user"))
        await memory.update_context(context)
        adds.append(added - started)
        updates.append(time.perf_counter() - added)
    return statistics.median(adds), statistics.median(updates)


async def measure(make: Callable[[], Memory], n: int, rounds: int) -> tuple[float, float]:
    adds, updates = [], []
    for _ in range(rounds):
        memory = make()
        a, u = await turns(memory, n)
        await memory.close()
        adds.append(a)
        updates.append(u)
    return statistics.median(adds), statistics.median(updates)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", type=int, default=100, help="turns per round (default 100)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds (default 5)")
    parser.add_argument("--json", action="store_true", help="print the numbers as JSON")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        served = Served(Path(tmp) / "store.sqlite3")
        try:
            target = served.address
            runs: dict[str, Callable[[], Coroutine[Any, Any, tuple[float, float]]]] = {
                "ListMemory": lambda: measure(ListMemory, args.n, args.rounds),
                "MemorywireMemory": lambda: measure(
                    lambda: MemorywireMemory(target, tenant=f"bench-{uuid.uuid4().hex[:8]}", user="u"),
                    args.n, args.rounds),
            }
            results = {name: asyncio.run(run()) for name, run in runs.items()}
        finally:
            served.stop()
    base_add, base_update = results["ListMemory"]
    add, update = results["MemorywireMemory"]
    if args.json:
        print(json.dumps({"turns": args.n, "rounds": args.rounds, "baseline": "autogen_core ListMemory",
                          "seconds": {k: {"add": v[0], "update_context": v[1]} for k, v in results.items()}}))
        return
    print(f"AutoGen memory, {args.n} turns x {args.rounds} rounds, medians; baseline: ListMemory (in process)")
    print(f"{'':18} {'add':>10} {'update_context':>15} {'turn':>10}")
    for name, (a, u) in results.items():
        print(f"{name:18} {a * 1e3:8.3f}ms {u * 1e3:13.3f}ms {(a + u) * 1e3:8.3f}ms")
    print(f"{'ratio':18} {add / base_add:9.0f}x {update / base_update:14.0f}x "
          f"{(add + update) / (base_add + base_update):9.0f}x")
    print("ListMemory's update_context writes every memory into the context; MemorywireMemory's the matches "
          "of a text search over loopback gRPC to a SQLite store.")


if __name__ == "__main__":
    main()
