"""Erase (operations.md section 19)."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

from memorywire.service import records as r
from memorywire.service.context import Call
from memorywire.service.errors import error
from memorywire.service.operations.common import Base
from memorywire.service.storage import Selection, TenantState, Transaction

__all__ = ["Erase", "erasure_digest"]


def erasure_digest(ids: Sequence[str]) -> str:
    """The receipt's digest of the identifiers of the records erased: the
    SHA-256 of each, sorted by code point, followed by a line feed."""
    data = "".join(x + "\n" for x in sorted(ids)).encode("utf-8")
    return "sha256:" + hashlib.sha256(data).hexdigest()


class Erase(Base):
    """The operation of this chapter; the registry names its handler, ``erase``."""

    def erase(self, call: Call, req: Mapping[str, Any]) -> bytes:
        assert call.tenant is not None
        pred = self.compile_filter(req)
        self.check_tenant(call.tenant, req)
        scope = req.get("scope")
        selection = Selection.of(scope)
        if pred is None and not selection.scoped:
            raise error("REQUIRED_FIELD_MISSING", "an erasure names its subject: a member of scope "
                        "other than tenant, or a filter", "/scope")

        def perform(tx: Transaction, t: TenantState) -> dict[str, Any]:
            rows = [row for row in tx.records(t.num, selection) if pred is None or pred(row.doc)]
            changes, operations = tx.erase(t, rows)
            return self.envelope(req, receipt={
                "records": len(rows), "changes": changes, "operations": operations,
                "digest": erasure_digest([row.id for row in rows]), "erased_at": r.now()})

        try:
            return self.mutate("Erase", call, req, perform)
        finally:
            self.store.scrub()
