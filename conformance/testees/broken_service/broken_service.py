"""Deliberately broken memory services: a gRPC proxy with one fault each.

    python broken_service.py --fault NAME --upstream HOST:PORT [--listen HOST:PORT]
        [--http HOST:PORT]

The proxy offers ``memorywire.v1.MemoryService`` and forwards every call to a
real service at ``--upstream``, passing requests, responses, metadata and
statuses through unchanged, except for the one fault chosen with ``--fault``;
it forwards the ``Check`` of ``grpc.health.v1.Health`` too, so that a run
against it fails by its fault alone.
Each fault breaks one rule of the specification, and the service level of the
conformance suite must catch every one of them: run against the proxy, the
runner exits 1 with at least one failed scenario. They prove that the
scenarios detect the mistakes services are likely to make.

The proxy handles raw bytes (generic handlers without deserializers) and
rewrites a message only when its fault needs to, with the message classes the
runner builds from its descriptor set. Which methods it offers, how each
streams and which ones write, it reads from the registry of operations of the
memorywire package (``memorywire.service.registry``). Once listening it prints one line to
stdout, ``listening on HOST:PORT`` (``--listen`` with port 0 picks a free
port), and it runs until SIGTERM or SIGINT. With ``--http HOST:PORT`` it serves
the proxy through the HTTP binding too (:mod:`http_gateway`), printing
``listening for HTTP on HOST:PORT`` first, so that the suite catches the fault
over either binding.

Faults of isolation and idempotency:

ignore-tenant
    Forwards every call with one fixed tenant, whatever memorywire-tenant the
    caller sent (or none). Breaks operations.md section 4.1 and
    grpc-binding.md section 3.1 (nothing crosses tenants; a call without
    tenant fails with TENANT_REQUIRED).
put-outside-scope
    Moves the request scope of every Put into the scopes of its records (as
    the service would complete them) and drops it, so that a Put finds its
    records in the whole tenant. Breaks operations.md sections 4.1 and 6 (a
    Put never replaces a record outside its request scope).
replay-twice
    Gives every mutating request a new operation_id upstream (and puts the
    caller's back in the response), so that a retry is performed again.
    Breaks operations.md section 4.2.1 (a replay returns the recorded
    response and has no second effect).
skip-revision-check
    Drops expected_revision from Put items, Update, Delete and Merge.
    Breaks operations.md section 4.3 (conditional writes).
non-atomic-batch
    Turns every atomic Put into a non-atomic one. Breaks operations.md
    sections 4.2.2 and 6 (an atomic batch with a failed item writes nothing).
stage-ignored
    Drops require_approval from Put. Breaks operations.md section 4.6
    (staged records wait for approval and stay out of History).
leak-deleted
    Sets include_deleted on every Get and Export. Breaks operations.md
    sections 4.7.1 and 7 (tombstones and rejected records are returned only
    when asked for).
hard-as-soft
    Turns every hard Delete into a soft one. Breaks operations.md sections
    4.7 and 11 (a hard deletion leaves nothing).
default-unknown-enum
    Clears every enum field of a request that holds a value the enum does
    not define, as a service that reads a value of a newer minor version as
    the default. Breaks versioning.md section 3.5 (such a request fails
    with UNREPRESENTABLE at the field).

erase-as-hard-delete
    Performs every Erase as a hard Delete of the records of its scope that
    satisfy its filter (of every record of the scope when it has none), and
    answers with a receipt of its own. Breaks operations.md section 19 (an
    Erase names a subject, removes the records' changes and the recorded
    responses that name them, and a replay returns the first receipt).
ignore-branch
    Drops branch from every History request, as a service that does not know
    it while it lists history.branches. Breaks operations.md section 8 (a
    History with branch reads the records of the branch only).
drop-integrity-block
    Removes the integrity block from the last message of every Export that
    asked for one. Breaks operations.md section 17.1 (the last message
    carries the integrity block of the records sent).
ignore-import-policies
    Drops conflict, deduplicate and dry_run from every Import message, as a
    service that does not know them while it lists import.policies. Breaks
    operations.md section 17.2 (conflict policies, deduplication and dry
    run).

Faults of order and paging:

shuffle-history
    Reverses the records of every History page. Breaks operations.md
    sections 4.4 and 8 (insertion order).
unordered-search
    Reverses the hits of every Search page. Breaks operations.md section 9.4
    (score descending, then sequence ascending).
approximate-when-exact
    Answers a vector Search that asks to be exact as an approximate index
    that missed the nearest candidate: drops the first hit and sets
    approximate. Breaks operations.md section 9.2 (with exact, every vector
    candidate is ranked exactly).
drop-next-cursor
    Removes next_cursor from History and Search responses. Breaks
    operations.md section 4.5 (a page whose results continue carries
    next_cursor).
reverse-export
    Reverses the records of every Export message. Breaks operations.md
    section 17.1 (ascending sequence order).

lenient-cursor
    Reads a History or Search cursor that a cursor it relayed begins, such
    as one with characters added, as that cursor. Breaks operations.md
    section 4.5 (a string the service did not issue is INVALID_CURSOR).

Faults of Watch:

lose-watch-event
    Drops every 5th event of each Watch stream. Breaks grpc-binding.md
    section 7.1 and operations.md section 16.1 (nothing is missed).
repeat-on-resume
    Sends the event at the cursor again first when a Watch resumes from a
    cursor it relayed. Breaks grpc-binding.md section 7.1 (nothing is
    repeated after a cursor).
ignore-consumer
    Drops the consumer from Watch requests, so that a consumer's committed
    offset is never used. Breaks operations.md section 16 (a Watch with a
    consumer starts after its committed offset).

Faults of streams and fair sharing:

split-import-batches
    Splits every Import message into messages of at most 100 records and
    4 MiB upstream, so that a message of more than max_batch_records records
    or max_document_bytes bytes is accepted. Breaks grpc-binding.md section
    7.3 (a larger batch fails the call with RESOURCE_EXHAUSTED).
commit-cancelled-import
    Half-closes the upstream Import when its caller cancels the stream, so
    that a cancelled Import takes effect. Breaks grpc-binding.md section 6.2
    (a write that the cancellation finds uncommitted is not committed).
drop-for-slow-reader
    Reads every Watch stream upstream at once and keeps at most 32 events for
    a caller that does not take them; events beyond are dropped. Breaks
    grpc-binding.md section 7.1 (a server that cannot keep up with a slow
    client does not skip events).
starve-other-tenants
    Once a tenant's Watch is refused because the tenant is at its bound,
    makes every call of every other tenant wait, while that tenant holds its
    streams, as a server whose workers that tenant's streams all hold.
    Breaks grpc-binding.md section 7.4 (one tenant does not hold every
    worker).
global-stream-pool
    Once a tenant's Watch is refused because the tenant is at its bound,
    refuses the Watch of every other tenant with the same Error while that
    tenant holds its streams, as a server with one pool of streams for all
    tenants. Breaks grpc-binding.md section 7.4 (the bound of one tenant
    never refuses the calls of another).

Faults of credentials:

accept-any-credentials
    Sends the upstream service the token of ``--upstream-token FILE`` in
    place of whatever credentials the caller sent, or none, so that every
    call is accepted. Breaks grpc-binding.md section 3.2 (credentials that
    are missing or not accepted fail with CREDENTIALS_INVALID). Run the
    suite against it with ``--token-file``.
case-sensitive-scheme
    Drops ``authorization`` whose scheme is not spelled ``Bearer`` exactly,
    so that ``bearer TOKEN`` is refused. Breaks grpc-binding.md section 3.2
    (the scheme is read without regard to case). Run the suite against it
    with ``--token-file``, in front of a service that requires a token.

Faults of what a service keeps from its callers:

keep-asserted-trust
    Shows every record as the caller wrote its provenance: the trust verified
    or system, and the origin system, that a Put, Import or Compact asserted
    come back in Get, History, Search, Update, Merge, Review and Compact
    responses. Breaks security.md section 3.3 (a caller not entitled to it
    cannot set such trust or origin).
reveal-other-tenant
    Adds "(it exists in another tenant)" to the message of a NOT_FOUND
    failure of Update, Delete, Merge, Compact or Review that names an id
    another tenant has put. Breaks security.md section 1 (no error reveals
    whether another tenant, or a record in it, exists).
reveal-refused-tenant
    Adds "(the tenant exists)" to the message of a PERMISSION_DENIED failure
    in a tenant that a call has used before. Breaks grpc-binding.md section
    3.2 (a server does not reveal whether a tenant it refuses exists). Run
    the suite against it with ``--token-file`` and ``--narrow-token-file``.
refuse-unknown-metadata
    Fails with INVALID_ARGUMENT every call that carries a memorywire- metadata
    key the binding does not define. Breaks grpc-binding.md section 3.3 (a
    server ignores reserved keys it does not know).
fetch-uris
    Fetches, in the background, every http URI of the records of a Put.
    Breaks security.md section 3.5 (a store does not fetch the URIs of
    records on its own initiative: server-side request forgery).

Faults of reflection:

strip-reflected-rules
    Offers server reflection by forwarding it to the upstream service, and
    removes the options of every field, the ``(rules)`` among them, from the
    files it serves. Breaks grpc-binding.md section 8 (the descriptors served
    are those of the memorywire.v1 files unchanged). The other faults offer
    no reflection.

Faults of errors:

no-error-details
    Removes grpc-status-details-bin from every failed call. Breaks
    grpc-binding.md section 5 (the Error travels in the status details).
wrong-status
    Ends calls that fail with ABORTED with INTERNAL instead, the Error left
    as it is. Breaks grpc-binding.md section 4 (the status code is the
    Error's code).
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import itertools
import re
import signal
import sys
import threading
import urllib.request
from collections.abc import Callable, Iterator
from concurrent import futures
from typing import Any, NamedTuple

import grpc
from google.protobuf import descriptor_pb2
from memorywire.service.records import SCOPE_FIELDS
from memorywire.service.registry import OPERATIONS, Operation, Streaming, operation
from memorywire_conformance.service import reflection
from memorywire_conformance.service.descriptors import SERVICE, message_class

FAULTS = {
    "ignore-tenant": "forwards every call with one fixed tenant",
    "put-outside-scope": "replaces records outside the request scope of a Put",
    "replay-twice": "performs retried operation ids again by giving each request a new one",
    "skip-revision-check": "drops expected_revision",
    "non-atomic-batch": "turns atomic Puts into non-atomic ones",
    "stage-ignored": "drops require_approval",
    "leak-deleted": "sets include_deleted on Get and Export",
    "hard-as-soft": "turns hard Deletes into soft ones",
    "default-unknown-enum": "reads request enum values of a newer minor version as the default",
    "erase-as-hard-delete": "performs every Erase as a hard Delete",
    "ignore-import-policies": "drops conflict, deduplicate and dry_run from Import",
    "drop-integrity-block": "removes the integrity block from Export streams",
    "ignore-branch": "drops branch from History requests",
    "shuffle-history": "reverses the records of every History page",
    "unordered-search": "reverses the hits of every Search page",
    "approximate-when-exact": "answers an exact vector Search as an approximate index that missed a hit",
    "drop-next-cursor": "removes next_cursor from History and Search",
    "reverse-export": "reverses the records of every Export message",
    "lose-watch-event": "drops every 5th event of each Watch stream",
    "repeat-on-resume": "repeats the event at the cursor when a Watch resumes",
    "ignore-consumer": "drops the consumer from Watch requests",
    "lenient-cursor": "reads a relayed cursor with characters added as that cursor",
    "accept-any-credentials": "accepts calls without credentials or with any",
    "case-sensitive-scheme": "refuses authorization whose scheme is not spelled Bearer",
    "keep-asserted-trust": "shows the trust and origin a caller asserted, whatever is stored",
    "reveal-other-tenant": "says in a NOT_FOUND message that another tenant has the record",
    "reveal-refused-tenant": "says in a PERMISSION_DENIED message that the tenant exists",
    "refuse-unknown-metadata": "refuses calls with memorywire- metadata it does not know",
    "fetch-uris": "fetches the http URIs of the records of every Put",
    "strip-reflected-rules": "serves reflection without the options of the fields",
    "no-error-details": "removes grpc-status-details-bin",
    "wrong-status": "turns ABORTED into INTERNAL",
    "split-import-batches": "splits Import messages too large for the service into smaller ones",
    "commit-cancelled-import": "completes an Import whose caller cancelled it",
    "drop-for-slow-reader": "drops the Watch events a slow reader has not taken beyond 32",
    "starve-other-tenants": "makes other tenants wait while one is at its stream bound",
    "global-stream-pool": "refuses other tenants' Watch while one is at its stream bound",
}

#: The faults whose rule the HTTP binding does not have, with why: over HTTP
#: no scenario can catch them.
GRPC_ONLY = {
    "strip-reflected-rules": "server reflection is a gRPC service, which the HTTP binding "
                             "does not offer",
    "default-unknown-enum": "the gateway, the reference HTTP binding, refuses a request enum value "
                            "of a newer minor version before the request reaches the proxy",
}
#: Not a fault: forwards everything unchanged (a control run of the proxy and
#: of its HTTP gateway, which must pass what the service behind them passes).
CONTROL = "none"

#: The operations, as the reference service's registry lists them: the
#: proxy forwards each by how it streams, and replay-twice rewrites the
#: mutating ones.
MUTATING = frozenset(op.name for op in OPERATIONS if op.mutating)
SHARED_TENANT = "broken-service-shared-tenant"
HEALTH = "grpc.health.v1.Health"
DETAILS_KEY = "grpc-status-details-bin"
FORWARDED = ("memorywire-", "authorization")
#: The memorywire- metadata keys grpc-binding.md defines (refuse-unknown-metadata).
KNOWN_METADATA = frozenset({"memorywire-tenant", "memorywire-specversion"})
#: Trust verified and system, origin system: what keep-asserted-trust keeps.
ENTITLED_TRUST = frozenset({3, 4})
ENTITLED_ORIGIN = 4
#: The requests and members that name records (reveal-other-tenant).
NAMED_IDS = {"Update": ("id",), "Delete": ("ids",), "Merge": ("target_id", "source_ids"),
             "Compact": ("ids",), "Review": ("id",)}
#: The responses and members that carry records (keep-asserted-trust).
RECORDS_IN = {"Get": "records", "History": "records", "Update": "record", "Merge": "record",
              "Review": "record", "Compact": "summary"}
HTTP_URI = re.compile(rb"https?://[\x21-\x7e]+")
#: The largest message the proxy takes and sends (split-import-batches reads
#: messages larger than the default max_document_bytes).
MAX_MESSAGE_BYTES = 64 * 1024 * 1024
#: split-import-batches: the records and bytes of each message sent upstream.
SPLIT_RECORDS = 100
SPLIT_BYTES = 4 * 1024 * 1024
#: drop-for-slow-reader: the events kept for a caller that does not take them.
SLOW_READER_EVENTS = 32


class _Status(NamedTuple):
    code: grpc.StatusCode
    details: str
    trailing_metadata: tuple[tuple[str, Any], ...]


def _parse(method: str, data: bytes, suffix: str = "Request") -> Any:
    return message_class(f"{method}{suffix}").FromString(data)


def _approximate(request: bytes, response: bytes) -> bytes:
    """approximate-when-exact: the response to an exact vector Search as an
    approximate index that missed the nearest candidate would give it."""
    req = _parse("Search", request)
    if not (req.exact and req.HasField("vector")):
        return response
    msg = _parse("Search", response, "Response")
    if msg.hits:
        del msg.hits[0]
    msg.approximate = True
    return bytes(msg.SerializeToString())


class Proxy:
    """The proxy: forwards every method to the upstream channel, with one fault."""

    def __init__(self, upstream: str, fault: str, upstream_token: str | None = None) -> None:
        if fault not in FAULTS and fault != CONTROL:
            raise ValueError(f"unknown fault {fault!r}")
        if fault == "accept-any-credentials" and not upstream_token:
            raise ValueError("the fault accept-any-credentials needs --upstream-token")
        self.fault = fault
        self.upstream_token = upstream_token
        self.channel = grpc.insecure_channel(upstream, options=[
            ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
            ("grpc.max_send_message_length", MAX_MESSAGE_BYTES)])
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        #: The Watch responses relayed, by the cursor of their event (repeat-on-resume).
        self._events: dict[str, bytes] = {}
        #: The paging cursors relayed (lenient-cursor).
        self._cursors: set[str] = set()
        #: The provenance asserted, by tenant and record id (keep-asserted-trust).
        self._asserted: dict[tuple[str, str], tuple[int, int]] = {}
        #: The record ids each tenant has put (reveal-other-tenant).
        self._put_ids: dict[str, set[str]] = {}
        #: The tenants of the calls that succeeded (reveal-refused-tenant).
        self._tenants: set[str] = set()
        #: The Watch streams open, by tenant, and the tenants at their bound:
        #: the streams they held when refused, and the refusal
        #: (starve-other-tenants, global-stream-pool).
        self._watching: dict[str, int] = {}
        self._at_bound: dict[str, tuple[int, grpc.RpcError]] = {}
        self._bound_changed = threading.Condition(self._lock)

    # -- metadata and statuses --------------------------------------------------------------

    def _metadata(self, context: grpc.ServicerContext) -> tuple[tuple[str, Any], ...]:
        md = [(k, v) for k, v in (context.invocation_metadata() or ())
              if k.startswith(FORWARDED)]
        if self.fault == "ignore-tenant":
            md = [(k, v) for k, v in md if k != "memorywire-tenant"]
            md.append(("memorywire-tenant", SHARED_TENANT))
        if self.fault == "accept-any-credentials":
            md = [(k, v) for k, v in md if k != "authorization"]
            md.append(("authorization", f"Bearer {self.upstream_token}"))
        elif self.fault == "case-sensitive-scheme":
            md = [(k, v) for k, v in md if k != "authorization" or str(v).startswith("Bearer ")]
        return tuple(md)

    @staticmethod
    def _tenant(context: grpc.ServicerContext) -> str:
        return next((str(v) for k, v in (context.invocation_metadata() or ())
                     if k == "memorywire-tenant"), "")

    def _refuse_metadata(self, context: grpc.ServicerContext) -> None:
        unknown = [k for k, _ in (context.invocation_metadata() or ())
                   if k.startswith("memorywire-") and k not in KNOWN_METADATA]
        if self.fault == "refuse-unknown-metadata" and unknown:
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, f"unknown metadata {unknown[0]}")

    def _note(self, tenant: str, method: str, data: bytes) -> None:
        """Remember what the request of a write asserts, or the ids it puts."""
        if self.fault == "fetch-uris" and method == "Put":
            for uri in HTTP_URI.findall(data):
                threading.Thread(target=_fetch, args=(uri.decode("ascii"),), daemon=True).start()
        if self.fault not in ("keep-asserted-trust", "reveal-other-tenant") or \
                method not in ("Put", "Import", "Compact"):
            return
        msg = _parse(method, data)
        records = ([item.record for item in msg.items] if method == "Put" else
                   list(msg.records) if method == "Import" else [msg.summary])
        with self._lock:
            for record in records:
                self._put_ids.setdefault(tenant, set()).add(record.id)
                trust, origin = record.provenance.trust, record.provenance.origin
                if trust in ENTITLED_TRUST or origin == ENTITLED_ORIGIN:
                    self._asserted[(tenant, record.id)] = (trust, origin)

    def _show_asserted(self, tenant: str, method: str, data: bytes) -> bytes:
        member = "hits" if method == "Search" else RECORDS_IN.get(method)
        if member is None:
            return data
        msg = _parse(method, data, "Response")
        field = getattr(msg, member)
        records = ([hit.record for hit in field] if method == "Search" else
                   list(field) if method in ("Get", "History") else [field])
        with self._lock:
            for record in records:
                asserted = self._asserted.get((tenant, record.id))
                if asserted is not None:
                    record.provenance.trust, record.provenance.origin = asserted
        return bytes(msg.SerializeToString())

    def _revealing(self, tenant: str, method: str, data: bytes, e: grpc.RpcError) -> str:
        """What reveal-other-tenant and reveal-refused-tenant add to the
        message of a failure."""
        failed: Any = e
        code = failed.code()
        if self.fault == "reveal-other-tenant" and code == grpc.StatusCode.NOT_FOUND \
                and method in NAMED_IDS:
            return self._foreign_note(tenant, method, data)
        if self.fault == "reveal-refused-tenant" and code == grpc.StatusCode.PERMISSION_DENIED:
            with self._lock:
                return " (the tenant exists)" if tenant in self._tenants else ""
        return ""

    def _foreign_note(self, tenant: str, method: str, data: bytes) -> str:
        """reveal-other-tenant: what the message of a NOT_FOUND adds."""
        msg = _parse(method, data)
        named: list[str] = []
        for member in NAMED_IDS.get(method, ()):
            value = getattr(msg, member)
            named.extend([value] if isinstance(value, str) else list(value))
        with self._lock:
            others = set().union(*(ids for t, ids in self._put_ids.items() if t != tenant))
        found = [i for i in named if i in others]
        return f" ({found[0]} exists in another tenant)" if found else ""

    def _abort(self, context: grpc.ServicerContext, e: grpc.RpcError, note: str = "") -> None:
        call: Any = e
        code = call.code()
        trailers = tuple((k, v) for k, v in (call.trailing_metadata() or ()) if k == DETAILS_KEY)
        if self.fault == "no-error-details":
            trailers = ()
        if self.fault == "wrong-status" and code == grpc.StatusCode.ABORTED:
            code = grpc.StatusCode.INTERNAL
        context.abort_with_status(_Status(code, (call.details() or "") + note, trailers))

    @staticmethod
    def _headers(context: grpc.ServicerContext, call: Any) -> None:
        headers = tuple((k, v) for k, v in (call.initial_metadata() or ())
                        if k.startswith("memorywire-"))
        if headers:
            context.send_initial_metadata(headers)

    # -- requests and responses -------------------------------------------------------------

    def _new_id(self) -> int:
        with self._lock:
            return next(self._ids)

    def _request(self, method: str, data: bytes, new_id: int | None = None
                 ) -> tuple[bytes, str | None]:
        """The request to forward, and the caller's operation_id when the fault
        replaced it (with ``new_id``, or a number of its own)."""
        fault = self.fault
        touched = False
        msg = None

        def parsed() -> Any:
            nonlocal msg, touched
            if msg is None:
                msg = _parse(method, data)
            touched = True
            return msg

        original = None
        if fault == "replay-twice" and method in MUTATING:
            m = parsed()
            original = m.operation_id
            m.operation_id = f"{original}#{new_id if new_id is not None else self._new_id()}"
        elif fault == "skip-revision-check":
            if method == "Put":
                for item in parsed().items:
                    item.ClearField("expected_revision")
            elif method in ("Update", "Delete", "Merge"):
                parsed().ClearField("expected_revision")
        elif fault == "put-outside-scope" and method == "Put" and parsed().HasField("scope"):
            m = parsed()
            for item in m.items:
                _complete_scope(item.record.scope, m.scope)
            m.ClearField("scope")
        elif fault == "non-atomic-batch" and method == "Put":
            parsed().atomic = False
        elif fault == "stage-ignored" and method == "Put":
            parsed().require_approval = False
        elif fault == "leak-deleted" and method in ("Get", "Export"):
            parsed().include_deleted = True
        elif fault == "hard-as-soft" and method == "Delete":
            m = parsed()
            if m.mode == 2:
                m.mode = 1
        elif fault == "default-unknown-enum" and method != "Import":
            m = parsed()
            for fd in m.DESCRIPTOR.fields:
                if fd.enum_type is not None and not fd.is_repeated \
                        and fd.enum_type.values_by_number.get(getattr(m, fd.name)) is None:
                    m.ClearField(fd.name)
        elif fault == "ignore-import-policies" and method == "Import":
            m = parsed()
            for name in ("conflict", "deduplicate", "dry_run"):
                m.ClearField(name)
        elif fault == "ignore-branch" and method == "History":
            parsed().branch = ""
        elif fault == "ignore-consumer" and method == "Watch":
            parsed().consumer = ""
        elif fault == "lenient-cursor" and method in ("History", "Search"):
            cursor = _parse(method, data).cursor
            relayed = [c for c in self._cursors if cursor.startswith(c) and cursor != c]
            if relayed:
                parsed().cursor = relayed[0]
        if not touched or msg is None:
            return data, None
        return msg.SerializeToString(), original

    def _response(self, method: str, data: bytes, original: str | None) -> bytes:
        fault = self.fault
        if original is not None:
            msg = _parse(method, data, "Response")
            msg.operation_id = original
            return bytes(msg.SerializeToString())
        if fault == "shuffle-history" and method == "History":
            msg = _parse(method, data, "Response")
            records = list(msg.records)[::-1]
            del msg.records[:]
            msg.records.extend(records)
            return bytes(msg.SerializeToString())
        if fault == "unordered-search" and method == "Search":
            msg = _parse(method, data, "Response")
            hits = list(msg.hits)[::-1]
            del msg.hits[:]
            msg.hits.extend(hits)
            return bytes(msg.SerializeToString())
        if fault == "lenient-cursor" and method in ("History", "Search"):
            cursor = _parse(method, data, "Response").next_cursor
            if cursor:
                with self._lock:
                    self._cursors.add(cursor)
        if fault == "drop-next-cursor" and method in ("History", "Search"):
            msg = _parse(method, data, "Response")
            msg.ClearField("next_cursor")
            return bytes(msg.SerializeToString())
        if fault == "drop-integrity-block" and method == "Export":
            msg = _parse(method, data, "Response")
            if msg.HasField("integrity"):
                msg.ClearField("integrity")
                return bytes(msg.SerializeToString())
        if fault == "reverse-export" and method == "Export":
            msg = _parse(method, data, "Response")
            records = list(msg.records)[::-1]
            del msg.records[:]
            msg.records.extend(records)
            return bytes(msg.SerializeToString())
        return data

    # -- handlers -------------------------------------------------------------------------------

    def _unary(self, op: Operation) -> Callable[[bytes, grpc.ServicerContext], bytes]:
        method = op.name
        stub = self.channel.unary_unary(op.path)

        def handle(request: bytes, context: grpc.ServicerContext) -> bytes:
            self._refuse_metadata(context)
            tenant = self._tenant(context)
            self._starve(tenant, context)
            if self.fault == "erase-as-hard-delete" and method == "Erase":
                return self._erase_as_delete(request, context)
            data, original = self._request(method, request)
            try:
                response, call = stub.with_call(data, timeout=context.time_remaining(),
                                                metadata=self._metadata(context))
            except grpc.RpcError as e:
                self._abort(context, e, self._revealing(tenant, method, data, e))
                raise AssertionError("unreachable") from None
            self._note(tenant, method, data)
            if self.fault == "reveal-refused-tenant":
                with self._lock:
                    self._tenants.add(tenant)
            self._headers(context, call)
            if self.fault == "keep-asserted-trust":
                response = self._show_asserted(tenant, method, response)
            if self.fault == "approximate-when-exact" and method == "Search":
                response = _approximate(data, response)
            return self._response(method, response, original)

        return handle

    def _erase_as_delete(self, request: bytes, context: grpc.ServicerContext) -> bytes:
        """erase-as-hard-delete: a hard Delete, and a receipt made up from it."""
        erase = _parse("Erase", request)
        delete = message_class("DeleteRequest")(specversion=erase.specversion,
                                                operation_id=erase.operation_id, mode=2)
        delete.scope.CopyFrom(erase.scope)
        if erase.HasField("filter"):
            delete.filter.CopyFrom(erase.filter)
        else:
            delete.filter.compare.field = "/id"
            delete.filter.compare.operator = 8  # exists: every record
        stub = self.channel.unary_unary(operation("Delete").path)
        try:
            data = stub(delete.SerializeToString(), timeout=context.time_remaining(),
                        metadata=self._metadata(context))
        except grpc.RpcError as e:
            self._abort(context, e)
            raise AssertionError("unreachable") from None
        ids = list(_parse("Delete", data, "Response").deleted_ids)
        response = message_class("EraseResponse")(specversion=erase.specversion,
                                                  operation_id=erase.operation_id)
        response.receipt.records = len(ids)
        response.receipt.digest = "sha256:" + hashlib.sha256(
            "".join(x + "\n" for x in sorted(ids)).encode()).hexdigest()
        response.receipt.erased_at.GetCurrentTime()
        return bytes(response.SerializeToString())

    def _server_stream(self, op: Operation) -> Callable[[bytes, grpc.ServicerContext],
                                                        Iterator[bytes]]:
        method = op.name
        stub = self.channel.unary_stream(op.path)

        def handle(request: bytes, context: grpc.ServicerContext) -> Iterator[bytes]:
            self._refuse_metadata(context)
            tenant = self._tenant(context)
            self._starve(tenant, context)
            if method == "Watch":
                self._pool_refusal(tenant, context)
            data, _ = self._request(method, request)
            call = stub(data, timeout=context.time_remaining(), metadata=self._metadata(context))
            context.add_callback(call.cancel)
            resume = None
            if method == "Watch" and self.fault == "repeat-on-resume":
                cursor = _parse("Watch", data).cursor
                with self._lock:
                    resume = self._events.get(cursor)
            responses: Iterator[bytes] = call
            if method == "Watch" and self.fault == "drop-for-slow-reader":
                responses = _read_ahead(call, SLOW_READER_EVENTS)
            if method == "Watch":
                with self._lock:
                    self._watching[tenant] = self._watching.get(tenant, 0) + 1
            try:
                for i, response in enumerate(responses, start=1):
                    self._headers_once(context, call, i)
                    if method == "Watch":
                        if self.fault == "lose-watch-event" and i % 5 == 0:
                            continue
                        if self.fault == "repeat-on-resume":
                            event = _parse("Watch", response, "Response").event
                            with self._lock:
                                self._events[event.cursor] = response
                            if resume is not None:
                                yield resume
                                resume = None
                    yield self._response(method, response, None)
            except grpc.RpcError as e:
                if method == "Watch":
                    self._note_refusal(tenant, e)
                if context.is_active():
                    self._abort(context, e)
            finally:
                if method == "Watch":
                    with self._lock:
                        self._watching[tenant] -= 1
                        self._bound_changed.notify_all()

        return handle

    # -- fair sharing ----------------------------------------------------------------------------

    def _note_refusal(self, tenant: str, e: grpc.RpcError) -> None:
        """Remember a tenant whose Watch was refused at its bound, with the
        streams it held then (starve-other-tenants, global-stream-pool)."""
        failed: Any = e
        if self.fault in ("starve-other-tenants", "global-stream-pool") and \
                failed.code() == grpc.StatusCode.RESOURCE_EXHAUSTED:
            with self._lock:
                self._at_bound[tenant] = (self._watching.get(tenant, 1) - 1, e)

    def _hog(self, tenant: str) -> tuple[str, grpc.RpcError] | None:
        """Another tenant that holds as many streams as when it was refused,
        and its refusal; the lock is held."""
        for other, (held, refusal) in self._at_bound.items():
            if other != tenant and held and self._watching.get(other, 0) >= held:
                return other, refusal
        return None

    def _starve(self, tenant: str, context: grpc.ServicerContext) -> None:
        """starve-other-tenants: wait while another tenant is at its bound."""
        if self.fault != "starve-other-tenants":
            return
        with self._lock:
            deadline = context.time_remaining()
            waited = self._bound_changed.wait_for(lambda: self._hog(tenant) is None,
                                                  timeout=deadline)
        if not waited:
            context.abort(grpc.StatusCode.DEADLINE_EXCEEDED, "Deadline Exceeded")

    def _pool_refusal(self, tenant: str, context: grpc.ServicerContext) -> None:
        """global-stream-pool: refuse a Watch while another tenant is at its bound."""
        if self.fault != "global-stream-pool":
            return
        with self._lock:
            hog = self._hog(tenant)
        if hog is not None:
            self._abort(context, hog[1])

    def _headers_once(self, context: grpc.ServicerContext, call: Any, index: int) -> None:
        if index == 1:
            self._headers(context, call)

    def _import(self, requests: Iterator[bytes], context: grpc.ServicerContext) -> bytes:
        self._refuse_metadata(context)
        stub = self.channel.stream_unary(operation("Import").path)
        original: list[str | None] = [None]
        tenant = self._tenant(context)
        sent: list[bytes] = []

        stream_id = self._new_id()
        terminated = threading.Event()
        context.add_callback(terminated.set)

        def forwarded() -> Iterator[bytes]:
            try:
                for raw in requests:
                    data, op = self._request("Import", raw, stream_id)
                    if op is not None:
                        original[0] = op
                    for part in (_split_import(data) if self.fault == "split-import-batches"
                                 else [data]):
                        sent.append(part)
                        yield part
            except grpc.RpcError:
                if self.fault == "commit-cancelled-import":
                    return  # the caller cancelled: taken for a half-close
                raise
            # The gRPC library may report a cancelled stream as ended a moment
            # before the cancellation: an exception here cancels upstream.
            if self.fault != "commit-cancelled-import" and (
                    terminated.wait(0.05) or not context.is_active()):
                raise RuntimeError("the caller cancelled the Import")

        try:
            response, call = stub.with_call(forwarded(), timeout=context.time_remaining(),
                                            metadata=self._metadata(context))
        except grpc.RpcError as e:
            self._abort(context, e)
            raise AssertionError("unreachable") from None
        for data in sent:
            self._note(tenant, "Import", data)
        self._headers(context, call)
        return self._response("Import", response, original[0])

    def _reflection(self, service: str) -> Callable[[Iterator[bytes], grpc.ServicerContext],
                                                    Iterator[bytes]]:
        """strip-reflected-rules: the upstream reflection, field options removed."""
        stub = self.channel.stream_stream(f"/{service}/ServerReflectionInfo")
        response_class: Any = reflection.message_class("ServerReflectionResponse")

        def handle(requests: Iterator[bytes], context: grpc.ServicerContext) -> Iterator[bytes]:
            call = stub(requests, timeout=context.time_remaining())
            context.add_callback(call.cancel)
            try:
                for data in call:
                    response = response_class.FromString(data)
                    files = response.file_descriptor_response.file_descriptor_proto
                    for i, raw in enumerate(files):
                        files[i] = _without_field_options(raw)
                    yield response.SerializeToString()
            except grpc.RpcError as e:
                if context.is_active():
                    self._abort(context, e)

        return handle

    def _health_check(self, request: bytes, context: grpc.ServicerContext) -> bytes:
        """The upstream health, so that the proxy fails no scenario of health:
        every fault is caught by the scenarios of its own rule."""
        stub = self.channel.unary_unary(f"/{HEALTH}/Check")
        try:
            return bytes(stub(request, timeout=context.time_remaining()))
        except grpc.RpcError as e:
            self._abort(context, e)
            raise AssertionError("unreachable") from None

    def handlers(self) -> list[grpc.GenericRpcHandler]:
        handlers: dict[str, grpc.RpcMethodHandler] = {}
        for op in OPERATIONS:
            if op.streaming is Streaming.UNARY:
                handlers[op.name] = grpc.unary_unary_rpc_method_handler(self._unary(op))
            elif op.streaming is Streaming.SERVER:
                handlers[op.name] = grpc.unary_stream_rpc_method_handler(self._server_stream(op))
            elif op.name == "Import":
                handlers[op.name] = grpc.stream_unary_rpc_method_handler(self._import)
            else:
                raise NotImplementedError(f"the proxy does not forward {op.name}")
        out = [grpc.method_handlers_generic_handler(SERVICE, handlers),
               grpc.method_handlers_generic_handler(HEALTH, {
                   "Check": grpc.unary_unary_rpc_method_handler(self._health_check)})]
        if self.fault == "strip-reflected-rules":
            out += [grpc.method_handlers_generic_handler(service, {
                "ServerReflectionInfo": grpc.stream_stream_rpc_method_handler(
                    self._reflection(service))}) for service in reflection.SERVICES]
        return out


def _complete_scope(record_scope: Any, request_scope: Any) -> None:
    """put-outside-scope: fill a record's scope from the request scope as
    operations.md section 4.1 has the service do."""
    for name in ("tenant", *SCOPE_FIELDS):
        if getattr(request_scope, name) and not getattr(record_scope, name):
            setattr(record_scope, name, getattr(request_scope, name))
    if request_scope.namespace and not record_scope.namespace:
        record_scope.namespace.extend(request_scope.namespace)


def _split_import(data: bytes) -> list[bytes]:
    """split-import-batches: an ImportRequest as messages of at most
    SPLIT_RECORDS records and about SPLIT_BYTES bytes, each with its envelope."""
    msg = _parse("Import", data)
    if len(msg.records) <= SPLIT_RECORDS and len(data) <= SPLIT_BYTES:
        return [data]
    parts: list[list[Any]] = [[]]
    size = 0
    for record in msg.records:
        if parts[-1] and (len(parts[-1]) >= SPLIT_RECORDS or size + record.ByteSize() > SPLIT_BYTES):
            parts.append([])
            size = 0
        parts[-1].append(record)
        size += record.ByteSize()
    out = []
    for records in parts:
        part = _parse("Import", data)
        del part.records[:]
        part.records.extend(records)
        out.append(bytes(part.SerializeToString()))
    return out


def _read_ahead(call: Any, keep: int) -> Iterator[bytes]:
    """The messages of an upstream stream, read by a thread of its own as
    fast as they come; at most ``keep`` wait for the caller, and those beyond
    are dropped."""
    waiting: collections.deque[bytes] = collections.deque()
    ready = threading.Condition()
    state: dict[str, Any] = {"done": False, "failure": None}

    def pump() -> None:
        try:
            for message in call:
                with ready:
                    if len(waiting) < keep:
                        waiting.append(message)
                    ready.notify()
        except grpc.RpcError as e:
            state["failure"] = e
        finally:
            with ready:
                state["done"] = True
                ready.notify()

    threading.Thread(target=pump, name="broken-service-read-ahead", daemon=True).start()
    while True:
        with ready:
            ready.wait_for(lambda: bool(waiting) or state["done"])
            if waiting:
                message = waiting.popleft()
            elif state["failure"] is not None:
                raise state["failure"]
            else:
                return
        yield message


def _without_field_options(data: bytes) -> bytes:
    """A serialized FileDescriptorProto whose fields carry no options."""
    f = descriptor_pb2.FileDescriptorProto.FromString(data)

    def strip(messages: Any) -> None:
        for m in messages:
            for field in m.field:
                field.ClearField("options")
            strip(m.nested_type)

    strip(f.message_type)
    return bytes(f.SerializeToString())


def _fetch(uri: str) -> None:
    """Fetch a URI, as a store that follows the links of records would."""
    try:
        with urllib.request.urlopen(uri, timeout=2) as response:
            response.read(1024)
    except (OSError, ValueError):
        pass


def serve(fault: str, upstream: str, listen: str,
          upstream_token: str | None = None) -> tuple[grpc.Server, int]:
    """Start a proxy; the server and the port it listens on."""
    proxy = Proxy(upstream, fault, upstream_token)
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=64,
                                                    thread_name_prefix="broken-service"),
                         options=[("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
                                  ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
                                  ("grpc.so_reuseport", 0)])
    server.add_generic_rpc_handlers(proxy.handlers())
    port = server.add_insecure_port(listen)
    if not port:
        raise RuntimeError(f"cannot listen on {listen}")
    server.start()
    return server, port


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="broken_service.py",
        description="A memorywire service proxy with one deliberate fault.",
        epilog="faults: " + ", ".join(FAULTS))
    parser.add_argument("--fault", required=True, choices=sorted([*FAULTS, CONTROL]),
                        help=f"the fault; {CONTROL}: none, a control run")
    parser.add_argument("--upstream", required=True, metavar="HOST:PORT",
                        help="the real service")
    parser.add_argument("--listen", default="127.0.0.1:0", metavar="HOST:PORT",
                        help="where to listen (default 127.0.0.1:0, a free port)")
    parser.add_argument("--http", metavar="HOST:PORT",
                        help="also serve the proxy, fault included, through the HTTP binding on "
                             "this address (http_gateway.py; needs memorywire's service extra)")
    parser.add_argument("--upstream-token", metavar="FILE",
                        help="a file holding the token that accept-any-credentials sends upstream")
    args = parser.parse_args(argv)
    token = None
    if args.upstream_token is not None:
        with open(args.upstream_token, encoding="utf-8") as f:
            token = f.read().strip()
    server, port = serve(args.fault, args.upstream, args.listen, token)
    host = args.listen.rsplit(":", 1)[0]
    gateway = None
    if args.http is not None:
        from http_gateway import serve_http

        gateway, http_port = serve_http(f"127.0.0.1:{port}", args.http)
        print(f"listening for HTTP on {args.http.rsplit(':', 1)[0]}:{http_port}", flush=True)
    print(f"listening on {host}:{port}", flush=True)
    done = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: done.set())
    while not done.wait(1.0):
        pass
    if gateway is not None:
        gateway.stop()
    server.stop(1.0).wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
