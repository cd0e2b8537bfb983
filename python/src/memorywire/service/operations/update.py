"""Update (operations.md section 10)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from memorywire.service import records as r
from memorywire.service.context import Call
from memorywire.service.errors import error
from memorywire.service.operations.common import NOT_SEEN_BY_GET, Base
from memorywire.service.storage import UPDATED, TenantState, Transaction


class Update(Base):
    """The operation of this chapter; the registry names its handler, ``update``."""

    def update(self, call: Call, req: Mapping[str, Any]) -> bytes:
        assert call.tenant is not None
        self.check_tenant(call.tenant, req)

        def perform(tx: Transaction, t: TenantState) -> dict[str, Any]:
            row = tx.find(t, req["id"])
            if row is None or not r.within(row.doc.get("scope"), req.get("scope")) or \
                    row.status in NOT_SEEN_BY_GET:
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

