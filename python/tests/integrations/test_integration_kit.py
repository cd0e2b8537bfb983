"""The shared parts of the framework backends, against a real service: a
write retried after a lost response is not done twice, every call has a
deadline, and errors carry the memorywire reason."""

from __future__ import annotations

import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from lost_response import LosingProxy, losing_proxy

from memorywire.client import Client
from memorywire.integrations._kit import Retry, call_with_retry, connect, describe, translate
from memorywire.service import MemoryServer, Store
from memorywire.service.errors import ServiceError

FACT = {"id": "f1", "kind": "fact", "fact": {"text": "The user prefers window seats."}}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    store = Store(str(tmp_path_factory.mktemp("kit") / "store.sqlite3"))
    server = MemoryServer(store, "127.0.0.1:0", strict=True, log=None)
    port = server.start()
    yield f"127.0.0.1:{port}"
    server.stop(grace=1.0)
    store.close()


@pytest.fixture
def losing(server: str) -> Iterator[LosingProxy]:
    with losing_proxy(server) as proxy:
        yield proxy


def test_a_write_retried_after_a_lost_response_is_done_once(losing: LosingProxy) -> None:
    with Client(losing.front, tenant=f"t-{uuid.uuid4().hex[:8]}") as mw:
        out = call_with_retry(mw.put, records=[FACT], retry=Retry(attempts=3, backoff=0.01))
        assert losing.lost == 1
        # The retry was answered with the first attempt's result: created, not unchanged.
        assert [r["status"] for r in out["results"]] == ["created"]
        assert [r["id"] for r in mw.history()["records"]] == ["f1"]


def test_a_retry_with_a_new_operation_id_would_be_seen(losing: LosingProxy) -> None:
    # What the test above rules out: the same write sent again as a new request.
    with Client(losing.front, tenant=f"t-{uuid.uuid4().hex[:8]}") as mw:
        with pytest.raises(ServiceError):
            mw.put([FACT])
        assert [r["status"] for r in mw.put([FACT])["results"]] == ["unchanged"]


def test_a_lasting_failure_is_raised_after_the_attempts(losing: LosingProxy) -> None:
    losing.lose = 5
    with Client(losing.front, tenant=f"t-{uuid.uuid4().hex[:8]}") as mw:
        with pytest.raises(ServiceError) as e:
            call_with_retry(mw.put, records=[FACT], retry=Retry(attempts=3, backoff=0.01))
    assert e.value.code == "UNAVAILABLE"
    assert losing.lost == 3


def test_an_error_that_a_retry_cannot_cure_is_raised_at_once(server: str) -> None:
    calls = []

    def put(**kwargs: Any) -> Any:
        calls.append(kwargs["operation_id"])
        with Client(server) as mw:  # no tenant: TENANT_REQUIRED
            return mw.put([FACT], **kwargs)

    with pytest.raises(ServiceError) as e:
        call_with_retry(put)
    assert e.value.reason == "TENANT_REQUIRED" and len(calls) == 1


def test_an_unreachable_service_fails_within_the_deadline(tmp_path: Path) -> None:
    # A port that nothing listens on: bound, never accepting.
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        client, owned = connect(f"127.0.0.1:{s.getsockname()[1]}", tenant="acme", timeout=2)
        assert owned
        started = time.monotonic()
        with pytest.raises(ConnectionError) as e, translate(ConnectionError):
            client.get("f1")
        client.close()
    assert time.monotonic() - started < 5
    assert str(e.value).startswith("memorywire service: UNAVAILABLE")
    assert isinstance(e.value.__cause__, ServiceError)


def test_describe_names_code_reason_and_field(server: str) -> None:
    with Client(server, tenant=f"t-{uuid.uuid4().hex[:8]}") as mw, pytest.raises(ServiceError) as e:
        mw.update("missing", {"fact": {"text": "x"}})
    text = describe(e.value)
    assert text.startswith("memorywire service: NOT_FOUND RECORD_NOT_FOUND at /id")
    assert f" at {e.value.pointer}: {e.value.message}" in text


def test_a_client_given_is_used_and_not_owned(server: str) -> None:
    with Client(server, tenant="acme") as mw:
        assert connect(mw) == (mw, False)
    with pytest.raises(TypeError):
        connect(42)  # type: ignore[arg-type]


def test_importing_the_integrations_imports_no_framework() -> None:
    from memorywire._extras import MODULES

    # The extras that build on the service name its modules too; the kit needs those.
    frameworks = set().union(*(m for extra, m in MODULES.items() if extra not in {"service", "oracle"}))
    frameworks -= MODULES["service"]
    assert frameworks
    code = ("import sys, memorywire.integrations, memorywire.integrations._kit; "
            "print(' '.join(sorted({m.split('.')[0] for m in sys.modules})))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert not frameworks & set(done.stdout.split())


def test_a_request_refused_before_sending_is_translated_too() -> None:
    from memorywire.errors import ValidationError

    with pytest.raises(ConnectionError) as e, translate(ConnectionError):
        raise ValidationError("REQUIRED_FIELD_MISSING", "MemoryRecord.id is required")
    assert str(e.value) == "memorywire client: INVALID_ARGUMENT REQUIRED_FIELD_MISSING: MemoryRecord.id is required"


def test_connections_give_one_async_client_per_event_loop(server: str) -> None:
    import asyncio

    from memorywire.client import AsyncClient
    from memorywire.integrations._kit import Connections

    connections = Connections(server, tenant=f"t-{uuid.uuid4().hex[:8]}", timeout=5)

    async def use() -> AsyncClient:
        client = connections.aio()
        assert connections.aio() is client
        await client.put([FACT])
        return client

    first, second = asyncio.run(use()), asyncio.run(use())
    assert first is not second  # a channel belongs to the loop that made it
    assert connections.sync() is connections.sync()
    assert [r["id"] for r in connections.sync().history()["records"]] == ["f1"]
    connections.close()


def test_connections_use_a_client_given_and_refuse_the_other_kind(server: str) -> None:
    import asyncio

    from memorywire.client import AsyncClient
    from memorywire.integrations._kit import Connections

    with Client(server, tenant="acme") as mw:
        given = Connections(mw)
        assert given.sync() is mw
        with pytest.raises(TypeError, match="synchronous methods"):
            asyncio.run(_aio(given))
        given.close()
        assert mw.capabilities()  # a client given is not closed

    async def made_in_loop() -> None:
        client = AsyncClient(server, tenant="acme")
        given = Connections(client)
        assert given.aio() is client
        with pytest.raises(TypeError, match="asynchronous methods"):
            given.sync()
        await client.close()

    asyncio.run(made_in_loop())
    with pytest.raises(TypeError):
        Connections(42)  # type: ignore[arg-type]


async def _aio(connections: Any) -> Any:
    return connections.aio()
