"""Helpers of the service tests: record builders and error checks."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from memorywire.client import ServiceError


def fact(id: str, text: str, **extra: Any) -> dict[str, Any]:
    return {"id": id, "kind": "fact", "fact": {"text": text}, **extra}


def message(id: str, role: str, text: str, **extra: Any) -> dict[str, Any]:
    return {"id": id, "kind": "message",
            "message": {"role": role, "content": [{"text": {"text": text}}]}, **extra}


def embedding(values: list[float], model: str = "demo") -> list[dict[str, Any]]:
    return [{"model": model, "dimensions": len(values), "values": values}]


def fails(reason: str, call: Callable[[], Any], pointer: str | None = None) -> ServiceError:
    """Run a call that must fail with a reason (and pointer); return the error."""
    with pytest.raises(ServiceError) as info:
        call()
    e = info.value
    assert e.reason == reason, (e.reason, e.message, e.violations)
    if pointer is not None:
        assert e.pointer == pointer, (e.pointer, e.violations)
    return e


def send(channel: Any, method: str, request: Any, tenant: str | None = None,
         metadata: tuple[tuple[str, str], ...] = ()) -> bytes:
    """Send a request the client does not check: an upb message, a JSON-form
    document (written without validation) or bytes.
    Raise the ServiceError of a failure."""
    import grpc

    import memorywire.protobuf
    from memorywire.client import service_error

    if isinstance(request, dict):
        doc = {"specversion": "1.0", "operation_id": "op-raw", **request}
        request = memorywire.protobuf.Encoder(f"memorywire.v1.{method}Request").encode_valid(doc)
    data = request if isinstance(request, bytes) else request.SerializeToString()
    md = tuple(metadata) + ((("memorywire-tenant", tenant),) if tenant is not None else ())
    try:
        out: bytes = channel.unary_unary(f"/memorywire.v1.MemoryService/{method}")(
            data, metadata=md, timeout=30)
    except grpc.RpcError as e:
        raise service_error(e) from None
    return out


def put_records(svc: Any, records: list[dict[str, Any]], op: str, tenant: str = "t") -> None:
    """Put records into an in-process Service, 500 a request."""
    from memorywire.service.operations import Call

    for i in range(0, len(records), 500):
        svc.put(Call(tenant), {"specversion": "1.0", "operation_id": f"{op}-{i}",
                               "items": [{"record": x} for x in records[i:i + 500]]})


def search_hits(svc: Any, tenant: str = "t", **req: Any) -> list[tuple[str, float, float | None, float | None]]:
    """(id, score, text_score, vector_score) of the hits of one Search page
    of an in-process Service."""
    import memorywire.protobuf
    from memorywire.service.operations import Call

    data = svc.search(Call(tenant), {"specversion": "1.0", "operation_id": "s", **req})
    out = memorywire.protobuf.decode(data, type="memorywire.v1.SearchResponse")
    return [(h["record"]["id"], h.get("score", 0.0), h.get("text_score"), h.get("vector_score"))
            for h in out.get("hits", [])]


def downgrade_to_schema_3(path: str) -> None:
    """Rewrite a closed SQLite store file in the layout of schema version 3:
    embedding values as base64 within each document and again in
    ``embeddings.raw``, a full document in every change, found by record
    id, and a full-text index that keeps a copy of each text."""
    import sqlite3

    from memorywire.service import records as r

    conn = sqlite3.connect(path)
    with conn:
        conn.execute("CREATE TABLE e3 (rid INTEGER NOT NULL, tenant INTEGER NOT NULL, model TEXT NOT NULL, "
                     "dims INTEGER NOT NULL, raw BLOB NOT NULL, norm REAL NOT NULL)")
        conn.execute("INSERT INTO e3 SELECT e.rid, e.tenant, e.model, e.dims, substr(r.vecs, e.off + 1, "
                     "4 * e.dims), e.norm FROM embeddings e JOIN records r ON r.rid = e.rid")
        conn.execute("DROP TABLE embeddings")
        conn.execute("ALTER TABLE e3 RENAME TO embeddings")
        conn.execute("CREATE INDEX embeddings_rid ON embeddings (rid)")
        conn.execute("CREATE INDEX embeddings_group ON embeddings (tenant, model, dims)")
        conn.execute("CREATE TABLE c3 (tenant INTEGER NOT NULL, pos INTEGER NOT NULL, type INTEGER NOT NULL, "
                     "record_id TEXT NOT NULL, at REAL NOT NULL, doc BLOB NOT NULL, PRIMARY KEY (tenant, pos)) "
                     "WITHOUT ROWID")
        for tenant, pos, kind, at, data, vecs, rdata, rvecs in conn.execute(
                "SELECT c.tenant, c.pos, c.type, c.at, c.doc, c.vecs, r.doc, r.vecs FROM changes c "
                "LEFT JOIN records r ON r.rid = c.rid").fetchall():
            doc = r.unpack_split(data, vecs) if data is not None else r.unpack_split(rdata, rvecs)
            conn.execute("INSERT INTO c3 VALUES (?, ?, ?, ?, ?, ?)", (tenant, pos, kind, doc["id"], at, r.pack(doc)))
        conn.execute("DROP TABLE changes")
        conn.execute("ALTER TABLE c3 RENAME TO changes")
        conn.execute("CREATE INDEX changes_record ON changes (tenant, record_id)")
        for rid, data, vecs in conn.execute("SELECT rid, doc, vecs FROM records").fetchall():
            conn.execute("UPDATE records SET doc = ? WHERE rid = ?", (r.pack(r.unpack_split(data, vecs)), rid))
        conn.execute("ALTER TABLE records DROP COLUMN vecs")
        # the full-text index with a copy of each text, as before schema 5
        conn.execute("DROP TABLE texts")
        conn.execute("CREATE VIRTUAL TABLE texts USING fts5 (body, tokenize = 'porter unicode61 remove_diacritics 2')")
        conn.executemany("INSERT INTO texts (rowid, body) VALUES (?, ?)", [
            (rid, text) for rid, data in conn.execute("SELECT rid, doc FROM records").fetchall()
            if (text := r.text_of(r.unpack(data)))])
        conn.execute("UPDATE meta SET value = '3' WHERE key = 'schema'")
    conn.close()
