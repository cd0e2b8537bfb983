"""The HTTP binding of the reference service (spec/v1/http-binding.md): one
``POST /memorywire.v1.MemoryService/<Method>`` per operation of the registry,
with bodies in JSON, MessagePack or Protobuf, errors as ``Error`` documents
served as ``application/problem+json``, Watch and Export as Server-Sent
Events, and Import as a stream of documents in one request body.

It is a second door to the ``MemoryServer`` it belongs to: the same
``Service`` and store, the same checks of tenants and tokens
(``MemoryServer.check_metadata``), the same TLS, the same fair share
(``Admission``, counted across both bindings) and the same logs. Its paths
and the kind of each are read from :data:`registry.OPERATIONS`; nothing here
names an operation but GetCapabilities, which acts for no tenant.

It runs on the standard library's ``ThreadingHTTPServer``, with a bound on
the requests in progress at once and on the connections held open: the
binding needs no HTTP library beyond Python's own, and one thread per
connection suits the blocking ``Service`` that the gRPC worker threads call
as well.
"""

from __future__ import annotations

import contextlib
import http.server
import inspect
import math
import os
import select
import socket
import ssl
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Protocol

import memorywire
import memorywire.json
import memorywire.msgpack
import memorywire.protobuf
import memorywire.stream
from memorywire.errors import MemorywireError
from memorywire.limits import Limits
from memorywire.service import operations, registry
from memorywire.service.errors import ServiceError, error
from memorywire.service.fairness import Admission, FairShare
from memorywire.service.operations import Call, ImportStream, Service
from memorywire.service.registry import Operation, Streaming

__all__ = ["DEFAULT_HEARTBEAT_SECONDS", "HTTP_STATUS", "MEDIA_TYPES", "Host", "HttpBinding"]


class Host(Protocol):
    """What the binding uses of the server it belongs to (a ``MemoryServer``,
    which it does not import, so that the server may import it)."""

    share: FairShare
    limits: Limits
    service: Service
    admission: Admission
    stopping: threading.Event
    log_calls: bool

    @property
    def tls(self) -> Any:
        """The server's ``Tls`` (PEM ``cert_chain``, ``private_key``, ``client_ca``), or None."""

    def log(self, level: str, event: str, **fields: Any) -> None: ...

    def check_metadata(self, method: str, md: Sequence[tuple[str, str | bytes]]) -> str | None: ...

    def internal_error(self, e: BaseException) -> ServiceError: ...

#: The HTTP status of each code (http-binding.md section 4, the Connect mapping).
HTTP_STATUS: Mapping[str, int] = {
    "CANCELLED": 499, "UNKNOWN": 500, "INVALID_ARGUMENT": 400, "DEADLINE_EXCEEDED": 504,
    "NOT_FOUND": 404, "ALREADY_EXISTS": 409, "PERMISSION_DENIED": 403, "RESOURCE_EXHAUSTED": 429,
    "FAILED_PRECONDITION": 400, "ABORTED": 409, "OUT_OF_RANGE": 400, "UNIMPLEMENTED": 501,
    "INTERNAL": 500, "UNAVAILABLE": 503, "DATA_LOSS": 500, "UNAUTHENTICATED": 401,
}

#: The media types of bodies (http-binding.md section 2.2), aliases
#: included, each with its encoding; ``jsonl`` is JSON Lines, for Import.
MEDIA_TYPES: Mapping[str, str] = {
    "application/json": "json",
    "application/jsonl": "jsonl", "application/x-ndjson": "jsonl",
    "application/msgpack": "msgpack", "application/vnd.msgpack": "msgpack",
    "application/x-msgpack": "msgpack",
    "application/proto": "protobuf", "application/protobuf": "protobuf",
    "application/x-protobuf": "protobuf",
}
#: The media type the server writes for each encoding.
_WRITTEN = {"json": "application/json", "jsonl": "application/json",
            "msgpack": "application/msgpack", "protobuf": "application/proto"}
_CODECS: Mapping[str, Any] = {"json": memorywire.json, "jsonl": memorywire.json,
                              "msgpack": memorywire.msgpack, "protobuf": memorywire.protobuf}
PROBLEM_JSON = "application/problem+json"
EVENT_STREAM = "text/event-stream"

