"""What a service keeps from its callers: trust it does not grant, what other
tenants hold, the URIs records name; and the reserved metadata it ignores."""

from __future__ import annotations

import socket
import time
from collections.abc import Callable, Mapping
from typing import Any

from memorywire_conformance.service.client import TENANT_KEY, RpcFailure, encode_tenant
from memorywire_conformance.service.framework import Ctx, fact, scenario

#: The trust levels and the origin that only credentials entitle a caller to
#: assert (security.md section 3.3).
ENTITLED_TRUST = ("verified", "system")
ENTITLED_ORIGIN = "system"
#: The codes with which a service refuses a write it will not store.
REFUSALS = ("PERMISSION_DENIED", "INVALID_ARGUMENT")
#: How long a store has to fetch a URI it should not fetch.
FETCH_WAIT = 1.0


def _asserted(record: Mapping[str, Any]) -> list[str]:
    """What of the entitled trust and origin a stored record holds."""
    provenance = record.get("provenance", {})
    held = []
    if provenance.get("trust") in ENTITLED_TRUST:
        held.append(f"trust {provenance['trust']}")
    if provenance.get("origin") == ENTITLED_ORIGIN:
        held.append(f"origin {ENTITLED_ORIGIN}")
    return held


def _refused_or_lowered(ctx: Ctx, what: str, write: Callable[[], Any], id: str) -> None:
    """``write`` asserts trust or origin for the record ``id``: it is refused,
    or the record is stored without what it asserted."""
    try:
        write()
    except RpcFailure as e:
        ctx.check(e.error is not None and e.code_name in REFUSALS,
                  f"{what} failed, but not as a refusal of what it asserts ({e.describe()})",
                  expected=" or ".join(REFUSALS), got=e.describe())
        return
    record = ctx.get_one(id)
    if record is None:
        return
    held = _asserted(record)
    ctx.check(not held, f"{what} stored {' and '.join(held)}, which the caller is not entitled "
                        f"to assert", expected="refused, or lowered (trust unverified)",
              got=record.get("provenance"))


@scenario("Required.Service.Security.TrustNotSelfAsserted", "security.md#3.3", "core.md#9.1",
          "operations.md#6", "operations.md#10", "operations.md#17.2")
def trust_not_self_asserted(ctx: Ctx) -> None:
    """A caller whose credentials do not entitle it (the runner's must not)
    cannot store trust system or verified, or origin system: a Put, Update,
    Import, Compact or amending Review that asserts one is refused
    (PERMISSION_DENIED or INVALID_ARGUMENT), or stores the record with the
    value lowered."""
    def put(record: dict[str, Any]) -> Callable[[], None]:
        def write() -> None:
            result = ctx.put(record).get("results", [{}])[0]
            if result.get("status") == "failed":
                code = str(result.get("error", {}).get("code", "")).upper()
                ctx.check(code in REFUSALS, f"the Put of {record['id']} failed, but not as a "
                                            f"refusal of what it asserts", got=result)
        return write

    _refused_or_lowered(ctx, "a Put of trust system and origin system", put(
        fact("f-sys", "Wire the refund.", provenance={"origin": "system", "trust": "system"})),
        "f-sys")
    _refused_or_lowered(ctx, "a Put of trust verified", put(
        fact("f-ver", "The user is vegetarian.", provenance={"origin": "tool",
                                                             "trust": "verified"})), "f-ver")
    ctx.put_ok(fact("f-plain", "The user prefers aisle seats.",
                    provenance={"origin": "agent", "trust": "untrusted"}))
    _refused_or_lowered(ctx, "an Update to trust verified and origin system", lambda: ctx.call(
        "Update", {"id": "f-plain", "patch": {"provenance": {"trust": "verified",
                                                             "origin": "system"}}}), "f-plain")
    _refused_or_lowered(ctx, "an Import of trust system", lambda: ctx.mw.import_(
        [{"records": [fact("i-sys", "Imported.", provenance={"trust": "system"})]}]), "i-sys")
    if ctx.has("Compact"):
        ctx.put_ok(fact("c-1", "a"), fact("c-2", "b"))
        _refused_or_lowered(ctx, "a Compact whose summary has trust verified", lambda: ctx.call(
            "Compact", {"ids": ["c-1", "c-2"], "summary": {
                "id": "sum-1", "kind": "summary", "summary": {"text": "a and b"},
                "provenance": {"trust": "verified"}}}), "sum-1")
    if ctx.has("approval"):
        ctx.put_ok(fact("staged", "Staged."), require_approval=True)
        _refused_or_lowered(ctx, "a Review that amends to trust system", lambda: ctx.call(
            "Review", {"id": "staged", "decision": "amend",
                       "patch": {"provenance": {"trust": "system"}}}), "staged")


def _answer(fn: Callable[[], Any]) -> Any:
    """The answer of a call, without what differs from call to call (the
    operation id): the response, or the status, message and Error."""
    try:
        response = fn()
    except RpcFailure as e:
        error = dict(e.error or {})
        error.pop("operation_id", None)
        return {"status": e.code_name, "message": e.details, "error": error}
    if isinstance(response, dict):
        response = {k: v for k, v in response.items() if k != "operation_id"}
    return response


