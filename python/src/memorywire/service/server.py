"""The gRPC binding of the reference service (spec/v1/grpc-binding.md):
``memorywire.v1.MemoryService`` on grpcio, with the caller's tenant and
credentials from request metadata, every failure as a gRPC status carrying
the memorywire ``Error`` in ``grpc-status-details-bin``, health checking,
server reflection, graceful shutdown and structured JSON logs on stderr.

Run it with ``memorywire serve [--listen HOST:PORT] [--store FILE | :memory: | postgresql://...]``
or ``python -m memorywire.service.server``; ``--tls-cert`` and ``--tls-key``
turn on TLS, ``--tls-client-ca`` mutual TLS, and ``--tokens FILE`` bearer
tokens (grpc-binding.md section 3.2).
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import inspect
import json
import math
import re
import signal
import ssl
import sys
import threading
import time
import traceback
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from concurrent import futures
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, TextIO

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection, reflection_pb2

import memorywire
import memorywire.protobuf
from memorywire._transport import is_local
from memorywire.errors import MemorywireError
from memorywire.limits import DEFAULT_LIMITS, Limits
from memorywire.service import cursors, operations, registry
from memorywire.service.errors import (
    ERROR_TYPE_URL,
    GRPC_CODES,
    ServiceError,
    encode_status,
    error,
)
from memorywire.service.fairness import ANONYMOUS, REFLECTION, Admission, FairShare, StallMonitor, Waiting
from memorywire.service.operations import Call, ImportStream, Service
from memorywire.service.registry import Operation, Streaming
from memorywire.service.storage import Storage
from memorywire.service.store import DEFAULT_INDEX_MEMORY
from memorywire.service.stores import open_store
from memorywire.service.vectors import ANN_THRESHOLD
from memorywire.signing import Signer

if TYPE_CHECKING:
    from memorywire.service.http import HttpBinding

__all__ = ["MemoryServer", "SERVICE_NAME", "Tls", "load_tokens", "main", "parse_tenant"]

SERVICE_NAME = registry.SERVICE
TENANT_KEY = "memorywire-tenant"
SPECVERSION_KEY = "memorywire-specversion"
_REFLECTION_V1 = "grpc.reflection.v1.ServerReflection"
DEFAULT_LISTEN = "127.0.0.1:50051"
DEFAULT_STORE = "./memorywire.sqlite3"
#: How long a connection stays silent before the server pings it.
KEEPALIVE_SECONDS = 60
#: How long an Import whose stream ended waits, before it commits, for a
#: cancellation of the call to show: the gRPC library may report a client
#: stream that was cancelled as one that ended, a moment before it reports
#: the cancellation, and a cancelled Import must not take effect.
IMPORT_SETTLE_SECONDS = 0.05
#: The bounds, least and greatest, of the ``memorywire serve`` flags that the
#: fair share does not check. A paging cursor lives at least an hour
#: (operations.md section 4.5) and at most 30 days, past which it is as good
#: as one that never expires; the grace after a stop signal is at most an hour.
CURSOR_TTL_RANGE = (3600.0, 30 * 24 * 3600.0)
GRACE_SECONDS_RANGE = (0.0, 3600.0)
INDEX_MEMORY_MIB_RANGE = (1, 1 << 20)
#: The bounds of ``--ann-threshold``, the greatest number of embeddings of
#: one group that a vector search compares exactly (0: a search of any group
#: may use the approximate index).
ANN_THRESHOLD_RANGE = (0, 2**31 - 1)


class _Status(NamedTuple):
    code: grpc.StatusCode
    details: str
    trailing_metadata: tuple[tuple[str, bytes], ...]


class _Log:
    """Structured logs: one JSON object per line."""

    def __init__(self, stream: TextIO | None) -> None:
        self._stream = stream
        self._lock = threading.Lock()

    def __call__(self, level: str, event: str, **fields: Any) -> None:
        if self._stream is None:
            return
        ns = time.time_ns()
        entry = {"time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ns // 10**9)) +
                 f".{ns // 10**6 % 1000:03d}Z", "level": level, "event": event}
        entry.update((k, v) for k, v in fields.items() if v is not None and v != "")
        line = json.dumps(entry, ensure_ascii=False, separators=(",", ":"))
        with self._lock:
            try:
                self._stream.write(line + "\n")
                self._stream.flush()
            except (OSError, ValueError):
                pass


def parse_tenant(values: Sequence[str]) -> str:
    """The caller's tenant from the values of the metadata memorywire-tenant
    (grpc-binding.md section 3.1); TENANT_REQUIRED when there is none."""
    def required(why: str) -> ServiceError:
        return error("TENANT_REQUIRED", f"the call names no tenant: {why}")

    if not values:
        raise required("the metadata memorywire-tenant is missing")
    if len(values) > 1:
        raise required("the metadata memorywire-tenant occurs more than once")
    text = values[0]
    if not text:
        raise required("the metadata memorywire-tenant is empty")
    out = bytearray()
    i = 0
    raw = text.encode("latin-1", "replace")
    while i < len(raw):
        b = raw[i]
        if b == 0x25:
            hexdigits = raw[i + 1:i + 3]
            if len(hexdigits) != 2 or not all(c in b"0123456789abcdefABCDEF" for c in hexdigits):
                raise required("the metadata memorywire-tenant holds a malformed % escape")
            out.append(int(hexdigits, 16))
            i += 3
        else:
            out.append(b)
            i += 1
    try:
        tenant = out.decode("utf-8")
    except UnicodeDecodeError:
        raise required("the metadata memorywire-tenant is not UTF-8") from None
    if not tenant or len(tenant) > 256:
        raise required("a tenant has 1 to 256 code points")
    return tenant


def encode_tenant(tenant: str) -> str:
    """The value of the metadata memorywire-tenant for a tenant."""
    return "".join(chr(b) if 0x21 <= b <= 0x7E and b != 0x25 else f"%{b:02X}"
                   for b in tenant.encode("utf-8"))


# -- transport security and credentials -------------------------------------------------------

_PEM_CERTIFICATE = b"-----BEGIN CERTIFICATE-----"
_PEM_PRIVATE_KEY = re.compile(rb"-----BEGIN (?:[A-Z0-9]+ )?PRIVATE KEY-----")
#: A bearer token (RFC 6750 section 2.1, b64token).
_TOKEN = re.compile(r"[A-Za-z0-9\-._~+/]+=*")


@dataclass(frozen=True)
class Tls:
    """The TLS of a server, in PEM: its certificate chain and private key,
    and, for mutual TLS, the certificates of the authorities that sign the
    client certificates it accepts; with ``client_ca`` a client without such
    a certificate cannot connect."""

    cert_chain: bytes
    private_key: bytes = field(repr=False)
    client_ca: bytes | None = None

    @property
    def mutual(self) -> bool:
        return self.client_ca is not None

    @classmethod
    def from_files(cls, cert_chain: str | Path, private_key: str | Path,
                   client_ca: str | Path | None = None) -> Tls:
        """Read and check the PEM files; ValueError naming the file and the
        problem: unreadable, no PEM certificate or key, an encrypted key, a
        key that is not the certificate's."""
        cert = _read_pem(cert_chain, "TLS certificate", _PEM_CERTIFICATE, "PEM certificate")
        key = _read_pem(private_key, "TLS private key", _PEM_PRIVATE_KEY, "PEM private key")
        if b"-----BEGIN ENCRYPTED PRIVATE KEY-----" in key or b"Proc-Type: 4,ENCRYPTED" in key:
            raise ValueError(f"the TLS private key {private_key} is encrypted; the service needs "
                             "it unencrypted (keep the file readable by the service only)")
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        try:
            context.load_cert_chain(cert_chain, private_key, password=lambda: b"")
        except ssl.SSLError as e:
            why = ("the key is not the certificate's" if e.reason == "KEY_VALUES_MISMATCH"
                   else e.reason or str(e))
            raise ValueError(f"the TLS certificate {cert_chain} and private key {private_key} "
                             f"cannot be used together: {why}") from None
        ca = None
        if client_ca is not None:
            ca = _read_pem(client_ca, "TLS client CA", _PEM_CERTIFICATE, "PEM certificate")
            try:
                ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER).load_verify_locations(
                    cadata=ca.decode("ascii", "replace"))
            except ssl.SSLError as e:
                raise ValueError(f"the TLS client CA {client_ca} holds no usable certificate: "
                                 f"{e.reason or e}") from None
        return cls(cert, key, ca)

    def server_credentials(self) -> grpc.ServerCredentials:
        return grpc.ssl_server_credentials([(self.private_key, self.cert_chain)],
                                           root_certificates=self.client_ca,
                                           require_client_auth=self.client_ca is not None)