TENANT_HEADER = "memorywire-tenant"
SPECVERSION_HEADER = "memorywire-specversion"
OPERATION_ID_HEADER = "memorywire-operation-id"
TIMEOUT_HEADER = "connect-timeout-ms"
CONNECT_HEADER = "connect-protocol-version"
#: The request headers a browser may send, and the response headers it may read (section 8).
CORS_REQUEST_HEADERS = ("authorization", "content-type", "accept", "last-event-id", TENANT_HEADER,
                        OPERATION_ID_HEADER, SPECVERSION_HEADER, CONNECT_HEADER, TIMEOUT_HEADER)
CORS_EXPOSED_HEADERS = (SPECVERSION_HEADER, OPERATION_ID_HEADER, "retry-after")
CORS_MAX_AGE_SECONDS = 600

#: How long a stream that has nothing to send waits before it sends a
#: comment line (at most 30 seconds, section 7.1).
DEFAULT_HEARTBEAT_SECONDS = 15.0
#: How long a connection may stay idle between requests, or stall while
#: sending one, before the server closes it.
DEFAULT_IDLE_SECONDS = 60.0
#: The reconnection delay a stream advises its client (the SSE ``retry`` field).
RETRY_MILLIS = 1000


class _Refused(Exception):
    """A fault of the HTTP layer (section 2), answered before any operation."""

    def __init__(self, status: int, error: ServiceError, headers: Sequence[tuple[str, str]] = ()) -> None:
        super().__init__(error.message)
        self.status = status
        self.error = error
        self.headers = tuple(headers)


class _Gone(Exception):
    """The client closed the connection, or stopped taking what is sent."""


def _media_type(value: str | None) -> str:
    return (value or "").split(";", 1)[0].strip().lower()


def _accepted(accept: str | None) -> list[str]:
    """The media types of an Accept header, most preferred first, without
    those of quality 0 (RFC 9110 section 12.5.1)."""
    if not accept:
        return []
    ranked: list[tuple[float, int, str]] = []
    for index, part in enumerate(accept.split(",")):
        fields = [f.strip() for f in part.split(";")]
        quality = 1.0
        for f in fields[1:]:
            if f[:2].lower() == "q=":
                try:
                    quality = float(f[2:])
                except ValueError:
                    quality = 0.0
        if fields[0] and quality > 0:
            ranked.append((-quality, index, fields[0].lower()))
    return [name for _, _, name in sorted(ranked)]


def _response_encoding(accept: str | None, request: str) -> str | None:
    """The encoding of the response of a unary call or an Import; None when
    the client accepts none the server writes."""
    kinds = _accepted(accept)
    if not kinds:
        return request
    for kind in kinds:
        if kind in ("*/*", "application/*"):
            return request
        if kind in MEDIA_TYPES:
            return MEDIA_TYPES[kind]
        if kind == PROBLEM_JSON:
            continue
    return None


def _accepts_events(accept: str | None) -> bool:
    kinds = _accepted(accept)
    return not kinds or any(k in (EVENT_STREAM, "text/*", "*/*") for k in kinds)


def _lenient_operation_id(body: bytes, encoding: str, type: str) -> str:
    """The operation identifier of a body that may not be valid, for errors."""
    try:
        if encoding == "protobuf":
            from memorywire import _model as m

            value: Any = getattr(m.message(type).cls.FromString(body), "operation_id", "")
        elif encoding == "msgpack":
            import msgpack

            value = msgpack.unpackb(body, raw=False).get("operation_id", "")
        else:
            import json

            value = json.loads(body.split(b"\n", 1)[0] if encoding == "jsonl" else body).get("operation_id", "")
    except Exception:  # noqa: BLE001 - an unreadable body has no identifier to echo
        return ""
    return value if isinstance(value, str) and len(value) <= 256 else ""


def _without(doc: dict[str, Any], pointers: Sequence[str]) -> dict[str, Any]:
    """The document without the members and enum values of a newer minor
    version that the reader found (``walk.unknown``): the Service sees what
    a Protobuf request gives it, whose unknown fields stay out of the
    document, and is told their pointers all the same."""
    if not pointers:
        return doc

    def tokens(pointer: str) -> list[str]:
        return [t.replace("~1", "/").replace("~0", "~") for t in pointer.split("/")[1:]]

    def order(pointer: str) -> list[tuple[int, int | str]]:
        # Later list elements first, so that removing one does not move the next.
        return [(0, int(t)) if _decimal(t) else (1, t) for t in tokens(pointer)]

    for pointer in sorted(pointers, key=order, reverse=True):
        path = tokens(pointer)
        if not path:
            continue
        node: Any = doc
        for token in path[:-1]:
            node = node[int(token)] if isinstance(node, list) else node.get(token)
            if node is None:
                break
        last = path[-1]
        if isinstance(node, dict):
            node.pop(last, None)
        elif isinstance(node, list) and _decimal(last) and int(last) < len(node):
            del node[int(last)]
    return doc


