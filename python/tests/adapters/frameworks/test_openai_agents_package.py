"""The openai_agents forms against the real openai-agents package:
conversations built from the SDK's own objects, stored by its own
SQLiteSession, through memorywire and back, and read by the session again."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import sys
import tempfile
from typing import Any

from hypothesis import given

sys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))
sys.path.insert(0, os.path.dirname(__file__))

from agents import SQLiteSession  # noqa: E402
from harness import assert_exact, assert_round_trip  # noqa: E402
from openai_conversations import SETTINGS, conversations  # noqa: E402

from memorywire.adapters import FORMS  # noqa: E402


def stored(items: list[Any]) -> tuple[list[Any], list[dict[str, Any]]]:
    """What SQLiteSession gives back, and its rows."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "s.db")
        session = SQLiteSession("s-1", db_path=path)
        got = asyncio.run(_fill(session, items))
        session.close()
        conn = sqlite3.connect(path)
        rows = []
        for table in ("agent_sessions", "agent_messages"):
            cur = conn.execute(f"SELECT * FROM {table} ORDER BY rowid")
            names = [d[0] for d in cur.description]
            rows += [dict(zip(names, row, strict=True)) for row in cur.fetchall()]
        conn.close()
    return got, rows


async def _fill(session: Any, items: list[Any]) -> list[Any]:
    await session.add_items(items)
    result: list[Any] = await session.get_items()
    return result


@SETTINGS
@given(conversations())
def test_sqlite_session_through_memorywire(conversation: tuple[list[Any], list[Any]]) -> None:
    items, _ = conversation
    got, rows = stored(items)
    assert_round_trip(FORMS["openai_agents.session_item"], got, ordered=True, session="s-1")
    records = assert_round_trip(FORMS["openai_agents.sqlite_session_row"], rows, ordered=True)
    # The SDK reads back the rows memorywire gives: the same items.
    back = FORMS["openai_agents.sqlite_session_row"].from_records(records)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "s.db")
        session = SQLiteSession("s-1", db_path=path)
        asyncio.run(session.get_items())
        conn = sqlite3.connect(path)
        for row in back[1:]:
            conn.execute("INSERT INTO agent_messages (id, session_id, message_data, created_at) VALUES (?, ?, ?, ?)",
                         (row["id"], row["session_id"], row["message_data"], row["created_at"]))
        conn.commit()
        conn.close()
        assert_exact(asyncio.run(session.get_items()), got)
        session.close()
