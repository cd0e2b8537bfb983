"""History: insertion order, threads, paging."""

from __future__ import annotations

from memorywire_conformance.service.framework import Ctx, fact, ids_of, message, scenario


def _thread(ctx: Ctx) -> None:
    """The flat list of core.md section 6.1, with more agents."""
    ctx.put_ok(
        message("m1", "Analyse Q1 sales.", "user", agent="Manager"),
        message("m2", "Analyse Q1 sales, please.", "user", agent="Analyst", caller="Manager"),
        message("m3", "Sales rose 4 %.", "assistant", agent="Analyst", caller="Manager"),
        message("m4", "Sales rose 4 %.", "assistant", agent="Manager"),
        fact("f5", "The user cares about sales."),
        message("m6", "Write it up.", "user", agent="Writer", caller="Analyst"),
        message("m7", "Hello Writer.", "user", agent="Writer"),
        message("m8", "Anything else?", "assistant", agent="Manager", caller="Analyst"),
    )


@scenario("Required.Service.History.InsertionOrder", "operations.md#8", "operations.md#4.4")
def insertion_order(ctx: Ctx) -> None:
    """History returns records in insertion (sequence) order, whatever their
    created_at: timestamps never drive the order."""
    ctx.put_ok(message("m1", "late", created_at="2030-01-01T00:00:00Z"))
    ctx.put_ok(message("m2", "early", created_at="2001-01-01T00:00:00Z"))
    ctx.put_ok(message("m3", "c"), message("m4", "d"))
    records = ctx.history()
    ctx.eq(ids_of(records), ["m1", "m2", "m3", "m4"], "the ids of the History")
    seqs = [r.get("sequence", 0) for r in records]
    ctx.check(all(a < b for a, b in zip(seqs, seqs[1:], strict=False)),
              "the sequences of the History do not increase", got=seqs)


@scenario("Required.Service.History.Descending", "operations.md#8")
def descending(ctx: Ctx) -> None:
    """History with order descending returns the newest record first."""
    ctx.put_ok(message("m1", "a"), message("m2", "b"))
    ctx.put_ok(message("m3", "c"))
    ctx.eq(ids_of(ctx.history(order="descending")), ["m3", "m2", "m1"],
           "the ids of the descending History")


@scenario("Required.Service.History.Paging", "operations.md#8", "operations.md#4.5",
          "operations.md#4.4")
def paging(ctx: Ctx) -> None:
    """Paging with limit and next_cursor covers every record exactly once, in
    order, in both directions; the last page has no next_cursor; a record
    created while paging forward appears on a later page."""
    ctx.put_ok(*[message(f"m{i}", f"text {i}") for i in range(1, 8)])
    pages = ctx.pages("History", {"limit": 3}, "records")
    ctx.check(len(pages) >= 3 and all(len(p) <= 3 for p in pages),
              "7 records in pages of at most 3 do not take 3 pages or more of at most 3",
              got=[len(p) for p in pages])
    ctx.eq(ids_of(r for p in pages for r in p), [f"m{i}" for i in range(1, 8)],
           "the ids of all pages")
    down = ctx.pages("History", {"limit": 3, "order": "descending"}, "records")
    ctx.eq(ids_of(r for p in down for r in p), [f"m{i}" for i in range(7, 0, -1)],
           "the ids of all descending pages")
    first = ctx.call("History", {"limit": 3})
    ctx.put_ok(message("m8", "late arrival"))
    seen = ids_of(first.get("records", []))
    cursor = first.get("next_cursor")
    for _ in range(10):
        if not cursor:
            break
        page = ctx.call("History", {"limit": 3, "cursor": cursor})
        seen += ids_of(page.get("records", []))
        cursor = page.get("next_cursor")
    ctx.eq(seen, [f"m{i}" for i in range(1, 9)], "the ids paged while a record was added")


@scenario("Required.Service.History.UserThread", "operations.md#8", "core.md#6.1")
def user_thread(ctx: Ctx) -> None:
    """The user thread is every record without routing.caller_agent, whatever
    its agent (records without routing included), in sequence order."""
    _thread(ctx)
    ctx.eq(ids_of(ctx.history(thread="user")), ["m1", "m4", "f5", "m7"],
           "the ids of the user thread")


