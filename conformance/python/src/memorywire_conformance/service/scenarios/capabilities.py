"""GetCapabilities, the envelope and the error details of every call."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import grpc
from google.protobuf import unknown_fields

from memorywire_conformance.service.client import SPECVERSION_KEY, RpcFailure
from memorywire_conformance.service.descriptors import operations
from memorywire_conformance.service.framework import Ctx, Skip, fact, scenario
from memorywire_conformance.service.wire import from_message, to_message

#: The operations every service offers (operations.md section 1.3); the
#: others of the proto are OPTIONAL.
REQUIRED_OPERATIONS = ("Put", "Get", "History", "Search", "Update", "Delete", "Export", "Import",
                       "GetCapabilities")


def _capabilities(ctx: Ctx, tenant: str | None, op: str,
                  metadata: tuple[tuple[str, str], ...] | None = None) -> dict[str, object]:
    return ctx.call("GetCapabilities", {"operation_id": op}, client=ctx.client(tenant),
                    metadata=metadata)


@scenario("Required.Service.Capabilities.RequiredOperations", "operations.md#18",
          "operations.md#1.3", "grpc-binding.md#2.1")
def required_operations(ctx: Ctx) -> None:
    """GetCapabilities names the implementation, lists 1.0 among its spec
    versions and lists every REQUIRED operation."""
    caps = _capabilities(ctx, None, "op-caps-1")
    ctx.eq(caps.get("operation_id"), "op-caps-1", "the echoed operation_id")
    ctx.eq(caps.get("specversion"), "1.0", "the specversion of the response")
    ctx.check(caps.get("implementation"), "the response names no implementation", got=caps)
    ctx.check("1.0" in caps.get("specversions", []),  # type: ignore[operator]
              "specversions does not list 1.0", expected="1.0 listed",
              got=caps.get("specversions"))
    listed = set(caps.get("operations", []))  # type: ignore[call-overload]
    missing = [op for op in REQUIRED_OPERATIONS if op not in listed]
    ctx.check(not missing, f"operations lacks the REQUIRED operations {missing}",
              expected=list(REQUIRED_OPERATIONS), got=sorted(listed))


@scenario("Required.Service.Capabilities.AnyTenantOrNone", "operations.md#18",
          "grpc-binding.md#3.1", "grpc-binding.md#3.4")
def any_tenant(ctx: Ctx) -> None:
    """GetCapabilities is answered without memorywire-tenant, with a tenant and
    with a malformed tenant, and the answer does not depend on it."""
    none = _capabilities(ctx, None, "op-caps-2")
    mine = _capabilities(ctx, ctx.tenant, "op-caps-2")
    other = _capabilities(ctx, ctx.new_tenant(), "op-caps-2")
    malformed = _capabilities(ctx, None, "op-caps-2",
                              metadata=(("memorywire-tenant", "%zz"),))
    ctx.eq(mine, none, "the answer with a tenant, against the answer without one")
    ctx.eq(other, none, "the answer with another tenant")
    ctx.eq(malformed, none, "the answer with a malformed memorywire-tenant")


@scenario("Required.Service.Capabilities.Consistent", "operations.md#18")
def consistent(ctx: Ctx) -> None:
    """Operations and features agree (Watch with watch, CommitOffset with
    watch.offsets, Review with approval; watch.offsets implies watch,
    search.hybrid implies search.text and search.vector), operation names are
    known, and the limits stay within the rules."""
    ops, features = ctx.operations, ctx.features
    for op, feature in (("Watch", "watch"), ("CommitOffset", "watch.offsets"),
                        ("Review", "approval")):
        ctx.check((op in ops) == (feature in features),
                  f"the operation {op} is {'' if op in ops else 'not '}listed but the feature "
                  f"{feature} is {'' if feature in features else 'not '}listed")
    if "watch.offsets" in features:
        ctx.check("watch" in features, "watch.offsets is listed without watch")
    if "search.hybrid" in features:
        ctx.check({"search.text", "search.vector"} <= features,
                  "search.hybrid is listed without search.text and search.vector",
                  got=sorted(features))
    if set(ctx.caps.get("specversions", [])) == {"1.0"}:
        unknown = sorted(ops - set(operations()))
        ctx.check(not unknown, f"a service of version 1.0 lists the unknown operations "
                               f"{unknown}")
    limits = ctx.caps.get("limits", {})
    ctx.check(limits.get("max_batch_records", 0) <= 1000,
              "max_batch_records exceeds 1000", got=limits)
    ctx.check(limits.get("max_dimensions", 0) <= 65536, "max_dimensions exceeds 65536",
              got=limits)


LIMIT_FIELDS = ("max_document_bytes", "max_depth", "max_batch_records", "max_string_bytes",
                "max_items", "max_dimensions")
MIB = 1024 * 1024


@scenario("Required.Service.Capabilities.StatesLimits", "security.md#4", "operations.md#18",
          "grpc-binding.md#2.3")
def states_limits(ctx: Ctx) -> None:
    """GetCapabilities states every resource limit, within what the rules
    allow (max_batch_records at most 1000, max_dimensions at most 65536)."""
    limits = ctx.caps.get("limits")
    ctx.check(isinstance(limits, dict), "GetCapabilities states no limits", got=ctx.caps)
    assert isinstance(limits, dict)
    missing = [f for f in LIMIT_FIELDS if not limits.get(f)]
    ctx.check(not missing, f"limits does not state {missing}", got=limits)
    ctx.check(limits["max_batch_records"] <= 1000 and limits["max_dimensions"] <= 65536,
              "a stated limit exceeds what the rules allow", got=limits)


@scenario("Required.Service.Capabilities.LargeMessages", "grpc-binding.md#2.3", "security.md#4")
def large_messages(ctx: Ctx) -> None:
    """The server accepts request messages up to its max_document_bytes,
    beyond the 4 MiB that gRPC libraries receive by default, and answers
    with responses of that size."""
    limits = ctx.caps.get("limits") or {}
    document = int(limits.get("max_document_bytes") or 16 * MIB)
    string = int(limits.get("max_string_bytes") or MIB)
    if document < 5 * MIB or string < 64 * 1024:
        raise Skip(f"max_document_bytes {document} leaves no room above 4 MiB")
    size = min(string, MIB) - 1024
    count = (5 * MIB) // size + 1
    ctx.put_ok(*[fact(f"big-{i}", chr(ord("a") + i % 26) * size) for i in range(count)])
    got = ctx.get([f"big-{i}" for i in range(count)])
    ctx.eq([len(r.get("fact", {}).get("text", "")) for r in got.get("records", [])],
           [size] * count, "the lengths of the texts read back")


@scenario("Required.Service.Capabilities.UnannouncedFeaturesRejected", "operations.md#1.1",
          "operations.md#18", "grpc-binding.md#2.1")
def unannounced(ctx: Ctx) -> None:
    """Each optional operation and each feature the service does not list is
    refused with UNIMPLEMENTED UNSUPPORTED_FEATURE (skipped when it lists them
    all)."""
    checks: list[tuple[str, Callable[[], object], str | None]] = []
    features, ops = ctx.features, ctx.operations
    if "search.text" not in features:
        checks.append(("search.text", lambda: ctx.search(text="window"), "/text"))
    if "search.vector" not in features:
        checks.append(("search.vector", lambda: ctx.search(
            vector={"model": "m", "values": [1.0, 0.0]}), "/vector"))
    if "approval" not in features:
        checks.append(("approval", lambda: ctx.put(fact("f-1", "x"), require_approval=True),
                       "/require_approval"))
    if "import.replace" not in features:
        checks.append(("import.replace", lambda: ctx.mw.import_(
            [{"mode": "replace", "records": [fact("f-2", "x")]}]), "/mode"))
    if "expire.decay" not in features and "Expire" in ops:
        checks.append(("expire.decay", lambda: ctx.call("Expire", {
            "policy": {"importance_below": 0.5, "half_life_seconds": 60},
            "action": "archive", "dry_run": True}), "/policy/half_life_seconds"))
    if "Expire" not in ops:
        checks.append(("Expire", lambda: ctx.call("Expire", {
            "policy": {"older_than_seconds": 60}, "action": "archive", "dry_run": True}), None))
    if "Merge" not in ops:
        checks.append(("Merge", lambda: ctx.call("Merge", {"target_id": "a",
                                                           "source_ids": ["b"]}), None))
    if "Compact" not in ops:
        checks.append(("Compact", lambda: ctx.call("Compact", {
            "ids": ["a"], "summary": {"id": "s", "kind": "summary",
                                      "summary": {"text": "x"}}}), None))
    if "Watch" not in ops:
        checks.append(("Watch", lambda: ctx.watch(from_start=True).next(ctx.wait), None))
    if "CommitOffset" not in ops:
        checks.append(("CommitOffset", lambda: ctx.call("CommitOffset", {
            "consumer": "c", "cursor": "x"}), None))
    if not checks:
        raise Skip("the service lists every optional operation and feature")
    for name, fn, pointer in checks:
        ctx.expect_error(fn, "UNIMPLEMENTED", "UNSUPPORTED_FEATURE", pointer,
                         what=f"a request that needs {name}")


@scenario("Recommended.Service.Capabilities.SpecversionHeader", "grpc-binding.md#3.3")
def specversion_header(ctx: Ctx) -> None:
    """The server sends the response header memorywire-specversion with the
    version it answers in (1.0)."""
    ctx.call("GetCapabilities", {})
    ctx.eq(ctx.mw.last_headers.get(SPECVERSION_KEY), "1.0",
           "the response header memorywire-specversion of GetCapabilities")
    ctx.put(fact("f-1", "x"))
    ctx.eq(ctx.mw.last_headers.get(SPECVERSION_KEY), "1.0",
           "the response header memorywire-specversion of Put")


# The envelope.


@scenario("Required.Service.Envelope.EchoOperationId", "operations.md#2",
          "grpc-binding.md#2.2", "grpc-binding.md#7.2")
def echo(ctx: Ctx) -> None:
    """Every response, and every message of an Export stream, carries the
    request's operation_id exactly and the specversion 1.0."""
    calls: list[tuple[str, dict[str, Any]]] = [
        ("Put", {"operation_id": "op-echo-put é", "items": [{"record": fact("f-1", "x")}]}),
        ("Get", {"operation_id": "op-echo-get", "ids": ["f-1"]}),
        ("History", {"operation_id": "op-echo-history"}),
        ("Search", {"operation_id": "op-echo-search"}),
        ("Update", {"operation_id": "op-echo-update", "id": "f-1",
                    "patch": {"tags": ["a"]}}),
        ("Delete", {"operation_id": "op-echo-delete", "ids": ["nope"]}),
    ]
    for method, request in calls:
        response = ctx.call(method, request)
        ctx.eq(response.get("operation_id"), request["operation_id"],
               f"the operation_id of the {method} response")
        ctx.eq(response.get("specversion"), "1.0", f"the specversion of the {method} response")
    for message in ctx.mw.export({"operation_id": "op-echo-export"}):
        ctx.eq(message.get("operation_id"), "op-echo-export",
               "the operation_id of an Export message")
        ctx.eq(message.get("specversion"), "1.0", "the specversion of an Export message")
    response = ctx.mw.import_([{"operation_id": "op-echo-import",
                                "records": [fact("f-2", "y")]}])
    ctx.eq(response.get("operation_id"), "op-echo-import", "the operation_id of Import")


