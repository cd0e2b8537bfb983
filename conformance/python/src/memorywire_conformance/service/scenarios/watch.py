"""Watch, resuming from cursors, and consumer offsets."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from memorywire_conformance.service.client import Client, RpcFailure, StreamTimeout, WatchStream
from memorywire_conformance.service.framework import Ctx, Skip, fact, message, scenario

SENTINEL = "zz-sentinel"
#: Records a slow reader falls behind on, and the bytes of each one's text:
#: together many times the 64 KiB a small receive window holds.
SLOW_RECORDS = 300
SLOW_TEXT_BYTES = 2000
#: How often a slow reader resumes a stream that the service ended.
MAX_RESUMES = 20
#: How the service may end a stream whose client is slow (grpc-binding.md 7.1).
SLOW_END_CODES = ("RESOURCE_EXHAUSTED", "UNAVAILABLE")


def _summary(events: Sequence[Mapping[str, Any]]) -> list[tuple[Any, Any]]:
    return [(e.get("type"), e.get("record", {}).get("id")) for e in events]


def _ids(events: Sequence[Mapping[str, Any]]) -> list[Any]:
    return [e.get("record", {}).get("id") for e in events]


@scenario("Required.Service.Watch.EventsInOrder", "operations.md#16.1", "grpc-binding.md#7.1",
          "operations.md#4.7", needs=("watch",))
def events_in_order(ctx: Ctx) -> None:
    """Puts, Updates and Deletes produce created, updated and deleted events
    in the order they were applied, each with a cursor and the record after
    the change (a tombstone for a deletion, a minimal one for a hard
    deletion); every message carries the stream's operation_id."""
    ctx.put_ok(fact("a", "x"))
    ctx.call("Update", {"id": "a", "patch": {"tags": ["t"]}})
    ctx.put_ok(fact("b", "y"))
    ctx.call("Delete", {"ids": ["a"], "reason": "gone"})
    ctx.call("Delete", {"ids": ["b"], "mode": "hard"})
    stream = ctx.watch(from_start=True, operation_id="op-watch-1")
    events = ctx.events(stream, 5)
    ctx.eq(_summary(events), [("created", "a"), ("updated", "a"), ("created", "b"),
                              ("deleted", "a"), ("deleted", "b")], "the events (type, id)")
    ctx.eq([e.get("record", {}).get("revision") for e in events], [1, 2, 1, 3, 2],
           "the revisions of the events' records")
    cursors = [e.get("cursor") for e in events]
    ctx.check(all(cursors) and len(set(cursors)) == 5, "the events lack distinct cursors",
              got=cursors)
    ctx.eq(events[1].get("record", {}).get("tags"), ["t"], "the record of the updated event")
    soft, hard = events[3].get("record", {}), events[4].get("record", {})
    for tomb, what in ((soft, "soft"), (hard, "hard")):
        life = tomb.get("lifecycle", {})
        ctx.eq(life.get("status"), "deleted", f"the status of the {what} deletion's record")
        ctx.check(life.get("deleted_at") and "fact" not in tomb,
                  f"the record of the {what} deletion is not a tombstone", got=tomb)
    ctx.eq(soft.get("lifecycle", {}).get("reason"), "gone", "the reason of the tombstone")
    extra = sorted(set(hard) - {"id", "kind", "scope", "sequence", "revision", "lifecycle"})
    ctx.check(not extra, f"the minimal tombstone of a hard deletion carries {extra}", got=hard)
    for r in stream.responses:
        ctx.eq((r.get("operation_id"), r.get("specversion")), ("op-watch-1", "1.0"),
               "the envelope of a Watch message")


def _first_three_of_five(ctx: Ctx) -> list[dict[str, Any]]:
    """Five records put, and the first three of their events read from the
    start on a stream then closed: what a client holds when it drops."""
    for i in range(1, 6):
        ctx.put_ok(fact(f"a{i}", f"x{i}"))
    stream = ctx.watch(from_start=True)
    first = ctx.events(stream, 3, "the first stream")
    stream.close()
    ctx.eq(_ids(first), ["a1", "a2", "a3"], "the first three events")
    return first


