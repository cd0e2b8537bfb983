"""History (operations.md section 8)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from memorywire.service import cursors
from memorywire.service import records as r
from memorywire.service.context import Call
from memorywire.service.operations.common import Base
from memorywire.service.storage import Row, Selection


class History(Base):
    """The operation of this chapter; the registry names its handler, ``history``."""

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

