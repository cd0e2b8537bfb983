"""Export and Import."""

from __future__ import annotations

from memorywire_conformance.service.framework import Ctx, fact, ids_of, message, scenario


@scenario("Required.Service.Export.SequenceOrder", "operations.md#17.1", "grpc-binding.md#7.2",
          "operations.md#4.4")
def export_order(ctx: Ctx) -> None:
    """Export streams every record of the scope once, whole, in ascending
    sequence order across the stream, whatever was updated since; every
    message carries 1 to 1000 records."""
    ctx.put_ok(*[fact(f"f{i:02d}", f"fact {i}", scope={"session": "s-1"}) for i in range(12)])
    ctx.put_ok(*[message(f"m{i:02d}", f"message {i}", scope={"session": "s-1"})
                 for i in range(8)])
    ctx.put_ok(fact("elsewhere", "x", scope={"session": "s-2"}))
    ctx.call("Update", {"id": "f03", "patch": {"tags": ["updated"]}})
    ctx.put_ok(fact("f05", "fact 5, replaced", scope={"session": "s-1"}))
    messages = ctx.mw.export({"scope": {"session": "s-1"}})
    ctx.check(all(1 <= len(m.get("records", [])) <= 1000 for m in messages),
              "an Export message holds no record or more than 1000",
              got=[len(m.get("records", [])) for m in messages])
    records = [r for m in messages for r in m.get("records", [])]
    ctx.eq(ids_of(records), [f"f{i:02d}" for i in range(12)] + [f"m{i:02d}" for i in range(8)],
           "the ids of the Export")
    seqs = [r.get("sequence", 0) for r in records]
    ctx.check(all(a < b for a, b in zip(seqs, seqs[1:], strict=False)),
              "the sequences of the Export do not increase", got=seqs)
    by_id = {r.get("id"): r for r in records}
    ctx.eq(by_id["f03"], ctx.must_get("f03"), "the exported f03 against Get")
    ctx.eq(by_id["f05"].get("fact"), {"text": "fact 5, replaced"}, "the exported f05 payload")


@scenario("Required.Service.Export.Batches", "grpc-binding.md#7.2", "operations.md#17.1",
          "operations.md#18")
def export_batches(ctx: Ctx) -> None:
    """An Export of more records than fit one message sends several, each with
    at most 1000 records and at most max_batch_records, in sequence order."""
    batch = min(1000, int(ctx.caps.get("limits", {}).get("max_batch_records") or 1000))
    total = 1000 + 37
    written = 0
    while written < total:
        n = min(batch, total - written)
        ctx.put_ok(*[fact(f"f{written + i:04d}", "x") for i in range(n)])
        written += n
    messages = ctx.mw.export({})
    sizes = [len(m.get("records", [])) for m in messages]
    ctx.check(len(sizes) >= 2 and all(1 <= s <= batch for s in sizes),
              f"the Export messages do not hold 1 to {batch} records each", got=sizes)
    ctx.eq(ids_of(r for m in messages for r in m.get("records", [])),
           [f"f{i:04d}" for i in range(total)], "the ids of the Export")


@scenario("Required.Service.Export.Visibility", "operations.md#17.1", "operations.md#4.7.1")
def export_visibility(ctx: Ctx) -> None:
    """Export leaves out tombstones unless include_deleted, keeps archived
    records, applies its filter, and sends no message when nothing is
    selected."""
    ctx.put_ok(fact("a", "active"), fact("b", "archived"), fact("c", "deleted"),
               message("d", "message"))
    ctx.call("Update", {"id": "b", "patch": {"lifecycle": {"status": "archived"}}})
    ctx.call("Delete", {"ids": ["c"]})
    ctx.eq(ids_of(ctx.export()), ["a", "b", "d"], "the Export")
    ctx.eq(ids_of(ctx.export(include_deleted=True)), ["a", "b", "c", "d"],
           "the Export with include_deleted")
    ctx.eq(ids_of(ctx.export(filter={"compare": {"field": "/kind", "operator": "eq",
                                                 "value": "message"}})), ["d"],
           "the Export of messages")
    ctx.eq(ctx.mw.export({"scope": {"session": "empty"}}), [], "the Export of an empty scope")


@scenario("Required.Service.Import.Merge", "operations.md#17.2", "grpc-binding.md#7.3",
          "operations.md#4.1")