@scenario("Required.Service.Watch.ResumeExactlyOnce", "grpc-binding.md#7.1",
          "operations.md#16.1", needs=("watch",))
def resume(ctx: Ctx) -> None:
    """A Watch resumed from the cursor of the last event received, after a
    disconnect and more writes, delivers exactly the events after it: none
    missed, none repeated."""
    first = _first_three_of_five(ctx)
    for i in range(6, 10):
        ctx.put_ok(fact(f"a{i}", f"x{i}"))
    ctx.call("Update", {"id": "a1", "patch": {"tags": ["late"]}})
    ctx.put_ok(fact(SENTINEL, "end"))
    resumed = ctx.events_until(ctx.watch(cursor=first[-1].get("cursor")), SENTINEL,
                               what="the resumed stream")
    ctx.eq(_summary(resumed),
           [("created", f"a{i}") for i in range(4, 10)] + [("updated", "a1"),
                                                          ("created", SENTINEL)],
           "the events of the resumed stream")
    again = ctx.events_until(ctx.watch(cursor=first[0].get("cursor")), SENTINEL,
                             what="a stream resumed from an older cursor")
    ctx.eq(_ids(again), [f"a{i}" for i in range(2, 10)] + ["a1", SENTINEL],
           "the events resumed from the first cursor")


@scenario("Required.Service.Watch.ResumeByLastEventId", "http-binding.md#7.2",
          "http-binding.md#7.1", "operations.md#16.1", needs=("watch",),
          inapplicable={"gRPC": "Last-Event-ID is a header of the HTTP binding; a gRPC client "
                                "resumes by the cursor of its request (Watch.ResumeExactlyOnce)"})
def resume_by_last_event_id(ctx: Ctx) -> None:
    """A Watch event stream whose connection drops is resumed as an
    EventSource resumes it: the same request again, its cursor the position
    before the first event, with the header Last-Event-ID holding the id of
    the last event received. The server takes the header in place of the
    body's cursor and delivers exactly the events after it; each event's id
    is its cursor."""
    first = _first_three_of_five(ctx)
    for i in range(6, 8):
        ctx.put_ok(fact(f"a{i}", f"x{i}"))
    ctx.call("Update", {"id": "a2", "patch": {"tags": ["late"]}})
    ctx.put_ok(fact(SENTINEL, "end"))
    # The request of the first stream again: from_start, which Last-Event-ID overrides.
    resumed = ctx.events_until(ctx.watch(from_start=True, last_event_id=first[-1]["cursor"]),
                               SENTINEL, what="the stream resumed with Last-Event-ID")
    ctx.eq(_summary(resumed),
           [("created", f"a{i}") for i in (4, 5, 6, 7)] + [("updated", "a2"),
                                                          ("created", SENTINEL)],
           "the events after Last-Event-ID")
    ctx.expect_error(lambda: ctx.watch(from_start=True, last_event_id="not-a-cursor").next(
        ctx.wait), "INVALID_ARGUMENT", "INVALID_CURSOR", "/cursor",
        what="a Watch whose Last-Event-ID is no cursor of the service")


@scenario("Required.Service.Watch.LiveEvents", "operations.md#16.1", "grpc-binding.md#7.1",
          needs=("watch",))
def live(ctx: Ctx) -> None:
    """An open stream delivers changes as they happen; a stream without cursor,
    consumer or from_start starts now, so changes made before it opened are
    not delivered."""
    ctx.put_ok(fact("before", "x"))
    stream = ctx.watch()
    seen: list[dict[str, Any]] = []
    for i in range(20):
        ctx.put_ok(fact(f"live-{i}", "y"))
        try:
            event = stream.next(0.25)
        except StreamTimeout:
            continue
        if event is not None:
            seen.append(event)
            break
    ctx.check(seen, "an open stream delivered no event for 20 writes made while it was open")
    ctx.check(str(_ids(seen)[0]).startswith("live-"),
              "a stream opened without start point delivered a change made before it opened",
              got=_summary(seen))


@scenario("Required.Service.Watch.MaxEvents", "operations.md#16.1", "grpc-binding.md#7.1",
          needs=("watch",))