@scenario("Required.Service.Errors.DetailsAndPointer", "grpc-binding.md#5", "grpc-binding.md#4",
          "http-binding.md#4", "http-binding.md#5", "operations.md#3.1", "operations.md#3.3")
def error_details(ctx: Ctx) -> None:
    """An invalid request (a Put whose first record lacks its id) fails with
    INVALID_ARGUMENT and exactly one memorywire.v1.Error in
    grpc-status-details-bin: reason REQUIRED_FIELD_MISSING, the JSON Pointer
    /items/0/record/id, the request's operation_id, the same code in the
    Error, the google.rpc.Status and grpc-status, and the Error's message as
    grpc-message; over HTTP, the Error as an application/problem+json body
    with the status 400."""
    e = ctx.expect_error(lambda: ctx.put(
        {"kind": "fact", "fact": {"text": "no id"}}, operation_id="op-err-1"),
        "INVALID_ARGUMENT", "REQUIRED_FIELD_MISSING", "/items/0/record/id")
    assert e.error is not None
    ctx.eq(e.error.get("operation_id"), "op-err-1", "the operation_id of the Error")
    ctx.check(e.error.get("message"), "the Error has no message", got=e.error)
    if ctx.binding == "HTTP":
        # http-binding.md sections 4 and 5: the status of the code and an
        # application/problem+json body, which check_error has seen.
        ctx.eq(e.http_status, 400, "the HTTP status of INVALID_ARGUMENT")
        return
    ctx.eq(e.details, e.error.get("message"), "grpc-message against the Error's message")
    ctx.eq(e.status_message, e.error.get("message"),
           "the google.rpc.Status message against the Error's message")


