"""Scenarios, their context and the service suite that runs them.

A scenario is a small function that talks to the service through a
:class:`Ctx` and fails by raising :class:`Failure` (through the checks of the
context). It has a stable id ``Required.Service.<Area>.<Name>`` or
``Recommended.Service.<Area>.<Name>``, a description (its docstring) and the
spec sections it tests. A scenario that needs an optional operation or a
feature (``needs=("Expire",)``, ``needs=("search.vector",)``) is skipped when
the service's capabilities do not list it.

The scenarios are one set for both bindings: the suite reaches the service
through a gRPC channel or the HTTP binding (:mod:`.httpbinding`), and a
scenario whose subject one binding does not have (gRPC health checking, for
instance) names that binding and the reason in ``inapplicable``; the report
shows it as not applicable over that binding.

Every scenario runs in a tenant of its own, made fresh for the run from the
tenant prefix and a random run id, so that scenarios share nothing and a run
can be repeated against a long-lived service.
"""

from __future__ import annotations

import time
import traceback
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import grpc

from memorywire_conformance.cases import FAILED, PASSED, SKIPPED, Case, Result, Shown
from memorywire_conformance.service.client import (
    Client,
    RpcFailure,
    StreamTimeout,
    WatchStream,
)
from memorywire_conformance.service.httpbinding import HttpChannel, HttpClient

__all__ = ["SCENARIOS", "Ctx", "Failure", "Scenario", "ServiceSuite", "Skip", "scenario"]

SUITE = "service"
#: The greatest number of pages a scenario reads from one cursor chain.
MAX_PAGES = 200
#: Channel options that keep the receive window of a channel at the HTTP/2
#: default of 64 KiB: without probes of the bandwidth, gRPC libraries grow it
#: to megabytes, which a client that does not read fills before the service
#: sees it waiting.
SMALL_WINDOW: tuple[tuple[str, Any], ...] = (("grpc.http2.bdp_probe", 0),)


class Failure(Exception):
    """A check of a scenario that does not hold."""

    def __init__(self, message: str, expected: Any = None, got: Any = None) -> None:
        super().__init__(message)
        self.message = message
        self.expected = expected
        self.got = got


class Skip(Exception):
    """The scenario does not apply to this service."""


@dataclass(frozen=True)
class Scenario:
    id: str
    run: Callable[[Ctx], None]
    spec: tuple[str, ...]
    description: str
    #: Operations (capitalised) and features (lowercase) the scenario needs.
    needs: tuple[str, ...] = ()
    #: The bindings ("gRPC", "HTTP") over which the scenario has no meaning,
    #: each with the reason.
    inapplicable: tuple[tuple[str, str], ...] = ()

    @property
    def case(self) -> Case:
        level, suite_area, area, name = self.id.split(".", 3)
        return Case(id=self.id, suite=SUITE, level=level.lower(), area=area, name=name,
                    spec=self.spec, description=self.description)


SCENARIOS: list[Scenario] = []
#: The bindings the suite speaks.
BINDINGS = ("gRPC", "HTTP")


def scenario(id: str, *spec: str, needs: Sequence[str] = (),
             inapplicable: Mapping[str, str] | None = None) -> Callable[
        [Callable[[Ctx], None]], Callable[[Ctx], None]]:
    """Register a scenario: ``@scenario("Required.Service.Put.Create", "operations.md#6")``;
    ``inapplicable``: the bindings over which it has no meaning, with why."""
    unknown = set(inapplicable or {}) - set(BINDINGS)
    if unknown:
        raise ValueError(f"{id}: no binding {sorted(unknown)}; the bindings are {BINDINGS}")
    parts = id.split(".")
    if len(parts) != 4 or parts[0] not in ("Required", "Recommended") or parts[1] != "Service":
        raise ValueError(f"bad scenario id {id!r}")
    if not spec:
        raise ValueError(f"{id}: a scenario cites at least one spec section")

    def register(fn: Callable[[Ctx], None]) -> Callable[[Ctx], None]:
        doc = " ".join((fn.__doc__ or "").split())
        if not doc:
            raise ValueError(f"{id}: a scenario has a description")
        if any(s.id == id for s in SCENARIOS):
            raise ValueError(f"duplicate scenario id {id}")
        SCENARIOS.append(Scenario(id, fn, tuple(spec), doc, tuple(needs),
                                  tuple((inapplicable or {}).items())))
        return fn

    return register


