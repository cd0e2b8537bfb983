"""Capture what agent frameworks really emit, for the adapter tests.

Run inside a virtual environment that has one framework installed:

    python python/tests/adapters/capture.py langchain

Each capture builds a realistic conversation or memory from the framework's
own objects, with no network and no model call, and writes exactly what the
framework's own serializer or store returns under ``data/<form>/``.  The
file format (tags for Python-only types) is described in README.md.
"""

from __future__ import annotations

import asyncio
import base64
import copy
import datetime as dt
import importlib.metadata
import json
import math
import os
import random
import sqlite3
import struct
import sys
import tempfile
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent / "data"

# A single-member dict whose key is one of these tags stands for a Python
# value that JSON cannot hold; no captured dict has that shape (checked).
TAGS = ("$bytes", "$utf8", "$datetime", "$tuple", "$float", "$set")


def encode(value: Any) -> Any:
    """Turn a captured Python value into JSON, tagging what JSON lacks."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return value  # JSON integers have no size limit; read back exact.
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            return {"$float": repr(value)}
        return value  # repr keeps 1.0 and -0.0 distinct from 1 and 0.0.
    if isinstance(value, (bytes, bytearray)):
        try:  # JSON text kept as bytes (orjson): readable, and exact
            return {"$utf8": bytes(value).decode("utf-8")}
        except UnicodeDecodeError:
            return {"$bytes": base64.b64encode(bytes(value)).decode("ascii")}
    if isinstance(value, dt.datetime):
        return {"$datetime": value.isoformat()}
    if isinstance(value, tuple):
        return {"$tuple": [encode(v) for v in value]}
    if isinstance(value, (set, frozenset)):
        return {"$set": sorted(encode(v) for v in value)}
    if isinstance(value, list):
        return [encode(v) for v in value]
    if isinstance(value, dict):
        if len(value) == 1 and next(iter(value)) in TAGS:
            raise ValueError(f"captured dict collides with a tag: {value!r}")
        out = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise TypeError(f"non-string key {key!r}")
            out[key] = encode(item)
        return out
    raise TypeError(f"cannot encode {type(value).__name__}: {value!r}")


def decode(value: Any) -> Any:
    """Inverse of encode, for the tests that read the data files."""
    if isinstance(value, list):
        return [decode(v) for v in value]
    if isinstance(value, dict):
        if len(value) == 1:
            ((key, inner),) = value.items()
            if key == "$bytes":
                return base64.b64decode(inner)
            if key == "$utf8":
                return inner.encode("utf-8")
            if key == "$datetime":
                return dt.datetime.fromisoformat(inner)
            if key == "$tuple":
                return tuple(decode(v) for v in inner)
            if key == "$float":
                return float(inner)
            if key == "$set":
                return set(decode(v) for v in inner)
        return {k: decode(v) for k, v in value.items()}
    return value


def versions(*names: str) -> dict[str, str]:
    return {name: importlib.metadata.version(name) for name in names}


def write(form: str, name: str, items: Any, packages: dict[str, str], note: str) -> None:
    """Write one data file; `items` is exactly what the framework returned."""
    doc = {
        "form": form,
        "packages": packages,
        "python": ".".join(map(str, sys.version_info[:3])),
        "note": note,
        "items": encode(items),
    }
    text = json.dumps(doc, indent=1, ensure_ascii=False) + "\n"
    # The file must read back to the same Python value, type for type.
    assert_same(decode(json.loads(text)["items"]), items)
    path = DATA / form / f"{name}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    print(f"wrote {path.relative_to(DATA.parent)} ({len(text)} bytes)")


def assert_same(a: Any, b: Any, where: str = "") -> None:
    """Type-exact equality: 1 is not 1.0 is not True, -0.0 is not 0.0."""
    if isinstance(b, tuple) and isinstance(a, tuple) or type(a) is type(b):
        pass
    elif isinstance(b, (set, frozenset)) and isinstance(a, set):
        pass
    elif isinstance(b, bytearray) and isinstance(a, bytes):
        pass
    else:
        raise AssertionError(f"{where}: {type(a).__name__} != {type(b).__name__}")
    if isinstance(b, dict):
        if list(a) != list(b):
            raise AssertionError(f"{where}: keys {list(a)} != {list(b)}")
        for key in b:
            assert_same(a[key], b[key], f"{where}/{key}")
    elif isinstance(b, (list, tuple)):
        if len(a) != len(b):
            raise AssertionError(f"{where}: length {len(a)} != {len(b)}")
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            assert_same(x, y, f"{where}/{i}")
    elif isinstance(b, float):
        if struct.pack("<d", a) != struct.pack("<d", b) and not (math.isnan(a) and math.isnan(b)):
            raise AssertionError(f"{where}: {a!r} != {b!r}")
    elif a != b:
        raise AssertionError(f"{where}: {a!r} != {b!r}")


def select_rows(conn: sqlite3.Connection, table: str) -> list[dict[str, Any]]:
    """A table's rows in storage order, as column name -> value (SQLite types)."""
    cur = conn.execute(f"SELECT * FROM {table} ORDER BY rowid")
    names = [d[0] for d in cur.description]
    return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]


# --- shared, deterministic inputs -------------------------------------------


def png(width: int, height: int, seed: int) -> bytes:
    """A valid RGB PNG of seeded noise (noise does not compress: photo-sized)."""
    rng = random.Random(seed)
    raw = b"".join(b"\x00" + bytes(rng.randrange(256) for _ in range(width * 3)) for _ in range(height))

    def chunk(kind: bytes, body: bytes) -> bytes:
        crc = zlib.crc32(kind + body) & 0xFFFFFFFF
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")


def data_uri(data: bytes, mime: str = "image/png") -> str:
    return f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"


TINY_PNG = png(1, 1, 1)
SMALL_URI = data_uri(TINY_PNG)
# 46x46 noise: a data: URI just past 8,192 characters, as any real photo is.
LARGE_URI = data_uri(png(46, 46, 7))
assert len(LARGE_URI) > 8192, len(LARGE_URI)
BIG_INT = 2**63 + 1
HUGE_INT = 10**30
TEXTS = ["", "naïve café ☕ 🦀 \u200b", 'line1\nline2\ttab "quoted" \\ back']


# --- langchain-core ---------------------------------------------------------