def max_events(ctx: Ctx) -> None:
    """With max_events, the server ends the stream with OK after that many
    events."""
    ctx.put_ok(fact("a", "1"), fact("b", "2"), fact("c", "3"))
    stream = ctx.watch(from_start=True, max_events=2)
    ctx.eq(_ids(ctx.events(stream, 2)), ["a", "b"], "the events")
    ctx.check(stream.end(ctx.wait), "the stream did not end with OK after max_events events",
              got=_summary(stream.take(1, 0.1)))


@scenario("Required.Service.Watch.InvalidCursor", "grpc-binding.md#7.1", "operations.md#4.5",
          "operations.md#16.1", needs=("watch",))
def invalid_cursor(ctx: Ctx) -> None:
    """A Watch with a cursor the service did not issue fails with
    INVALID_ARGUMENT INVALID_CURSOR at /cursor before any event."""
    ctx.put_ok(fact("a", "x"))
    stream = ctx.watch(cursor="w-not-a-cursor")
    ctx.expect_error(lambda: stream.next(ctx.wait), "INVALID_ARGUMENT", "INVALID_CURSOR",
                     "/cursor", what="a Watch with a made-up cursor")
    ctx.eq(stream.responses, [], "the events sent before the error")


@scenario("Required.Service.Watch.Selection", "operations.md#16.1", "operations.md#4.1",
          needs=("watch",))
def selection(ctx: Ctx) -> None:
    """A stream delivers only the events whose record lies within the request
    scope and satisfies the filter, records of every status included."""
    u1 = {"user": "u1"}
    ctx.put_ok(fact("f1", "x", scope=u1), message("m1", "y", scope=u1),
               fact("f2", "z", scope={"user": "u2"}))
    ctx.call("Update", {"id": "f1", "patch": {"lifecycle": {"status": "archived"}}})
    ctx.call("Delete", {"ids": ["f2"]})
    ctx.put_ok(fact(SENTINEL, "end", scope=u1))
    events = ctx.events_until(ctx.watch(from_start=True, scope=u1, filter={
        "compare": {"field": "/kind", "operator": "eq", "value": "fact"}}), SENTINEL)
    ctx.eq(_summary(events), [("created", "f1"), ("updated", "f1"), ("created", SENTINEL)],
           "the events selected by scope user u1 and kind fact")


@scenario("Required.Service.Watch.NoEventWithoutChange", "operations.md#16.1",
          "operations.md#4.3.2", "operations.md#7", needs=("watch",))
def no_event(ctx: Ctx) -> None:
    """Unchanged writes, failed items and operations, touches, replays and
    dry runs produce no event."""
    ctx.put_ok(fact("a", "x"))
    ctx.put_ok(fact("a", "x"))
    ctx.put(items=[{"record": fact("a", "y"), "mode": "create"}])
    try:
        ctx.put(atomic=True, items=[{"record": fact("b", "new")},
                                    {"record": fact("a", "z"), "expected_revision": 9}])
    except RpcFailure:
        pass
    replayed = {"operation_id": "op-no-event", "items": [{"record": fact("c", "c")}]}
    ctx.call("Put", replayed)
    ctx.call("Put", replayed)
    ctx.get(["a"], touch=True)
    ctx.call("Update", {"id": "a", "patch": {"fact": {"text": "x"}}})
    if ctx.has("Expire"):
        ctx.call("Expire", {"policy": {"importance_below": 1.0}, "action": "delete",
                            "dry_run": True})
    ctx.put_ok(fact(SENTINEL, "end"))
    events = ctx.events_until(ctx.watch(from_start=True), SENTINEL)
    ctx.eq(_summary(events), [("created", "a"), ("created", "c"), ("created", SENTINEL)],
           "the events")


@scenario("Required.Service.Watch.ConsumerOffset", "operations.md#16.2", "grpc-binding.md#7.1",
          needs=("watch.offsets",))
