"""LangGraph's ``BaseStore`` on a memorywire service
(spec/v1/adapters/langgraph.md section 6).

The one line to change in a LangGraph program::

    store = MemorywireStore("127.0.0.1:50051", tenant="acme")   # was: InMemoryStore()
    graph = builder.compile(store=store)

Every item is one ``custom`` record of type ``langgraph.item`` (the adapter
form ``langgraph.item``), with the item's namespace as ``scope.namespace``
and its key as ``key``, so that a put replaces the item's record and any
other framework reads the value (and finds its strings by text search).
With ``index=`` (an ``IndexConfig``) the store embeds the fields it names
on the client, as InMemoryStore does, keeps the vectors in the records'
``embeddings`` and searches a query by vector on the service; without it a
query is a full-text search. ``ttl=`` (a ``TTLConfig``) and ``put(...,
ttl=)`` set the records' ``lifecycle.expires_at``.
"""

from __future__ import annotations

import asyncio
import concurrent.futures as cf
import logging
import math
import threading
from collections.abc import Generator, Iterable, Mapping, Sequence
from datetime import datetime, timedelta, timezone
from typing import Any

import memorywire._extras
from memorywire.adapters import FORMS, AdapterError, Ids, time_to_micros
from memorywire.adapters.langgraph import CUSTOM_TYPE
from memorywire.client import AsyncClient, Client
from memorywire.integrations._kit import (
    DEFAULT_TIMEOUT,
    Connections,
    acall_with_retry,
    atranslate,
    call_with_retry,
    translate,
)

try:
    from langchain_core.embeddings import Embeddings
    from langgraph.store.base import (
        BaseStore,
        GetOp,
        IndexConfig,
        InvalidNamespaceError,
        Item,
        ListNamespacesOp,
        MatchCondition,
        Op,
        PutOp,
        Result,
        SearchItem,
        SearchOp,
        TTLConfig,
        ensure_embeddings,
        get_text_at_path,
        tokenize_path,
    )
except ImportError as _missing:
    if memorywire._extras.missing(_missing, "langgraph"):
        raise ImportError(memorywire._extras.install_hint("memorywire.integrations.langgraph", "langgraph"),
                          name=_missing.name) from _missing
    raise

__all__ = ["MemorywireStore", "MemorywireStoreError"]

logger = logging.getLogger(__name__)

ITEM_FORM = FORMS["langgraph.item"]
#: The embedding model of the records when the index names none.
DEFAULT_MODEL = "langgraph.index"
#: The most results of one Search page, and filters of one FilterList.
_PAGE = 1000
_MAX_FILTERS = 100

#: One request of a batch to the service, or to the embedder: (what, arguments).
Step = tuple[str, dict[str, Any]]
Plan = Generator[Step, Any, Any]


class MemorywireStoreError(RuntimeError):
    """A call to the memorywire service failed; the text carries the
    memorywire code, reason and field (its ``__cause__`` is the
    ``memorywire.client.ServiceError``)."""


def _cmp(field: str, operator: str, value: Any = ...) -> dict[str, Any]:
    c: dict[str, Any] = {"field": field, "operator": operator}
    if value is not ...:
        c["value"] = value
    return {"compare": c}


def _all(filters: list[dict[str, Any]]) -> dict[str, Any]:
    return filters[0] if len(filters) == 1 else {"all": {"filters": filters}}


def _any(filters: list[dict[str, Any]]) -> dict[str, Any]:
    return filters[0] if len(filters) == 1 else {"any": {"filters": filters}}


def _pointer(tokens: Sequence[str | int]) -> str:
    return "".join("/" + str(t).replace("~", "~0").replace("/", "~1") for t in tokens)


ITEMS = _cmp("/custom/type", "eq", CUSTOM_TYPE)
NO_VECTOR = {"not": _cmp("/embeddings/0", "exists")}


def record_id(namespace: Sequence[str], key: str) -> str:
    """The id of the record of an item: the one the ``langgraph.item``
    form gives it without a scope of its own."""
    return Ids(CUSTOM_TYPE, {"namespace": list(namespace), "key": key}).assign(0)


def _now() -> datetime:
    return datetime.now(timezone.utc)


def _time(ts: datetime) -> str:
    return ts.isoformat().replace("+00:00", "Z")