def capture_langchain() -> None:
    from langchain_core.load import dumpd
    from langchain_core.messages import (
        AIMessage,
        AIMessageChunk,
        ChatMessage,
        ChatMessageChunk,
        FunctionMessage,
        FunctionMessageChunk,
        HumanMessage,
        HumanMessageChunk,
        RemoveMessage,
        SystemMessage,
        SystemMessageChunk,
        ToolMessage,
        ToolMessageChunk,
        messages_from_dict,
        messages_to_dict,
    )

    chunk_a = AIMessageChunk(
        content="Let me ",
        id="run-7f3a",
        tool_call_chunks=[{"name": "get_weather", "args": '{"city": "Par', "id": "call_1", "index": 0}],
    )
    chunk_b = AIMessageChunk(
        content="check.",
        id="run-7f3a",
        tool_call_chunks=[{"name": None, "args": 'is"}', "id": None, "index": 0}],
        usage_metadata={"input_tokens": 12, "output_tokens": 5, "total_tokens": 17},
        chunk_position="last",
    )
    merged = chunk_a + chunk_b
    messages = [
        SystemMessage(content="You are a terse assistant.", id="sys-1"),
        SystemMessage(content=[{"type": "text", "text": "Cache me"}], id="sys-2", name="policy"),
        HumanMessage(content="What's the weather in Paris?", id="hum-1", name="alice"),
        HumanMessage(
            content=[
                {"type": "text", "text": "And what is in this picture?"},
                {"type": "image_url", "image_url": {"url": SMALL_URI, "detail": "low"}},
                {"type": "image_url", "image_url": {"url": LARGE_URI}},
                "a bare string element",
                {"type": "text", "text": ""},
            ],
            id="hum-2",
        ),
        HumanMessage(content=TEXTS[1], additional_kwargs={"lang": "fr"}, example=True),
        HumanMessage(content=""),
        chunk_a,
        chunk_b,
        merged,
        AIMessage(
            content="",
            id="ai-1",
            tool_calls=[
                {"name": "get_weather", "args": {"city": "Paris", "days": 3}, "id": "call_1"},
                {"name": "get_time", "args": {}, "id": "call_2"},
            ],
            invalid_tool_calls=[
                {"name": None, "args": "{not json", "id": None, "error": "bad json"},
                {"name": "lookup", "args": None, "id": "call_3", "error": None},
            ],
            usage_metadata={
                "input_tokens": 40,
                "output_tokens": 12,
                "total_tokens": 52,
                "input_token_details": {"cache_read": 32},
                "output_token_details": {"reasoning": 4},
            },
            response_metadata={"model_name": "gpt-x", "finish_reason": "tool_calls", "logprobs": None},
            additional_kwargs={"refusal": None},
        ),
        ToolMessage(content="18°C, cloudy", tool_call_id="call_1", name="get_weather", id="tool-1"),
        ToolMessage(
            content=[{"type": "text", "text": "error: no clock"}],
            tool_call_id="call_2",
            status="error",
            artifact={"trace": [1, 2.0, True, None], "big": BIG_INT},
        ),
        ToolMessage(content="", tool_call_id=""),
        AIMessage(
            content=[
                {"type": "reasoning", "reasoning": "User wants weather.", "id": "rs_1"},
                {"type": "text", "text": "It is 18°C and cloudy in Paris."},
            ],
            id="ai-2",
            name="weather-bot",
        ),
        FunctionMessage(content='{"ok": true}', name="legacy_fn", id="fn-1"),
        ChatMessage(content="Too verbose.", role="critic", id="chat-1"),
        ChatMessage(content="empty role", role=""),
        RemoveMessage(id="hum-1"),
        HumanMessageChunk(content="par", id="hc-1"),
        SystemMessageChunk(content="sys chunk"),
        ToolMessageChunk(content="partial", tool_call_id="call_9"),
        FunctionMessageChunk(content="fc", name="legacy_fn"),
        ChatMessageChunk(content="cc", role="critic"),
        AIMessage(content=TEXTS[2], id="ai-3", extra_field={"kept": [1, 1.0]}),
    ]
    pkgs = versions("langchain-core")
    as_dicts = messages_to_dict(messages)
    # Their own loader must read the export back to equal messages.
    assert messages_from_dict(as_dicts) == messages
    write(
        "langchain.messages_to_dict",
        "conversation",
        as_dicts,
        pkgs,
        "messages_to_dict() of one list: every message class incl. chunks, the merged "
        "chunk (same id as its parts), RemoveMessage (the id it removes), tool and invalid "
        "tool calls, image_url parts with data: URIs (one past 8,192 characters).",
    )
    # The objects themselves cannot be JSON: kept as messages_to_dict() of them,
    # which messages_from_dict() turns back into equal objects (asserted above).
    write(
        "langchain.messages",
        "conversation",
        as_dicts,
        pkgs,
        "The message objects of the messages_to_dict capture, stored as messages_to_dict() of "
        "them; messages_from_dict() of the items gives the objects back (equal by ==).",
    )
    small = [m for m in messages if m is not messages[3]]  # dumpd: without the large image
    write(
        "langchain.dumpd",
        "conversation",
        [dumpd(m) for m in small],
        pkgs,
        "dumpd() of each message (only the fields pydantic marks as set), the same list "
        "as messages_to_dict without the message with the large image.",
    )


# --- frozen clock --------------------------------------------------------------

EPOCH = dt.datetime(2026, 5, 4, 12, 30, 15, 123456, tzinfo=dt.timezone.utc)


class Clock:
    """A clock for a framework module: each reading is 1 ms after the last."""

    def __init__(self) -> None:
        self.ticks = 0
        clock = self

        class FrozenDatetime(dt.datetime):
            @classmethod
            def now(cls, tz: dt.tzinfo | None = None) -> dt.datetime:  # type: ignore[override]
                return clock.read(tz)

            @classmethod
            def utcnow(cls) -> dt.datetime:  # type: ignore[override]
                return clock.read(dt.timezone.utc).replace(tzinfo=None)

            @classmethod
            def today(cls) -> dt.datetime:  # type: ignore[override]
                return clock.read(None)

        self.datetime = FrozenDatetime

    def read(self, tz: dt.tzinfo | None) -> dt.datetime:
        moment = EPOCH + dt.timedelta(milliseconds=self.ticks)
        self.ticks += 1
        # A plain datetime, so nothing downstream sees the patch class.
        plain = dt.datetime.fromtimestamp(moment.timestamp(), tz or dt.timezone.utc)
        return plain if tz is not None else plain.replace(tzinfo=None)

    def module(self) -> Any:
        """A stand-in for the `datetime` module whose datetime class is frozen."""
        import types

        fake = types.ModuleType("datetime")
        fake.__dict__.update(dt.__dict__)
        fake.datetime = self.datetime  # type: ignore[attr-defined]
        return fake


