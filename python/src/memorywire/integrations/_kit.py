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
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from typing import Any, NoReturn, TypeVar

from memorywire._extras import install_hint, missing

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


def describe(error: ServiceError) -> str:
    """The one line that every backend's error carries: who answered, the
    code and reason, the field at fault and the message."""
    where = f" at {error.pointer}" if error.violations and error.pointer else ""
    reason = error.code if error.reason == error.code else f"{error.code} {error.reason}"
    return f"memorywire service: {reason}{where}: {error.message}"


@contextmanager
def translate(kind: Callable[[str], BaseException]) -> Iterator[None]:
    """Raise ``kind(describe(e))`` from a ServiceError ``e`` raised inside."""
    try:
        yield
    except ServiceError as e:
        _raise(kind, e)


@asynccontextmanager
async def atranslate(kind: Callable[[str], BaseException]) -> AsyncIterator[None]:
    try:
        yield
    except ServiceError as e:
        _raise(kind, e)


def _raise(kind: Callable[[str], BaseException], error: ServiceError) -> NoReturn:
    raise kind(describe(error)) from error


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