def _short(value: Any, limit: int = 600) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + f"... ({len(text) - limit} more)"


# Records.


def fact(id: str, text: str, **fields: Any) -> dict[str, Any]:
    """A fact record."""
    return {"id": id, "kind": "fact", "fact": {"text": text}, **fields}


def message(id: str, text: str, role: str = "user", agent: str | None = None,
            caller: str | None = None, **fields: Any) -> dict[str, Any]:
    """A message record with one text part and routing."""
    rec: dict[str, Any] = {"id": id, "kind": "message",
                           "message": {"role": role, "content": [{"text": {"text": text}}]},
                           **fields}
    routing = dict(rec.get("routing") or {})
    if agent is not None:
        routing["agent"] = agent
    if caller is not None:
        routing["caller_agent"] = caller
    if routing:
        rec["routing"] = routing
    return rec


def ids_of(records: Iterable[Mapping[str, Any]]) -> list[str]:
    return [r.get("id", "") for r in records]


def status_of(record: Mapping[str, Any]) -> str:
    return str(record.get("lifecycle", {}).get("status", "active"))


class Ctx:
    """What a scenario works with: the service, its capabilities, a fresh
    tenant and checks."""

    def __init__(self, suite: ServiceSuite, tenant: str) -> None:
        self.suite = suite
        self.tenant = tenant
        self.timeout = suite.timeout
        #: How long to wait for an event that is due.
        self.wait = min(suite.timeout, 3.0)
        self.mw = suite.client(tenant)
        self._others = 0
        self._streams: list[WatchStream] = []
        self._channels: list[grpc.Channel] = []

    # -- the service ---------------------------------------------------------------------------

    @property
    def caps(self) -> dict[str, Any]:
        return self.suite.capabilities

    @property
    def features(self) -> frozenset[str]:
        return frozenset(self.suite.capabilities.get("features", []))

    @property
    def operations(self) -> frozenset[str]:
        return frozenset(self.suite.capabilities.get("operations", []))

    def has(self, need: str) -> bool:
        return need in (self.operations if need[:1].isupper() else self.features)

    def new_tenant(self) -> str:
        self._others += 1
        return f"{self.tenant}-{self._others}"

    def other(self) -> Client:
        """A client of a fresh tenant of its own."""
        return self.mw.as_tenant(self.new_tenant())

    def client(self, tenant: str | None) -> Client:
        return self.mw.as_tenant(tenant)

    @property
    def binding(self) -> str:
        """The binding the suite speaks: "gRPC" or "HTTP"."""
        return self.suite.binding

    def small_window_client(self) -> Client:
        """A client of the scenario's tenant on a channel of its own whose
        receive window stays small (``SMALL_WINDOW``), so that a stream its
        caller does not read makes the service wait after some 64 KiB; the
        shared channel when the suite cannot open another."""
        if self.suite.open_channel is None:
            return self.mw
        channel = self.suite.open_channel(SMALL_WINDOW)
        self._channels.append(channel)
        return self.suite.client(self.tenant, channel)

    def close(self) -> None:
        for s in self._streams:
            s.close()
        for channel in self._channels:
            channel.close()

    # -- checks --------------------------------------------------------------------------------

    @staticmethod
    def fail(message: str, expected: Any = None, got: Any = None) -> Failure:
        return Failure(message, expected, got)

    def check(self, condition: Any, message: str, *, expected: Any = None,
              got: Any = None) -> None:
        if not condition:
            raise Failure(message, expected, got)

    def eq(self, got: Any, want: Any, what: str) -> None:
        if got != want:
            raise Failure(f"{what}: expected {_short(want)}, got {_short(got)}", want, got)

    def expect_error(self, fn: Callable[[], Any], code: str, reason: str,
                     pointer: str | None = None, *, no_pointer: bool = False,
                     what: str = "the call") -> RpcFailure:
        """Run ``fn``, which must fail with the gRPC status ``code`` carrying a
        memorywire Error with ``reason`` (and a violation at ``pointer``)."""
        try:
            fn()
        except RpcFailure as e:
            return self.check_error(e, code, reason, pointer, no_pointer=no_pointer, what=what)
        raise Failure(f"{what} succeeded; expected {code} {reason}"
                      + (f" at {pointer}" if pointer else ""),
                      expected=f"{code} {reason}", got="OK")

    def check_error(self, e: RpcFailure, code: str, reason: str, pointer: str | None = None,
                    *, no_pointer: bool = False, what: str = "the call") -> RpcFailure:
        want = f"{code} {reason}" + (f" at {pointer}" if pointer else "")
        if e.code_name != code:
            raise Failure(f"{what} failed with status {e.code_name}; expected {code} "
                          f"({e.describe()})", want, e.describe())
        if e.binding_problem:
            raise Failure(f"{what} failed with {e.code_name}, but the response breaks the "
                          f"{e.binding} binding: {e.binding_problem}", want, e.describe())
        if e.error is None and e.binding == "HTTP":
            raise Failure(f"{what} failed with {code} but its body is no memorywire Error"
                          f"{': ' + e.details_problem if e.details_problem else ''}",
                          want, e.describe())
        if e.error is None:
            raise Failure(f"{what} failed with {code} but the status details carry no "
                          f"memorywire.v1.Error (grpc-status-details-bin"
                          f"{': ' + e.details_problem if e.details_problem else ' is missing'})",
                          want, e.describe())
        if e.error_count != 1:
            raise Failure(f"the status details hold {e.error_count} memorywire.v1.Error; "
                          f"exactly one is required", want, e.describe())
        got_code = e.error.get("code")
        if got_code != code.lower():
            raise Failure(f"the Error's code is {got_code!r} but the {e.binding} status is {code}",
                          code.lower(), got_code)
        if e.status_code is not None and e.status_code != e.code.value[0]:
            raise Failure(f"the google.rpc.Status code {e.status_code} differs from the gRPC "
                          f"status {code}", e.code.value[0], e.status_code)
        if e.reason != reason:
            raise Failure(f"{what} failed with reason {e.reason}; expected {reason}",
                          want, e.describe())
        if pointer is not None and pointer not in e.pointers:
            raise Failure(f"{what} failed with {code} {reason} but no violation points at "
                          f"{pointer!r} (violations at {e.pointers})", want, e.describe())
        if no_pointer and any(e.pointers):
            raise Failure(f"{reason} has no pointer, but the Error points at "
                          f"{[p for p in e.pointers if p]}", want, e.describe())
        return e

    def check_item_error(self, result: Mapping[str, Any], code: str, reason: str,
                         pointer: str | None = None, what: str = "the item") -> None:
        """A failed PutResult with an Error of ``code`` and ``reason``."""
        want = f"failed: {code.lower()} {reason}" + (f" at {pointer}" if pointer else "")
        self.eq(result.get("status"), "failed", f"the status of {what}")
        err = result.get("error")
        self.check(err is not None, f"{what} failed without an error", expected=want,
                   got=result)
        assert err is not None
        self.eq(err.get("code"), code.lower(), f"the error code of {what}")
        self.eq(err.get("reason"), reason, f"the error reason of {what}")
        if pointer is not None:
            pointers = [v.get("pointer", "") for v in err.get("violations", [])]
            self.check(pointer in pointers,
                       f"the error of {what} has no violation at {pointer!r} (violations "
                       f"at {pointers})", expected=want, got=err)

    # -- operations ----------------------------------------------------------------------------

    def call(self, method: str, request: Mapping[str, Any], *, client: Client | None = None,
             **kw: Any) -> dict[str, Any]:
        return (client or self.mw).call(method, request, **kw)

    def put(self, *records: Mapping[str, Any], client: Client | None = None,
            items: Sequence[Mapping[str, Any]] | None = None, **request: Any
            ) -> dict[str, Any]:
        """A Put of ``records`` (or of ``items``); the response."""
        body = dict(request)
        body["items"] = list(items) if items is not None else [{"record": r} for r in records]
        return self.call("Put", body, client=client)

    def put_ok(self, *records: Mapping[str, Any], client: Client | None = None,
               **request: Any) -> list[dict[str, Any]]:
        """A Put whose every item must succeed; its results."""
        response = self.put(*records, client=client, **request)
        results = response.get("results", [])
        self.eq(len(results), len(records), "the number of Put results")
        for i, r in enumerate(results):
            self.check(r.get("status") not in ("failed", None),
                       f"Put item {i} ({records[i].get('id')}) failed: {r.get('error')}",
                       got=r)
        return list(results)

    def get(self, ids: Sequence[str], client: Client | None = None, **request: Any
            ) -> dict[str, Any]:
        return self.call("Get", {"ids": list(ids), **request}, client=client)

    def get_one(self, id: str, client: Client | None = None, **request: Any
                ) -> dict[str, Any] | None:
        records = self.get([id], client=client, **request).get("records", [])
        return records[0] if records else None

    def must_get(self, id: str, **request: Any) -> dict[str, Any]:
        rec = self.get_one(id, **request)
        if rec is None:
            raise Failure(f"Get does not find the record {id!r}")
        return rec

    def pages(self, method: str, request: Mapping[str, Any], key: str,
              client: Client | None = None) -> list[list[dict[str, Any]]]:
        """Every page of a History (key "records") or Search (key "hits"),
        following next_cursor."""
        pages: list[list[dict[str, Any]]] = []
        cursor = None
        for _ in range(MAX_PAGES):
            body = dict(request)
            if cursor:
                body["cursor"] = cursor
            response = self.call(method, body, client=client)
            pages.append(list(response.get(key, [])))
            cursor = response.get("next_cursor")
            if not cursor:
                return pages
        raise Failure(f"{method} still returns next_cursor after {MAX_PAGES} pages")

    def history(self, client: Client | None = None, **request: Any) -> list[dict[str, Any]]:
        """Every record of a History, all pages."""
        return [r for page in self.pages("History", request, "records", client) for r in page]

    def search(self, client: Client | None = None, **request: Any) -> list[dict[str, Any]]:
        """The hits of one Search page."""
        return list(self.call("Search", request, client=client).get("hits", []))

    def export(self, client: Client | None = None, **request: Any) -> list[dict[str, Any]]:
        """Every record of an Export, in stream order."""
        messages = (client or self.mw).export(request)
        return [r for m in messages for r in m.get("records", [])]

    def watch(self, client: Client | None = None, timeout: float | None = None,
              paced: bool = False, last_event_id: str | None = None, **request: Any
              ) -> WatchStream:
        """Open a Watch stream (``paced``: read only as the scenario asks for
        events; ``last_event_id``: over HTTP, the header Last-Event-ID); it is
        cancelled when the scenario ends."""
        chosen = client or self.mw
        if last_event_id is not None:
            if not isinstance(chosen, HttpClient):
                raise Failure("Last-Event-ID is a header of the HTTP binding only")
            stream = chosen.watch(request, timeout=timeout or self.timeout, paced=paced,
                                  last_event_id=last_event_id)
        else:
            stream = chosen.watch(request, timeout=timeout or self.timeout, paced=paced)
        self._streams.append(stream)
        return stream

    def events(self, stream: WatchStream, count: int, what: str = "the stream"
               ) -> list[dict[str, Any]]:
        """Exactly ``count`` events of a stream, each due within ``self.wait``."""
        events: list[dict[str, Any]] = []
        while len(events) < count:
            try:
                event = stream.next(self.wait)
            except StreamTimeout:
                raise Failure(f"{what} delivered {len(events)} events and then none for "
                              f"{self.wait:g} s; {count} were due",
                              expected=f"{count} events", got=_events(events)) from None
            if event is None:
                raise Failure(f"{what} ended after {len(events)} events; {count} were due",
                              expected=f"{count} events", got=_events(events))
            events.append(event)
        return events

    def events_until(self, stream: WatchStream, record_id: str, what: str = "the stream",
                     limit: int = 1000) -> list[dict[str, Any]]:
        """The events of a stream up to and including the first for
        ``record_id`` (a sentinel written last)."""
        events, found = stream.until(lambda e: e.get("record", {}).get("id") == record_id,
                                     self.wait * 2, limit)
        if not found:
            raise Failure(f"{what} never delivered the event of {record_id!r} (got "
                          f"{len(events)} events: {_events(events)})",
                          expected=f"an event for {record_id}", got=_events(events))
        return events

    # -- GetCapabilities-gated helpers ---------------------------------------------------------

    def need(self, *needs: str) -> None:
        missing = [n for n in needs if not self.has(n)]
        if missing:
            raise Skip("the service does not announce " + ", ".join(missing))


