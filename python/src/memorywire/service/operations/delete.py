"""Delete (operations.md section 11)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from memorywire.service import filters
from memorywire.service import records as r
from memorywire.service.context import Call
from memorywire.service.errors import error
from memorywire.service.operations.common import Base
from memorywire.service.storage import Selection, TenantState, Transaction


class Delete(Base):
    """The operation of this chapter; the registry names its handler, ``delete``."""

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

