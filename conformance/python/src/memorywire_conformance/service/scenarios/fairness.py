"""Fair sharing between tenants (grpc-binding.md section 7.4): one tenant that
holds as many streams as the service lets it does not keep another from
being served."""

from __future__ import annotations

from collections.abc import Callable

from memorywire_conformance.service.client import RpcFailure, StreamTimeout, WatchStream
from memorywire_conformance.service.framework import Ctx, Skip, fact, scenario

#: The most Watch streams the first tenant opens in search of its bound.
MAX_STREAMS = 64


def _hold_streams(ctx: Ctx) -> tuple[list[WatchStream], RpcFailure | None]:
    """The scenario's tenant opens Watch streams over one record, each read up
    to its first event and no further, until the service refuses one (the
    refusal is returned), or holds one without serving it (the service has
    no more to give), or MAX_STREAMS are open. The streams held stay open
    until the scenario ends. A refusal must be RESOURCE_EXHAUSTED
    RATE_LIMITED with retry_after_millis."""
    ctx.put_ok(fact("held", "x"))
    held: list[WatchStream] = []
    for _ in range(MAX_STREAMS):
        stream = ctx.watch(from_start=True)
        try:
            event = stream.next(ctx.wait)
        except RpcFailure as e:
            ctx.check_error(e, "RESOURCE_EXHAUSTED", "RATE_LIMITED", no_pointer=True,
                            what=f"Watch stream {len(held) + 1} of one tenant")
            assert e.error is not None
            ctx.check(int(e.error.get("retry_after_millis") or 0) > 0,
                      "the refusal of a stream beyond a tenant's bound has no "
                      "retry_after_millis", got=e.error)
            return held, e
        except StreamTimeout:
            return held, None
        ctx.check(event is not None and event.get("record", {}).get("id") == "held",
                  f"Watch stream {len(held) + 1} did not deliver the record's event first",
                  got=event)
        held.append(stream)
    return held, None


def _served(ctx: Ctx, what: str, held: int, call: Callable[[], object]) -> None:
    """Run a call of the other tenant, which must succeed within ctx.wait."""
    try:
        call()
    except RpcFailure as e:
        raise ctx.fail(f"{what} of another tenant failed while one tenant held {held} Watch "
                       f"streams: {e.describe()}", expected="OK", got=e.describe()) from None


@scenario("Required.Service.Fairness.OtherTenantsServed", "grpc-binding.md#7.4",
          "security.md#5", needs=("watch",))
def other_tenants_served(ctx: Ctx) -> None:
    """While one tenant holds as many Watch streams as the service lets it
    (opened until one is refused or not served, at most 64, none read past
    its first event), the calls of another tenant are served at once, each
    within the wait for an event: GetCapabilities, Put, Get and History. A
    refusal of the first tenant's stream is RESOURCE_EXHAUSTED RATE_LIMITED
    with retry_after_millis."""
    held, _ = _hold_streams(ctx)
    other = ctx.other()
    quick = ctx.wait
    _served(ctx, "GetCapabilities", len(held),
            lambda: other.call("GetCapabilities", {}, tenant=None, timeout=quick))
    _served(ctx, "Put", len(held), lambda: other.call(
        "Put", {"items": [{"record": fact("other", "y")}]}, timeout=quick))
    _served(ctx, "Get", len(held), lambda: ctx.eq(
        [r.get("id") for r in other.call("Get", {"ids": ["other"]}, timeout=quick)
         .get("records", [])], ["other"], "Get of the other tenant's record"))
    _served(ctx, "History", len(held), lambda: other.call("History", {}, timeout=quick))


@scenario("Recommended.Service.Fairness.StreamBoundPerTenant", "grpc-binding.md#7.4",
          needs=("watch",))
def stream_bound_per_tenant(ctx: Ctx) -> None:
    """When the service refuses a tenant's Watch because the tenant holds as
    many streams as it serves for one tenant, another tenant's Watch opens and
    delivers its events at once: the bound of one tenant never refuses the
    calls of another (skipped when no refusal comes within 64 streams)."""
    held, refusal = _hold_streams(ctx)
    if refusal is None:
        raise Skip(f"the service refused none of {len(held)} Watch streams of one tenant")
    other = ctx.other()
    other.call("Put", {"items": [{"record": fact("other", "y")}]}, timeout=ctx.wait)
    stream = ctx.watch(client=other, from_start=True)
    try:
        event = stream.next(ctx.wait)
    except RpcFailure as e:
        raise ctx.fail(f"another tenant's Watch failed while one tenant was at its bound of "
                       f"{len(held)} streams: {e.describe()}", expected="an event",
                       got=e.describe()) from None
    except StreamTimeout:
        raise ctx.fail(f"another tenant's Watch delivered nothing within {ctx.wait:g} s while "
                       f"one tenant was at its bound of {len(held)} streams") from None
    ctx.eq((event or {}).get("record", {}).get("id"), "other",
           "the record of the other tenant's first event")
