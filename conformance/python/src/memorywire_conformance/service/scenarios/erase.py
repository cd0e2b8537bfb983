"""Erase."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

from memorywire_conformance.service.framework import Ctx, fact, ids_of, message, scenario

SUBJECT = {"user": "erase-subject", "session": "erase-session"}
OTHER = {"user": "erase-other"}


def digest(ids: Sequence[str]) -> str:
    """The receipt's digest of a set of identifiers (operations.md section 19)."""
    return "sha256:" + hashlib.sha256("".join(x + "\n" for x in sorted(ids)).encode()).hexdigest()


def receipt_of(ctx: Ctx, request: dict[str, Any]) -> dict[str, Any]:
    got = ctx.call("Erase", request)
    receipt = got.get("receipt")
    ctx.check(isinstance(receipt, dict), "the Erase response has no receipt", got=got)
    assert isinstance(receipt, dict)
    return receipt


@scenario("Required.Service.Erase.NothingReachable", "operations.md#19", "security.md#6",
          needs=("Erase",))
def nothing_reachable(ctx: Ctx) -> None:
    """Erase of a user removes its records of every status (a tombstone
    too): Get (with include_deleted), History, Search and Export return none
    of them, other users' records stay, the receipt counts the records and
    their changes and carries the digest of their identifiers, and a Watch
    from the start reports no change of an erased record."""
    ctx.put_ok(fact("e-f1", "the zanzibar secret", scope=SUBJECT),
               message("e-m1", "the zanzibar message", scope=SUBJECT),
               fact("e-f2", "soon a tombstone", scope=SUBJECT),
               fact("o-f1", "the zanzibar neighbour", scope=OTHER))
    ctx.call("Update", {"id": "e-f1", "patch": {"tags": ["t"]}})
    ctx.call("Delete", {"ids": ["e-f2"]})
    erased = ["e-f1", "e-m1", "e-f2"]
    receipt = receipt_of(ctx, {"scope": {"user": SUBJECT["user"]}})
    ctx.eq(receipt.get("records"), 3, "receipt.records")
    ctx.eq(receipt.get("changes"), 5, "receipt.changes (3 created, 1 updated, 1 deleted)")
    ctx.eq(receipt.get("digest"), digest(erased), "receipt.digest")
    ctx.check(receipt.get("erased_at"), "the receipt has no erased_at", got=receipt)
    got = ctx.get([*erased, "o-f1"], include_deleted=True)
    ctx.eq(ids_of(got.get("records", [])), ["o-f1"], "the records Get finds after the Erase")
    ctx.eq(ids_of(ctx.history(scope=SUBJECT)), [], "the History of the erased session")
    ctx.eq(ids_of(ctx.history()), ["o-f1"], "the History of the tenant after the Erase")
    if ctx.has("search.text"):
        hits = ctx.search(text="zanzibar")
        ctx.eq([h.get("record", {}).get("id") for h in hits], ["o-f1"], "the text Search hits")
    ctx.eq(ids_of(ctx.export(include_deleted=True)), ["o-f1"], "the records of an Export")
    if ctx.has("watch"):
        ctx.put_ok(fact("o-end", "sentinel", scope=OTHER))
        events = ctx.events_until(ctx.watch(from_start=True), "o-end", "a Watch from the start")
        ctx.eq([(e.get("type"), e.get("record", {}).get("id")) for e in events],
               [("created", "o-f1"), ("created", "o-end")], "the change log after the Erase")


@scenario("Required.Service.Erase.ReplayRefused", "operations.md#19", "operations.md#4.2.1",
          needs=("Erase",))
def replay_refused(ctx: Ctx) -> None:
    """A replay of a Put whose response named an erased record fails with
    FAILED_PRECONDITION OPERATION_ERASED at /operation_id and writes
    nothing; a replay of the Erase returns its first receipt."""
    ctx.put_ok(fact("r-1", "to be erased", scope=SUBJECT), operation_id="op-erase-put")
    ctx.put_ok(fact("r-2", "kept", scope=OTHER), operation_id="op-erase-keep")
    first = receipt_of(ctx, {"scope": {"user": SUBJECT["user"]}, "operation_id": "op-erase-1"})
    ctx.expect_error(lambda: ctx.put(fact("r-1", "to be erased", scope=SUBJECT),
                                     operation_id="op-erase-put"),
                     "FAILED_PRECONDITION", "OPERATION_ERASED", "/operation_id",
                     what="a replay of a Put whose record was erased")
    ctx.eq(ids_of(ctx.get(["r-1", "r-2"], include_deleted=True).get("records", [])), ["r-2"],
           "the records after the refused replay")
    again = receipt_of(ctx, {"scope": {"user": SUBJECT["user"]}, "operation_id": "op-erase-1"})
    ctx.eq(again, first, "the receipt of a replayed Erase")


@scenario("Required.Service.Erase.NamesSubject", "operations.md#19", "operations.md#3.3",
          needs=("Erase",))
def names_subject(ctx: Ctx) -> None:
    """An Erase with neither a member of scope besides tenant nor a filter
    fails with INVALID_ARGUMENT REQUIRED_FIELD_MISSING at /scope and erases
    nothing; an Erase by filter erases the records that satisfy it."""
    ctx.put_ok(fact("n-1", "x", scope=OTHER, tags=["ada"]), fact("n-2", "y", scope=OTHER))
    ctx.expect_error(lambda: ctx.call("Erase", {}), "INVALID_ARGUMENT", "REQUIRED_FIELD_MISSING",
                     "/scope", what="an Erase that names no subject")
    ctx.eq(ids_of(ctx.get(["n-1", "n-2"]).get("records", [])), ["n-1", "n-2"],
           "the records after the refused Erase")
    receipt = receipt_of(ctx, {"filter": {"compare": {"field": "/tags", "operator": "contains",
                                                      "value": "ada"}}})
    ctx.eq(receipt.get("records"), 1, "receipt.records of an Erase by filter")
    ctx.eq(ids_of(ctx.get(["n-1", "n-2"]).get("records", [])), ["n-2"],
           "the records after an Erase by filter")
