"""Conversation branches: History along the responds_to links
(operations.md section 8, Branches), on both stores."""

from __future__ import annotations

from service_helpers import fails, message

from memorywire.client import Client


def reply(id: str, role: str, text: str, parent: str | None, **extra: object) -> dict[str, object]:
    links = [{"type": "responds_to", "target": parent}] if parent else []
    return message(id, role, text, **({"links": links} if links else {}), **extra)


def ids(page: dict[str, object]) -> list[str]:
    return [r["id"] for r in page.get("records", [])]  # type: ignore[attr-defined,index]


def test_history_follows_one_branch(mw: Client) -> None:
    # u1 -> a1 -> u2 -> a2, and u2 edited as u2b -> a2b: two branches from a1.
    mw.put([reply("u1", "user", "hi", None), reply("a1", "assistant", "hello", "u1"),
            reply("u2", "user", "plan a trip", "a1"), reply("a2", "assistant", "where to?", "u2"),
            reply("u2b", "user", "plan a dinner", "a1"), reply("a2b", "assistant", "for how many?", "u2b"),
            reply("x", "user", "elsewhere", None, scope={"session": "other"})])
    assert ids(mw.history(branch="a2")) == ["u1", "a1", "u2", "a2"]
    assert ids(mw.history(branch="a2b")) == ["u1", "a1", "u2b", "a2b"]
    assert ids(mw.history(branch="a2b", order="descending")) == ["a2b", "u2b", "a1", "u1"]
    assert ids(mw.history(branch="u2b", kinds=["message"])) == ["u1", "a1", "u2b"]
    assert ids(mw.history()) == ["u1", "a1", "u2", "a2", "u2b", "a2b", "x"]
    # Paging a branch.
    first = mw.history(branch="a2b", limit=3)
    assert ids(first) == ["u1", "a1", "u2b"] and first["next_cursor"]
    rest = mw.history(branch="a2b", limit=3, cursor=first["next_cursor"])
    assert ids(rest) == ["a2b"] and "next_cursor" not in rest
    # An archived record of the branch is passed through, not shown.
    mw.update("a1", {"lifecycle": {"status": "archived"}})
    assert ids(mw.history(branch="a2b")) == ["u1", "u2b", "a2b"]
    fails("RECORD_NOT_FOUND", lambda: mw.history(branch="nope"), "/branch")
    fails("RECORD_NOT_FOUND", lambda: mw.history(branch="a2", scope={"session": "other"}), "/branch")


def test_a_cycle_or_a_missing_parent_ends_the_branch(mw: Client) -> None:
    mw.put([reply("c1", "user", "one", "c2"), reply("c2", "assistant", "two", "c1"),
            reply("o1", "user", "orphan", "gone")])
    assert ids(mw.history(branch="c2")) == ["c1", "c2"]
    assert ids(mw.history(branch="o1")) == ["o1"]