def _read_pem(path: str | Path, what: str, marker: bytes | re.Pattern[bytes], kind: str) -> bytes:
    try:
        data = Path(path).read_bytes()
    except OSError as e:
        raise ValueError(f"cannot read the {what} {path}: {e.strerror or e}") from None
    found = marker.search(data) if isinstance(marker, re.Pattern) else marker in data
    if not found:
        raise ValueError(f"the {what} {path} holds no {kind}")
    return data


def _json_kind(value: Any) -> str:
    if isinstance(value, list):
        return "a list with other things than tenant names"
    return {dict: "an object", str: "another string", bool: "a boolean", int: "a number",
            float: "a number", type(None): "null"}.get(type(value), "another value")


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode("utf-8")).digest()


def _coverage(tokens: Mapping[str, Collection[str] | None]) -> dict[bytes, frozenset[str] | None]:
    """Accepted tokens by their SHA-256 digest (the tokens themselves are not
    kept), each with the tenants it covers: None, or "*", for every tenant."""
    out: dict[bytes, frozenset[str] | None] = {}
    for token, covers in tokens.items():
        if not isinstance(token, str) or not _TOKEN.fullmatch(token):
            raise ValueError("a bearer token is a non-empty string of the characters of RFC 6750 section 2.1")
        if covers is None or covers == "*":
            out[_digest(token)] = None
        elif isinstance(covers, str):
            raise ValueError('a token covers a collection of tenant names, None or "*", not one string')
        else:
            tenants = frozenset(covers)
            if not tenants or not all(isinstance(t, str) and 1 <= len(t) <= 256 for t in tenants):
                raise ValueError("a token covers at least one tenant name of 1 to 256 code points")
            out[_digest(token)] = tenants
    return out


