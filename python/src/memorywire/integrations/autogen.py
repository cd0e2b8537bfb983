"""AutoGen's ``Memory`` on a memorywire service: ``MemorywireMemory``, in
place of ``ListMemory`` (spec/v1/adapters/autogen.md section 8).

The one-line swap::

    memory = MemorywireMemory("127.0.0.1:50051", tenant="acme", user="u-42")  # was ListMemory()
    agent = AssistantAgent("assistant", model_client=client, memory=[memory])

Each ``add`` puts one record, the ``autogen.memory_content`` form of the
MemoryContent (a ``fact`` for text, a ``custom`` record otherwise, the MIME
type and metadata kept), in the memory's scope (``user``, ``agent``,
``namespace``). ``query`` is a text search of the service within that scope
(a vector search when an embedding function is given); an empty query gives
every memory in the order it was added, as ``ListMemory.query`` does.
``update_context`` queries with the text of the context's last message and
adds the memories found, in the order they were added, as one
``SystemMessage`` in ``ListMemory``'s words. autogen-core pins protobuf
below 6, memorywire needs 7: there is no ``memorywire[autogen]`` extra;
install autogen-core without its dependencies.
"""

from __future__ import annotations

import asyncio
import inspect
import uuid
from collections.abc import Awaitable, Callable, Coroutine, Mapping, Sequence
from typing import Any, TypeVar

try:
    from autogen_core import CancellationToken, Component, Image
    from autogen_core.memory import Memory, MemoryContent, MemoryQueryResult, UpdateContextResult
    from autogen_core.model_context import ChatCompletionContext
    from autogen_core.models import LLMMessage, SystemMessage
except ImportError as _missing:  # pragma: no cover - depends on the environment
    if not (_missing.name or "").startswith("autogen_core"):
        raise
    raise ImportError("memorywire.integrations.autogen needs autogen-core, which has no memorywire extra "
                      "(autogen-core 0.7 pins protobuf<6, memorywire needs protobuf 7): "
                      "pip install --no-deps autogen-core==0.7.5, then its other requirements",
                      name=_missing.name) from _missing
from pydantic import BaseModel, SecretStr
from typing_extensions import Self

from memorywire.adapters import FORMS
from memorywire.client import AsyncClient
from memorywire.errors import ValidationError
from memorywire.integrations._kit import DEFAULT_TIMEOUT, Connections, acall_with_retry, atranslate
from memorywire.validation import validate

__all__ = ["MEMORY_KINDS", "MemorywireMemory", "MemorywireMemoryConfig"]

CONTENT = FORMS["autogen.memory_content"]
#: The kinds of record a memory reads: every memory kind, not the messages
#: and tool records of conversations kept in the same scope.
MEMORY_KINDS = ("fact", "episode", "emotion", "summary", "block", "procedure", "custom")
#: ``ListMemory.update_context``'s heading of the memories it adds.
HEADING = "\nRelevant memory content (in chronological order):\n"
#: The greatest page of a Search.
PAGE = 1000
#: The longest text query of a Search (code points); a longer one is cut.
MAX_QUERY = 8192

T = TypeVar("T")
Embedder = Callable[[str], "Sequence[float] | Awaitable[Sequence[float]]"]


class MemorywireMemoryConfig(BaseModel):
    """The declarative configuration of a :class:`MemorywireMemory`: the
    service and the scope, not the memories, which live in the service."""

    name: str | None = None
    service: str
    tenant: str | None = None
    token: SecretStr | None = None
    timeout: float = DEFAULT_TIMEOUT
    user: str | None = None
    agent: str | None = None
    namespace: list[str] | None = None
    k: int = 10
    score_threshold: float | None = None