# SQLite's CURRENT_TIMESTAMP reads the real clock and cannot be patched: the
# captures rewrite those columns afterwards with fixed text of the same shape.
SQL_NOW = "2026-05-04 12:30:15"


# --- langgraph -----------------------------------------------------------------


def fake_embed(texts: list[str]) -> list[list[float]]:
    """Deterministic 4-d embeddings, so search returns real scores offline."""
    out = []
    for text in texts:
        letters = [text.count(c) for c in "aeio"]
        norm = math.sqrt(sum(v * v for v in letters)) or 1.0
        out.append([v / norm for v in letters])
    return out


def capture_langgraph() -> None:
    import langgraph.store.memory as memory_module
    import langgraph.store.sqlite.base as sqlite_module
    from langgraph.store.memory import InMemoryStore
    from langgraph.store.sqlite import SqliteStore

    pkgs = versions("langgraph", "langgraph-checkpoint", "langgraph-checkpoint-sqlite", "orjson")
    memory_module.datetime = Clock().datetime  # type: ignore[attr-defined]
    sqlite_module.datetime = Clock().module()  # type: ignore[attr-defined]

    values = {
        "prefs": {"food": "pizza", "spicy": True, "rating": 4.5, "count": 3, "tags": ["a", "b"]},
        "profile": {"name": TEXTS[1], "age": 41, "big": BIG_INT, "neg_zero": -0.0, "one": 1.0},
        "empty": {},
        "nested": {"z": {"y": [None, [], {}]}, "a": "first key is z", "text": TEXTS[2]},
        "notes": {"text": "I like pizza and pasta on a rainy evening"},
    }

    # InMemoryStore: get, list search (score None) and semantic search (scores).
    mem = InMemoryStore(index={"dims": 4, "embed": fake_embed, "fields": ["text"]})
    mem.put(("users", "u-1", "memories"), "prefs", values["prefs"])
    mem.put(("users", "u-1", "memories"), "profile", {**values["profile"], "huge": HUGE_INT})
    mem.put(("users", "u-1", "memories"), "nested", values["nested"], index=False)
    mem.put(("users", "u-1", "notes"), "n1", values["notes"])
    mem.put(("users", "u-1", "notes"), "n2", {"text": "Meeting at ten about the audio setup"})
    mem.put(("users", "u-1", "memories"), "prefs", {**values["prefs"], "food": "pasta"})  # update
    mem.put(("users", "u-2"), "empty", values["empty"])
    mem.delete(("users", "u-2"), "empty")
    mem.put(("users", "u-2"), "emoji 🦀 key", {"k": "v"})
    got = mem.get(("users", "u-1", "memories"), "prefs")
    assert got is not None
    items = [got.dict()]
    items += [i.dict() for i in mem.search(("users", "u-1"), limit=10)]
    items += [i.dict() for i in mem.search(("users",), query="pizza on a rainy day", limit=3)]
    items += [i.dict() for i in mem.search(("users",), filter={"food": "pasta"})]
    write(
        "langgraph.item",
        "in_memory_store",
        items,
        pkgs,
        "InMemoryStore: get().dict(), then search().dict() without query (score null), "
        "with a query over a deterministic fake embedding (float scores), with a filter. "
        "Clock frozen (1 ms per reading): created_at and updated_at are two readings.",
    )

    # SqliteStore: TTL, naive timestamps, values kept as orjson bytes.
    with tempfile.TemporaryDirectory() as tmp:
        conn = sqlite3.connect(os.path.join(tmp, "store.db"), check_same_thread=False, isolation_level=None)
        store = SqliteStore(conn, ttl={"default_ttl": None, "refresh_on_read": True})
        store.setup()
        store.put(("users", "u-1", "memories"), "prefs", values["prefs"])
        store.put(("users", "u-1", "memories"), "profile", values["profile"], ttl=90)
        store.put(("users", "u-1", "memories"), "nested", values["nested"], ttl=0.5)
        store.put(("users", "u-1", "notes"), "n1", values["notes"])
        store.put(("users", "u-2"), "empty", values["empty"])
        store.put(("users", "u-2"), "emoji 🦀 key", {"k": "v"})
        store.put(("users", "u-1", "memories"), "prefs", {**values["prefs"], "food": "pasta"})
        try:
            store.put(("users", "u-3"), "huge", {"huge": HUGE_INT})
            huge_error = "accepted"
        except TypeError as exc:
            huge_error = f"{type(exc).__name__}: {exc}"
        conn.execute("UPDATE store SET created_at = ?, updated_at = ?", (SQL_NOW, SQL_NOW))

        before = select_rows(conn, "store")
        got = store.get(("users", "u-1", "memories"), "profile", refresh_ttl=False)
        assert got is not None
        sq_items = [got.dict()]
        sq_items += [i.dict() for i in store.search(("users",), refresh_ttl=False, limit=20)]
        sq_items += [i.dict() for i in store.search(("users",), filter={"food": "pasta"}, refresh_ttl=False)]
        # A read that refreshes the TTL rewrites expires_at in SQLite's own format.
        store.get(("users", "u-1", "memories"), "nested", refresh_ttl=True)
        conn.execute(
            "UPDATE store SET expires_at = DATETIME(?, '+' || ttl_minutes || ' minutes') WHERE key = 'nested'",
            (SQL_NOW,),
        )
        after = select_rows(conn, "store")
        conn.close()
    write(
        "langgraph.item",
        "sqlite_store",
        sq_items,
        pkgs,
        "SqliteStore: get().dict() then search().dict() without query and with a filter; "
        "created_at/updated_at set by SQLite CURRENT_TIMESTAMP, rewritten to fixed text. "
        f"A put of a value holding 10**30: {huge_error}.",
    )
    write(
        "langgraph.sqlite_store_row",
        "store_table",
        {"after_put": before, "after_refreshing_get": after},
        pkgs,
        "SELECT * FROM store ORDER BY rowid, as column name -> value; value is the BLOB "
        "orjson wrote. after_refreshing_get: get(refresh_ttl=True) of 'nested' has "
        "rewritten its expires_at with SQLite DATETIME().",
    )


# --- openai-agents (and the OpenAI shapes it produces) -------------------------


