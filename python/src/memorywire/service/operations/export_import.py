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
from memorywire.integrity import ExportDigest
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

        integrity = ExportDigest() if req.get("integrity") else None

        def batch_of(parts: list[tuple[int, bytes]]) -> bytes:
            """The records of a message as they are sent, counted into the
            integrity block: each record's canonical bytes with their length
            (its field without the tag byte)."""
            kept = list(present(parts))
            if integrity is not None:
                for field in kept:
                    integrity.add_framed(field[1:])
            return b"".join(kept)

        # The tenant's position before the export's snapshot is taken: an
        # Erase always moves it, so that a batch is read again only when the
        # tenant has changed since.
        started = self.store.positions.get(num, 0) if num is not None else 0

        def present(parts: list[tuple[int, bytes]]) -> Iterator[bytes]:
            """The records of a batch that the store still holds, read again
            as the batch leaves when the tenant has changed since the export
            began: an erasure that commits while the export runs takes its
            records out of the batches still to come (section 19). A record
            removed since the snapshot did not exist for the whole export, so
            leaving it out keeps section 17.1."""
            assert num is not None
            if self.store.positions.get(num, 0) == started:
                return (field for _, field in parts)
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
                    batch = batch_of(parts)
                    if batch:
                        yield head + batch
                    parts, size = [], len(head)
                parts.append((row.rid, field))
                size += len(field)
            if parts:
                batch = batch_of(parts)
                if batch:
                    yield head + batch
            if integrity is not None:
                block = integrity.block()
                if self.signer is not None:
                    block["signature"] = self.signer.sign(block["digest"])
                yield self.encode(response_type("Export"), self.envelope(req, integrity=block))

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
            for name in ("specversion", "operation_id", "scope", "mode", "conflict", "deduplicate", "dry_run"):
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
        conflict = first.get("conflict", "overwrite")
        svc = self.service

        def perform(tx: Transaction, t: TenantState) -> dict[str, Any]:
            now = r.now()
            if replace:
                for row in list(tx.records(t.num, Selection.of(scope))):
                    svc.delete_row(tx, t, row, True, None, now)
            counts = dict.fromkeys(("created", "replaced", "unchanged", "skipped", "duplicates", "renamed"), 0)
            # The content hashes of the scope's records, by kind (deduplicate).
            hashes: dict[tuple[str, str], str] | None = None
            if first.get("deduplicate"):
                hashes = {}
                for row in tx.records(t.num, Selection.of(scope, not_statuses=("deleted",))):
                    found = row.doc.get("provenance", {}).get("content_hash")
                    if found:
                        hashes.setdefault((row.doc["kind"], found), row.id)
            for index, msg in enumerate(self._kept()):
                svc.store.analyzer.prepare(r.text_of(x) for x in msg.get("records", ()))
                tx.prefetch(t, [x["id"] for x in msg.get("records", ())])
                for i, record in enumerate(msg.get("records", ())):
                    rec = r.canonical(record)
                    r.complete_scope(rec, scope, t.name)
                    content = r.content_hash(rec) if hashes is not None else None
                    if hashes is not None and content is not None and \
                            hashes.get((rec["kind"], content), rec["id"]) != rec["id"]:
                        counts["duplicates"] += 1
                        continue
                    try:
                        written = _resolve(svc, tx, t, rec, conflict, f"/records/{i}", scope)
                    except ServiceError as e:
                        e.message = f"message {index} of the stream: {e.message}"
                        raise
                    if written is None:
                        counts["skipped"] += 1
                        continue
                    rec, stored, outcome = written
                    changed = svc.write_record(tx, t, rec, stored, now)
                    counts[outcome if stored is None or changed is not None else "unchanged"] += 1
                    if outcome == "renamed":
                        counts["created"] += 1
                    if hashes is not None and content is not None:
                        hashes.setdefault((rec["kind"], content), rec["id"])
            if first.get("dry_run"):
                tx.abandon = True  # report, write nothing, record nothing
            imported = counts["created"] + counts["replaced"] + counts["unchanged"]
            return svc.envelope(first, imported=imported or None,
                                **{name: n or None for name, n in counts.items()})

        return svc.mutate("Import", self.call, first, perform, digest=self._digest.digest())


#: The members of a stored record that a merge (conflict ``merge``) does
#: not take from it: the store sets them.
_STORE_SET = ("sequence", "revision", "updated_at")


def _resolve(svc: Base, tx: Transaction, t: TenantState, rec: dict[str, Any], conflict: str,
             where: str, scope: Mapping[str, Any] | None) -> tuple[dict[str, Any], Row | None, str] | None:
    """What an Import writes for a record under its conflict policy
    (operations.md section 17.2): the record, the stored record it replaces
    (None: a new one), and how it counts (``created``, ``replaced`` or
    ``renamed``); None to leave it out (``skip``)."""
    try:
        stored, _ = svc.find_for_write(tx, t, rec, where, scope)
        held = stored is not None
    except ServiceError as e:
        if e.reason != "RECORD_EXISTS" or conflict not in ("skip", "new_id"):
            raise
        # Its id and its key are held by two records, or by one outside the scope.
        stored, held = None, True
    if not held:
        return rec, None, "created"
    if conflict == "skip":
        return None
    if conflict == "new_id":
        rec = dict(rec)
        base = rec["id"]
        n = 1
        while tx.find(t, f"{base}~{n}") is not None:
            n += 1
        rec["id"] = f"{base}~{n}"
        if len(rec["id"]) > 256:
            raise error("LENGTH_OUT_OF_RANGE", "the new identifier of the record would be longer "
                        "than 256 characters", f"{where}/id")
        if rec.get("key") and tx.find_key(t, rec.get("scope", {}).get("namespace"), rec["key"]) is not None:
            rec.pop("key")
        return rec, None, "renamed"
    assert stored is not None
    if conflict == "merge":
        if stored.doc["kind"] != rec["kind"]:
            raise error("KIND_MISMATCH", f"the stored record is of kind {stored.doc['kind']}; a merge "
                        "keeps the kind", f"{where}/kind")
        base = {k: v for k, v in stored.doc.items() if k not in _STORE_SET}
        rec = r.canonical(r.merge_patch(base, rec))
    return rec, stored, "replaced"
