"""An OpenAI Agents SDK ``Session`` kept in a memorywire service.

The one line a program changes::

    session = SQLiteSession("conv-42", "conversations.db")
    session = MemorywireSession("conv-42", "127.0.0.1:50051", tenant="acme")

Each item the Runner adds becomes one record of the ``openai_agents.session_item``
form (spec/v1/adapters/openai-agents.md section 6): a message, tool call, tool
result or ``custom`` record with ``scope.session`` set to the session id, in
insertion order; ``get_items`` reads the session's History back in that order.
Any other framework that reads the same session (LangChain, AgentScope ...)
sees ordinary messages.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Awaitable, Mapping, Sequence
from typing import Any, TypeVar

import memorywire._extras

try:
    from agents.items import TResponseInputItem
    from agents.memory.session_settings import SessionSettings, resolve_session_limit
except ImportError as _missing:
    if not memorywire._extras.missing(_missing, "openai-agents"):
        raise
    raise ImportError(memorywire._extras.install_hint("memorywire.integrations.openai_agents", "openai-agents"),
                      name=_missing.name) from _missing

import grpc

from memorywire.adapters import AdapterError, Ids
from memorywire.adapters import _responses as responses
from memorywire.adapters._kit import residue_of
from memorywire.adapters.openai_agents import FRAMEWORK, SESSION_ITEM
from memorywire.client import AsyncClient
from memorywire.integrations._kit import DEFAULT_TIMEOUT, Connections, acall_with_retry, atranslate, describe
from memorywire.service.errors import ServiceError

__all__ = ["MemorywireSession"]

_T = TypeVar("_T")

try:  # openai-agents 0.24
    from agents.memory.session import _await_mutation
    from agents.memory.session_settings import coerce_session_settings
except ImportError:  # earlier releases, down to the extra's 0.18: the same, written here

    async def _await_mutation(awaitable: Awaitable[_T]) -> _T:
        """Run a write to its end even when the caller is cancelled, then
        raise the caller's CancelledError."""
        task = asyncio.ensure_future(awaitable)
        cancelled: asyncio.CancelledError | None = None
        while not task.done():
            try:
                await asyncio.wait({task})
            except asyncio.CancelledError as e:
                cancelled = cancelled or e
        if cancelled is not None:
            if not task.cancelled():
                task.exception()  # retrieved: the caller's cancellation is what it hears
            raise cancelled
        return task.result()

    def coerce_session_settings(value: SessionSettings | dict[str, Any]) -> SessionSettings:
        return value if isinstance(value, SessionSettings) else SessionSettings(**value)


Record = dict[str, Any]

#: The kinds of record a session item gives; History reads only these.
KINDS = ("message", "tool_call", "tool_result", "custom")
#: The most records one Put or History page carries (operations.md sections 6 and 8).
PAGE = 1000


class FreshIds(Ids):
    """Record ids for a store shared by many sessions: a new UUID for every
    item, so that an item id (``msg_...``, ``fc_...``) met twice, in one
    session or in two, never replaces a stored record. The item's own id
    stays in the residue and comes back with the item."""

    def __init__(self) -> None:
        super().__init__(SESSION_ITEM, {})

    def assign(self, position: int, framework_id: Any = None) -> str:
        return f"urn:uuid:{uuid.uuid4()}"


def session_records(items: Sequence[Any], session_id: str) -> list[Record]:
    """The records of session items, one per item, in their order, each
    with a fresh id and ``scope.session``. An item is first what
    ``json.loads(json.dumps(item))`` gives, as SQLiteSession keeps it: a
    value JSON cannot hold is a TypeError (or ValueError), a tuple comes back
    as a list."""
    ids = FreshIds()
    scope = {"session": session_id} if session_id else {}
    out = []
    for i, item in enumerate(items):
        kept = json.loads(json.dumps(item))
        try:
            mapped = responses.encode_item(kept, f"/{i}")
        except AdapterError as e:
            raise TypeError(f"session item {i} has no memorywire record: {e}") from e
        record = responses.record_of(SESSION_ITEM, FRAMEWORK, ids, i, mapped, scope)
        record.pop("specversion", None)
        out.append(record)
    return out


def record_items(record: Mapping[str, Any]) -> list[TResponseInputItem]:
    """The session items of one record: one for a record this session wrote;
    several for a message of another framework that Responses keeps as
    several items (a LangChain AIMessage with tool calls); none for a record
    with no Responses form (skipped, as SQLiteSession skips a row it cannot
    read)."""
    try:
        items: list[Any] = responses.decode_items(record, residue_of(record, SESSION_ITEM), "")
    except AdapterError:
        return []
    return items


