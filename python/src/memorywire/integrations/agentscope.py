"""AgentScope 2.x long-term memory on a memorywire service:
``MemorywireLongTermMemory``, a middleware in place of ``Mem0Middleware``
(spec/v1/adapters/agentscope.md section 8).

The one-line swap::

    memory = MemorywireLongTermMemory("127.0.0.1:50051", tenant="acme", user_id="alice")  # was Mem0Middleware(...)
    agent = Agent(..., toolkit=Toolkit(tools=await memory.list_tools()), middlewares=[memory])

AgentScope 2.x has no ``LongTermMemoryBase``: its long-term memories are
middlewares (``Mem0Middleware``, ``ReMeMiddleware``) that retrieve before a
reply, write the exchange back after it, and give the agent tools to search
and add memories. This one does the same on the service, with the methods of
1.x's ``LongTermMemoryBase`` beside them: ``record`` (Msgs, through the
``agentscope.msg`` form: one ``message`` record per Msg, its id the Msg id),
``retrieve`` (a text search; the texts found, one a line),
``record_to_memory`` (one ``fact`` record per string) and
``retrieve_from_memory`` (one search per keyword), the last two being what
the ``add_memory`` and ``search_memory`` tools call.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncGenerator, Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

import memorywire._extras

try:
    from agentscope._logging import logger
    from agentscope.event import ReplyStartEvent
    from agentscope.exception import DeveloperOrientedException
    from agentscope.message import AssistantMsg, HintBlock, Msg, TextBlock, ToolResultState
    from agentscope.middleware import MiddlewareBase
    from agentscope.permission import PermissionBehavior, PermissionDecision
    from agentscope.tool import ToolBase, ToolChunk
except ImportError as _missing:  # pragma: no cover - depends on the environment
    if not memorywire._extras.missing(_missing, "agentscope"):
        raise
    if _missing.name != "agentscope":  # AgentScope is there, but not 2.x: no middleware
        from importlib.metadata import version

        raise ImportError(f"memorywire.integrations.agentscope needs AgentScope 2.x, whose long-term memories are "
                          f"middlewares; {version('agentscope')} is installed", name=_missing.name) from _missing
    raise ImportError(memorywire._extras.install_hint("memorywire.integrations.agentscope", "agentscope"),
                      name=_missing.name) from _missing

from memorywire.adapters import FORMS
from memorywire.client import AsyncClient
from memorywire.integrations._kit import DEFAULT_TIMEOUT, Connections, acall_with_retry, atranslate

if TYPE_CHECKING:
    from agentscope.agent import Agent

__all__ = ["RETRIEVED_KINDS", "MemorywireLongTermMemory"]

MSG = FORMS["agentscope.msg"]
#: The kinds of record a retrieval reads: messages and every memory kind
#: with text (a ``custom`` value is not searched as text).
RETRIEVED_KINDS = ("message", "fact", "episode", "emotion", "summary", "block", "procedure")
#: The longest text query of a Search (code points); a longer one is cut.
MAX_QUERY = 8192
Mode = Literal["static_control", "agent_control", "both"]

#: Mem0Middleware's words, so that a swap changes nothing the model sees.
DEFAULT_MEMORY_SECTION_HEADER = "## Relevant memories from past conversations"
DEFAULT_MEMORY_SECTION_INTRO = ("The following memories about the user may be relevant. "
                                "Use them only if they are pertinent to the current request.")
DEFAULT_TOOL_INSTRUCTIONS = (
    "## Long-term memory\n\n"
    "You have `search_memory` and `add_memory` tools available. Use "
    "them whenever the conversation depends on (search) or contributes "
    "(add) a durable fact about the user — see each tool's own "
    "description for the exact input shape and usage guidance.")


class MemorywireLongTermMemory(MiddlewareBase):
    """An AgentScope long-term memory whose records live in a memorywire
    service, with the constructor and behaviour of ``Mem0Middleware``.

    ``service``: ``"host:port"`` or an :class:`~memorywire.client.AsyncClient`
    (used as is). ``tenant``, ``token``, ``timeout`` (seconds, the deadline of
    every call) as for the client. ``user_id`` (required) and ``agent_id``:
    the scope (``user``, ``agent``) of every record written; a search is
    within the user and, with ``scope_search_by_agent``, the agent.
    ``mode``: ``"static_control"`` (retrieve before each reply and inject the
    memories as an ``AssistantMsg(name="memory")`` hint, write the exchange
    after it), ``"agent_control"`` (the ``search_memory`` and ``add_memory``
    tools only) or ``"both"``. ``top_k``: the most memories of a retrieval.
    ``await_write``: write the exchange before the reply ends (else in the
    background).

    Example::

        memory = MemorywireLongTermMemory("127.0.0.1:50051", tenant="acme", user_id="alice", mode="both")
        agent = Agent(name="Friday", system_prompt="...", model=model,
                      toolkit=Toolkit(tools=await memory.list_tools()), middlewares=[memory])
    """

    def __init__(self, service: str | AsyncClient, *, user_id: str, tenant: str | None = None,
                 token: str | None = None, timeout: float = DEFAULT_TIMEOUT, agent_id: str | None = None,
                 mode: Mode = "both", top_k: int = 5, scope_search_by_agent: bool = True,
                 await_write: bool = True, memory_section_header: str = DEFAULT_MEMORY_SECTION_HEADER,
                 memory_section_intro: str = DEFAULT_MEMORY_SECTION_INTRO,
                 tool_instructions: str = DEFAULT_TOOL_INSTRUCTIONS) -> None:
        if not isinstance(user_id, str) or not user_id.strip():
            raise ValueError("MemorywireLongTermMemory requires a non-empty `user_id`.")
        if mode not in ("static_control", "agent_control", "both"):
            raise ValueError(f"Unknown mode {mode!r}; expected one of 'static_control', 'agent_control', 'both'.")
        if top_k < 1 or top_k > 1000:
            raise ValueError("top_k is a number of memories from 1 to 1000")
        self._timeout = timeout
        self._user_id = user_id
        self._agent_id = agent_id
        self._mode: Mode = mode
        self._top_k = top_k
        self._scope_search_by_agent = scope_search_by_agent
        self._await_write = await_write
        self._memory_section_header = memory_section_header
        self._memory_section_intro = memory_section_intro
        self._tool_instructions = tool_instructions
        self._connections = Connections(service, tenant=tenant, token=token, timeout=timeout)
        self._pending: set[asyncio.Task[None]] = set()

    # -- the service ---------------------------------------------------------------------------

    @property
    def scope(self) -> dict[str, str]:
        """The scope of every record written."""
        scope = {"user": self._user_id}
        if self._agent_id:
            scope["agent"] = self._agent_id
        return scope

    def _search_scope(self) -> dict[str, str]:
        scope = self.scope
        if not self._scope_search_by_agent:
            scope.pop("agent", None)
        return scope

    async def close(self) -> None:
        """Wait for the writes under way, then close the connection this
        memory opened (not a client it was given)."""
        if self._pending:
            await asyncio.gather(*self._pending, return_exceptions=True)
        await self._connections.aclose()

    async def _put(self, records: list[dict[str, Any]]) -> None:
        client = self._connections.aio()
        async with atranslate(DeveloperOrientedException):
            await acall_with_retry(client.put, records=records, scope=self.scope, timeout=self._timeout)

    async def _search_texts(self, query: str, limit: int) -> list[str]:
        """The texts of the records that match ``query``, best first."""
        query = query.strip()[:MAX_QUERY]
        if not query:
            return []
        client = self._connections.aio()
        kinds = {"compare": {"field": "/kind", "operator": "in", "value": list(RETRIEVED_KINDS)}}
        async with atranslate(DeveloperOrientedException):
            page = await client.search(query, filter=kinds, scope=self._search_scope(), limit=limit,
                                       timeout=self._timeout)
        texts = []
        for hit in page.get("hits", []):
            text = _msg_text(MSG.from_records([hit["record"]])[0])
            if text:
                texts.append(text)
        return texts

    # -- 1.x LongTermMemoryBase: the developer's methods ---------------------------------------

    async def record(self, msgs: Sequence[Msg | None], *, session_id: str | None = None, **kwargs: Any) -> list[str]:
        """Put one ``message`` record per Msg (None skipped), through the
        ``agentscope.msg`` form, in the memory's scope and ``session_id``'s
        session; the record id is the Msg id, so recording a Msg again
        changes nothing. Returns the record ids."""
        dumps = [m.model_dump(mode="json") for m in msgs if m is not None]
        if not dumps:
            return []
        scope: dict[str, Any] = dict(self.scope)
        if session_id:
            scope["session"] = session_id
        async with atranslate(DeveloperOrientedException):
            records = MSG.to_records(dumps, **scope)
        await self._put(records)
        return [r["id"] for r in records]

    async def retrieve(self, msg: Msg | Sequence[Msg] | None, limit: int = 5, **kwargs: Any) -> str:
        """The memories that match the text of ``msg``, one a line, best
        first (at most ``limit``); ``""`` when there are none."""
        msgs = [] if msg is None else [msg] if isinstance(msg, Msg) else list(msg)
        query = "\n".join(t for m in msgs if (t := m.get_text_content()))
        return "\n".join(await self._search_texts(query, limit))

    # -- 1.x LongTermMemoryBase: the agent's tool functions ------------------------------------

    async def record_to_memory(self, thinking: str, content: list[str], **kwargs: Any) -> ToolChunk:
        """Record important, durable information: one ``fact`` record per
        item of ``content``; ``thinking`` stays in the tool result only."""
        facts = [c for c in content if isinstance(c, str) and c.strip()]
        if not facts:
            return _error_chunk("`content` is empty — nothing to record.")
        records: list[dict[str, Any]] = [{"id": f"urn:uuid:{uuid.uuid4()}", "kind": "fact", "fact": {"text": text},
                                          "provenance": {"origin": "agent"}} for text in facts]
        try:
            await self._put(records)
        except DeveloperOrientedException as e:
            return _error_chunk(f"Error recording memory: {e.message}")
        rationale = f" (rationale: {thinking})" if thinking else ""
        return _text_chunk(f"Successfully recorded to memory{rationale} → {len(records)} fact(s)")

    async def retrieve_from_memory(self, keywords: list[str], limit: int = 5, **kwargs: Any) -> ToolChunk:
        """One search per keyword, at most ``limit`` memories each, merged
        without repeats."""
        if not keywords:
            return _text_chunk("(no keywords supplied — nothing to search)")
        try:
            found = await asyncio.gather(*(self._search_texts(k, limit) for k in keywords))
        except DeveloperOrientedException as e:
            return _error_chunk(f"Error retrieving memory: {e.message}")
        merged = list(dict.fromkeys(t for texts in found for t in texts))
        if not merged:
            return _text_chunk("(no relevant memories found)")
        return _text_chunk("\n".join(f"- {m}" for m in merged))

    # -- the middleware ------------------------------------------------------------------------

    async def on_reply(self, agent: Agent, input_kwargs: dict[str, Any],
                       next_handler: Callable[..., AsyncGenerator[Any, None]]) -> AsyncGenerator[Any, None]:
        """Static control: retrieve with the user's input, inject what is
        found once the input is in the context, write the exchange (the
        input Msgs and the final reply) after the reply. A failed retrieval
        or write is logged and the reply goes on, as with Mem0Middleware."""
        if self._mode == "agent_control":
            async for item in next_handler(**input_kwargs):
                yield item
            return
        inputs = _user_msgs(input_kwargs.get("inputs"))
        query = "\n".join(t for m in inputs if (t := m.get_text_content()))
        memories: list[str] = []
        if query:
            try:
                memories = await self._search_texts(query, self._top_k)
            except DeveloperOrientedException as e:
                logger.warning("memorywire search failed for user_id=%s: %s", self._user_id, e.message)
        final: Msg | None = None
        injected = False
        try:
            async for item in next_handler(**input_kwargs):
                if not injected and memories and isinstance(item, ReplyStartEvent):
                    agent.state.context.append(self._memory_message(memories))
                    injected = True
                if isinstance(item, Msg) and item.role == "assistant":
                    final = item
                yield item
        finally:
            if query and final is not None and final.get_text_content():
                await self._write_back([*inputs, final], getattr(agent.state, "session_id", None))

    async def _write_back(self, msgs: list[Msg], session_id: str | None) -> None:
        async def write() -> None:
            try:
                await self.record(msgs, session_id=session_id)
            except DeveloperOrientedException as e:
                logger.warning("memorywire write failed for user_id=%s: %s", self._user_id, e.message)

        if self._await_write:
            await write()
        else:
            task = asyncio.create_task(write())
            self._pending.add(task)
            task.add_done_callback(self._pending.discard)

    async def on_system_prompt(self, agent: Agent, current_prompt: str) -> str:
        """The prompt, with the memory tools' instructions unless in static control."""
        if self._mode == "static_control":
            return current_prompt
        return f"{current_prompt}\n\n{self._tool_instructions}"

    async def list_tools(self) -> list[ToolBase]:
        """The ``search_memory`` and ``add_memory`` tools, unless in static control."""
        if self._mode == "static_control":
            return []
        return [_SearchMemoryTool(self), _AddMemoryTool(self)]

    def _memory_message(self, memories: Iterable[str]) -> Msg:
        bullets = "\n".join(f"- {m}" for m in memories)
        text = f"{self._memory_section_header}\n{self._memory_section_intro}\n{bullets}"
        return AssistantMsg(name="memory", content=[HintBlock(hint=text)])


