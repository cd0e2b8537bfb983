"""The HTTP binding in front of a gRPC memorywire service, for the broken services.

``broken_service.py --http HOST:PORT`` serves its proxy, fault included,
through the HTTP binding as well: this module runs the reference service's
HTTP binding (``memorywire.service.http.HttpBinding``, which needs the
``service`` extra of memorywire) on a host whose operations are forwarded,
over gRPC, to the proxy. Every request of the binding thus reaches the
proxy as the gRPC call a gRPC client would make, and every answer of the
proxy, fault and all, goes back through the binding:

- the headers ``memorywire-*`` (but ``memorywire-operation-id``, which the
  binding checks itself) and ``authorization`` go as the metadata of the
  same names, unchecked here, so that the proxy and the service behind it
  judge them; a request whose ``memorywire-tenant`` is missing, repeated or
  malformed has its headers judged upstream first (by a Get that the
  gateway sends with them), since the gateway reads the body before it
  forwards it and the tenant is checked before the body
  (http-binding.md section 3.6);
- an answer's gRPC status becomes the code of the Error, its grpc-message
  the message, and the Error of its status details the rest, so that a
  fault of the status, the message or the details shows in the HTTP status
  or the problem+json body;
- the gateway reads documents up to 64 MiB, so that the limits met are
  those of the proxy and of the service behind it, and it reads a Watch
  or Export from the proxy only as fast as its own client takes it (one
  message ahead, on a channel whose HTTP/2 window stays small), so that
  the proxy sees a slow reader as one;
- the gateway enforces no fair share of its own, so that the bounds of the
  proxy are the ones the scenarios meet;
- records of a newer minor version with unknown content are refused with
  ``UNREPRESENTABLE``, as the reference service refuses them (the decoded
  body no longer holds that content to forward).
"""

from __future__ import annotations

import contextlib
import queue
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import grpc
import memorywire.protobuf
from memorywire.errors import MemorywireError
from memorywire.limits import Limits
from memorywire.service.errors import (
    ServiceError,
    decode_status,
    error,
    from_error_document,
)
from memorywire.service.fairness import FairShare
from memorywire.service.http import HttpBinding
from memorywire.service.registry import OPERATIONS, Operation, Streaming, operation
from memorywire.service.server import parse_tenant

__all__ = ["serve_http"]

ERROR_TYPE_URL = "type.googleapis.com/memorywire.v1.Error"
#: The records of each request whose unknown content the gateway refuses.
RECORD_POINTERS: Mapping[str, Callable[[Mapping[str, Any]], list[str]]] = {
    "Put": lambda req: [f"/items/{i}/record" for i in range(len(req.get("items", ())))],
    "Compact": lambda req: ["/summary"],
    "Import": lambda req: [f"/records/{i}" for i in range(len(req.get("records", ())))],
}
#: How long a Watch or Export waits for the proxy's first answer before the
#: gateway sends its response headers: an error found at the start of a
#: stream (a bad cursor) is then an HTTP error, as http-binding.md 7.1 wants.
FIRST_ANSWER_SECONDS = 0.5
#: The timeout of a forwarded call without connect-timeout-ms.
DEFAULT_TIMEOUT = 60.0
#: The timeout of a forwarded Watch or Export without connect-timeout-ms: an
#: event stream has no timeout unless its client sends one (http-binding.md
#: 3.5), and the proxy takes a long one as none.
STREAM_TIMEOUT = 24 * 3600.0
MAX_MESSAGE_BYTES = 64 * 1024 * 1024
PROBE_PATH = operation("Get").path


def _failure(e: grpc.RpcError) -> ServiceError:
    """The ServiceError of a failed call: the code of its gRPC status, the
    rest from the Error of its status details."""
    call: Any = e
    code = call.code().name if call.code() is not None else "UNKNOWN"
    raw = [v for k, v in (call.trailing_metadata() or ()) if k == "grpc-status-details-bin"]
    failure = None
    if raw:
        try:
            _, _, details = decode_status(raw[0])
            errors = [v for t, v in details if t == ERROR_TYPE_URL]
            if errors:
                doc = memorywire.protobuf.decode(errors[0], type="memorywire.v1.Error")
                failure = from_error_document(doc)
        except MemorywireError:
            failure = None
    if failure is None and code == "RESOURCE_EXHAUSTED":
        # The gRPC library refused a message above its limit, as the binding
        # lets it (grpc-binding.md 2.3): over HTTP, a body above the limit.
        failure = error("DOCUMENT_TOO_LARGE", call.details() or "a message above the limit")
    if failure is None:
        failure = error("INTERNAL_ERROR", call.details() or "the call failed without an Error")
    failure.code = code
    # grpc-message is the Error's message (grpc-binding.md section 5): what a
    # gRPC client reads, and so what an HTTP client reads of this service.
    if call.details():
        failure.message = call.details()
    return failure