@scenario("Required.Service.Errors.KindMismatch", "operations.md#3.3", "core.md#4",
          "grpc-binding.md#5")
def kind_mismatch(ctx: Ctx) -> None:
    """A record of kind fact with a message payload fails with
    INVALID_ARGUMENT KIND_MISMATCH at the payload member."""
    ctx.expect_error(lambda: ctx.put(
        {"id": "f-1", "kind": "fact",
         "message": {"role": "user", "content": [{"text": {"text": "hi"}}]}}),
        "INVALID_ARGUMENT", "KIND_MISMATCH", "/items/0/record/message")


@scenario("Required.Service.Errors.UnsupportedVersion", "operations.md#2", "operations.md#3.1.1")
def unsupported_version(ctx: Ctx) -> None:
    """A request whose specversion has major version 2 fails with
    INVALID_ARGUMENT UNSUPPORTED_VERSION at /specversion."""
    ctx.expect_error(lambda: ctx.call("Get", {"specversion": "2.0", "ids": ["a"]}),
                     "INVALID_ARGUMENT", "UNSUPPORTED_VERSION", "/specversion")


@scenario("Required.Service.Errors.InvalidRequestHasNoEffect", "operations.md#2",
          "operations.md#3.1", "core.md#8.2")
def invalid_no_effect(ctx: Ctx) -> None:
    """A non-atomic Put whose second record has no payload fails as a whole
    (REQUIRED_FIELD_MISSING at /items/1/record) and writes nothing, not even
    its valid first item."""
    ctx.expect_error(lambda: ctx.put(fact("f-ok", "fine"), {"id": "f-bad", "kind": "fact"}),
                     "INVALID_ARGUMENT", "REQUIRED_FIELD_MISSING", "/items/1/record")
    ctx.eq(ctx.get(["f-ok"]).get("missing_ids"), ["f-ok"], "Get of the valid item")