class MemorywireMemory(Memory, Component[MemorywireMemoryConfig]):
    """An AutoGen ``Memory`` whose contents live in a memorywire service.

    ``service``: ``"host:port"`` or an :class:`~memorywire.client.AsyncClient`
    (used as is, not closed by :meth:`close`). ``tenant``, ``token`` and
    ``timeout`` (seconds, the deadline of every call) as for the client.
    ``user``, ``agent`` and ``namespace``: the scope of the memory; every
    record it writes carries it and it reads nothing outside it. ``k``: the
    most memories a non-empty query returns; ``score_threshold``: the least
    score of one. ``embedding_function`` (text -> vector, sync or async) with
    ``embedding_model`` (its name): text contents are stored with their
    embedding and queries are vector searches; without it, text searches.

    Example::

        memory = MemorywireMemory("127.0.0.1:50051", tenant="acme", user="u-42")
        await memory.add(MemoryContent(content="The user prefers tea.", mime_type=MemoryMimeType.TEXT))
        found = await memory.query("what does the user drink?")
    """

    component_type = "memory"
    component_provider_override = "memorywire.integrations.autogen.MemorywireMemory"
    component_config_schema = MemorywireMemoryConfig

    def __init__(self, service: str | AsyncClient, *, tenant: str | None = None, token: str | None = None,
                 timeout: float = DEFAULT_TIMEOUT, name: str | None = None, user: str | None = None,
                 agent: str | None = None, namespace: Sequence[str] | None = None, k: int = 10,
                 score_threshold: float | None = None, embedding_function: Embedder | None = None,
                 embedding_model: str | None = None) -> None:
        if (embedding_function is None) != (embedding_model is None):
            raise ValueError("embedding_function and embedding_model go together")
        if k < 1 or k > PAGE:
            raise ValueError(f"k is a number of memories from 1 to {PAGE}")
        self._service = service
        self._tenant = tenant
        self._token = token
        self._timeout = timeout
        self._name = name or "default_memorywire_memory"
        self._scope: dict[str, Any] = {key: value for key, value in
                                       (("user", user), ("agent", agent),
                                        ("namespace", list(namespace) if namespace else None)) if value}
        _check_scope(self._scope)
        self._k = k
        self._score_threshold = score_threshold
        self._embed = embedding_function
        self._embedding_model = embedding_model
        self._connections = Connections(service, tenant=tenant, token=token, timeout=timeout)

    @property
    def name(self) -> str:
        """The name of the memory."""
        return self._name

    @property
    def scope(self) -> dict[str, Any]:
        """The scope the memory writes and reads."""
        return dict(self._scope)

    # -- the service ---------------------------------------------------------------------------

    @staticmethod
    async def _cancellable(coro: Coroutine[Any, Any, T], token: CancellationToken | None) -> T:
        if token is None:
            return await coro
        task = asyncio.ensure_future(coro)
        token.link_future(task)
        return await task

    async def _vector(self, text: str) -> list[float]:
        assert self._embed is not None
        out = self._embed(text)
        values = await out if inspect.isawaitable(out) else out
        return [float(v) for v in values]

    def _filter(self) -> dict[str, Any]:
        return {"compare": {"field": "/kind", "operator": "in", "value": list(MEMORY_KINDS)}}

    # -- Memory --------------------------------------------------------------------------------

    async def add(self, content: MemoryContent, cancellation_token: CancellationToken | None = None) -> None:
        """Put one record of ``content`` in the memory's scope."""
        await self._cancellable(self._add(content), cancellation_token)

    async def _add(self, content: MemoryContent) -> None:
        async with atranslate(RuntimeError):
            record = CONTENT.to_records([content.model_dump()], **self._scope)[0]
        record["id"] = f"urn:uuid:{uuid.uuid4()}"
        if self._embed is not None and record["kind"] == "fact":
            values = await self._vector(record["fact"]["text"])
            record["embeddings"] = [{"model": self._embedding_model, "dimensions": len(values), "values": values}]
        client = self._connections.aio()
        async with atranslate(RuntimeError):
            await acall_with_retry(client.put, records=[record], scope=self._scope or None, timeout=self._timeout)

    async def query(self, query: str | MemoryContent = "", cancellation_token: CancellationToken | None = None,
                    **kwargs: Any) -> MemoryQueryResult:
        """The memories that match ``query``, best first (at most ``k``);
        for an empty query, every memory in the order it was added."""
        text = query if isinstance(query, str) else _content_text(query.content)
        return await self._cancellable(self._query(text), cancellation_token)

    async def _query(self, text: str) -> MemoryQueryResult:
        hits = await self._search(text)
        return MemoryQueryResult(results=[_memory_content(hit["record"]) for hit in hits])

    async def _search(self, text: str) -> list[dict[str, Any]]:
        client = self._connections.aio()
        request: dict[str, Any] = {"scope": self._scope or None, "filter": self._filter(), "timeout": self._timeout}
        text = text.strip()[:MAX_QUERY]
        if not text:  # every memory, in insertion order (score 0, then sequence)
            hits: list[dict[str, Any]] = []
            cursor = None
            async with atranslate(RuntimeError):
                while True:
                    page = await client.search(limit=PAGE, cursor=cursor, **request)
                    hits.extend(page.get("hits", []))
                    cursor = page.get("next_cursor")
                    if not cursor:
                        return hits
        if self._embed is not None:
            request["vector"] = {"model": self._embedding_model, "values": await self._vector(text)}
        else:
            request["text"] = text
        async with atranslate(RuntimeError):
            page = await client.search(limit=self._k, min_score=self._score_threshold, **request)
        found: list[dict[str, Any]] = page.get("hits", [])
        return found

    async def update_context(self, model_context: ChatCompletionContext) -> UpdateContextResult:
        """Add the memories that match the text of the context's last
        message (every memory when the context is empty or its last message
        has no text) to the context as one SystemMessage, in the order they
        were added, as ``ListMemory`` words it; nothing when none match."""
        messages = await model_context.get_messages()
        hits = await self._search(_message_text(messages[-1]) if messages else "")
        hits.sort(key=lambda hit: int(hit["record"].get("sequence", 0)))
        contents = [_memory_content(hit["record"]) for hit in hits]
        if contents:
            lines = [f"{i}. {str(c.content)}" for i, c in enumerate(contents, 1)]
            await model_context.add_message(SystemMessage(content=HEADING + "\n".join(lines) + "\n"))
        return UpdateContextResult(memories=MemoryQueryResult(results=contents))

    async def clear(self) -> None:
        """Delete every memory of the scope (the records ``query`` reads)."""
        client = self._connections.aio()
        async with atranslate(RuntimeError):
            await acall_with_retry(client.delete, filter=self._filter(), scope=self._scope or None,
                                   timeout=self._timeout)

    async def close(self) -> None:
        """Close the connection this memory opened (not a client it was given)."""
        await self._connections.aclose()

    # -- Component -----------------------------------------------------------------------------

    def _to_config(self) -> MemorywireMemoryConfig:
        if not isinstance(self._service, str):
            raise ValueError("a MemorywireMemory made with a client object has no declarative config: "
                             "make it with the service's target")
        return MemorywireMemoryConfig(
            name=self._name, service=self._service, tenant=self._tenant,
            token=SecretStr(self._token) if self._token is not None else None, timeout=self._timeout,
            user=self._scope.get("user"), agent=self._scope.get("agent"), namespace=self._scope.get("namespace"),
            k=self._k, score_threshold=self._score_threshold)

    @classmethod
    def _from_config(cls, config: MemorywireMemoryConfig) -> Self:
        return cls(config.service, tenant=config.tenant,
                   token=config.token.get_secret_value() if config.token is not None else None,
                   timeout=config.timeout, name=config.name, user=config.user, agent=config.agent,
                   namespace=config.namespace, k=config.k, score_threshold=config.score_threshold)


def _check_scope(scope: Mapping[str, Any]) -> None:
    try:
        validate(dict(scope), type="memorywire.v1.Scope")
    except ValidationError as e:
        raise ValueError(f"not a memorywire scope: {e}") from None


def _memory_content(record: Mapping[str, Any]) -> MemoryContent:
    """The MemoryContent of a record, an ``Image`` again for an image."""
    item = CONTENT.from_records([record])[0]
    content = item["content"]
    if str(item.get("mime_type", "")).startswith("image/") and type(content) is dict \
            and set(content) == {"data"} and type(content["data"]) is str:
        item["content"] = Image.from_base64(content["data"])
    return MemoryContent(**item)


def _content_text(content: Any) -> str:
    return content if isinstance(content, str) else "" if isinstance(content, (bytes, Image)) else str(content)


def _message_text(message: LLMMessage) -> str:
    """The text of a model-context message: its string content, or the
    strings of a list content (images and calls have none)."""
    content: Any = message.content
    if isinstance(content, str):
        return content
    texts = []
    for element in content:
        if isinstance(element, str):
            texts.append(element)
        elif isinstance(getattr(element, "content", None), str):  # a FunctionExecutionResult
            texts.append(element.content)
    return "\n".join(texts)