def load_tokens(path: str | Path) -> dict[str, frozenset[str] | None]:
    """The bearer tokens of a tokens file: a JSON object that maps each
    token to the list of tenants it covers, or to ``"*"`` for every tenant::

        {"3kq0Rj2vUoWbH8aX": ["acme", "globex"], "Zc1NfLw7pQe4Ty9s": "*"}

    ValueError naming the problem (never a token: entries are named by their
    position): an unreadable file, bad JSON, another shape, a token given
    twice, a token that is empty or not of the characters of RFC 6750, a
    token that covers no tenant, a tenant name that is empty or longer than
    256 code points."""
    try:
        text = Path(path).read_text("utf-8")
    except (OSError, UnicodeDecodeError) as e:
        why = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
        raise ValueError(f"cannot read the tokens file {path}: {why}") from None
    shape = ('an object that maps each bearer token to a list of tenant names or to "*" '
             '(every tenant)')

    class Twice(Exception):
        pass

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in items:
            if key in out:
                raise Twice
            out[key] = value
        return out

    try:
        doc = json.loads(text, object_pairs_hook=pairs)
    except json.JSONDecodeError as e:
        raise ValueError(f"the tokens file {path} is not JSON: {e.msg} at line {e.lineno} "
                         f"column {e.colno}") from None
    except Twice:
        raise ValueError(f"the tokens file {path} gives a token twice") from None
    if not isinstance(doc, dict):
        raise ValueError(f"the tokens file {path} holds {type(doc).__name__ if doc is not None else 'null'}"
                         f", not {shape}")
    if not doc:
        raise ValueError(f"the tokens file {path} holds no token; it holds {shape}")
    tokens: dict[str, frozenset[str] | None] = {}
    for number, (token, covers) in enumerate(doc.items(), start=1):
        where = f"the tokens file {path}, entry {number}"
        if not token:
            raise ValueError(f"{where}: the token is empty")
        if not _TOKEN.fullmatch(token):
            raise ValueError(f"{where}: a token is made of the characters A-Z a-z 0-9 - . _ ~ + / "
                             "and may end in = (RFC 6750 section 2.1)")
        if covers == "*":
            tokens[token] = None
            continue
        if not isinstance(covers, list) or not all(isinstance(t, str) for t in covers):
            # Never quote the value: in a file written the wrong way round it is the token.
            raise ValueError(f'{where}: a token maps to a list of tenant names or to "*", not '
                             f"{_json_kind(covers)}")
        if not covers:
            raise ValueError(f'{where}: the token covers no tenant; list its tenants, or "*" for '
                             "every tenant")
        for tenant in covers:
            if not 1 <= len(tenant) <= 256:
                raise ValueError(f"{where}: a tenant name has 1 to 256 code points")
        tokens[token] = frozenset(covers)
    return tokens


