"""Fair sharing of the service between tenants (grpc-binding.md section 7.4).

The gRPC server runs every call on one of a fixed number of worker threads,
and a stream holds its worker for as long as it runs. ``Admission`` bounds
the calls one tenant has in progress, and the streams of each kind, so that
no tenant can hold every worker; ``StallMonitor`` ends a stream whose peer
stopped reading (or, for Import, sending), which would otherwise hold its
worker, a snapshot of the store and the message in flight for ever.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import grpc

from memorywire.service.errors import ServiceError, error
from memorywire.service.registry import OPERATIONS, Streaming

__all__ = ["ANONYMOUS", "Admission", "FairShare", "REFLECTION", "StallMonitor", "STREAM_METHODS"]

#: The method of the reflection service, a stream that acts for no tenant.
REFLECTION = "ServerReflectionInfo"
#: The methods whose calls are streams: the streaming operations and reflection.
STREAM_METHODS = (*(op.name for op in OPERATIONS if op.streaming is not Streaming.UNARY), REFLECTION)
#: The operations whose client receives a stream (as opposed to sending one).
_SERVER_STREAMS = frozenset(op.name for op in OPERATIONS if op.streaming is Streaming.SERVER)
#: What calls that act for no tenant and hold a worker are counted under:
#: no tenant has this name (a tenant has at least one code point).
ANONYMOUS = ""

#: The bounds of each setting, checked by ``FairShare.check``: the least and
#: the greatest value.
MAX_WORKERS_RANGE = (4, 4096)
STALL_SECONDS_RANGE = (1.0, 3600.0)
IMPORT_BYTES_RANGE = (1 << 20, 1 << 40)


@dataclass(frozen=True)
class FairShare:
    """The limits that share a server between tenants; ``None`` for a
    setting that follows from ``max_workers``."""

    #: The worker threads: the most calls the server runs at once.
    max_workers: int = 32
    #: The calls of one tenant in progress at once, streams included; at
    #: most half the workers (default: half).
    max_tenant_calls: int | None = None
    #: The streams of one kind (Watch, Export, Import) of one tenant open at
    #: once; at most ``max_tenant_calls`` (default: an eighth of the workers).
    max_tenant_streams: int | None = None
    #: How long a stream may wait on its peer (to take a message the server
    #: sends, or to send the next message of an Import) before it is ended.
    stream_stall_seconds: float = 30.0
    #: The bytes of all the messages of one Import together.
    max_import_bytes: int = 64 << 20

    @property
    def tenant_calls(self) -> int:
        return self.max_tenant_calls if self.max_tenant_calls is not None else self.max_workers // 2

    @property
    def tenant_streams(self) -> int:
        return (self.max_tenant_streams if self.max_tenant_streams is not None
                else max(1, self.max_workers // 8))

    @property
    def streams(self) -> int:
        """The streams of every tenant open at once: half the workers, so
        that the other half serve the calls that end."""
        return self.max_workers // 2

    def check(self) -> FairShare:
        """Self, when every setting is within its bounds; ValueError naming
        the first that is not."""
        lo, hi = MAX_WORKERS_RANGE
        if not lo <= self.max_workers <= hi:
            raise ValueError(f"--max-workers is {self.max_workers}; give {lo} to {hi}")
        if not 1 <= self.tenant_calls <= self.max_workers // 2:
            raise ValueError(f"--max-tenant-calls is {self.tenant_calls}; give 1 to half of "
                             f"--max-workers ({self.max_workers // 2}), so that no tenant holds "
                             "every worker")
        if not 1 <= self.tenant_streams <= self.tenant_calls:
            raise ValueError(f"--max-tenant-streams is {self.tenant_streams}; give 1 to "
                             f"--max-tenant-calls ({self.tenant_calls})")
        lo_s, hi_s = STALL_SECONDS_RANGE
        if not (math.isfinite(self.stream_stall_seconds) and lo_s <= self.stream_stall_seconds <= hi_s):
            raise ValueError(f"--stream-stall-timeout is {self.stream_stall_seconds:g} seconds; "
                             f"give {lo_s:g} to {hi_s:g}")
        lo_b, hi_b = IMPORT_BYTES_RANGE
        if not lo_b <= self.max_import_bytes <= hi_b:
            raise ValueError(f"--max-import-mib is {self.max_import_bytes / (1 << 20):g} MiB; give "
                             f"{lo_b >> 20} to {hi_b >> 20}")
        return self


class Admission:
    """Counts the calls in progress, by tenant and kind, and refuses those
    beyond the limits with RATE_LIMITED."""

    #: How long a refused caller waits before it tries again.
    RETRY_CALL_MILLIS = 100
    RETRY_STREAM_MILLIS = 1000

    def __init__(self, share: FairShare) -> None:
        self.share = share
        self._lock = threading.Lock()
        self._calls: dict[str, int] = {}
        self._streams: dict[tuple[str, str], int] = {}
        self._all_streams = 0

    @contextmanager
    def admit(self, tenant: str | None, method: str) -> Iterator[Callable[[], None]]:
        """Hold a place for one call of a tenant while the block runs. None
        is a call that acts for no tenant and ends at once (GetCapabilities),
        which is not counted; ANONYMOUS counts those that hold a worker.

        The block receives a function that gives the place back at once,
        for a call that ends before its worker notices (a cancelled stream);
        the place is given back once only."""
        if tenant is None:
            yield lambda: None
            return
        stream = method in STREAM_METHODS
        with self._lock:
            calls = self._calls.get(tenant, 0)
            if calls >= self.share.tenant_calls:
                raise self._refused(f"the tenant has {calls} calls in progress, the most this service "
                                    "runs at once for one tenant", stream)
            if stream:
                mine = self._streams.get((tenant, method), 0)
                if mine >= self.share.tenant_streams:
                    raise self._refused(f"the tenant has {mine} {method} streams open, the most this "
                                        "service serves at once for one tenant", True)
                if self._all_streams >= self.share.streams:
                    raise self._refused(f"this service serves at most {self.share.streams} streams "
                                        "at once", True)
                self._streams[(tenant, method)] = mine + 1
                self._all_streams += 1
            self._calls[tenant] = calls + 1
        held = [True]

        def release() -> None:
            with self._lock:
                if not held[0]:
                    return
                held[0] = False
                left = self._calls[tenant] - 1
                if left:
                    self._calls[tenant] = left
                else:
                    del self._calls[tenant]
                if stream:
                    left = self._streams[(tenant, method)] - 1
                    if left:
                        self._streams[(tenant, method)] = left
                    else:
                        del self._streams[(tenant, method)]
                    self._all_streams -= 1

        try:
            yield release
        finally:
            release()

    def in_progress(self, tenant: str) -> int:
        with self._lock:
            return self._calls.get(tenant, 0)

    def _refused(self, message: str, stream: bool) -> ServiceError:
        e = error("RATE_LIMITED", message)
        e.retry_after_millis = self.RETRY_STREAM_MILLIS if stream else self.RETRY_CALL_MILLIS
        return e


class Waiting:
    """One stream as the monitor sees it: since when it waits on its peer."""

    __slots__ = ("since", "method", "context", "on_stall", "ended")

    def __init__(self, method: str, context: grpc.ServicerContext,
                 on_stall: Callable[[str], None]) -> None:
        self.since: float | None = None
        self.method = method
        self.context = context
        self.on_stall = on_stall
        self.ended = False

    def wait(self) -> None:
        """The stream starts to wait on its peer."""
        self.since = time.monotonic()

    def done(self) -> None:
        """The peer took (or sent) the message."""
        self.since = None


class StallMonitor:
    """Ends the streams that have waited on their peer longer than
    ``seconds``: a thread looks at every open stream a few times within
    that time and cancels the call of one that stalled, with the status
    UNAVAILABLE, which frees the worker that waits in the gRPC library."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._lock = threading.Lock()
        self._open: set[Waiting] = set()
        self._wake = threading.Event()
        self._stop = False
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="memorywire-stalls", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop = True
        self._wake.set()
        if self._thread is not None:
            self._thread.join(5)

    @contextmanager
    def watch(self, method: str, context: grpc.ServicerContext,
              on_stall: Callable[[str], None]) -> Iterator[Waiting]:
        """Watch a stream while the block runs; ``on_stall`` gets the
        message of the status that ended it."""
        entry = Waiting(method, context, on_stall)
        with self._lock:
            self._open.add(entry)
        try:
            yield entry
        finally:
            with self._lock:
                self._open.discard(entry)

    def _run(self) -> None:
        interval = max(0.05, min(1.0, self.seconds / 4))
        while not self._stop:
            self._wake.wait(interval)
            now = time.monotonic()
            with self._lock:
                stalled = [e for e in self._open
                           if not e.ended and e.since is not None and now - e.since > self.seconds]
            for entry in stalled:
                entry.ended = True
                peer = "took no message" if entry.method in _SERVER_STREAMS else "sent no message"
                message = (f"the {entry.method} stream was ended: its client {peer} for "
                           f"{self.seconds:g} seconds; open it again to continue")
                entry.on_stall(message)
                _cancel(entry.context, grpc.StatusCode.UNAVAILABLE, message)


def _cancel(context: grpc.ServicerContext, code: grpc.StatusCode, message: str) -> None:
    """Cancel a call from another thread, with a status where the gRPC
    library allows it: the worker that waits for the transport wakes up."""
    call = getattr(getattr(context, "_rpc_event", None), "call", None)
    try:
        if call is not None:
            call.cancel(code.value[0], message)
            return
    except Exception:  # noqa: BLE001 - fall back on the plain cancellation
        pass
    context.cancel()
