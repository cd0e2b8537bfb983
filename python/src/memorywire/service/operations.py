"""The semantics of every operation (spec/v1/operations.md), on a store
(:class:`~memorywire.service.storage.Storage`).

A ``Service`` takes requests that the codec has read and checked (documents
in their JSON form) and answers with the canonical Protobuf bytes of the
response, so that the binding sends them as they are and a replayed mutating
request gets the very bytes of the first response. Failures raise
ServiceError (or the codec's MemorywireError).
"""

from __future__ import annotations

import hashlib
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

import memorywire
import memorywire.protobuf
from memorywire import _codec, validation
from memorywire import _model as m
from memorywire._compiled import varint
from memorywire._version import SPECVERSION as SPECVERSION
from memorywire.errors import MemorywireError, Violation
from memorywire.limits import DEFAULT_LIMITS, Limits
from memorywire.service import cursors, filters, registry, search, watch
from memorywire.service import records as r
from memorywire.service.context import Call
from memorywire.service.errors import REASON_CODES, ServiceError, error
from memorywire.service.storage import (
    CREATED,
    DELETED,
    UPDATED,
    Row,
    Selection,
    Storage,
    TenantState,
    Transaction,
)

__all__ = ["Call", "ImportStream", "Service", "FEATURES", "OPERATIONS", "MUTATING"]

IMPLEMENTATION = "memorywire-reference"
#: The names of the operations (GetCapabilities lists them), and of those that
#: write, from the registry.
OPERATIONS = tuple(op.name for op in registry.OPERATIONS)
FEATURES = ("search.text", "search.vector", "search.hybrid", "watch", "watch.offsets", "approval",
            "encryption", "expire.decay", "import.replace")
MUTATING = frozenset(op.name for op in registry.OPERATIONS if op.mutating)
#: The greatest number of records one Import stream may carry.
MAX_IMPORT_RECORDS = 1_000_000
#: The bytes of the records of one Export message, unless one record alone
#: is larger: a stream's message in flight stays small.
EXPORT_BATCH_BYTES = 1 << 20
#: The bytes of an Import that stay in memory until the stream ends; the
#: rest goes to a temporary file.
IMPORT_SPOOL_BYTES = 8 << 20
_NOT_SEEN_BY_GET = frozenset({"deleted", "rejected"})
#: Trust levels only a caller whose credentials entitle it may assert
#: (security.md section 3.3). This service entitles no caller.
_ENTITLED_TRUST = frozenset({"verified", "system"})


def request_type(method: str) -> str:
    return registry.operation(method).request_type


def response_type(method: str) -> str:
    return registry.operation(method).response_type