@scenario("Required.Service.Errors.UnknownProtobufField", "operations.md#3.1",
          "operations.md#3.3", "grpc-binding.md#2.2")
def unknown_field(ctx: Ctx) -> None:
    """A record carrying a field number that MemoryRecord does not define
    fails with INVALID_ARGUMENT UNKNOWN_FIELD at its number
    (/items/0/record/99)."""
    record = to_message("MemoryRecord", fact("f-1", "x")).SerializeToString()
    record += bytes([0x98, 0x06, 0x01])  # field 99, varint 1
    item = bytes([0x0A, len(record)]) + record  # PutItem.record
    head = to_message("PutRequest", {"specversion": "1.0", "operation_id": "op-unknown"})
    request = head.SerializeToString() + bytes([0x22, len(item)]) + item  # PutRequest.items
    ctx.expect_error(lambda: ctx.mw.raw("Put", request), "INVALID_ARGUMENT", "UNKNOWN_FIELD",
                     "/items/0/record/99")
    ctx.eq(ctx.get(["f-1"]).get("missing_ids"), ["f-1"], "Get of the rejected record")


@scenario("Required.Service.Errors.ReaderBeforeState", "operations.md#3.1.1", "operations.md#10")
def reader_before_state(ctx: Ctx) -> None:
    """An Update of a record that does not exist, with a patch that is not a
    map, fails with the reader's TYPE_MISMATCH at /patch, not with
    RECORD_NOT_FOUND: requests are read before the store is."""
    ctx.expect_error(lambda: ctx.call("Update", {"id": "nope", "patch": [1, 2]}),
                     "INVALID_ARGUMENT", "TYPE_MISMATCH", "/patch")


