"""Conversation branches in History."""

from __future__ import annotations

from typing import Any

from memorywire_conformance.service.framework import Ctx, ids_of, message, scenario


def reply(id: str, text: str, role: str, parent: str | None) -> dict[str, Any]:
    record = message(id, text, role)
    if parent:
        record["links"] = [{"type": "responds_to", "target": parent}]
    return record


@scenario("Required.Service.History.Branch", "operations.md#8", "core.md#7",
          needs=("history.branches",))
def history_branch(ctx: Ctx) -> None:
    """A History with branch returns the records from the root of the
    conversation to the named record, following the first responds_to link
    of each, root first (leaf first when descending); a sibling branch is
    left out; an unknown branch fails with NOT_FOUND RECORD_NOT_FOUND at
    /branch."""
    ctx.put_ok(reply("u1", "hi", "user", None), reply("a1", "hello", "assistant", "u1"),
               reply("u2", "plan a trip", "user", "a1"),
               reply("a2", "where to?", "assistant", "u2"),
               reply("u2b", "plan a dinner", "user", "a1"),
               reply("a2b", "for how many?", "assistant", "u2b"))
    ctx.eq(ids_of(ctx.history(branch="a2")), ["u1", "a1", "u2", "a2"], "the branch ending at a2")
    ctx.eq(ids_of(ctx.history(branch="a2b")), ["u1", "a1", "u2b", "a2b"],
           "the branch ending at a2b")
    ctx.eq(ids_of(ctx.history(branch="a2b", order="descending")), ["a2b", "u2b", "a1", "u1"],
           "the branch ending at a2b, newest first")
    ctx.eq(ids_of(ctx.history(branch="a2b", limit=3)), ["u1", "a1", "u2b", "a2b"],
           "the branch ending at a2b, in pages of 3")
    ctx.expect_error(lambda: ctx.call("History", {"branch": "nope"}), "NOT_FOUND",
                     "RECORD_NOT_FOUND", "/branch", what="a History of an unknown branch")