def consumer_offset(ctx: Ctx) -> None:
    """CommitOffset stores a consumer's cursor; a Watch naming the consumer
    starts after it, Watch does not move it, and a new commit (even an
    earlier cursor) replaces it."""
    # Each stream is closed once read, as a consumer that reconnects does: a
    # service may bound the Watch streams of one tenant open at once
    # (grpc-binding.md section 7.4).
    for i in range(1, 5):
        ctx.put_ok(fact(f"a{i}", "x"))
    with ctx.watch(from_start=True) as stream:
        first = ctx.events(stream, 4, "the first stream")
    cursors = [e.get("cursor") for e in first]
    got = ctx.call("CommitOffset", {"consumer": "role:Engineer", "cursor": cursors[1]})
    ctx.eq(got.get("cursor"), cursors[1], "the committed cursor")
    for _ in range(2):
        with ctx.watch(consumer="role:Engineer") as stream:
            events = ctx.events_until(stream, "a4")
        ctx.eq(_ids(events), ["a3", "a4"], "the events after the committed offset")
    ctx.call("CommitOffset", {"consumer": "role:Engineer", "cursor": cursors[3]})
    ctx.put_ok(fact("a5", "x"))
    with ctx.watch(consumer="role:Engineer") as stream:
        ctx.eq(_ids(ctx.events(stream, 1)), ["a5"], "the first event after the new offset")
    ctx.call("CommitOffset", {"consumer": "role:Engineer", "cursor": cursors[0]})
    with ctx.watch(consumer="role:Engineer") as stream:
        ctx.eq(_ids(ctx.events(stream, 1)), ["a2"], "the first event after a rewound offset")
    with ctx.watch(consumer="role:QA", from_start=True) as stream:
        other = ctx.events(stream, 1)
    ctx.eq(_ids(other), ["a1"], "the first event of a consumer without offset, from_start")


@scenario("Required.Service.Watch.RoleNews", "operations.md#16", "operations.md#5.6",
          "core.md#6.2", needs=("watch.offsets",))
def role_news(ctx: Ctx) -> None:
    """A role reads only its news (MetaGPT find_news): a consumer with a
    filter on the recipients gets the messages addressed to it or to
    everyone, and after a commit only the news since."""
    def news(id: str, to: list[str]) -> dict[str, Any]:
        return message(id, f"news {id}", routing={"sender": "Architect", "recipients": to})

    mine = {"any": {"filters": [
        {"compare": {"field": "/routing/recipients", "operator": "contains",
                     "value": "Engineer"}},
        {"compare": {"field": "/routing/recipients", "operator": "contains", "value": "*"}}]}}
    ctx.put_ok(news("n1", ["ProductManager"]), news("n2", ["Engineer"]), news("n3", ["*"]),
               news("n4", ["Engineer", "QA"]))
    first = ctx.events_until(ctx.watch(consumer="role:Engineer", from_start=True, filter=mine),
                             "n4", what="the Engineer's first read")
    ctx.eq(_ids(first), ["n2", "n3", "n4"], "the Engineer's first news")
    ctx.call("CommitOffset", {"consumer": "role:Engineer", "cursor": first[-1].get("cursor")})
    ctx.put_ok(news("n5", ["QA"]), news("n6", ["Engineer"]), news("n7", ["*"]))
    second = ctx.events_until(ctx.watch(consumer="role:Engineer", from_start=True,
                                        filter=mine), "n7", what="the Engineer's second read")
    ctx.eq(_ids(second), ["n6", "n7"], "the Engineer's news since the commit")


@scenario("Required.Service.Watch.CommitInvalidCursor", "operations.md#16.2",
          "operations.md#4.5", needs=("watch.offsets",))
def commit_invalid(ctx: Ctx) -> None:
    """CommitOffset with a cursor that is no Watch cursor of the caller's
    tenant fails with INVALID_ARGUMENT INVALID_CURSOR at /cursor."""
    ctx.expect_error(lambda: ctx.call("CommitOffset", {"consumer": "c", "cursor": "bogus"}),
                     "INVALID_ARGUMENT", "INVALID_CURSOR", "/cursor",
                     what="CommitOffset with a made-up cursor")
    b = ctx.other()
    ctx.put_ok(fact("b1", "x"), client=b)
    theirs = ctx.events(ctx.watch(client=b, from_start=True), 1, "the other tenant's stream")
    ctx.expect_error(lambda: ctx.call("CommitOffset", {"consumer": "c",
                                                       "cursor": theirs[0].get("cursor")}),
                     "INVALID_ARGUMENT", "INVALID_CURSOR", "/cursor",
                     what="CommitOffset with another tenant's cursor")