def responses_conversation(agent: Any) -> list[Any]:
    """A Runner-shaped turn: the SDK's own items, as it feeds them back as input."""
    from agents.items import (
        ItemHelpers,
        MessageOutputItem,
        ReasoningItem,
        ToolCallItem,
        ToolCallOutputItem,
    )
    from agents.tool import ToolOutputFileContent, ToolOutputImage, ToolOutputText
    from openai.types.responses import (
        ResponseFunctionToolCall,
        ResponseOutputMessage,
        ResponseOutputRefusal,
        ResponseOutputText,
        ResponseReasoningItem,
    )
    from openai.types.responses.response_output_text import AnnotationURLCitation
    from openai.types.responses.response_reasoning_item import Summary

    weather = ResponseFunctionToolCall(
        arguments='{"city":"Paris","units":"c"}',
        call_id="call_Wx1",
        name="get_weather",
        type="function_call",
        id="fc_001",
        status="completed",
    )
    chart = ResponseFunctionToolCall(
        arguments="{}", call_id="call_Ch2", name="render_chart", type="function_call", id="fc_002"
    )
    items: list[Any] = ItemHelpers.input_to_new_input_list("What's the weather in Paris?")
    items += [
        ReasoningItem(
            agent=agent,
            raw_item=ResponseReasoningItem(
                id="rs_001",
                summary=[Summary(text="Need the weather tool.", type="summary_text")],
                type="reasoning",
                encrypted_content="gAAAAB-opaque==",
            ),
        ).to_input_item(),
        ToolCallItem(agent=agent, raw_item=weather).to_input_item(),
        ToolCallOutputItem(
            agent=agent,
            raw_item=ItemHelpers.tool_call_output_item(weather, {"temp": 18, "sky": "cloudy"}),
            output={"temp": 18, "sky": "cloudy"},
        ).to_input_item(),
        ToolCallItem(agent=agent, raw_item=chart).to_input_item(),
        ToolCallOutputItem(
            agent=agent,
            raw_item=ItemHelpers.tool_call_output_item(
                chart,
                [
                    ToolOutputText(text="Chart attached"),
                    ToolOutputImage(image_url=SMALL_URI, detail="low"),
                    ToolOutputFileContent(file_data="JVBERi0xLjQK", filename="chart.pdf"),
                ],
            ),
            output=None,
        ).to_input_item(),
        MessageOutputItem(
            agent=agent,
            raw_item=ResponseOutputMessage(
                id="msg_001",
                content=[
                    ResponseOutputText(
                        annotations=[
                            AnnotationURLCitation(
                                end_index=20,
                                start_index=0,
                                title="Météo",
                                type="url_citation",
                                url="https://example.org/paris",
                            )
                        ],
                        text="It is 18°C in Paris.",
                        type="output_text",
                        logprobs=[],
                    )
                ],
                role="assistant",
                status="completed",
                type="message",
            ),
        ).to_input_item(),
        {
            "role": "user",
            "content": [
                {"type": "input_text", "text": "And this photo and file?"},
                {"type": "input_image", "detail": "auto", "image_url": SMALL_URI},
                {"type": "input_image", "detail": "high", "file_id": "file-img1"},
                {"type": "input_file", "file_data": "SGVsbG8=", "filename": "hello.txt"},
                {"type": "input_file", "file_id": "file-abc"},
                {"type": "input_file", "file_url": "https://example.org/a.pdf"},
                {"type": "input_text", "text": ""},
            ],
        },
        MessageOutputItem(
            agent=agent,
            raw_item=ResponseOutputMessage(
                id="msg_002",
                content=[ResponseOutputRefusal(refusal="I can't identify people.", type="refusal")],
                role="assistant",
                status="incomplete",
                type="message",
            ),
        ).to_input_item(),
        {"content": TEXTS[1], "role": "user"},
        {"role": "developer", "content": "Be brief.", "type": "message"},
        {"type": "function_call_output", "call_id": "", "output": ""},
        {"type": "item_reference", "id": "msg_001"},
    ]
    return items


def capture_openai_agents() -> None:
    from agents import Agent, SQLiteSession
    from agents.models.chatcmpl_converter import Converter

    pkgs = versions("openai-agents", "openai")
    agent = Agent(name="Weather")
    items = responses_conversation(agent)
    write(
        "openai.responses_item",
        "conversation",
        items,
        pkgs,
        "Responses input items as the Runner feeds them back: input_to_new_input_list, "
        "RunItem.to_input_item() of SDK items built from openai types (reasoning, "
        "function_call, function_call_output with dict and list output, output messages "
        "with url_citation and refusal), plus easy-form user input with input_image / "
        "input_file parts, an empty call_id, an item_reference.",
    )
    # The chat converter refuses some parts; keep those it takes, and say which.
    refused: list[str] = []

    def converts(part: Any) -> bool:
        try:
            Converter.items_to_messages([{"role": "user", "content": [part]}], model="gpt-4o")
            return True
        except Exception as exc:  # any refusal is reported in the note
            refused.append(f"{json.dumps(part)[:60]}: {type(exc).__name__}: {exc}"[:200])
            return False

    convertible = []
    for item in items:
        if item.get("type") == "item_reference":
            refused.append("item_reference: no chat form")
            continue
        if item.get("role") == "user" and isinstance(item.get("content"), list):
            item = {**item, "content": [p for p in item["content"] if converts(p)]}
        convertible.append(item)
    write(
        "openai.chat_message",
        "conversation",
        Converter.items_to_messages(convertible, model="gpt-4o"),
        pkgs,
        "Chat Completions messages made by the SDK's own Converter.items_to_messages from "
        "the responses_item conversation. Left out, as the converter refuses them: " + "; ".join(refused),
    )

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "session.db")
        session = SQLiteSession("conv-42", db_path=path)

        async def fill() -> tuple[list[Any], Any]:
            await session.add_items(items[:5])
            await session.add_items(items[5:])
            await session.add_items([{"role": "user", "content": "to be popped"}])
            popped = await session.pop_item()
            return await session.get_items(), popped

        got, popped = asyncio.run(fill())
        session.close()
        conn = sqlite3.connect(path)
        conn.execute("UPDATE agent_messages SET created_at = ?", (SQL_NOW,))
        conn.execute("UPDATE agent_sessions SET created_at = ?, updated_at = ?", (SQL_NOW, SQL_NOW))

        table_rows = {name: select_rows(conn, name) for name in ("agent_sessions", "agent_messages")}
        conn.close()
    write(
        "openai_agents.session_item",
        "conversation",
        {"get_items": got, "pop_item": popped},
        pkgs,
        "SQLiteSession('conv-42'): add_items in two batches, add one more, pop_item() "
        "(returned here), then get_items().",
    )
    write(
        "openai_agents.sqlite_session_row",
        "session_tables",
        table_rows,
        pkgs,
        "SELECT * of both tables after the same calls; message_data is the json.dumps text "
        "the session wrote. created_at/updated_at come from SQLite CURRENT_TIMESTAMP and "
        "are rewritten to fixed text of the same shape.",
    )


