"""The HTTP binding as a transport of the runner's client (spec/v1/http-binding.md).

:class:`HttpClient` offers the calls of :class:`~.client.Client` over HTTP,
so that every scenario runs over either binding unchanged:

- each thread keeps its connection open between unary calls that succeed
  (the service closes it after an error); streams have connections of
  their own;
- a unary call given a dict is one ``POST`` of the request's JSON form
  (``application/json``), answered in JSON; a call given a message or its
  bytes (``Client.raw``) is sent and answered as ``application/proto``, so
  that scenarios about unknown Protobuf fields keep their meaning;
- Export and Watch read the ``text/event-stream`` response, checking that
  each Watch event's ``id`` is its cursor and that a stream ends with an
  ``end`` or an ``error`` event; Import sends every document of the import
  in one JSON Lines body;
- a failure is read from the ``application/problem+json`` body and becomes
  an :class:`~.client.RpcFailure` whose code is the Error's; a response
  whose HTTP status is not the one its code has (section 4), or whose
  error body is not an Error document of that content type (section 5), is
  recorded as ``binding_problem``, which every error check fails on;
- the tenant, the credentials and the other metadata of a call are headers
  of the same names (section 3), a call's timeout is ``connect-timeout-ms``
  (section 3.5), and the client's own timeouts are ``DEADLINE_EXCEEDED``.

Only the standard library speaks HTTP here: the runner needs no HTTP
package.
"""

from __future__ import annotations

import base64
import http.client
import json
import math
import os
import socket
import ssl
import tempfile
import threading
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import grpc
from google.protobuf.message import Message

from memorywire_conformance.service.client import (
    DEFAULT,
    Client,
    RpcFailure,
    WatchStream,
    _response_type,
    new_operation_id,
)
from memorywire_conformance.service.descriptors import message_class, method_path
from memorywire_conformance.service.transport import NO_TOKEN, Security, SecurityError, is_local
from memorywire_conformance.service.wire import from_message, to_message

__all__ = ["HTTP_STATUS", "HttpChannel", "HttpClient", "ProtocolViolation", "is_http_target"]

#: The HTTP status of each code (http-binding.md section 4).
HTTP_STATUS: Mapping[str, int] = {
    "CANCELLED": 499, "UNKNOWN": 500, "INVALID_ARGUMENT": 400, "DEADLINE_EXCEEDED": 504,
    "NOT_FOUND": 404, "ALREADY_EXISTS": 409, "PERMISSION_DENIED": 403, "RESOURCE_EXHAUSTED": 429,
    "FAILED_PRECONDITION": 400, "ABORTED": 409, "OUT_OF_RANGE": 400, "UNIMPLEMENTED": 501,
    "INTERNAL": 500, "UNAVAILABLE": 503, "DATA_LOSS": 500, "UNAUTHENTICATED": 401,
}
PROBLEM_JSON = "application/problem+json"
JSON = "application/json"
JSONL = "application/jsonl"
PROTO = "application/proto"
EVENT_STREAM = "text/event-stream"
#: The receive buffer of a connection whose reader is slow (``small_window``):
#: what the 64 KiB HTTP/2 window is to a gRPC channel.
SMALL_RECEIVE_BUFFER = 16 * 1024


class ProtocolViolation(Exception):
    """A response that breaks the HTTP binding in a way no Error describes
    (an event stream without its end, a Watch event whose id is not its
    cursor)."""


def is_http_target(target: str) -> bool:
    """Whether a target is an ``http://`` or ``https://`` URL."""
    return target.lower().startswith(("http://", "https://"))


