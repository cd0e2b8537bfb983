"""What the operations of every chapter share (``Base``): documents and
responses, the checks of requests, the transaction of a mutating operation
under its operation_id (operations.md section 3.3), and the writing,
patching and deletion of records that several chapters perform."""

from __future__ import annotations

import gc
import hashlib
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

import orjson

import memorywire
import memorywire.protobuf
from memorywire import _model, validation
from memorywire._compiled import varint
from memorywire._version import SPECVERSION as SPECVERSION
from memorywire.errors import MemorywireError, Violation
from memorywire.limits import DEFAULT_LIMITS, Limits
from memorywire.service import cursors, filters, registry
from memorywire.service import records as r
from memorywire.service.context import Call
from memorywire.service.errors import REASON_CODES, ServiceError, error
from memorywire.service.storage import CREATED, DELETED, UPDATED, Row, Storage, TenantState, Transaction
from memorywire.signing import Signer

IMPLEMENTATION = "memorywire-reference"

#: The names of the operations (GetCapabilities lists them), and of those that
#: write, from the registry.
OPERATIONS = tuple(op.name for op in registry.OPERATIONS)
FEATURES = ("search.text", "search.vector", "search.hybrid", "watch", "watch.offsets", "approval",
            "encryption", "expire.decay", "import.replace", "import.policies",
            "export.integrity", "history.branches")
MUTATING = frozenset(op.name for op in registry.OPERATIONS if op.mutating)
#: The feature listed only by a service that signs its exports (section 17.1).
SIGNED_EXPORTS = "export.signature"

#: The statuses of the records that Get and Update do not see.
NOT_SEEN_BY_GET = frozenset({"deleted", "rejected"})

#: The length of a request digest of the single form (``Base.digest``),
#: which stores recorded for every mutating request before the items form.
SINGLE_DIGEST_BYTES = 32
#: The first byte of a request digest of the items form (``Base.items_digest``).
ITEMS_DIGEST = b"\x02"

#: Trust levels only a caller whose credentials entitle it may assert
#: (security.md section 3.3). This service entitles no caller.
_ENTITLED_TRUST = frozenset({"verified", "system"})


_collector_lock = threading.Lock()
#: Whether a call in ``collector_paused`` turned the collector off, and is to turn it on again.
_collector_owned = False


@contextmanager
def collector_paused() -> Iterator[None]:
    """Hold off Python's cyclic garbage collector during a batch write (a
    Put). The records of a batch make thousands of containers (each
    embedding's values a list) that live until the batch is written, and
    the collector would traverse them again and again as the batch goes
    on: about a fifth of the time of a Put of records with embeddings.
    What a batch leaves holds no cycles, and reference counting frees it
    as the call returns, before the collector runs again. The call that
    finds the collector on turns it off and on again when it leaves; calls
    that come meanwhile change nothing, so that the collector is off for
    one call at a time (which includes its wait for the store's write
    lock) and runs after each."""
    global _collector_owned
    with _collector_lock:
        owner = not _collector_owned and gc.isenabled()
        if owner:
            gc.disable()
            _collector_owned = True
    try:
        yield
    finally:
        if owner:
            with _collector_lock:
                _collector_owned = False
                gc.enable()


#: The methods whose requests carry records that the service writes with
#: each embedding's values as their binary32 bytes (records.canonical_record):
#: every binding reads their requests without building those values as floats.
BINARY_VECTORS = frozenset({"Put", "Import"})


def request_type(method: str) -> str:
    return registry.operation(method).request_type


def response_type(method: str) -> str:
    return registry.operation(method).response_type


