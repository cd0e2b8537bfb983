"""AsyncClient: the asyncio client, against a real server on loopback.

Each test is a plain function that runs a coroutine with ``asyncio.run``; a
client is made inside the running loop. The same calls made through Client
and AsyncClient must give the same documents and the same errors."""

from __future__ import annotations

import asyncio
import inspect
import socket
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Any, TypeVar

import pytest
from service_helpers import fact, message

import memorywire
from memorywire.client import AsyncClient, AsyncWatchStream, Client, ServiceError

T = TypeVar("T")

AS_OF = "2030-01-01T00:00:00Z"
TAGGED = {"compare": {"field": "/sequence", "operator": "gt", "value": 20}}


def run(make: Callable[[], Awaitable[T]], limit: float = 60.0) -> T:
    """Run a coroutine in a new event loop, within ``limit`` seconds."""
    async def bounded() -> T:
        return await asyncio.wait_for(make(), limit)

    return asyncio.run(bounded())


async def collect(records: AsyncIterator[T]) -> list[T]:
    return [r async for r in records]


def new_tenant() -> str:
    return f"t-{uuid.uuid4().hex[:12]}"


def norm(doc: Any, tenant: str) -> Any:
    """A response with what differs between two tenants taken out: the
    operation ids, the times, the cursors (which carry a random part), and
    the tenant's name."""
    if isinstance(doc, dict):
        return {k: norm(v, tenant) for k, v in doc.items()
                if k not in ("operation_id", "cursor", "next_cursor") and not k.endswith("_at")}
    if isinstance(doc, list):
        return [norm(x, tenant) for x in doc]
    return "<tenant>" if doc == tenant else doc


def test_the_methods_are_those_of_client() -> None:
    public = {n for n in dir(Client) if not n.startswith("_")} - {"channel", "metadata", "tenant", "timeout"}
    assert public <= set(dir(AsyncClient))
    for name in public - {"export"}:  # export gives an async iterator; every other method is awaited
        assert inspect.signature(getattr(Client, name)) .parameters.keys() == \
            inspect.signature(getattr(AsyncClient, name)).parameters.keys(), name
    assert memorywire.AsyncClient is AsyncClient


async def script(mw: Any) -> list[Any]:
    """Every unary method once, in an order where each one succeeds; ``mw``
    is a Client (its results awaited through ``maybe``) or an AsyncClient."""
    async def maybe(x: Any) -> Any:
        return await x if inspect.isawaitable(x) else x

    out = [await maybe(mw.put([fact("a", "The user prefers window seats."), fact("b", "The user is vegetarian."),
                               message("m1", "user", "hello"), message("m2", "assistant", "hi")],
                              scope={"user": "u1"}))]
    out.append(await maybe(mw.put(fact("staged", "to review"), require_approval=True)))
    out.append(await maybe(mw.get(["a", "nope"], scope={"user": "u1"})))
    out.append(await maybe(mw.history(scope={"user": "u1"}, kinds=["message"], limit=1)))
    out.append(await maybe(mw.search("window seat", scope={"user": "u1"})))
    out.append(await maybe(mw.update("a", {"tags": ["travel"]}, expected_revision=1)))
    out.append(await maybe(mw.review("staged", "approve", reviewer="me")))
    out.append(await maybe(mw.merge("a", ["b"], strategy="keep_newest")))
    out.append(await maybe(mw.compact(["m1", "m2"], {"id": "sum", "kind": "summary",
                                                     "summary": {"text": "greetings"}})))
    out.append(await maybe(mw.expire({"older_than_seconds": 0}, "archive", dry_run=True, as_of=AS_OF)))
    out.append(await maybe(mw.delete("staged", reason="done")))
    out.append(await maybe(mw.capabilities()))
    return out


