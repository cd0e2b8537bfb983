"""Compact (operations.md section 14)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from memorywire.service import records as r
from memorywire.service.context import Call
from memorywire.service.errors import error
from memorywire.service.operations.common import Base, with_status
from memorywire.service.storage import UPDATED, Row, TenantState, Transaction


class Compact(Base):
    """The operation of this chapter; the registry names its handler, ``compact``."""

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
            stored, _ = self.find_for_write(tx, t, rec, "/summary", scope)
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
            rec = r.canonical(rec)
            row = self.write_record(tx, t, rec, None, r.now())
            assert row is not None
            disposition = req.get("disposition", "archive")
            now = r.now()
            for x in compacted:
                if x.doc.get("lifecycle", {}).get("pinned"):
                    continue
                if disposition == "archive" and x.status == "active":
                    self.change_record(tx, t, x, with_status(x.doc, "archived"), UPDATED)
                elif disposition == "delete":
                    self.delete_row(tx, t, x, False, None, now)
            return self.envelope(req, summary=row.doc, compacted_ids=[x.id for x in compacted])

        return self.mutate("Compact", call, req, perform)

