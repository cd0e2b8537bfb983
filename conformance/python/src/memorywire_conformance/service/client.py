"""A gRPC client of ``memorywire.v1.MemoryService`` without generated code.

Every method is called by its path (``/memorywire.v1.MemoryService/Put``)
with the message classes of its input and output types, both read from the
service's descriptor (:mod:`.descriptors`); requests and responses are
dicts (:mod:`.wire`). A failed call raises :class:`RpcFailure`, which carries
the gRPC status and the memorywire ``Error`` read from the trailer
``grpc-status-details-bin`` (grpc-binding.md section 5).
"""

from __future__ import annotations

import queue
import threading
import time
import uuid
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import grpc
from google.protobuf.message import DecodeError, Message

from memorywire_conformance import __version__
from memorywire_conformance.service.descriptors import (
    ERROR_TYPE_URL,
    message_class,
    method_path,
)
from memorywire_conformance.service.descriptors import method as method_descriptor
from memorywire_conformance.service.wire import from_message, to_message

__all__ = ["DEFAULT", "SPECVERSION", "Client", "RpcFailure", "StreamTimeout", "WatchStream",
           "decode_status", "encode_tenant", "new_operation_id"]

#: The specification version of the release, MAJOR.MINOR.
SPECVERSION = ".".join(__version__.split(".")[:2])
TENANT_KEY = "memorywire-tenant"
SPECVERSION_KEY = "memorywire-specversion"
DETAILS_KEY = "grpc-status-details-bin"


class _Default:
    def __repr__(self) -> str:
        return "DEFAULT"


#: "Use the client's own tenant" (as opposed to None: send no tenant).
DEFAULT: Any = _Default()


def new_operation_id() -> str:
    return f"op-{uuid.uuid4()}"


def encode_tenant(tenant: str) -> str:
    """The value of the metadata ``memorywire-tenant`` (grpc-binding.md 3.1)."""
    return "".join(chr(b) if 0x21 <= b <= 0x7E and b != 0x25 else f"%{b:02X}"
                   for b in tenant.encode("utf-8"))


def decode_status(data: bytes) -> tuple[int, str, list[tuple[str, bytes]]]:
    """The code, message and details (type URL, value) of a serialized
    ``google.rpc.Status``."""
    status: Any = message_class("google.rpc.Status").FromString(data)
    return int(status.code), str(status.message), [(d.type_url, bytes(d.value))
                                                   for d in status.details]


class RpcFailure(Exception):
    """A call that ended with a status other than OK."""

    def __init__(self, method: str, code: grpc.StatusCode, details: str,
                 trailers: Sequence[tuple[str, Any]] = ()) -> None:
        self.method = method
        self.code = code
        self.details = details or ""
        #: The memorywire Error of the status details, as a dict; None when absent.
        self.error: dict[str, Any] | None = None
        #: The code and message of the google.rpc.Status; None without status details.
        self.status_code: int | None = None
        self.status_message: str | None = None
        #: How many memorywire.v1.Error details the status carries.
        self.error_count = 0
        #: Why the status details could not be read, if they could not.
        self.details_problem = ""
        #: The binding the call went through ("gRPC" or "HTTP").
        self.binding = "gRPC"
        #: How the failed response breaks its binding beyond its Error (the
        #: HTTP status or Content-Type of an Error, for HTTP); empty if it does not.
        self.binding_problem = ""
        #: The HTTP status of the response, over HTTP.
        self.http_status: int | None = None
        raw = [v for k, v in trailers if k == DETAILS_KEY]
        if raw:
            try:
                value = raw[0] if isinstance(raw[0], bytes) else str(raw[0]).encode("latin-1")
                self.status_code, self.status_message, details_list = decode_status(value)
                errors = [v for t, v in details_list if t == ERROR_TYPE_URL]
                self.error_count = len(errors)
                if errors:
                    self.error = from_message(message_class("Error").FromString(errors[0]))
            except DecodeError as e:
                self.details_problem = f"grpc-status-details-bin is not a google.rpc.Status: {e}"
        super().__init__(self.describe())

    @property
    def code_name(self) -> str:
        return str(self.code.name)

    @property
    def reason(self) -> str | None:
        return None if self.error is None else self.error.get("reason", "")

    @property
    def pointers(self) -> list[str]:
        if self.error is None:
            return []
        return [v.get("pointer", "") for v in self.error.get("violations", [])]

    def describe(self) -> str:
        text = f"{self.method} failed with {self.code.name}"
        if self.error is not None:
            text += f" {self.error.get('reason', '?')}"
            pointers = [p for p in self.pointers if p]
            if pointers:
                text += " at " + ", ".join(pointers)
        elif self.binding == "HTTP":
            text += " (no memorywire Error in the body)"
        else:
            text += " (no memorywire Error in the status details)"
        if self.details:
            text += f": {self.details}"
        return text


