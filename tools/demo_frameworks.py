"""One conversation moving between agent frameworks through memorywire.

Run through `make demo`. It takes the real output of the frameworks
(python/tests/adapters/data/, captured from their released packages),
turns it into memorywire records, keeps them in the reference service on
an embedded store, reads them back, and gives them to other frameworks.
"""

from __future__ import annotations

import json
import pathlib
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import memorywire.protobuf
from memorywire.adapters import FORMS, AdapterError
from memorywire.client import Client
from memorywire.service import MemoryServer, Store

ROOT = pathlib.Path(__file__).resolve().parent.parent
DATA = ROOT / "python" / "tests" / "adapters" / "data"
sys.path.insert(0, str(DATA.parent))

import capture  # type: ignore[import-not-found]


def captured(form: str, filename: str, member: str | None = None) -> list[Any]:
    with open(DATA / form / filename, encoding="utf-8") as f:
        items = capture.decode(json.load(f))["items"]
    return list(items[member] if member else items)


@contextmanager
def service() -> Iterator[Client]:
    with tempfile.TemporaryDirectory() as folder:
        store = Store(str(pathlib.Path(folder) / "memory.sqlite3"))
        server = MemoryServer(store, "127.0.0.1:0", log=None)
        port = server.start()
        try:
            with Client(f"127.0.0.1:{port}", tenant="demo") as client:
                yield client
        finally:
            server.stop(grace=1.0)
            store.close()


def stored(client: Client, session: str) -> list[dict[str, Any]]:
    """A thread as History gives it back, in order, every page."""
    records: list[dict[str, Any]] = []
    cursor = None
    while True:
        page = client.history(scope={"session": session}, cursor=cursor, limit=100)
        records.extend(page.get("records", ()))
        cursor = page.get("next_cursor")
        if not cursor:
            return records


def line(text: Any, width: int = 60) -> str:
    flat = " ".join(str(text).split())
    return flat if len(flat) <= width else flat[:width - 1] + "…"


def langchain_line(message: dict[str, Any]) -> str:
    data = message["data"]
    calls = [c["name"] for c in data.get("tool_calls") or ()]
    body = data.get("content")
    if isinstance(body, list):
        body = " ".join(p if isinstance(p, str) else p.get("text", f"[{p.get('type')}]") for p in body)
    return f"{message['type']:>6}: {line(body) if body else ''}{' calls ' + ', '.join(calls) if calls else ''}"


def main() -> int:
    print(f"{len(FORMS)} adapter forms: {', '.join(sorted({f.framework for f in FORMS.values()}))}\n")
    swarm = FORMS["agency_swarm.thread_message"]
    thread = captured("agency_swarm.thread_message", "agency_run.json")
    with service() as client:
        records = swarm.to_records(thread, session="swarm-1")
        wire = [memorywire.protobuf.encode(r) for r in records]
        client.put([memorywire.protobuf.decode(b) for b in wire])
        back = stored(client, "swarm-1")
        same = swarm.from_records(back) == thread
        print(f"Agency Swarm thread: {len(thread)} messages -> {len(records)} records "
              f"({sum(map(len, wire))} bytes of Protobuf) -> the service -> History: "
              f"{'exactly the same thread' if same else 'CHANGED'}")
        if not same:
            return 1
        print("  the same conversation, read by LangChain (messages_to_dict):")
        for message in FORMS["langchain.messages_to_dict"].from_records(back):
            print("   ", langchain_line(message))
        chat = FORMS["openai.chat_message"].from_records(back)
        print(f"  and by the Chat Completions API: {len(chat)} messages, roles "
              f"{', '.join(m['role'] for m in chat)}")

        session = FORMS["openai_agents.session_item"]
        items = captured("openai_agents.session_item", "conversation.json", "get_items")
        client.put(session.to_records(items, session="agents-1"))
        back = stored(client, "agents-1")
        same = session.from_records(back) == items
        print(f"\nopenai-agents SQLiteSession: {len(items)} items -> the service -> "
              f"{'exactly the same items' if same else 'CHANGED'}")
        if not same:
            return 1
        try:
            FORMS["langchain.messages_to_dict"].from_records(back)
        except AdapterError as e:
            # What a framework cannot hold is refused by name, never dropped.
            print(f"  LangChain refuses what it cannot hold: {e}")
        else:
            print("  LangChain took an item_reference it cannot hold")
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