# --- agency-swarm --------------------------------------------------------------


def seeded_uuid4(seed: int) -> Callable[[], Any]:
    import uuid

    rng = random.Random(seed)
    return lambda: uuid.UUID(int=rng.getrandbits(128), version=4)


class TickingTime:
    """Stands in for the `time` module: time() is 1 ms later at every reading."""

    def __init__(self, module: Any) -> None:
        self._module = module
        self._ticks = 0

    def time(self) -> float:
        self._ticks += 1
        return EPOCH.timestamp() + self._ticks / 1000

    def __getattr__(self, name: str) -> Any:
        return getattr(self._module, name)


def scripted_model(turns: list[list[Any]]) -> Any:
    """A local Model that answers each call with the next scripted output."""
    from agents.items import ModelResponse
    from agents.models.interface import Model
    from agents.usage import Usage

    class Scripted(Model):
        async def get_response(self, *args: Any, **kwargs: Any) -> Any:
            return ModelResponse(output=turns.pop(0), usage=Usage(), response_id=None)

        def stream_response(self, *args: Any, **kwargs: Any) -> Any:
            raise NotImplementedError("the capture does not stream")

    return Scripted()


def capture_agency_swarm() -> None:
    import time
    import uuid

    uuid.uuid4 = seeded_uuid4(10)  # run ids, trace ids: deterministic
    import agency_swarm.messages.message_formatter as formatter
    from agency_swarm import Agency, Agent
    from agents import set_trace_processors
    from openai.types.responses import (
        ResponseFileSearchToolCall,
        ResponseFunctionToolCall,
        ResponseOutputMessage,
        ResponseOutputText,
    )
    from openai.types.responses.response_file_search_tool_call import Result
    from openai.types.responses.response_output_text import AnnotationFileCitation

    formatter.time = TickingTime(time)  # type: ignore[attr-defined]
    set_trace_processors([])  # traces get ids but go nowhere
    os.environ.setdefault("OPENAI_API_KEY", "sk-offline-never-used")

    def message(mid: str, text: str, annotations: list[Any] | None = None) -> Any:
        return ResponseOutputMessage(
            id=mid,
            content=[ResponseOutputText(annotations=annotations or [], text=text, type="output_text")],
            role="assistant",
            status="completed",
            type="message",
        )

    ceo_turns = [
        [
            ResponseFunctionToolCall(
                arguments=json.dumps(
                    {"recipient_agent": "Dev", "message": "Fix the login bug", "additional_instructions": ""}
                ),
                call_id="call_send_1",
                name="send_message",
                type="function_call",
                id="fc_ceo_1",
                status="completed",
            )
        ],
        [
            ResponseFileSearchToolCall(
                id="fs_ceo_1",
                queries=["login policy"],
                status="completed",
                type="file_search_call",
                results=[Result(file_id="file-pol", filename="policy.md", score=0.87, text="Use SSO.")],
            ),
            message(
                "msg_ceo_2",
                "Dev fixed it; policy says use SSO.",
                [AnnotationFileCitation(file_id="file-pol", filename="policy.md", index=33, type="file_citation")],
            ),
        ],
    ]
    dev_turns = [[message("msg_dev_1", "Fixed: the session cookie was not renewed.")]]
    ceo = Agent(name="CEO", instructions="Lead.", model=scripted_model(ceo_turns))
    dev = Agent(name="Dev", instructions="Code.", model=scripted_model(dev_turns))
    saved: list[list[dict[str, Any]]] = []
    agency = Agency(
        ceo,
        communication_flows=[(ceo, dev)],
        load_threads_callback=lambda: [],
        save_threads_callback=lambda messages: saved.append(copy.deepcopy(messages)),
    )
    agency.get_response_sync("Please get the login bug fixed.")
    write(
        "agency_swarm.thread_message",
        "agency_run",
        saved[-1],
        versions("agency-swarm", "openai-agents", "openai"),
        f"The flat list the last of {len(saved)} save_threads_callback calls received, "
        "for one user turn: CEO calls send_message to Dev, Dev answers, CEO runs a "
        "file_search and answers with a file_citation. Models are local scripted "
        "objects (no network); uuid4 is seeded and the formatter's time.time() ticks "
        "1 ms per reading from a fixed epoch.",
    )


# --- autogen-core --------------------------------------------------------------