class _Headers(threading.local):
    md: tuple[tuple[str, str], ...] = ()
    timeout: float = DEFAULT_TIMEOUT


class _Admit:
    """Admission that admits every call: the proxy's bounds are the ones met."""

    @contextlib.contextmanager
    def admit(self, tenant: str | None, method: str) -> Iterator[Callable[[], None]]:
        yield lambda: None


class _Import:
    """An Import forwarded as a gRPC stream as its documents arrive."""

    def __init__(self, gateway: Gateway, op: Operation, max_bytes: int) -> None:
        self.gateway = gateway
        self.op = op
        self.max_bytes = max_bytes
        self.bytes = 0
        self._queue: queue.Queue[bytes | None] = queue.Queue()
        self._future: Any = None

    def __enter__(self) -> _Import:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._future is not None and not self._future.done():
            self._future.cancel()  # ended before its commit: cancelled upstream

    def count_bytes(self, index: int, size: int) -> None:
        self.bytes += size
        if self.bytes > self.max_bytes:
            raise error("DOCUMENT_TOO_LARGE", f"message {index} of the stream: an Import carries "
                        f"at most {self.max_bytes} bytes in all its messages")

    def _messages(self) -> Iterator[bytes]:
        while True:
            item = self._queue.get()
            if item is None:
                return
            yield item

    def add(self, msg: Mapping[str, Any], unknown: Sequence[str]) -> None:
        _representable(self.op.name, msg, unknown)
        if self._future is None:
            stub = self.gateway.channel.stream_unary(self.op.path)
            self._future = stub.future(self._messages(), timeout=self.gateway.headers.timeout,
                                       metadata=self.gateway.headers.md)
        self._queue.put(memorywire.protobuf.encode(msg, type=self.op.request_type))

    def commit(self) -> bytes:
        if self._future is None:
            raise error("REQUIRED_FIELD_MISSING", "an Import carries at least one message")
        self._queue.put(None)
        try:
            return bytes(self._future.result())
        except grpc.RpcError as e:
            raise _failure(e) from None


def _representable(method: str, req: Mapping[str, Any], unknown: Sequence[str]) -> None:
    prefixes = tuple(RECORD_POINTERS[method](req)) if method in RECORD_POINTERS else ()
    for pointer in unknown:
        if prefixes and pointer.startswith(prefixes):
            raise error("UNREPRESENTABLE", "the record holds content of a newer minor version "
                        "that this service cannot keep", pointer)