def _greatest(versions: Any) -> str:
    ones = [v for v in (versions or []) if isinstance(v, str) and v.startswith("1.")]
    return max(ones, key=lambda v: int(v.split(".")[1])) if ones else "1.0"


@scenario("Required.Service.Envelope.NewerMinorVersion", "operations.md#2", "versioning.md#3.2",
          "versioning.md#3.5")
def newer_minor(ctx: Ctx) -> None:
    """A request of a newer minor version (1.99) with a field the service does
    not know is read, not refused, and answered in the greatest version the
    service speaks."""
    ctx.put_ok(fact("f-1", "x"))
    request = to_message("GetRequest", {"specversion": "1.99", "operation_id": "op-minor",
                                        "ids": ["f-1"]}).SerializeToString()
    request += bytes([0x98, 0x06, 0x01])  # field 99, varint 1
    got = from_message(ctx.mw.raw("Get", request))
    ctx.eq(got.get("specversion"), _greatest(ctx.caps.get("specversions")),
           "the specversion of the answer to a 1.99 request")
    ctx.eq([r.get("id") for r in got.get("records", [])], ["f-1"], "the records found")


@scenario("Required.Service.Envelope.NewerMinorUnknownContent", "versioning.md#3.5",
          "operations.md#2")
def newer_minor_content(ctx: Ctx) -> None:
    """A record of a newer minor version with unknown content is stored with
    that content (returned to requests of that minor version only) or refused
    with UNREPRESENTABLE; never stored without it."""
    record = to_message("MemoryRecord", fact("f-1", "x")).SerializeToString()
    record += bytes([0x98, 0x06, 0x01])  # field 99, varint 1
    item = bytes([0x0A, len(record)]) + record
    head = to_message("PutRequest", {"specversion": "1.99", "operation_id": "op-unknown-2"})
    try:
        ctx.mw.raw("Put", head.SerializeToString() + bytes([0x22, len(item)]) + item)
    except RpcFailure as e:
        ctx.check_error(e, "INVALID_ARGUMENT", "UNREPRESENTABLE",
                        what="a Put of a 1.99 record with unknown content")
        ctx.eq(ctx.get(["f-1"]).get("missing_ids"), ["f-1"], "Get of the refused record")
        return

    def unknown(version: str) -> list[int]:
        got: Any = ctx.mw.raw("Get", {"specversion": version, "ids": ["f-1"]})
        ctx.eq(len(got.records), 1, f"the records of a {version} Get")
        found = unknown_fields.UnknownFieldSet(got.records[0])
        return [found[i].field_number for i in range(len(found))]

    ctx.eq(unknown("1.99"), [99], "the unknown fields returned to a 1.99 Get")
    ctx.eq(unknown("1.0"), [], "the unknown fields returned to a 1.0 Get")


