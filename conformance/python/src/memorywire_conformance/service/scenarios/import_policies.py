"""Import's conflict policies, deduplication and dry run."""

from __future__ import annotations

from typing import Any

from memorywire_conformance.service.framework import Ctx, fact, ids_of, scenario

COUNTS = ("imported", "created", "replaced", "unchanged", "skipped", "duplicates", "renamed")


def counts(response: dict[str, Any]) -> dict[str, int]:
    """The non-zero counts of an Import response."""
    return {name: response[name] for name in COUNTS if response.get(name)}


def texts(ctx: Ctx, ids: list[str]) -> dict[str, str]:
    records = ctx.get(ids).get("records", [])
    return {r.get("id", ""): r.get("fact", {}).get("text", "") for r in records}


@scenario("Required.Service.Import.ConflictPolicies", "operations.md#17.2",
          needs=("import.policies",))
def conflict_policies(ctx: Ctx) -> None:
    """With conflict skip a record whose id or key is held is left out; with
    new_id it is written as ID~N without the held key; with merge it is
    merge-patched into the stored record; the response counts each outcome."""
    ctx.put_ok(fact("a", "stored a", tags=["t"]), fact("a~1", "taken"),
               fact("k", "keyed", key="pref"))
    skip = ctx.mw.import_([{"conflict": "skip", "records": [
        fact("a", "imported a"), fact("other", "by key", key="pref"), fact("c", "fresh")]}])
    ctx.eq(counts(skip), {"imported": 1, "created": 1, "skipped": 2}, "the counts of skip")
    ctx.eq(texts(ctx, ["a", "other", "c"]), {"a": "stored a", "c": "fresh"},
           "the records after skip")
    new = ctx.mw.import_([{"conflict": "new_id", "records": [
        fact("a", "imported a"), fact("other", "by key", key="pref")]}])
    ctx.eq(counts(new), {"imported": 2, "created": 2, "renamed": 2}, "the counts of new_id")
    ctx.eq(texts(ctx, ["a", "a~2", "other~1"]),
           {"a": "stored a", "a~2": "imported a", "other~1": "by key"}, "the records after new_id")
    ctx.check("key" not in (ctx.get_one("other~1") or {}), "the renamed record kept a held key")
    merged = ctx.mw.import_([{"conflict": "merge", "records": [
        fact("a", "merged a", metadata={"m": "v"})]}])
    ctx.eq(counts(merged), {"imported": 1, "replaced": 1}, "the counts of merge")
    a = ctx.must_get("a")
    ctx.eq((a.get("fact"), a.get("tags"), a.get("metadata")),
           ({"text": "merged a"}, ["t"], {"m": "v"}), "the merged record (payload, tags, metadata)")


@scenario("Required.Service.Import.Deduplicate", "operations.md#17.2", "core.md#9.2",
          needs=("import.policies",))
def deduplicate(ctx: Ctx) -> None:
    """With deduplicate a record whose content hash a record of the same
    kind in the scope holds under another id, stored or imported before it,
    is left out and counted in duplicates."""
    ctx.put_ok(fact("a", "the same words"))
    got = ctx.mw.import_([{"deduplicate": True, "records": [
        fact("b", "the same words"), fact("c", "other words"), fact("d", "other words"),
        fact("a", "the same words")]}])
    ctx.eq(counts(got), {"imported": 2, "created": 1, "unchanged": 1, "duplicates": 2},
           "the counts of a deduplicating Import")
    ctx.eq(sorted(ids_of(ctx.get(["a", "b", "c", "d"]).get("records", []))), ["a", "c"],
           "the records after a deduplicating Import")


@scenario("Required.Service.Import.DryRun", "operations.md#17.2", "operations.md#4.2.1",
          needs=("import.policies",))
def dry_run(ctx: Ctx) -> None:
    """A dry-run Import reports the counts the Import would have and writes
    nothing, and its operation identifier is not recorded: the same one then
    performs the Import."""
    ctx.put_ok(fact("a", "stored"))
    request = {"operation_id": "op-import-dry", "records": [fact("a", "new"), fact("b", "fresh")]}
    dry = ctx.mw.import_([{**request, "dry_run": True}])
    ctx.eq(counts(dry), {"imported": 2, "created": 1, "replaced": 1}, "the counts of a dry run")
    ctx.eq(texts(ctx, ["a", "b"]), {"a": "stored"}, "the records after a dry run")
    real = ctx.mw.import_([request])
    ctx.eq(counts(real), counts(dry), "the counts of the Import after its dry run")
    ctx.eq(texts(ctx, ["a", "b"]), {"a": "new", "b": "fresh"}, "the records after the Import")
