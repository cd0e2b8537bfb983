"""Expire (operations.md section 12)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from memorywire.service import records as r
from memorywire.service.context import Call
from memorywire.service.operations.common import Base, with_status
from memorywire.service.storage import UPDATED, Selection, TenantState, Transaction


class Expire(Base):
    """The operation of this chapter; the registry names its handler, ``expire``."""

    def expire(self, call: Call, req: Mapping[str, Any]) -> bytes:
        assert call.tenant is not None
        self.check_tenant(call.tenant, req)
        policy = req["policy"]
        # An action of a newer minor version fails where the request is read
        # (Base.check_enum_values).
        action = req["action"]
        dry_run = bool(req.get("dry_run"))

        def perform(tx: Transaction, t: TenantState) -> dict[str, Any]:
            now = r.now()
            as_of = r.instant(req.get("as_of") or now)
            statuses = ("active",) if action == "archive" else ("active", "archived")
            kinds = policy.get("kinds")
            selection = Selection.of(req.get("scope"), statuses=statuses,
                                     kinds=tuple(kinds) if kinds else None)
            selected = [row for row in tx.records(t.num, selection) if _expires(row.doc, policy, as_of)]
            if not dry_run:
                for row in selected:
                    if action == "archive":
                        self.change_record(tx, t, row, with_status(row.doc, "archived"), UPDATED)
                    elif action == "delete":
                        self.delete_row(tx, t, row, False, None, now)
                    else:
                        importance = float(row.doc.get("lifecycle", {}).get("importance", 0.5))
                        if importance != 0.0:
                            doc = dict(row.doc)
                            r.set_member(doc, "lifecycle", "importance", importance / 2)
                            self.change_record(tx, t, row, doc, UPDATED)
            return self.envelope(req, expired_ids=[row.id for row in selected] or None)

        return self.mutate("Expire", call, req, perform)


def _expires(doc: Mapping[str, Any], policy: Mapping[str, Any], t: tuple[int, int]) -> bool:
    """Whether a record meets every criterion of an expire policy at t."""
    life = doc.get("lifecycle", {})
    if life.get("pinned"):
        return False
    created = r.instant(doc["created_at"]) if "created_at" in doc else None
    accessed = r.instant(life["last_accessed_at"]) if "last_accessed_at" in life else created
    n = policy.get("older_than_seconds")
    if n is not None and (created is None or not (created[0] + n, created[1]) < t):
        return False
    n = policy.get("not_accessed_seconds")
    if n is not None and (accessed is None or not (accessed[0] + n, accessed[1]) < t):
        return False
    below = policy.get("importance_below")
    if below is not None:
        importance = float(life.get("importance", 0.5))
        half_life = policy.get("half_life_seconds")
        if half_life is not None and accessed is not None and accessed < t:
            seconds = (t[0] - accessed[0]) + (t[1] - accessed[1]) / 1e9
            importance = importance * 0.5 ** (seconds / half_life)
        if not importance < below:
            return False
    if policy.get("past_expiry"):
        expires = life.get("expires_at")
        if expires is None or r.instant(expires) > t:
            return False
    return True