@scenario("Required.Service.Envelope.NewerMinorEnumValue", "versioning.md#3.5", "versioning.md#3.4")
def newer_minor_enum_value(ctx: Ctx) -> None:
    """A Delete of a newer minor version (1.99) whose mode is an enum value
    the service does not know fails with UNREPRESENTABLE at /mode and
    deletes nothing: the service does not perform it in the default mode."""
    ctx.put_ok(fact("f-1", "x"))
    request = to_message("DeleteRequest", {"specversion": "1.99", "operation_id": "op-enum",
                                           "ids": ["f-1"]}).SerializeToString()
    request += bytes([0x30, 99])  # DeleteRequest.mode (field 6), a value 1.0 does not define
    ctx.expect_error(lambda: ctx.mw.raw("Delete", request), "INVALID_ARGUMENT", "UNREPRESENTABLE",
                     "/mode", what="a Delete of 1.99 whose mode is unknown")
    ctx.eq([r.get("id") for r in ctx.get(["f-1"]).get("records", [])], ["f-1"],
           "the records after the refused Delete")


@scenario("Required.Service.Errors.OrderOfChecks", "grpc-binding.md#3.4", "operations.md#3.1.1")
def order_of_checks(ctx: Ctx) -> None:
    """Checks come in the order of the binding: the tenant metadata before
    the message, the message before scope.tenant, scope.tenant before the
    state of the store."""
    bad_record = {"kind": "fact", "fact": {"text": "no id"}}
    ctx.expect_error(lambda: ctx.put(bad_record, client=ctx.client(None)),
                     "UNAUTHENTICATED", "TENANT_REQUIRED",
                     what="an invalid Put without tenant")
    ctx.expect_error(lambda: ctx.put(bad_record, scope={"tenant": ctx.new_tenant()}),
                     "INVALID_ARGUMENT", "REQUIRED_FIELD_MISSING", "/items/0/record/id",
                     what="an invalid Put whose scope names another tenant")
    ctx.expect_error(lambda: ctx.call("Update", {"scope": {"tenant": ctx.new_tenant()},
                                                 "id": "nope", "patch": {"tags": ["x"]}}),
                     "PERMISSION_DENIED", "TENANT_MISMATCH", "/scope/tenant",
                     what="an Update of an absent record whose scope names another tenant")


def _health(ctx: Ctx, service: str) -> int | None:
    """The status of grpc.health.v1.Health/Check for a service name (1 is
    SERVING), encoded by hand: HealthCheckRequest {string service = 1},
    HealthCheckResponse {ServingStatus status = 1}."""
    name = service.encode("utf-8")
    request = (bytes([0x0A, len(name)]) + name) if name else b""
    check = ctx.mw.channel.unary_unary("/grpc.health.v1.Health/Check")
    response = check(request, timeout=ctx.timeout)
    if not response:
        return 0
    if response[0] != 0x08:
        return None
    return int(response[1])


@scenario("Recommended.Service.Health.Serving", "grpc-binding.md#8",
          inapplicable={"HTTP": "grpc.health.v1.Health is a gRPC service; the HTTP binding "
                                "defines no health check"})
def health(ctx: Ctx) -> None:
    """The server offers grpc.health.v1.Health and reports SERVING for the
    server as a whole and for memorywire.v1.MemoryService, without tenant."""
    for service in ("", "memorywire.v1.MemoryService"):
        try:
            status = _health(ctx, service)
        except grpc.RpcError as e:
            raise ctx.fail(f"grpc.health.v1.Health/Check({service!r}) failed with "
                           f"{e.code().name}") from None
        ctx.eq(status, 1, f"the health status of {service!r} (1 is SERVING)")
