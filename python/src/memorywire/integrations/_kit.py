"""What every framework backend shares: the client it talks through, the
deadline of every call, retries that keep a write idempotent, and the text
of the framework error that carries the memorywire reason.

A backend takes a service (a target such as ``"127.0.0.1:50051"``, or a
client made by the caller, which the backend then does not close) and the
client's settings. Every call has a deadline (:data:`DEFAULT_TIMEOUT` unless
the caller gives one), so a backend never waits on an unreachable service.
A write is one operation id for all its attempts: a retry after a lost
response returns the first result instead of writing twice
(spec/v1/operations.md section 4.2).
"""

from __future__ import annotations

import asyncio
import random
import threading
import time
import uuid
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

from memorywire._extras import install_hint, missing
from memorywire.errors import MemorywireError

try:
    import grpc

    from memorywire.client import AsyncClient, Client
    from memorywire.service.errors import ServiceError
except ImportError as e:  # pragma: no cover - the service extra is missing
    if missing(e, "service"):
        raise ImportError(install_hint("memorywire.integrations", "service"), name=e.name) from e
    raise

T = TypeVar("T")

#: The deadline of every call of a backend, in seconds, unless given.
DEFAULT_TIMEOUT = 10.0

#: The codes after which the same request, sent again, may succeed, and the
#: one reason of RESOURCE_EXHAUSTED that passes (the others are limits).
TRANSIENT_CODES = frozenset({"UNAVAILABLE", "DEADLINE_EXCEEDED"})
TRANSIENT_REASONS = frozenset({"RATE_LIMITED"})


def connect(service: str | Client, *, tenant: str | None = None, token: str | None = None,
            credentials: grpc.ChannelCredentials | None = None,
            timeout: float | None = DEFAULT_TIMEOUT) -> tuple[Client, bool]:
    """The client of ``service`` and whether the backend owns it (made it,
    so closes it). A client given is used as it is, with its own settings."""
    if isinstance(service, Client):
        return service, False
    if not isinstance(service, str):
        raise TypeError(f"a memorywire service is a target string or a memorywire.Client, not {type(service).__name__}")
    return Client(service, tenant=tenant, token=token, credentials=credentials, timeout=timeout), True


def aconnect(service: str | AsyncClient, *, tenant: str | None = None, token: str | None = None,
             credentials: grpc.ChannelCredentials | None = None,
             timeout: float | None = DEFAULT_TIMEOUT) -> tuple[AsyncClient, bool]:
    """As :func:`connect`, for an :class:`AsyncClient`; call it inside the
    running event loop that will use the client."""
    if isinstance(service, AsyncClient):
        return service, False
    if not isinstance(service, str):
        raise TypeError(
            f"a memorywire service is a target string or a memorywire.AsyncClient, not {type(service).__name__}")
    return AsyncClient(service, tenant=tenant, token=token, credentials=credentials, timeout=timeout), True


def describe(error: MemorywireError) -> str:
    """The one line that every backend's error carries: who refused (the
    service, or the client before sending), the code and reason, the field
    at fault and the message."""
    who = "memorywire service" if isinstance(error, ServiceError) else "memorywire client"
    where = f" at {error.pointer}" if error.violations and error.pointer else ""
    reason = error.code if error.reason == error.code else f"{error.code} {error.reason}"
    return f"{who}: {reason}{where}: {error.message}"


@contextmanager
def translate(kind: Callable[[str], BaseException]) -> Iterator[None]:
    """Raise ``kind(describe(e))`` from a MemorywireError ``e`` raised
    inside: one the service answered with, or a request that the client (or
    an adapter) refused before sending it."""
    try:
        yield
    except MemorywireError as e:
        raise kind(describe(e)) from e


@asynccontextmanager
async def atranslate(kind: Callable[[str], BaseException]) -> AsyncIterator[None]:
    """As :func:`translate`, around awaited calls."""
    try:
        yield
    except MemorywireError as e:
        raise kind(describe(e)) from e