class Service:
    """The operations of memorywire on a store."""

    def __init__(self, store: Storage, *, limits: Limits = DEFAULT_LIMITS, strict: bool = False,
                 page_cursor_ttl: float | None = cursors.DEFAULT_PAGE_TTL,
                 clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.limits = limits
        #: Validate every response document before it is sent.
        self.strict = strict
        #: The paging cursors of History and Search expire ``page_cursor_ttl``
        #: seconds after they are issued (None: never), by ``clock`` (seconds
        #: since the epoch); operations.md section 4.5 asks for at least an hour.
        self.paging = cursors.Paging(page_cursor_ttl, clock)

    # -- documents ------------------------------------------------------------------

    def encode(self, type_name: str, doc: Mapping[str, Any]) -> bytes:
        """Canonical Protobuf bytes of a response document."""
        enc = memorywire.protobuf.Encoder(type_name, limits=self.limits)
        if self.strict:
            return enc.encode(doc)
        return enc.encode_valid(doc)

    def canonical_request(self, method: str, req: Mapping[str, Any], drop: Iterable[str] = ()) -> bytes:
        doc = {k: v for k, v in req.items() if k not in drop} if drop else req
        return memorywire.protobuf.Encoder(request_type(method)).encode_valid(doc)

    def digest(self, method: str, req: Mapping[str, Any], drop: Iterable[str] = ()) -> bytes:
        return hashlib.sha256(method.encode("ascii") + b"\x00" +
                              self.canonical_request(method, req, drop)).digest()

    @staticmethod
    def envelope(req: Mapping[str, Any], **fields: Any) -> dict[str, Any]:
        doc: dict[str, Any] = {"specversion": SPECVERSION, "operation_id": req["operation_id"]}
        doc.update((k, v) for k, v in fields.items() if v is not None)
        return doc

    # -- common checks ------------------------------------------------------------------

    @staticmethod
    def check_tenant(tenant: str, req: Mapping[str, Any],
                     records: Iterable[tuple[str, Mapping[str, Any]]] = ()) -> None:
        """The scope.tenant of the request and of every record it carries is
        absent or the caller's (operations.md section 4.1)."""
        scope = req.get("scope")
        if scope and scope.get("tenant") and scope["tenant"] != tenant:
            raise error("TENANT_MISMATCH", "scope.tenant is not the caller's tenant", "/scope/tenant")
        for where, rec in records:
            rs = rec.get("scope")
            if rs and rs.get("tenant") and rs["tenant"] != tenant:
                raise error("TENANT_MISMATCH", "the record's scope.tenant is not the caller's tenant",
                            f"{where}/scope/tenant")

    @staticmethod
    def check_representable(unknown: Iterable[str], record_prefixes: Iterable[str]) -> None:
        """A record holding content of a newer minor version cannot be stored
        here: the store keeps records in their JSON form and cannot name the
        unknown content (versioning.md section 3.5)."""
        prefixes = tuple(record_prefixes)
        for pointer in unknown:
            if prefixes and pointer.startswith(prefixes):
                raise error("UNREPRESENTABLE", "the record holds content of a newer minor version "
                            "that this store cannot keep", pointer)

    @staticmethod
    def compile_filter(req: Mapping[str, Any]) -> filters.Predicate | None:
        flt = req.get("filter")
        return None if flt is None else filters.compile_filter(flt, "/filter")

    def mutate(self, method: str, call: Call, req: Mapping[str, Any],
               perform: Callable[[Transaction, TenantState], dict[str, Any]],
               digest: bytes | None = None) -> bytes:
        """Run a mutating operation: idempotency, one transaction, the
        response recorded under the operation identifier."""
        assert call.tenant is not None
        if digest is None:
            digest = self.digest(method, req)
        op = req["operation_id"]
        with self.store.write() as tx:
            t = tx.tenant(call.tenant)
            assert t is not None
            prior = tx.recorded(t, op)
            if prior is not None:
                if prior[0] == method and prior[1] == digest:
                    tx.abandon = True
                    return prior[2]
                raise error("OPERATION_ID_REUSED",
                            "the operation identifier was used for a different request", "/operation_id")
            resp = perform(tx, t)
            data = self.encode(response_type(method), resp)
            tx.record(t, op, method, digest, data)
            if not call.is_active():
                raise error("CANCELLED", "the call was cancelled before the operation committed")
        return data

    # -- GetCapabilities -----------------------------------------------------------------

    def get_capabilities(self, call: Call, req: Mapping[str, Any]) -> bytes:
        lim = self.limits
        return self.encode(response_type("GetCapabilities"), self.envelope(
            req, implementation=IMPLEMENTATION, implementation_version=memorywire.__version__,
            specversions=[SPECVERSION], operations=list(OPERATIONS), features=list(FEATURES),
            limits={"max_document_bytes": lim.max_document_bytes, "max_depth": lim.max_depth,
                    "max_batch_records": lim.max_batch_records,
                    "max_string_bytes": lim.max_string_bytes, "max_items": lim.max_items,
                    "max_dimensions": lim.max_dimensions}))

    # -- Put --------------------------------------------------------------------------------

    def put(self, call: Call, req: Mapping[str, Any], unknown: Iterable[str] = ()) -> bytes:
        assert call.tenant is not None
        items = req["items"]
        self.check_representable(unknown, [f"/items/{i}/record" for i in range(len(items))])
        self.check_tenant(call.tenant, req, ((f"/items/{i}/record", it["record"])
                                             for i, it in enumerate(items)))
        atomic = bool(req.get("atomic"))
        staged = bool(req.get("require_approval"))
        self.store.analyzer.prepare(r.text_of(it["record"]) for it in items)

        def perform(tx: Transaction, t: TenantState) -> dict[str, Any]:
            now = r.now()
            results = []
            for i, item in enumerate(items):
                try:
                    results.append(self._put_item(tx, t, req, i, item, staged, now))
                except ServiceError as e:
                    if atomic:
                        raise ServiceError("BATCH_FAILED", f"item {i} failed: {e.message}",
                                           e.violations, "ABORTED") from None
                    results.append({"id": item["record"]["id"], "status": "failed",
                                    "error": e.to_error_document()})
            return self.envelope(req, results=results)

        return self.mutate("Put", call, req, perform)

    def _put_item(self, tx: Transaction, t: TenantState, req: Mapping[str, Any], i: int,
                  item: Mapping[str, Any], staged: bool, now: str) -> dict[str, Any]:
        where = f"/items/{i}"
        rec = r.canonical(item["record"])
        r.complete_scope(rec, req.get("scope"), t.name)
        stored, by_key = self.find_for_write(tx, t, rec, f"{where}/record")
        expected = item.get("expected_revision")
        if expected is not None:
            if (expected == 0 and stored is not None) or (
                    expected != 0 and (stored is None or stored.rev != expected)):
                raise error("REVISION_MISMATCH", self._revision_message(stored, expected),
                            f"{where}/expected_revision")
        elif item.get("mode") == "create" and stored is not None:
            raise error("RECORD_EXISTS", "the record exists already",
                        f"{where}/record/{'key' if by_key else 'id'}")
        row = self.write_record(tx, t, rec, stored, now, staged)
        if row is None:
            assert stored is not None
            return {"id": stored.id, "status": "unchanged", "sequence": stored.seq,
                    "revision": stored.rev}
        status = "staged" if staged else ("created" if stored is None else "updated")
        return {"id": row.id, "status": status, "sequence": row.seq, "revision": row.rev}

    @staticmethod
    def _revision_message(stored: Row | None, expected: int) -> str:
        if stored is None:
            return f"the record does not exist; expected revision {expected}"
        if expected == 0:
            return "the record exists; expected none"
        return f"revision is {stored.rev}, not {expected}"

    @staticmethod
    def find_for_write(tx: Transaction, t: TenantState, rec: Mapping[str, Any],
                       where: str) -> tuple[Row | None, bool]:
        """The stored record a write replaces: by id, else by key within the
        namespace; RECORD_EXISTS when the key is held by another record."""
        stored = tx.find(t, rec["id"])
        key = rec.get("key")
        if not key:
            return stored, False
        ns = rec.get("scope", {}).get("namespace")
        holder = tx.find_key(t, ns, key)
        if stored is None:
            return holder, holder is not None
        if holder is not None and holder.rid != stored.rid:
            raise error("RECORD_EXISTS", "the key is held by another record", f"{where}/key")
        return stored, False

    def write_record(self, tx: Transaction, t: TenantState, rec: dict[str, Any], stored: Row | None,
                     now: str, staged: bool = False) -> Row | None:
        """Create or replace a record with the store-maintained fields of
        operations.md section 4.3.1; None when the stored record is equal."""
        lower_claims(rec)
        tombstone = r.status(rec) == "deleted"
        if tombstone:
            r.strip_tombstone(rec)
        if stored is None:
            doc = dict(rec)
            doc.setdefault("created_at", now)
            doc.setdefault("updated_at", now)
            if tombstone and "deleted_at" not in doc.get("lifecycle", {}):
                r.set_member(doc, "lifecycle", "deleted_at", now)
            if staged:
                r.set_member(doc, "lifecycle", "status", "pending_approval")
            self._set_hash(doc, None)
            doc = r.canonical(doc)
            row = tx.create(t, doc)
            tx.change(t, CREATED, doc, row.rid)
            return row
        old = stored.doc
        doc = dict(rec)
        doc["id"] = stored.id
        doc["sequence"] = stored.seq
        doc["revision"] = stored.rev
        if "created_at" not in doc and "created_at" in old:
            doc["created_at"] = old["created_at"]
        written_updated = "updated_at" in doc
        if not written_updated and "updated_at" in old:
            doc["updated_at"] = old["updated_at"]
        old_life = old.get("lifecycle", {})
        life = dict(doc.get("lifecycle", {}))
        for name in ("access_count", "last_accessed_at", "deleted_at"):
            if name not in life and name in old_life:
                life[name] = old_life[name]
        if life:
            doc["lifecycle"] = life
        self._set_hash(doc, old)
        doc = r.canonical(doc)
        if r.dumps(doc) == r.dumps(old):
            return None
        # A replacement, not an equal write.
        if not written_updated:
            doc["updated_at"] = now
        life = dict(doc.get("lifecycle", {}))
        if "deleted_at" not in rec.get("lifecycle", {}):
            life.pop("deleted_at", None)
            if tombstone:
                life["deleted_at"] = now
        if staged:
            life["status"] = "pending_approval"
        if life:
            doc["lifecycle"] = life
        else:
            doc.pop("lifecycle", None)
        doc["revision"] = stored.rev + 1
        doc = r.canonical(doc)
        row = tx.replace(t, stored, doc)
        tx.change(t, UPDATED, doc, row.rid)
        return row

    @staticmethod
    def _set_hash(doc: dict[str, Any], old: Mapping[str, Any] | None) -> None:
        """provenance.content_hash: computed from the payload; a tombstone
        keeps the hash it was written with, or the stored one."""
        if r.payload_member(doc) is not None:
            r.set_member(doc, "provenance", "content_hash", r.content_hash(r.canonical(doc)))
        elif "content_hash" not in doc.get("provenance", {}) and old is not None:
            h = old.get("provenance", {}).get("content_hash")
            if h:
                r.set_member(doc, "provenance", "content_hash", h)

    # -- Get ----------------------------------------------------------------------------------

    def get(self, call: Call, req: Mapping[str, Any]) -> bytes:
        assert call.tenant is not None
        self.check_tenant(call.tenant, req)
        ids = list(dict.fromkeys(req["ids"]))
        scope = req.get("scope")
        include_deleted = bool(req.get("include_deleted"))

        def visible(row: Row | None) -> bool:
            return row is not None and r.within(row.doc.get("scope"), scope) and (
                include_deleted or row.status not in _NOT_SEEN_BY_GET)

        found: dict[str, Row] = {}

        def response() -> bytes:
            data = self.encode(response_type("Get"), self.envelope(
                req, records=[found[i].doc for i in ids if i in found] or None,
                missing_ids=[i for i in ids if i not in found] or None))
            if len(data) > self.limits.max_document_bytes:
                # Get has no pages: every identifier asked for is answered in one response.
                raise error("DOCUMENT_TOO_LARGE", f"the records asked for take {len(data)} bytes, "
                            f"more than the {self.limits.max_document_bytes} of one response; "
                            "ask for fewer at a time")
            return data

        if req.get("touch"):
            with self.store.write() as tx:
                t = tx.tenant(call.tenant, create=False)
                if t is None:
                    tx.abandon = True
                    return response()
                now = r.now()
                touched = []
                for row in tx.records_by_ids(t.num, ids):
                    if visible(row):
                        found[row.id] = self.touched_row(row, now)
                        touched.append(found[row.id])
                data = response()  # before the accesses are stored: a failure counts none
                for row in touched:
                    tx.touch(row, row.doc)
                return data
        num = self.store.tenant_num(call.tenant)
        if num is not None:
            with self.store.reader() as reads:
                for row in reads.records_by_ids(num, ids):
                    if visible(row):
                        found[row.id] = row
        return response()

    @staticmethod
    def touched_row(row: Row, now: str) -> Row:
        """A record as a read that counts as an access leaves it
        (lifecycle.access_count and last_accessed_at), for Transaction.touch:
        not a change."""
        doc = dict(row.doc)
        life = dict(doc.get("lifecycle", {}))
        life["access_count"] = int(life.get("access_count", 0)) + 1
        life["last_accessed_at"] = now
        doc["lifecycle"] = life
        return Row(row.rid, row.id, row.seq, row.rev, row.status, row.key, row.ns, row.pos, doc)

    def page(self, method: str, req: Mapping[str, Any], field: str, item_type: str,
             items: Sequence[Mapping[str, Any]], more: bool,
             cursor_after: Callable[[int], str]) -> tuple[bytes, int]:
        """The response of a page of History or Search: ``items`` in
        ``field``, and ``next_cursor`` (``cursor_after(i)``: the cursor after
        the item i) when more results follow. A page whose document would
        exceed max_document_bytes is shortened to the items that fit, and
        continues at the next cursor (operations.md section 4.5, grpc-binding.md
        section 2.3). Returns the bytes and the number of items sent."""
        def encode(count: int, more: bool) -> bytes:
            return self.encode(response_type(method), self.envelope(
                req, **{field: list(items[:count]) or None},
                next_cursor=cursor_after(count - 1) if more and count else None))

        limit = self.limits.max_document_bytes
        data = encode(len(items), more)
        if len(data) <= limit:
            return data, len(items)
        # Each item is one length-delimited field (a one-byte tag) after the envelope.
        size = len(encode(0, False)) + 1 + len(varint(len(cursor_after(0)))) + len(cursor_after(0))
        enc = memorywire.protobuf.Encoder(item_type)
        count = 0
        for item in items:
            n = len(enc.encode_valid(item))
            size += 1 + len(varint(n)) + n
            if size > limit:
                break
            count += 1
        if not count:
            raise error("DOCUMENT_TOO_LARGE", "the next result does not fit in one response of "
                        f"{limit} bytes")
        return encode(count, True), count

    # -- History ------------------------------------------------------------------------------

    def history(self, call: Call, req: Mapping[str, Any]) -> bytes:
        assert call.tenant is not None
        self.check_tenant(call.tenant, req)
        request_digest = self.digest("History", req, ("operation_id", "cursor", "limit"))
        after = None
        if req.get("cursor"):
            after = cursors.decode_page(self.store.secret, call.tenant, request_digest, req["cursor"],
                                        self.paging)[1]
        limit = req.get("limit") or 100
        descending = req.get("order") == "descending"
        thread = req.get("thread", "all")
        kinds = req.get("kinds")
        selection = Selection.of(req.get("scope"), statuses=("active",), thread=thread,
                                 agents=tuple(req["agents"]) if thread == "between" else None,
                                 kinds=tuple(kinds) if kinds else None)
        rows: list[Row] = []
        num = self.store.tenant_num(call.tenant)
        if num is not None:
            with self.store.reader() as reads:
                rows = list(reads.records(num, selection, after=after, descending=descending,
                                          limit=limit + 1))
        more = len(rows) > limit
        rows = rows[:limit]
        tenant = call.tenant

        def cursor_after(i: int) -> str:
            return cursors.encode_page(self.store.secret, tenant, request_digest, 0.0, rows[i].seq,
                                       self.paging)

        return self.page("History", req, "records", r.RECORD_TYPE, [x.doc for x in rows], more,
                         cursor_after)[0]

    # -- Search -------------------------------------------------------------------------------

    def search(self, call: Call, req: Mapping[str, Any]) -> bytes:
        assert call.tenant is not None
        pred = self.compile_filter(req)
        vector = req.get("vector")
        if vector is not None and not any(vector["values"]):
            raise error("INVALID_VECTOR", "the query vector has zero norm", "/vector/values")
        self.check_tenant(call.tenant, req)
        return search.run(self, call, req, pred)

    # -- Update ---------------------------------------------------------------------------------

    def update(self, call: Call, req: Mapping[str, Any]) -> bytes:
        assert call.tenant is not None
        self.check_tenant(call.tenant, req)

        def perform(tx: Transaction, t: TenantState) -> dict[str, Any]:
            row = tx.find(t, req["id"])
            if row is None or not r.within(row.doc.get("scope"), req.get("scope")) or \
                    row.status in _NOT_SEEN_BY_GET:
                raise error("RECORD_NOT_FOUND", "no such record", "/id")
            expected = req.get("expected_revision")
            if expected is not None and expected != row.rev:
                raise error("REVISION_MISMATCH", self._revision_message(row, expected),
                            "/expected_revision")
            doc = self.patched(row.doc, req["patch"], req["specversion"], amend=False)
            self.check_key(tx, t, row, doc)
            if r.dumps(doc) == r.dumps(row.doc):
                return self.envelope(req, record=row.doc)
            new = self.change_record(tx, t, row, doc, UPDATED)
            return self.envelope(req, record=new.doc)

        return self.mutate("Update", call, req, perform)

    _IMMUTABLE = (("id",), ("kind",), ("key",), ("sequence",), ("revision",), ("scope", "tenant"),
                  ("specversion",))

    def patched(self, stored: Mapping[str, Any], patch: Mapping[str, Any], specversion: str, *,
                amend: bool) -> dict[str, Any]:
        """Apply a JSON Merge Patch to a stored record with the rules of
        operations.md section 10; the result is canonical."""
        result = r.merge_patch(stored, patch)
        lower_claims(result, stored)
        for path in self._IMMUTABLE:
            if _norm(_get(stored, path)) != _norm(_get(result, path)):
                raise error("IMMUTABLE_FIELD", f"{'.'.join(path)} cannot change",
                            _patch_pointer(patch, path))
        before, after = r.status(stored), r.status(result)
        if before != after and (amend or not {before, after} <= {"active", "archived"}):
            raise error("IMMUTABLE_FIELD", f"the status cannot change from {before} to {after} here",
                        "/patch/lifecycle/status")
        probe = dict(result)
        probe["specversion"] = specversion
        walk = validation.run(probe, r.RECORD_TYPE, self.limits)
        if walk.errors:
            vs = [Violation("/patch" + v.pointer, v.reason, v.message) for v in walk.errors]
            raise ServiceError(vs[0].reason, vs[0].message, vs, _code_of(vs[0].reason))
        if walk.unknown:
            raise error("UNREPRESENTABLE", "the patch holds content of a newer minor version that "
                        "this store cannot keep", "/patch" + walk.unknown[0])
        return r.canonical(result)

    @staticmethod
    def check_key(tx: Transaction, t: TenantState, row: Row, doc: Mapping[str, Any]) -> None:
        """A patch that moves a keyed record to another namespace needs its
        key free there (core.md section 4.1, key)."""
        key = doc.get("key")
        ns = doc.get("scope", {}).get("namespace")
        if key and r.namespace_key(ns) != row.ns:
            holder = tx.find_key(t, ns, key)
            if holder is not None and holder.rid != row.rid:
                raise error("RECORD_EXISTS", "the key is held by another record in that namespace",
                            "/patch/scope/namespace")

    def change_record(self, tx: Transaction, t: TenantState, row: Row, doc: dict[str, Any],
                      kind: int) -> Row:
        """Write a changed record: revision plus one, updated_at, content hash."""
        doc = dict(doc)
        doc["revision"] = row.rev + 1
        doc["updated_at"] = r.now()
        self._set_hash(doc, row.doc)
        doc = r.canonical(doc)
        new = tx.replace(t, row, doc)
        tx.change(t, kind, doc, row.rid)
        return new

    # -- Delete --------------------------------------------------------------------------------

    def delete(self, call: Call, req: Mapping[str, Any]) -> bytes:
        assert call.tenant is not None
        pred = self.compile_filter(req)
        self.check_tenant(call.tenant, req)
        scope = req.get("scope")
        hard = req.get("mode") == "hard"
        reason = req.get("reason") or None

        def perform(tx: Transaction, t: TenantState) -> dict[str, Any]:
            if pred is None:
                rows = []
                for record_id in dict.fromkeys(req["ids"]):
                    row = tx.find(t, record_id)
                    if row is not None and r.within(row.doc.get("scope"), scope):
                        rows.append(row)
                expected = req.get("expected_revision")
                if expected is not None:
                    if not rows:
                        raise error("RECORD_NOT_FOUND", "no such record", "/ids/0")
                    if rows[0].rev != expected or expected == 0:
                        raise error("REVISION_MISMATCH", self._revision_message(rows[0], expected),
                                    "/expected_revision")
            else:
                selection = Selection.of(scope, not_statuses=() if filters.names_status(
                    req.get("filter")) else ("deleted",))
                rows = [row for row in tx.records(t.num, selection) if pred(row.doc)]
            now = r.now()
            for row in rows:
                self.delete_row(tx, t, row, hard, reason, now)
            return self.envelope(req, deleted_ids=[row.id for row in rows] or None)

        return self.mutate("Delete", call, req, perform)

    def delete_row(self, tx: Transaction, t: TenantState, row: Row, hard: bool, reason: str | None,
                   now: str) -> None:
        if hard:
            tx.remove(t, row)
            minimal = r.minimal_tombstone(row.doc, row.rev + 1, now, reason)
            pos = tx.change(t, DELETED, minimal, None)
            tx.redact_changes(t, row.id, pos, now)
            return
        if row.status == "deleted":
            return  # soft-deleting a tombstone leaves it unchanged
        doc = r.soft_deleted(row.doc, now, reason)
        doc["revision"] = row.rev + 1
        doc["updated_at"] = now
        doc = r.canonical(doc)
        tx.replace(t, row, doc)
        tx.change(t, DELETED, doc, row.rid)

    # -- Expire --------------------------------------------------------------------------------

    def expire(self, call: Call, req: Mapping[str, Any]) -> bytes:
        assert call.tenant is not None
        self.check_tenant(call.tenant, req)
        policy = req["policy"]
        action = req["action"]
        dry_run = bool(req.get("dry_run"))

        def perform(tx: Transaction, t: TenantState) -> dict[str, Any]:
            now = r.now()
            as_of = r.instant(req.get("as_of") or now)
            statuses = ("active",) if action == "archive" else ("active", "archived")
            kinds = policy.get("kinds")
            selection = Selection.of(req.get("scope"), statuses=statuses,
                                     kinds=tuple(kinds) if kinds else None)
            selected = [row for row in tx.records(t.num, selection) if _expires(row.doc, policy, as_of)]
            if not dry_run:
                for row in selected:
                    if action == "archive":
                        self.change_record(tx, t, row, _with_status(row.doc, "archived"), UPDATED)
                    elif action == "delete":
                        self.delete_row(tx, t, row, False, None, now)
                    else:
                        importance = float(row.doc.get("lifecycle", {}).get("importance", 0.5))
                        if importance != 0.0:
                            doc = dict(row.doc)
                            r.set_member(doc, "lifecycle", "importance", importance / 2)
                            self.change_record(tx, t, row, doc, UPDATED)
            return self.envelope(req, expired_ids=[row.id for row in selected] or None)

        return self.mutate("Expire", call, req, perform)

    # -- Merge ----------------------------------------------------------------------------------

    def merge(self, call: Call, req: Mapping[str, Any]) -> bytes:
        assert call.tenant is not None
        self.check_tenant(call.tenant, req)
        scope = req.get("scope")

        def seen(row: Row | None) -> bool:
            return row is not None and r.within(row.doc.get("scope"), scope) and \
                row.status in ("active", "archived")

        def perform(tx: Transaction, t: TenantState) -> dict[str, Any]:
            target = tx.find(t, req["target_id"])
            if target is None or not seen(target):
                raise error("RECORD_NOT_FOUND", "no such record", "/target_id")
            expected = req.get("expected_revision")
            if expected is not None and expected != target.rev:
                raise error("REVISION_MISMATCH", self._revision_message(target, expected),
                            "/expected_revision")
            sources: list[Row] = []
            taken: set[str] = {target.id}
            for i, sid in enumerate(req["source_ids"]):
                if sid in taken:
                    continue
                taken.add(sid)
                row = tx.find(t, sid)
                if row is None or not seen(row):
                    raise error("RECORD_NOT_FOUND", "no such record", f"/source_ids/{i}")
                if row.doc["kind"] != target.doc["kind"]:
                    raise error("KIND_MISMATCH", "the records of a merge are of one kind",
                                f"/source_ids/{i}")
                sources.append(row)
            doc = _merged(target, sources, req.get("strategy", "keep_target"))
            if r.dumps(r.canonical(doc)) != r.dumps(target.doc):
                new = self.change_record(tx, t, target, doc, UPDATED)
            else:
                new = target
            for row in sources:
                if row.status == "active":
                    self.change_record(tx, t, row, _with_status(row.doc, "archived"), UPDATED)
            return self.envelope(req, record=new.doc,
                                 superseded_ids=[row.id for row in sources] or None)

        return self.mutate("Merge", call, req, perform)

    # -- Compact -------------------------------------------------------------------------------

    def compact(self, call: Call, req: Mapping[str, Any], unknown: Iterable[str] = ()) -> bytes:
        assert call.tenant is not None
        summary = req["summary"]
        if "encrypted" in summary:
            raise error("KIND_MISMATCH", "a summary is stored in the clear", "/summary/encrypted")
        if "summary" not in summary:
            raise error("REQUIRED_FIELD_MISSING", "the summary carries a summary payload",
                        "/summary/summary")
        self.check_representable(unknown, ["/summary"])
        self.check_tenant(call.tenant, req, [("/summary", summary)])
        scope = req.get("scope")

        def perform(tx: Transaction, t: TenantState) -> dict[str, Any]:
            rows: dict[str, Row] = {}
            for i, record_id in enumerate(req["ids"]):
                if record_id in rows:
                    continue
                row = tx.find(t, record_id)
                if row is None or not r.within(row.doc.get("scope"), scope) or \
                        row.status not in ("active", "archived"):
                    raise error("RECORD_NOT_FOUND", "no such record", f"/ids/{i}")
                rows[record_id] = row
            compacted = sorted(rows.values(), key=lambda x: x.seq)
            rec = r.canonical(summary)
            r.complete_scope(rec, scope, t.name)
            if tx.find(t, rec["id"]) is not None:
                raise error("RECORD_EXISTS", "the summary's identifier is taken", "/summary/id")
            stored, _ = self.find_for_write(tx, t, rec, "/summary")
            if stored is not None:
                raise error("RECORD_EXISTS", "the summary's key is held by another record",
                            "/summary/key")
            body = dict(rec["summary"])
            body["covers"] = [x.id for x in compacted]
            body["first_sequence"] = compacted[0].seq
            body["last_sequence"] = compacted[-1].seq
            rec["summary"] = body
            links = list(rec.get("links", ()))
            room = max(0, 1000 - len(links))
            links += [{"type": "summarizes", "target": x.id} for x in compacted[:room]]
            if links:
                rec["links"] = links
            row = self.write_record(tx, t, rec, None, r.now())
            assert row is not None
            disposition = req.get("disposition", "archive")
            now = r.now()
            for x in compacted:
                if x.doc.get("lifecycle", {}).get("pinned"):
                    continue
                if disposition == "archive" and x.status == "active":
                    self.change_record(tx, t, x, _with_status(x.doc, "archived"), UPDATED)
                elif disposition == "delete":
                    self.delete_row(tx, t, x, False, None, now)
            return self.envelope(req, summary=row.doc, compacted_ids=[x.id for x in compacted])

        return self.mutate("Compact", call, req, perform)

    # -- Review -------------------------------------------------------------------------------

    def review(self, call: Call, req: Mapping[str, Any]) -> bytes:
        assert call.tenant is not None
        self.check_tenant(call.tenant, req)

        def perform(tx: Transaction, t: TenantState) -> dict[str, Any]:
            row = tx.find(t, req["id"])
            if row is None or not r.within(row.doc.get("scope"), req.get("scope")):
                raise error("RECORD_NOT_FOUND", "no such record", "/id")
            if row.status != "pending_approval":
                raise error("NOT_STAGED", f"the record is {row.status}, not pending_approval", "/id")
            decision = req["decision"]
            if decision == "amend":
                doc = self.patched(row.doc, req["patch"], req["specversion"], amend=True)
                self.check_key(tx, t, row, doc)
            else:
                doc = dict(row.doc)
            doc = _with_status(doc, "rejected" if decision == "reject" else "active")
            if decision == "reject":
                r.drop_member(doc, "lifecycle", "reason")
                if req.get("reason"):
                    r.set_member(doc, "lifecycle", "reason", req["reason"])
            new = self.change_record(tx, t, row, doc, UPDATED)
            tx.review(t, row.id, new.rev, decision, req.get("reviewer", ""), req.get("reason", ""),
                      req["operation_id"], r.now())
            return self.envelope(req, record=new.doc)

        return self.mutate("Review", call, req, perform)

    # -- Watch and CommitOffset ----------------------------------------------------------------

    def watch(self, call: Call, req: Mapping[str, Any]) -> Iterator[bytes]:
        assert call.tenant is not None
        pred = self.compile_filter(req)
        self.check_tenant(call.tenant, req)
        stream = watch.open_stream(self.store, call, req, pred)
        enc = memorywire.protobuf.Encoder(response_type("Watch"), limits=self.limits)
        encode = enc.encode if self.strict else enc.encode_valid

        def frames() -> Iterator[bytes]:
            for event in stream:
                yield encode(self.envelope(req, event=event))

        return frames()

    def commit_offset(self, call: Call, req: Mapping[str, Any]) -> bytes:
        assert call.tenant is not None
        self.check_tenant(call.tenant, req)
        position = cursors.decode_position(self.store.secret, call.tenant, req["cursor"])

        def perform(tx: Transaction, t: TenantState) -> dict[str, Any]:
            watch.commit(tx, t, req["consumer"], position, req["cursor"])
            return self.envelope(req, cursor=req["cursor"])

        return self.mutate("CommitOffset", call, req, perform)

    # -- Export and Import ----------------------------------------------------------------------

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

        def frames() -> Iterator[bytes]:
            parts: list[bytes] = []
            size = len(head)
            for n, row in enumerate(rows()):
                if n % 256 == 0 and not call.is_active():
                    return
                if pred is not None and not pred(row.doc):
                    continue
                body = record_enc.encode_valid(row.doc)
                field = b"\x1a" + varint(len(body)) + body
                if parts and (len(parts) >= batch_limit or size + len(field) > size_limit):
                    yield head + b"".join(parts)
                    parts, size = [], len(head)
                parts.append(field)
                size += len(field)
            if parts:
                yield head + b"".join(parts)

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

    def __init__(self, service: Service, call: Call, max_bytes: int) -> None:
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


# -- helpers ------------------------------------------------------------------------------------


def lower_claims(doc: dict[str, Any], stored: Mapping[str, Any] | None = None) -> None:
    """Lower what a caller asserts of a record's provenance and is not
    entitled to (security.md section 3.3): trust verified or system becomes
    unverified, and origin system is not recorded. A value the stored
    record has already is kept: a patch that leaves it alone does not assert it."""
    provenance = doc.get("provenance") or {}
    before = (stored or {}).get("provenance") or {}
    trust = provenance.get("trust")
    if trust in _ENTITLED_TRUST and trust != before.get("trust"):
        r.set_member(doc, "provenance", "trust", "unverified")
    if provenance.get("origin") == "system" and before.get("origin") != "system":
        r.drop_member(doc, "provenance", "origin")


def _code_of(reason: str) -> str:
    return REASON_CODES.get(reason, "INVALID_ARGUMENT")


def _get(doc: Any, path: tuple[str, ...]) -> Any:
    for name in path:
        if type(doc) is not dict:
            return None
        doc = doc.get(name)
    return doc


def _norm(v: Any) -> Any:
    """Absent and default values alike (a default is absent)."""
    if v is None or (type(v) is not bool and v in ("", 0)):
        return None
    return v


def _patch_pointer(patch: Mapping[str, Any], path: tuple[str, ...]) -> str:
    pointer = "/patch"
    node: Any = patch
    for name in path:
        if type(node) is not dict or name not in node:
            break
        pointer += "/" + name
        node = node[name]
    return pointer


def _with_status(doc: Mapping[str, Any], status: str) -> dict[str, Any]:
    out = dict(doc)
    r.set_member(out, "lifecycle", "status", status)
    return out


def _expires(doc: Mapping[str, Any], policy: Mapping[str, Any], t: tuple[int, int]) -> bool:
    """Whether a record meets every criterion of an expire policy at t."""
    life = doc.get("lifecycle", {})
    if life.get("pinned"):
        return False
    created = r.instant(doc["created_at"]) if "created_at" in doc else None
    accessed = r.instant(life["last_accessed_at"]) if "last_accessed_at" in life else created
    n = policy.get("older_than_seconds")
    if n is not None and (created is None or not (created[0] + n, created[1]) < t):
        return False
    n = policy.get("not_accessed_seconds")
    if n is not None and (accessed is None or not (accessed[0] + n, accessed[1]) < t):
        return False
    below = policy.get("importance_below")
    if below is not None:
        importance = float(life.get("importance", 0.5))
        half_life = policy.get("half_life_seconds")
        if half_life is not None and accessed is not None and accessed < t:
            seconds = (t[0] - accessed[0]) + (t[1] - accessed[1]) / 1e9
            importance = importance * 0.5 ** (seconds / half_life)
        if not importance < below:
            return False
    if policy.get("past_expiry"):
        expires = life.get("expires_at")
        if expires is None or r.instant(expires) > t:
            return False
    return True


def _merged(target: Row, sources: list[Row], strategy: str) -> dict[str, Any]:
    """The target of a merge, by operations.md section 13."""
    doc = dict(target.doc)
    if strategy == "keep_newest":
        newest = max([target, *sources], key=lambda x: x.pos)
        if newest is not target:
            for name in (*r.PAYLOADS, "embeddings", "native"):
                doc.pop(name, None)
                if name in newest.doc:
                    doc[name] = newest.doc[name]
    tags = list(doc.get("tags", ()))
    for row in sources:
        tags += [x for x in row.doc.get("tags", ()) if x not in tags]
    links = list(doc.get("links", ()))
    have = {(x["type"], x["target"]) for x in links}
    for row in sources:
        for link in row.doc.get("links", ()):
            pair = (link["type"], link["target"])
            if pair not in have and link["target"] != target.id:
                links.append(link)
                have.add(pair)
    for row in sources:
        if ("supersedes", row.id) not in have:
            links.append({"type": "supersedes", "target": row.id})
            have.add(("supersedes", row.id))
    metadata = dict(doc.get("metadata", {}))
    for row in sources:
        for k, v in row.doc.get("metadata", {}).items():
            metadata.setdefault(k, v)
    if len(tags) > 1000 or len(links) > 1000 or len(metadata) > 1000:
        raise error("COUNT_OUT_OF_RANGE", "the target would hold more than 1000 tags, links or "
                    "metadata entries", "/source_ids")
    for name, value in (("tags", tags), ("links", links), ("metadata", metadata)):
        if value:
            doc[name] = value
    if strategy == "keep_highest":
        for name in ("importance", "confidence"):
            values = [x.doc.get("lifecycle", {})[name] for x in (target, *sources)
                      if name in x.doc.get("lifecycle", {})]
            if values:
                r.set_member(doc, "lifecycle", name, max(values))
    return doc


def error_document(e: MemorywireError, operation_id: str = "") -> dict[str, Any]:
    """The Error document of any error the service raises."""
    doc = e.to_error_document(operation_id)
    if not doc.get("message"):
        doc["message"] = e.reason
    doc["message"] = doc["message"][:4096]
    for v in doc.get("violations", ()):
        if "message" in v:
            v["message"] = v["message"][:4096]
    return doc