@dataclass
class HttpChannel:
    """The base URL of a service's HTTP binding, and how to reach it:
    ``https`` with the CA certificates, the client certificate and the
    token of ``security``."""

    url: str
    security: Security = field(default_factory=Security)
    #: Connections with a small receive buffer (a client that reads slowly).
    small_window: bool = False

    def __post_init__(self) -> None:
        parts = urlsplit(self.url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise SecurityError(f"{self.url} is not an http:// or https:// URL")
        if parts.query or parts.fragment:
            raise SecurityError(f"the base URL {self.url} has a query or a fragment")
        self.https = parts.scheme == "https"
        self.host = parts.hostname
        self.port = parts.port or (443 if self.https else 80)
        self.prefix = parts.path.rstrip("/")
        if self.security.token is not None and not self.https and not is_local(self.host):
            raise SecurityError(f"a token is sent only over TLS: {self.url} is not on this "
                                "machine; use https://")
        self._context: ssl.SSLContext | None = None
        self._folder: tempfile.TemporaryDirectory[str] | None = None
        #: The connection each thread keeps open between its unary calls.
        self._idle = threading.local()
        self._kept: list[http.client.HTTPConnection] = []
        self._lock = threading.Lock()
        if self.https:
            self._context = self._tls_context()

    def _tls_context(self) -> ssl.SSLContext:
        s = self.security
        context = ssl.create_default_context()
        if s.root_certificates is not None:
            context = ssl.create_default_context(cadata=s.root_certificates.decode("ascii"))
        if s.certificate_chain is not None and s.private_key is not None:
            # The ssl module reads a client certificate from files only.
            self._folder = tempfile.TemporaryDirectory(prefix="mwconf-tls-")
            cert = os.path.join(self._folder.name, "cert.pem")
            key = os.path.join(self._folder.name, "key.pem")
            for path, data in ((cert, s.certificate_chain), (key, s.private_key)):
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                with os.fdopen(fd, "wb") as f:
                    f.write(data)
            context.load_cert_chain(cert, key)
        return context

    def with_small_window(self) -> HttpChannel:
        return HttpChannel(self.url, self.security, small_window=True)

    def path(self, method: str) -> str:
        return self.prefix + method_path(method)

    def reused(self, timeout: float) -> http.client.HTTPConnection | None:
        """The connection this thread's last unary call left open, if any."""
        conn: http.client.HTTPConnection | None = getattr(self._idle, "conn", None)
        self._idle.conn = None
        if conn is not None and conn.sock is not None:
            conn.sock.settimeout(timeout)
            return conn
        return None

    def keep(self, conn: http.client.HTTPConnection) -> None:
        """Keep a connection whose response said nothing of closing it for
        the thread's next unary call."""
        old = getattr(self._idle, "conn", None)
        if old is not None:
            old.close()
        self._idle.conn = conn
        with self._lock:
            self._kept = [c for c in self._kept if c.sock is not None]
            self._kept.append(conn)

    def connect(self, timeout: float) -> http.client.HTTPConnection:
        """A new connection (calls of several threads never share one)."""
        conn: http.client.HTTPConnection
        if self._context is not None:
            conn = http.client.HTTPSConnection(self.host, self.port, timeout=timeout,
                                               context=self._context)
        else:
            conn = http.client.HTTPConnection(self.host, self.port, timeout=timeout)
        if self.small_window:
            # The buffer is set before the connection is made: the window the
            # handshake announces is then small, and never shrinks under the
            # sender (which would drop segments and stall it for seconds).
            family, kind, proto, _, address = socket.getaddrinfo(
                self.host, self.port, type=socket.SOCK_STREAM)[0]
            sock = socket.socket(family, kind, proto)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, SMALL_RECEIVE_BUFFER)
            sock.settimeout(timeout)
            sock.connect(address)
            if self._context is not None:
                sock = self._context.wrap_socket(sock, server_hostname=self.host)
            conn.sock = sock
        return conn

    def close(self) -> None:
        with self._lock:
            for conn in self._kept:
                conn.close()
            self._kept = []
        if self._folder is not None:
            self._folder.cleanup()
            self._folder = None


# Documents in their JSON form.


