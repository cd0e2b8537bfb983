"""One memory, shared by frameworks that have never heard of one another.

Run by `make demo` with the interpreter of the `crossframework` environment
(python/tests/adapters/frameworks/envs.toml: openai-agents, LangChain,
LangGraph, AgentScope and AutoGen in one process) against one `memorywire
serve` on loopback. No model is called: the agent's model is a script.

1. An openai-agents agent talks for two turns with its session in
   memorywire (MemorywireSession); the second turn sees the first.
2. LangChain reads that conversation as its messages, AgentScope as Msgs.
3. LangGraph's store keeps two facts; AutoGen's Memory.query finds them.
4. With `--agency-swarm PYTHON` (the `agency_swarm` environment's
   interpreter), an Agency Swarm run is saved through its thread callbacks
   by that interpreter, and read here: the user's thread and the
   agent-to-agent thread stay apart.

    python tools/demo_crossframework.py [--agency-swarm PYTHON]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
AGENCY_RUN = ROOT / "python" / "tests" / "adapters" / "data" / "agency_swarm.thread_message" / "agency_run.json"
TENANT = "acme"
SESSION = "trip-42"


def show(who: str, text: Any) -> None:
    print(f"  {who:<40} {text}")


# -- 1. openai-agents writes -------------------------------------------------------------------

async def openai_agents_turns(target: str) -> None:
    from agents import Agent, Runner, set_tracing_disabled
    from agents.testing import ScriptedModel, assistant_message
    from memorywire.integrations.openai_agents import MemorywireSession

    set_tracing_disabled(True)  # traces go to OpenAI's servers; this runs offline
    model = ScriptedModel([[assistant_message("Noted: Lisbon on Friday, by the window.", item_id="msg_1")],
                           [assistant_message("You fly to Lisbon on Friday, by the window.", item_id="msg_2")]])
    agent = Agent(name="Travel agent", instructions="Answer briefly.", model=model)
    session = MemorywireSession(SESSION, target, tenant=TENANT)  # was SQLiteSession(SESSION)
    for question in ("I fly to Lisbon on Friday and like a window seat.", "Where am I flying, and where do I sit?"):
        result = await Runner.run(agent, question, session=session)
        show("openai-agents Runner, user:", question)
        show("openai-agents Runner, agent:", result.final_output)
    show("the model's input in turn 2:", f"{len(model.calls[1].input)} items, turn 1 included")


# -- 2. LangChain and AgentScope read ---------------------------------------------------------

def langchain_reads(target: str) -> None:
    from memorywire.integrations.langchain import MemorywireChatMessageHistory

    history = MemorywireChatMessageHistory(SESSION, target, tenant=TENANT)
    for message in history.messages:
        show(f"LangChain {type(message).__name__}:", message.content)


def agentscope_reads(target: str) -> None:
    import memorywire
    from agentscope.message import Msg
    from memorywire.adapters import FORMS

    with memorywire.Client(target, tenant=TENANT) as mw:
        records = mw.history(scope={"session": SESSION})["records"]
    for msg in (Msg.model_validate(d) for d in FORMS["agentscope.msg"].from_records(records)):
        show(f"AgentScope Msg ({msg.role}):", msg.get_text_content())


# -- 3. LangGraph writes facts, AutoGen finds them ---------------------------------------------

async def langgraph_to_autogen(target: str) -> None:
    from memorywire.integrations.autogen import MemorywireMemory
    from memorywire.integrations.langgraph import MemorywireStore

    store = MemorywireStore(target, tenant=TENANT)  # was InMemoryStore()
    store.put(("memories", "u-42"), "seat", {"text": "The user prefers window seats."})
    store.put(("memories", "u-42"), "diet", {"text": "The user is vegetarian."})
    show("LangGraph store.put:", "2 items in ('memories', 'u-42')")
    memory = MemorywireMemory(target, tenant=TENANT, namespace=["memories", "u-42"])  # was ListMemory()
    for query in ("window seat", "vegetarian meal"):
        found = await memory.query(query)
        show(f"AutoGen Memory.query({query!r}):", [r.content for r in found.results])
    await memory.close()
    store.close()


# -- 4. Agency Swarm, in its own environment ---------------------------------------------------

def agency_swarm_saves(target: str, chat: str) -> None:
    """Run by the agency_swarm environment's interpreter."""
    from memorywire.integrations.agency_swarm import MemorywireThreads

    items = json.loads(AGENCY_RUN.read_text("utf-8"))["items"]
    threads = MemorywireThreads(target, tenant=TENANT, chat_id=chat)  # save_threads_callback=threads.save
    threads.save(items)
    threads.close()


def agency_swarm_reads(target: str, python: str) -> None:
    import memorywire
    from memorywire.adapters import FORMS

    chat = "agency-7"
    subprocess.run([python, __file__, "--save-agency-swarm", target, chat], check=True)
    show("Agency Swarm save_threads_callback:", "a CEO and a Dev, one run (its own interpreter)")
    with memorywire.Client(target, tenant=TENANT) as mw:
        user = mw.history(scope={"session": chat}, thread="user")["records"]
        between = mw.history(scope={"session": chat}, thread="between", agents=["CEO", "Dev"])["records"]
    show("History, the user's thread:", f"{len(user)} records, first: {first_text(user)!r}")
    show("History, between CEO and Dev:", f"{len(between)} records, first: {first_text(between)!r}")
    messages = FORMS["langchain.messages_to_dict"].from_records(
        [r for r in between if r["kind"] == "message"])
    show("read as LangChain dicts:", [m["type"] for m in messages])


def first_text(records: list[dict[str, Any]]) -> str:
    for record in records:
        for part in record.get("message", {}).get("content", []):
            if "text" in part:
                return str(part["text"]["text"])
    return ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--agency-swarm", metavar="PYTHON", help="the agency_swarm environment's interpreter")
    parser.add_argument("--save-agency-swarm", nargs=2, metavar=("TARGET", "CHAT"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.save_agency_swarm:
        agency_swarm_saves(*args.save_agency_swarm)
        return 0

    from memorywire.service.process import ServeProcess

    with tempfile.TemporaryDirectory() as folder, ServeProcess(Path(folder) / "memory.sqlite3", ["--quiet"]) as served:
        print(f"memorywire serve on {served.target}; tenant {TENANT!r}, session {SESSION!r}")
        asyncio.run(openai_agents_turns(served.target))
        langchain_reads(served.target)
        agentscope_reads(served.target)
        asyncio.run(langgraph_to_autogen(served.target))
        if args.agency_swarm:
            agency_swarm_reads(served.target, args.agency_swarm)
        before = stored(served.target)
        served.restart()
        after = stored(served.target)
        show("after a restart of the service:", f"{len(after)} records of {len(before)}")
        if after != before:
            print("the restarted service does not give back what it held", file=sys.stderr)
            return 1
    return 0


def stored(target: str) -> list[dict[str, Any]]:
    import memorywire

    with memorywire.Client(target, tenant=TENANT) as mw:
        return list(mw.export())


if __name__ == "__main__":
    sys.exit(main())