def capture_autogen() -> None:
    from autogen_core import FunctionCall, Image
    from autogen_core.memory import ListMemory, MemoryContent, MemoryMimeType
    from autogen_core.model_context import UnboundedChatCompletionContext
    from autogen_core.models import (
        AssistantMessage,
        FunctionExecutionResult,
        FunctionExecutionResultMessage,
        SystemMessage,
        UserMessage,
    )

    pkgs = versions("autogen-core", "pydantic", "pillow")
    image = Image.from_base64(base64.b64encode(TINY_PNG).decode("ascii"))
    messages = [
        SystemMessage(content="You are a helpful assistant."),
        UserMessage(content="What's the weather in Paris?", source="user"),
        UserMessage(content=["Compare with this chart:", image, ""], source="alice"),
        AssistantMessage(
            content=[
                FunctionCall(id="call_1", arguments='{"city": "Paris"}', name="get_weather"),
                FunctionCall(id="call_2", arguments="{}", name="get_time"),
            ],
            thought="I need the weather first.",
            source="assistant",
        ),
        FunctionExecutionResultMessage(
            content=[
                FunctionExecutionResult(content="18°C", name="get_weather", call_id="call_1", is_error=False),
                FunctionExecutionResult(content="no clock", name="get_time", call_id="call_2", is_error=True),
                FunctionExecutionResult(content="", name="", call_id=""),
            ]
        ),
        AssistantMessage(content=TEXTS[1], source="assistant"),
        AssistantMessage(content="", source=""),
    ]
    context = UnboundedChatCompletionContext()

    async def fill_context() -> Any:
        for message in messages:
            await context.add_message(message)
        return await context.save_state()

    state = asyncio.run(fill_context())
    dumped = [m.model_dump() for m in messages]
    assert state == {"messages": dumped}
    write(
        "autogen.llm_message",
        "conversation",
        dumped,
        pkgs,
        "model_dump() of each LLM message, equal to UnboundedChatCompletionContext."
        "save_state()['messages']. Image content dumps as {'data': base64 of the PNG that "
        "PIL re-encoded}, not the bytes given.",
    )

    contents = [
        MemoryContent(content="User prefers metric units.", mime_type=MemoryMimeType.TEXT),
        MemoryContent(content="# Notes\n- likes *tea*", mime_type=MemoryMimeType.MARKDOWN, metadata={"src": "chat"}),
        MemoryContent(
            content={"big": BIG_INT, "huge": HUGE_INT, "f": 1.0, "neg_zero": -0.0, "list": [1, True, None]},
            mime_type=MemoryMimeType.JSON,
            metadata={"category": "profile", "priority": 2},
        ),
        MemoryContent(content=b"\x00\x01binary\xff", mime_type=MemoryMimeType.BINARY),
        MemoryContent(content=b"utf8 bytes \xc3\xa9", mime_type="application/x-custom"),
        MemoryContent(content=image, mime_type=MemoryMimeType.IMAGE, metadata={}),
        MemoryContent(content="", mime_type="text/plain", metadata=None),
    ]
    write(
        "autogen.memory_content",
        "contents",
        [c.model_dump() for c in contents],
        pkgs,
        "model_dump() of each MemoryContent: bytes stay bytes, the enum dumps as its string.",
    )
    memory = ListMemory(name="user_prefs")

    async def fill_memory() -> None:
        for content in contents:
            if not isinstance(content.content, bytes) or content.content.isascii():
                await memory.add(content)

    asyncio.run(fill_memory())
    component = memory.dump_component()
    try:
        contents[3].model_dump_json()
        bytes_json = "accepted"
    except Exception as exc:  # reported in the note
        bytes_json = f"{type(exc).__name__}: {str(exc).splitlines()[0]}"
    write(
        "autogen.list_memory_component",
        "component",
        {"model_dump": component.model_dump(), "model_dump_json": component.model_dump_json()},
        pkgs,
        "ListMemory('user_prefs').dump_component() after adding the contents "
        "(the non-ASCII bytes left out: model_dump_json cannot hold them): its "
        f"model_dump() and its model_dump_json() text. Non-UTF-8 bytes: {bytes_json}.",
    )


# --- agentscope ----------------------------------------------------------------


def capture_agentscope() -> None:
    import agentscope

    if agentscope.__version__.startswith("1."):
        capture_agentscope_1()
        return
    from agentscope import set_id_factory, set_timestamp_factory
    from agentscope.message import (
        Base64Source,
        DataBlock,
        HintBlock,
        Msg,
        TextBlock,
        ThinkingBlock,
        ToolCallBlock,
        ToolResultBlock,
        URLSource,
        Usage,
    )
    from agentscope.state import AgentState
    from agentscope.types._reply import ErrorInfo

    clock = Clock()
    new_uuid = seeded_uuid4(20)
    set_id_factory(lambda: new_uuid().hex)
    set_timestamp_factory(lambda: clock.read(None).isoformat())

    def stamp() -> str:
        return clock.read(None).isoformat()

    def bid() -> str:
        return new_uuid().hex

    messages = [
        Msg(name="system", role="system", content=[TextBlock(text="You are Friday.", id=bid(), created_at=stamp())]),
        Msg(
            name="alice",
            role="user",
            content=[
                TextBlock(text="What's in this picture and recording?", id=bid(), created_at=stamp()),
                DataBlock(
                    id=bid(),
                    created_at=stamp(),
                    source=Base64Source(data=base64.b64encode(TINY_PNG).decode(), media_type="image/png"),
                    name="photo.png",
                ),
                DataBlock(
                    id=bid(),
                    created_at=stamp(),
                    source=URLSource(url="https://example.org/a.wav", media_type="audio/wav"),
                ),
                TextBlock(text="", id=bid(), created_at=stamp()),
            ],
            metadata={"channel": "web", "big": BIG_INT},
        ),
        Msg(
            name="Friday",
            role="assistant",
            content=[
                ThinkingBlock(thinking="Need the vision tool.", id=bid(), created_at=stamp(), finished_at=stamp()),
                HintBlock(hint="Remember: be brief.", id=bid(), source="sop", created_at=stamp(), finished_at=None),
                HintBlock(
                    hint=[TextBlock(text="list hint", id=bid(), created_at=stamp())],
                    id=bid(),
                    created_at=stamp(),
                    finished_at=stamp(),
                ),
                ToolCallBlock(
                    id="call_1",
                    name="describe_image",
                    input='{"detail": "high"}',
                    state="finished",
                    suggested_rules=[],
                    created_at=stamp(),
                    finished_at=stamp(),
                ),
                ToolResultBlock(
                    id="call_1",
                    name="describe_image",
                    output=[
                        TextBlock(text="A cat on a mat.", id=bid(), created_at=stamp()),
                        DataBlock(
                            id=bid(),
                            created_at=stamp(),
                            source=Base64Source(data="AAEC", media_type="application/octet-stream"),
                        ),
                    ],
                    state="success",
                    metadata={"latency_ms": 12.5},
                    created_at=stamp(),
                    finished_at=stamp(),
                ),
                ToolCallBlock(
                    id="call_2",
                    name="transcribe",
                    input="{partial",
                    state="pending",
                    suggested_rules=[],
                    created_at=stamp(),
                ),
                ToolResultBlock(
                    id="call_2",
                    name="transcribe",
                    output="denied by user",
                    state="denied",
                    metadata={},
                    created_at=stamp(),
                ),
                TextBlock(text=TEXTS[1], id=bid(), created_at=stamp(), finished_at=stamp()),
            ],
            usage=Usage(input_tokens=120, output_tokens=30),
            finished_at=stamp(),
            finished_reason="completed",
            structured_output={"animal": "cat", "count": 1, "score": 0.5},
        ),
        Msg(
            name="Friday",
            role="assistant",
            content=[TextBlock(text="Partial answer", id=bid(), created_at=stamp())],
            finished_reason="error",
            error=ErrorInfo(type="rate_limit", message="429 Too Many Requests"),
        ),
    ]
    dumped = [m.model_dump(mode="json") for m in messages]
    assert [Msg.model_validate(d) for d in dumped] == messages
    pkgs = versions("agentscope", "pydantic")
    write(
        "agentscope.msg",
        "v2_messages",
        dumped,
        pkgs,
        "Msg.model_dump(mode='json') of 2.x messages with every block type (text, thinking, "
        "hint str/list, data base64/url, tool_call pending/finished, tool_result list/str "
        "output), usage, finished_*, structured_output, error. set_id_factory (seeded uuid4 "
        "hex) and set_timestamp_factory (naive isoformat, frozen clock) make it deterministic.",
    )
    state = AgentState(session_id="session-1", summary="Earlier: greetings.", context=messages[:2])
    write(
        "agentscope.msg",
        "v2_agent_state_json",
        state.model_dump_json(),
        pkgs,
        "AgentState(...).model_dump_json() text, the 2.x container of Msg.",
    )