class MemorywireSession:
    """A ``Session`` of the Agents SDK whose items live in a memorywire
    service: ``MemorywireSession("conv-42", "127.0.0.1:50051", tenant="acme")``
    where a program had ``SQLiteSession("conv-42")``.

    ``service`` is a target (``"host:port"``) or an :class:`AsyncClient`;
    ``tenant``, ``token``, ``credentials`` and ``timeout`` (the deadline of
    every call, in seconds) are those of the client made for a target, one
    per event loop. ``session_settings`` is the SDK's, with its default limit.
    A failure of the service raises RuntimeError with the memorywire code and
    reason in its text."""

    session_settings: SessionSettings | None = None

    def __init__(self, session_id: str, service: str | AsyncClient, *, tenant: str | None = None,
                 token: str | None = None, credentials: grpc.ChannelCredentials | None = None,
                 timeout: float = DEFAULT_TIMEOUT,
                 session_settings: SessionSettings | dict[str, Any] | None = None) -> None:
        if not session_id or len(session_id) > 256:
            raise ValueError("a session id is a string of 1 to 256 characters (scope.session): "
                             "an empty one would scope nothing")
        self.session_id = session_id
        self.session_settings = (coerce_session_settings(session_settings) if session_settings is not None
                                 else SessionSettings())
        self._connections = Connections(service, tenant=tenant, token=token, credentials=credentials,
                                        timeout=timeout)
        self._closed = False

    @property
    def scope(self) -> dict[str, Any]:
        """The request scope of every call: the session."""
        return {"session": self.session_id}

    def _check_not_closed(self) -> None:
        if self._closed:
            raise RuntimeError("MemorywireSession is closed")

    def _connection(self) -> AsyncClient:
        """The client of the running event loop (a session outlives loops:
        ``Runner.run_sync`` makes one per run)."""
        self._check_not_closed()
        return self._connections.aio()

    # -- reading ------------------------------------------------------------------------------

    async def _page(self, client: AsyncClient, *, order: str, limit: int, cursor: str | None) -> Record:
        async with atranslate(RuntimeError):
            page: Record = await client.history(scope=self.scope, kinds=KINDS, order=order, limit=limit,
                                                cursor=cursor)
        return page

    async def get_items(self, limit: int | None = None) -> list[TResponseInputItem]:
        """The items of the session, oldest first: all of them, or the
        latest ``limit`` (``session_settings.limit`` when None); 0 gives none
        and a negative limit all, as SQLiteSession does."""
        client = self._connection()
        wanted = resolve_session_limit(limit, self.session_settings)
        if wanted == 0:
            return []
        if wanted is None or wanted < 0:
            items: list[TResponseInputItem] = []
            cursor = None
            while True:
                page = await self._page(client, order="ascending", limit=PAGE, cursor=cursor)
                for record in page.get("records", []):
                    items.extend(record_items(record))
                cursor = page.get("next_cursor")
                if not cursor:
                    return items
        newest: list[list[TResponseInputItem]] = []
        count = 0
        cursor = None
        while count < wanted:
            page = await self._page(client, order="descending", limit=min(wanted - count, PAGE), cursor=cursor)
            for record in page.get("records", []):
                found = record_items(record)
                newest.append(found)
                count += len(found)
            cursor = page.get("next_cursor")
            if not cursor:
                break
        ordered = [item for found in reversed(newest) for item in found]
        return ordered[-wanted:]

    # -- writing ------------------------------------------------------------------------------

    async def add_items(self, items: list[TResponseInputItem]) -> None:
        """Append items to the session, in their order: one atomic Put of up
        to 1000 items, a retry of which (same operation id) writes nothing
        twice. A caller that cancels the call gets its CancelledError once
        the write has ended, as SQLiteSession does: the session is never
        left not knowing what it holds."""
        client = self._connection()
        if not items:
            return
        records = session_records(items, self.session_id)
        await _await_mutation(self._put(client, records))

    async def _put(self, client: AsyncClient, records: list[Record]) -> None:
        for start in range(0, len(records), PAGE):
            async with atranslate(RuntimeError):
                await acall_with_retry(client.put, records=records[start:start + PAGE], scope=self.scope,
                                       atomic=True)

    async def pop_item(self) -> TResponseInputItem | None:
        """Remove the newest item and return it; None when the session has
        none. The newest record is deleted on the condition that it is
        unchanged since it was read, so two concurrent pops never return the
        same item. A record of another framework that gives several items
        goes as a whole, and its last item is returned. Cancelled, it ends
        first, as add_items does."""
        return await _await_mutation(self._pop(self._connection()))

    async def _pop(self, client: AsyncClient) -> TResponseInputItem | None:
        while True:
            cursor = None
            found: tuple[Record, list[TResponseInputItem]] | None = None
            while found is None:
                page = await self._page(client, order="descending", limit=8, cursor=cursor)
                for record in page.get("records", []):
                    items = record_items(record)
                    if items:
                        found = (record, items)
                        break
                cursor = page.get("next_cursor")
                if found is None and not cursor:
                    return None
            record, items = found
            try:
                await acall_with_retry(client.delete, ids=[record["id"]], scope=self.scope,
                                       expected_revision=record.get("revision"))
            except ServiceError as e:
                if e.reason in ("REVISION_MISMATCH", "RECORD_NOT_FOUND"):
                    continue  # another pop (or a change) came first: read again
                raise RuntimeError(describe(e)) from e
            return items[-1]

    async def clear_session(self) -> None:
        """Delete every item of the session (its records become tombstones).
        Cancelled, it ends first, as add_items does."""
        await _await_mutation(self._clear(self._connection()))

    async def _clear(self, client: AsyncClient) -> None:
        where = {"all": {"filters": [
            {"compare": {"field": "/scope/session", "operator": "eq", "value": self.session_id}},
            {"compare": {"field": "/kind", "operator": "in", "value": list(KINDS)}},
        ]}}
        async with atranslate(RuntimeError):
            await acall_with_retry(client.delete, filter=where, scope=self.scope)

    def close(self) -> None:
        """Stop using the session: every later call raises RuntimeError. The
        channel of a client this session made closes when it is collected;
        a client given is the caller's to close."""
        self._closed = True
        self._connections.close()
