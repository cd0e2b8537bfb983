"""Put (operations.md section 6)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from memorywire.service import records as r
from memorywire.service import vectors
from memorywire.service.context import Call
from memorywire.service.errors import ServiceError, error
from memorywire.service.operations.common import Base, collector_paused
from memorywire.service.storage import TenantState, Transaction


class Put(Base):
    """The operation of this chapter; the registry names its handler, ``put``."""

    def put(self, call: Call, req: Mapping[str, Any], unknown: Iterable[str] = ()) -> bytes:
        # The batch is gone when the collector runs again.
        with collector_paused():
            return self._put(call, req, unknown)

    def _put(self, call: Call, req: Mapping[str, Any], unknown: Iterable[str]) -> bytes:
        assert call.tenant is not None
        items = req["items"]
        self.check_representable(unknown, (f"/items/{i}/record" for i in range(len(items))))
        self.check_tenant(call.tenant, req, ((f"/items/{i}/record", it["record"])
                                             for i, it in enumerate(items)))
        atomic = bool(req.get("atomic"))
        staged = bool(req.get("require_approval"))
        # Each record in its canonical form once, its embedding values as
        # their binary32 bytes (records.Vector): the digest, the store and
        # the vector index read those, and no value becomes a Python float.
        # Their norms are measured together.
        records = [r.canonical_record(it["record"]) for it in items]
        measured = [e["values"] for rec in records for e in rec.get("embeddings", ())
                    if type(e.get("values")) is r.Vector]
        for values, norm in zip(measured, vectors.norms_of([v.raw for v in measured]), strict=True):
            values.norm = norm
        digest = self.items_digest("Put", req, records)
        self.store.analyzer.prepare(r.text_of(rec) for rec in records)

        def perform(tx: Transaction, t: TenantState) -> dict[str, Any]:
            now = r.now()
            # Each record is written once: _put_item completes its scope in place.
            tx.prefetch(t, [rec["id"] for rec in records])
            results = []
            for i, item in enumerate(items):
                try:
                    results.append(self._put_item(tx, t, req, i, item, records[i], staged, now))
                except ServiceError as e:
                    if atomic:
                        raise ServiceError("BATCH_FAILED", f"item {i} failed: {e.message}",
                                           e.violations, "ABORTED") from None
                    results.append({"id": item["record"]["id"], "status": "failed",
                                    "error": e.to_error_document()})
            return self.envelope(req, results=results)

        return self.mutate("Put", call, req, perform, digest, lambda: self.digest("Put", {**req, "items": [
            {**it, "record": r.canonical(it["record"])} for it in items]}))

    def _put_item(self, tx: Transaction, t: TenantState, req: Mapping[str, Any], i: int,
                  item: Mapping[str, Any], rec: dict[str, Any], staged: bool, now: str) -> dict[str, Any]:
        where = f"/items/{i}"
        r.complete_scope(rec, req.get("scope"), t.name)
        stored, by_key = self.find_for_write(tx, t, rec, f"{where}/record", req.get("scope"))
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