def capture_agentscope_1() -> None:
    import uuid

    uuid.uuid4 = seeded_uuid4(21)  # shortuuid.uuid() draws from uuid4
    import agentscope.message._message_base as message_module
    from agentscope.memory import InMemoryMemory
    from agentscope.message import Msg

    message_module.datetime = Clock().datetime  # type: ignore[attr-defined]
    png64 = base64.b64encode(TINY_PNG).decode("ascii")
    messages = [
        Msg("system", "You are Friday.", "system"),
        Msg(
            "alice",
            [
                {"type": "text", "text": "Describe these."},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": png64}},
                {"type": "audio", "source": {"type": "url", "url": "https://example.org/a.wav"}},
                {"type": "video", "source": {"type": "url", "url": "file:///tmp/clip.mp4"}},
                {"type": "text", "text": ""},
            ],
            "user",
            metadata={"channel": "web", "big": BIG_INT},
        ),
        Msg(
            "Friday",
            [
                {"type": "thinking", "thinking": "Use the vision tool."},
                {
                    "type": "tool_use",
                    "id": "call_1",
                    "name": "describe",
                    "input": {"detail": "high", "n": 1.0},
                    "raw_input": '{"detail": "high", "n": 1.0}',
                },
            ],
            "assistant",
            invocation_id="inv-1",
        ),
        Msg(
            "system",
            [
                {
                    "type": "tool_result",
                    "id": "call_1",
                    "name": "describe",
                    "output": [
                        {"type": "text", "text": "A cat."},
                        {"type": "image", "source": {"type": "url", "url": "https://example.org/c.png"}},
                    ],
                }
            ],
            "system",
        ),
        Msg("Friday", TEXTS[1], "assistant", timestamp="2026-05-04 12:31:00.000"),
    ]
    pkgs = versions("agentscope", "shortuuid")
    write(
        "agentscope.msg",
        "v1_messages",
        [m.to_dict() for m in messages],
        pkgs,
        "1.x Msg.to_dict() of each message, every block type (text, thinking, image, audio, "
        "video with base64 and url sources, tool_use with raw_input, tool_result with list "
        "output); ids from shortuuid over a seeded uuid4, local timestamps from a frozen "
        "clock. The invocation_id given to one message does not appear in to_dict().",
    )
    memory = InMemoryMemory()

    async def fill() -> dict[str, Any]:
        await memory.add(messages[:3])
        await memory.add(messages[3:], marks=["tool", "hint"])
        await memory.update_compressed_summary("Earlier: greetings.")
        return memory.state_dict()

    write(
        "agentscope.msg",
        "v1_memory_state",
        asyncio.run(fill()),
        pkgs,
        "1.x InMemoryMemory.state_dict() after two add() calls (the second with marks) and a compressed summary.",
    )


# --- mem0 ----------------------------------------------------------------------


def capture_mem0() -> None:
    import uuid

    os.environ["MEM0_TELEMETRY"] = "False"  # no events sent anywhere
    os.environ["MEM0_DIR"] = tempfile.mkdtemp()  # not ~/.mem0 (it keeps a user id there)
    os.environ.setdefault("OPENAI_API_KEY", "sk-offline-never-used")
    uuid.uuid4 = seeded_uuid4(30)  # memory and history ids: deterministic
    import mem0.memory.main as main_module
    import mem0.memory.storage as storage_module
    from langchain_core.embeddings import DeterministicFakeEmbedding
    from mem0 import Memory

    main_module.datetime = Clock().datetime  # type: ignore[attr-defined]
    storage_module.datetime = Clock().datetime  # type: ignore[attr-defined]
    pkgs = versions("mem0ai", "qdrant-client", "langchain", "langchain-core")
    with tempfile.TemporaryDirectory() as tmp:
        history_path = os.path.join(tmp, "history.db")
        memory = Memory.from_config(
            {
                "vector_store": {
                    "provider": "qdrant",
                    "config": {"path": os.path.join(tmp, "qdrant"), "embedding_model_dims": 8},
                },
                # A local deterministic embedder through mem0's own langchain provider;
                # infer=False below: no LLM is ever called.
                "embedder": {"provider": "langchain", "config": {"model": DeterministicFakeEmbedding(size=8)}},
                "history_db_path": history_path,
            }
        )
        adds = [
            memory.add("I am vegetarian and allergic to nuts.", user_id="alice", infer=False),
            memory.add(
                [
                    {"role": "user", "content": "My sister Ann lives in Lyon.", "name": "alice"},
                    {"role": "assistant", "content": "Noted: Ann lives in Lyon."},
                ],
                user_id="alice",
                agent_id="travel-bot",
                run_id="run-7",
                metadata={"category": "family", "priority": 2, "big": BIG_INT, "score_hint": 1.0},
                infer=False,
            ),
            memory.add(TEXTS[1], agent_id="travel-bot", infer=False, metadata={}),
        ]
        first_id = adds[0]["results"][0]["id"]
        lyon_id = adds[1]["results"][0]["id"]
        memory.update(first_id, "I am vegan and allergic to nuts.")
        memory.update(lyon_id, "Ann moved to Paris.", metadata={"category": "family"})
        last_id = adds[2]["results"][0]["id"]
        memory.delete(last_id)
        items = {
            "get": memory.get(first_id),
            "get_all": memory.get_all(filters={"user_id": "alice"}),
            "search": memory.search("what does alice eat", filters={"user_id": "alice"}, top_k=5, threshold=0.0),
        }
        history = {"history": [memory.history(m) for m in (first_id, lyon_id, last_id)]}
        memory.close()
        conn = sqlite3.connect(history_path)
        history["rows"] = select_rows(conn, "history")
        conn.close()
    write(
        "mem0.add_result",
        "adds",
        adds,
        pkgs,
        "Memory.add(..., infer=False) results: a string, a message list with name and all "
        "three scope ids and metadata, a string with only agent_id.",
    )
    write(
        "mem0.memory_item",
        "items",
        items,
        pkgs,
        "get(id), get_all(filters) and search(query, filters, threshold=0.0) after two "
        "update()s and a delete(); scores come from a deterministic fake embedder.",
    )
    write(
        "mem0.history_row",
        "history",
        history,
        pkgs,
        "history(id) for the updated, the re-updated and the deleted memory, and the raw "
        "SELECT * FROM history rows of the SQLite history DB.",
    )


