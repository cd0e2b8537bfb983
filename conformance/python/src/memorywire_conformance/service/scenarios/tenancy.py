"""The caller's tenant, tenant isolation and the request scope."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from memorywire_conformance.service.client import TENANT_KEY, encode_tenant
from memorywire_conformance.service.framework import Ctx, fact, ids_of, message, scenario


@scenario("Required.Service.Tenancy.MissingTenant", "grpc-binding.md#3.1", "grpc-binding.md#3.4",
          "operations.md#4.1", "operations.md#3.3")
def missing_tenant(ctx: Ctx) -> None:
    """Every method but GetCapabilities, called without memorywire-tenant,
    fails with UNAUTHENTICATED TENANT_REQUIRED and no pointer."""
    anon = ctx.client(None)
    calls: list[tuple[str, Callable[[], Any]]] = [
        ("Put", lambda: ctx.put(fact("f-1", "x"), client=anon)),
        ("Get", lambda: ctx.get(["f-1"], client=anon)),
        ("History", lambda: ctx.call("History", {}, client=anon)),
        ("Search", lambda: ctx.call("Search", {}, client=anon)),
        ("Update", lambda: ctx.call("Update", {"id": "f-1", "patch": {"tags": ["a"]}},
                                    client=anon)),
        ("Delete", lambda: ctx.call("Delete", {"ids": ["f-1"]}, client=anon)),
        ("Export", lambda: anon.export({})),
        ("Import", lambda: anon.import_([{"records": [fact("f-1", "x")]}])),
    ]
    if ctx.has("Watch"):
        calls.append(("Watch", lambda: ctx.watch(client=anon, from_start=True).next(ctx.wait)))
    for name, fn in calls:
        ctx.expect_error(fn, "UNAUTHENTICATED", "TENANT_REQUIRED", no_pointer=True,
                         what=f"{name} without memorywire-tenant")
    ctx.eq(ctx.get(["f-1"]).get("missing_ids"), ["f-1"],
           "Get of the record that a Put without tenant tried to write")


@scenario("Required.Service.Tenancy.MalformedTenant", "grpc-binding.md#3.1")
def malformed_tenant(ctx: Ctx) -> None:
    """memorywire-tenant that is empty, given twice, holds a bad % escape,
    decodes to bytes that are not UTF-8 or to more than 256 code points fails
    with UNAUTHENTICATED TENANT_REQUIRED."""
    cases = {
        "empty": ((TENANT_KEY, ""),),
        "given twice": ((TENANT_KEY, ctx.tenant), (TENANT_KEY, ctx.tenant)),
        "a bad % escape": ((TENANT_KEY, ctx.tenant + "%zz"),),
        "a truncated % escape": ((TENANT_KEY, ctx.tenant + "%4"),),
        "not UTF-8": ((TENANT_KEY, ctx.tenant + "%C3%28"),),
        "257 code points": ((TENANT_KEY, "t" * 257),),
    }
    for what, metadata in cases.items():
        ctx.expect_error(partial(ctx.mw.call, "Get", {"ids": ["a"]}, metadata=metadata),
                         "UNAUTHENTICATED", "TENANT_REQUIRED", no_pointer=True,
                         what=f"Get with a memorywire-tenant that is {what}")


@scenario("Required.Service.Tenancy.PercentEncoding", "grpc-binding.md#3.1", "operations.md#4.1")
def percent_encoding(ctx: Ctx) -> None:
    """A tenant with non-ASCII characters and spaces travels percent-encoded;
    escapes decode in either case, the stored scope.tenant is the decoded
    tenant, and an escaped % names a tenant of its own."""
    tenant = f"Bücher AG {ctx.tenant}"
    upper = ctx.mw.as_tenant(tenant)
    ctx.put_ok(fact("f-1", "x"), client=upper)
    lower = encode_tenant(tenant).replace("%C3%BC", "%c3%bc")
    got = ctx.mw.call("Get", {"ids": ["f-1"]}, metadata=((TENANT_KEY, lower),))
    ctx.eq(ids_of(got.get("records", [])), ["f-1"], "Get through lower-case escapes")
    ctx.eq(got["records"][0].get("scope", {}).get("tenant"), tenant, "the stored scope.tenant")
    literal = ctx.mw.as_tenant(ctx.tenant + "-%41")  # sent as -%2541
    ctx.put_ok(fact("f-2", "y"), client=literal)
    plain = ctx.mw.as_tenant(ctx.tenant + "-A")
    ctx.eq(ctx.get(["f-2"], client=plain).get("missing_ids"), ["f-2"],
           "Get of a record of the tenant '...-%41' as the tenant '...-A'")


@scenario("Required.Service.Tenancy.ScopeTenantMismatch", "grpc-binding.md#3.1",
          "operations.md#4.1", "grpc-binding.md#3.4")
def scope_tenant_mismatch(ctx: Ctx) -> None:
    """A request scope.tenant, or a record's scope.tenant, other than the
    tenant of the metadata fails with PERMISSION_DENIED TENANT_MISMATCH at the
    tenant member, and nothing is written."""
    other = ctx.new_tenant()
    ctx.expect_error(lambda: ctx.put(fact("f-1", "x"), scope={"tenant": other}),
                     "PERMISSION_DENIED", "TENANT_MISMATCH", "/scope/tenant",
                     what="a Put whose scope names another tenant")
    ctx.expect_error(lambda: ctx.put(fact("f-2", "x", scope={"tenant": other})),
                     "PERMISSION_DENIED", "TENANT_MISMATCH", "/items/0/record/scope/tenant",
                     what="a Put whose record names another tenant")
    ctx.expect_error(lambda: ctx.get(["f-1"], scope={"tenant": other}),
                     "PERMISSION_DENIED", "TENANT_MISMATCH", "/scope/tenant",
                     what="a Get whose scope names another tenant")
    ctx.expect_error(lambda: ctx.call("History", {"scope": {"tenant": other}}),
                     "PERMISSION_DENIED", "TENANT_MISMATCH", "/scope/tenant",
                     what="a History whose scope names another tenant")
    ctx.expect_error(lambda: ctx.mw.import_([{"records": [fact("f-3", "x")]},
                                             {"records": [fact("f-4", "y",
                                                               scope={"tenant": other})]}]),
                     "PERMISSION_DENIED", "TENANT_MISMATCH", "/records/0/scope/tenant",
                     what="an Import whose record names another tenant")
    got = ctx.get(["f-1", "f-2", "f-3", "f-4"], include_deleted=True)
    ctx.eq(got.get("missing_ids"), ["f-1", "f-2", "f-3", "f-4"],
           "Get of the records of the refused calls")
    other_client = ctx.client(other)
    got = ctx.get(["f-1", "f-2", "f-3", "f-4"], include_deleted=True, client=other_client)
    ctx.eq(got.get("missing_ids"), ["f-1", "f-2", "f-3", "f-4"],
           "Get of them in the other tenant")


@scenario("Required.Service.Tenancy.ScopeTenantEqual", "operations.md#4.1", "operations.md#4.3.1")
def scope_tenant_equal(ctx: Ctx) -> None:
    """A scope.tenant equal to the caller's tenant is accepted, and every
    stored record carries the caller's tenant in scope.tenant."""
    ctx.put_ok(fact("f-1", "x", scope={"tenant": ctx.tenant}), scope={"tenant": ctx.tenant})
    ctx.put_ok(fact("f-2", "y"))
    for id in ("f-1", "f-2"):
        ctx.eq(ctx.must_get(id).get("scope", {}).get("tenant"), ctx.tenant,
               f"scope.tenant of {id}")