def _jsonable(value: Any) -> Any:
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii")
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_jsonable(v) for v in value]
    return value


def json_body(message: Message) -> bytes:
    """The JSON form of a message (wire.py's dicts are shaped like it)."""
    return json.dumps(_jsonable(from_message(message)), ensure_ascii=False, allow_nan=False,
                      separators=(",", ":")).encode("utf-8")


def read_document(type_name: str, data: bytes) -> Message:
    """A JSON document read into the message of ``type_name``: a member the
    type does not define fails, as a duplicate or malformed member does."""

    def no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        keys = [k for k, _ in pairs]
        if len(set(keys)) != len(keys):
            raise ProtocolViolation(f"a {type_name} document repeats a member")
        return dict(pairs)

    doc = json.loads(data.decode("utf-8"), object_pairs_hook=no_duplicates)
    if not isinstance(doc, dict):
        raise ProtocolViolation(f"a {type_name} document is not a JSON object")
    return to_message(type_name, doc)


def _media_type(value: str | None) -> str:
    return (value or "").split(";", 1)[0].strip().lower()


# Failures.


def _code(name: str) -> grpc.StatusCode:
    for code in grpc.StatusCode:
        if code.name == name:
            return code
    return grpc.StatusCode.UNKNOWN


#: The code of a failure without an Error, by HTTP status (the Connect protocol's mapping).
_CODE_OF_STATUS = {400: "INTERNAL", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED",
                   404: "UNIMPLEMENTED", 429: "UNAVAILABLE", 502: "UNAVAILABLE",
                   503: "UNAVAILABLE", 504: "UNAVAILABLE"}


def http_failure(method: str, status: int, headers: http.client.HTTPMessage, body: bytes,
                 connect: bool = False) -> RpcFailure:
    """The RpcFailure of a response whose status is not 200: the Error of its
    body, with ``binding_problem`` set where the response breaks sections 4
    and 5 of the binding."""
    problems = []
    content_type = _media_type(headers.get("content-type"))
    wanted = JSON if connect else PROBLEM_JSON
    if content_type != wanted:
        problems.append(f"the Content-Type of the error is {content_type or 'missing'!r}, "
                        f"not {wanted}")
    error: dict[str, Any] | None = None
    try:
        error = from_message(read_document("Error", body))
    except Exception as e:  # noqa: BLE001 - a body that is not an Error document
        problems.append(f"the body of the {status} response is not an Error document: {e}")
    name = str(error.get("code", "")).upper() if error else _CODE_OF_STATUS.get(status, "UNKNOWN")
    code = _code(name)
    if error is not None and HTTP_STATUS.get(name) != status:
        problems.append(f"the HTTP status is {status} but the Error's code {name.lower()} has "
                        f"{HTTP_STATUS.get(name)} (http-binding.md section 4)")
    retry = error.get("retry_after_millis") if error else None
    if isinstance(retry, int):
        want = str(max(0, math.ceil(retry / 1000)))
        if headers.get("retry-after") != want:
            problems.append(f"the Error has retry_after_millis {retry} but Retry-After is "
                            f"{headers.get('retry-after')!r}, not {want!r}")
    message = str(error.get("message", "")) if error else body[:200].decode("utf-8", "replace")
    failure = RpcFailure(method, code, message)
    failure.http_status = status
    failure.binding = "HTTP"
    if error is not None:
        failure.error = error
        failure.error_count = 1
    else:
        failure.details_problem = problems[-1]
    failure.binding_problem = "; ".join(problems)
    failure.args = (failure.describe(),)
    return failure


def _local_failure(method: str, code: grpc.StatusCode, why: str) -> RpcFailure:
    failure = RpcFailure(method, code, why)
    failure.binding = "HTTP"
    return failure


# The client.