# --- metagpt -------------------------------------------------------------------


def capture_metagpt() -> None:
    import uuid

    if os.environ.get("PYTHONHASHSEED") != "0":
        # send_to is a set and dumps as a list in set order, which follows
        # the string hash seed: fix it, or the files change at every run.
        raise SystemExit("run with PYTHONHASHSEED=0")
    uuid.uuid4 = seeded_uuid4(40)  # Message.id is uuid4().hex when empty
    # metagpt takes the working directory as its root: it writes logs/ there and
    # needs an LLM entry in config/config2.yaml to import at all (never called).
    os.chdir(tempfile.mkdtemp())
    os.mkdir("config")
    Path("config/config2.yaml").write_text(
        "llm:\n  api_type: openai\n  model: gpt-4o\n  api_key: sk-offline-never-used\n"
    )
    from metagpt.actions.action_node import ActionNode
    from metagpt.memory import Memory
    from metagpt.schema import AIMessage, Message, SystemMessage, UserMessage
    from pydantic import BaseModel, create_model

    decision = create_model("Decision", __base__=BaseModel, approved=(bool, ...), score=(float, ...))
    decision.__module__ = "app.models"
    review = ActionNode.create_model_class("ReviewOutput", {"verdict": (str, ...), "issues": (list[str], ...)})
    designed = AIMessage("Design ready")  # the role classes take content only
    designed.cause_by = "metagpt.actions.design_api.WriteDesign"
    designed.sent_from = "Bob"
    designed.send_to = {"Eve", "Alex", "<self>"}
    designed.instruct_content = review(verdict="ok", issues=["none", TEXTS[1]])
    messages = [
        UserMessage("Write a CLI snake game."),
        Message(
            content="PRD drafted",
            role="Alice(Product Manager)",
            cause_by="metagpt.actions.write_prd.WritePRD",
            sent_from="metagpt.roles.product_manager.ProductManager",
            send_to={"<all>"},
        ),
        designed,
        Message(
            content="", id="0", role="assistant", send_to=set(), instruct_content=decision(approved=True, score=1.0)
        ),
        SystemMessage(TEXTS[2]),
    ]
    pkgs = versions("metagpt", "pydantic")
    write(
        "metagpt.message",
        "messages",
        {"dump": [m.dump() for m in messages], "model_dump": [m.model_dump() for m in messages]},
        pkgs,
        "Message.dump() (model_dump_json(exclude_none=True), the text Memory and the "
        "serialize code write) and model_dump() of UserMessage/AIMessage/SystemMessage and "
        "Message with routing, ActionNode and plain pydantic instruct_content. Empty ids "
        "are uuid4().hex (seeded); run with PYTHONHASHSEED=0 (send_to set order).",
    )
    memory = Memory()
    memory.add_batch(messages)
    memory.add(messages[1])  # a duplicate: Memory drops it
    write(
        "metagpt.message",
        "memory",
        memory.model_dump_json(),
        pkgs,
        "Memory().add_batch(messages) then add() of a duplicate; its model_dump_json() text.",
    )


# --- letta ---------------------------------------------------------------------


def capture_letta() -> None:
    import uuid

    uuid.uuid4 = seeded_uuid4(50)  # Block ids are "block-" + uuid4
    from letta.schemas.agent_file import AgentFileSchema, BlockSchema
    from letta.schemas.block import Block
    from letta.services.agent_serialization_manager import AgentSerializationManager
    from letta_client.types import BlockResponse

    blocks = [
        Block(label="human", value="Name: Alice\nLikes: tea", limit=5000, description="The user."),
        Block(label="persona", value="I am Sam, a helpful companion.", read_only=True, metadata={"v": 2}),
        Block(
            label="system/human/family",
            value=TEXTS[1],
            limit=2**40,
            is_template=True,
            template_name="family-template",
            metadata={"big": BIG_INT, "f": 1.0, "nested": {"z": [], "a": None}},
            tags=["family", "core"],
            hidden=False,
        ),
        Block(label="scratch", value="", preserve_on_migration=True),
    ]
    # The exporter's own id remapping (block-0, block-1, ...) and conversion,
    # on a manager without its database (only these two methods are used).
    exporter = object.__new__(AgentSerializationManager)
    exporter._db_to_file_ids = {}
    exporter._id_counters = {BlockSchema.__id_prefix__: 0}
    for block in blocks:
        exporter._map_db_to_file_id(block.id, BlockSchema.__id_prefix__)
    schemas = [exporter._convert_block_to_schema(b) for b in blocks]
    agent_file = AgentFileSchema(
        agents=[],
        groups=[],
        blocks=schemas,
        files=[],
        sources=[],
        tools=[],
        mcp_servers=[],
        created_at=EPOCH,
    )
    pkgs = versions("letta", "letta-client", "pydantic")
    write(
        "letta.block",
        "agent_file_blocks",
        {
            "blocks": [s.model_dump() for s in schemas],
            "agent_file_json": agent_file.model_dump_json(),
        },
        pkgs,
        "Agent File blocks: BlockSchema as the exporter makes it from Block objects "
        "(file-local ids block-N), model_dump() as the export route returns it, and the "
        "JSON text of an AgentFileSchema holding only these blocks (created_at fixed).",
    )
    # The same blocks as the REST API returns them, parsed by the official client.
    api = [BlockResponse.model_validate(b.model_dump(mode="json")) for b in blocks]
    write(
        "letta.block",
        "client_block_response",
        {"to_dict": [b.to_dict() for b in api], "model_dump": [b.model_dump() for b in api]},
        pkgs,
        "letta_client BlockResponse parsed from each server Block's model_dump(mode='json') "
        "(the body the REST API sends): its to_dict() (fields set only) and model_dump().",
    )


CAPTURES: dict[str, Callable[[], None]] = {
    "langchain": capture_langchain,
    "langgraph": capture_langgraph,
    "openai_agents": capture_openai_agents,
    "agency_swarm": capture_agency_swarm,
    "autogen": capture_autogen,
    "agentscope": capture_agentscope,
    "mem0": capture_mem0,
    "metagpt": capture_metagpt,
    "letta": capture_letta,
}


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[1] not in CAPTURES:
        print(f"usage: capture.py {{{','.join(CAPTURES)}}}", file=sys.stderr)
        return 2
    CAPTURES[argv[1]]()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
