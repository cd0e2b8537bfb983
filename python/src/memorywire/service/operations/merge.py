"""Merge (operations.md section 13)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from memorywire.service import records as r
from memorywire.service.context import Call
from memorywire.service.errors import error
from memorywire.service.operations.common import Base, with_status
from memorywire.service.storage import UPDATED, Row, TenantState, Transaction


class Merge(Base):
    """The operation of this chapter; the registry names its handler, ``merge``."""

    def merge(self, call: Call, req: Mapping[str, Any]) -> bytes:
        assert call.tenant is not None
        self.check_tenant(call.tenant, req)
        scope = req.get("scope")

        def seen(row: Row | None) -> bool:
            return row is not None and r.within(row.doc.get("scope"), scope) and \
                row.status in ("active", "archived")

        def perform(tx: Transaction, t: TenantState) -> dict[str, Any]:
            target = tx.find(t, req["target_id"])
            if target is None or not seen(target):
                raise error("RECORD_NOT_FOUND", "no such record", "/target_id")
            expected = req.get("expected_revision")
            if expected is not None and expected != target.rev:
                raise error("REVISION_MISMATCH", self._revision_message(target, expected),
                            "/expected_revision")
            sources: list[Row] = []
            taken: set[str] = {target.id}
            for i, sid in enumerate(req["source_ids"]):
                if sid in taken:
                    continue
                taken.add(sid)
                row = tx.find(t, sid)
                if row is None or not seen(row):
                    raise error("RECORD_NOT_FOUND", "no such record", f"/source_ids/{i}")
                if row.doc["kind"] != target.doc["kind"]:
                    raise error("KIND_MISMATCH", "the records of a merge are of one kind",
                                f"/source_ids/{i}")
                sources.append(row)
            doc = _merged(target, sources, req.get("strategy", "keep_target"))
            if r.dumps(r.canonical(doc)) != r.dumps(target.doc):
                new = self.change_record(tx, t, target, doc, UPDATED)
            else:
                new = target
            for row in sources:
                if row.status == "active":
                    self.change_record(tx, t, row, with_status(row.doc, "archived"), UPDATED)
            return self.envelope(req, record=new.doc,
                                 superseded_ids=[row.id for row in sources] or None)

        return self.mutate("Merge", call, req, perform)


def _merged(target: Row, sources: list[Row], strategy: str) -> dict[str, Any]:
    """The target of a merge, by operations.md section 13."""
    doc = dict(target.doc)
    if strategy == "keep_newest":
        newest = max([target, *sources], key=lambda x: x.pos)
        if newest is not target:
            for name in (*r.PAYLOADS, "embeddings", "native"):
                doc.pop(name, None)
                if name in newest.doc:
                    doc[name] = newest.doc[name]
    tags = list(doc.get("tags", ()))
    for row in sources:
        tags += [x for x in row.doc.get("tags", ()) if x not in tags]
    links = list(doc.get("links", ()))
    have = {(x["type"], x["target"]) for x in links}
    for row in sources:
        for link in row.doc.get("links", ()):
            pair = (link["type"], link["target"])
            if pair not in have and link["target"] != target.id:
                links.append(link)
                have.add(pair)
    for row in sources:
        if ("supersedes", row.id) not in have:
            links.append({"type": "supersedes", "target": row.id})
            have.add(("supersedes", row.id))
    metadata = dict(doc.get("metadata", {}))
    for row in sources:
        for k, v in row.doc.get("metadata", {}).items():
            metadata.setdefault(k, v)
    if len(tags) > 1000 or len(links) > 1000 or len(metadata) > 1000:
        raise error("COUNT_OUT_OF_RANGE", "the target would hold more than 1000 tags, links or "
                    "metadata entries", "/source_ids")
    for name, value in (("tags", tags), ("links", links), ("metadata", metadata)):
        if value:
            doc[name] = value
    if strategy == "keep_highest":
        for name in ("importance", "confidence"):
            values = [x.doc.get("lifecycle", {})[name] for x in (target, *sources)
                      if name in x.doc.get("lifecycle", {})]
            if values:
                r.set_member(doc, "lifecycle", name, max(values))
    return doc