# -- LangGraph's filters ----------------------------------------------------------------------------
# InMemoryStore compares a filter with an item's value in Python (==, and
# float() for $gt ...). The service's filter narrows the records to a
# superset of the items that match; matches() then decides exactly.

_ORDER = {"$gt": "gt", "$gte": "gte", "$lt": "lt", "$lte": "lte"}


def _plain(value: Any) -> bool:
    """Whether a filter value is a scalar the service compares as Python
    does (not an integer beyond 64 bits, not NaN or an infinity)."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return True
    if type(value) is int:
        return -(1 << 63) <= value < (1 << 63)
    return type(value) is float and math.isfinite(value)


def _scalar_eq(field: str, value: Any) -> dict[str, Any]:
    """Records whose field may == value in Python (True == 1 == 1.0)."""
    if value is None:
        return _any([_cmp(field, "eq", None), {"not": _cmp(field, "exists")}])
    if isinstance(value, bool) or (type(value) in (int, float) and value in (0, 1)):
        return _cmp(field, "in", [bool(value), int(value)])
    return _cmp(field, "eq", value)


def _value_filter(flt: Mapping[str, Any], path: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for key, want in flt.items():
        field = _pointer(("custom", "value", *path, key))
        if isinstance(want, dict) and any(k.startswith("$") for k in want):
            for op, operand in want.items():
                if op == "$eq" and _plain(operand):
                    out.append(_scalar_eq(field, operand))
                elif op in _ORDER and type(operand) in (int, float) and _plain(operand):
                    out.append(_cmp(field, _ORDER[op], operand))
                elif op not in ("$eq", "$ne", *_ORDER):
                    raise ValueError(f"Unsupported operator: {op}")
        elif isinstance(want, dict):
            out.append(_cmp(field, "exists"))
            out.extend(_value_filter(want, (*path, key)))
        elif isinstance(want, (list, tuple)):
            out.append(_cmp(field, "exists"))
        elif _plain(want):
            out.append(_scalar_eq(field, want))
    return out


def _compare(value: Any, want: Any) -> bool:
    """InMemoryStore's comparison of an item's value with a filter value."""
    if isinstance(want, dict):
        if any(k.startswith("$") for k in want):
            return all(_operator(value, op, operand) for op, operand in want.items())
        if not isinstance(value, dict):
            return False
        return all(_compare(value.get(k), v) for k, v in want.items())
    if isinstance(want, (list, tuple)):
        return (isinstance(value, (list, tuple)) and len(value) == len(want)
                and all(_compare(v, w) for v, w in zip(value, want, strict=False)))
    return bool(value == want)


def _operator(value: Any, op: str, operand: Any) -> bool:
    if op == "$eq":
        return bool(value == operand)
    if op == "$ne":
        return bool(value != operand)
    if op in _ORDER:
        try:
            a, b = float(value), float(operand)
        except (TypeError, ValueError):
            return False
        return {"$gt": a > b, "$gte": a >= b, "$lt": a < b, "$lte": a <= b}[op]
    raise ValueError(f"Unsupported operator: {op}")


def matches(value: Mapping[str, Any], flt: Mapping[str, Any] | None) -> bool:
    return not flt or all(_compare(value.get(k), v) for k, v in flt.items())


def _namespace_matches(condition: MatchCondition, namespace: tuple[str, ...]) -> bool:
    path = condition.path
    if len(namespace) < len(path):
        return False
    pairs = zip(namespace, path, strict=False) if condition.match_type == "prefix" else \
        zip(reversed(namespace), reversed(path), strict=False)
    if condition.match_type not in ("prefix", "suffix"):
        raise ValueError(f"Unsupported match type: {condition.match_type}")
    return all(p == "*" or n == p for n, p in pairs)


# -- the texts to embed, with the pointer of each ---------------------------------------------------

def _texts_at(value: Any, tokens: list[str], at: tuple[str | int, ...]) -> list[tuple[tuple[str | int, ...], str]]:
    """What get_text_at_path gives, each text with the path of its field
    (None as the path of a text of several fields)."""
    if not tokens:
        if isinstance(value, (str, int, float, bool)):
            return [(at, str(value))]
        if isinstance(value, (list, dict)):
            return [(at, get_text_at_path(value, "$")[0])]
        return []
    token, rest = tokens[0], tokens[1:]
    out: list[tuple[tuple[str | int, ...], str]] = []
    if token.startswith("[") and token.endswith("]"):
        if not isinstance(value, list):
            return []
        index = token[1:-1]
        if index == "*":
            for i, x in enumerate(value):
                out.extend(_texts_at(x, rest, (*at, i)))
        else:
            try:
                i = int(index)
            except ValueError:
                return []
            i = len(value) + i if i < 0 else i
            if 0 <= i < len(value):
                out.extend(_texts_at(value[i], rest, (*at, i)))
    elif token.startswith("{") and token.endswith("}"):
        if not isinstance(value, dict):
            return []
        for name in (f.strip() for f in token[1:-1].split(",")):
            sub: Any = value
            where: tuple[str | int, ...] = at
            for t in tokenize_path(name):
                if isinstance(sub, dict) and t in sub:
                    sub, where = sub[t], (*where, t)
                else:
                    sub = None
                    break
            if isinstance(sub, (str, int, float, bool)):
                out.append((where, str(sub)))
            elif isinstance(sub, (list, dict)):
                out.append((where, get_text_at_path(sub, "$")[0]))
    elif token == "*":
        items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
        for k, x in items:
            out.extend(_texts_at(x, rest, (*at, k)))
    elif isinstance(value, dict) and token in value:
        out.extend(_texts_at(value[token], rest, (*at, token)))
    return out


def texts_to_embed(value: dict[str, Any], path: str) -> list[tuple[str | None, str]]:
    """The texts of ``value`` at an index path, as InMemoryStore embeds
    them, each with the JSON Pointer of its field in the record (None for
    the whole value, ``"$"``)."""
    if path == "$":
        return [(None, get_text_at_path(value, "$")[0])]
    found = _texts_at(value, tokenize_path(path), ())
    texts = get_text_at_path(value, path)
    if [t for _, t in found] != texts:  # a path this walk reads otherwise: texts without fields
        return [(None, t) for t in texts]
    return [(_pointer(("custom", "value", *where)), text) for where, text in found]


# -- the store ---------------------------------------------------------------------------------------

class MemorywireStore(BaseStore):
    """A LangGraph store whose items are records of a memorywire service::

        store = MemorywireStore("127.0.0.1:50051", tenant="acme")

    ``service`` is a target (``"host:port"``), a ``memorywire.Client`` or a
    ``memorywire.AsyncClient`` (a client given is not closed by the store).
    ``tenant``, ``token`` and ``timeout`` (seconds, the deadline of every
    call) configure the client the store makes. ``index`` is LangGraph's
    ``IndexConfig``; ``embedding_model`` names the model of the records'
    embeddings (the ``embed`` string, the embedder's ``model``, or
    ``"langgraph.index"``). ``ttl`` is LangGraph's ``TTLConfig``.

    ``batch`` and ``abatch`` run the reads of a batch first, on the state
    before it, then its writes (the last write of a namespace and key wins),
    as InMemoryStore does. Errors of the service are raised as
    :class:`MemorywireStoreError` naming the memorywire code and reason.
    """

    supports_ttl = True
    __slots__ = ("_connections", "index_config", "embeddings", "ttl_config", "_model", "_fields", "_sweeper",
                 "_stop")

    def __init__(self, service: str | Client | AsyncClient, *, tenant: str | None = None,
                 token: str | None = None, timeout: float | None = DEFAULT_TIMEOUT,
                 index: IndexConfig | None = None, embedding_model: str | None = None,
                 ttl: TTLConfig | None = None) -> None:
        self._connections = Connections(service, tenant=tenant, token=token, timeout=timeout)
        self.ttl_config = ttl
        self.index_config: IndexConfig | None = None
        self.embeddings: Embeddings | None = None
        self._fields: list[str] = []
        self._model = embedding_model or DEFAULT_MODEL
        if index:
            self.index_config = index.copy()
            self.embeddings = ensure_embeddings(index.get("embed"))
            self._fields = list(index.get("fields") or ["$"])
            embed = index.get("embed")
            named = embed if isinstance(embed, str) else getattr(embed, "model", None)
            if embedding_model is None and isinstance(named, str) and named:
                self._model = named
        self._sweeper: threading.Thread | None = None
        self._stop = threading.Event()

    # -- clients -------------------------------------------------------------------------------

    def _sync_client(self) -> Client:
        return self._connections.sync()

    def _async_client(self) -> AsyncClient | None:
        """The AsyncClient of the running loop, or None when the store was
        given a synchronous Client only."""
        if isinstance(self._connections.service, Client):
            return None
        return self._connections.aio()

    def close(self) -> None:
        """Stop the TTL sweeper and close the clients the store made."""
        self.stop_ttl_sweeper()
        self._connections.close()

    async def aclose(self) -> None:
        self.stop_ttl_sweeper()
        await self._connections.aclose()

    def __enter__(self) -> MemorywireStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- batch ---------------------------------------------------------------------------------

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        client = self._sync_client()
        plan = self._plan(list(ops))
        reply: Any = None
        try:
            while True:
                try:
                    step = plan.send(reply)
                except StopIteration as done:
                    return list(done.value)
                reply = self._run(client, step)
        finally:
            plan.close()

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        client = self._async_client()
        ops = list(ops)
        if client is None:  # a synchronous Client only: off the event loop
            return await asyncio.to_thread(self.batch, ops)
        plan = self._plan(ops)
        reply: Any = None
        try:
            while True:
                try:
                    step = plan.send(reply)
                except StopIteration as done:
                    return list(done.value)
                reply = await self._arun(client, step)
        finally:
            plan.close()

    def _run(self, client: Client, step: Step) -> Any:
        what, args = step
        if what == "embed_documents":
            assert self.embeddings is not None
            return self.embeddings.embed_documents(args["texts"])
        if what == "embed_query":
            assert self.embeddings is not None
            return self.embeddings.embed_query(args["text"])
        with translate(MemorywireStoreError):
            if what in ("put", "delete"):
                return call_with_retry(getattr(client, what), **args)
            if what == "export":
                return list(client.export(**args))
            return getattr(client, what)(**args)

    async def _arun(self, client: AsyncClient, step: Step) -> Any:
        what, args = step
        if what == "embed_documents":
            assert self.embeddings is not None
            return await self.embeddings.aembed_documents(args["texts"])
        if what == "embed_query":
            assert self.embeddings is not None
            return await self.embeddings.aembed_query(args["text"])
        async with atranslate(MemorywireStoreError):
            if what in ("put", "delete"):
                return await acall_with_retry(getattr(client, what), **args)
            if what == "export":
                return [r async for r in client.export(**args)]
            return await getattr(client, what)(**args)

    # -- the plan of a batch: what it asks of the service, without I/O ----------------------------

    def _plan(self, ops: list[Op]) -> Plan:
        results: list[Result] = [None] * len(ops)
        gets: list[tuple[int, GetOp]] = []
        reads: list[tuple[int, SearchOp | ListNamespacesOp]] = []
        puts: dict[tuple[tuple[str, ...], str], PutOp] = {}
        for i, op in enumerate(ops):
            if isinstance(op, GetOp):
                gets.append((i, op))
            elif isinstance(op, (SearchOp, ListNamespacesOp)):
                reads.append((i, op))
            elif isinstance(op, PutOp):
                puts[(op.namespace, op.key)] = op
            else:
                raise ValueError(f"Unknown operation type: {type(op)}")
        refresh: dict[str, dict[str, Any]] = {}
        if gets:
            yield from self._gets(gets, results, refresh)
        for i, read in reads:
            if isinstance(read, SearchOp):
                results[i] = yield from self._search(read, refresh)
            else:
                results[i] = yield from self._list_namespaces(read)
        if refresh:
            yield from self._refresh(list(refresh.values()))
        if puts:
            yield from self._puts(list(puts.values()))
        return results

    # -- reads ---------------------------------------------------------------------------------

    def _refreshes(self, wanted: bool) -> bool:
        return bool(wanted and self.ttl_config and self.ttl_config.get("refresh_on_read", False))

    def _expired(self, record: Mapping[str, Any], now: datetime) -> bool:
        if not (self.ttl_config and self.ttl_config.get("omit_expired", False)):
            return False
        expires = record.get("lifecycle", {}).get("expires_at")
        return isinstance(expires, str) and time_to_micros(expires) <= time_to_micros(_time(now))

    def _live(self) -> list[dict[str, Any]]:
        """The filter of the records an omit_expired store still reads."""
        if not (self.ttl_config and self.ttl_config.get("omit_expired", False)):
            return []
        return [_any([{"not": _cmp("/lifecycle/expires_at", "exists")},
                      _cmp("/lifecycle/expires_at", "gt", _time(_now()))])]

    @staticmethod
    def _item(record: Mapping[str, Any]) -> dict[str, Any]:
        item: dict[str, Any] = ITEM_FORM.from_records([dict(record)])[0]
        return item

    def _gets(self, gets: list[tuple[int, GetOp]], results: list[Result],
              refresh: dict[str, dict[str, Any]]) -> Plan:
        ids = {(op.namespace, op.key): record_id(op.namespace, op.key) for _, op in gets}
        out = yield ("get", {"ids": list(dict.fromkeys(ids.values()))})
        by_id = {r["id"]: r for r in out.get("records", ())}
        found: dict[tuple[tuple[str, ...], str], dict[str, Any]] = {}
        missing: dict[tuple[str, ...], list[str]] = {}
        for pair, rid in ids.items():
            rec = by_id.get(rid)
            if rec is not None and rec.get("kind") == "custom" and rec["custom"].get("type") == CUSTOM_TYPE:
                found[pair] = rec
            else:
                missing.setdefault(pair[0], []).append(pair[1])
        # An item whose record another writer made (another id, the same
        # namespace and key): found by its key.
        for namespace, keys in missing.items():
            if not namespace:
                continue
            flt = _all([ITEMS, _cmp("/key", "in", keys), _cmp("/scope/namespace", "eq", list(namespace))])
            hits = yield ("search", {"filter": flt, "scope": {"namespace": list(namespace)},
                                     "limit": min(_PAGE, len(keys))})
            for hit in hits.get("hits", ()):
                found[(namespace, hit["record"]["key"])] = hit["record"]
        now = _now()
        for i, op in gets:
            rec = found.get((op.namespace, op.key))
            if rec is None or self._expired(rec, now):
                results[i] = None
                continue
            item = self._item(rec)
            results[i] = Item(value=item["value"], key=op.key, namespace=op.namespace,
                              created_at=item["created_at"], updated_at=item["updated_at"])
            if self._refreshes(op.refresh_ttl):
                self._note_refresh(rec, refresh)

    def _note_refresh(self, record: dict[str, Any], refresh: dict[str, dict[str, Any]]) -> None:
        ttl = ((record.get("native") or {}).get("record") or {}).get("ttl_minutes")
        if type(ttl) in (int, float):
            refresh[record["id"]] = record

    def _collect(self, request: dict[str, Any], want: int | None,
                 keep: Any = None) -> Generator[Step, Any, list[dict[str, Any]]]:
        """The hits of a Search, page after page, that ``keep`` (a hit ->
        bool) admits, until ``want`` of them (all when None)."""
        hits: list[dict[str, Any]] = []
        cursor = None
        while want is None or len(hits) < want:
            page = _PAGE if want is None else min(_PAGE, max(want - len(hits), 10))
            out = yield ("search", {**request, "limit": page, "cursor": cursor})
            hits.extend(h for h in out.get("hits", ()) if keep is None or keep(h))
            cursor = out.get("next_cursor")
            if not cursor:
                break
        return hits if want is None else hits[:want]

    def _search(self, op: SearchOp, refresh: dict[str, dict[str, Any]]) -> Generator[Step, Any, list[SearchItem]]:
        base = [ITEMS, *_value_filter(op.filter or {}), *self._live()]
        scope = {"namespace": list(op.namespace_prefix)} if op.namespace_prefix else None
        whole = op.offset < 0 or op.limit < 0  # slices that count from the end: every match
        want = None if whole else op.offset + op.limit

        def exact(hit: dict[str, Any]) -> bool:
            return matches(self._item(hit["record"])["value"], op.filter)

        keep = exact if op.filter else None

        scored: list[tuple[dict[str, Any], float | None]]
        if op.query and self.embeddings is not None:
            vector = yield ("embed_query", {"text": op.query})
            hits: list[dict[str, Any]] = []
            if any(vector):
                hits = yield from self._collect(
                    {"filter": _all(base), "scope": scope,
                     "vector": {"model": self._model, "values": [float(x) for x in vector]}}, want, keep)
            scored = [(h["record"], h.get("vector_score")) for h in hits[op.offset:op.offset + op.limit]]
            if len(scored) < op.limit:
                # InMemoryStore fills the page with the items it has no vector of.
                rest = yield from self._collect({"filter": _all([*base, NO_VECTOR]), "scope": scope},
                                                op.limit - len(scored), keep)
                scored.extend((h["record"], None) for h in rest)
        else:
            request: dict[str, Any] = {"filter": _all(base), "scope": scope}
            if op.query:
                request["text"] = op.query
            hits = yield from self._collect(request, want, keep)
            scored = [(h["record"], h.get("score") if op.query else None)
                      for h in hits[op.offset:op.offset + op.limit]]
        items = []
        for rec, score in scored:
            item = self._item(rec)
            items.append(SearchItem(namespace=tuple(item["namespace"]), key=item["key"], value=item["value"],
                                    created_at=item["created_at"], updated_at=item["updated_at"],
                                    score=float(score) if score is not None else None))
            if self._refreshes(op.refresh_ttl):
                self._note_refresh(rec, refresh)
        return items

    def _list_namespaces(self, op: ListNamespacesOp) -> Generator[Step, Any, list[tuple[str, ...]]]:
        prefix: list[str] = []
        for condition in op.match_conditions or ():
            if condition.match_type == "prefix":
                for label in condition.path:
                    if label == "*":
                        break
                    prefix.append(label)
                break
        scope = {"namespace": prefix} if prefix else None
        records = yield ("export", {"scope": scope, "filter": _all([ITEMS, *self._live()])})
        now = _now()
        seen = {tuple(ns) for r in records
                if (ns := (r.get("scope") or {}).get("namespace")) and not self._expired(r, now)}
        found = [ns for ns in seen if all(_namespace_matches(c, ns) for c in op.match_conditions or ())]
        if op.max_depth is not None:
            found = sorted({ns[:op.max_depth] for ns in found})
        else:
            found = sorted(found)
        return found[op.offset:op.offset + op.limit]

    def _refresh(self, records: list[dict[str, Any]]) -> Plan:
        """Move the expiry of records read with a TTL to now + TTL, keeping
        their update time (a Put of the record as it is, but its expiry)."""
        now = _now()
        items = []
        for rec in records:
            ttl = rec["native"]["record"]["ttl_minutes"]
            fresh = {k: v for k, v in rec.items() if k not in ("sequence", "revision", "provenance")}
            fresh["lifecycle"] = {**rec.get("lifecycle", {}), "expires_at": _time(now + timedelta(minutes=ttl))}
            items.append({"record": fresh, "expected_revision": rec["revision"]})
        out = yield ("put", {"records": items})
        for result in out.get("results", ()):
            if result.get("status") == "failed":  # changed since it was read: the writer set its expiry
                logger.debug("TTL of %s not refreshed: %s", result.get("id"), result.get("error"))

    # -- writes --------------------------------------------------------------------------------

    def _puts(self, ops: list[PutOp]) -> Plan:
        writes = [op for op in ops if op.value is not None]
        deletes = [op for op in ops if op.value is None]
        if writes:
            now = _now()
            stamp = now.isoformat()
            items = [{"namespace": list(op.namespace), "key": op.key, "value": dict(op.value or {}),
                      "created_at": stamp, "updated_at": stamp} for op in writes]
            try:
                records = ITEM_FORM.to_records(items)
            except AdapterError as e:
                if "/namespace" in e.pointer:
                    raise InvalidNamespaceError(str(e)) from e
                raise ValueError(str(e)) from e
            if self.embeddings is not None:
                yield from self._embed(writes, records)
            for op, rec in zip(writes, records, strict=True):
                if op.ttl is not None:
                    rec["lifecycle"] = {"expires_at": _time(now + timedelta(minutes=op.ttl))}
                    nat = rec.setdefault("native", {"format": ITEM_FORM.name, "framework": "langgraph",
                                                    "record": {}})
                    nat["record"]["ttl_minutes"] = op.ttl
            for start in range(0, len(records), _PAGE):
                yield ("put", {"records": records[start:start + _PAGE], "atomic": True})
        if deletes:
            by_namespace: dict[tuple[str, ...], list[str]] = {}
            for op in deletes:
                by_namespace.setdefault(op.namespace, []).append(op.key)
            ids = [record_id(op.namespace, op.key) for op in deletes]
            groups = [_all([_cmp("/scope/namespace", "eq", list(ns)), _cmp("/key", "in", keys)])
                      for ns, keys in by_namespace.items() if ns]
            for start in range(0, max(len(groups), 1), _MAX_FILTERS - 1):
                flt = _any([_cmp("/id", "in", ids), *groups[start:start + _MAX_FILTERS - 1]])
                yield ("delete", {"filter": _all([ITEMS, flt]), "mode": "hard"})

    def _embed(self, writes: list[PutOp], records: list[dict[str, Any]]) -> Plan:
        """Embed the fields of each write the index names (or its own
        ``index``), as InMemoryStore does: one vector per text."""
        wanted: list[tuple[int, str | None, str]] = []
        for n, op in enumerate(writes):
            if op.index is False:
                continue
            paths = self._fields if op.index is None else list(op.index)
            for path in paths:
                for field, text in texts_to_embed(dict(op.value or {}), path):
                    wanted.append((n, field, text))
        if not wanted:
            return
        texts = list(dict.fromkeys(text for _, _, text in wanted))
        vectors = yield ("embed_documents", {"texts": texts})
        if len(vectors) != len(texts):
            raise ValueError(f"Number of embeddings ({len(vectors)}) does not match number of texts ({len(texts)})")
        by_text = dict(zip(texts, vectors, strict=True))
        for n, field, text in wanted:
            values = [float(x) for x in by_text[text]]
            if not any(values):
                continue  # a zero vector has no direction: the service skips it anyway
            embedding: dict[str, Any] = {"model": self._model, "dimensions": len(values), "values": values}
            if field is not None:
                embedding["field"] = field
            embeddings = records[n].setdefault("embeddings", [])
            if all(e.get("field") != field for e in embeddings):
                embeddings.append(embedding)

    # -- TTL -----------------------------------------------------------------------------------

    def sweep_ttl(self) -> int:
        """Delete the items whose TTL has passed; the number deleted."""
        flt = _all([ITEMS, _cmp("/lifecycle/expires_at", "lt", _time(_now()))])
        out = self._run(self._sync_client(), ("delete", {"filter": flt, "mode": "hard"}))
        return len(out.get("deleted_ids", ()))

    async def asweep_ttl(self) -> int:
        client = self._async_client()
        if client is None:
            return await asyncio.to_thread(self.sweep_ttl)
        flt = _all([ITEMS, _cmp("/lifecycle/expires_at", "lt", _time(_now()))])
        out = await self._arun(client, ("delete", {"filter": flt, "mode": "hard"}))
        return len(out.get("deleted_ids", ()))

    def start_ttl_sweeper(self, sweep_interval_minutes: int | None = None) -> cf.Future[None]:
        """Delete expired items every ``sweep_interval_minutes`` (the
        TTLConfig's ``sweep_interval_minutes``, else 5) until
        :meth:`stop_ttl_sweeper`, as SqliteStore does."""
        future: cf.Future[None] = cf.Future()
        if not self.ttl_config or (self._sweeper is not None and self._sweeper.is_alive()):
            future.set_result(None)
            return future
        self._stop.clear()
        interval = float(sweep_interval_minutes or self.ttl_config.get("sweep_interval_minutes") or 5)

        def loop() -> None:
            while not self._stop.wait(interval * 60):
                try:
                    self.sweep_ttl()
                except Exception:  # the next round tries again
                    logger.exception("memorywire store TTL sweep failed")
            future.set_result(None)

        self._sweeper = threading.Thread(target=loop, daemon=True, name="memorywire-ttl-sweeper")
        self._sweeper.start()
        return future

    def stop_ttl_sweeper(self, timeout: float | None = None) -> bool:
        if self._sweeper is None or not self._sweeper.is_alive():
            return True
        self._stop.set()
        self._sweeper.join(timeout)
        return not self._sweeper.is_alive()
