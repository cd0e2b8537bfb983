"""Get (operations.md section 7)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from memorywire.service import records as r
from memorywire.service.context import Call
from memorywire.service.errors import error
from memorywire.service.operations.common import NOT_SEEN_BY_GET, Base, response_type
from memorywire.service.storage import Row


class Get(Base):
    """The operation of this chapter; the registry names its handler, ``get``."""

    def get(self, call: Call, req: Mapping[str, Any]) -> bytes:
        assert call.tenant is not None
        self.check_tenant(call.tenant, req)
        ids = list(dict.fromkeys(req["ids"]))
        scope = req.get("scope")
        include_deleted = bool(req.get("include_deleted"))

        def visible(row: Row | None) -> bool:
            return row is not None and r.within(row.doc.get("scope"), scope) and (
                include_deleted or row.status not in NOT_SEEN_BY_GET)

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

