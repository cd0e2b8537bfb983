"""Export and Import (operations.md section 17)."""

from __future__ import annotations

import hashlib
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import memorywire
import memorywire.protobuf
from memorywire import _codec
from memorywire import _model as m
from memorywire._compiled import varint
from memorywire.service import records as r
from memorywire.service.context import Call
from memorywire.service.errors import ServiceError, error
from memorywire.service.operations.common import Base, request_type, response_type
from memorywire.service.storage import Row, Selection, TenantState, Transaction

#: The greatest number of records one Import stream may carry.
MAX_IMPORT_RECORDS = 1_000_000
#: The bytes of the records of one Export message, unless one record alone
#: is larger: a stream's message in flight stays small.
EXPORT_BATCH_BYTES = 1 << 20
#: The bytes of an Import that stay in memory until the stream ends; the
#: rest goes to a temporary file.
IMPORT_SPOOL_BYTES = 8 << 20


class ExportAndImport(Base):
    """The operations of this chapter; the registry names their handlers, ``export`` and ``import_stream``."""

    def export(self, call: Call, req: Mapping[str, Any]) -> Iterator[bytes]:
        assert call.tenant is not None
        pred = self.compile_filter(req)
        self.check_tenant(call.tenant, req)
        num = self.store.tenant_num(call.tenant)
        record_enc = memorywire.protobuf.Encoder(r.RECORD_TYPE)
        head = self.encode(response_type("Export"), self.envelope(req))
        batch_limit = min(1000, self.limits.max_batch_records)
        size_limit = min(self.limits.max_document_bytes, len(head) + EXPORT_BATCH_BYTES)

        def rows() -> Iterator[Row]:
            if num is None:
                return
            yield from self.store.scan(num, Selection.of(req.get("scope"), not_statuses=(
                () if req.get("include_deleted") else ("deleted", "rejected"))))

        def present(parts: list[tuple[int, bytes]]) -> Iterator[bytes]:
            """The records of a batch that the store still holds, read again
            as the batch leaves: an erasure that commits while the export
            runs takes its records out of the batches still to come
            (section 19). A record removed since the snapshot did not exist
            for the whole export, so leaving it out keeps section 17.1."""
            assert num is not None
            with self.store.reader() as reads:
                held = reads.sequences(num, Selection(), [rid for rid, _ in parts])
            return (field for rid, field in parts if rid in held)

        def frames() -> Iterator[bytes]:
            parts: list[tuple[int, bytes]] = []
            size = len(head)
            for n, row in enumerate(rows()):
                if n % 256 == 0 and not call.is_active():
                    return
                if pred is not None and not pred(row.doc):
                    continue
                body = record_enc.encode_valid(row.doc)
                field = b"\x1a" + varint(len(body)) + body
                if parts and (len(parts) >= batch_limit or size + len(field) > size_limit):
                    batch = b"".join(present(parts))
                    if batch:
                        yield head + batch
                    parts, size = [], len(head)
                parts.append((row.rid, field))
                size += len(field)
            if parts:
                batch = b"".join(present(parts))
                if batch:
                    yield head + batch

        return frames()

    def import_stream(self, call: Call, max_bytes: int) -> ImportStream:
        """An Import, to which the binding hands the messages of the stream
        as they arrive (at most ``max_bytes`` of them in all)."""
        return ImportStream(self, call, max_bytes)


