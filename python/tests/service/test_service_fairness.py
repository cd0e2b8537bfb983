"""Fair sharing between tenants (grpc-binding.md section 7.4): calls and
streams counted by tenant, stalled streams ended, Import bounded as it
arrives, and the errors of a store that cannot be written."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from service_helpers import fact, fails

import memorywire.protobuf
import memorywire.service.watch
from memorywire.client import Client, service_error
from memorywire.service import MemoryServer
from memorywire.service.fairness import FairShare
from memorywire.service.server import main

SERVICE = "/memorywire.v1.MemoryService"


def _md(tenant: str) -> tuple[tuple[str, str], ...]:
    return (("memorywire-tenant", tenant),)


def _export_request() -> bytes:
    return memorywire.protobuf.encode({"specversion": "1.0", "operation_id": "op-exp"},
                                      type="memorywire.v1.ExportRequest")


def _seed(mw: Client, megabytes: int) -> None:
    """About ``megabytes`` MiB of records, in 1 MiB Puts: more than the
    windows of HTTP/2 flow control hold, so that an Export nobody reads
    stalls."""
    chunk = ("0123456789abcdef" * 62 + " ") * 64  # 64 KiB, 64 words
    for n in range(megabytes):
        mw.put([fact(f"big-{n}-{i}", f"{n} {i} {chunk}") for i in range(16)])


def _wait_until(check: Callable[[], bool], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.05)
    return check()


def test_stalled_exports_leave_the_workers_to_other_tenants(
        serve: Callable[..., tuple[MemoryServer, str]]) -> None:
    server, target = serve(stream_stall_seconds=2.0)
    with Client(target, tenant="abuser", timeout=60) as abuser:
        _seed(abuser, 24)
    # No BDP probing: it can grow a stream's window past the 24 MiB seeded,
    # and an Export that fits in the window is not stalled but done.
    channel = grpc.insecure_channel(target, options=[("grpc.max_receive_message_length", 64 << 20),
                                                     ("grpc.http2.bdp_probe", 0)])
    try:
        # 32 Exports, as many as the server has workers, never read.
        calls = [channel.unary_stream(f"{SERVICE}/Export")(_export_request(), metadata=_md("abuser"))
                 for _ in range(32)]
        time.sleep(0.5)
        with Client(target, tenant="victim", timeout=2) as victim:
            assert victim.capabilities()["implementation"] == "memorywire-reference"
            assert victim.get("x")["missing_ids"] == ["x"]
            victim.put(fact("v1", "served while another tenant stalls its streams"))
        assert server.admission.in_progress("abuser") == server.share.tenant_streams
        # The admitted streams stall; the monitor ends them and frees their workers.
        assert _wait_until(lambda: server.admission.in_progress("abuser") == 0, 6.0)
        outcomes = []
        for call in calls:
            with pytest.raises(grpc.RpcError) as info:
                for _ in call:
                    pass
            outcomes.append(service_error(info.value))
        ended = [e for e in outcomes if e.reason == "UNAVAILABLE"]
        refused = [e for e in outcomes if e.reason == "RATE_LIMITED"]
        assert len(ended) == server.share.tenant_streams and len(ended) + len(refused) == 32
        assert "took no message for 2 seconds" in ended[0].message
        assert refused[0].code == "RESOURCE_EXHAUSTED" and refused[0].retry_after_millis == 1000
        assert "4 Export streams open" in refused[0].message
    finally:
        channel.close()


def _watch_request() -> bytes:
    return memorywire.protobuf.encode({"specversion": "1.0", "operation_id": "op-w"},
                                      type="memorywire.v1.WatchRequest")


def test_one_tenants_watch_streams_leave_room_for_another(
        serve: Callable[..., tuple[MemoryServer, str]]) -> None:
    server, target = serve()
    channel = grpc.insecure_channel(target)
    try:
        # As many Watch streams as half the workers: they once took every
        # place for Watch streams, of every tenant.
        calls = [channel.unary_stream(f"{SERVICE}/Watch")(_watch_request(), metadata=_md("acme"))
                 for _ in range(16)]
        expected = 16 - server.share.tenant_streams
        assert _wait_until(lambda: sum(c.done() for c in calls) == expected, 5)
        time.sleep(0.2)
        refused = [service_error(c) for c in calls if c.done()]
        assert len(refused) == expected
        assert {e.reason for e in refused} == {"RATE_LIMITED"}
        assert "4 Watch streams open" in refused[0].message
        with Client(target, tenant="globex") as globex, globex.watch() as mine:
            globex.put(fact("g1", "another tenant's Watch is served"))
            assert next(mine)["record"]["id"] == "g1"
        for c in calls:
            c.cancel()
        # a cancelled stream gives its place back
        assert _wait_until(lambda: server.admission.in_progress("acme") == 0, 3)
        with Client(target, tenant="acme") as acme, acme.watch() as again:
            acme.put(fact("a1", "x"))
            assert next(again)["record"]["id"] == "a1"
    finally:
        channel.close()


def test_a_cancelled_watch_gives_its_place_back_at_once(
        serve: Callable[..., tuple[MemoryServer, str]], monkeypatch: pytest.MonkeyPatch) -> None:
    # One Watch stream a tenant: a client that cancels one and opens the
    # next straight away is served, although the cancelled stream's worker
    # only notices at its next poll, here a minute away.
    monkeypatch.setattr(memorywire.service.watch, "POLL_SECONDS", 60)
    server, target = serve(max_tenant_streams=1)
    channel = grpc.insecure_channel(target)
    try:
        for n in range(3):
            call = channel.unary_stream(f"{SERVICE}/Watch")(_watch_request(), metadata=_md("acme"))
            # A bound for a loaded machine: the first Watch of a PostgreSQL
            # tenant opens its listener first.
            assert _wait_until(lambda: server.admission.in_progress("acme") == 1, 10)
            time.sleep(0.05)  # the stream now waits for events
            call.cancel()
            # The place is given back by the cancellation's callback, which
            # a loaded machine may run late; the worker would take a minute.
            assert _wait_until(lambda: server.admission.in_progress("acme") == 0, 10)
            with Client(target, tenant="acme") as acme, acme.watch() as again:
                acme.put(fact(f"a{n}", "x"))
                assert next(again)["record"]["id"] == f"a{n}"
    finally:
        channel.close()


def test_a_tenants_calls_in_progress_are_bounded(
        serve: Callable[..., tuple[MemoryServer, str]]) -> None:
    server, target = serve(max_workers=8, max_tenant_calls=2, max_tenant_streams=1)
    channel = grpc.insecure_channel(target)
    try:
        with Client(target, tenant="acme") as acme:
            acme.put(fact("a", "x"))
            watch = channel.unary_stream(f"{SERVICE}/Watch")(_watch_request(), metadata=_md("acme"))
            assert _wait_until(lambda: server.admission.in_progress("acme") == 1, 3)
            # a second stream of the same kind is refused
            watch2 = channel.unary_stream(f"{SERVICE}/Watch")(_watch_request(), metadata=_md("acme"))
            assert _wait_until(watch2.done, 3)
            e = service_error(watch2)
            assert e.reason == "RATE_LIMITED" and "1 Watch streams open" in e.message
            assert e.retry_after_millis == 1000
            # a stream of another kind is served, and so are unary calls
            assert [r["id"] for r in acme.export()] == ["a"]
            assert acme.get("a")["records"][0]["id"] == "a"
            # with two calls in progress (two Watch streams of two kinds
            # cannot be had: one Watch and one stalled Import), a third is refused
            release = threading.Event()

            def slow() -> Iterator[bytes]:
                yield from _import_messages(1, 10, 1, [0])
                release.wait(10)

            imp = channel.stream_unary(f"{SERVICE}/Import").future(slow(), metadata=_md("acme"))
            assert _wait_until(lambda: server.admission.in_progress("acme") == 2, 3)
            e = fails("RATE_LIMITED", lambda: acme.get("a"))
            assert "2 calls in progress" in e.message and e.retry_after_millis == 100
            release.set()
            imp.cancel()
        with Client(target, tenant="globex") as globex:
            assert globex.get("a")["missing_ids"] == ["a"]
        watch.cancel()
    finally:
        channel.close()


def test_streams_of_every_tenant_together_take_half_the_workers(
        serve: Callable[..., tuple[MemoryServer, str]]) -> None:
    server, target = serve(max_workers=8, max_tenant_streams=1)
    channel = grpc.insecure_channel(target)
    try:
        calls = [channel.unary_stream(f"{SERVICE}/Watch")(_watch_request(), metadata=_md(f"t{i}"))
                 for i in range(4)]
        assert _wait_until(lambda: sum(server.admission.in_progress(f"t{i}") for i in range(4)) == 4, 3)
        with Client(target, tenant="t5") as late:
            e = fails("RATE_LIMITED", lambda: next(late.watch()))
            assert "this service serves at most 4 streams at once" in e.message
            assert e.code == "RESOURCE_EXHAUSTED" and e.retry_after_millis == 1000
            assert late.get("x")["missing_ids"] == ["x"]  # the other half of the workers serve calls
            calls[0].cancel()
            assert _wait_until(lambda: server.admission.in_progress("t0") == 0, 3)
            with late.watch(from_start=True) as mine:
                late.put(fact("a", "1"))
                assert next(mine)["record"]["id"] == "a"
        for c in calls:
            c.cancel()
    finally:
        channel.close()


def _import_messages(records: int, size: int, count: int, sent: list[int]) -> Iterator[bytes]:
    text = "x" * size
    for n in range(count):
        sent[0] += 1
        yield memorywire.protobuf.encode(
            {"specversion": "1.0", "operation_id": "op-imp",
             "records": [fact(f"i{n}-{i}", f"{i} {text}") for i in range(records)]},
            type="memorywire.v1.ImportRequest")


def test_import_is_refused_past_its_byte_limit_as_it_arrives(
        serve: Callable[..., tuple[MemoryServer, str]]) -> None:
    _, target = serve(max_import_bytes=1 << 20)
    channel = grpc.insecure_channel(target)
    try:
        sent = [0]
        # 100 messages of 256 KiB: 25 MiB, where the limit is 1 MiB
        with pytest.raises(grpc.RpcError) as info:
            channel.stream_unary(f"{SERVICE}/Import")(
                _import_messages(4, 64 << 10, 100, sent), metadata=_md("acme"), timeout=30)
        e = service_error(info.value)
        assert e.reason == "DOCUMENT_TOO_LARGE" and e.code == "RESOURCE_EXHAUSTED"
        assert "at most 1048576 bytes in all its messages" in e.message and "message 3 " in e.message
        # Refused as it arrived, not after the whole stream: the client had
        # sent little of it (7 to 19 messages on a quiet machine, more under
        # load, as the transport takes them ahead of the refusal).
        assert sent[0] < 50
        with Client(target, tenant="acme") as acme:
            assert acme.get("i0-0")["missing_ids"] == ["i0-0"]  # nothing of it took effect
            # within the limit an Import is one operation, as before
            out = channel.stream_unary(f"{SERVICE}/Import")(
                _import_messages(4, 16 << 10, 10, [0]), metadata=_md("acme"), timeout=30)
            doc = memorywire.protobuf.decode(out, type="memorywire.v1.ImportResponse")
            assert doc["imported"] == 40
            assert len(list(acme.export())) == 40
    finally:
        channel.close()


def test_a_stalled_import_is_ended(serve: Callable[..., tuple[MemoryServer, str]]) -> None:
    server, target = serve(stream_stall_seconds=1.0)
    release = threading.Event()

    def messages() -> Iterator[bytes]:
        yield from _import_messages(1, 10, 1, [0])
        release.wait(10)  # the client sends nothing more, and does not half-close

    channel = grpc.insecure_channel(target)
    try:
        started = time.monotonic()
        with pytest.raises(grpc.RpcError) as info:
            channel.stream_unary(f"{SERVICE}/Import")(messages(), metadata=_md("acme"), timeout=30)
        release.set()
        e = service_error(info.value)
        assert e.reason == "UNAVAILABLE" and e.code == "UNAVAILABLE", e
        assert "its client sent no message for 1 seconds" in e.message
        assert time.monotonic() - started < 5
        assert _wait_until(lambda: server.admission.in_progress("acme") == 0, 2)
        with Client(target, tenant="acme") as acme:
            assert acme.get("i0-0")["missing_ids"] == ["i0-0"]
    finally:
        release.set()
        channel.close()


def test_a_cancelled_import_never_takes_effect(tmp_path: Path) -> None:
    """A client that cancels an Import after its messages, without
    half-closing, leaves nothing: the gRPC library may report such a stream
    as ended a moment before it reports the cancellation (grpc-binding.md
    section 6.2). The server runs in a process of its own, where the two
    reports race as they do in service; the cancellation is repeated."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "memorywire.service", "--listen", "127.0.0.1:0", "--store",
         str(tmp_path / "cancel.sqlite3")],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    channel = None
    assert proc.stderr is not None
    drain = threading.Thread(target=proc.stderr.read, daemon=True)
    try:
        target = ""
        for line in proc.stderr:
            if '"event":"listening"' in line:
                target = json.loads(line)["address"]
                break
        assert target, "the server did not start"
        drain.start()
        channel = grpc.insecure_channel(target)
        count = 10
        for n in range(count):
            sent, release = threading.Event(), threading.Event()

            def messages(n: int = n, sent: threading.Event = sent,
                         release: threading.Event = release) -> Iterator[bytes]:
                yield memorywire.protobuf.encode(
                    {"specversion": "1.0", "operation_id": f"op-cancel-{n}",
                     "records": [fact(f"c{n}", "cancelled")]}, type="memorywire.v1.ImportRequest")
                sent.set()
                release.wait(10)

            future = channel.stream_unary(f"{SERVICE}/Import").future(
                messages(), metadata=_md("acme"), timeout=30)
            assert sent.wait(5)
            time.sleep(0.2)  # the server waits for the next message
            future.cancel()
            release.set()
        time.sleep(0.3)
        with Client(target, tenant="acme") as acme:
            ids = [f"c{n}" for n in range(count)]
            assert acme.get(ids)["missing_ids"] == ids
    finally:
        if channel is not None:
            channel.close()
        proc.terminate()
        proc.wait(10)
        if drain.is_alive():
            drain.join(10)
        proc.stderr.close()


