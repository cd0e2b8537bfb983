"""Watch and CommitOffset (operations.md section 16, grpc-binding.md section 7.1)."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from service_helpers import fact, fails, message

from memorywire.client import Client, ServiceError
from memorywire.service import Service, Store
from memorywire.service import watch as watch_module
from memorywire.service.operations import Call


def test_watch_from_start_and_max_events(mw: Client) -> None:
    mw.put([fact("a", "1"), fact("b", "2")])
    mw.update("a", {"tags": ["x"]})
    mw.delete("b")
    events = list(mw.watch(from_start=True, max_events=4))
    assert [(e["type"], e["record"]["id"]) for e in events] == [
        ("created", "a"), ("created", "b"), ("updated", "a"), ("deleted", "b")]
    assert events[2]["record"]["revision"] == 2
    assert events[3]["record"]["lifecycle"]["status"] == "deleted"
    assert len({e["cursor"] for e in events}) == 4


def test_resume_misses_and_repeats_nothing(mw: Client) -> None:
    """A writer keeps writing while a reader disconnects again and again and
    resumes from the last cursor it saw: it sees every change exactly once,
    in order."""
    total = 120
    done = threading.Event()

    def writer() -> None:
        for i in range(total):
            mw.put(fact(f"w{i}", f"change {i}"))
        done.set()

    seen: list[str] = []
    cursor = None
    thread = threading.Thread(target=writer)
    thread.start()
    try:
        while len(seen) < total:
            stream = mw.watch(cursor=cursor) if cursor else mw.watch(from_start=True)
            for n, event in enumerate(stream, 1):
                seen.append(event["record"]["id"])
                cursor = event["cursor"]
                if n == 7 or len(seen) == total:
                    break  # disconnect every 7 events
            stream.cancel()
    finally:
        thread.join()
    assert seen == [f"w{i}" for i in range(total)]
    # nothing more after the last cursor
    with mw.watch(cursor=cursor) as tail:
        mw.put(fact("last", "x"))
        assert next(tail)["record"]["id"] == "last"


def test_watch_from_now(mw: Client) -> None:
    mw.put(fact("before", "x"))
    stream = mw.watch()
    mw.put(fact("after", "y"))
    assert next(stream)["record"]["id"] == "after"
    stream.cancel()


def test_selection_by_scope_and_filter(mw: Client) -> None:
    flt = {"any": {"filters": [
        {"compare": {"field": "/routing/recipients", "operator": "contains", "value": "Engineer"}},
        {"compare": {"field": "/routing/recipients", "operator": "contains", "value": "*"}}]}}
    mw.put([message("m1", "user", "for the architect", routing={"recipients": ["Architect"]},
                    scope={"session": "s"}),
            message("m2", "user", "for the engineer", routing={"recipients": ["Engineer"]},
                    scope={"session": "s"}),
            message("m3", "user", "for everyone", routing={"recipients": ["*"]}, scope={"session": "t"}),
            message("m4", "user", "for everyone", routing={"recipients": ["*"]}, scope={"session": "s"})])
    events = list(mw.watch(from_start=True, filter=flt, scope={"session": "s"}, max_events=2))
    assert [e["record"]["id"] for e in events] == ["m2", "m4"]


def test_consumer_offsets(mw: Client) -> None:
    mw.put([fact(f"n{i}", "news") for i in range(5)])
    events = list(mw.watch(consumer="role:Engineer", from_start=True, max_events=3))
    assert [e["record"]["id"] for e in events] == ["n0", "n1", "n2"]
    # a consumer without an offset, and Watch does not move the offset
    assert mw.commit_offset("role:Engineer", events[1]["cursor"])["cursor"] == events[1]["cursor"]
    again = list(mw.watch(consumer="role:Engineer", max_events=3))
    assert [e["record"]["id"] for e in again] == ["n2", "n3", "n4"]
    again = list(mw.watch(consumer="role:Engineer", max_events=1))
    assert again[0]["record"]["id"] == "n2"
    # a cursor wins over the offset; a consumer may rewind
    assert next(mw.watch(consumer="role:Engineer", cursor=events[2]["cursor"]))["record"]["id"] == "n3"
    mw.commit_offset("role:Engineer", events[0]["cursor"])
    assert next(mw.watch(consumer="role:Engineer"))["record"]["id"] == "n1"
    # offsets are per consumer
    assert next(mw.watch(consumer="role:Architect", from_start=True))["record"]["id"] == "n0"


def test_foreign_cursors_are_rejected(mw: Client, connect: Any, tenant: str) -> None:
    mw.put(fact("a", "1"))
    cursor = next(mw.watch(from_start=True))["cursor"]
    other = connect(tenant + "-x")
    other.put(fact("b", "2"))
    e = fails("INVALID_CURSOR", lambda: next(other.watch(cursor=cursor)), "/cursor")
    assert e.code == "INVALID_ARGUMENT"
    fails("INVALID_CURSOR", lambda: other.commit_offset("c", cursor), "/cursor")
    fails("INVALID_CURSOR", lambda: next(mw.watch(cursor="w1.AAAA")), "/cursor")
    fails("INVALID_CURSOR", lambda: mw.commit_offset("c", "c1.not-a-watch-cursor"), "/cursor")


def test_expired_positions() -> None:
    store = Store(":memory:", change_retention_seconds=-1)
    svc = Service(store)
    call = Call("t")
    svc.put(call, {"specversion": "1.0", "operation_id": "a", "items": [{"record": fact("a", "1")}]})
    first = next(svc.watch(call, {"specversion": "1.0", "operation_id": "w", "from_start": True}))
    import memorywire.protobuf

    cursor = memorywire.protobuf.decode(first, type="memorywire.v1.WatchResponse")["event"]["cursor"]
    svc.commit_offset(call, {"specversion": "1.0", "operation_id": "c", "consumer": "k", "cursor": cursor})
    svc.put(call, {"specversion": "1.0", "operation_id": "b", "items": [{"record": fact("b", "2")}]})
    store.maintain()  # every change is past its retention
    with pytest.raises(ServiceError) as info:
        svc.watch(call, {"specversion": "1.0", "operation_id": "w", "cursor": cursor})
    assert (info.value.reason, info.value.code, info.value.pointer) == ("CURSOR_EXPIRED", "OUT_OF_RANGE",
                                                                         "/cursor")
    with pytest.raises(ServiceError) as info:
        svc.watch(call, {"specversion": "1.0", "operation_id": "w", "consumer": "k"})
    assert info.value.reason == "CURSOR_EXPIRED"
    # from_start begins at the first change still kept: none here
    svc.put(call, {"specversion": "1.0", "operation_id": "c2", "items": [{"record": fact("c", "3")}]})
    data = next(svc.watch(call, {"specversion": "1.0", "operation_id": "w", "from_start": True}))
    assert memorywire.protobuf.decode(data, type="memorywire.v1.WatchResponse")["event"]["record"]["id"] == "c"
    store.close()


def test_watch_returns_once_its_start_is_fixed(serve: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    # The service is slow to fix the start of the stream; a change made as
    # soon as watch() returns is still delivered, since the service sends
    # its headers only once the start is fixed (grpc-binding.md section 7.1).
    fixing = watch_module.start_position

    def slow_start(*args: Any) -> Any:
        time.sleep(0.5)
        return fixing(*args)

    monkeypatch.setattr(watch_module, "start_position", slow_start)
    _, target = serve()
    with Client(target, tenant="acme", timeout=10) as mw, mw.watch(timeout=10) as events:
        mw.put(fact("f1", "made as soon as the Watch was opened"))
        assert next(events)["record"]["id"] == "f1"
