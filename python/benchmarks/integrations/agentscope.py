"""The per-turn cost of AgentScope long-term memory on a memorywire service
(MemorywireLongTermMemory) against AgentScope's default.

AgentScope 2.0.11 has no in-memory long-term memory (its long-term memories
are middlewares over mem0 or ReMe, which need an extraction model) and no
InMemoryMemory: an agent's default memory is its own in-memory context
(AgentState.context). So the baseline is an Agent turn (a scripted model,
no network) with that default alone, and the measured cost is the same
turn with MemorywireLongTermMemory in static control: a text search before
the reply, a note injected, the exchange written after it. The raw record
(two Msgs) and retrieve calls are timed too. The service is ``memorywire
serve`` on loopback on a SQLite file in a temporary directory. Medians over
rounds. Run in the agentscope environment:

    .venv-fw/agentscope/bin/python python/benchmarks/integrations/agentscope.py [-n TURNS] [--rounds R] [--json]
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
from pathlib import Path
from typing import Any

# This script's folder would shadow the framework's package of the same name.
HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]

from agentscope.agent import Agent  # noqa: E402
from agentscope.credential import CredentialBase  # noqa: E402
from agentscope.formatter import OpenAIChatFormatter  # noqa: E402
from agentscope.message import Msg, TextBlock, UserMsg  # noqa: E402
from agentscope.middleware import MiddlewareBase  # noqa: E402
from agentscope.model import ChatModelBase, ChatResponse  # noqa: E402
from pydantic import BaseModel  # noqa: E402

from memorywire.integrations.agentscope import MemorywireLongTermMemory  # noqa: E402
from memorywire.service.process import ServeProcess  # noqa: E402

TOPICS = ["tea", "Lyon", "trains", "jazz", "peanuts", "window seats", "Python", "hiking", "cats", "opera"]


class _Credential(CredentialBase):  # type: ignore[misc]  # agentscope is Any outside its environment
    @classmethod
    def get_chat_model_class(cls) -> type[ChatModelBase]:
        return Echo


class Echo(ChatModelBase):  # type: ignore[misc]
    """A local model that answers at once."""

    class Parameters(BaseModel):  # type: ignore[misc, unused-ignore]
        pass

    def __init__(self) -> None:
        super().__init__(credential=_Credential(), model="echo", parameters=Echo.Parameters(), stream=False,
                         context_size=1_000_000)
        self.formatter = OpenAIChatFormatter()

    async def _call_api(self, *args: Any, **kwargs: Any) -> ChatResponse:
        return ChatResponse(content=[TextBlock(type="text", text="Noted.")], is_last=True)


async def agent_turns(memory: MiddlewareBase | None, n: int) -> float:
    """The median seconds of one agent reply over ``n`` turns."""
    agent = Agent(name="Friday", system_prompt="You help.", model=Echo(),
                  middlewares=[memory] if memory is not None else [])
    times = []
    for i in range(n):
        started = time.perf_counter()
        await agent.reply(UserMsg("user", f"Turn {i}: tell me about {TOPICS[i % len(TOPICS)]}"))
        times.append(time.perf_counter() - started)
    return statistics.median(times)


async def raw_calls(memory: MemorywireLongTermMemory, n: int) -> tuple[float, float]:
    records, retrievals = [], []
    for i in range(n):
        topic = TOPICS[i % len(TOPICS)]
        said = UserMsg("user", f"Turn {i}: I like {topic}")
        answered = Msg(name="Friday", role="assistant", content=[TextBlock(type="text", text="Noted.")])
        started = time.perf_counter()
        await memory.record([said, answered])
        recorded = time.perf_counter()
        await memory.retrieve(UserMsg("user", f"What about {topic}?"))
        records.append(recorded - started)
        retrievals.append(time.perf_counter() - recorded)
    return statistics.median(records), statistics.median(retrievals)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", type=int, default=50, help="turns per round (default 50)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds (default 5)")
    parser.add_argument("--json", action="store_true", help="print the numbers as JSON")
    args = parser.parse_args()

    def memory(target: str) -> MemorywireLongTermMemory:
        return MemorywireLongTermMemory(target, tenant=f"bench-{uuid.uuid4().hex[:8]}", user_id="u",
                                        agent_id="Friday", mode="static_control")

    async def rounds(target: str) -> dict[str, float]:
        base, with_memory, record, retrieve = [], [], [], []
        for _ in range(args.rounds):
            base.append(await agent_turns(None, args.n))
            m = memory(target)
            with_memory.append(await agent_turns(m, args.n))
            await m.close()
            m = memory(target)
            r, q = await raw_calls(m, args.n)
            await m.close()
            record.append(r)
            retrieve.append(q)
        return {"turn_default": statistics.median(base), "turn_memorywire": statistics.median(with_memory),
                "record": statistics.median(record), "retrieve": statistics.median(retrieve)}

    with tempfile.TemporaryDirectory() as tmp:
        served = ServeProcess(Path(tmp) / "store.sqlite3", ["--quiet"])
        try:
            out = asyncio.run(rounds(served.target))
        finally:
            served.stop()
    if args.json:
        print(json.dumps({"turns": args.n, "rounds": args.rounds,
                          "baseline": "agentscope Agent with its in-memory context only", "seconds": out}))
        return
    print(f"AgentScope long-term memory, {args.n} turns x {args.rounds} rounds, medians; "
          "baseline: an Agent turn with its default in-memory context (AgentScope 2.0.11 has no in-memory "
          "long-term memory)")
    rows = [("agent turn, default context", out["turn_default"]),
            ("agent turn, MemorywireLongTermMemory", out["turn_memorywire"]),
            ("record (2 Msgs)", out["record"]), ("retrieve (a text search)", out["retrieve"])]
    for label, seconds in rows:
        print(f"{label:38} {seconds * 1e3:8.3f}ms")
    print(f"{'ratio, agent turn':38} {out['turn_memorywire'] / out['turn_default']:8.1f}x "
          f"(+{(out['turn_memorywire'] - out['turn_default']) * 1e3:.3f}ms per turn)")


if __name__ == "__main__":
    main()