class _Forward:
    """The service of the gateway: one method per handler of the registry,
    each forwarding its operation over gRPC."""

    def __init__(self, gateway: Gateway) -> None:
        self.gateway = gateway
        for op in OPERATIONS:
            setattr(self, op.handler, self._handler(op))

    def _handler(self, op: Operation) -> Callable[..., Any]:
        gateway = self.gateway
        if op.streaming is Streaming.UNARY:
            stub = gateway.channel.unary_unary(op.path)

            def unary(call: Any, req: Mapping[str, Any], unknown: Sequence[str] = ()) -> bytes:
                _representable(op.name, req, unknown)
                data = memorywire.protobuf.encode(req, type=op.request_type)
                try:
                    return bytes(stub(data, timeout=gateway.headers.timeout,
                                      metadata=gateway.headers.md))
                except grpc.RpcError as e:
                    raise _failure(e) from None

            return unary
        if op.streaming is Streaming.SERVER:
            return lambda call, req: self._stream(op, call, req)

        def begin(call: Any, max_bytes: int) -> _Import:
            return _Import(gateway, op, max_bytes)

        return begin

    def _stream(self, op: Operation, call: Any, req: Mapping[str, Any]) -> Iterator[bytes]:
        gateway = self.gateway
        stub = gateway.channel.unary_stream(op.path)
        timeout = gateway.headers.timeout
        rpc = stub(memorywire.protobuf.encode(req, type=op.request_type),
                   timeout=STREAM_TIMEOUT if timeout == DEFAULT_TIMEOUT else timeout,
                   metadata=gateway.headers.md)
        # One message ahead: the proxy sees a client as slow as the gateway's own.
        answers: queue.Queue[tuple[str, Any]] = queue.Queue(maxsize=1)

        def pump() -> None:
            try:
                for message in rpc:
                    answers.put(("message", bytes(message)))
                answers.put(("end", None))
            except grpc.RpcError as e:
                answers.put(("error", e))

        threading.Thread(target=pump, name="gateway-stream", daemon=True).start()
        try:
            first = answers.get(timeout=FIRST_ANSWER_SECONDS)
        except queue.Empty:
            first = None
        if first is not None and first[0] == "error":
            raise _failure(first[1])
        return self._relay(rpc, call, answers, first)

    @staticmethod
    def _relay(rpc: Any, call: Any, answers: queue.Queue[tuple[str, Any]],
               first: tuple[str, Any] | None) -> Iterator[bytes]:
        try:
            item = first
            while True:
                if item is None:
                    if not call.is_active():
                        return
                    try:
                        item = answers.get(timeout=0.5)
                    except queue.Empty:
                        continue
                kind, value = item
                item = None
                if kind == "end":
                    return
                if kind == "error":
                    if value.code() == grpc.StatusCode.CANCELLED:
                        return
                    raise _failure(value)
                yield value
        finally:
            rpc.cancel()


class Gateway:
    """What ``HttpBinding`` needs of its server, with the operations forwarded."""

    def __init__(self, upstream: str) -> None:
        self.channel = grpc.insecure_channel(upstream, options=[
            ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
            ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
            ("grpc.enable_retries", 0),
            # The receive window stays at 64 KiB: a stream the gateway's client
            # reads slowly fills it, and the proxy sees a slow reader.
            ("grpc.http2.bdp_probe", 0)])
        self.share = FairShare(max_workers=256, max_import_bytes=4 * MAX_MESSAGE_BYTES)
        self.limits = Limits(max_document_bytes=MAX_MESSAGE_BYTES)
        self.admission: Any = _Admit()
        self.stopping = threading.Event()
        self.log_calls = False
        self.tls = None
        self.headers = _Headers()
        self.service: Any = _Forward(self)

    def log(self, level: str, event: str, **fields: Any) -> None:
        pass

    def check_metadata(self, method: str, md: Sequence[tuple[str, str | bytes]]) -> str | None:
        """Keep the headers to forward; the proxy and its service check them."""
        kept = tuple((k, str(v)) for k, v in md
                     if (k.startswith("memorywire-") and k != "memorywire-operation-id")
                     or k == "authorization")
        self.headers.md = kept
        timeout = {k: str(v) for k, v in md}.get("connect-timeout-ms", "")
        self.headers.timeout = (int(timeout) / 1000 if timeout.isascii() and timeout.isdigit() and len(timeout) <= 10
                                and int(timeout) > 0 else DEFAULT_TIMEOUT)
        if method == "GetCapabilities":
            return None
        try:
            parse_tenant([str(v) for k, v in md if k == "memorywire-tenant"])
        except MemorywireError:
            self._judge_headers()
        return ""

    def _judge_headers(self) -> None:
        """The verdict of the upstream service on the headers alone: a Get of
        nothing with them, whose failure is the request's."""
        probe = memorywire.protobuf.encode(
            {"specversion": "1.0", "operation_id": "gateway-probe", "ids": ["gateway-probe"]},
            type="memorywire.v1.GetRequest")
        stub = self.channel.unary_unary(PROBE_PATH)
        try:
            stub(probe, timeout=self.headers.timeout, metadata=self.headers.md)
        except grpc.RpcError as e:
            raise _failure(e) from None

    def internal_error(self, e: BaseException) -> ServiceError:
        return error("INTERNAL_ERROR", f"the gateway failed: {type(e).__name__}: {e}")


def serve_http(upstream: str, listen: str) -> tuple[HttpBinding, int]:
    """Serve the HTTP binding on ``listen``, forwarding to the gRPC service
    at ``upstream``; the binding and its port."""
    gateway = Gateway(upstream)
    binding = HttpBinding(gateway, listen)
    return binding, binding.start()