def _header_text(value: str) -> str | None:
    """The text of a header written as ``_header_value`` writes it; None
    when it is malformed."""
    out = bytearray()
    raw = value.encode("latin-1", "replace")
    i = 0
    while i < len(raw):
        if raw[i] == 0x25:
            digits = raw[i + 1:i + 3]
            if len(digits) != 2 or not all(c in b"0123456789abcdefABCDEF" for c in digits):
                return None
            out.append(int(digits, 16))
            i += 3
        else:
            out.append(raw[i])
            i += 1
    try:
        return out.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _decimal(text: str) -> bool:
    """Whether the text is ASCII digits: ``str.isdigit`` alone holds for
    "²", which ``int`` refuses, and an HTTP number is ASCII."""
    return text.isascii() and text.isdigit()


def _header_value(text: str) -> str:
    """A value for a response header: the encoding of memorywire-tenant."""
    return "".join(chr(b) if 0x21 <= b <= 0x7E and b != 0x25 else f"%{b:02X}" for b in text.encode("utf-8"))


class _Body:
    """The body of a request, read no further than it goes: by its
    Content-Length, or by its chunks; ``complete`` once its end was read."""

    def __init__(self, rfile: Any, length: int | None) -> None:
        self._rfile = rfile
        self._left = length  # None: chunked
        self._chunk = 0
        self._done = length == 0
        self.read_bytes = 0
        self.complete = length == 0

    def _next_chunk(self) -> bool:
        line = self._rfile.readline(1026)
        if not line.endswith(b"\n"):
            raise _Gone
        try:
            size = int(line.split(b";", 1)[0].strip(), 16)
        except ValueError:
            raise _Gone from None
        if size == 0:
            while self._rfile.readline(1026) not in (b"\r\n", b"\n", b""):
                pass  # trailers
            self._done = self.complete = True
            return False
        self._chunk = size
        return True

    def _take(self, data: bytes) -> bytes:
        self.read_bytes += len(data)
        return data

    def read(self, size: int = -1, /) -> bytes:
        if self._done:
            return b""
        if self._left is not None:
            n = self._left if size < 0 else min(size, self._left)
            data = self._rfile.read(n)
            if len(data) < n:
                raise _Gone
            self._left -= len(data)
            if self._left == 0:
                self._done = self.complete = True
            return self._take(data)
        out = bytearray()
        while size < 0 or len(out) < size:
            # As a buffered file does, a read returns the bytes asked for
            # unless the body ends first, across chunks.
            if self._chunk == 0 and not self._next_chunk():
                break
            n = self._chunk if size < 0 else min(self._chunk, size - len(out))
            data = self._rfile.read(n)
            if len(data) < n:
                raise _Gone
            out += data
            self._chunk -= n
            if self._chunk == 0 and self._rfile.readline(3) not in (b"\r\n", b"\n"):
                raise _Gone
        return self._take(bytes(out))

    def readline(self, size: int = -1, /) -> bytes:
        out = bytearray()
        while not self._done and (size < 0 or len(out) < size):
            if self._left is None and self._chunk == 0 and not self._next_chunk():
                break
            room = self._left if self._left is not None else self._chunk
            if size >= 0:
                room = min(room, size - len(out))
            piece = self._rfile.readline(room)
            if not piece:
                raise _Gone
            out += piece
            if self._left is not None:
                self._left -= len(piece)
                if self._left == 0:
                    self._done = self.complete = True
            else:
                self._chunk -= len(piece)
                if self._chunk == 0 and self._rfile.readline(3) not in (b"\r\n", b"\n"):
                    raise _Gone
            if piece.endswith(b"\n"):
                break
        return self._take(bytes(out))

    def read_all(self, limit: int) -> bytes:
        """The whole body; DOCUMENT_TOO_LARGE past ``limit`` bytes."""
        if self._left is not None and self._left > limit:
            raise _too_large(limit)
        data = self.read(limit + 1) if self._left is None else self.read()
        if len(data) > limit:
            raise _too_large(limit)
        if self._left is None:
            # The terminating chunk, so that the connection can serve another request.
            rest = self.read(1)
            if rest:
                raise _too_large(limit)
        return data