def _failure(method: str, e: grpc.RpcError) -> RpcFailure:
    call: Any = e
    try:
        trailers = call.trailing_metadata() or ()
    except Exception:  # noqa: BLE001 - not every RpcError is a call
        trailers = ()
    try:
        code, details = call.code(), call.details()
    except Exception:  # noqa: BLE001
        code, details = grpc.StatusCode.UNKNOWN, str(e)
    return RpcFailure(method, code, details or "", tuple(trailers))


def _request_type(method: str) -> str:
    return str(method_descriptor(method).input_type.full_name)


def _response_type(method: str) -> str:
    return str(method_descriptor(method).output_type.full_name)


class Client:
    """Calls of one service as one tenant.

    ``tenant`` is the caller's tenant, sent as ``memorywire-tenant`` on every
    call; a call may name another (``tenant=``), or none (``tenant=None``), or
    give the whole metadata (``metadata=``).
    """

    def __init__(self, channel: grpc.Channel, tenant: str | None, timeout: float) -> None:
        self.channel = channel
        self.tenant = tenant
        self.timeout = timeout
        #: The initial metadata of the last unary call that succeeded.
        self.last_headers: dict[str, str] = {}

    def as_tenant(self, tenant: str | None) -> Client:
        return Client(self.channel, tenant, self.timeout)

    def _metadata(self, tenant: Any, metadata: Sequence[tuple[str, str]] | None
                  ) -> tuple[tuple[str, str], ...]:
        if metadata is not None:
            return tuple(metadata)
        t = self.tenant if tenant is DEFAULT else tenant
        return ((TENANT_KEY, encode_tenant(t)),) if t is not None else ()

    @staticmethod
    def envelope(method: str, request: Mapping[str, Any] | Message) -> Message:
        """The request message, with ``specversion`` and a fresh ``operation_id``
        when the dict gives none."""
        if isinstance(request, Message):
            return request
        data = dict(request)
        data.setdefault("specversion", SPECVERSION)
        data.setdefault("operation_id", new_operation_id())
        return to_message(_request_type(method), data)

    def raw(self, method: str, request: Mapping[str, Any] | Message | bytes, *,
            tenant: Any = DEFAULT, metadata: Sequence[tuple[str, str]] | None = None,
            timeout: float | None = None) -> Message:
        """Call a unary method; the response message."""
        payload = request if isinstance(request, bytes) else \
            self.envelope(method, request).SerializeToString()
        stub = self.channel.unary_unary(
            method_path(method), request_serializer=None,
            response_deserializer=message_class(_response_type(method)).FromString)
        try:
            response, call = stub.with_call(payload, timeout=timeout or self.timeout,
                                            metadata=self._metadata(tenant, metadata))
        except grpc.RpcError as e:
            raise _failure(method, e) from None
        self.last_headers = {k: v for k, v in (call.initial_metadata() or ())
                             if isinstance(v, str)}
        return response  # type: ignore[no-any-return]

    def call(self, method: str, request: Mapping[str, Any] | Message | bytes, **kw: Any
             ) -> dict[str, Any]:
        """Call a unary method; the response as a dict."""
        return from_message(self.raw(method, request, **kw))

    def export(self, request: Mapping[str, Any] | Message, *, tenant: Any = DEFAULT,
               metadata: Sequence[tuple[str, str]] | None = None,
               timeout: float | None = None) -> list[dict[str, Any]]:
        """Call Export; every message of the stream, as dicts."""
        stub = self.channel.unary_stream(
            method_path("Export"), request_serializer=None,
            response_deserializer=message_class(_response_type("Export")).FromString)
        messages = []
        try:
            for msg in stub(self.envelope("Export", request).SerializeToString(),
                            timeout=timeout or self.timeout,
                            metadata=self._metadata(tenant, metadata)):
                messages.append(from_message(msg))
        except grpc.RpcError as e:
            raise _failure("Export", e) from None
        return messages

    def import_(self, requests: Iterable[Mapping[str, Any] | Message], *, tenant: Any = DEFAULT,
                metadata: Sequence[tuple[str, str]] | None = None,
                timeout: float | None = None) -> dict[str, Any]:
        """Call Import with a stream of messages; the response as a dict. Each
        dict without an ``operation_id`` gets the first message's."""
        messages: list[bytes] = []
        op_id = None
        for r in requests:
            if isinstance(r, Message):
                messages.append(r.SerializeToString())
                continue
            data = dict(r)
            if op_id is None:
                op_id = data.setdefault("operation_id", new_operation_id())
            data.setdefault("operation_id", op_id)
            messages.append(self.envelope("Import", data).SerializeToString())
        stub = self.channel.stream_unary(
            method_path("Import"), request_serializer=None,
            response_deserializer=message_class(_response_type("Import")).FromString)
        try:
            response = stub(iter(messages), timeout=timeout or self.timeout,
                            metadata=self._metadata(tenant, metadata))
        except grpc.RpcError as e:
            raise _failure("Import", e) from None
        return from_message(response)

    def import_future(self, requests: Iterable[Mapping[str, Any]], *, timeout: float | None = None
                      ) -> Any:
        """Start an Import whose messages are taken from ``requests`` as the
        gRPC library sends them (the stream half-closes when it ends); the
        call's future, whose ``cancel()`` cancels the stream."""
        stub = self.channel.stream_unary(
            method_path("Import"), request_serializer=None,
            response_deserializer=message_class(_response_type("Import")).FromString)
        messages = (self.envelope("Import", r).SerializeToString() for r in requests)
        return stub.future(messages, timeout=timeout or self.timeout,
                           metadata=self._metadata(DEFAULT, None))

    def watch(self, request: Mapping[str, Any] | Message, *, tenant: Any = DEFAULT,
              metadata: Sequence[tuple[str, str]] | None = None,
              timeout: float | None = None, paced: bool = False) -> WatchStream:
        """Open a Watch stream whose deadline is ``timeout`` seconds away;
        ``paced``: receive a message only when the caller asks for the next
        event (a client that reads slowly), not as soon as it arrives."""
        stub = self.channel.unary_stream(
            method_path("Watch"), request_serializer=None,
            response_deserializer=message_class(_response_type("Watch")).FromString)
        message = self.envelope("Watch", request)
        call = stub(message.SerializeToString(), timeout=timeout or self.timeout,
                    metadata=self._metadata(tenant, metadata))
        return WatchStream(call, str(getattr(message, "operation_id", "")), paced=paced)


