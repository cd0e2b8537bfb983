"""A SQLite store of schema version 4, written by the service of that
version, opens with the current version: the file is moved to the current
schema, and the store answers every read as a store written by the current
version does, and takes the same writes after.

``data/schema-4.sqlite3.gz`` is the file ``write_history`` left, run by
the service of schema version 4 (``python test_service_migration.py
OUT``, with that version of memorywire on the path)."""

from __future__ import annotations

import gzip
import shutil
import sqlite3
import sys
from pathlib import Path
from typing import Any

import memorywire.protobuf
from memorywire.service import Service, Store, cursors
from memorywire.service.operations import Call
from memorywire.service.storage import Selection

FIXTURE = Path(__file__).with_name("data") / "schema-4.sqlite3.gz"


def _fact(id: str, text: str, *vectors: tuple[str, list[float]], **extra: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {"id": id, "kind": "fact", "fact": {"text": text}, **extra}
    if vectors:
        doc["embeddings"] = [{"model": m, "dimensions": len(v), "values": v} for m, v in vectors]
    return doc


def _put(svc: Service, tenant: str, op: str, *records: dict[str, Any]) -> None:
    svc.put(Call(tenant), {"specversion": "1.0", "operation_id": op, "items": [{"record": x} for x in records]})


def write_history(svc: Service) -> None:
    """What the schema-4 file holds: records of several kinds, with
    embeddings of two groups (a zero vector among them), a key, a
    namespace, a replacement, a soft and a hard deletion, an access, a
    consumer's offset and a second tenant."""
    _put(svc, "t", "p-1",
         _fact("a", "alpha beta", ("m3", [1.0, 2.0, 3.0])),
         _fact("b", "beta gamma", ("m3", [0.0, 1.0, 0.0]), ("m2", [1.0, -0.0])),
         {"id": "c", "kind": "message", "message": {"role": "user", "content": [{"text": {"text": "alpha chat"}}]}},
         {"id": "d", "kind": "custom", "custom": {"type": "t", "value": {"text": "window seat alpha"}}},
         _fact("k", "keyed note", ("m3", [0.5, 0.25, 1.0]), key="pref", scope={"namespace": ["n"]}),
         _fact("z", "zero vector", ("m3", [0.0, 0.0, 0.0])),
         _fact("h", "to go for good", ("m3", [2.0, 1.0, 0.0])),
         _fact("s", "to go softly", ("m2", [0.0, 1.0])))
    _put(svc, "t", "p-2", _fact("a", "alpha delta", ("m3", [3.0, 2.0, 1.0])))
    _put(svc, "u", "p-3", _fact("a", "other tenant alpha", ("m3", [1.0, 1.0, 1.0])))
    svc.delete(Call("t"), {"specversion": "1.0", "operation_id": "d-1", "ids": ["h"], "mode": "hard"})
    svc.delete(Call("t"), {"specversion": "1.0", "operation_id": "d-2", "ids": ["s"]})
    svc.get(Call("t"), {"specversion": "1.0", "operation_id": "g-1", "ids": ["b"], "touch": True})
    svc.commit_offset(Call("t"), {"specversion": "1.0", "operation_id": "o-1", "consumer": "c1",
                                  "cursor": _cursor_after(svc, "t", 3)})


def _cursor_after(svc: Service, tenant: str, position: int) -> str:
    return cursors.encode_position(svc.store.secret, tenant, position)


def _timeless(x: Any) -> Any:
    """A document without the times the service set (which differ between
    the two stores)."""
    if isinstance(x, dict):
        return {k: _timeless(v) for k, v in x.items() if not k.endswith("_at") and k != "content_hash"}
    if isinstance(x, list):
        return [_timeless(v) for v in x]
    return x


def _answers(svc: Service) -> list[Any]:
    """What the store answers: every record and change of each tenant,
    searches by text, vector and both, Get of a key, offsets."""
    store = svc.store
    out: list[Any] = []
    for tenant in ("t", "u"):
        num = store.tenant_num(tenant)
        assert num is not None
        with store.reader() as reads:
            out.append([(row.id, row.seq, row.rev, row.status, row.key, row.ns, _timeless(row.doc))
                        for row in reads.records(num, Selection())])
            out.append([row.id for row in reads.records(num, Selection(), after=2, descending=True, limit=3)])
            out.append([row.id for row in reads.records(num, Selection(), after=2, limit=3)])
            out.append(sorted(reads.sequences(num, Selection(statuses=("active",))).values()))
            out.append([(pos, kind, _timeless(doc)) for pos, kind, doc in reads.changes_after(num, 0, 100)])
            out.append(reads.offset(num, "c1"))
            out.append(sorted((m, d, reads.embedding_count(num, m, d), sorted(reads.embedded(num, m, d)))
                              for m, d in (("m3", 3), ("m2", 2))))
        for threshold in (0, 1 << 20):
            store.vector_exact_threshold = threshold  # the in-memory index, and exact scans
            for req in ({"text": "alpha"}, {"vector": {"model": "m3", "values": [1.0, 2.0, 3.0]}},
                        {"vector": {"model": "m2", "values": [1.0, 0.0]}},
                        {"text": "beta", "vector": {"model": "m3", "values": [0.0, 1.0, 0.0]}}):
                data = svc.search(Call(tenant), {"specversion": "1.0", "operation_id": "s", **req})
                hits = memorywire.protobuf.decode(data, type="memorywire.v1.SearchResponse").get("hits", [])
                out.append([(h["record"]["id"], h.get("score"), h.get("text_score"), h.get("vector_score"))
                            for h in hits])
    return out


def _more(svc: Service) -> None:
    """Writes after the move: a new record, replacements of embeddings and
    text, a hard deletion, an erasure."""
    _put(svc, "t", "p-4", _fact("n", "new alpha", ("m3", [1.0, 0.0, 0.0])),
         _fact("b", "beta only", ("m2", [0.0, 2.0])), _fact("k", "keyed alpha again", key="pref",
                                                            scope={"namespace": ["n"]}))
    svc.delete(Call("t"), {"specversion": "1.0", "operation_id": "d-3", "ids": ["a"], "mode": "hard"})
    svc.erase(Call("u"), {"specversion": "1.0", "operation_id": "e-1", "filter": {
        "compare": {"field": "/id", "operator": "eq", "value": "a"}}})
    _put(svc, "u", "p-5", _fact("v", "after the erasure", ("m3", [0.0, 0.0, 1.0])))


def test_a_store_of_schema_4_moves_to_the_current_schema(tmp_path: Path) -> None:
    old = tmp_path / "old.sqlite3"
    with gzip.open(FIXTURE) as src, old.open("wb") as dst:
        shutil.copyfileobj(src, dst)
    conn = sqlite3.connect(old)
    assert conn.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()[0] == "4"
    conn.close()
    fresh = Service(Store(str(tmp_path / "new.sqlite3")))
    moved = Service(Store(str(old)))
    try:
        write_history(fresh)
        indexes = {name for (name,) in moved.store._writer.execute(
            "SELECT name FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL")}
        assert indexes == {name for (name,) in fresh.store._writer.execute(
            "SELECT name FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL")}
        assert not indexes & {"records_seq", "embeddings_rid", "embeddings_group"}
        for svc in (moved, fresh):
            assert svc.store._writer.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()[0] == "5"
            assert [x[1] for x in svc.store._writer.execute("PRAGMA table_info(embeddings)")] == [
                "rid", "tenant", "model", "dims", "off", "norm"]
        before = _answers(moved)
        assert before == _answers(fresh)
        # a replay is recognised in the moved store as in the one it was written in
        _put(moved, "t", "p-2", _fact("a", "alpha delta", ("m3", [3.0, 2.0, 1.0])))
        for svc in (moved, fresh):
            _more(svc)
        after = _answers(moved)
        assert after == _answers(fresh) and after != before
        rows = moved.store._writer.execute(
            "SELECT count(*) FROM embeddings e JOIN tenants t ON t.num = e.tenant WHERE t.name = 'u'").fetchone()
        assert rows == (1,)
    finally:
        moved.store.close()
        fresh.store.close()
    # and opens again as it is
    again = Store(str(old))
    try:
        assert again._writer.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()[0] == "5"
    finally:
        again.close()


if __name__ == "__main__":
    # Write the fixture with the service on the path (of schema version 4).
    out = Path(sys.argv[1])
    svc = Service(Store(str(out)))
    write_history(svc)
    svc.store.close()
    with out.open("rb") as src, gzip.open(str(out) + ".gz", "wb", compresslevel=9) as dst:
        shutil.copyfileobj(src, dst)