@scenario("Required.Service.Tenancy.IsolatedReads", "operations.md#4.1", "security.md#1",
          "operations.md#7", "operations.md#8", "operations.md#9", "operations.md#17.1")
def isolated_reads(ctx: Ctx) -> None:
    """Records of one tenant are invisible to another: Get reports them
    missing (with include_deleted too), and Search, History and Export of the
    other tenant return nothing."""
    ctx.put_ok(fact("f-1", "the secret launch date", tags=["secret"], key="k-1"),
               message("m-1", "the secret launch date", agent="Manager"))
    ctx.call("Delete", {"ids": ["f-1"]})
    ctx.put_ok(fact("f-2", "another secret"))
    b = ctx.other()
    ctx.eq(ctx.get(["f-1", "m-1", "f-2"], client=b).get("missing_ids"), ["f-1", "m-1", "f-2"],
           "Get in the other tenant")
    ctx.eq(ctx.get(["f-1", "m-1", "f-2"], client=b, include_deleted=True).get("missing_ids"),
           ["f-1", "m-1", "f-2"], "Get with include_deleted in the other tenant")
    ctx.eq(ctx.search(client=b), [], "Search without query in the other tenant")
    ctx.eq(ctx.search(client=b, filter={"compare": {"field": "/id", "operator": "eq",
                                                    "value": "f-2"}}), [],
           "Search by id in the other tenant")
    ctx.eq(ctx.search(client=b, filter={"compare": {"field": "/lifecycle/status",
                                                    "operator": "eq", "value": "deleted"}}),
           [], "Search for tombstones in the other tenant")
    if ctx.has("search.text"):
        ctx.eq(ctx.search(client=b, text="secret"), [], "full-text Search in the other tenant")
    ctx.eq(ctx.history(client=b), [], "History in the other tenant")
    ctx.eq(ctx.export(client=b, include_deleted=True), [], "Export in the other tenant")