def test_every_method_gives_what_client_gives(connect: Callable[..., Client], target: str) -> None:
    t_sync, t_async = new_tenant(), new_tenant()
    expected = asyncio.run(script(connect(t_sync)))

    async def main() -> list[Any]:
        async with AsyncClient(target, tenant=t_async, timeout=30) as mw:
            return await script(mw)

    got = run(main)
    assert [norm(x, t_async) for x in got] == [norm(x, t_sync) for x in expected]
    # and the comparison can fail: the results do say what was done
    assert got[0]["results"][0] == {"id": "a", "status": "created", "sequence": 1, "revision": 1}
    assert got[5]["record"]["tags"] == ["travel"]
    assert got[7]["superseded_ids"] == ["b"]
    assert got[10]["deleted_ids"] == ["staged"]
    changed = dict(got[5], record=dict(got[5]["record"], tags=["other"]))
    assert norm(changed, t_async) != norm(expected[5], t_sync)
    assert "Put" in got[11]["operations"]


def test_reads_of_one_tenant_agree(mw: Client, target: str, tenant: str) -> None:
    mw.put([fact(f"r{i}", f"record number {i}", tags=[str(i % 3)]) for i in range(30)])
    mw.delete("r4")

    async def main() -> list[Any]:
        async with AsyncClient(target, tenant=tenant) as amw:
            return [await amw.get(["r1", "r4", "r9"], include_deleted=True),
                    await amw.history(limit=7, order="descending"),
                    await amw.search("record number", filter=TAGGED, limit=5),
                    [r async for r in amw.export(include_deleted=True)]]

    got = run(main)
    expected = [mw.get(["r1", "r4", "r9"], include_deleted=True), mw.history(limit=7, order="descending"),
                mw.search("record number", filter=TAGGED, limit=5), list(mw.export(include_deleted=True))]
    for doc in got[:3] + expected[:3]:
        del doc["operation_id"]  # a fresh one for every call
    # A paging cursor carries the second it was issued, which may differ
    # between the two calls: each must lead to the same next page instead.
    for i, follow in ((1, lambda c: mw.history(limit=7, order="descending", cursor=c)),
                      (2, lambda c: mw.search("record number", filter=TAGGED, limit=5, cursor=c))):
        pages = [follow(got[i].pop("next_cursor")), follow(expected[i].pop("next_cursor"))]
        for page in pages:
            del page["operation_id"]
            page.pop("next_cursor", None)
        assert pages[0] == pages[1] and pages[0]["records" if i == 1 else "hits"]
    assert got == expected
    assert [r["id"] for r in got[3]] == [f"r{i}" for i in range(30)]


def test_a_response_holds_its_lists_when_they_are_empty(mw: Client, target: str, tenant: str) -> None:
    # The wire leaves an empty list out; both clients give it back as [].
    mw.put(fact("x", "one"))

    async def main() -> list[Any]:
        async with AsyncClient(target, tenant=tenant) as amw:
            return [await amw.search("nothing like it"), await amw.get(["absent"])]

    for found, got in [run(main), [mw.search("nothing like it"), mw.get(["absent"])]]:
        assert found["hits"] == [] and "next_cursor" not in found
        assert got["records"] == [] and got["missing_ids"] == ["absent"]
    assert mw.search("one")["hits"][0]["record"]["id"] == "x"


def test_a_refused_call_raises_the_error_of_client(mw: Client, target: str, tenant: str) -> None:
    mw.put(fact("x", "one"))

    async def main() -> tuple[ServiceError, ServiceError, memorywire.MemorywireError]:
        async with AsyncClient(target, tenant=tenant) as amw:
            with pytest.raises(ServiceError) as mismatch:
                await amw.update("x", {"tags": ["t"]}, expected_revision=5)
            with pytest.raises(ServiceError) as missing:
                await amw.merge("x", ["nope"])
            with pytest.raises(memorywire.MemorywireError) as invalid:  # refused before it is sent
                await amw.put([fact("y", "two", specversion="2.0")])
            return mismatch.value, missing.value, invalid.value

    mismatch, missing, invalid = run(main)
    assert (mismatch.reason, mismatch.code, mismatch.pointer) == \
        ("REVISION_MISMATCH", "ABORTED", "/expected_revision")
    assert (missing.reason, missing.pointer) == ("RECORD_NOT_FOUND", "/source_ids/0")
    assert invalid.pointer == "/items/0/record/specversion"
    with pytest.raises(ServiceError) as sync:
        mw.update("x", {"tags": ["t"]}, expected_revision=5)
    assert (sync.value.reason, sync.value.code, sync.value.pointer, sync.value.message,
            sync.value.retry_after_millis) == \
        (mismatch.reason, mismatch.code, mismatch.pointer, mismatch.message, mismatch.retry_after_millis)