class HttpClient(Client):
    """The calls of :class:`Client`, over the HTTP binding of ``channel``."""

    channel: HttpChannel

    def as_tenant(self, tenant: str | None) -> HttpClient:
        return HttpClient(self.channel, tenant, self.timeout)

    def _headers(self, tenant: Any, metadata: Sequence[tuple[str, str]] | None
                 ) -> list[tuple[str, str]]:
        headers = list(self._metadata(tenant, metadata))
        token = self.channel.security.token
        if any(k == NO_TOKEN for k, _ in headers):
            return [(k, v) for k, v in headers if k != NO_TOKEN]
        if token is not None and not any(k == "authorization" for k, _ in headers):
            headers.append(("authorization", f"Bearer {token}"))
        return headers

    def _send(self, method: str, body: bytes | Iterable[bytes], content_type: str, accept: str,
              tenant: Any, metadata: Sequence[tuple[str, str]] | None, timeout: float,
              deadline: bool = True, opened: list[http.client.HTTPConnection] | None = None
              ) -> tuple[http.client.HTTPConnection, http.client.HTTPResponse]:
        if isinstance(body, bytes) and opened is None:
            conn = self.channel.reused(timeout)
            if conn is not None:
                try:
                    return self._request(conn, method, body, content_type, accept, tenant,
                                         metadata, timeout, deadline)
                except (ConnectionError, http.client.RemoteDisconnected,
                        http.client.CannotSendRequest, http.client.BadStatusLine):
                    # The service closed the kept connection before it read the
                    # request (idle, or after an error): sent again on a new one.
                    conn.close()
        conn = self.channel.connect(timeout)
        if opened is not None:
            opened.append(conn)
        return self._request(conn, method, body, content_type, accept, tenant, metadata,
                             timeout, deadline, fresh=True)

    def _request(self, conn: http.client.HTTPConnection, method: str,
                 body: bytes | Iterable[bytes], content_type: str, accept: str, tenant: Any,
                 metadata: Sequence[tuple[str, str]] | None, timeout: float, deadline: bool,
                 fresh: bool = False
                 ) -> tuple[http.client.HTTPConnection, http.client.HTTPResponse]:
        try:
            conn.putrequest("POST", self.channel.path(method), skip_accept_encoding=True)
            conn.putheader("Content-Type", content_type)
            conn.putheader("Accept", accept)
            if deadline:
                conn.putheader("connect-timeout-ms", str(max(1, int(timeout * 1000))))
            for name, value in self._headers(tenant, metadata):
                conn.putheader(name, value)
            if isinstance(body, bytes):
                conn.putheader("Content-Length", str(len(body)))
                conn.endheaders(body)
            else:
                conn.putheader("Transfer-Encoding", "chunked")
                conn.endheaders()
                for chunk in body:
                    if chunk:
                        conn.send(f"{len(chunk):X}\r\n".encode() + chunk + b"\r\n")
                conn.send(b"0\r\n\r\n")
            response = conn.getresponse()
        except TimeoutError:
            conn.close()
            raise _local_failure(method, grpc.StatusCode.DEADLINE_EXCEEDED,
                                 f"no response within {timeout:g} s") from None
        except (OSError, http.client.HTTPException) as e:
            conn.close()
            if not fresh and isinstance(e, (ConnectionError, http.client.RemoteDisconnected,
                                            http.client.CannotSendRequest,
                                            http.client.BadStatusLine)):
                raise
            raise _local_failure(method, grpc.StatusCode.UNAVAILABLE,
                                 f"{type(e).__name__}: {e}") from None
        except BaseException:
            # A body that could not be completed: the connection is closed with
            # the body unfinished, which cancels the request (section 3.5).
            _abort(conn)
            raise
        return conn, response

    def _exchange(self, method: str, body: bytes | Iterable[bytes], content_type: str,
                  accept: str, tenant: Any, metadata: Sequence[tuple[str, str]] | None,
                  timeout: float) -> tuple[bytes, http.client.HTTPMessage]:
        conn, response = self._send(method, body, content_type, accept, tenant, metadata,
                                    timeout)
        try:
            data = response.read()
        except TimeoutError:
            conn.close()
            raise _local_failure(method, grpc.StatusCode.DEADLINE_EXCEEDED,
                                 f"no response within {timeout:g} s") from None
        except (OSError, http.client.HTTPException) as e:
            conn.close()
            raise _local_failure(method, grpc.StatusCode.UNAVAILABLE,
                                 f"{type(e).__name__}: {e}") from None
        if response.status == 200 and not response.will_close:
            self.channel.keep(conn)
        else:
            # The service closes the connection after an error (http-binding.md 5).
            conn.close()
        if response.status != 200:
            raise http_failure(method, response.status, response.headers, data,
                               connect=any(k.lower() == "connect-protocol-version"
                                           for k, _ in (metadata or ())))
        got = _media_type(response.headers.get("content-type"))
        if got != accept:
            raise ProtocolViolation(f"the {method} response is {got!r}; the request "
                                    f"accepts {accept} only")
        self.last_headers = {k.lower(): v for k, v in response.headers.items()}
        return data, response.headers

    def raw(self, method: str, request: Mapping[str, Any] | Message | bytes, *,
            tenant: Any = DEFAULT, metadata: Sequence[tuple[str, str]] | None = None,
            timeout: float | None = None) -> Message:
        """A unary call in ``application/proto``, both ways; the response message."""
        payload = request if isinstance(request, bytes) else \
            self.envelope(method, request).SerializeToString()
        data, _ = self._exchange(method, payload, PROTO, PROTO, tenant, metadata,
                                 timeout or self.timeout)
        return message_class(_response_type(method)).FromString(data)

    def call(self, method: str, request: Mapping[str, Any] | Message | bytes, **kw: Any
             ) -> dict[str, Any]:
        """A unary call in ``application/json``, both ways (bytes: Protobuf)."""
        if isinstance(request, bytes):
            return from_message(self.raw(method, request, **kw))
        timeout = kw.get("timeout") or self.timeout
        data, _ = self._exchange(method, json_body(self.envelope(method, request)), JSON, JSON,
                                 kw.get("tenant", DEFAULT), kw.get("metadata"), timeout)
        return from_message(read_document(_response_type(method), data))

    def export(self, request: Mapping[str, Any] | Message, *, tenant: Any = DEFAULT,
               metadata: Sequence[tuple[str, str]] | None = None,
               timeout: float | None = None) -> list[dict[str, Any]]:
        """Export; every ExportResponse of the event stream."""
        timeout = timeout or self.timeout
        conn, response = self._send("Export", json_body(self.envelope("Export", request)), JSON,
                                    EVENT_STREAM, tenant, metadata, timeout)
        try:
            return [from_message(m) for m in _events("Export", conn, response, metadata)]
        finally:
            conn.close()

    def import_(self, requests: Iterable[Mapping[str, Any] | Message], *, tenant: Any = DEFAULT,
                metadata: Sequence[tuple[str, str]] | None = None,
                timeout: float | None = None) -> dict[str, Any]:
        """Import, the documents as one JSON Lines body; the response."""
        lines = [json_body(m) + b"\n" for m in self._import_messages(requests)]
        data, _ = self._exchange("Import", b"".join(lines), JSONL, JSON, tenant, metadata,
                                 timeout or self.timeout)
        return from_message(read_document(_response_type("Import"), data))

    def _import_messages(self, requests: Iterable[Mapping[str, Any] | Message]
                         ) -> Iterator[Message]:
        op_id = None
        for r in requests:
            if isinstance(r, Message):
                yield r
                continue
            data = dict(r)
            if op_id is None:
                op_id = data.setdefault("operation_id", new_operation_id())
            data.setdefault("operation_id", op_id)
            yield self.envelope("Import", data)

    def import_future(self, requests: Iterable[Mapping[str, Any]], *, timeout: float | None = None
                      ) -> Any:
        """Start an Import whose documents go as a chunked JSON Lines body as
        ``requests`` yields them; its future, whose ``cancel()`` closes the
        connection before the body ends (http-binding.md section 7.4)."""
        return _ImportFuture(self, requests, timeout or self.timeout)

    def watch(self, request: Mapping[str, Any] | Message, *, tenant: Any = DEFAULT,
              metadata: Sequence[tuple[str, str]] | None = None,
              timeout: float | None = None, paced: bool = False,
              last_event_id: str | None = None) -> WatchStream:
        """Open a Watch event stream; ``last_event_id``: resume after that
        event as a reconnecting EventSource does (http-binding.md 7.2)."""
        message = self.envelope("Watch", request)
        extra = list(metadata if metadata is not None else self._metadata(tenant, None))
        if last_event_id is not None:
            extra.append(("last-event-id", last_event_id))
        timeout = timeout or self.timeout
        conn, response = self._send("Watch", json_body(message), JSON, EVENT_STREAM, tenant,
                                    extra, timeout, deadline=False)
        call = _EventCall(conn, response, extra)
        return WatchStream(call, str(getattr(message, "operation_id", "")), paced=paced)