@scenario("Required.Service.Watch.EventsOfEveryOperation", "operations.md#16.1",
          "operations.md#13", "operations.md#14", "operations.md#12", "operations.md#15",
          "operations.md#17.2", needs=("watch",))
def every_operation(ctx: Ctx) -> None:
    """Each operation produces the events its section states: Merge an
    updated event for the target and each archived source, Compact a created
    event for the summary and one for each compacted record, Expire one per
    record, Review an updated event, Import replace deleted events for the
    old records, then created events in stream order."""
    steps: list[tuple[str, Callable[[], object], list[tuple[str, str]], bool]] = []
    ctx.put_ok(fact("a", "x"), fact("b", "y"), message("c", "z"), fact("e", "old", lifecycle={
        "importance": 0.01}), fact("i1", "in session", scope={"session": "imp"}))
    if ctx.has("Merge"):
        steps.append(("Merge", lambda: ctx.call("Merge", {"target_id": "a",
                                                          "source_ids": ["b"]}),
                      [("updated", "a"), ("updated", "b")], False))
    if ctx.has("Compact"):
        steps.append(("Compact", lambda: ctx.call("Compact", {"ids": ["c"], "summary": {
            "id": "s", "kind": "summary", "summary": {"text": "c"}}}),
            [("created", "s"), ("updated", "c")], False))
    if ctx.has("Expire"):
        steps.append(("Expire", lambda: ctx.call("Expire", {
            "policy": {"importance_below": 0.05}, "action": "delete"}), [("deleted", "e")],
            False))
    if ctx.has("approval"):
        ctx.put(fact("r", "staged"), require_approval=True)
        steps.append(("Review", lambda: ctx.call("Review", {"id": "r", "decision": "approve"}),
                      [("updated", "r")], False))
    if ctx.has("import.replace"):
        steps.append(("Import", lambda: ctx.mw.import_([{
            "scope": {"session": "imp"}, "mode": "replace",
            "records": [fact("i2", "new"), fact("i3", "newer")]}]),
            [("deleted", "i1"), ("created", "i2"), ("created", "i3")], True))
    if not steps:
        raise Skip("the service has none of Merge, Compact, Expire, approval, import.replace")
    for i, (_, run, _, _) in enumerate(steps):
        ctx.put_ok(fact(f"mark-{i}", "marker"))
        run()
    ctx.put_ok(fact(SENTINEL, "end"))
    events = ctx.events_until(ctx.watch(from_start=True), SENTINEL)
    marks = [n for n, e in enumerate(events) if str(_ids([e])[0]).startswith("mark-")]
    ctx.eq(len(marks), len(steps), "the number of marker events")
    bounds = [*marks, len(events) - 1]
    for i, (name, _, want, ordered) in enumerate(steps):
        got = _summary(events[bounds[i] + 1:bounds[i + 1]])
        if ordered:
            ctx.eq(got, want, f"the events of {name}")
        else:
            ctx.eq(Counter(got), Counter(want), f"the events of {name}")


@scenario("Required.Service.Watch.ResumeWithFilter", "operations.md#4.5", "operations.md#16.1",
          needs=("watch",))
def resume_with_filter(ctx: Ctx) -> None:
    """A Watch cursor is valid for any Watch of the tenant: a stream with a
    filter resumed from the cursor of an unfiltered one delivers the selected
    events after that position."""
    ctx.put_ok(fact("a1", "x"), message("m1", "y"), fact("a2", "x"), message("m2", "y"),
               fact("a3", "x"))
    first = ctx.events(ctx.watch(from_start=True), 2, "the unfiltered stream")
    ctx.put_ok(message("m3", "y"), fact(SENTINEL, "end"))
    events = ctx.events_until(ctx.watch(cursor=first[-1].get("cursor"), filter={
        "compare": {"field": "/kind", "operator": "eq", "value": "fact"}}), SENTINEL)
    ctx.eq(_ids(events), ["a2", "a3", SENTINEL], "the facts after the cursor")