def _too_large(limit: int) -> ServiceError:
    return error("DOCUMENT_TOO_LARGE", f"the request body is larger than max_document_bytes ({limit})")


class HttpBinding:
    """The HTTP binding of a ``MemoryServer``, listening on ``listen``
    (``HOST:PORT``; port 0 picks a free one).

    ``cors_origins``: the origins whose browsers may call it (``"*"`` for
    any); none by default. ``heartbeat_seconds``: how long a stream that
    has nothing to send waits before it sends a comment line.
    """

    def __init__(self, server: Host, listen: str, *, cors_origins: Sequence[str] = (),
                 heartbeat_seconds: float = DEFAULT_HEARTBEAT_SECONDS,
                 idle_seconds: float = DEFAULT_IDLE_SECONDS) -> None:
        if not 0 < heartbeat_seconds <= 30:
            raise ValueError(f"the heartbeat interval is {heartbeat_seconds:g} seconds; give more than "
                             "0 and at most 30")
        self.server = server
        self.listen = listen
        self.cors_origins = frozenset(cors_origins)
        self.heartbeat_seconds = heartbeat_seconds
        self.idle_seconds = idle_seconds
        self.port = 0
        #: The paths of the operations, read from the registry.
        self.paths: dict[str, Operation] = {op.path: op for op in registry.OPERATIONS}
        #: The requests served at once: the server's workers, as in gRPC.
        self.workers = threading.BoundedSemaphore(server.share.max_workers)
        #: The connections held open at once.
        self.max_connections = 4 * server.share.max_workers
        self._connections = 0
        self._lock = threading.Lock()
        self._httpd: _Server | None = None
        self._thread: threading.Thread | None = None
        self._context = _tls_context(server.tls) if server.tls is not None else None

    # -- life cycle ---------------------------------------------------------------------

    def start(self) -> int:
        host, _, port = self.listen.rpartition(":")
        host = host.strip("[]") or "0.0.0.0"
        try:
            httpd = _Server((host, int(port)), _Handler, self)
        except (OSError, ValueError) as e:
            raise RuntimeError(f"cannot listen for HTTP on {self.listen}: {e}") from None
        self._httpd = httpd
        self.port = httpd.server_address[1]
        self._thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.2},
                                        name="memorywire-http", daemon=True)
        self._thread.start()
        self.server.log("info", "listening_http", address=f"{host}:{self.port}",
                        tls=self._context is not None, cors_origins=sorted(self.cors_origins) or None,
                        heartbeat_s=self.heartbeat_seconds)
        return self.port

    def stop(self) -> None:
        """Stop accepting; the streams end at their next look at the server."""
        if self._httpd is None:
            return
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(5)
        self._httpd = None

    def connection_opened(self) -> bool:
        with self._lock:
            if self._connections >= self.max_connections:
                return False
            self._connections += 1
            return True

    def connection_closed(self) -> None:
        with self._lock:
            self._connections -= 1


