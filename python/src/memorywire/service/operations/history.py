"""History (operations.md section 8)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from memorywire.service import cursors
from memorywire.service import records as r
from memorywire.service.context import Call
from memorywire.service.errors import error
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
        branch = req.get("branch")
        # A page of a branch is cut by its place in the branch, that of a
        # history by sequence.
        places: list[int] = []
        if branch:
            chain = self._branch(num, branch, req.get("scope"), selection)
            if descending:
                chain.reverse()
            start = 0 if after is None else after
            rows = chain[start:start + limit + 1]
            places = list(range(start + 1, start + len(rows) + 1))
        elif num is not None:
            with self.store.reader() as reads:
                rows = list(reads.records(num, selection, after=after, descending=descending,
                                          limit=limit + 1))
        more = len(rows) > limit
        rows = rows[:limit]
        tenant = call.tenant

        def cursor_after(i: int) -> str:
            return cursors.encode_page(self.store.secret, tenant, request_digest, 0.0,
                                       places[i] if branch else rows[i].seq, self.paging)

        return self.page("History", req, "records", r.RECORD_TYPE, [x.doc for x in rows], more,
                         cursor_after)[0]


    def _branch(self, num: int | None, leaf: str, scope: Mapping[str, Any] | None,
                selection: Selection) -> list[Row]:
        """The selected records of the branch that ends at ``leaf``, root
        first (section 8, Branches): the parents named by the first
        responds_to link of each record, up to a record without one, a
        missing parent or a cycle."""
        with self.store.reader() as reads:
            found = reads.records_by_ids(num, [leaf]) if num is not None else []
            if not found or not r.within(found[0].doc.get("scope"), scope):
                raise error("RECORD_NOT_FOUND", "no such record", "/branch")
            assert num is not None
            chain: list[Row] = []
            seen: set[str] = set()
            row: Row | None = found[0]
            while row is not None and row.id not in seen:
                seen.add(row.id)
                chain.append(row)
                parent = next((x.get("target") for x in row.doc.get("links", ())
                               if x.get("type") == "responds_to"), None)
                parents = reads.records_by_ids(num, [parent]) if parent else []
                row = parents[0] if parents else None
            selected = {x.rid for x in reads.rows_among(num, selection, [x.rid for x in chain])}
        return [x for x in reversed(chain) if x.rid in selected]