@scenario("Required.Service.Tenancy.IsolatedWrites", "operations.md#4.1", "security.md#1",
          "operations.md#10", "operations.md#11")
def isolated_writes(ctx: Ctx) -> None:
    """Another tenant cannot change a tenant's records: its Update fails with
    RECORD_NOT_FOUND, its Delete by id or by filter deletes nothing of them,
    and a Put of the same id creates a record of its own."""
    ctx.put_ok(fact("f-1", "mine"))
    b = ctx.other()
    ctx.expect_error(lambda: ctx.call("Update", {"id": "f-1", "patch": {"tags": ["x"]}},
                                      client=b),
                     "NOT_FOUND", "RECORD_NOT_FOUND", "/id", what="Update from another tenant")
    for mode in ("soft", "hard"):
        got = ctx.call("Delete", {"ids": ["f-1"], "mode": mode}, client=b)
        ctx.eq(got.get("deleted_ids", []), [], f"deleted_ids of a {mode} Delete from another "
                                               f"tenant")
    got = ctx.call("Delete", {"filter": {"compare": {"field": "/kind", "operator": "eq",
                                                     "value": "fact"}}, "mode": "hard"},
                   client=b)
    ctx.eq(got.get("deleted_ids", []), [], "deleted_ids of a Delete by filter from another "
                                           "tenant")
    if ctx.has("Merge"):
        ctx.put_ok(fact("f-9", "theirs"), client=b)
        ctx.expect_error(lambda: ctx.call("Merge", {"target_id": "f-9", "source_ids": ["f-1"]},
                                          client=b),
                         "NOT_FOUND", "RECORD_NOT_FOUND", "/source_ids/0",
                         what="Merge of a record of another tenant")
    if ctx.has("Compact"):
        ctx.expect_error(lambda: ctx.call("Compact", {"ids": ["f-1"], "summary": {
            "id": "sum-1", "kind": "summary", "summary": {"text": "s"}}}, client=b),
            "NOT_FOUND", "RECORD_NOT_FOUND", "/ids/0",
            what="Compact of a record of another tenant")
    if ctx.has("Expire"):
        got = ctx.call("Expire", {"policy": {"importance_below": 1.0}, "action": "archive"},
                       client=b)
        ctx.check("f-1" not in got.get("expired_ids", []),
                  "Expire in another tenant selects the tenant's record", got=got)
    if ctx.has("approval"):
        ctx.put(fact("staged", "mine"), require_approval=True)
        ctx.expect_error(lambda: ctx.call("Review", {"id": "staged", "decision": "reject"},
                                          client=b),
                         "NOT_FOUND", "RECORD_NOT_FOUND", "/id",
                         what="Review of a record of another tenant")
        ctx.eq(ctx.must_get("staged").get("lifecycle", {}).get("status"), "pending_approval",
               "the status of the staged record")
    results = ctx.put_ok(fact("f-1", "theirs"), client=b,
                         items=[{"record": fact("f-1", "theirs"), "mode": "create"}])
    ctx.eq(results[0].get("status"), "created", "the other tenant's Put of the same id")
    mine = ctx.must_get("f-1")
    ctx.eq(mine.get("fact", {}).get("text"), "mine", "the record's text")
    ctx.eq(mine.get("revision"), 1, "the record's revision")
    ctx.eq(mine.get("lifecycle", {}).get("status", "active"), "active", "the record's status")


@scenario("Required.Service.Tenancy.IsolatedWatch", "operations.md#4.1", "operations.md#16.1",
          "grpc-binding.md#7.1", needs=("watch",))
