"""Credentials (grpc-binding.md section 3.2): these scenarios apply to a
service that requires them, when the runner is given a token
(``--token-file``); they are skipped otherwise."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from memorywire_conformance.service.client import TENANT_KEY, encode_tenant
from memorywire_conformance.service.framework import Ctx, Skip, fact, ids_of, scenario
from memorywire_conformance.service.transport import NO_TOKEN


def _token(ctx: Ctx) -> str:
    if ctx.suite.token is None:
        raise Skip("the runner was given no token (--token-file): credentials are not checked")
    return ctx.suite.token


@scenario("Required.Service.Credentials.Missing", "grpc-binding.md#3.2", "grpc-binding.md#3.4")
def missing(ctx: Ctx) -> None:
    """Every method, GetCapabilities and the streaming ones included, called
    without ``authorization`` (and without a tenant, so that the reason
    shows the credentials are checked first) fails with UNAUTHENTICATED
    CREDENTIALS_INVALID and no pointer, and has no effect."""
    _token(ctx)
    bare = ((NO_TOKEN, "1"),)
    record = fact("f-1", "x")
    unary: dict[str, dict[str, Any]] = {
        "Put": {"items": [{"record": record}]},
        "Get": {"ids": ["f-1"]},
        "History": {},
        "Search": {"text": "x"},
        "Update": {"id": "f-1", "patch": {"tags": ["a"]}},
        "Delete": {"ids": ["f-1"]},
        "GetCapabilities": {},
    }
    optional: dict[str, dict[str, Any]] = {
        "Expire": {"policy": {"older_than_seconds": 60}, "action": "archive", "dry_run": True},
        "Merge": {"target_id": "f-1", "source_ids": ["f-2"]},
        "Compact": {"ids": ["f-1"],
                    "summary": {"id": "s", "kind": "summary", "summary": {"text": "x"}}},
        "Review": {"id": "f-1", "decision": "approve"},
        "CommitOffset": {"consumer": "c", "cursor": "x"},
    }
    unary.update({name: body for name, body in optional.items()
                  if ctx.has("approval" if name == "Review" else name)})
    calls: list[tuple[str, Callable[[], Any]]] = [
        (name, partial(ctx.mw.call, name, body, metadata=bare)) for name, body in unary.items()]
    calls.append(("Export", partial(ctx.mw.export, {}, metadata=bare)))
    calls.append(("Import", partial(ctx.mw.import_, [{"records": [record]}], metadata=bare)))
    if ctx.has("Watch"):
        calls.append(("Watch", lambda: ctx.mw.watch({"from_start": True},
                                                   metadata=bare).next(ctx.wait)))
    for name, fn in calls:
        ctx.expect_error(fn, "UNAUTHENTICATED", "CREDENTIALS_INVALID", no_pointer=True,
                         what=f"{name} without credentials")
    ctx.eq(ctx.get(["f-1"]).get("missing_ids"), ["f-1"],
           "Get of the record that a Put and an Import without credentials tried to write")


@scenario("Required.Service.Credentials.NotAccepted", "grpc-binding.md#3.2")
def not_accepted(ctx: Ctx) -> None:
    """``authorization`` that is empty, of another scheme, ``Bearer`` without
    credentials, or a token the service did not issue fails with
    UNAUTHENTICATED CREDENTIALS_INVALID and no pointer, and the Put it
    carries has no effect."""
    token = _token(ctx)
    tenant = (TENANT_KEY, encode_tenant(ctx.tenant))
    cases = {
        "empty": "",
        "of the Basic scheme": f"Basic {token}",
        "Bearer without credentials": "Bearer ",
        "a token the service did not issue": f"Bearer {token}x",
        "the token without its scheme": token,
    }
    for what, value in cases.items():
        ctx.expect_error(
            partial(ctx.mw.call, "Put", {"items": [{"record": fact("f-1", "x")}]},
                    metadata=(tenant, ("authorization", value))),
            "UNAUTHENTICATED", "CREDENTIALS_INVALID", no_pointer=True,
            what=f"Put with authorization {what}")
    ctx.eq(ctx.get(["f-1"]).get("missing_ids"), ["f-1"],
           "Get of the record that the refused Puts tried to write")


@scenario("Required.Service.Credentials.Accepted", "grpc-binding.md#3.2")
def accepted(ctx: Ctx) -> None:
    """The same call with the token the runner was given succeeds, whatever
    the case of the scheme: the refusals above come from the credentials,
    not from the call."""
    token = _token(ctx)
    ctx.put_ok(fact("f-1", "x"))
    ctx.check(ctx.get_one("f-1") is not None, "Get does not find the record the Put wrote")
    tenant = (TENANT_KEY, encode_tenant(ctx.tenant))
    for scheme in ("bearer", "BEARER"):
        found = ctx.mw.call("Get", {"ids": ["f-1"]},
                            metadata=(tenant, ("authorization", f"{scheme} {token}")))
        ctx.eq(ids_of(found.get("records", [])), ["f-1"],
               f"Get with the scheme spelled {scheme}")


@scenario("Required.Service.Credentials.RefusalRevealsNoTenant", "grpc-binding.md#3.2",
          "security.md#1")
def refusal_reveals_no_tenant(ctx: Ctx) -> None:
    """With a token the service accepts but that does not cover the tenant
    (``--narrow-token-file``), a call in a tenant that holds records and one
    in a tenant that never held any fail alike: PERMISSION_DENIED
    TENANT_MISMATCH, no pointer, the same message and Error, and no effect.
    Skipped without that token."""
    _token(ctx)
    narrow = ctx.suite.narrow_token
    if narrow is None:
        raise Skip("the runner was given no narrow token (--narrow-token-file)")
    ctx.put_ok(fact("f-1", "x"))

    def refused(tenant: str, method: str, body: dict[str, Any]) -> dict[str, Any]:
        metadata = ((TENANT_KEY, encode_tenant(tenant)), ("authorization", f"Bearer {narrow}"))
        e = ctx.expect_error(partial(ctx.mw.call, method, body, metadata=metadata),
                             "PERMISSION_DENIED", "TENANT_MISMATCH", no_pointer=True,
                             what=f"{method} with a token that does not cover the tenant")
        error = dict(e.error or {})
        error.pop("operation_id", None)
        return {"message": e.details, "error": error}

    absent = ctx.new_tenant()
    for method, body in (("Get", {"ids": ["f-1"]}),
                         ("Put", {"items": [{"record": fact("f-2", "y")}]})):
        ctx.eq(refused(absent, method, body), refused(ctx.tenant, method, body),
               f"the refusal of {method} in a tenant that never held a record, beside that in "
               f"one that holds records")
    ctx.eq(ctx.get(["f-1", "f-2"]).get("missing_ids"), ["f-2"],
           "Get of the records after the refused Puts")