class MemoryServer:
    """A gRPC server of memorywire.v1.MemoryService on a store: a
    :class:`~memorywire.service.storage.Storage`, or the text of one for
    :func:`~memorywire.service.storage.open_store` (a SQLite file,
    ``:memory:``, or a ``postgresql://`` URL), which the server then closes.

    ``tls`` turns on TLS, and mutual TLS when it has a ``client_ca``.
    ``tokens`` turns on credentials: it maps each accepted bearer token to
    the tenants it covers (None for every tenant). Tokens travel in the
    clear without TLS, so a server with tokens and without TLS listens on
    loopback or a Unix domain socket only (grpc-binding.md section 3.2),
    unless ``allow_insecure_credentials``.

    Paging cursors of History and Search expire ``page_cursor_ttl`` seconds
    after they are issued (None: never), by ``clock`` (seconds since the
    epoch). ``index_memory_bytes`` bounds the in-memory search indexes of a
    store the server opens itself (None: no bound), and ``ann_threshold``
    is its greatest group of embeddings searched exactly, above which a
    vector search may use the approximate index (None: never); with ``warm``, the
    server loads those of the largest tenants in the background as it
    starts, so that their first searches do not wait for them.

    ``share`` holds the limits that share the server between tenants
    (grpc-binding.md section 7.4): its worker threads, the calls and streams
    of one tenant in progress at once, how long a stream may wait on its
    peer, the size of an Import; without it, the defaults with
    ``max_workers`` workers.

    ``export_signer`` signs the integrity block of every Export
    (operations.md section 17.1); without it, the blocks carry no signature.
    """

    def __init__(self, store: Storage | str = ":memory:", listen: str = DEFAULT_LISTEN, *,
                 max_workers: int = 32, limits: Limits = DEFAULT_LIMITS, strict: bool = False,
                 tokens: Mapping[str, Collection[str] | None] | None = None,
                 tls: Tls | None = None, allow_insecure_credentials: bool = False,
                 page_cursor_ttl: float | None = cursors.DEFAULT_PAGE_TTL,
                 clock: Callable[[], float] = time.time,
                 index_memory_bytes: int | None = DEFAULT_INDEX_MEMORY, warm: bool = True,
                 ann_threshold: int | None = ANN_THRESHOLD,
                 log: TextIO | None = sys.stderr, log_calls: bool = True,
                 share: FairShare | None = None, http: str | None = None,
                 cors_origins: Sequence[str] = (), heartbeat_seconds: float | None = None,
                 export_signer: Signer | None = None) -> None:
        self.share = (share if share is not None else FairShare(max_workers=max_workers)).check()
        #: Accepted tokens by digest, checked before anything is opened.
        self.tokens = _coverage(tokens) if tokens is not None else None
        for address in (listen, *((http,) if http is not None else ())):
            if tokens is not None and tls is None and not allow_insecure_credentials \
                    and not is_local(address):
                raise ValueError(f"bearer tokens without TLS on {address}, which is not a loopback "
                                 "address or a Unix socket: tokens would cross the network in the "
                                 "clear. Give the server TLS (--tls-cert and --tls-key), listen on "
                                 "loopback, or allow it explicitly (--allow-insecure-credentials)")
        self.store = open_store(store, index_memory_bytes=index_memory_bytes, ann_threshold=ann_threshold) \
            if isinstance(store, str) else store
        self._own_store = isinstance(store, str)
        self.listen = listen
        self.service = Service(self.store, limits=limits, strict=strict,
                               page_cursor_ttl=page_cursor_ttl, clock=clock, signer=export_signer)
        self.limits = limits
        self.tls = tls
        self.warm = warm
        self.warming: threading.Thread | None = None
        self.log = _Log(log)
        self.log_calls = log_calls
        self.stopping = threading.Event()
        #: A stream holds a worker for as long as it runs: the calls and
        #: streams of each tenant are counted, and a stalled stream ended.
        self.admission = Admission(self.share)
        self.stalls = StallMonitor(self.share.stream_stall_seconds)
        options = [("grpc.max_receive_message_length", limits.max_document_bytes),
                   ("grpc.max_send_message_length", limits.max_document_bytes),
                   ("grpc.so_reuseport", 0),
                   # Pings find the connections of clients that are gone, whose
                   # idle Watch streams would otherwise hold their workers.
                   ("grpc.keepalive_time_ms", KEEPALIVE_SECONDS * 1000),
                   ("grpc.keepalive_timeout_ms", 20_000)]
        self._server = grpc.server(futures.ThreadPoolExecutor(max_workers=self.share.max_workers,
                                                              thread_name_prefix="memorywire"),
                                   options=options)
        self._health = health.HealthServicer()
        health_pb2_grpc.add_HealthServicer_to_server(self._health, self._server)
        self._server.add_generic_rpc_handlers((self._handler(),))
        names = (SERVICE_NAME, health.SERVICE_NAME, reflection.SERVICE_NAME)
        reflecting = reflection.ReflectionServicer(names)

        def reflection_info(requests: Iterator[Any], context: grpc.ServicerContext) -> Iterator[Any]:
            # A reflection stream acts for no tenant: all of them together
            # are bounded as the streams of one tenant, and one whose client
            # sends nothing more is ended as stalled.
            with self.admission.admit(ANONYMOUS, REFLECTION), \
                    self.stalls.watch(REFLECTION, context, lambda message: None) as waiting:
                yield from reflecting.ServerReflectionInfo(_timed(requests, waiting), context)

        def refused(requests: Iterator[Any], context: grpc.ServicerContext) -> Iterator[Any]:
            try:
                yield from reflection_info(requests, context)
            except ServiceError as e:
                context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, e.message)
            except _Ended:
                context.abort(grpc.StatusCode.UNAVAILABLE, "the stream stalled")

        handler = grpc.stream_stream_rpc_method_handler(
            refused, request_deserializer=reflection_pb2.ServerReflectionRequest.FromString,
            response_serializer=reflection_pb2.ServerReflectionResponse.SerializeToString)
        self._server.add_generic_rpc_handlers(tuple(
            grpc.method_handlers_generic_handler(name, {"ServerReflectionInfo": handler})
            for name in (_REFLECTION_V1, reflection.SERVICE_NAME)))
        self.port = 0
        #: The HTTP binding (spec/v1/http-binding.md), on the same Service,
        #: store, checks and fair share; None without ``http``.
        self.http: HttpBinding | None = None
        if http is not None:
            from memorywire.service.http import DEFAULT_HEARTBEAT_SECONDS, HttpBinding

            self.http = HttpBinding(self, http, cors_origins=cors_origins,
                                    heartbeat_seconds=heartbeat_seconds or DEFAULT_HEARTBEAT_SECONDS)
        self.http_port = 0

    # -- life cycle ---------------------------------------------------------------------

    def start(self) -> int:
        """Bind and start serving; return the port bound."""
        try:
            if self.tls is None:
                self.port = self._server.add_insecure_port(self.listen)
            else:
                self.port = self._server.add_secure_port(self.listen, self.tls.server_credentials())
        except RuntimeError:
            self.port = 0
        if not self.port:
            raise RuntimeError(f"cannot listen on {self.listen}" + (
                "" if self.tls is None else
                " with TLS: the address is in use or not valid, or the TLS certificate chain or "
                "private key is not valid"))
        if self.http is not None:
            self.http_port = self.http.start()
        self._server.start()
        self.stalls.start()
        for name in ("", SERVICE_NAME):
            self._health.set(name, health_pb2.HealthCheckResponse.SERVING)
        host = self.listen.rsplit(":", 1)[0]
        ttl = self.service.paging.ttl
        self.log("info", "listening", address=f"{host}:{self.port}", store=self.store.name,
                 version=memorywire.__version__, tls=self.tls is not None,
                 mutual_tls=self.tls is not None and self.tls.mutual,
                 credentials="bearer tokens" if self.tokens is not None else "none",
                 page_cursor_ttl_s=ttl if ttl is not None else "never",
                 index_memory_bytes=self.store.indexes.limit, ann_threshold=self.store.ann_threshold,
                 max_workers=self.share.max_workers,
                 max_tenant_calls=self.share.tenant_calls,
                 max_tenant_streams=self.share.tenant_streams,
                 stream_stall_s=self.share.stream_stall_seconds,
                 max_import_bytes=self.share.max_import_bytes)
        if self.warm:
            self.warming = threading.Thread(target=self._warm, name="memorywire-warm", daemon=True)
            self.warming.start()
        if self.tokens is not None and self.tls is None and not is_local(self.listen):
            self.log("warning", "insecure_credentials",
                     message="bearer tokens are accepted without TLS on an address that is not "
                             "loopback: they cross the network in the clear")
        return self.port

    def _warm(self) -> None:
        started = time.perf_counter()
        try:
            vectors, texts = self.store.warm(self.stopping.is_set)
        except Exception as e:  # noqa: BLE001 - the first searches load what is missing
            if not self.stopping.is_set():
                self.log("warning", "warm_failed", error=repr(e))
            return
        if vectors or texts:
            self.log("info", "warmed", vector_indexes=vectors, text_indexes=texts,
                     index_memory_bytes=self.store.indexes.total(),
                     duration_ms=round((time.perf_counter() - started) * 1000, 1))

    def stop(self, grace: float = 5.0) -> None:
        """Stop gracefully: report NOT_SERVING, end Watch streams, let the
        calls in flight finish within ``grace`` seconds, close the store."""
        if self.stopping.is_set():
            return
        self.stopping.set()
        self._health.enter_graceful_shutdown()
        with self.store.changed:
            self.store.changed.notify_all()
        if self.http is not None:
            self.http.stop()
        self._server.stop(grace).wait()
        self.stalls.stop()
        if self._own_store:
            self.store.close()
        self.log("info", "stopped")

    def wait(self, timeout: float | None = None) -> bool:
        return bool(self._server.wait_for_termination(timeout))

    def __enter__(self) -> MemoryServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- calls ------------------------------------------------------------------------------

    def _handler(self) -> grpc.GenericRpcHandler:
        """A handler of each operation of the registry, by how it streams."""
        handlers: dict[str, grpc.RpcMethodHandler] = {}
        for op in registry.OPERATIONS:
            if op.streaming is Streaming.UNARY:
                handlers[op.name] = grpc.unary_unary_rpc_method_handler(self._unary(op))
            elif op.streaming is Streaming.SERVER:
                handlers[op.name] = grpc.unary_stream_rpc_method_handler(self._stream(op))
            else:
                handlers[op.name] = grpc.stream_unary_rpc_method_handler(functools.partial(self._upload, op))
        return grpc.method_handlers_generic_handler(SERVICE_NAME, handlers)

    def _metadata(self, method: str, context: grpc.ServicerContext) -> str | None:
        """Steps 1 to 3 of grpc-binding.md section 3.4, and the version hint."""
        return self.check_metadata(method, context.invocation_metadata() or ())

    def check_metadata(self, method: str, md: Sequence[tuple[str, str | bytes]]) -> str | None:
        """The caller's tenant (None for GetCapabilities) from the metadata of
        a call, or the headers of an HTTP request, as ``(key, value)`` pairs
        with keys in lower case: steps 1 to 3 of grpc-binding.md section 3.4,
        and the version hint. Both bindings check callers here."""
        token = None
        if self.tokens is not None:
            auth = [v for k, v in md if k == "authorization"]
            value = auth[0] if len(auth) == 1 and isinstance(auth[0], str) else ""
            # The scheme is case-insensitive (RFC 7235 section 2.1); one space follows it.
            token = value[7:] if value[:7].lower() == "bearer " else None
            # Looked up by digest: no comparison of the secret itself.
            if not token or (digest := _digest(token)) not in self.tokens:
                raise error("CREDENTIALS_INVALID", "the call carries no credentials this service accepts")
        tenant = None
        if method != "GetCapabilities":
            tenant = parse_tenant([v for k, v in md if k == TENANT_KEY and isinstance(v, str)])
            if token is not None and self.tokens is not None:
                covered = self.tokens[digest]
                if covered is not None and tenant not in covered:
                    raise error("TENANT_MISMATCH", "the credentials do not cover the tenant")
        for k, v in md:
            if k == SPECVERSION_KEY and isinstance(v, str) and not v.startswith("1."):
                raise error("UNSUPPORTED_VERSION", "this service speaks memorywire 1.x")
        return tenant

    def _decode(self, method: str, data: bytes) -> tuple[dict[str, Any], list[str]]:
        dec = memorywire.protobuf.Decoder(operations.request_type(method), limits=self.limits)
        if method in operations.BINARY_VECTORS:
            doc, walk = dec.decode_walk_binary_vectors(data)
        else:
            doc, walk = dec.decode_walk(data)
        Service.check_enum_values(operations.request_type(method), walk.unknown)
        return doc, list(walk.unknown)

    def _call(self, tenant: str | None, context: grpc.ServicerContext) -> Call:
        return Call(tenant, lambda: context.is_active() and not self.stopping.is_set())

    def _unary(self, op: Operation) -> Callable[[bytes, grpc.ServicerContext], bytes]:
        method = op.name
        perform: Callable[..., bytes] = getattr(self.service, op.handler)
        # The operations that store records are told the request's unknown
        # fields (versioning.md section 3.5): their handlers take them.
        with_unknown = "unknown" in inspect.signature(perform).parameters

        def handle(request: bytes, context: grpc.ServicerContext) -> bytes:
            started = time.perf_counter()
            context.send_initial_metadata(((SPECVERSION_KEY, operations.SPECVERSION),))
            op_id, tenant = "", None
            try:
                tenant = self._metadata(method, context)
                op_id = _operation_id(method, request)
                with self.admission.admit(tenant, method):
                    req, unknown = self._decode(method, request)
                    call = self._call(tenant, context)
                    data = perform(call, req, unknown) if with_unknown else perform(call, req)
            except MemorywireError as e:
                self._fail(context, method, e, op_id, tenant, started)
                raise AssertionError("unreachable") from None
            except Exception as e:  # noqa: BLE001 - every fault becomes INTERNAL_ERROR
                self._fail(context, method, self._internal(e), op_id, tenant, started)
                raise AssertionError("unreachable") from None
            self._done(method, "OK", op_id, tenant, started)
            return data

        return handle

    def _stream(self, op: Operation) -> Callable[[bytes, grpc.ServicerContext], Iterator[bytes]]:
        method = op.name
        respond: Callable[[Call, dict[str, Any]], Iterator[bytes]] = getattr(self.service, op.handler)

        def handle(request: bytes, context: grpc.ServicerContext) -> Iterator[bytes]:
            started = time.perf_counter()
            op_id, tenant = "", None
            sent = 0
            stalled: list[str] = []
            headers_sent = False
            try:
                tenant = self._metadata(method, context)
                op_id = _operation_id(method, request)
                with self.admission.admit(tenant, method) as release, \
                        self.stalls.watch(method, context, stalled.append) as waiting:
                    # A cancelled stream gives its place back at once, not
                    # when its worker next looks (up to a Watch poll later),
                    # so that a client may open the next stream straight away.
                    context.add_callback(release)
                    req, _ = self._decode(method, request)
                    call = self._call(tenant, context)
                    frames = respond(call, req)
                    # The headers go once the start of the stream is fixed: a
                    # client that has them knows that every later change
                    # reaches it (section 7.1 of the gRPC binding).
                    context.send_initial_metadata(((SPECVERSION_KEY, operations.SPECVERSION),))
                    headers_sent = True
                    for frame in frames:
                        # The worker waits in the gRPC library until the
                        # client takes the message; the monitor ends a
                        # stream that waits too long.
                        waiting.wait()
                        yield frame
                        waiting.done()
                        sent += 1
            except MemorywireError as e:
                if not headers_sent:
                    _send_headers(context)
                self._fail(context, method, e, op_id, tenant, started, sent)
            except Exception as e:  # noqa: BLE001
                if not headers_sent:
                    _send_headers(context)
                self._fail(context, method, self._internal(e), op_id, tenant, started, sent)
            else:
                self._done(method, "OK", op_id, tenant, started, sent)
            finally:
                if stalled:
                    self._stalled(method, stalled[0], op_id, tenant, started, sent)

        return handle

    def _upload(self, op: Operation, requests: Iterator[bytes], context: grpc.ServicerContext) -> bytes:
        method = op.name
        begin: Callable[[Call, int], ImportStream] = getattr(self.service, op.handler)
        started = time.perf_counter()
        context.send_initial_metadata(((SPECVERSION_KEY, operations.SPECVERSION),))
        op_id, tenant = "", None
        stalled: list[str] = []
        terminated = threading.Event()
        context.add_callback(terminated.set)
        try:
            tenant = self._metadata(method, context)
            with self.admission.admit(tenant, method), \
                    self.stalls.watch(method, context, stalled.append) as waiting, \
                    begin(Call(tenant, lambda: context.is_active() and not (
                        self.stopping.is_set() or waiting.ended)), self.share.max_import_bytes) as stream:
                for index, raw in enumerate(_timed(requests, waiting)):
                    if not op_id:
                        op_id = _operation_id(method, raw)
                    # Each message is checked as it arrives, and kept in its
                    # canonical bytes only, within the bytes of an Import.
                    stream.count_bytes(index, len(raw))
                    try:
                        msg, unknown = self._decode(method, raw)
                    except MemorywireError as e:
                        e.message = f"message {index} of the stream: {e.message}"
                        raise
                    stream.add(msg, unknown)
                if terminated.wait(IMPORT_SETTLE_SECONDS) or not context.is_active():
                    raise _Cancelled
                data = stream.commit()
        except MemorywireError as e:
            self._fail(context, method, e, op_id, tenant, started)
            raise AssertionError("unreachable") from None
        except (grpc.RpcError, _Ended, _Cancelled):
            # The client cancelled the call, or the monitor ended it.
            if stalled:
                self._stalled(method, stalled[0], op_id, tenant, started)
            else:
                self._done(method, "CANCELLED", op_id, tenant, started)
            context.abort(grpc.StatusCode.CANCELLED, "the call was cancelled")
        except Exception as e:  # noqa: BLE001
            self._fail(context, method, self._internal(e), op_id, tenant, started)
            raise AssertionError("unreachable") from None
        self._done(method, "OK", op_id, tenant, started)
        return data

    def _stalled(self, method: str, message: str, op_id: str, tenant: str | None, started: float,
                 messages: int | None = None) -> None:
        self.log("warning", "call", method=method, code="UNAVAILABLE", reason="UNAVAILABLE",
                 message=message, tenant=tenant, operation_id=op_id,
                 duration_ms=round((time.perf_counter() - started) * 1000, 3), messages=messages)

    def _internal(self, e: BaseException) -> ServiceError:
        return self.internal_error(e)

    def internal_error(self, e: BaseException) -> ServiceError:
        """The Error of an unexpected fault, logged: a fault of the store
        names the store's problem, any other is INTERNAL_ERROR."""
        found = self.store.failure(e)
        if found is not None:
            self.log("error", "store_error", error=repr(e), message=found.message)
            return found
        self.log("error", "internal_error", error=repr(e), traceback=traceback.format_exc())
        return error("INTERNAL_ERROR", "an internal fault of the service")

    def _done(self, method: str, code: str, op_id: str, tenant: str | None, started: float,
              messages: int | None = None) -> None:
        if self.log_calls:
            self.log("info", "call", method=method, code=code, tenant=tenant, operation_id=op_id,
                     duration_ms=round((time.perf_counter() - started) * 1000, 3), messages=messages)

    def _fail(self, context: grpc.ServicerContext, method: str, e: MemorywireError, op_id: str,
              tenant: str | None, started: float, messages: int | None = None) -> None:
        doc = operations.error_document(e, op_id)
        code = e.code
        if self.log_calls or code == "INTERNAL":
            self.log("warning" if code != "INTERNAL" else "error", "call", method=method, code=code,
                     reason=e.reason, pointer=e.pointer, tenant=tenant, operation_id=op_id,
                     duration_ms=round((time.perf_counter() - started) * 1000, 3), messages=messages)
        try:
            detail = memorywire.protobuf.encode(doc, type="memorywire.v1.Error")
        except MemorywireError:
            doc = {"code": "internal", "reason": "INTERNAL_ERROR", "message": "an internal fault"}
            code = "INTERNAL"
            detail = memorywire.protobuf.encode(doc, type="memorywire.v1.Error")
        number = GRPC_CODES.get(code, 13)
        status = encode_status(number, doc["message"], [(ERROR_TYPE_URL, detail)])
        context.abort_with_status(_Status(grpc.StatusCode[code], doc["message"],
                                          (("grpc-status-details-bin", status),)))