def _events(events: Sequence[Mapping[str, Any]]) -> str:
    return ", ".join(f"{e.get('type')} {e.get('record', {}).get('id')}" for e in events) or "none"


# The suite.


@dataclass
class ServiceSuite:
    """Runs scenarios against one service."""

    #: A gRPC channel, or the HTTP binding's base URL (an HttpChannel).
    channel: grpc.Channel | HttpChannel
    capabilities: dict[str, Any]
    scenarios: Sequence[Scenario]
    tenant_prefix: str = "mwconf-"
    timeout: float = 10.0
    #: The bearer token the channel sends, when the service requires credentials.
    token: str | None = field(default=None, repr=False)
    #: A token the service accepts that covers none of the scenarios' tenants.
    narrow_token: str | None = field(default=None, repr=False)
    #: Opens another channel to the service, with extra channel options;
    #: None when the suite has only ``channel``.
    open_channel: Callable[[Sequence[tuple[str, Any]]], grpc.Channel | HttpChannel] | None = None
    run_id: str = field(default_factory=lambda: uuid.uuid4().hex[:12])

    name = SUITE

    @property
    def binding(self) -> str:
        """The binding of the channel: "gRPC" or "HTTP"."""
        return "HTTP" if isinstance(self.channel, HttpChannel) else "gRPC"

    def client(self, tenant: str | None, channel: grpc.Channel | HttpChannel | None = None
               ) -> Client:
        """A client of ``tenant`` on the suite's channel (or ``channel``), of its binding."""
        chosen = self.channel if channel is None else channel
        if isinstance(chosen, HttpChannel):
            return HttpClient(chosen, tenant, self.timeout)
        return Client(chosen, tenant, self.timeout)

    def tenant_for(self, index: int) -> str:
        return f"{self.tenant_prefix}{self.run_id}-{index:03d}"

    def run(self, on_result: Callable[[Result], None] | None = None) -> list[Result]:
        results = []
        for index, sc in enumerate(self.scenarios):
            result = self.run_one(sc, self.tenant_for(index))
            results.append(result)
            if on_result is not None:
                on_result(result)
        return results

    def run_one(self, sc: Scenario, tenant: str) -> Result:
        case = sc.case
        ctx = Ctx(self, tenant)
        started = time.monotonic()
        inapplicable = dict(sc.inapplicable).get(self.binding)
        if inapplicable is not None:
            ctx.close()
            return Result(case, SKIPPED, f"not applicable over the {self.binding} binding: "
                          f"{inapplicable}")
        missing = [n for n in sc.needs if not ctx.has(n)]
        if missing:
            kinds = ["operation" if n[:1].isupper() else "feature" for n in missing]
            return Result(case, SKIPPED, "the service does not announce the " + ", ".join(
                f"{k} {n}" for k, n in zip(kinds, missing, strict=True)))
        try:
            sc.run(ctx)
        except Skip as e:
            return Result(case, SKIPPED, str(e), duration=time.monotonic() - started)
        except Failure as e:
            return Result(case, FAILED, e.message, _shown(e.expected), _shown(e.got),
                          duration=time.monotonic() - started)
        except RpcFailure as e:
            return Result(case, FAILED, f"a call the scenario needs failed: {e.describe()}",
                          got=Shown(e.describe()), duration=time.monotonic() - started)
        except StreamTimeout as e:
            return Result(case, FAILED, f"a stream stalled: {e}",
                          duration=time.monotonic() - started)
        except Exception as e:  # noqa: BLE001 - an answer the scenario cannot read
            tb = traceback.format_exception(type(e), e, e.__traceback__)
            return Result(case, FAILED, f"the scenario could not read the service's answer: "
                          f"{type(e).__name__}: {e}", got=Shown("".join(tb[-3:]).strip()),
                          duration=time.monotonic() - started)
        finally:
            ctx.close()
        return Result(case, PASSED, duration=time.monotonic() - started)


def _shown(value: Any) -> Shown | None:
    if value is None:
        return None
    return Shown(value if isinstance(value, str) else _short(value, 4000))