def _events(method: str, conn: http.client.HTTPConnection, response: http.client.HTTPResponse,
            metadata: Sequence[tuple[str, str]] | None) -> Iterator[Message]:
    """The responses of an event stream (http-binding.md section 7.1), as
    messages; RpcFailure for an error response or an ``error`` event."""
    if response.status != 200:
        raise http_failure(method, response.status, response.headers, response.read(),
                           connect=any(k.lower() == "connect-protocol-version"
                                       for k, _ in (metadata or ())))
    got = _media_type(response.headers.get("content-type"))
    if got != EVENT_STREAM:
        raise ProtocolViolation(f"the {method} response is {got!r}, not {EVENT_STREAM}")
    kind = message_class(_response_type(method))
    fields: dict[str, str] = {}
    data: list[str] = []  # the data lines of the event being read
    try:
        while True:
            raw = response.readline()
            if not raw:
                raise _local_failure(method, grpc.StatusCode.UNAVAILABLE,
                                     "the event stream was cut: it ended with neither an end "
                                     "nor an error event (http-binding.md section 7.1)")
            line = raw.decode("utf-8").rstrip("\r\n")
            if line.startswith(":"):
                continue
            if line:
                name, _, value = line.partition(":")
                value = value[1:] if value.startswith(" ") else value
                if name == "data":
                    data.append(value)
                elif name in ("event", "id", "retry"):
                    fields[name] = value
                continue
            if not data:
                fields = {}
                continue
            text = "\n".join(data).encode("utf-8")
            event = fields.get("event", "message")
            event_id = fields.get("id")
            fields, data = {}, []
            if event == "end":
                return
            if event == "error":
                error = from_message(read_document("Error", text))
                failure = RpcFailure(method, _code(str(error.get("code", "")).upper()),
                                     str(error.get("message", "")))
                failure.binding = "HTTP"
                failure.error, failure.error_count = error, 1
                failure.args = (failure.describe(),)
                raise failure
            if event != "message":
                raise ProtocolViolation(f"the {method} stream sent an event of type {event!r}")
            msg: Any = read_document(kind.DESCRIPTOR.full_name, text)
            if method == "Watch":
                cursor = msg.event.cursor
                if event_id != cursor:
                    raise ProtocolViolation(f"a Watch event's id is {event_id!r} but its "
                                            f"cursor is {cursor!r} (http-binding.md 7.2)")
            elif event_id is not None:
                raise ProtocolViolation(f"an {method} event carries the id {event_id!r}")
            yield msg
    except TimeoutError:
        raise _local_failure(method, grpc.StatusCode.DEADLINE_EXCEEDED,
                             "the event stream sent nothing, not even a heartbeat, within "
                             "the call's timeout") from None
    except (OSError, http.client.HTTPException, ValueError) as e:
        raise _local_failure(method, grpc.StatusCode.UNAVAILABLE,
                             f"the event stream broke: {type(e).__name__}: {e}") from None