class _MemoryTool(ToolBase):
    """A memory tool of the middleware: allowed without asking."""

    is_external_tool = False
    is_state_injected = False
    is_mcp = False
    mcp_name = None

    def __init__(self, memory: MemorywireLongTermMemory) -> None:
        super().__init__()
        self._memory = memory

    async def check_permissions(self, *args: Any, **kwargs: Any) -> PermissionDecision:
        return PermissionDecision(behavior=PermissionBehavior.ALLOW,
                                  message="auto-allowed: memorywire long-term memory tool")


class _SearchMemoryTool(_MemoryTool):
    name = "search_memory"
    description = ("Retrieve memories based on short, targeted search keywords. Each keyword is issued as an "
                   "independent query; results are merged and deduplicated.")
    input_schema: dict[str, Any] = {  # noqa: RUF012 - the ToolBase protocol's class attribute
        "type": "object",
        "properties": {
            "keywords": {"type": "array", "items": {"type": "string"},
                         "description": "Short, targeted search phrases such as a person's name, a specific date, "
                                        "a location, or a phrase describing what to retrieve from memory."},
            "limit": {"type": "integer", "description": "Maximum number of memories to retrieve per keyword.",
                      "default": 5},
        },
        "required": ["keywords"],
    }
    is_concurrency_safe = True
    is_read_only = True

    async def call(self, *args: Any, keywords: list[str], limit: int = 5, **kwargs: Any) -> ToolChunk:
        return await self._memory.retrieve_from_memory(keywords, limit)