def isolated_watch(ctx: Ctx) -> None:
    """A Watch sees only the changes of its own tenant, and a Watch cursor of
    one tenant is INVALID_CURSOR in another."""
    ctx.put_ok(fact("a-1", "a"), fact("a-2", "a"))
    b = ctx.other()
    ctx.put_ok(fact("b-1", "b"), client=b)
    ctx.put_ok(fact("b-2", "b"), client=b)
    events = ctx.events_until(ctx.watch(client=b, from_start=True), "b-2",
                              what="the other tenant's Watch")
    ctx.eq([e.get("record", {}).get("id") for e in events], ["b-1", "b-2"],
           "the records of the other tenant's events")
    first = ctx.events(ctx.watch(from_start=True), 1, "the tenant's Watch")[0]
    stream = ctx.watch(client=b, cursor=first.get("cursor"))
    ctx.expect_error(lambda: stream.next(ctx.wait), "INVALID_ARGUMENT", "INVALID_CURSOR",
                     "/cursor", what="a Watch with another tenant's cursor")


@scenario("Required.Service.Tenancy.ForeignCursors", "operations.md#4.5", "operations.md#4.1")
def foreign_cursors(ctx: Ctx) -> None:
    """A History paging cursor issued to one tenant is rejected with
    INVALID_ARGUMENT INVALID_CURSOR in another tenant, for the same request."""
    ctx.put_ok(fact("f-1", "a"), fact("f-2", "b"), fact("f-3", "c"))
    page = ctx.call("History", {"limit": 1})
    cursor = page.get("next_cursor")
    ctx.check(cursor, "History with limit 1 of 3 records returns no next_cursor", got=page)
    b = ctx.other()
    ctx.put_ok(fact("f-1", "a"), fact("f-2", "b"), fact("f-3", "c"), client=b)
    ctx.expect_error(lambda: ctx.call("History", {"limit": 1, "cursor": cursor}, client=b),
                     "INVALID_ARGUMENT", "INVALID_CURSOR", "/cursor",
                     what="History with another tenant's cursor")


@scenario("Required.Service.Tenancy.OperationIdsPerTenant", "operations.md#4.1",
          "operations.md#4.2.1")
def operation_ids_per_tenant(ctx: Ctx) -> None:
    """Operation identifiers belong to one tenant: two tenants that use the
    same operation_id for different Puts both have them performed."""
    op = "op-shared-by-two-tenants"
    mine = ctx.put(fact("f-1", "mine"), operation_id=op)
    b = ctx.other()
    theirs = ctx.put(fact("f-2", "theirs"), operation_id=op, client=b)
    ctx.eq([r.get("status") for r in mine.get("results", [])], ["created"], "the first Put")
    ctx.eq([(r.get("id"), r.get("status")) for r in theirs.get("results", [])],
           [("f-2", "created")], "the other tenant's Put with the same operation_id")
    ctx.check(ctx.get_one("f-2", client=b) is not None,
              "the other tenant's record is not stored")
    ctx.eq(ctx.get(["f-2"]).get("missing_ids"), ["f-2"], "Get of the other tenant's record")


@scenario("Required.Service.Tenancy.ScopeNarrows", "operations.md#4.1", "core.md#5")
def scope_narrows(ctx: Ctx) -> None:
    """The request scope narrows what an operation sees: a record outside it
    is absent to Get, History, Search and Update, and a namespace matches by
    prefix."""
    ctx.put_ok(fact("u1", "one", scope={"user": "u-1"}),
               fact("u2", "two", scope={"user": "u-2"}),
               fact("ns", "three", scope={"user": "u-1", "namespace": ["memories", "u-1"]}))
    u1 = {"user": "u-1"}
    ctx.eq(ctx.get(["u2", "u1"], scope=u1).get("missing_ids"), ["u2"],
           "Get of a record of user u-2 in the scope of user u-1")
    ctx.eq(ids_of(ctx.history(scope=u1)), ["u1", "ns"], "History in the scope of user u-1")
    ctx.eq(ids_of(h["record"] for h in ctx.search(scope={"namespace": ["memories"]})), ["ns"],
           "Search in the namespace [memories]")
    ctx.eq(ids_of(h["record"] for h in ctx.search(scope={"namespace": ["u-1"]})), [],
           "Search in the namespace [u-1], which is no prefix")
    ctx.expect_error(lambda: ctx.call("Update", {"scope": u1, "id": "u2",
                                                 "patch": {"tags": ["x"]}}),
                     "NOT_FOUND", "RECORD_NOT_FOUND", "/id",
                     what="Update of a record outside the request scope")