class Base:
    """What the operations of every chapter share: the store, the limits
    and paging of the service, documents, checks, the transaction of a
    mutating operation, and the writing of records."""

    def __init__(self, store: Storage, *, limits: Limits = DEFAULT_LIMITS, strict: bool = False,
                 page_cursor_ttl: float | None = cursors.DEFAULT_PAGE_TTL,
                 clock: Callable[[], float] = time.time, signer: Signer | None = None) -> None:
        self.store = store
        #: The key that signs the integrity block of every Export (section
        #: 17.1), or None: the blocks are not signed.
        self.signer = signer
        self.limits = limits
        #: Validate every response document before it is sent.
        self.strict = strict
        #: The paging cursors of History and Search expire ``page_cursor_ttl``
        #: seconds after they are issued (None: never), by ``clock`` (seconds
        #: since the epoch); operations.md section 4.5 asks for at least an hour.
        self.paging = cursors.Paging(page_cursor_ttl, clock)

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
        """The digest of a request: SHA-256 of the method and the request's
        canonical Protobuf bytes (32 bytes, ``SINGLE_DIGEST_BYTES``)."""
        return hashlib.sha256(method.encode("ascii") + b"\x00" +
                              self.canonical_request(method, req, drop)).digest()

    def items_digest(self, method: str, req: Mapping[str, Any], records: Sequence[Mapping[str, Any]]) -> bytes:
        """The digest of a request that carries a record in each of its
        ``items`` (Put), given the canonical form of each
        (``records.canonical_record``): SHA-256 of the method, the canonical
        Protobuf bytes of the request without the records, then of each
        record its canonical JSON with the values of each embedding replaced
        by their number, and their binary32 bytes; each part after its
        length. Requests are told apart as by ``digest``, without the
        Protobuf encoding of every value of every embedding; the digest is
        ``ITEMS_DIGEST`` and 32 bytes."""
        h = hashlib.sha256(method.encode("ascii") + b"\x00")
        # An item of a record alone (most are) is an empty one without it.
        bare = self.canonical_request(method, {**req, "items": [
            {} if len(it) == 1 and "record" in it else {k: v for k, v in it.items() if k != "record"}
            for it in req["items"]]})
        h.update(len(bare).to_bytes(8, "little"))
        h.update(bare)
        sort = orjson.OPT_SORT_KEYS
        vector = r.Vector
        for rec in records:
            embeddings = rec.get("embeddings") or ()
            data = r.counted_json(rec, embeddings, sort) if embeddings else r.dumps(rec)
            h.update(len(data).to_bytes(8, "little"))
            h.update(data)
            for e in embeddings:
                values = e.get("values")
                if type(values) is vector:
                    h.update(values.raw)  # empty for no values, as below
                elif values:
                    h.update(r.raw_values(values))
        return ITEMS_DIGEST + h.digest()

    @staticmethod
    def envelope(req: Mapping[str, Any], **fields: Any) -> dict[str, Any]:
        doc: dict[str, Any] = {"specversion": SPECVERSION, "operation_id": req["operation_id"]}
        doc.update((k, v) for k, v in fields.items() if v is not None)
        return doc

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
        unknown content (versioning.md section 3.5). The prefixes are read
        only when there is unknown content."""
        unknown = tuple(unknown)
        if not unknown:
            return
        prefixes = tuple(record_prefixes)
        for pointer in unknown:
            if prefixes and pointer.startswith(prefixes):
                raise error("UNREPRESENTABLE", "the record holds content of a newer minor version "
                            "that this store cannot keep", pointer)

    @staticmethod
    def check_enum_values(type_name: str, unknown: Iterable[str]) -> None:
        """A request field holding an enum value of a newer minor version is
        not acted on: the reader leaves the value out, and the service would
        act as if the field were absent, or held another value, which
        R-VER-014 forbids (versioning.md section 3.5). Every such field of
        every request message, as the protos declare them, fails with
        UNREPRESENTABLE at its pointer. The enum values of the records a
        request carries are the content of the records, and the operations
        that store them decide (``check_representable``)."""
        for pointer in unknown:
            if is_enum_value(type_name, pointer):
                raise error("UNREPRESENTABLE", "the field holds an enum value of a newer minor version "
                            "that this service does not know", pointer)

    @staticmethod
    def compile_filter(req: Mapping[str, Any]) -> filters.Predicate | None:
        flt = req.get("filter")
        return None if flt is None else filters.compile_filter(flt, "/filter")

    def mutate(self, method: str, call: Call, req: Mapping[str, Any],
               perform: Callable[[Transaction, TenantState], dict[str, Any]],
               digest: bytes | None = None, single: Callable[[], bytes] | None = None) -> bytes:
        """Run a mutating operation: idempotency, one transaction, the
        response recorded under the operation identifier. ``single`` gives
        the request's digest of the single form (``digest``) when
        ``digest`` is of another form: an operation recorded with one is
        the same request when that matches."""
        assert call.tenant is not None
        if digest is None:
            digest = self.digest(method, req)
        op = req["operation_id"]
        with self.store.write() as tx:
            t = tx.tenant(call.tenant)
            assert t is not None
            prior = tx.recorded(t, op)
            if prior is not None:
                if prior[0] == method and (prior[1] == digest or (
                        single is not None and len(prior[1]) == SINGLE_DIGEST_BYTES and prior[1] == single())):
                    if not prior[2]:
                        raise error("OPERATION_ERASED", "an erasure removed the response of this "
                                    "operation; it is not performed again", "/operation_id")
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

    @staticmethod
    def _revision_message(stored: Row | None, expected: int) -> str:
        if stored is None:
            return f"the record does not exist; expected revision {expected}"
        if expected == 0:
            return "the record exists; expected none"
        return f"revision is {stored.rev}, not {expected}"

    @staticmethod
    def find_for_write(tx: Transaction, t: TenantState, rec: Mapping[str, Any], where: str,
                       scope: Mapping[str, Any] | None) -> tuple[Row | None, bool]:
        """The stored record a write replaces: by id, else by key within the
        namespace; RECORD_EXISTS when the key is held by another record, or
        when the record found lies outside the request scope (identifiers
        and keys are unique in the tenant, and a write changes only records
        within its scope)."""
        stored = tx.find(t, rec["id"])
        key = rec.get("key")
        by_key = False
        if key:
            holder = tx.find_key(t, rec.get("scope", {}).get("namespace"), key)
            if stored is None:
                stored, by_key = holder, holder is not None
            elif holder is not None and holder.rid != stored.rid:
                raise error("RECORD_EXISTS", "the key is held by another record", f"{where}/key")
        if stored is not None and not r.within(stored.doc.get("scope"), scope):
            raise error("RECORD_EXISTS", f"the {'key' if by_key else 'identifier'} is held by a "
                        "record outside the request scope", f"{where}/{'key' if by_key else 'id'}")
        return stored, by_key

    def write_record(self, tx: Transaction, t: TenantState, rec: dict[str, Any], stored: Row | None,
                     now: str, staged: bool = False) -> Row | None:
        """Create or replace a record with the store-maintained fields of
        operations.md section 4.3.1; None when the stored record is equal.
        ``rec`` is canonical (``records.canonical`` or ``canonical_record``)
        but for its scope."""
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
            # Every value set here is canonical.
            doc = r.in_canonical_order(doc)
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
        doc = r.recanonical(doc)
        if r.same(doc, old):
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
        doc = r.recanonical(doc)
        row = tx.replace(t, stored, doc)
        tx.change(t, UPDATED, doc, row.rid)
        return row

    @staticmethod
    def _set_hash(doc: dict[str, Any], old: Mapping[str, Any] | None) -> None:
        """provenance.content_hash: computed from the payload (canonical);
        a tombstone keeps the hash it was written with, or the stored one."""
        name = r.payload_member(doc)
        if name is not None:
            r.set_member(doc, "provenance", "content_hash", r.payload_hash(doc[name]))
        elif "content_hash" not in doc.get("provenance", {}) and old is not None:
            h = old.get("provenance", {}).get("content_hash")
            if h:
                r.set_member(doc, "provenance", "content_hash", h)

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
             cursor_after: Callable[[int], str], **extra: Any) -> tuple[bytes, int]:
        """The response of a page of History or Search: ``items`` in
        ``field``, ``next_cursor`` (``cursor_after(i)``: the cursor after
        the item i) when more results follow, and the ``extra`` fields. A page whose document would
        exceed max_document_bytes is shortened to the items that fit, and
        continues at the next cursor (operations.md section 4.5, grpc-binding.md
        section 2.3). Returns the bytes and the number of items sent."""
        def encode(count: int, more: bool) -> bytes:
            return self.encode(response_type(method), self.envelope(
                req, **{field: list(items[:count]) or None},
                next_cursor=cursor_after(count - 1) if more and count else None, **extra))

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
        doc = r.canonical(doc)
        doc["revision"] = row.rev + 1
        doc["updated_at"] = r.now()
        self._set_hash(doc, row.doc)
        doc = r.canonical(doc)
        new = tx.replace(t, row, doc)
        tx.change(t, kind, doc, row.rid)
        return new

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


def lower_claims(doc: dict[str, Any], stored: Mapping[str, Any] | None = None) -> None:
    """Lower what a caller asserts of a record's provenance and is not
    entitled to (security.md section 3.3): trust verified or system becomes
    unverified, and origin system is not recorded. A value the stored
    record has already is kept: a patch that leaves it alone does not assert it."""
    provenance = doc.get("provenance")
    if not provenance:
        return
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


def with_status(doc: Mapping[str, Any], status: str) -> dict[str, Any]:
    out = dict(doc)
    r.set_member(out, "lifecycle", "status", status)
    return out


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


#: The message whose enum values are record content, not instructions, and
#: the messages of arbitrary values, which hold no enum field.
_CONTENT = frozenset({"memorywire.v1.MemoryRecord", "memorywire.v1.Value", "memorywire.v1.ValueList",
                      "memorywire.v1.ValueMap"})


def is_enum_value(type_name: str, pointer: str) -> bool:
    """Whether ``pointer`` in a request of ``type_name`` names the value of
    an enum field of the field tables (singular, an element of a repeated
    field or the value of a map), outside the records the request carries,
    rather than a member the reader does not know."""
    info = _model.message(type_name)
    tokens = [t.replace("~1", "/").replace("~0", "~") for t in pointer.split("/")[1:]]
    i = 0
    while i < len(tokens):
        field = info.fields.get(tokens[i])
        if field is None:
            return False
        # A repeated field's index or a map's key follows its name.
        i += 2 if field.repeated or field.is_map else 1
        if field.message is None:
            return i == len(tokens) and field.enum is not None
        if field.message.full_name in _CONTENT:
            return False
        info = field.message
    return False
