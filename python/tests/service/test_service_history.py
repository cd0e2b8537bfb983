"""History: threads in insertion order and paging (operations.md sections 4.4, 4.5, 8)."""

from __future__ import annotations

from service_helpers import fails, message, send

from memorywire.client import Client


def _conversation(mw: Client) -> None:
    # One flat list, three threads (core.md section 6.1), written out of
    # timestamp order: timestamps never drive the order.
    mw.put([
        message("m1", "user", "Analyse Q1 sales.", routing={"agent": "Manager"},
                created_at="2026-03-01T00:00:04Z"),
        message("m2", "user", "Analyse Q1 sales.", routing={"agent": "Analyst", "caller_agent": "Manager"},
                created_at="2026-03-01T00:00:03Z"),
        message("m3", "assistant", "Sales rose 4 %.",
                routing={"agent": "Analyst", "caller_agent": "Manager"},
                created_at="2026-03-01T00:00:02Z"),
        message("m4", "assistant", "Sales rose 4 %.", routing={"agent": "Manager"},
                created_at="2026-03-01T00:00:01Z"),
        message("m5", "user", "Reviewer, check this.",
                routing={"agent": "Reviewer", "caller_agent": "Analyst"}),
        message("m6", "assistant", "Back to you.",
                routing={"agent": "Manager", "caller_agent": "Analyst"}),
        {"id": "f1", "kind": "fact", "fact": {"text": "no routing: user thread"}},
    ], scope={"session": "chat-7"})


def ids(out: dict) -> list[str]:  # type: ignore[type-arg]
    return [x["id"] for x in out.get("records", [])]


def test_threads(mw: Client) -> None:
    _conversation(mw)
    assert ids(mw.history()) == ["m1", "m2", "m3", "m4", "m5", "m6", "f1"]
    # the user thread is shared across the entry agents
    assert ids(mw.history(thread="user")) == ["m1", "m4", "f1"]
    # the exchange between two agents, in both directions
    assert ids(mw.history(thread="between", agents=["Manager", "Analyst"])) == ["m2", "m3", "m6"]
    assert ids(mw.history(thread="between", agents=["Analyst", "Manager"])) == ["m2", "m3", "m6"]
    assert ids(mw.history(thread="between", agents=["Analyst", "Reviewer"])) == ["m5"]
    assert ids(mw.history(kinds=["fact"])) == ["f1"]
    assert ids(mw.history(order="descending", limit=3)) == ["f1", "m6", "m5"]
    assert ids(mw.history(scope={"session": "other"})) == []


def test_paging_sees_every_record_once(mw: Client) -> None:
    _conversation(mw)
    seen: list[str] = []
    cursor = None
    pages = 0
    while True:
        out = mw.history(limit=2, cursor=cursor)
        seen += ids(out)
        pages += 1
        cursor = out.get("next_cursor")
        if pages == 2:
            # a record created while paging appears on a later page
            mw.put(message("m7", "user", "late"), scope={"session": "chat-7"})
        if cursor is None:
            break
    assert seen == ["m1", "m2", "m3", "m4", "m5", "m6", "f1", "m7"]
    assert pages == 4
    # descending pages too
    out = mw.history(limit=3, order="descending")
    out2 = mw.history(limit=3, order="descending", cursor=out["next_cursor"])
    assert ids(out) + ids(out2) == ["m7", "f1", "m6", "m5", "m4", "m3"]


def test_history_excludes_everything_but_active(mw: Client) -> None:
    _conversation(mw)
    mw.delete("m1")
    mw.update("m2", {"lifecycle": {"status": "archived"}})
    mw.put(message("m8", "user", "staged"), require_approval=True)
    assert ids(mw.history()) == ["m3", "m4", "m5", "m6", "f1"]


def test_cursor_is_bound_to_tenant_and_request(mw: Client, connect, tenant: str) -> None:  # type: ignore[no-untyped-def]
    _conversation(mw)
    cursor = mw.history(limit=1)["next_cursor"]
    # another limit is the same request
    assert ids(mw.history(limit=5, cursor=cursor))[0] == "m2"
    fails("INVALID_CURSOR", lambda: mw.history(thread="user", limit=1, cursor=cursor), "/cursor")
    fails("INVALID_CURSOR", lambda: mw.search(limit=1, cursor=cursor), "/cursor")
    other = connect(tenant + "-b")
    e = fails("INVALID_CURSOR", lambda: other.history(limit=1, cursor=cursor), "/cursor")
    assert e.code == "INVALID_ARGUMENT"
    fails("INVALID_CURSOR", lambda: mw.history(cursor="c1.forged"), "/cursor")


def test_agents_rule(raw_channel, tenant: str) -> None:  # type: ignore[no-untyped-def]
    # the service checks what a client might not
    fails("COUNT_OUT_OF_RANGE", lambda: send(raw_channel, "History",
                                             {"thread": "between", "agents": ["a"]}, tenant), "/agents")
    e = fails("COUNT_OUT_OF_RANGE", lambda: send(raw_channel, "History", {"agents": ["a", "b"]}, tenant),
              "/agents")
    assert e.code == "INVALID_ARGUMENT" and e.operation_id == "op-raw"