def _abort(conn: http.client.HTTPConnection) -> None:
    """Close a connection at once, in both directions."""
    sock = conn.sock
    if sock is not None:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
    conn.close()


class _EventCall:
    """A Watch event stream in the shape of a gRPC call for :class:`WatchStream`:
    iterating gives the responses, ``cancel()`` closes the connection."""

    def __init__(self, conn: http.client.HTTPConnection, response: http.client.HTTPResponse,
                 metadata: Sequence[tuple[str, str]]) -> None:
        self._conn = conn
        self._response = response
        self._metadata = metadata
        self._cancelled = False

    def __iter__(self) -> Iterator[Message]:
        try:
            yield from _events("Watch", self._conn, self._response, self._metadata)
        except RpcFailure as e:
            if self._cancelled:
                raise _local_failure("Watch", grpc.StatusCode.CANCELLED, "cancelled") from None
            raise e from None
        finally:
            self._conn.close()

    def cancel(self) -> None:
        self._cancelled = True
        sock = self._conn.sock
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        # The reader thread closes the connection once its read returns.


class _ImportFuture:
    """An Import whose body is sent, chunk by chunk, by a thread of its own."""

    def __init__(self, client: HttpClient, requests: Iterable[Mapping[str, Any]],
                 timeout: float) -> None:
        self._client = client
        self._requests = requests
        self._timeout = timeout
        self._cancelled = threading.Event()
        self._opened: list[http.client.HTTPConnection] = []
        self._result: dict[str, Any] | None = None
        self._failure: BaseException | None = None
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, name="memorywire-import", daemon=True)
        self._thread.start()

    def _body(self) -> Iterator[bytes]:
        for message in self._client._import_messages(self._requests):
            if self._cancelled.is_set():
                raise _local_failure("Import", grpc.StatusCode.CANCELLED, "cancelled")
            yield json_body(message) + b"\n"
        if self._cancelled.is_set():
            raise _local_failure("Import", grpc.StatusCode.CANCELLED, "cancelled")

    def _run(self) -> None:
        try:
            conn, response = self._client._send("Import", self._body(), JSONL, JSON, DEFAULT,
                                                 None, self._timeout, opened=self._opened)
            data = response.read()
            conn.close()
            if response.status != 200:
                raise http_failure("Import", response.status, response.headers, data)
            self._result = from_message(read_document(_response_type("Import"), data))
        except BaseException as e:  # noqa: BLE001 - kept for result()
            self._failure = e
        finally:
            self._done.set()

    def cancel(self) -> bool:
        """Close the connection with the body unfinished."""
        self._cancelled.set()
        for conn in self._opened:
            _abort(conn)
        return True

    def result(self, timeout: float | None = None) -> dict[str, Any]:
        if not self._done.wait(timeout):
            raise _local_failure("Import", grpc.StatusCode.DEADLINE_EXCEEDED, "no response")
        if self._failure is not None:
            raise self._failure
        assert self._result is not None
        return self._result

    def done(self) -> bool:
        return self._done.is_set()

    def exception(self, timeout: float | None = None) -> BaseException | None:
        self._done.wait(timeout)
        return self._failure


def capabilities(channel: HttpChannel, timeout: float) -> dict[str, Any]:
    """GetCapabilities over HTTP. Raises RpcFailure."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            return HttpClient(channel, None, timeout).call("GetCapabilities", {})
        except RpcFailure as e:
            if e.code is not grpc.StatusCode.UNAVAILABLE or e.error is not None \
                    or time.monotonic() >= deadline:
                raise
            time.sleep(0.1)

