"""What ``Client`` and ``AsyncClient`` share: the channel settings, the
metadata, the requests of every operation (built, checked and encoded once),
the decoding of responses, and the ServiceError of a failed call.

Each operation is written once, in :class:`Operations`; it builds a
:class:`Unary`, :class:`Streamed` or :class:`Upload` and hands it to the
transport (``_unary``, ``_watch``, ``_export``, ``_import``), which sends it
on a blocking channel (``Client``) or an asyncio one (``AsyncClient``).
The path, the message types and the streaming of each call are those of
the registry of operations (:mod:`memorywire.service.registry`).
"""

from __future__ import annotations

import functools
import uuid
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

import grpc

import memorywire.protobuf
from memorywire import _model
from memorywire._transport import is_local
from memorywire._version import SPECVERSION
from memorywire.errors import MemorywireError, violation
from memorywire.integrity import ExportDigest
from memorywire.integrity import check as check_integrity
from memorywire.service import registry
from memorywire.service.errors import (
    ERROR_TYPE_URL,
    TRANSPORT_REASONS,
    ServiceError,
    decode_status,
    from_error_document,
)
from memorywire.service.registry import Streaming, operation

SERVICE = registry.SERVICE
MAX_MESSAGE_BYTES = 16 * 1024 * 1024

Doc = dict[str, Any]


def response(data: bytes, method: str) -> Doc:
    """The response document of a call, with each list and map of the
    response itself present: the wire leaves an empty one out (its default),
    and ``mw.search(...)["hits"]`` is then [] rather than a KeyError.
    Documents inside it (records, errors) keep their canonical form."""
    type_name = operation(method).response_type
    doc: Doc = memorywire.protobuf.decode(data, type=type_name)
    for name, is_map in _lists(type_name):
        doc.setdefault(name, {} if is_map else [])
    return doc


@functools.cache
def _lists(type_name: str) -> tuple[tuple[str, bool], ...]:
    """The list and map fields of a message type, each with whether it is a map."""
    return tuple((name, f.is_map) for name, f in _model.message(type_name).fields.items()
                 if f.is_map or f.repeated)


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
    """Channel credentials for TLS, for ``Client(credentials=...)`` and
    ``AsyncClient(credentials=...)``.

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


@dataclass(frozen=True)
class Settings:
    """The channel options and the metadata of every call, for ``target``,
    with the rule on tokens (grpc-binding.md section 3.2) applied."""

    options: tuple[tuple[str, Any], ...]
    metadata: tuple[tuple[str, str], ...]

    @classmethod
    def of(cls, target: str, tenant: str | None, credentials: grpc.ChannelCredentials | None,
           token: str | None, options: Sequence[tuple[str, Any]]) -> Settings:
        if token is not None and credentials is None and not is_local(target):
            raise ValueError(f"a token is sent only over TLS: {target} is not on this machine and "
                             "the channel has no credentials (credentials=tls_credentials(...))")
        opts = (("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
                ("grpc.max_send_message_length", MAX_MESSAGE_BYTES), *options)
        md: list[tuple[str, str]] = []
        if tenant is not None:
            md.append(("memorywire-tenant", _tenant_value(tenant)))
        if token is not None:
            md.append(("authorization", f"Bearer {token}"))
        return cls(opts, tuple(md))


def _nested(record: Mapping[str, Any]) -> Doc:
    """A record document as a request holds it: without the ``specversion``
    of the version this client speaks, which the request carries (a record
    of another version keeps it, and the codec says why it cannot go)."""
    return {k: v for k, v in record.items() if not (k == "specversion" and v == SPECVERSION)}


def envelope(doc: Mapping[str, Any], operation_id: str | None = None) -> Doc:
    """A request: ``specversion``, an operation id (a fresh one unless
    given), and the fields of ``doc`` that are not None."""
    out: Doc = {"specversion": SPECVERSION,
                "operation_id": operation_id or f"op-{uuid.uuid4()}"}
    out.update((k, v) for k, v in doc.items() if v is not None)
    return out


def _streaming(method: str, kind: Streaming) -> None:
    found = operation(method).streaming
    if found is not kind:
        raise ValueError(f"{method} is a {found.value} call, not a {kind.value} one")


@dataclass(frozen=True)
class Unary:
    """A unary call: its method, its request document and its deadline.
    The path and the message types are the registry's."""

    method: str
    request: Mapping[str, Any]
    timeout: float | None

    @property
    def path(self) -> str:
        return operation(self.method).path

    def encode(self) -> bytes:
        """The request, checked and encoded (specversion and operation_id
        filled in when absent)."""
        req = dict(self.request)
        req.setdefault("specversion", SPECVERSION)
        req.setdefault("operation_id", f"op-{uuid.uuid4()}")
        return memorywire.protobuf.encode(req, type=operation(self.method).request_type)

    def decode(self, data: bytes) -> Doc:
        return response(data, self.method)