def test_retry_after_reaches_the_error(serve: Callable[..., Any]) -> None:
    # One Watch stream a tenant: a second one is refused, with a delay to retry after.
    _, target = serve(max_tenant_streams=1)

    async def main() -> ServiceError:
        async with AsyncClient(target, tenant="busy") as amw:
            async with await amw.watch():
                with pytest.raises(ServiceError) as info:
                    async with await amw.watch() as second:
                        async for _ in second:
                            pass
                return info.value

    e = run(main)
    assert (e.reason, e.code, e.retry_after_millis) == ("RATE_LIMITED", "RESOURCE_EXHAUSTED", 1000)
    assert "1 Watch streams open" in e.message


def test_operation_ids_make_retries_idempotent(target: str, tenant: str) -> None:
    async def main() -> tuple[Any, Any, Any]:
        async with AsyncClient(target, tenant=tenant) as amw:
            first = await amw.put(fact("i", "once"), operation_id="op-retry-1")
            again = await amw.put(fact("i", "once"), operation_id="op-retry-1")
            return first, again, await amw.get("i")

    first, again, got = run(main)
    assert again == first and first["operation_id"] == "op-retry-1"
    assert got["records"][0]["revision"] == 1  # the retry changed nothing


def test_tenants_are_kept_apart(target: str, connect: Callable[..., Client]) -> None:
    a, b = f"ünïcode {uuid.uuid4().hex[:6]}", new_tenant()

    async def main() -> tuple[Any, Any]:
        async with AsyncClient(target, tenant=a) as ma, AsyncClient(target, tenant=b) as mb:
            await ma.put(fact("secret", "of a"))
            return await mb.get("secret"), await ma.get("secret")

    of_b, of_a = run(main)
    assert of_b["missing_ids"] == ["secret"]
    assert of_a["records"][0]["scope"]["tenant"] == a
    assert connect(a).get("secret")["records"] == of_a["records"]  # the same tenant through Client


def test_a_token_is_refused_in_plain_text_to_another_machine() -> None:
    with pytest.raises(ValueError, match="only over TLS"):
        AsyncClient("memory.example.com:443", token="secret")

    async def local() -> tuple[tuple[str, str], ...]:
        amw = AsyncClient("127.0.0.1:1", token="secret", tenant="t")
        await amw.close()
        return amw.metadata

    assert run(local) == (("memorywire-tenant", "t"), ("authorization", "Bearer secret"))


def test_an_unreachable_target_fails_within_its_deadline() -> None:
    async def main() -> tuple[ServiceError, float]:
        async with AsyncClient("127.0.0.1:1", tenant="t", timeout=1.5) as amw:  # nothing listens there
            start = time.monotonic()
            with pytest.raises(ServiceError) as info:
                await amw.get("x")
            return info.value, time.monotonic() - start

    error, took = run(main, limit=10)
    assert error.code in ("UNAVAILABLE", "DEADLINE_EXCEEDED")
    assert took < 5


@pytest.fixture
def silent() -> Iterator[str]:
    """A target that takes connections and never answers."""
    with socket.create_server(("127.0.0.1", 0)) as sock:
        yield f"127.0.0.1:{sock.getsockname()[1]}"