@pytest.mark.parametrize(("flags", "message"), [
    (["--max-workers", "2"], "--max-workers is 2; give 4 to 4096"),
    (["--max-tenant-calls", "0"], "--max-tenant-calls is 0; give 1 to half of --max-workers (16)"),
    (["--max-tenant-calls", "17"], "--max-tenant-calls is 17"),
    (["--max-tenant-streams", "9", "--max-tenant-calls", "8"], "--max-tenant-streams is 9; give 1 to"),
    (["--stream-stall-timeout", "nan"], "--stream-stall-timeout is nan seconds; give 1 to 3600"),
    (["--stream-stall-timeout", "0.5"], "--stream-stall-timeout is 0.5 seconds"),
    (["--max-import-mib", "0"], "--max-import-mib is 0 MiB; give 1 to"),
    (["--max-import-mib", "-3"], "--max-import-mib is -3 MiB"),
    (["--grace", "nan"], "--grace is nan seconds; give 0 to 3600"),
    (["--grace", "-1"], "--grace is -1 seconds; give 0 to 3600"),
    (["--grace", "inf"], "--grace is inf seconds"),
    (["--grace", "3601"], "--grace is 3601 seconds"),
    (["--cursor-ttl", "60"], "--cursor-ttl is 60 seconds; paging cursors stay valid for 3600 (an hour) "
                             "to 2.592e+06 seconds (30 days)"),
    (["--cursor-ttl", "2592001"], "--cursor-ttl is 2.592e+06 seconds"),
    (["--cursor-ttl", "1e308"], "--cursor-ttl is 1e+308 seconds"),
    (["--cursor-ttl", "inf"], "--cursor-ttl is inf seconds"),
    (["--cursor-ttl", "nan"], "--cursor-ttl is nan seconds"),
    (["--index-memory", "0"], "--index-memory is 0 MiB; give 1 to 1048576"),
    (["--index-memory", "1048577"], "--index-memory is 1048577 MiB; give 1 to 1048576"),
])
def test_flags_are_bounded(flags: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    """A flag out of its bounds is a usage error: exit status 2 and one line
    naming the flag and its bounds, before anything starts."""
    with pytest.raises(SystemExit) as exited:
        main(["--listen", "127.0.0.1:0", "--store", ":memory:", *flags])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert f"memorywire serve: error: {message}" in err and "Traceback" not in err, err


@pytest.mark.parametrize(("flag", "value"), [
    ("grace", 0.0), ("grace", 3600.0), ("cursor_ttl", 3600.0), ("cursor_ttl", 2592000.0),
    ("index_memory", 1), ("index_memory", 1 << 20),
])
def test_flags_at_their_bounds_are_accepted(flag: str, value: float) -> None:
    from memorywire.service import server

    args = argparse.Namespace(grace=5.0, cursor_ttl=86400.0, index_memory=2048)
    setattr(args, flag, value)
    server._check_bounds(args)


def test_the_spec_states_the_limits_of_the_service() -> None:
    """The table of grpc-binding.md section 7.4 gives the defaults and bounds
    that the service enforces."""
    from memorywire.service import fairness
    from memorywire.service.operations import EXPORT_BATCH_BYTES, MAX_IMPORT_RECORDS

    spec = (Path(__file__).resolve().parents[3] / "spec" / "v1" / "grpc-binding.md").read_text("utf-8")
    section = spec[spec.index('<a id="7.4"></a>'):spec.index('<a id="8"></a>')]
    rows = {cells[0]: cells[1:] for cells in (
        [c.strip() for c in line.strip("|").split("|")] for line in section.splitlines()
        if line.startswith("| ") and not line.startswith("| Limit"))}
    share = FairShare()

    def leading(text: str) -> int:
        return int(text.split()[0])

    assert leading(rows["`max_workers`"][0]) == share.max_workers
    assert rows["`max_workers`"][1] == "{} to {}".format(*fairness.MAX_WORKERS_RANGE)  # noqa: UP032
    assert leading(rows["streams of every tenant"][0]) == share.streams
    assert leading(rows["`max_tenant_calls`"][0]) == share.tenant_calls
    assert leading(rows["`max_tenant_streams`"][0]) == share.tenant_streams
    assert leading(rows["`stream_stall_seconds`"][0]) == share.stream_stall_seconds
    lo, hi = fairness.STALL_SECONDS_RANGE
    assert rows["`stream_stall_seconds`"][1] == f"{lo:g} to {hi:g}"
    assert leading(rows["`max_import_bytes`"][0]) == share.max_import_bytes
    lo_b, hi_b = fairness.IMPORT_BYTES_RANGE
    assert rows["`max_import_bytes`"][1] == f"{lo_b >> 20} MiB to {hi_b >> 40} TiB"
    assert leading(rows["records of one Import"][0]) == MAX_IMPORT_RECORDS
    assert leading(rows["bytes of an Export batch"][0]) == EXPORT_BATCH_BYTES


def test_reflection_streams_that_act_for_no_tenant_are_bounded_too(
        serve: Callable[..., tuple[MemoryServer, str]]) -> None:
    from grpc_reflection.v1alpha import reflection_pb2

    server, target = serve(stream_stall_seconds=1.0)
    channel = grpc.insecure_channel(target)
    release = threading.Event()

    def nothing() -> Iterator[Any]:
        release.wait(10)
        return
        yield

    try:
        method = channel.stream_stream("/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
                                       request_serializer=reflection_pb2.ServerReflectionRequest.SerializeToString,
                                       response_deserializer=reflection_pb2.ServerReflectionResponse.FromString)
        calls = [method(nothing()) for _ in range(10)]
        expected = 10 - server.share.tenant_streams
        assert _wait_until(lambda: sum(c.done() for c in calls) == expected, 5)
        assert {c.code() for c in calls if c.done()} == {grpc.StatusCode.RESOURCE_EXHAUSTED}
        with Client(target, tenant="acme", timeout=2) as acme:
            assert acme.get("x")["missing_ids"] == ["x"]
        # the streams that send nothing are ended as stalled
        assert _wait_until(lambda: all(c.done() for c in calls), 5)
        assert _wait_until(lambda: server.admission.in_progress("") == 0, 2)
        # and reflection still answers
        listed = method(iter([reflection_pb2.ServerReflectionRequest(list_services="")]))
        names = {s.name for s in next(listed).list_services_response.service}
        assert "memorywire.v1.MemoryService" in names
        listed.cancel()
    finally:
        release.set()
        channel.close()


def test_an_import_holds_bounded_memory_until_it_commits(
        serve: Callable[..., tuple[MemoryServer, str]]) -> None:
    """The messages of an Import are kept as canonical bytes, in a temporary
    file beyond 8 MiB, not as documents: 40 MiB imported take far less."""
    import tracemalloc

    _, target = serve()
    channel = grpc.insecure_channel(target)
    try:
        tracemalloc.start()
        try:
            out = channel.stream_unary(f"{SERVICE}/Import")(
                _import_messages(16, 64 << 10, 40, [0]), metadata=_md("acme"), timeout=120)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert memorywire.protobuf.decode(out, type="memorywire.v1.ImportResponse")["imported"] == 640
        # the client's message and the server's in hand, and 8 MiB spooled in memory
        assert peak < 24 << 20, peak >> 20
    finally:
        channel.close()