@scenario("Required.Service.History.BetweenAgents", "operations.md#8", "core.md#6.1")
def between(ctx: Ctx) -> None:
    """The thread between two agents is their exchange in both directions, in
    sequence order, whichever order the agents are named in."""
    _thread(ctx)
    for agents in (["Manager", "Analyst"], ["Analyst", "Manager"]):
        ctx.eq(ids_of(ctx.history(thread="between", agents=agents)), ["m2", "m3", "m8"],
               f"the ids of the thread between {agents}")
    ctx.eq(ids_of(ctx.history(thread="between", agents=["Writer", "Analyst"])), ["m6"],
           "the ids of the thread between Writer and Analyst")
    ctx.eq(ids_of(ctx.history(thread="between", agents=["Writer", "Manager"])), [],
           "the ids of the thread between Writer and Manager")


@scenario("Required.Service.History.OnlyActive", "operations.md#8", "operations.md#4.7.1")
def only_active(ctx: Ctx) -> None:
    """History leaves out archived, deleted and (with approval) staged
    records."""
    ctx.put_ok(message("a", "active"), message("b", "to archive"), message("c", "to delete"))
    ctx.call("Update", {"id": "b", "patch": {"lifecycle": {"status": "archived"}}})
    ctx.call("Delete", {"ids": ["c"]})
    if ctx.has("approval"):
        ctx.put(message("d", "staged"), require_approval=True)
    ctx.put_ok(message("e", "active too"))
    ctx.eq(ids_of(ctx.history()), ["a", "e"], "the ids of the History")


@scenario("Required.Service.History.Kinds", "operations.md#8")
def kinds(ctx: Ctx) -> None:
    """History with kinds returns only records of those kinds."""
    ctx.put_ok(message("m1", "hi"), fact("f1", "x"), message("m2", "yo"), fact("f2", "y"))
    ctx.eq(ids_of(ctx.history(kinds=["fact"])), ["f1", "f2"], "the facts of the History")
    ctx.eq(ids_of(ctx.history(kinds=["message", "fact"])), ["m1", "f1", "m2", "f2"],
           "messages and facts")


@scenario("Required.Service.History.AgentsRule", "operations.md#8", "operations.md#3.3")
def agents_rule(ctx: Ctx) -> None:
    """agents holds exactly two agents for the thread between and none for
    every other thread; otherwise INVALID_ARGUMENT COUNT_OUT_OF_RANGE at
    /agents."""
    ctx.expect_error(lambda: ctx.call("History", {"thread": "between", "agents": ["Manager"]}),
                     "INVALID_ARGUMENT", "COUNT_OUT_OF_RANGE", "/agents",
                     what="History between one agent")
    ctx.expect_error(lambda: ctx.call("History", {"thread": "user", "agents": ["a", "b"]}),
                     "INVALID_ARGUMENT", "COUNT_OUT_OF_RANGE", "/agents",
                     what="the user thread with agents")
    ctx.expect_error(lambda: ctx.call("History", {"agents": ["a", "b"]}),
                     "INVALID_ARGUMENT", "COUNT_OUT_OF_RANGE", "/agents",
                     what="History without thread, with agents")


@scenario("Required.Service.History.InvalidCursor", "operations.md#4.5", "operations.md#8")
def invalid_cursor(ctx: Ctx) -> None:
    """A cursor the service did not issue (made up, or an issued one with a
    character added), or one issued for a different request, fails with
    INVALID_ARGUMENT INVALID_CURSOR at /cursor."""
    ctx.put_ok(message("m1", "a"), message("m2", "b"), message("m3", "c"))
    ctx.expect_error(lambda: ctx.call("History", {"cursor": "not-a-cursor"}),
                     "INVALID_ARGUMENT", "INVALID_CURSOR", "/cursor",
                     what="History with a made-up cursor")
    cursor = ctx.call("History", {"limit": 1}).get("next_cursor")
    ctx.check(isinstance(cursor, str) and cursor,
              "History with limit 1 of 3 records returns no next_cursor")
    assert isinstance(cursor, str)
    ctx.expect_error(lambda: ctx.call("History", {"limit": 1, "cursor": cursor + "!"}),
                     "INVALID_ARGUMENT", "INVALID_CURSOR", "/cursor",
                     what="History with an issued cursor and a character added")
    ctx.expect_error(lambda: ctx.call("History", {"limit": 1, "cursor": cursor,
                                                  "thread": "user", "kinds": ["fact"]}),
                     "INVALID_ARGUMENT", "INVALID_CURSOR", "/cursor",
                     what="History with the cursor of a different request")
    page = ids_of(ctx.call("History", {"limit": 2, "cursor": cursor}).get("records", []))
    ctx.check(page and page == ["m2", "m3"][:len(page)],
              "the cursor with another limit does not continue after m1", got=page)