def test_a_silent_target_fails_at_the_default_deadline(silent: str) -> None:
    async def main() -> tuple[ServiceError, float]:
        async with AsyncClient(silent, tenant="t", timeout=1.0) as amw:
            start = time.monotonic()
            with pytest.raises(ServiceError) as info:
                await amw.capabilities()
            return info.value, time.monotonic() - start

    error, took = run(main, limit=10)
    assert error.code == "DEADLINE_EXCEEDED" and 0.9 < took < 5


def test_a_call_deadline_overrides_the_default(silent: str) -> None:
    async def main() -> tuple[ServiceError, float]:
        async with AsyncClient(silent, tenant="t") as amw:  # 60 seconds by default
            start = time.monotonic()
            with pytest.raises(ServiceError) as info:
                await amw.put(fact("x", "y"), timeout=0.5)
            return info.value, time.monotonic() - start

    error, took = run(main, limit=10)
    assert error.code == "DEADLINE_EXCEEDED" and took < 5


def test_watch_from_now_resume_and_cancel(target: str, tenant: str) -> None:
    async def main() -> tuple[list[str], list[str], list[str], bool]:
        async with AsyncClient(target, tenant=tenant) as amw:
            await amw.put(fact("before", "not seen from now"))
            stream = await amw.watch()  # returns once the start is fixed
            assert isinstance(stream, AsyncWatchStream)
            await amw.put([fact("w1", "1"), fact("w2", "2"), fact("w3", "3")])
            now: list[str] = []
            async for event in stream:
                now.append(event["record"]["id"])
                if len(now) == 1:
                    break
            stream.cancel()
            assert [e async for e in stream] == []  # a cancelled stream just ends
            resumed: list[str] = []
            async with await amw.watch(cursor=stream.cursor, max_events=2) as more:
                async for event in more:
                    resumed.append(event["record"]["id"])
            # from the start, stopped by leaving ``async with`` while waiting for more
            everything: list[str] = []
            async with await amw.watch(from_start=True) as all_of_it:
                async for event in all_of_it:
                    everything.append(event["record"]["id"])
                    if len(everything) == 4:
                        break
            return now, resumed, everything, all_of_it.cursor is not None

    now, resumed, everything, has_cursor = run(main)
    assert now == ["w1"]
    assert resumed == ["w2", "w3"]
    assert everything == ["before", "w1", "w2", "w3"] and has_cursor


def test_watch_cancelled_while_waiting(target: str, tenant: str) -> None:
    async def main() -> list[Any]:
        async with AsyncClient(target, tenant=tenant) as amw:
            stream = await amw.watch()
            seen: list[Any] = []

            async def read() -> None:
                async for event in stream:
                    seen.append(event)

            reader = asyncio.create_task(read())
            await asyncio.sleep(0.2)
            stream.cancel()
            await asyncio.wait_for(reader, 5)  # ends, without an error
            return seen

    assert run(main) == []


def test_commit_offset_and_consumer_resume(target: str, tenant: str) -> None:
    async def main() -> list[str]:
        async with AsyncClient(target, tenant=tenant) as amw:
            await amw.put([fact("c1", "1"), fact("c2", "2")])
            async with await amw.watch(from_start=True, max_events=1) as first:
                [event] = [e async for e in first]
            assert (await amw.commit_offset("reader", event["cursor"]))["cursor"] == event["cursor"]
            async with await amw.watch(consumer="reader", max_events=1) as rest:
                return [e["record"]["id"] async for e in rest]

    assert run(main) == ["c2"]


def test_a_refused_watch_raises_a_service_error(target: str, tenant: str) -> None:
    async def main() -> ServiceError:
        async with AsyncClient(target, tenant=tenant) as amw:
            with pytest.raises(ServiceError) as info:
                async with await amw.watch(cursor="w1.not-a-cursor") as stream:
                    async for _ in stream:
                        pass
            return info.value

    error = run(main)
    assert error.code == "INVALID_ARGUMENT" and error.pointer == "/cursor"