@scenario("Required.Service.Tenancy.WriteOutsideScope", "operations.md#4.1", "operations.md#6")
def write_outside_scope(ctx: Ctx) -> None:
    """A Put that names the identifier or key of a record outside its
    request scope fails with RECORD_EXISTS and leaves that record as it
    was: a Put never replaces a record outside its scope, nor moves it in."""
    u1, u2 = {"user": "u-1"}, {"user": "u-2"}
    ctx.put_ok(fact("f-1", "belongs to u-1"),
               fact("k-1", "keyed", key="diet", scope={"namespace": ["prefs"]}), scope=u1)
    for mode in (None, "upsert"):
        item: dict[str, Any] = {"record": fact("f-1", "written for u-2")}
        if mode:
            item["mode"] = mode
        results = ctx.put(items=[item], scope=u2).get("results", [])
        ctx.eq(len(results), 1, "the number of Put results")
        ctx.check_item_error(results[0], "ALREADY_EXISTS", "RECORD_EXISTS", "/items/0/record/id",
                             what=f"a Put (mode {mode or 'absent'}) in the scope of u-2 of the "
                                  "id of u-1's record")
    keyed = ctx.put(fact("k-2", "keyed by u-2", key="diet", scope={"namespace": ["prefs"]}),
                    scope=u2).get("results", [])
    ctx.eq(len(keyed), 1, "the number of Put results")
    ctx.check_item_error(keyed[0], "ALREADY_EXISTS", "RECORD_EXISTS", "/items/0/record/key",
                         what="a Put in the scope of u-2 of the key of u-1's record")
    stored = ctx.must_get("f-1")
    ctx.eq((stored.get("fact"), stored.get("scope", {}).get("user"), stored.get("revision")),
           ({"text": "belongs to u-1"}, "u-1", 1),
           "u-1's record after the Puts (fact, user, revision)")
    ctx.eq(ctx.get(["f-1", "k-1", "k-2"], scope=u2).get("missing_ids"), ["f-1", "k-1", "k-2"],
           "Get in the scope of u-2")
    again = ctx.put_ok(fact("f-1", "written again by u-1"), scope=u1)
    ctx.eq(again[0].get("status"), "updated", "a Put of the same id within the record's scope")


@scenario("Required.Service.Tenancy.ScopeFilledIn", "operations.md#4.1", "operations.md#4.3.1")
def scope_filled_in(ctx: Ctx) -> None:
    """Put completes each record's scope from the request scope (fields the
    record lacks, the namespace when the record has none) and keeps the
    fields the record sets."""
    ctx.put_ok(fact("f-1", "x", scope={"session": "own"}),
               fact("f-2", "y", scope={"namespace": ["mine"]}),
               scope={"user": "u-42", "session": "chat-7", "namespace": ["shared"]})
    ctx.eq(ctx.must_get("f-1").get("scope"),
           {"tenant": ctx.tenant, "user": "u-42", "session": "own", "namespace": ["shared"]},
           "the scope of f-1")
    ctx.eq(ctx.must_get("f-2").get("scope"),
           {"tenant": ctx.tenant, "user": "u-42", "session": "chat-7", "namespace": ["mine"]},
           "the scope of f-2")


@scenario("Required.Service.Tenancy.IsolatedConsumers", "operations.md#4.1",
          "operations.md#16.2", needs=("watch.offsets",))
def isolated_consumers(ctx: Ctx) -> None:
    """Consumers and their offsets belong to one tenant: another tenant's
    consumer of the same name has no committed offset."""
    ctx.put_ok(fact("a1", "x"), fact("a2", "y"))
    mine = ctx.events(ctx.watch(from_start=True), 2, "the tenant's stream")
    ctx.call("CommitOffset", {"consumer": "role:Engineer", "cursor": mine[-1].get("cursor")})
    b = ctx.other()
    ctx.put_ok(fact("b1", "x"), client=b)
    theirs = ctx.events(ctx.watch(client=b, consumer="role:Engineer", from_start=True), 1,
                        "the other tenant's stream")
    ctx.eq(theirs[0].get("record", {}).get("id"), "b1",
           "the first event of the other tenant's consumer of the same name")
