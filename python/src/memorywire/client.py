"""A client of ``memorywire.v1.MemoryService`` (spec/v1/grpc-binding.md).

Every method takes and returns documents in their JSON form (dicts, as
:mod:`memorywire.json` reads them), fills in ``specversion`` and a fresh
``operation_id`` (a UUID) unless one is given, checks the request with the
codec before it is sent, and raises a :class:`memorywire.MemorywireError`:
the codec's ValidationError for a request that breaks a rule, and
:class:`ServiceError` (``.code``, ``.reason``, ``.pointer``, ``.violations``)
for every failure the service reports, built from the ``Error`` in the
status details.

Example::

    from memorywire.client import Client

    with Client("127.0.0.1:50051", tenant="acme") as mw:
        mw.put([
            {"id": "f1", "kind": "fact", "fact": {"text": "The user prefers window seats."},
             "embeddings": [{"model": "demo", "dimensions": 3, "values": [0.9, 0.1, 0.0]}]},
            {"id": "f2", "kind": "fact", "fact": {"text": "The user is vegetarian."},
             "embeddings": [{"model": "demo", "dimensions": 3, "values": [0.0, 0.2, 0.9]}]},
        ], scope={"user": "u-42"})

        by_text = mw.search("window seat", scope={"user": "u-42"})["hits"]
        by_vector = mw.search(vector={"model": "demo", "values": [0.0, 0.1, 1.0]}, limit=1)["hits"]

        stream = mw.watch(from_start=True)          # every change, as it happens
        first = next(stream)
        stream.cancel()                             # a disconnect ...
        for event in mw.watch(cursor=first["cursor"], max_events=1):
            print(event["type"], event["record"]["id"])   # ... resumed: f2, nothing repeated

Over TLS, with a bearer token (grpc-binding.md section 3.2)::

    from memorywire.client import Client, tls_credentials

    with Client("memory.example.com:443", tenant="acme", token=token,
                credentials=tls_credentials(ca="ca.pem")) as mw:
        ...

``tls_credentials(ca, cert, key)`` trusts the CA certificates of ``ca``
(the system's roots without it) and, for mutual TLS, presents the client
certificate ``cert`` with its key ``key``. A token is sent only over TLS,
or over a plain channel to loopback or a Unix domain socket.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import memorywire._extras

try:
    import grpc
except ImportError as _missing:  # a plain install: the codec and the CLI only
    raise ImportError(memorywire._extras.install_hint("memorywire.client", "service"),
                      name=_missing.name) from _missing

import memorywire.protobuf
from memorywire._transport import is_local
from memorywire._version import SPECVERSION
from memorywire.errors import MemorywireError
from memorywire.service.errors import (
    ERROR_TYPE_URL,
    TRANSPORT_REASONS,
    ServiceError,
    decode_status,
    from_error_document,
)

__all__ = ["Client", "ServiceError", "WatchStream", "tls_credentials"]

SERVICE = "memorywire.v1.MemoryService"
MAX_MESSAGE_BYTES = 16 * 1024 * 1024

Doc = dict[str, Any]


def _tenant_value(tenant: str) -> str:
    return "".join(chr(b) if 0x21 <= b <= 0x7E and b != 0x25 else f"%{b:02X}"
                   for b in tenant.encode("utf-8"))


def _pem(source: str | Path | bytes | None, what: str) -> bytes | None:
    """PEM bytes as they are, or the bytes of a file (a str or Path)."""
    if source is None or isinstance(source, bytes):
        return source
    try:
        return Path(source).read_bytes()
    except OSError as e:
        raise ValueError(f"cannot read the {what} {source}: {e.strerror or e}") from None


def tls_credentials(ca: str | Path | bytes | None = None, cert: str | Path | bytes | None = None,
                    key: str | Path | bytes | None = None) -> grpc.ChannelCredentials:
    """Channel credentials for TLS, for ``Client(credentials=...)``.

    ``ca``: the PEM certificates of the authorities that sign the service's
    certificate; without it, the system's root certificates. ``cert`` and
    ``key``: for mutual TLS, the client's PEM certificate chain and its
    unencrypted private key (both or neither). Each is PEM bytes, or the
    path of a PEM file (a str or Path). ValueError for an unreadable file or
    a certificate without its key."""
    if (cert is None) != (key is None):
        raise ValueError("a client certificate needs its private key, and a key its certificate")
    return grpc.ssl_channel_credentials(root_certificates=_pem(ca, "CA certificates"),
                                        private_key=_pem(key, "private key"),
                                        certificate_chain=_pem(cert, "certificate chain"))


def service_error(e: grpc.RpcError) -> ServiceError:
    """The ServiceError of a failed call: the Error of its status details,
    or, for a status without one, its code and the reason of the transport."""
    code = e.code() if hasattr(e, "code") else grpc.StatusCode.UNKNOWN
    name = code.name if code is not None else "UNKNOWN"
    details = e.details() if hasattr(e, "details") else ""
    for key, value in (e.trailing_metadata() or ()) if hasattr(e, "trailing_metadata") else ():
        if key != "grpc-status-details-bin" or not isinstance(value, bytes):
            continue
        try:
            _, _, anys = decode_status(value)
        except ValueError:
            break
        for type_url, payload in anys:
            if type_url == ERROR_TYPE_URL:
                found: Doc | None
                try:
                    found = memorywire.protobuf.decode(payload, type="memorywire.v1.Error")
                except MemorywireError:
                    found = _lenient_error(payload)
                if found is not None:
                    return from_error_document(found)
    reason = TRANSPORT_REASONS.get(name, name)
    return ServiceError(reason, details or name, [], name)


def _lenient_error(payload: bytes) -> Doc | None:
    """An Error of a newer minor version: read what this version knows."""
    from memorywire import _codec
    from memorywire import _model as m

    try:
        info = m.message("memorywire.v1.Error")
        msg = info.cls.FromString(payload)
        msg.DiscardUnknownFields()
        return dict(_codec.from_proto(msg, info))
    except Exception:  # noqa: BLE001
        return None


class WatchStream:
    """The events of a Watch as they arrive: iterate it for ChangeEvent
    documents (``cursor``, ``type``, ``record``); ``cursor`` is the cursor of
    the last event received, to resume from; ``cancel()`` ends the stream."""

    def __init__(self, call: Any) -> None:
        self._call = call
        self.cursor: str | None = None
        self._cancelled = False

    def __iter__(self) -> Iterator[Doc]:
        return self

    def __next__(self) -> Doc:
        try:
            data = next(self._call)
        except grpc.RpcError as e:
            if self._cancelled and e.code() == grpc.StatusCode.CANCELLED:
                raise StopIteration from None
            raise service_error(e) from None
        event: Doc = memorywire.protobuf.decode(data, type="memorywire.v1.WatchResponse")["event"]
        self.cursor = event["cursor"]
        return event

    def cancel(self) -> None:
        self._cancelled = True
        self._call.cancel()

    def __enter__(self) -> WatchStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.cancel()


class Client:
    """A client of a memorywire service at ``target`` (``"host:port"``),
    acting for ``tenant``. ``credentials`` are gRPC channel credentials,
    such as :func:`tls_credentials`; without them the channel is plain, for
    loopback. ``token`` is sent as ``authorization: Bearer <token>``, and
    only over TLS or to a target on this machine (loopback or a Unix domain
    socket): a token with a plain channel to any other target is a
    ValueError (grpc-binding.md section 3.2). ``timeout`` is the deadline of
    every call but Watch, in seconds."""

    def __init__(self, target: str, *, tenant: str | None = None,
                 credentials: grpc.ChannelCredentials | None = None, token: str | None = None,
                 timeout: float | None = 60.0, options: Sequence[tuple[str, Any]] = ()) -> None:
        if token is not None and credentials is None and not is_local(target):
            raise ValueError(f"a token is sent only over TLS: {target} is not on this machine and "
                             "the channel has no credentials (credentials=tls_credentials(...))")
        opts = [("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
                ("grpc.max_send_message_length", MAX_MESSAGE_BYTES), *options]
        if credentials is not None:
            self.channel = grpc.secure_channel(target, credentials, opts)
        else:
            self.channel = grpc.insecure_channel(target, opts)
        self.tenant = tenant
        self.timeout = timeout
        md: list[tuple[str, str]] = []
        if tenant is not None:
            md.append(("memorywire-tenant", _tenant_value(tenant)))
        if token is not None:
            md.append(("authorization", f"Bearer {token}"))
        self.metadata = tuple(md)
        self._unary: dict[str, Any] = {}

    def close(self) -> None:
        self.channel.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the generic call ---------------------------------------------------------------

    @staticmethod
    def _envelope(doc: Mapping[str, Any], operation_id: str | None = None) -> Doc:
        out: Doc = {"specversion": SPECVERSION,
                    "operation_id": operation_id or f"op-{uuid.uuid4()}"}
        out.update((k, v) for k, v in doc.items() if v is not None)
        return out

    def call(self, method: str, request: Mapping[str, Any], *, timeout: float | None = None) -> Doc:
        """Call a unary method with a request document (specversion and
        operation_id are filled in when absent); return the response."""
        req = dict(request)
        req.setdefault("specversion", SPECVERSION)
        req.setdefault("operation_id", f"op-{uuid.uuid4()}")
        data = memorywire.protobuf.encode(req, type=f"memorywire.v1.{method}Request")
        stub = self._unary.get(method)
        if stub is None:
            stub = self._unary[method] = self.channel.unary_unary(f"/{SERVICE}/{method}")
        try:
            out = stub(data, metadata=self.metadata,
                       timeout=self.timeout if timeout is None else timeout)
        except grpc.RpcError as e:
            raise service_error(e) from None
        return memorywire.protobuf.decode(out, type=f"memorywire.v1.{method}Response")

    def _do(self, method: str, operation_id: str | None, timeout: float | None, **fields: Any) -> Doc:
        return self.call(method, self._envelope(fields, operation_id), timeout=timeout)

    # -- operations ------------------------------------------------------------------------

    def put(self, records: Mapping[str, Any] | Iterable[Mapping[str, Any]], *,
            scope: Mapping[str, Any] | None = None, atomic: bool | None = None,
            require_approval: bool | None = None, mode: str | None = None,
            expected_revision: int | None = None, operation_id: str | None = None,
            timeout: float | None = None) -> Doc:
        """Create or replace records: one record, or a list of records or of
        PutItem documents (``{"record": ..., "expected_revision": ...}``).
        ``mode`` and ``expected_revision`` apply to the items that do not say.
        A record document's own ``specversion`` (as ``memorywire.json.decode``
        and the adapters give it) is left to the request, which carries it."""
        if isinstance(records, Mapping):
            records = [records]
        items = []
        for x in records:
            item: Doc = dict(x) if "record" in x else {"record": dict(x)}
            if item["record"].get("specversion") == SPECVERSION:
                item["record"] = {k: v for k, v in item["record"].items() if k != "specversion"}
            if mode is not None:
                item.setdefault("mode", mode)
            if expected_revision is not None:
                item.setdefault("expected_revision", expected_revision)
            items.append(item)
        return self._do("Put", operation_id, timeout, scope=scope, items=items, atomic=atomic,
                        require_approval=require_approval)

    def get(self, ids: str | Iterable[str], *, scope: Mapping[str, Any] | None = None,
            include_deleted: bool | None = None, touch: bool | None = None,
            timeout: float | None = None) -> Doc:
        """Read records by identifier: ``records`` and ``missing_ids``."""
        ids = [ids] if isinstance(ids, str) else list(ids)
        return self._do("Get", None, timeout, scope=scope, ids=ids, include_deleted=include_deleted,
                        touch=touch)

    def history(self, *, scope: Mapping[str, Any] | None = None, thread: str | None = None,
                agents: Sequence[str] | None = None, kinds: Sequence[str] | None = None,
                cursor: str | None = None, limit: int | None = None, order: str | None = None,
                timeout: float | None = None) -> Doc:
        """A page of a thread in insertion order: ``records`` and ``next_cursor``."""
        return self._do("History", None, timeout, scope=scope, thread=thread,
                        agents=list(agents) if agents else None, kinds=list(kinds) if kinds else None,
                        cursor=cursor, limit=limit, order=order)

    def search(self, text: str | None = None, *, vector: Mapping[str, Any] | None = None,
               filter: Mapping[str, Any] | None = None, fusion: Mapping[str, Any] | None = None,
               scope: Mapping[str, Any] | None = None, limit: int | None = None,
               cursor: str | None = None, min_score: float | None = None,
               touch: bool | None = None, include_archived: bool | None = None,
               timeout: float | None = None) -> Doc:
        """Find records by text, by vector (``{"model": ..., "values": [...]}``),
        or both, within a filter: ``hits`` (record, score, text_score,
        vector_score) best first, and ``next_cursor``."""
        return self._do("Search", None, timeout, scope=scope, filter=filter, text=text,
                        vector=vector, fusion=fusion, limit=limit, cursor=cursor,
                        min_score=min_score, touch=touch, include_archived=include_archived)

    def update(self, id: str, patch: Mapping[str, Any], *, expected_revision: int | None = None,
               scope: Mapping[str, Any] | None = None, operation_id: str | None = None,
               timeout: float | None = None) -> Doc:
        """Change a record with a JSON Merge Patch; ``record`` is the result."""
        return self._do("Update", operation_id, timeout, scope=scope, id=id, patch=dict(patch),
                        expected_revision=expected_revision)

    def delete(self, ids: str | Iterable[str] | None = None, *, filter: Mapping[str, Any] | None = None,
               mode: str | None = None, reason: str | None = None,
               expected_revision: int | None = None, scope: Mapping[str, Any] | None = None,
               operation_id: str | None = None, timeout: float | None = None) -> Doc:
        """Delete records by identifier or by filter, softly (tombstones) or
        hard (``mode="hard"``): ``deleted_ids``."""
        if isinstance(ids, str):
            ids = [ids]
        return self._do("Delete", operation_id, timeout, scope=scope,
                        ids=list(ids) if ids is not None else None, filter=filter, mode=mode,
                        reason=reason, expected_revision=expected_revision)

    def expire(self, policy: Mapping[str, Any], action: str, *, dry_run: bool | None = None,
               as_of: str | None = None, scope: Mapping[str, Any] | None = None,
               operation_id: str | None = None, timeout: float | None = None) -> Doc:
        """Apply a forgetting policy (archive, delete or demote): ``expired_ids``."""
        return self._do("Expire", operation_id, timeout, scope=scope, policy=dict(policy),
                        action=action, dry_run=dry_run, as_of=as_of)

    def merge(self, target_id: str, source_ids: Iterable[str], *, strategy: str | None = None,
              expected_revision: int | None = None, scope: Mapping[str, Any] | None = None,
              operation_id: str | None = None, timeout: float | None = None) -> Doc:
        """Fold duplicates into a target: ``record`` and ``superseded_ids``."""
        return self._do("Merge", operation_id, timeout, scope=scope, target_id=target_id,
                        source_ids=list(source_ids), strategy=strategy,
                        expected_revision=expected_revision)

    def compact(self, ids: Iterable[str], summary: Mapping[str, Any], *,
                disposition: str | None = None, scope: Mapping[str, Any] | None = None,
                operation_id: str | None = None, timeout: float | None = None) -> Doc:
        """Replace records with a summary record: ``summary`` and ``compacted_ids``."""
        return self._do("Compact", operation_id, timeout, scope=scope, ids=list(ids),
                        summary=dict(summary), disposition=disposition)

    def review(self, id: str, decision: str, *, patch: Mapping[str, Any] | None = None,
               reviewer: str | None = None, reason: str | None = None,
               scope: Mapping[str, Any] | None = None, operation_id: str | None = None,
               timeout: float | None = None) -> Doc:
        """Approve, reject or amend a staged record: ``record``."""
        return self._do("Review", operation_id, timeout, scope=scope, id=id, decision=decision,
                        patch=dict(patch) if patch is not None else None, reviewer=reviewer,
                        reason=reason)

    def watch(self, *, cursor: str | None = None, consumer: str | None = None,
              filter: Mapping[str, Any] | None = None, from_start: bool | None = None,
              max_events: int | None = None, scope: Mapping[str, Any] | None = None,
              timeout: float | None = None) -> WatchStream:
        """Stream changes: after ``cursor``, else after the consumer's
        committed offset, else from the first kept change with
        ``from_start``, else from now. Returns once the service has fixed
        the start, so that every change made afterwards is delivered. No
        deadline unless ``timeout``."""
        req = self._envelope({"scope": scope, "cursor": cursor, "consumer": consumer,
                              "filter": filter, "from_start": from_start, "max_events": max_events})
        data = memorywire.protobuf.encode(req, type="memorywire.v1.WatchRequest")
        call = self.channel.unary_stream(f"/{SERVICE}/Watch")(data, metadata=self.metadata,
                                                              timeout=timeout)
        # The service sends its headers once the start is fixed: waiting for
        # them makes "from now" include every change made after this returns.
        call.initial_metadata()
        return WatchStream(call)

    def commit_offset(self, consumer: str, cursor: str, *, operation_id: str | None = None,
                      timeout: float | None = None) -> Doc:
        """Store how far a consumer has read: ``cursor``."""
        return self._do("CommitOffset", operation_id, timeout, consumer=consumer, cursor=cursor)

    def export(self, *, scope: Mapping[str, Any] | None = None, include_deleted: bool | None = None,
               filter: Mapping[str, Any] | None = None, timeout: float | None = None) -> Iterator[Doc]:
        """Every record of a scope, in insertion order."""
        req = self._envelope({"scope": scope, "include_deleted": include_deleted, "filter": filter})
        data = memorywire.protobuf.encode(req, type="memorywire.v1.ExportRequest")
        stream = self.channel.unary_stream(f"/{SERVICE}/Export")(
            data, metadata=self.metadata, timeout=self.timeout if timeout is None else timeout)

        def records() -> Iterator[Doc]:
            try:
                for message in stream:
                    doc = memorywire.protobuf.decode(message, type="memorywire.v1.ExportResponse")
                    yield from doc.get("records", ())
            except grpc.RpcError as e:
                raise service_error(e) from None

        return records()

    def import_(self, records: Iterable[Mapping[str, Any]], *, scope: Mapping[str, Any] | None = None,
                mode: str | None = None, batch_size: int = 1000, operation_id: str | None = None,
                timeout: float | None = None) -> Doc:
        """Write records into a scope as one atomic Import, in messages of
        ``batch_size`` records; ``mode="replace"`` makes it a snapshot of
        the scope. Returns ``imported``."""
        head = self._envelope({"scope": scope, "mode": mode}, operation_id)
        messages: list[bytes] = []
        batch: list[Doc] = []
        for x in records:
            batch.append(dict(x))
            if len(batch) >= batch_size:
                messages.append(memorywire.protobuf.encode(dict(head, records=batch),
                                                           type="memorywire.v1.ImportRequest"))
                batch = []
        if batch or not messages:
            messages.append(memorywire.protobuf.encode(dict(head, records=batch) if batch else head,
                                                       type="memorywire.v1.ImportRequest"))
        try:
            out = self.channel.stream_unary(f"/{SERVICE}/Import")(
                iter(messages), metadata=self.metadata,
                timeout=self.timeout if timeout is None else timeout)
        except grpc.RpcError as e:
            raise service_error(e) from None
        return memorywire.protobuf.decode(out, type="memorywire.v1.ImportResponse")

    def capabilities(self, *, timeout: float | None = None) -> Doc:
        """What the service supports: versions, operations, features, limits."""
        return self.call("GetCapabilities", {}, timeout=timeout)