def _write_slowly_read(ctx: Ctx, stream: WatchStream, take: int) -> list[str]:
    """Write SLOW_RECORDS records of SLOW_TEXT_BYTES each, then a sentinel,
    in Puts of 50, taking ``take`` events of the stream after each Put (they
    stay in ``stream.responses``); the ids written, in order."""
    ids = []
    for start in range(0, SLOW_RECORDS, 50):
        batch = [fact(f"s{i:04d}", chr(ord("a") + i % 26) * SLOW_TEXT_BYTES)
                 for i in range(start, min(start + 50, SLOW_RECORDS))]
        ctx.put_ok(*batch)
        ids += [r["id"] for r in batch]
        if take:
            stream.take(take, ctx.wait)
    ctx.put_ok(fact(SENTINEL, "end"))
    return [*ids, SENTINEL]


def _is_sentinel(event: Mapping[str, Any]) -> bool:
    return bool(event.get("record", {}).get("id") == SENTINEL)


def _read_to_sentinel(ctx: Ctx, client: Client, stream: WatchStream
                      ) -> tuple[list[dict[str, Any]], list[str]]:
    """Every event of the stream up to the sentinel, those taken already
    included, resuming from the cursor of the last event each time the
    service ends the stream as grpc-binding.md 7.1 lets it; and how each
    stream that did not reach the sentinel ended."""
    events: list[dict[str, Any]] = []
    ends: list[str] = []
    for _ in range(MAX_RESUMES + 1):
        try:
            stream.until(_is_sentinel, ctx.wait * 2)
        except RpcFailure as e:
            if e.code_name not in SLOW_END_CODES:
                raise ctx.fail(f"the stream of a slow client ended with {e.describe()}; a "
                               f"server that cannot keep up ends it with "
                               f"{' or '.join(SLOW_END_CODES)}", expected=SLOW_END_CODES,
                               got=e.describe()) from None
            ends.append(e.code_name)
        events += [dict(r.get("event", {})) for r in stream.responses]
        if events and _is_sentinel(events[-1]):
            return events, ends
        if stream.failure is None and not stream.ended:
            raise ctx.fail(f"the stream of a slow client delivered {len(events)} events and "
                           f"then none for {ctx.wait * 2:g} s, without ending",
                           got=_summary(events[-5:]))
        if stream.ended:
            ends.append("OK")
        cursor = events[-1].get("cursor") if events else None
        stream = ctx.watch(client=client, paced=True,
                           **({"cursor": cursor} if cursor else {"from_start": True}))
    raise ctx.fail(f"the service ended the stream of a slow client {MAX_RESUMES} times before "
                   "it delivered the last event", got=ends)


@scenario("Required.Service.Watch.SlowReader", "grpc-binding.md#7.1", "security.md#5",
          needs=("watch",))
def slow_reader(ctx: Ctx) -> None:
    """A Watch client that reads more slowly than changes are made (on a
    channel whose receive window stays small, taking a few events after each
    Put of 50 records of 2000 bytes) gets every event, in order, none
    skipped: on one stream, or on streams that the service ends with
    RESOURCE_EXHAUSTED, UNAVAILABLE or OK and that it resumes from the cursor
    of its last event."""
    client = ctx.small_window_client()
    stream = ctx.watch(client=client, paced=True, from_start=True)
    written = _write_slowly_read(ctx, stream, take=3)
    events, ends = _read_to_sentinel(ctx, client, stream)
    got = _ids(events)
    if got != written:
        received = set(got)
        missing = [i for i in written if i not in received]
        raise ctx.fail(f"a slow client got {len(got)} events for {len(written)} changes "
                       f"(streams ended: {', '.join(ends) or 'none'}); first missing: "
                       f"{missing[:5]}", expected=f"{len(written)} events in order",
                       got=_summary(events[:3]) + ["..."] + _summary(events[-3:]))
    ctx.check(all(e.get("type") == "created" for e in events),
              "a slow client got events of another type than created", got=_summary(events))
