"""A LangChain chat message history kept in a memorywire service.

The one line a program changes::

    history = InMemoryChatMessageHistory()
    history = MemorywireChatMessageHistory("chat-7", "127.0.0.1:50051", tenant="acme")

Each message added becomes one record of the ``langchain.messages`` form
(spec/v1/adapters/langchain.md section 6): a message, tool result or, for a
RemoveMessage, a ``custom`` record, with ``scope.session`` set to the session
id, in insertion order. ``messages`` reads the session's History back as
message objects, so a conversation that another framework wrote in the same
session (an openai-agents ``MemorywireSession``) reads as LangChain messages.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from typing import Any

import memorywire._extras

try:
    from langchain_core.chat_history import BaseChatMessageHistory
    from langchain_core.exceptions import LangChainException
    from langchain_core.messages import BaseMessage
except ImportError as _missing:
    if not memorywire._extras.missing(_missing, "langchain"):
        raise
    raise ImportError(memorywire._extras.install_hint("memorywire.integrations.langchain", "langchain"),
                      name=_missing.name) from _missing

import grpc

from memorywire.adapters import FORMS, AdapterError, is_generated
from memorywire.adapters.langchain import FRAMEWORK, OBJECTS
from memorywire.client import AsyncClient, Client
from memorywire.integrations._kit import (
    DEFAULT_TIMEOUT,
    Connections,
    acall_with_retry,
    atranslate,
    call_with_retry,
    translate,
)

__all__ = ["MemorywireChatMessageHistory"]

Record = dict[str, Any]

#: The kinds of record a LangChain message gives; History reads only these.
KINDS = ("message", "tool_call", "tool_result", "custom")
#: The most records one Put or History page carries (operations.md sections 6 and 8).
PAGE = 1000
FORM = FORMS[OBJECTS]


def history_records(messages: Sequence[BaseMessage], session_id: str) -> list[Record]:
    """The records of messages, one per message, in their order, each with
    a fresh id and ``scope.session``. A message's own ``id`` stays in the
    residue and comes back with it: ids repeat (a model's run ids, a
    message added to two histories) and would otherwise replace each
    other's records."""
    try:
        records = FORM.to_records(messages, session=session_id)
    except AdapterError as e:
        raise TypeError(f"a message has no memorywire record: {e}") from e
    for record in records:
        record.pop("specversion", None)
        own = record["id"]
        if not is_generated(own):  # the message's id, which the residue does not hold yet
            nat = record.setdefault("native", {"framework": FRAMEWORK, "format": OBJECTS, "record": {}})
            nat["record"] = {**nat["record"], "id": own}
        record["id"] = f"urn:uuid:{uuid.uuid4()}"
    return records


def record_messages(records: Sequence[Mapping[str, Any]]) -> list[BaseMessage]:
    """The messages of records in their order; a record that no LangChain
    message holds (an openai-agents item reference, a fact) is skipped."""
    try:
        return list(FORM.from_records(records))
    except AdapterError:
        pass
    out: list[BaseMessage] = []
    for record in records:
        try:
            out.extend(FORM.from_records([record]))
        except AdapterError:
            continue
    return out


class MemorywireChatMessageHistory(BaseChatMessageHistory):
    """A ``BaseChatMessageHistory`` whose messages live in a memorywire
    service: ``MemorywireChatMessageHistory("chat-7", "127.0.0.1:50051",
    tenant="acme")`` where a program had ``InMemoryChatMessageHistory()``,
    for example in the ``get_session_history`` of a
    ``RunnableWithMessageHistory``.

    ``service`` is a target (``"host:port"``), a :class:`Client` (for the
    synchronous methods) or an :class:`AsyncClient` (for the asynchronous
    ones); a target gives one client for the synchronous methods and one per
    event loop for the others. ``tenant``, ``token``, ``credentials`` and
    ``timeout`` (the deadline of every call, in seconds) are those of the
    clients made for a target. A failure of the service raises
    ``LangChainException`` with the memorywire code and reason in its text."""

    def __init__(self, session_id: str, service: str | Client | AsyncClient, *, tenant: str | None = None,
                 token: str | None = None, credentials: grpc.ChannelCredentials | None = None,
                 timeout: float = DEFAULT_TIMEOUT) -> None:
        if not session_id or len(session_id) > 256:
            raise ValueError("a session id is a string of 1 to 256 characters (scope.session): "
                             "an empty one would scope nothing")
        self.session_id = session_id
        self._connections = Connections(service, tenant=tenant, token=token, credentials=credentials,
                                        timeout=timeout)

    @property
    def scope(self) -> dict[str, Any]:
        """The request scope of every call: the session."""
        return {"session": self.session_id}

    def _where(self) -> dict[str, Any]:
        return {"all": {"filters": [
            {"compare": {"field": "/scope/session", "operator": "eq", "value": self.session_id}},
            {"compare": {"field": "/kind", "operator": "in", "value": list(KINDS)}},
        ]}}

    # -- synchronous ------------------------------------------------------------------------

    @property
    def messages(self) -> list[BaseMessage]:  # type: ignore[override, unused-ignore]
        """Every message of the session, oldest first."""
        client = self._connections.sync()
        records: list[Record] = []
        cursor = None
        with translate(LangChainException):
            while True:
                page = client.history(scope=self.scope, kinds=KINDS, limit=PAGE, cursor=cursor)
                records.extend(page.get("records", []))
                cursor = page.get("next_cursor")
                if not cursor:
                    break
        return record_messages(records)

    def add_messages(self, messages: Sequence[BaseMessage]) -> None:
        """Append messages, in their order: one atomic Put of up to 1000
        messages, a retry of which (same operation id) writes nothing twice."""
        records = history_records(messages, self.session_id)
        if not records:
            return
        client = self._connections.sync()
        with translate(LangChainException):
            for start in range(0, len(records), PAGE):
                call_with_retry(client.put, records=records[start:start + PAGE], scope=self.scope, atomic=True)

    def clear(self) -> None:
        """Delete every message of the session (its records become tombstones)."""
        client = self._connections.sync()
        with translate(LangChainException):
            call_with_retry(client.delete, filter=self._where(), scope=self.scope)

    # -- asynchronous -----------------------------------------------------------------------

    async def aget_messages(self) -> list[BaseMessage]:
        """Every message of the session, oldest first."""
        client = self._connections.aio()
        records: list[Record] = []
        cursor = None
        async with atranslate(LangChainException):
            while True:
                page = await client.history(scope=self.scope, kinds=KINDS, limit=PAGE, cursor=cursor)
                records.extend(page.get("records", []))
                cursor = page.get("next_cursor")
                if not cursor:
                    break
        return record_messages(records)

    async def aadd_messages(self, messages: Sequence[BaseMessage]) -> None:
        """Append messages, as :meth:`add_messages` does."""
        records = history_records(messages, self.session_id)
        if not records:
            return
        client = self._connections.aio()
        async with atranslate(LangChainException):
            for start in range(0, len(records), PAGE):
                await acall_with_retry(client.put, records=records[start:start + PAGE], scope=self.scope,
                                       atomic=True)

    async def aclear(self) -> None:
        """Delete every message of the session, as :meth:`clear` does."""
        client = self._connections.aio()
        async with atranslate(LangChainException):
            await acall_with_retry(client.delete, filter=self._where(), scope=self.scope)

    def close(self) -> None:
        """Close the synchronous client this history made (a client given
        is the caller's to close); the asynchronous ones close when collected."""
        self._connections.close()