class Connections:
    """The clients of one backend object: a :class:`Client` for its
    synchronous methods, and an :class:`AsyncClient` per event loop for its
    coroutines, since a gRPC asyncio channel belongs to the loop that made
    it and frameworks start a loop per run (``asyncio.run``,
    ``Runner.run_sync``). A client given is used as it is, and never closed.
    Safe to use from several threads."""

    def __init__(self, service: str | Client | AsyncClient, *, tenant: str | None = None,
                 token: str | None = None, credentials: grpc.ChannelCredentials | None = None,
                 timeout: float | None = DEFAULT_TIMEOUT) -> None:
        if not isinstance(service, (str, Client, AsyncClient)):
            raise TypeError("a memorywire service is a target string, a memorywire.Client or a "
                            f"memorywire.AsyncClient, not {type(service).__name__}")
        self.service = service
        self._options: dict[str, Any] = {"tenant": tenant, "token": token, "credentials": credentials,
                                         "timeout": timeout}
        self._sync: Client | None = None
        self._loops: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, AsyncClient] = (
            weakref.WeakKeyDictionary())
        self._lock = threading.Lock()

    def sync(self) -> Client:
        """The client of the synchronous methods."""
        if isinstance(self.service, Client):
            return self.service
        if isinstance(self.service, AsyncClient):
            raise TypeError("this backend was given a memorywire.AsyncClient: use its asynchronous methods")
        with self._lock:
            if self._sync is None:
                self._sync, _ = connect(self.service, **self._options)
            return self._sync

    def aio(self) -> AsyncClient:
        """The client of the running event loop."""
        if isinstance(self.service, AsyncClient):
            return self.service
        if isinstance(self.service, Client):
            raise TypeError("this backend was given a memorywire.Client: use its synchronous methods")
        loop = asyncio.get_running_loop()
        with self._lock:
            client = self._loops.get(loop)
            if client is None:
                client, _ = aconnect(self.service, **self._options)
                self._loops[loop] = client
            return client

    def close(self) -> None:
        """Close the synchronous client made here, and let go of the
        asynchronous ones (their channels close when collected, since they
        can be closed only in their own loops)."""
        with self._lock:
            client, self._sync = self._sync, None
            self._loops.clear()
        if client is not None:
            client.close()

    async def aclose(self) -> None:
        """Close the client made here for the running loop, and the
        synchronous one."""
        with self._lock:
            client = self._loops.pop(asyncio.get_running_loop(), None)
        if client is not None:
            await client.close()
        self.close()


@dataclass(frozen=True)
class Retry:
    """How a write is retried: ``attempts`` in all, waiting ``backoff``
    seconds, doubled each time with jitter, or the service's
    ``retry_after_millis`` when it gives one."""

    attempts: int = 3
    backoff: float = 0.1

    def delays(self) -> Iterator[float]:
        delay = self.backoff
        for _ in range(self.attempts - 1):
            yield delay * (0.5 + random.random())
            delay *= 2

    @staticmethod
    def wait(error: ServiceError, delay: float) -> float | None:
        """The seconds to wait before the next attempt, or None when the
        error is not one that a retry can cure."""
        if error.code not in TRANSIENT_CODES and error.reason not in TRANSIENT_REASONS:
            return None
        if error.retry_after_millis is not None:
            return error.retry_after_millis / 1000
        return delay


DEFAULT_RETRY = Retry()


def call_with_retry(fn: Callable[..., T], /, *, retry: Retry = DEFAULT_RETRY, **kwargs: Any) -> T:
    """``fn(operation_id=ID, **kwargs)`` with one ``ID`` for every attempt,
    retried after transient failures as ``retry`` says."""
    operation_id = str(uuid.uuid4())
    delays = retry.delays()
    while True:
        try:
            return fn(operation_id=operation_id, **kwargs)
        except ServiceError as e:
            wait = Retry.wait(e, next(delays, -1.0))
            if wait is None or wait < 0:
                raise
            time.sleep(wait)


async def acall_with_retry(fn: Callable[..., Awaitable[T]], /, *, retry: Retry = DEFAULT_RETRY, **kwargs: Any) -> T:
    """As :func:`call_with_retry`, awaiting ``fn``."""
    operation_id = str(uuid.uuid4())
    delays = retry.delays()
    while True:
        try:
            return await fn(operation_id=operation_id, **kwargs)
        except ServiceError as e:
            wait = Retry.wait(e, next(delays, -1.0))
            if wait is None or wait < 0:
                raise
            await asyncio.sleep(wait)