def test_export_and_import_round_trip(target: str, tenant: str, connect: Callable[..., Client]) -> None:
    other = new_tenant()

    async def main() -> tuple[list[Any], Any, list[Any]]:
        async with AsyncClient(target, tenant=tenant) as src, AsyncClient(target, tenant=other) as dst:
            await src.put([fact(f"e{i}", f"exported {i}", tags=[f"{i}"]) for i in range(25)])
            await src.delete("e3")
            exported = [r async for r in src.export(include_deleted=True)]
            # a record names its tenant: into another tenant it goes without it
            with pytest.raises(ServiceError) as refused:
                await dst.import_(exported[:1])
            assert (refused.value.reason, refused.value.pointer) == ("TENANT_MISMATCH", "/records/0/scope/tenant")
            imported = await dst.import_([{k: v for k, v in r.items() if k != "scope"} for r in exported],
                                         batch_size=7)
            return exported, imported, [r async for r in dst.export(include_deleted=True)]

    exported, imported, again = run(main)
    assert [r["id"] for r in exported] == [f"e{i}" for i in range(25)]
    assert imported["imported"] == 25
    def content(r: dict[str, Any]) -> tuple[Any, ...]:
        return r["id"], r["kind"], r.get("fact"), r["tags"], r.get("lifecycle"), r["provenance"]

    assert [content(r) for r in again] == [content(r) for r in exported]
    assert again[3]["lifecycle"]["status"] == "deleted"
    assert list(connect(other).export(include_deleted=True)) == again


def test_a_refused_import_raises_a_service_error(target: str, tenant: str) -> None:
    async def main() -> ServiceError:
        async with AsyncClient(target, tenant=tenant) as amw:
            await amw.import_([fact("d", "1")], operation_id="imp-x")
            with pytest.raises(ServiceError) as info:
                await amw.import_([fact("e", "2")], operation_id="imp-x")
            return info.value

    assert run(main).reason == "OPERATION_ID_REUSED"


def test_many_calls_at_once(target: str) -> None:
    # 4 tenants, 15 calls each at once (the service runs up to 16 calls of a tenant at once)
    tenants, n = [new_tenant() for _ in range(4)], 15

    async def main() -> tuple[list[Any], list[Any], list[list[Any]]]:
        clients = [AsyncClient(target, tenant=t) for t in tenants]
        try:
            puts = await asyncio.gather(*(c.put(fact(f"p{i}", f"{c.tenant} {i}")) for c in clients for i in range(n)))
            gets = await asyncio.gather(*(c.get(f"p{i}") for c in clients for i in range(n)))
            exports = await asyncio.gather(*(collect(c.export()) for c in clients))
            return puts, gets, exports
        finally:
            await asyncio.gather(*(c.close() for c in clients))

    puts, gets, exports = run(main)
    assert [p["results"][0]["id"] for p in puts] == [f"p{i}" for _ in tenants for i in range(n)]
    assert [g["records"][0]["fact"]["text"] for g in gets] == [f"{t} {i}" for t in tenants for i in range(n)]
    for records in exports:
        assert sorted(r["sequence"] for r in records) == list(range(1, n + 1))


def test_the_docstring_example(target: str, tenant: str, capsys: pytest.CaptureFixture[str]) -> None:
    import memorywire.client

    doc = memorywire.client.__doc__ or ""
    example = doc.split("an async iterator::", 1)[1].split("\n\n``tls_credentials", 1)[0]
    body = "\n".join("    " + line[4:] for line in example.strip("\n").splitlines())
    code = "async def main():\n" + body.replace('"127.0.0.1:50051"', repr(target)).replace(
        'tenant="acme"', f"tenant={tenant!r}")
    namespace: dict[str, Any] = {}
    exec(compile(code, "memorywire.client example", "exec"), namespace)  # noqa: S102
    run(namespace["main"])
    assert capsys.readouterr().out == "created f1\n"
