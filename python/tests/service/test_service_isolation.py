"""Tenant isolation (operations.md section 4.1, security.md section 1):
nothing of another tenant's is read, listed, searched, watched, exported,
counted or changed."""

from __future__ import annotations

from typing import Any

from service_helpers import embedding, fact, fails, message

from memorywire.client import Client


def test_nothing_crosses_tenants(connect: Any, tenant: str) -> None:
    a: Client = connect(tenant + "-a")
    b: Client = connect(tenant + "-b")
    a.put([fact("secret", "The launch code is swordfish.", embeddings=embedding([1.0, 0.0]),
                key="k", scope={"user": "u"}),
           message("m1", "user", "swordfish", routing={"agent": "A"})])
    stream_b = b.watch(from_start=True)
    b.put(fact("mine", "A swordfish is a fish.", embeddings=embedding([0.0, 1.0])))

    # read and listed
    out = b.get("secret", include_deleted=True)
    assert out["missing_ids"] == ["secret"] and out["records"] == []
    assert b.get(["secret", "m1"])["records"] == []
    assert [r["id"] for r in b.history()["records"]] == ["mine"]
    assert [r["id"] for r in b.export(include_deleted=True)] == ["mine"]
    # searched: by text, vector and filter, and scores do not depend on the other tenant
    assert [h["record"]["id"] for h in b.search("swordfish")["hits"]] == ["mine"]
    only = [h["vector_score"] for h in b.search(vector={"model": "demo", "values": [1.0, 0.0]})["hits"]]
    assert only == [0.0]
    assert [h["record"]["id"] for h in b.search(filter={"compare": {
        "field": "/id", "operator": "eq", "value": "secret"}}).get("hits", [])] == []
    # changed: not found, and the same answer as for a record that never existed
    e1 = fails("RECORD_NOT_FOUND", lambda: b.update("secret", {"tags": ["x"]}), "/id")
    e2 = fails("RECORD_NOT_FOUND", lambda: b.update("never", {"tags": ["x"]}), "/id")
    assert e1.message == e2.message
    fails("RECORD_NOT_FOUND", lambda: b.merge("mine", ["secret"]), "/source_ids/0")
    fails("RECORD_NOT_FOUND", lambda: b.review("secret", "approve"), "/id")
    fails("RECORD_NOT_FOUND", lambda: b.compact(["secret"], {"id": "s", "kind": "summary",
                                                             "summary": {"text": "x"}}), "/ids/0")
    assert b.delete("secret", mode="hard")["deleted_ids"] == []
    assert b.delete(filter={"compare": {"field": "/kind", "operator": "eq", "value": "message"}},
                    mode="hard")["deleted_ids"] == []
    assert b.expire({"older_than_seconds": 0}, "delete", as_of="9999-01-01T00:00:00Z")["expired_ids"] == \
        ["mine"]
    # ids and keys belong to one tenant
    assert b.put(fact("secret", "b's own record", key="k", scope={"user": "u"}))["results"][0]["status"] == \
        "created"
    # b's import replace removes only b's records
    b.import_([fact("only", "x")], mode="replace")
    # watched: b's stream carries b's changes only
    seen = [next(stream_b)["record"]["id"] for _ in range(4)]
    stream_b.cancel()
    assert all(x in ("mine", "secret", "only") for x in seen)

    # a is untouched by all of this
    rec = a.get("secret")["records"][0]
    assert rec["revision"] == 1 and rec["fact"]["text"] == "The launch code is swordfish."
    assert [r["id"] for r in a.history()["records"]] == ["secret", "m1"]
    assert [e["record"]["id"] for e in a.watch(from_start=True, max_events=2)] == ["secret", "m1"]
    assert a.put(fact("x", "y"))["results"][0]["sequence"] == 3  # sequences are per tenant


def test_tenant_in_requests_must_be_the_callers(connect: Any, tenant: str) -> None:
    a: Client = connect(tenant)
    e = fails("TENANT_MISMATCH", lambda: a.put(fact("f", "x"), scope={"tenant": "someone-else"}),
              "/scope/tenant")
    assert e.code == "PERMISSION_DENIED"
    fails("TENANT_MISMATCH", lambda: a.put([fact("f", "x"), fact("g", "y", scope={"tenant": "other"})]),
          "/items/1/record/scope/tenant")
    fails("TENANT_MISMATCH", lambda: a.search("x", scope={"tenant": "other"}), "/scope/tenant")
    assert a.get("f")["missing_ids"] == ["f"]  # nothing was written
    # naming one's own tenant is fine
    assert a.put(fact("f", "x", scope={"tenant": tenant}))["results"][0]["status"] == "created"