class StreamTimeout(Exception):
    """No message arrived on a stream in the time given."""


class WatchStream:
    """A Watch call read by a thread of its own, so that every wait has a timeout.

    The thread takes every message as it arrives, or, ``paced``, one message
    each time the caller asks for the next event: the gRPC library receives a
    message only when it is asked to, so a paced stream is read as slowly as
    its caller reads it, and the service sees a slow client.
    """

    def __init__(self, call: Any, operation_id: str, paced: bool = False) -> None:
        self._call = call
        self.operation_id = operation_id
        self._queue: queue.Queue[tuple[str, Any]] = queue.Queue()
        #: The responses received so far, as dicts (``event`` and envelope).
        self.responses: list[dict[str, Any]] = []
        self.ended = False
        self.failure: RpcFailure | None = None
        self._cancelled = False
        self._paced = paced
        #: Paced: one release for each message the caller asked for.
        self._asks = threading.Semaphore(0)
        self._asked = False
        self._thread = threading.Thread(target=self._pump, name="memorywire-watch", daemon=True)
        self._thread.start()

    def _pump(self) -> None:
        try:
            messages = iter(self._call)
            while True:
                if self._paced:
                    self._asks.acquire()
                try:
                    msg = next(messages)
                except StopIteration:
                    break
                self._queue.put(("message", from_message(msg)))
            self._queue.put(("end", None))
        except RpcFailure as e:
            self._queue.put(("error", e))
        except grpc.RpcError as e:
            self._queue.put(("error", _failure("Watch", e)))
        except Exception as e:  # noqa: BLE001 - a response that does not parse
            self._queue.put(("error", RpcFailure("Watch", grpc.StatusCode.UNKNOWN,
                                                 f"unreadable response: {e}")))

    def next(self, timeout: float) -> dict[str, Any] | None:
        """The next event (the ``event`` of the next response), None when the
        stream ended with OK. Raises RpcFailure when it ended with another
        status, StreamTimeout when nothing came within ``timeout`` seconds."""
        if self.ended:
            return None
        if self.failure is not None:
            raise self.failure
        if self._paced and not self._asked:
            self._asked = True
            self._asks.release()
        try:
            kind, item = self._queue.get(timeout=max(timeout, 0.0))
        except queue.Empty:
            raise StreamTimeout(f"no event within {timeout:g} s") from None
        self._asked = False
        if kind == "end":
            self.ended = True
            return None
        if kind == "error":
            if item.code == grpc.StatusCode.CANCELLED and self._cancelled:
                self.ended = True
                return None
            self.failure = item
            raise item
        self.responses.append(item)
        return dict(item.get("event", {}))

    def take(self, count: int, timeout: float) -> list[dict[str, Any]]:
        """Up to ``count`` events, waiting at most ``timeout`` seconds in all;
        fewer when the stream ends or the time runs out."""
        events: list[dict[str, Any]] = []
        deadline = time.monotonic() + timeout
        while len(events) < count:
            try:
                event = self.next(deadline - time.monotonic())
            except StreamTimeout:
                break
            if event is None:
                break
            events.append(event)
        return events

    def until(self, predicate: Any, timeout: float, limit: int = 10000
              ) -> tuple[list[dict[str, Any]], bool]:
        """Events up to and including the first for which ``predicate`` holds;
        and whether one did within ``timeout`` seconds."""
        events: list[dict[str, Any]] = []
        deadline = time.monotonic() + timeout
        while len(events) < limit:
            try:
                event = self.next(deadline - time.monotonic())
            except StreamTimeout:
                return events, False
            if event is None:
                return events, False
            events.append(event)
            if predicate(event):
                return events, True
        return events, False

    def end(self, timeout: float) -> bool:
        """Wait for the stream to end with OK; False when it sends another
        event or does not end within ``timeout`` seconds."""
        try:
            return self.next(timeout) is None
        except StreamTimeout:
            return False

    def close(self) -> None:
        """Cancel the call (the client's way of ending a Watch)."""
        self._cancelled = True
        self._call.cancel()
        self._asks.release()
        self._thread.join(timeout=2.0)

    def __enter__(self) -> WatchStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