def _send_headers(context: grpc.ServicerContext) -> None:
    """The headers of a call that fails before it sent them; a call the
    client has already cancelled has no one to send them to."""
    try:
        context.send_initial_metadata(((SPECVERSION_KEY, operations.SPECVERSION),))
    except (grpc.RpcError, ValueError):
        pass


class _Ended(Exception):
    """The monitor ended a client stream that stalled."""


class _Cancelled(Exception):
    """The client cancelled a stream that the gRPC library reported as ended."""


def _timed(requests: Iterator[bytes], waiting: Waiting) -> Iterator[bytes]:
    """The messages of a client stream, timed while the server waits for
    each. A stream the monitor ended is not taken for one that the client
    half-closed, which the gRPC library may report it as."""
    while True:
        waiting.wait()
        try:
            raw = next(requests)
        except StopIteration:
            if waiting.ended:
                raise _Ended from None
            return
        finally:
            waiting.done()
        yield raw


def _operation_id(method: str, data: bytes) -> str:
    """The operation identifier of a request, read leniently, for errors."""
    try:
        from memorywire import _model as m

        msg = m.message(operations.request_type(method)).cls.FromString(data)
        value = getattr(msg, "operation_id", "")
        return value if isinstance(value, str) and len(value) <= 256 else ""
    except Exception:  # noqa: BLE001
        return ""