def _tls_context(tls: Any) -> ssl.SSLContext:
    """A server context of the PEM bytes of ``tls`` (the ssl module reads
    certificates from files: they are written to a private temporary
    folder, read, and removed)."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    with tempfile.TemporaryDirectory(prefix="memorywire-tls-") as folder:
        cert, key = os.path.join(folder, "cert.pem"), os.path.join(folder, "key.pem")
        for path, data in ((cert, tls.cert_chain), (key, tls.private_key)):
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "wb") as f:
                f.write(data)
        context.load_cert_chain(cert, key)
    if tls.client_ca is not None:
        context.load_verify_locations(cadata=tls.client_ca.decode("ascii", "replace"))
        context.verify_mode = ssl.CERT_REQUIRED
    return context


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 64

    def __init__(self, address: tuple[str, int], handler: type[_Handler], binding: HttpBinding) -> None:
        self.binding = binding
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        super().__init__(address, handler)

    def get_request(self) -> tuple[socket.socket, Any]:
        sock, addr = super().get_request()
        context = self.binding._context
        if context is not None:
            # The handshake happens in the connection's own thread, on its first read.
            sock = context.wrap_socket(sock, server_side=True, do_handshake_on_connect=False)
        return sock, addr

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self.binding.connection_opened():
            # Beyond the bound of open connections: closed at once.
            self.shutdown_request(request)
            return
        super().process_request(request, client_address)

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.binding.connection_closed()

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a broken connection is the client's business; faults of calls are logged


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # A response is written as headers, then body: without TCP_NODELAY the
    # body of a response on a kept-alive connection waits for the client's
    # delayed acknowledgement of the headers (some 40 ms).
    disable_nagle_algorithm = True
    server: _Server

    def version_string(self) -> str:
        return f"memorywire/{memorywire.__version__}"

    def setup(self) -> None:
        super().setup()
        # Idle between requests, or stalled in one: the connection is closed.
        self.connection.settimeout(self.server.binding.idle_seconds)

    def log_message(self, format: str, *args: Any) -> None:
        pass  # the service logs each call as JSON

    # -- HTTP methods -------------------------------------------------------------------------

    def do_POST(self) -> None:  # noqa: N802 - the name http.server calls
        binding = self.server.binding
        op = binding.paths.get(self.path.split("?", 1)[0])
        if op is None:
            self._refuse(404, error("UNSUPPORTED_FEATURE", f"{self.path} names no method of "
                                    f"{registry.SERVICE}"))
            return
        with binding.workers:
            _Call(self, op).run()

    def do_OPTIONS(self) -> None:  # noqa: N802
        binding = self.server.binding
        self._discard_body()
        self.send_response(204)
        origin = self.headers.get("origin")
        if origin is not None and self.headers.get("access-control-request-method") is not None \
                and self._cors(origin):
            self.send_header("Access-Control-Allow-Methods", "POST")
            self.send_header("Access-Control-Allow-Headers", ", ".join(CORS_REQUEST_HEADERS))
            self.send_header("Access-Control-Max-Age", str(CORS_MAX_AGE_SECONDS))
        elif self.path.split("?", 1)[0] in binding.paths:
            self.send_header("Allow", "POST, OPTIONS")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _not_allowed(self) -> None:
        binding = self.server.binding
        if self.path.split("?", 1)[0] in binding.paths:
            self._refuse(405, error("UNSUPPORTED_FEATURE", f"{self.command} is not a method of this "
                                    "binding; send POST"), [("Allow", "POST, OPTIONS")])
        else:
            self._refuse(404, error("UNSUPPORTED_FEATURE", f"{self.path} names no method of "
                                    f"{registry.SERVICE}"))

    do_GET = do_PUT = do_DELETE = do_PATCH = do_HEAD = _not_allowed  # noqa: N815

    # -- helpers ------------------------------------------------------------------------------

    def _cors(self, origin: str | None) -> bool:
        """Send the CORS headers of an allowed origin; whether it is allowed."""
        allowed = self.server.binding.cors_origins
        if origin is None or not allowed:
            return False
        if "*" in allowed:
            self.send_header("Access-Control-Allow-Origin", "*")
        elif origin in allowed:
            self.send_header("Access-Control-Allow-Origin", origin)
            self.send_header("Vary", "Origin")
        else:
            return False
        self.send_header("Access-Control-Expose-Headers", ", ".join(CORS_EXPOSED_HEADERS))
        return True

    def _discard_body(self) -> None:
        length = self.headers.get("content-length")
        if length is not None and _decimal(length) and int(length) <= 1 << 16:
            self.rfile.read(int(length))
        elif length is not None or self.headers.get("transfer-encoding"):
            self.close_connection = True

    def _refuse(self, status: int, e: ServiceError, headers: Sequence[tuple[str, str]] = ()) -> None:
        self._discard_body()
        self.send_error_document(status, operations.error_document(e), headers)

    def send_error_document(self, status: int, doc: Mapping[str, Any],
                            headers: Sequence[tuple[str, str]] = (), op_id: str = "") -> None:
        body = memorywire.json.encode(doc, type="memorywire.v1.Error")
        self.send_response(status)
        connect = self.headers.get(CONNECT_HEADER) is not None
        self.send_header("Content-Type", "application/json" if connect else PROBLEM_JSON)
        self.send_header("Content-Length", str(len(body)))
        self.send_header(SPECVERSION_HEADER, operations.SPECVERSION)
        if op_id:
            self.send_header(OPERATION_ID_HEADER, _header_value(op_id))
        retry = doc.get("retry_after_millis")
        if isinstance(retry, int):
            self.send_header("Retry-After", str(max(0, math.ceil(retry / 1000))))
        if status == 401:
            self.send_header("WWW-Authenticate", "Bearer")
        for name, value in headers:
            self.send_header(name, value)
        self._cors(self.headers.get("origin"))
        self.end_headers()
        self.wfile.write(body)


class _Call:
    """One request of an operation."""

    def __init__(self, handler: _Handler, op: Operation) -> None:
        self.h = handler
        self.op = op
        self.binding = handler.server.binding
        self.server = self.binding.server
        self.started = time.perf_counter()
        self.op_id = ""
        self.tenant: str | None = None
        self.headers_sent = False
        self.gone = False
        deadline = handler.headers.get(TIMEOUT_HEADER, "")
        # A positive integer of at most 10 digits (Connect); any other value is ignored.
        self.deadline = (time.monotonic() + int(deadline) / 1000
                         if _decimal(deadline) and len(deadline) <= 10 and int(deadline) > 0 else None)

    # -- the request ------------------------------------------------------------------------

    def run(self) -> None:
        h, op = self.h, self.op
        messages: int | None = None
        try:
            encoding = self._negotiate()
            self.tenant = self.server.check_metadata(
                op.name, [(k.lower(), v) for k, v in h.headers.items()])
            length = h.headers.get("content-length")
            if h.headers.get("transfer-encoding", "").lower() == "chunked":
                body = _Body(h.rfile, None)
            elif length is not None and _decimal(length.strip()):
                body = _Body(h.rfile, int(length))
            else:
                body = _Body(h.rfile, 0)
            if op.streaming is Streaming.CLIENT:
                messages = self._upload(body, encoding)
            else:
                data = body.read_all(self.server.limits.max_document_bytes)
                self.op_id = _lenient_operation_id(data, encoding[0], op.request_type)
                if op.streaming is Streaming.UNARY:
                    self._unary(data, encoding)
                else:
                    messages = self._stream(data, encoding[0])
                    if messages is None:
                        return
        except _Refused as e:
            h.close_connection = True
            self._log(e.error.code, e.error)
            h.send_error_document(e.status, operations.error_document(e.error), e.headers)
            return
        except _Gone:
            h.close_connection = True
            self._log("CANCELLED")
            return
        except MemorywireError as e:
            self._fail(e, messages)
            return
        except Exception as e:  # noqa: BLE001 - every fault becomes INTERNAL_ERROR
            self._fail(self.server.internal_error(e), messages)
            return
        self._log("OK", messages=messages)

    def _negotiate(self) -> tuple[str, str]:
        """The encodings of the request body and of the response (section 2.2)."""
        h = self.h
        supported = ", ".join(t for t in MEDIA_TYPES if "x-" not in t and "vnd." not in t)
        content_type = _media_type(h.headers.get("content-type"))
        request = MEDIA_TYPES.get(content_type)
        if request is None:
            raise _Refused(415, error("UNSUPPORTED_FEATURE", (
                f"the Content-Type {content_type!r} is not one this service reads; send one of "
                f"{supported}") if content_type else f"the request has no Content-Type; send one of {supported}"),
                [("Accept-Post", supported)])
        if self.op.streaming is not Streaming.CLIENT and request == "jsonl":
            request = "json"
        accept = h.headers.get("accept")
        if self.op.streaming is Streaming.SERVER:
            if not _accepts_events(accept):
                raise _Refused(406, error("UNSUPPORTED_FEATURE", f"{self.op.name} answers with "
                                          f"{EVENT_STREAM}, which the request's Accept excludes"))
            return request, "json"
        response = _response_encoding(accept, request)
        if response is None:
            raise _Refused(406, error("UNSUPPORTED_FEATURE", "the request's Accept names no media type "
                                      f"this service writes; accept one of {supported}"))
        return request, response

    def _decode(self, data: bytes, encoding: str) -> tuple[dict[str, Any], list[str]]:
        codec = _CODECS[encoding]
        vectors = "bytes" if self.op.name in operations.BINARY_VECTORS else "floats"
        doc, walk = codec.Decoder(self.op.request_type, limits=self.server.limits,
                                  vectors=vectors).decode_walk(data)
        Service.check_enum_values(self.op.request_type, walk.unknown)
        return _without(doc, walk.unknown), list(walk.unknown)

    def _check_operation_id(self, doc: Mapping[str, Any]) -> None:
        self.op_id = str(doc.get("operation_id", "")) or self.op_id
        given = self.h.headers.get(OPERATION_ID_HEADER)
        if given is not None:
            if _header_text(given) != doc.get("operation_id"):
                raise error("IMMUTABLE_FIELD", f"the header {OPERATION_ID_HEADER} differs from the "
                            "operation_id of the body", "/operation_id")

    def _is_active(self) -> bool:
        return not self.gone and not self.server.stopping.is_set() and (
            self.deadline is None or time.monotonic() < self.deadline)

    def _call(self) -> Call:
        return Call(self.tenant, self._is_active)

    def _unary(self, data: bytes, encoding: tuple[str, str]) -> None:
        op = self.op
        perform: Callable[..., bytes] = getattr(self.server.service, op.handler)
        with_unknown = "unknown" in inspect.signature(perform).parameters
        with self.server.admission.admit(self.tenant, op.name):
            req, unknown = self._decode(data, encoding[0])
            self._check_operation_id(req)
            if self.deadline is not None and time.monotonic() >= self.deadline:
                raise error("DEADLINE_EXCEEDED", "the request's timeout passed before it was performed")
            call = self._call()
            answer = perform(call, req, unknown) if with_unknown else perform(call, req)
        self._respond(answer, encoding[1])

    def _respond(self, answer: bytes, encoding: str) -> None:
        """Send the canonical Protobuf bytes of a response in ``encoding``."""
        if encoding != "protobuf":
            doc = memorywire.protobuf.decode(answer, type=self.op.response_type)
            answer = _CODECS[encoding].encode(doc, type=self.op.response_type)
        h = self.h
        h.send_response(200)
        h.send_header("Content-Type", _WRITTEN[encoding])
        h.send_header("Content-Length", str(len(answer)))
        self._common_headers()
        h.end_headers()
        h.wfile.write(answer)

    def _common_headers(self) -> None:
        h = self.h
        h.send_header(SPECVERSION_HEADER, operations.SPECVERSION)
        if self.op_id:
            h.send_header(OPERATION_ID_HEADER, _header_value(self.op_id))
        h._cors(h.headers.get("origin"))

    # -- Import -------------------------------------------------------------------------------

    def _upload(self, body: _Body, encoding: tuple[str, str]) -> int:
        op = self.op
        begin: Callable[[Call, int], ImportStream] = getattr(self.server.service, op.handler)
        index = 0
        with self.server.admission.admit(self.tenant, op.name), \
                begin(self._call(), self.server.share.max_import_bytes) as stream:
            counted = 0
            # A whole JSON body is one document; the other framings are streams.
            framing = "json" if encoding[0] in ("json", "jsonl") else encoding[0]
            items: Iterator[memorywire.stream.Decoded]
            if encoding[0] == "json":
                data = body.read_all(self.server.limits.max_document_bytes)
                items = iter([(1, self._decode_walk(data))])
            else:
                items = memorywire.stream.iter_decoded(body, framing, type=op.request_type,
                                                       limits=self.server.limits)
            for position, item in items:
                index = position - 1
                stream.count_bytes(index, body.read_bytes - counted)
                counted = body.read_bytes
                if isinstance(item, MemorywireError):
                    item.message = f"message {index} of the stream: {item.message}"
                    raise item
                msg, walk = item
                try:
                    Service.check_enum_values(op.request_type, walk.unknown)
                except MemorywireError as e:
                    e.message = f"message {index} of the stream: {e.message}"
                    raise
                msg = _without(msg, walk.unknown)
                if index == 0:
                    self._check_operation_id(msg)
                stream.add(msg, list(walk.unknown))
            if not body.complete:
                raise _Gone
            if not self._is_active():
                raise _Gone
            answer = stream.commit()
        self._respond(answer, encoding[1])
        return index + 1

    def _decode_walk(self, data: bytes) -> tuple[dict[str, Any], Any]:
        return memorywire.json.Decoder(self.op.request_type, limits=self.server.limits).decode_walk(data)

    # -- Watch and Export ---------------------------------------------------------------------

    def _stream(self, data: bytes, encoding: str) -> int | None:
        """Serve a stream of responses as Server-Sent Events; the number of
        events sent, or None when the stream failed after its headers."""
        op = self.op
        h = self.h
        respond: Callable[[Call, dict[str, Any]], Iterator[bytes]] = getattr(self.server.service, op.handler)
        sent = 0
        with self.server.admission.admit(self.tenant, op.name):
            req, _ = self._decode(data, encoding)
            self._check_operation_id(req)
            resume = h.headers.get("last-event-id", "").strip()
            if resume:
                if len(resume) > 1024:
                    raise error("INVALID_CURSOR", "the Last-Event-ID is not a cursor of this service",
                                "/cursor")
                req = {**req, "cursor": resume}
            self.last_write = time.monotonic()
            frames = respond(Call(self.tenant, self._stream_active), req)
            # The headers go once the start of the stream is fixed (section 7.2).
            h.send_response(200)
            h.send_header("Content-Type", EVENT_STREAM)
            h.send_header("Cache-Control", "no-store")
            h.send_header("Transfer-Encoding", "chunked")
            self._common_headers()
            h.end_headers()
            self.headers_sent = True
            h.connection.settimeout(self.server.share.stream_stall_seconds)
            try:
                self._write(f"retry: {RETRY_MILLIS}\n\n".encode())
                for frame in frames:
                    doc = memorywire.protobuf.decode(frame, type=op.response_type)
                    text = memorywire.json.encode(doc, type=op.response_type)
                    event = doc.get("event")
                    cursor = event.get("cursor") if isinstance(event, dict) else None
                    head = f"id: {cursor}\n".encode() if isinstance(cursor, str) else b""
                    self._write(head + b"data: " + text + b"\n\n")
                    sent += 1
                if self.gone:
                    raise _Gone
                if self.server.stopping.is_set():
                    raise error("UNAVAILABLE", "the service is stopping; resume the stream")
                self._write(b"event: end\ndata: {}\n\n")
                self._end_chunks()
            except _Gone:
                self.h.close_connection = True
                self._log("CANCELLED", messages=sent)
                return None
            except MemorywireError as e:
                self._event_error(e, sent)
                return None
            except Exception as e:  # noqa: BLE001
                self._event_error(self.server.internal_error(e), sent)
                return None
            finally:
                with contextlib.suppress(OSError):
                    h.connection.settimeout(self.binding.idle_seconds)
        return sent

    def _stream_active(self) -> bool:
        """Whether the stream goes on; asked by a waiting Watch at least every
        half second, and so the place that sends the heartbeats and notices
        a client that has gone."""
        if not self._is_active():
            return False
        if not self.headers_sent:
            return True
        if time.monotonic() - self.last_write >= self.binding.heartbeat_seconds:
            try:
                self._write(b": heartbeat\n\n")
            except _Gone:
                return False
        elif _peer_closed(self.h.connection):
            self.gone = True
        return not self.gone

    def _write(self, data: bytes) -> None:
        try:
            self.h.wfile.write(f"{len(data):X}\r\n".encode() + data + b"\r\n")
            self.h.wfile.flush()
        except (OSError, ValueError):
            self.gone = True
            raise _Gone from None
        self.last_write = time.monotonic()

    def _end_chunks(self) -> None:
        try:
            self.h.wfile.write(b"0\r\n\r\n")
            self.h.wfile.flush()
        except (OSError, ValueError):
            self.gone = True

    def _event_error(self, e: MemorywireError, sent: int) -> None:
        doc = operations.error_document(e, self.op_id)
        self._log(e.code, e, messages=sent)
        self.h.close_connection = True
        with contextlib.suppress(_Gone):
            body = memorywire.json.encode(doc, type="memorywire.v1.Error")
            self._write(b"event: error\ndata: " + body + b"\n\n")
            self._end_chunks()

    # -- failures and logs ------------------------------------------------------------------

    def _fail(self, e: MemorywireError, messages: int | None = None) -> None:
        if self.headers_sent:
            self._event_error(e, messages or 0)
            return
        doc = operations.error_document(e, self.op_id)
        self._log(e.code, e, messages=messages)
        self.h.close_connection = True
        self.h.send_error_document(HTTP_STATUS.get(e.code, 500), doc, op_id=self.op_id)

    def _log(self, code: str, e: MemorywireError | None = None, messages: int | None = None) -> None:
        server = self.server
        if not server.log_calls and code != "INTERNAL":
            return
        level = "info" if code == "OK" else "error" if code == "INTERNAL" else "warning"
        server.log(level, "call", binding="http", method=self.op.name, code=code,
                   reason=e.reason if e is not None else None, pointer=e.pointer if e is not None else None,
                   tenant=self.tenant, operation_id=self.op_id,
                   duration_ms=round((time.perf_counter() - self.started) * 1000, 3), messages=messages)


def _peer_closed(sock: socket.socket) -> bool:
    """Whether the client has closed a plain connection: it is readable
    and has nothing to read. (A TLS connection is found closed by the
    heartbeats instead.)"""
    if isinstance(sock, ssl.SSLSocket):
        return False
    try:
        readable, _, _ = select.select([sock], [], [], 0)
        return bool(readable) and sock.recv(1, socket.MSG_PEEK) == b""
    except (OSError, ValueError):
        return True