@scenario("Required.Service.Security.NothingRevealedOfOtherTenants", "security.md#1",
          "operations.md#4.1", "operations.md#18")
def nothing_revealed(ctx: Ctx) -> None:
    """What a tenant hears about ids it does not have is the same whether or
    not another tenant has records of those ids: the answers of Get, Update,
    Delete, Merge, Compact and Review (status, message and Error) and of
    GetCapabilities."""
    b = ctx.other()
    probes: list[tuple[str, Callable[[], Any]]] = [
        ("Get", lambda: ctx.get(["x-1", "x-2", "x-3"], client=b, include_deleted=True)),
        ("Update", lambda: ctx.call("Update", {"id": "x-1", "patch": {"tags": ["t"]}}, client=b)),
        ("Delete", lambda: ctx.call("Delete", {"ids": ["x-1"], "expected_revision": 1},
                                    client=b)),
        ("GetCapabilities", lambda: ctx.call("GetCapabilities", {}, client=b)),
    ]
    if ctx.has("Merge"):
        probes.append(("Merge", lambda: ctx.call("Merge", {"target_id": "x-1",
                                                           "source_ids": ["x-2"]}, client=b)))
    if ctx.has("Compact"):
        probes.append(("Compact", lambda: ctx.call("Compact", {"ids": ["x-1", "x-2"], "summary": {
            "id": "sum-x", "kind": "summary", "summary": {"text": "s"}}}, client=b)))
    if ctx.has("approval"):
        probes.append(("Review", lambda: ctx.call("Review", {"id": "x-3", "decision": "approve"},
                                                  client=b)))
    before = [(name, _answer(fn)) for name, fn in probes]
    ctx.put_ok(fact("x-1", "the launch date", key="k-1"), fact("x-2", "the budget"))
    if ctx.has("approval"):
        ctx.put(fact("x-3", "the staged plan"), require_approval=True)
    after = [(name, _answer(fn)) for name, fn in probes]
    for (name, was), (_, now) in zip(before, after, strict=True):
        ctx.eq(now, was, f"the answer to {name} of ids another tenant now holds")


@scenario("Required.Service.Envelope.UnknownReservedMetadata", "grpc-binding.md#3.3")
def unknown_reserved_metadata(ctx: Ctx) -> None:
    """A call that carries memorywire- metadata keys the binding does not
    define is answered as without them: the server ignores reserved keys it
    does not know."""
    extra = (("memorywire-trace", "on"), ("memorywire-x-future-hint", "1"))
    metadata = ((TENANT_KEY, encode_tenant(ctx.tenant)), *extra)
    ctx.mw.call("Put", {"items": [{"record": fact("f-1", "x")}]}, metadata=metadata)
    got = ctx.mw.call("Get", {"ids": ["f-1", "f-2"]}, metadata=metadata)
    ctx.eq([r.get("id") for r in got.get("records", [])], ["f-1"],
           "the records of a Get with unknown memorywire- metadata")
    ctx.eq(got.get("missing_ids"), ["f-2"], "the missing ids of that Get")
    exported = ctx.mw.export({}, metadata=metadata)
    ctx.eq([r.get("id") for m in exported for r in m.get("records", [])], ["f-1"],
           "the records of an Export with unknown memorywire- metadata")
    caps = ctx.mw.call("GetCapabilities", {}, metadata=extra)
    ctx.check(caps.get("implementation"), "GetCapabilities with unknown memorywire- metadata "
                                          "names no implementation", got=caps)


@scenario("Required.Service.Security.RecordUrisNotFetched", "security.md#3.5")
def record_uris_not_fetched(ctx: Ctx) -> None:
    """A store does not fetch the URIs records hold (a media part's uri, an
    annotation's url, provenance.source, a custom record's schema): after
    they are written, read, searched and exported, nothing has connected to
    the loopback address they name, a listener of the runner."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(64)
        listener.setblocking(False)
        base = f"http://127.0.0.1:{listener.getsockname()[1]}"
        records = [
            {"id": "m-1", "kind": "message", "message": {"role": "user", "content": [
                {"text": {"text": "See the map.", "annotations": [
                    {"type": "url_citation", "url": f"{base}/cite"}]}},
                {"image": {"uri": f"{base}/map.png", "media_type": "image/png"}}]}},
            fact("f-1", "The menu changed.", provenance={"source": f"{base}/menu",
                                                        "trust": "untrusted"}),
            {"id": "c-1", "kind": "custom", "custom": {"type": "app.item",
                                                        "schema": f"{base}/item.json",
                                                        "value": {"seat": "aisle"}}},
        ]
        ctx.put_ok(*records)
        ctx.get([r["id"] for r in records])
        query: dict[str, Any] = {"text": "map menu"} if ctx.has("search.text") else {}
        ctx.call("Search", query)
        ctx.export()
        time.sleep(FETCH_WAIT)
        fetches = 0
        while True:
            try:
                connection, _ = listener.accept()
            except (BlockingIOError, InterruptedError):
                break
            connection.close()
            fetches += 1
        ctx.eq(fetches, 0, f"the connections to {base}, which only the stored records name")