class ImportStream:
    """One Import, message by message as they arrive (operations.md section
    17.2): each is checked when it comes, and kept as its canonical bytes, in
    memory up to ``IMPORT_SPOOL_BYTES`` and in a temporary file beyond, so
    that an Import of any size takes bounded memory; the records are written
    in one transaction by ``commit``, when the stream has ended. Past
    ``max_bytes`` of messages, or ``MAX_IMPORT_RECORDS`` records, the Import
    fails at once."""

    def __init__(self, service: Base, call: Call, max_bytes: int) -> None:
        assert call.tenant is not None
        self.service = service
        self.call = call
        self.max_bytes = max_bytes
        self.first: Mapping[str, Any] | None = None
        self.messages = 0
        self.records = 0
        self.bytes = 0
        self._digest = hashlib.sha256(b"Import\x00")
        self._spool = tempfile.SpooledTemporaryFile(max_size=IMPORT_SPOOL_BYTES, prefix="memorywire-import-")

    def __enter__(self) -> ImportStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self._spool.close()

    def count_bytes(self, index: int, size: int) -> None:
        """Count the bytes of the next message before it is read."""
        self.bytes += size
        if self.bytes > self.max_bytes:
            raise error("DOCUMENT_TOO_LARGE", f"message {index} of the stream: an Import carries at "
                        f"most {self.max_bytes} bytes in all its messages; split it into several "
                        "Imports")

    def add(self, msg: Mapping[str, Any], unknown: Sequence[str]) -> None:
        """The next message, read and checked by the codec."""
        index = self.messages
        tenant = self.call.tenant
        assert tenant is not None
        if self.first is None:
            self.first = msg
        first = self.first
        try:
            for name in ("specversion", "operation_id", "scope", "mode"):
                if msg.get(name) != first.get(name):
                    raise error("IMMUTABLE_FIELD", f"{name} differs from the first message's", f"/{name}")
            recs = msg.get("records", ())
            self.records += len(recs)
            if self.records > MAX_IMPORT_RECORDS:
                raise error("TOO_MANY_ITEMS", f"an Import carries at most {MAX_IMPORT_RECORDS} "
                            "records", "/records")
            self.service.check_representable(unknown, [f"/records/{i}" for i in range(len(recs))])
            self.service.check_tenant(tenant, msg, ((f"/records/{i}", x) for i, x in enumerate(recs)))
        except ServiceError as e:
            e.message = f"message {index} of the stream: {e.message}"
            raise
        canonical = self.service.canonical_request("Import", msg)
        framed = len(canonical).to_bytes(8, "big") + canonical
        self._digest.update(framed)
        self._spool.write(framed)
        self.messages += 1

    def _kept(self) -> Iterator[dict[str, Any]]:
        """The messages again, from their canonical bytes (read and checked
        once already)."""
        info = m.message(request_type("Import"))
        self._spool.seek(0)
        while head := self._spool.read(8):
            data = self._spool.read(int.from_bytes(head, "big"))
            yield _codec.from_proto(info.cls.FromString(data), info)

    def commit(self) -> bytes:
        """Write the records of the Import, in one transaction; the response."""
        if self.first is None:
            raise error("REQUIRED_FIELD_MISSING", "an Import stream carries at least one message")
        first = self.first
        replace = first.get("mode") == "replace"
        scope = first.get("scope")
        svc = self.service

        def perform(tx: Transaction, t: TenantState) -> dict[str, Any]:
            now = r.now()
            if replace:
                for row in list(tx.records(t.num, Selection.of(scope))):
                    svc.delete_row(tx, t, row, True, None, now)
            count = 0
            for index, msg in enumerate(self._kept()):
                svc.store.analyzer.prepare(r.text_of(x) for x in msg.get("records", ()))
                tx.prefetch(t, [x["id"] for x in msg.get("records", ())])
                for i, record in enumerate(msg.get("records", ())):
                    rec = r.canonical(record)
                    r.complete_scope(rec, scope, t.name)
                    try:
                        stored, _ = svc.find_for_write(tx, t, rec, f"/records/{i}")
                    except ServiceError as e:
                        e.message = f"message {index} of the stream: {e.message}"
                        raise
                    svc.write_record(tx, t, rec, stored, now)
                    count += 1
            return svc.envelope(first, imported=count or None)

        return svc.mutate("Import", self.call, first, perform, digest=self._digest.digest())