def import_merge(ctx: Ctx) -> None:
    """An Import in mode merge writes the records of every message in stream
    order (an empty message included): new records get increasing sequences
    and the request scope, a record with an existing id replaces it."""
    old = ctx.put_ok(fact("x", "old text", scope={"session": "s-imp"}))[0]
    scope = {"session": "s-imp"}
    got = ctx.mw.import_([
        {"scope": scope, "mode": "merge", "records": [fact("r1", "one"), fact("r2", "two")]},
        {"scope": scope, "mode": "merge", "records": []},
        {"scope": scope, "mode": "merge", "records": [fact("x", "new text"),
                                                      message("r3", "three")]},
    ])
    ctx.eq(got.get("imported"), 4, "imported")
    records = ctx.get(["r1", "r2", "r3", "x"])["records"]
    ctx.eq(ids_of(records), ["r1", "r2", "r3", "x"], "the imported records")
    seqs = [r.get("sequence", 0) for r in records[:3]]
    ctx.check(old.get("sequence", 0) < seqs[0] < seqs[1] < seqs[2],
              "the imported records' sequences do not follow stream order", got=seqs)
    ctx.eq([r.get("scope") for r in records[:3]],
           [{"tenant": ctx.tenant, "session": "s-imp"}] * 3, "the scopes of the imported records")
    x = records[3]
    ctx.eq((x.get("fact"), x.get("revision"), x.get("sequence")),
           ({"text": "new text"}, 2, old.get("sequence")),
           "the replaced record (payload, revision, sequence)")


@scenario("Required.Service.Import.Replace", "operations.md#17.2", "grpc-binding.md#7.3",
          needs=("import.replace",))
def import_replace(ctx: Ctx) -> None:
    """An Import in mode replace removes every record of the request scope
    (hard, tombstones included) and writes the new ones as one snapshot;
    records outside the scope stay."""
    a, b = {"session": "a"}, {"session": "b"}
    ctx.put_ok(fact("a1", "x", scope=a), fact("a2", "y", scope=a), fact("b1", "z", scope=b))
    ctx.call("Delete", {"ids": ["a2"]})
    got = ctx.mw.import_([{"scope": a, "mode": "replace",
                           "records": [fact("n1", "new 1"), fact("n2", "new 2")]}])
    ctx.eq(got.get("imported"), 2, "imported")
    ctx.eq(ctx.get(["a1", "a2"], include_deleted=True).get("missing_ids"), ["a1", "a2"],
           "Get of the replaced records")
    ctx.eq(ids_of(ctx.history(scope=a)), ["n1", "n2"], "the History of the replaced scope")
    ctx.eq(ids_of(ctx.history(scope=b)), ["b1"], "the History of the other scope")


@scenario("Required.Service.Import.Atomic", "operations.md#17.2", "grpc-binding.md#7.3",
          "operations.md#3.3")
def import_atomic(ctx: Ctx) -> None:
    """An Import whose later message changes the scope fails with
    INVALID_ARGUMENT IMMUTABLE_FIELD, and one whose later message holds an
    invalid record fails with that record's pointer in its message; nothing
    of either is written."""
    ctx.expect_error(lambda: ctx.mw.import_([
        {"scope": {"session": "a"}, "records": [fact("r1", "one")]},
        {"scope": {"session": "b"}, "records": [fact("r2", "two")]}]),
        "INVALID_ARGUMENT", "IMMUTABLE_FIELD", what="an Import whose scope changes")
    ctx.expect_error(lambda: ctx.mw.import_([
        {"records": [fact("r3", "three")]},
        {"records": [{"kind": "fact", "fact": {"text": "no id"}}]}]),
        "INVALID_ARGUMENT", "REQUIRED_FIELD_MISSING", "/records/0/id",
        what="an Import whose second message holds a record without id")
    if ctx.has("import.replace"):
        ctx.expect_error(lambda: ctx.mw.import_([
            {"mode": "merge", "records": [fact("r4", "four")]},
            {"mode": "replace", "records": []}]),
            "INVALID_ARGUMENT", "IMMUTABLE_FIELD", "/mode", what="an Import whose mode changes")
    ctx.eq(ctx.get(["r1", "r2", "r3", "r4"], include_deleted=True).get("missing_ids"),
           ["r1", "r2", "r3", "r4"], "Get of the records of the failed Imports")


@scenario("Required.Service.Import.RoundTrip", "operations.md#17", "operations.md#4.4")
def round_trip(ctx: Ctx) -> None:
    """An Export imported into an empty tenant keeps the records, their
    content and their order."""
    ctx.put_ok(message("m1", "Plan the launch.", agent="Manager"),
               fact("f1", "The launch is in May.", tags=["launch"]),
               message("m2", "Here is the plan.", "assistant", agent="Manager"))
    ctx.call("Update", {"id": "m1", "patch": {"lifecycle": {"importance": 0.8}}})
    exported = ctx.export()
    portable = []
    for r in exported:
        scope = {k: v for k, v in r.get("scope", {}).items() if k != "tenant"}
        portable.append({**r, "scope": scope or None})
    b = ctx.other()
    got = b.import_([{"records": portable}])
    ctx.eq(got.get("imported"), 3, "imported")
    imported = ctx.export(client=b)
    ctx.eq(ids_of(imported), ["m1", "f1", "m2"], "the ids in the other tenant")
    for src, dst in zip(exported, imported, strict=True):
        for key in ("kind", "message", "fact", "routing", "tags", "lifecycle", "created_at"):
            ctx.eq(dst.get(key), src.get(key), f"the {key} of {src.get('id')} after the round "
                                               f"trip")
        ctx.eq(dst.get("scope", {}).get("tenant"), b.tenant, "the tenant of an imported record")