@dataclass(frozen=True)
class Streamed:
    """A call with a stream of responses (Watch, Export)."""

    method: str
    data: bytes
    timeout: float | None
    #: How an Export's messages are read.
    reader: ExportReader | None = None

    def __post_init__(self) -> None:
        _streaming(self.method, Streaming.SERVER)

    @property
    def path(self) -> str:
        return operation(self.method).path


@dataclass(frozen=True)
class Upload:
    """A call with a stream of requests (Import), already encoded."""

    method: str
    messages: tuple[bytes, ...]
    timeout: float | None

    def __post_init__(self) -> None:
        _streaming(self.method, Streaming.CLIENT)

    @property
    def path(self) -> str:
        return operation(self.method).path

    def decode(self, data: bytes) -> Doc:
        return response(data, self.method)


def watch_event(data: bytes) -> Doc:
    """The ChangeEvent of a WatchResponse message."""
    event: Doc = memorywire.protobuf.decode(data, type=operation("Watch").response_type)["event"]
    return event


class ExportReader:
    """Reads the messages of one Export. Asked for ``integrity``, it keeps
    the digest of the records as they arrive, and :meth:`finish` checks it
    against the block of the last message (operations.md section 17.1),
    with the signature when a public key is given."""

    def __init__(self, integrity: bool = False, public_key: Any = None) -> None:
        self.digest = ExportDigest() if integrity or public_key is not None else None
        self.public_key = public_key
        self.block: Doc | None = None

    def records(self, data: bytes) -> list[Doc]:
        """The records of an ExportResponse message."""
        message = memorywire.protobuf.decode(data, type=operation("Export").response_type)
        records: list[Doc] = message.get("records", [])
        if self.digest is not None:
            if self.block is not None:
                raise violation("DIGEST_MISMATCH", "/integrity",
                                "a message followed the integrity block")
            for record in records:
                self.digest.add(record)
            self.block = message.get("integrity")
        return records

    def finish(self) -> None:
        """Raise the ValidationError of a block that the records read do
        not match, or of a missing one; nothing when integrity was not
        asked for."""
        if self.digest is not None:
            fault = check_integrity(self.block, self.digest, self.public_key)
            if fault is not None:
                raise fault


R = TypeVar("R")  # the result of a unary call: a document, or an awaitable of one
W = TypeVar("W")  # the result of watch(): a stream, or an awaitable of one
E = TypeVar("E")  # the result of export(): an iterator, or an async iterator