# -- memorywire serve ------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    """``memorywire serve``: run the reference service until SIGTERM or SIGINT.
    Exit status 0 after a stop signal, 1 when the service cannot start (one
    ``start_failed`` log line names the problem), 2 on a usage error, a flag
    out of its bounds included."""
    parser = argparse.ArgumentParser(
        prog="memorywire serve",
        description="Run the memorywire reference memory service (gRPC, and HTTP with --http) on an "
                    "embedded SQLite store, or on a PostgreSQL database that several service processes "
                    "may share.",
        epilog='The tokens file is a JSON object that maps each accepted bearer token to the list of '
               'tenants it covers, or to "*" for every tenant: {"3kq0Rj2vUoWbH8aX": ["acme"], '
               '"Zc1NfLw7pQe4Ty9s": "*"}. Without TLS, tokens are accepted on loopback or a Unix '
               'socket only.')
    parser.add_argument("--listen", default=DEFAULT_LISTEN, metavar="HOST:PORT",
                        help=f"the address to listen on (default {DEFAULT_LISTEN}); port 0 picks a free one")
    parser.add_argument("--http", metavar="HOST:PORT",
                        help="also serve the HTTP binding (POST /memorywire.v1.MemoryService/<Method>, "
                             "Watch and Export as Server-Sent Events) on this address, beside gRPC, "
                             "with the same store, tenants, tokens, TLS and limits")
    parser.add_argument("--cors-origin", action="append", default=[], metavar="ORIGIN",
                        help="let browsers of this origin (https://app.example) call the HTTP binding; "
                             "repeat for several, * for any (default: none)")
    parser.add_argument("--heartbeat", type=float, default=None, metavar="SECONDS",
                        help="the seconds an idle HTTP event stream waits before it sends a heartbeat "
                             "comment, more than 0 and at most 30 (default 15)")
    parser.add_argument("--store", default=DEFAULT_STORE, metavar="FILE|URL",
                        help="the SQLite file of the store, or :memory:, or the postgresql:// (or postgres://) "
                             "URL of a PostgreSQL database, which several service processes may share "
                             f"(needs the postgresql extra) (default {DEFAULT_STORE})")
    share = FairShare()
    parser.add_argument("--max-workers", type=int, default=share.max_workers, metavar="N",
                        help="the greatest number of calls served at once, streams included "
                             f"(default {share.max_workers}); half of them at most serve streams")
    parser.add_argument("--max-tenant-calls", type=int, metavar="N",
                        help="the calls of one tenant in progress at once, streams included, at most "
                             "half of --max-workers (default: half); more are refused with RATE_LIMITED")
    parser.add_argument("--max-tenant-streams", type=int, metavar="N",
                        help="the streams of each kind (Watch, Export, Import) of one tenant open at once "
                             "(default: an eighth of --max-workers)")
    parser.add_argument("--stream-stall-timeout", type=float, default=share.stream_stall_seconds,
                        metavar="SECONDS",
                        help="end a stream whose client takes no message (or, for Import, sends none) "
                             f"for this long, with UNAVAILABLE (default {share.stream_stall_seconds:g})")
    parser.add_argument("--max-import-mib", type=int, default=share.max_import_bytes >> 20, metavar="MIB",
                        help="the bytes of all the messages of one Import, in MiB (default "
                             f"{share.max_import_bytes >> 20})")
    parser.add_argument("--grace", type=float, default=5.0, metavar="SECONDS",
                        help="how long calls in flight may run on after a stop signal, "
                             "{:g} to {:g} (default 5)".format(*GRACE_SECONDS_RANGE))
    parser.add_argument("--quiet", action="store_true", help="log no line per call")
    parser.add_argument("--tls-cert", metavar="FILE",
                        help="the PEM certificate chain of the service: turns on TLS (with --tls-key)")
    parser.add_argument("--tls-key", metavar="FILE", help="the PEM private key of --tls-cert, unencrypted")
    parser.add_argument("--tls-client-ca", metavar="FILE",
                        help="mutual TLS: accept only clients whose certificate one of these PEM CA "
                             "certificates signs (needs --tls-cert and --tls-key)")
    parser.add_argument("--tokens", metavar="FILE",
                        help="require bearer tokens (metadata authorization: Bearer TOKEN), read from "
                             "a JSON file that maps each token to its tenants (see below)")
    parser.add_argument("--allow-insecure-credentials", action="store_true",
                        help="accept --tokens without TLS on an address that is not loopback "
                             "(tokens then cross the network in the clear)")
    parser.add_argument("--cursor-ttl", type=float, default=cursors.DEFAULT_PAGE_TTL, metavar="SECONDS",
                        help="how long the paging cursors of History and Search stay valid, "
                             "{:g} (an hour) to {:g} (30 days)".format(*CURSOR_TTL_RANGE)
                             + f" (default {cursors.DEFAULT_PAGE_TTL}, a day)")
    parser.add_argument("--no-warm", dest="warm", action="store_false",
                        help="do not load the search indexes of the largest tenants as the service starts; "
                             "their first searches load them")
    parser.add_argument("--index-memory", type=int, default=DEFAULT_INDEX_MEMORY >> 20, metavar="MIB",
                        help="the memory the in-memory search indexes may take together, in MiB; the least "
                             "recently used are dropped beyond it, {} to {} (1 TiB)".format(*INDEX_MEMORY_MIB_RANGE)
                             + f" (default {DEFAULT_INDEX_MEMORY >> 20})")
    parser.add_argument("--ann-threshold", type=int, default=ANN_THRESHOLD, metavar="N",
                        help="the greatest number of embeddings of one group (a tenant, a model and its "
                             "dimensions) searched exactly; vector searches of larger groups may use an "
                             "approximate HNSW index (needs the ann extra), {} to {}".format(
                                 *ANN_THRESHOLD_RANGE) + f" (default {ANN_THRESHOLD})")
    parser.add_argument("--export-signing-key", metavar="FILE",
                        help="sign the integrity block of every Export with this Ed25519 private key: "
                             "a PEM (PKCS #8, unencrypted) or raw 32-byte key file (needs the "
                             "cryptography package: the signing extra)")
    args = parser.parse_args(list(argv) if argv is not None else None)
    # A value out of its bounds is a usage error, refused before anything starts.
    try:
        _check_bounds(args)
        _check_ann_threshold(args)
        _check_http(args)
        share = FairShare(max_workers=args.max_workers, max_tenant_calls=args.max_tenant_calls,
                          max_tenant_streams=args.max_tenant_streams,
                          stream_stall_seconds=args.stream_stall_timeout,
                          max_import_bytes=args.max_import_mib * (1 << 20)).check()
    except ValueError as e:
        parser.error(str(e))

    log = _Log(sys.stderr)
    try:
        tls = _tls_of(args)
        tokens = load_tokens(args.tokens) if args.tokens is not None else None
        signer = Signer.from_file(args.export_signing_key) if args.export_signing_key is not None else None
        server = MemoryServer(args.store, args.listen, share=share,
                              tokens=tokens, tls=tls,
                              allow_insecure_credentials=args.allow_insecure_credentials,
                              page_cursor_ttl=args.cursor_ttl, index_memory_bytes=args.index_memory << 20,
                              warm=args.warm, ann_threshold=args.ann_threshold,
                              log_calls=not args.quiet, http=args.http,
                              cors_origins=args.cors_origin, heartbeat_seconds=args.heartbeat,
                              export_signer=signer)
        server.start()
    except Exception as e:  # noqa: BLE001
        log("error", "start_failed", error=str(e))
        return 1
    done = threading.Event()

    def on_signal(signum: int, frame: object) -> None:
        log("info", "signal", signal=signal.Signals(signum).name)
        done.set()

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        while not done.wait(1.0):
            pass
    finally:
        server.stop(args.grace)
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return 0


def _within(value: float, bounds: tuple[float, float]) -> bool:
    return math.isfinite(value) and bounds[0] <= value <= bounds[1]


def _check_bounds(args: argparse.Namespace) -> None:
    """ValueError naming the first flag, other than those of the fair share,
    that is out of its bounds."""
    lo, hi = GRACE_SECONDS_RANGE
    if not _within(args.grace, GRACE_SECONDS_RANGE):
        raise ValueError(f"--grace is {args.grace:g} seconds; give {lo:g} to {hi:g}")
    lo, hi = CURSOR_TTL_RANGE
    if not _within(args.cursor_ttl, CURSOR_TTL_RANGE):
        raise ValueError(f"--cursor-ttl is {args.cursor_ttl:g} seconds; paging cursors stay valid "
                         f"for {lo:g} (an hour) to {hi:g} seconds (30 days)")
    lo_m, hi_m = INDEX_MEMORY_MIB_RANGE
    if not lo_m <= args.index_memory <= hi_m:
        raise ValueError(f"--index-memory is {args.index_memory} MiB; give {lo_m} to {hi_m}")


def _check_ann_threshold(args: argparse.Namespace) -> None:
    """ValueError when --ann-threshold is out of its bounds."""
    lo, hi = ANN_THRESHOLD_RANGE
    if not lo <= args.ann_threshold <= hi:
        raise ValueError(f"--ann-threshold is {args.ann_threshold} embeddings; give {lo} to {hi}")


def _check_http(args: argparse.Namespace) -> None:
    """ValueError naming the first flag of the HTTP binding that is out of
    its bounds, or given without --http."""
    if args.heartbeat is not None and not (math.isfinite(args.heartbeat) and 0 < args.heartbeat <= 30):
        raise ValueError(f"--heartbeat is {args.heartbeat:g} seconds; give more than 0 and at most 30")
    if (args.cors_origin or args.heartbeat is not None) and args.http is None:
        raise ValueError("--cors-origin and --heartbeat are settings of the HTTP binding; give --http too")


def _tls_of(args: argparse.Namespace) -> Tls | None:
    if (args.tls_cert is None) != (args.tls_key is None):
        given, missing = ("--tls-cert", "--tls-key") if args.tls_key is None else ("--tls-key", "--tls-cert")
        raise ValueError(f"{given} needs {missing}: TLS takes a certificate chain and its private key")
    if args.tls_cert is None:
        if args.tls_client_ca is not None:
            raise ValueError("--tls-client-ca (mutual TLS) needs --tls-cert and --tls-key")
        return None
    return Tls.from_files(args.tls_cert, args.tls_key, args.tls_client_ca)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