class _AddMemoryTool(_MemoryTool):
    name = "add_memory"
    description = ("Record important, durable information that may be useful later. Only the provided content is "
                   "persisted; thinking is retained in the tool result for auditability.")
    input_schema: dict[str, Any] = {  # noqa: RUF012 - the ToolBase protocol's class attribute
        "type": "object",
        "properties": {
            "thinking": {"type": "string",
                         "description": "Reasoning about why this information is worth remembering. "
                                        "This is not persisted."},
            "content": {"type": "array", "items": {"type": "string"},
                        "description": "Specific facts to remember. Each item should be a complete, "
                                       "standalone sentence."},
        },
        "required": ["thinking", "content"],
    }
    is_concurrency_safe = False
    is_read_only = False

    async def call(self, *args: Any, thinking: str, content: list[str], **kwargs: Any) -> ToolChunk:
        return await self._memory.record_to_memory(thinking, content)


def _user_msgs(inputs: Any) -> list[Msg]:
    """The user Msgs of a reply's inputs (none for a resumption event)."""
    msgs = inputs if isinstance(inputs, list) else [inputs]
    return [m for m in msgs if isinstance(m, Msg) and m.role == "user"]


def _msg_text(item: Mapping[str, Any]) -> str:
    """The text of a Msg dict: its text blocks, one a line."""
    content = item.get("content")
    if isinstance(content, str):
        return content
    return "\n".join(b["text"] for b in content or () if isinstance(b, dict) and b.get("type") == "text"
                     and isinstance(b.get("text"), str) and b["text"])


def _text_chunk(message: str) -> ToolChunk:
    return ToolChunk(content=[TextBlock(type="text", text=message)])


def _error_chunk(message: str) -> ToolChunk:
    return ToolChunk(content=[TextBlock(type="text", text=message)], state=ToolResultState.ERROR)