class Operations(ABC, Generic[R, W, E]):
    """The operations of the service, each written once; a transport
    subclass sends what they build."""

    timeout: float | None

    def _deadline(self, timeout: float | None) -> float | None:
        return self.timeout if timeout is None else timeout

    # -- what a transport provides: how a call of each kind is sent ----------------------

    @abstractmethod
    def _unary(self, call: Unary) -> R: ...

    @abstractmethod
    def _watch(self, call: Streamed) -> W: ...

    @abstractmethod
    def _export(self, call: Streamed) -> E: ...

    @abstractmethod
    def _import(self, call: Upload) -> R: ...

    # -- the generic call ---------------------------------------------------------------

    @staticmethod
    def _envelope(doc: Mapping[str, Any], operation_id: str | None = None) -> Doc:
        return envelope(doc, operation_id)

    def call(self, method: str, request: Mapping[str, Any], *, timeout: float | None = None) -> R:
        """Call a unary method with a request document (specversion and
        operation_id are filled in when absent); return the response."""
        return self._unary(Unary(method, request, self._deadline(timeout)))

    def _do(self, method: str, operation_id: str | None, timeout: float | None, **fields: Any) -> R:
        return self.call(method, envelope(fields, operation_id), timeout=timeout)

    # -- operations ------------------------------------------------------------------------

    def put(self, records: Mapping[str, Any] | Iterable[Mapping[str, Any]], *,
            scope: Mapping[str, Any] | None = None, atomic: bool | None = None,
            require_approval: bool | None = None, mode: str | None = None,
            expected_revision: int | None = None, operation_id: str | None = None,
            timeout: float | None = None) -> R:
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
            item["record"] = _nested(item["record"])
            if mode is not None:
                item.setdefault("mode", mode)
            if expected_revision is not None:
                item.setdefault("expected_revision", expected_revision)
            items.append(item)
        return self._do("Put", operation_id, timeout, scope=scope, items=items, atomic=atomic,
                        require_approval=require_approval)

    def get(self, ids: str | Iterable[str], *, scope: Mapping[str, Any] | None = None,
            include_deleted: bool | None = None, touch: bool | None = None,
            timeout: float | None = None) -> R:
        """Read records by identifier: ``records`` and ``missing_ids``."""
        ids = [ids] if isinstance(ids, str) else list(ids)
        return self._do("Get", None, timeout, scope=scope, ids=ids, include_deleted=include_deleted,
                        touch=touch)

    def history(self, *, scope: Mapping[str, Any] | None = None, thread: str | None = None,
                agents: Sequence[str] | None = None, kinds: Sequence[str] | None = None,
                cursor: str | None = None, limit: int | None = None, order: str | None = None,
                branch: str | None = None, timeout: float | None = None) -> R:
        """A page of a thread in insertion order, or of the conversation
        branch that ends at the record ``branch``: ``records`` and
        ``next_cursor``."""
        return self._do("History", None, timeout, scope=scope, thread=thread,
                        agents=list(agents) if agents else None, kinds=list(kinds) if kinds else None,
                        cursor=cursor, limit=limit, order=order, branch=branch)

    def search(self, text: str | None = None, *, vector: Mapping[str, Any] | None = None,
               filter: Mapping[str, Any] | None = None, fusion: Mapping[str, Any] | None = None,
               scope: Mapping[str, Any] | None = None, limit: int | None = None,
               cursor: str | None = None, min_score: float | None = None,
               touch: bool | None = None, include_archived: bool | None = None,
               exact: bool | None = None, timeout: float | None = None) -> R:
        """Find records by text, by vector (``{"model": ..., "values": [...]}``),
        or both, within a filter: ``hits`` (record, score, text_score,
        vector_score) best first, and ``next_cursor``; ``approximate`` is true
        when an approximate index ranked the vector candidates, which
        ``exact=True`` forbids."""
        return self._do("Search", None, timeout, scope=scope, filter=filter, text=text,
                        vector=vector, fusion=fusion, limit=limit, cursor=cursor,
                        min_score=min_score, touch=touch, include_archived=include_archived,
                        exact=exact)

    def update(self, id: str, patch: Mapping[str, Any], *, expected_revision: int | None = None,
               scope: Mapping[str, Any] | None = None, operation_id: str | None = None,
               timeout: float | None = None) -> R:
        """Change a record with a JSON Merge Patch; ``record`` is the result."""
        return self._do("Update", operation_id, timeout, scope=scope, id=id, patch=dict(patch),
                        expected_revision=expected_revision)

    def delete(self, ids: str | Iterable[str] | None = None, *, filter: Mapping[str, Any] | None = None,
               mode: str | None = None, reason: str | None = None,
               expected_revision: int | None = None, scope: Mapping[str, Any] | None = None,
               operation_id: str | None = None, timeout: float | None = None) -> R:
        """Delete records by identifier or by filter, softly (tombstones) or
        hard (``mode="hard"``): ``deleted_ids``."""
        if isinstance(ids, str):
            ids = [ids]
        return self._do("Delete", operation_id, timeout, scope=scope,
                        ids=list(ids) if ids is not None else None, filter=filter, mode=mode,
                        reason=reason, expected_revision=expected_revision)

    def expire(self, policy: Mapping[str, Any], action: str, *, dry_run: bool | None = None,
               as_of: str | None = None, scope: Mapping[str, Any] | None = None,
               operation_id: str | None = None, timeout: float | None = None) -> R:
        """Apply a forgetting policy (archive, delete or demote): ``expired_ids``."""
        return self._do("Expire", operation_id, timeout, scope=scope, policy=dict(policy),
                        action=action, dry_run=dry_run, as_of=as_of)

    def merge(self, target_id: str, source_ids: Iterable[str], *, strategy: str | None = None,
              expected_revision: int | None = None, scope: Mapping[str, Any] | None = None,
              operation_id: str | None = None, timeout: float | None = None) -> R:
        """Fold duplicates into a target: ``record`` and ``superseded_ids``."""
        return self._do("Merge", operation_id, timeout, scope=scope, target_id=target_id,
                        source_ids=list(source_ids), strategy=strategy,
                        expected_revision=expected_revision)

    def compact(self, ids: Iterable[str], summary: Mapping[str, Any], *,
                disposition: str | None = None, scope: Mapping[str, Any] | None = None,
                operation_id: str | None = None, timeout: float | None = None) -> R:
        """Replace records with a summary record: ``summary`` and ``compacted_ids``."""
        return self._do("Compact", operation_id, timeout, scope=scope, ids=list(ids),
                        summary=dict(summary), disposition=disposition)

    def review(self, id: str, decision: str, *, patch: Mapping[str, Any] | None = None,
               reviewer: str | None = None, reason: str | None = None,
               scope: Mapping[str, Any] | None = None, operation_id: str | None = None,
               timeout: float | None = None) -> R:
        """Approve, reject or amend a staged record: ``record``."""
        return self._do("Review", operation_id, timeout, scope=scope, id=id, decision=decision,
                        patch=dict(patch) if patch is not None else None, reviewer=reviewer,
                        reason=reason)

    def erase(self, scope: Mapping[str, Any] | None = None, *, filter: Mapping[str, Any] | None = None,
              operation_id: str | None = None, timeout: float | None = None) -> R:
        """Remove every record of a subject (a scope such as ``{"user":
        "u-7"}``, a filter, or both) with every trace the store keeps of it:
        ``receipt``."""
        return self._do("Erase", operation_id, timeout, scope=scope, filter=filter)

    def watch(self, *, cursor: str | None = None, consumer: str | None = None,
              filter: Mapping[str, Any] | None = None, from_start: bool | None = None,
              max_events: int | None = None, scope: Mapping[str, Any] | None = None,
              timeout: float | None = None) -> W:
        """Stream changes: after ``cursor``, else after the consumer's
        committed offset, else from the first kept change with
        ``from_start``, else from now. Returns once the service has fixed
        the start, so that every change made afterwards is delivered. No
        deadline unless ``timeout``."""
        req = envelope({"scope": scope, "cursor": cursor, "consumer": consumer,
                        "filter": filter, "from_start": from_start, "max_events": max_events})
        data = memorywire.protobuf.encode(req, type=operation("Watch").request_type)
        return self._watch(Streamed("Watch", data, timeout))

    def commit_offset(self, consumer: str, cursor: str, *, operation_id: str | None = None,
                      timeout: float | None = None) -> R:
        """Store how far a consumer has read: ``cursor``."""
        return self._do("CommitOffset", operation_id, timeout, consumer=consumer, cursor=cursor)

    def export(self, *, scope: Mapping[str, Any] | None = None, include_deleted: bool | None = None,
               filter: Mapping[str, Any] | None = None, integrity: bool | None = None,
               public_key: str | Path | Any | None = None, timeout: float | None = None) -> E:
        """Every record of a scope, in insertion order. With ``integrity``
        the records are checked against the integrity block the service
        sends last: when the stream ends, a ValidationError with
        DIGEST_MISMATCH (or REQUIRED_FIELD_MISSING when no block came) is
        raised instead of the end. A ``public_key`` (an Ed25519 public key,
        or the path of its PEM file; the ``signing`` extra) also checks the
        block's signature, and implies ``integrity``."""
        if isinstance(public_key, (str, Path)):
            from memorywire import signing

            public_key = signing.load_public_key(public_key)
        reader = ExportReader(bool(integrity), public_key)
        req = envelope({"scope": scope, "include_deleted": include_deleted, "filter": filter,
                        "integrity": True if reader.digest is not None else None})
        data = memorywire.protobuf.encode(req, type=operation("Export").request_type)
        return self._export(Streamed("Export", data, self._deadline(timeout), reader))

    def import_(self, records: Iterable[Mapping[str, Any]], *, scope: Mapping[str, Any] | None = None,
                mode: str | None = None, conflict: str | None = None, deduplicate: bool | None = None,
                dry_run: bool | None = None, batch_size: int = 1000, operation_id: str | None = None,
                timeout: float | None = None) -> R:
        """Write records into a scope as one atomic Import, in messages of
        ``batch_size`` records; ``mode="replace"`` makes it a snapshot of
        the scope; ``conflict`` (overwrite, skip, new_id, merge) says what
        happens to a record whose id or key is held, ``deduplicate`` leaves
        out records whose content the scope holds, ``dry_run`` writes
        nothing. Returns ``imported`` and the counts of each outcome. A
        record's own ``specversion`` is left to the request, as in ``put``."""
        head = envelope({"scope": scope, "mode": mode, "conflict": conflict, "deduplicate": deduplicate,
                         "dry_run": dry_run}, operation_id)
        request_type = operation("Import").request_type
        messages: list[bytes] = []
        batch: list[Doc] = []
        for x in records:
            batch.append(_nested(x))
            if len(batch) >= batch_size:
                messages.append(memorywire.protobuf.encode(dict(head, records=batch), type=request_type))
                batch = []
        if batch or not messages:
            messages.append(memorywire.protobuf.encode(dict(head, records=batch) if batch else head,
                                                       type=request_type))
        return self._import(Upload("Import", tuple(messages), self._deadline(timeout)))

    def capabilities(self, *, timeout: float | None = None) -> R:
        """What the service supports: versions, operations, features, limits."""
        return self.call("GetCapabilities", {}, timeout=timeout)
