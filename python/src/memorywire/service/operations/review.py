"""Review (operations.md section 15)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from memorywire.service import records as r
from memorywire.service.context import Call
from memorywire.service.errors import error
from memorywire.service.operations.common import Base, with_status
from memorywire.service.storage import UPDATED, TenantState, Transaction


class Review(Base):
    """The operation of this chapter; the registry names its handler, ``review``."""

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
            doc = with_status(doc, "rejected" if decision == "reject" else "active")
            if decision == "reject":
                r.drop_member(doc, "lifecycle", "reason")
                if req.get("reason"):
                    r.set_member(doc, "lifecycle", "reason", req["reason"])
            new = self.change_record(tx, t, row, doc, UPDATED)
            tx.review(t, row.id, new.rev, decision, req.get("reviewer", ""), req.get("reason", ""),
                      req["operation_id"], r.now())
            return self.envelope(req, record=new.doc)

        return self.mutate("Review", call, req, perform)

