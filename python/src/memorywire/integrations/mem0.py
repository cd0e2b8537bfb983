"""mem0 (mem0ai 2.2.1) on a memorywire service: a vector store provider.

mem0 keeps its memories in a vector store that its configuration selects
(``VectorStoreBase`` providers made by ``VectorStoreFactory``). Importing
this module registers the provider ``"memorywire"``; the one-line swap is
the vector store of the configuration::

    import memorywire.integrations.mem0  # registers the provider
    memory = Memory.from_config({"vector_store": {"provider": "memorywire", "config": {
        "service": "127.0.0.1:50051", "tenant": "acme", "embedding_model_dims": 1536}}, ...})

What mem0 stores is ordinary memorywire records: each vector is one record
of the form ``mem0.memory_item`` (spec/v1/adapters/mem0.md section 9), a
``fact`` whose text is the memory, whose scope is its ``user_id``,
``agent_id`` and ``run_id`` and the collection as ``namespace``, with the
vector as an embedding of ``model``; other frameworks read it from those
fields. The record id is the vector id.

mem0's history (the SQLite database at ``history_db_path``: the versions of
each memory and the messages of each session) is not a vector store, and
mem0 2.2.1 offers no way to replace it; it stays a local file.
"""

from __future__ import annotations

import sys
import uuid
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

try:
    from mem0.exceptions import VectorStoreError
    from mem0.utils.factory import VectorStoreFactory
    from mem0.vector_stores.base import VectorStoreBase
    from mem0.vector_stores.configs import VectorStoreConfig
    from pydantic import BaseModel, ConfigDict, Field
except ImportError as _missing:
    if (_missing.name or "").split(".")[0] in ("mem0", "pydantic"):
        raise ImportError(
            "memorywire.integrations.mem0 needs mem0ai, which no extra of memorywire installs: mem0ai 2.2.1 pins "
            "protobuf<7 and memorywire needs protobuf 7. Install it without its pins and then its requirements "
            "but protobuf: pip install --no-deps mem0ai==2.2.1 (python/tests/adapters/frameworks/envs.toml)",
            name=_missing.name) from _missing
    raise

from memorywire.adapters import FORMS, parse_time
from memorywire.adapters._kit import ID_NAMESPACE, valid_id
from memorywire.client import Client
from memorywire.integrations._kit import DEFAULT_RETRY, DEFAULT_TIMEOUT, call_with_retry, connect, translate
from memorywire.service.errors import ServiceError

__all__ = ["PROVIDER", "MemorywireConfig", "MemorywireVectorStore", "OutputData", "register"]

PROVIDER = "memorywire"
FORM = FORMS["mem0.memory_item"]
#: The payload members that a memory item has as members of its own; the
#: rest of a payload is the item's ``metadata``.
OWN = ("hash", "created_at", "updated_at", "user_id", "agent_id", "run_id", "actor_id", "role", "attributed_to",
       "expiration_date", "text_lemmatized")
#: The item member that marks a payload without ``data`` (mem0's telemetry row).
NO_DATA = "payload_without_data"
BATCH = 500
PAGE = 1000
#: Where each payload member is in a record, for filters.
FIELDS = {"data": "/fact/text", "user_id": "/scope/user", "agent_id": "/scope/agent", "run_id": "/scope/run",
          "actor_id": "/provenance/actor", "hash": "/extensions/mem0.hash", "created_at": "/created_at",
          "updated_at": "/updated_at", "attributed_to": "/native/record/attributed_to",
          "text_lemmatized": "/native/record/text_lemmatized"}
_ROLE = {"user": "user", "assistant": "agent"}
_OPS = {"eq", "ne", "gt", "gte", "lt", "lte", "in", "nin", "contains", "icontains"}
_LOGIC = {"$or": "OR", "$not": "NOT", "$and": "AND"}

Json = dict[str, Any]


class MemorywireConfig(BaseModel):
    """The ``config`` of the vector store provider ``"memorywire"``."""

    collection_name: str = Field("mem0", description="The collection: the records' namespace unless namespace is set")
    embedding_model_dims: int = Field(1536, description="The dimensions of the vectors")
    service: str = Field("127.0.0.1:50051", description="The memorywire service: host:port")
    client: Any = Field(None, description="A memorywire.Client to use instead of service (not closed)")
    tenant: str | None = Field(None, description="The tenant")
    token: str | None = Field(None, description="The bearer token")
    timeout: float = Field(DEFAULT_TIMEOUT, description="The deadline of every call, in seconds")
    model: str = Field("mem0", description="The model name of the embeddings (the embedder's model)")
    namespace: list[str] | None = Field(None, description="The namespace of the records: [collection_name] if unset")
    keyword_search: bool = Field(True, description="Serve mem0's keyword (BM25) search with full-text search")

    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")


class OutputData(BaseModel):
    """One vector of a result: as mem0's own stores return them."""

    id: str | None
    score: float | None
    payload: dict[str, Any] | None


def _item(vid: str, payload: Mapping[str, Any]) -> Json:
    """The memory item of a payload: what mem0's get() makes of it, and the
    members get() drops (text_lemmatized), so that the payload comes back."""
    item: Json = {"id": vid}
    if "data" in payload:
        item["memory"] = payload["data"]
    else:
        item["memory"] = None
        item[NO_DATA] = True
    item.update((k, payload[k]) for k in OWN if k in payload)
    meta = {k: v for k, v in payload.items() if k != "data" and k not in OWN}
    if meta:
        item["metadata"] = meta
    return item


def _payload(item: Mapping[str, Any]) -> Json:
    payload: Json = {}
    if not item.get(NO_DATA):
        payload["data"] = item.get("memory")
    payload.update((k, item[k]) for k in OWN if k in item)
    payload.update(item.get("metadata") or {})
    return payload


def _chunks(items: Sequence[Any], size: int) -> Iterator[Sequence[Any]]:
    for i in range(0, len(items), size):
        yield items[i:i + size]


# -- filters ----------------------------------------------------------------------------------------

def _normalized(filters: Mapping[str, Any]) -> Json:
    """mem0's filters with $or, $not and $and read as OR, NOT and AND, the
    first of each kept (as mem0's Qdrant store reads them)."""
    out: Json = {}
    for key, value in filters.items():
        out.setdefault(_LOGIC.get(key, key), value)
    return out


def _has_text_match(filters: Any) -> bool:
    if isinstance(filters, list):
        return any(_has_text_match(f) for f in filters)
    if not isinstance(filters, Mapping):
        return False
    return any((isinstance(v, Mapping) and ({"contains", "icontains"} & set(v))) or _has_text_match(v)
               for v in filters.values())


def _compare(field: str, op: str, value: Any) -> Json:
    return {"compare": {"field": field, "operator": op, "value": value}}


def _leaf(key: str, op: str, value: Any) -> Json:
    """One comparison of a payload member, on the record field that holds it."""
    if key == "role":
        values = value if op in ("in", "nin") else [value]
        mapped = [_compare("/provenance/origin", "eq", _ROLE[v]) if v in _ROLE
                  else _compare("/native/record/role", "eq", v) for v in values]
        if op in ("gt", "gte", "lt", "lte"):
            raise ValueError("role is compared with eq, ne, in and nin only")
        one: Json = mapped[0] if len(mapped) == 1 else {"any": {"filters": mapped}}
        if not mapped:
            one = {"not": {"compare": {"field": "/id", "operator": "exists"}}}
        return {"not": one} if op in ("ne", "nin") else one
    if key == "expiration_date":
        raise ValueError("a filter on expiration_date is not supported by the memorywire store")
    field = FIELDS.get(key, "/metadata/" + key.replace("~", "~0").replace("/", "~1"))
    if key in ("created_at", "updated_at"):
        value = [parse_time(v) for v in value] if op in ("in", "nin") else parse_time(value)
    if op == "nin":
        return {"not": _compare(field, "in", value)}
    return _compare(field, op, value)


def _condition(key: str, value: Any) -> Json | None:
    if not isinstance(value, Mapping):
        if value == "*":
            return None  # any value: as mem0's Qdrant store, no condition
        if isinstance(value, list):
            return _leaf(key, "in", value)
        return _leaf(key, "eq", value)
    ops = set(value)
    if not ops or not ops <= _OPS:
        raise ValueError(f"Unsupported filter operator(s) for field '{key}': {ops}")
    ranges = ops & {"gt", "gte", "lt", "lte"}
    if ranges and ops - ranges:
        raise ValueError(f"Cannot mix range operators ({ranges}) with non-range operators ({ops - ranges}) for "
                         f"field '{key}'. Use AND to combine them as separate conditions.")
    if ranges:
        parts = [_leaf(key, op, value[op]) for op in sorted(ranges)]
        return parts[0] if len(parts) == 1 else {"all": {"filters": parts}}
    for op in ("eq", "ne", "in", "nin"):
        if op in value:
            return _leaf(key, op, value[op])
    return None  # contains, icontains: checked on the payloads (_plan)


def _filter(filters: Mapping[str, Any] | None) -> Json | None:
    """The memorywire filter of mem0's filters (None: every record)."""
    if not filters:
        return None
    must: list[Json] = []
    should: list[Json] = []
    must_not: list[Json] = []
    for key, value in _normalized(filters).items():
        if key in ("AND", "OR", "NOT"):
            if not isinstance(value, list) or not all(isinstance(x, Mapping) for x in value):
                raise ValueError(f"{key} filter value must be a list of filter dicts")
            built = [b for b in (_filter(x) for x in value) if b is not None]
            {"AND": must, "OR": should, "NOT": must_not}[key].extend(built)
        else:
            c = _condition(key, value)
            if c is not None:
                must.append(c)
    if should:
        must.append(should[0] if len(should) == 1 else {"any": {"filters": should}})
    must.extend({"not": f} for f in must_not)
    if not must:
        return None
    return must[0] if len(must) == 1 else {"all": {"filters": must}}


def _compares(field: Any, op: str, value: Any) -> bool:
    if op == "eq":
        return bool(field == value)
    if op == "ne":
        return bool(field != value)
    if op == "in":
        return field in value
    if op == "nin":
        return field not in value
    if op in ("contains", "icontains"):
        if not isinstance(field, str):
            return False
        return str(value).lower() in field.lower() if op == "icontains" else str(value) in field
    try:
        return bool({"gt": field > value, "gte": field >= value, "lt": field < value, "lte": field <= value}[op])
    except TypeError:
        return False


def _holds(payload: Mapping[str, Any], filters: Mapping[str, Any]) -> bool:
    """Whether a payload satisfies mem0's filters, evaluated here: for
    filters with contains or icontains (substring matches, which no
    memorywire operator tests) inside OR or NOT."""
    for key, value in _normalized(filters).items():
        if key == "AND":
            ok = all(_holds(payload, x) for x in value)
        elif key == "OR":
            ok = any(_holds(payload, x) for x in value)
        elif key == "NOT":
            ok = not any(_holds(payload, x) for x in value)
        elif not isinstance(value, Mapping):
            if value == "*":
                ok = True
            elif isinstance(value, list):
                ok = key in payload and payload[key] in value
            else:
                ok = key in payload and payload[key] == value
        elif {"ne", "nin"} & set(value):  # these hold for a missing member, as the service's ne does
            ok = all(_compares(payload.get(key), op, v) for op, v in value.items())
        else:
            ok = key in payload and all(_compares(payload[key], op, v) for op, v in value.items())
        if not ok:
            return False
    return True


def _plan(filters: Mapping[str, Any] | None) -> tuple[Json | None, Mapping[str, Any] | None]:
    """The memorywire filter the service applies, and the mem0 filters left
    to check on each payload (None: none). Without contains or icontains the
    service applies all; with them, it applies the plain conditions of the
    top level (a conjunction), and every result is checked here."""
    if not _has_text_match(filters):
        return _filter(filters), None
    assert filters is not None
    plain = {k: v for k, v in _normalized(filters).items() if k not in ("AND", "OR", "NOT")}
    return _filter(plain), filters


# -- the store --------------------------------------------------------------------------------------

class MemorywireVectorStore(VectorStoreBase):
    """mem0's vector store on a memorywire service; mem0 makes it from the
    provider ``"memorywire"`` and :class:`MemorywireConfig`. Failed calls
    raise mem0's ``VectorStoreError`` with the memorywire reason."""

    def __init__(self, collection_name: str = "mem0", embedding_model_dims: int = 1536,
                 service: str = "127.0.0.1:50051", client: Client | None = None, tenant: str | None = None,
                 token: str | None = None, timeout: float = DEFAULT_TIMEOUT, model: str = "mem0",
                 namespace: Sequence[str] | None = None, keyword_search: bool = True) -> None:
        self.collection_name = collection_name
        self.embedding_model_dims = embedding_model_dims
        self.model = model
        self.namespace = list(namespace) if namespace else [collection_name]
        self.scope: Json = {"namespace": self.namespace}
        self.client, self._owned = connect(client if client is not None else service, tenant=tenant, token=token,
                                           timeout=timeout)
        self._keyword = keyword_search
        self.create_col(collection_name, embedding_model_dims)

    # -- records --------------------------------------------------------------------------------

    def _rid(self, vid: str) -> str:
        if valid_id(vid) and not vid.startswith("urn:uuid:"):
            return vid
        name = f"mem0 vector\n{self.namespace}\n{vid}"
        return f"urn:uuid:{uuid.uuid5(ID_NAMESPACE, name)}"

    def _record(self, vid: str, vector: Sequence[float] | None, payload: Mapping[str, Any],
                embeddings: list[Json] | None = None) -> Json:
        (record,) = FORM.to_records([_item(vid, payload)], namespace=self.namespace)
        record["id"] = self._rid(vid)  # a vector id that is no record id: its name-based UUID
        if vector is not None:
            record["embeddings"] = [{"model": self.model, "dimensions": len(vector),
                                     "values": [float(x) for x in vector]}]
        elif embeddings:
            record["embeddings"] = embeddings
        return record

    def _out(self, record: Mapping[str, Any], score: float | None) -> OutputData:
        (item,) = FORM.from_records([record])
        return OutputData(id=item.get("id", record.get("id")), score=score, payload=_payload(item))

    def _get_record(self, vid: str) -> Json | None:
        with translate(VectorStoreError):
            found = self.client.get([self._rid(vid)], scope=self.scope)
        records: list[Json] = found.get("records", [])
        return records[0] if records else None

    def _put(self, records: Sequence[Json]) -> None:
        with translate(VectorStoreError):
            for batch in _chunks(records, BATCH):
                call_with_retry(self.client.put, retry=DEFAULT_RETRY, records=list(batch), scope=self.scope,
                                atomic=True)

    def _hits(self, *, filters: Mapping[str, Any] | None, limit: int, **query: Any) -> list[tuple[Json, float]]:
        """Search results in order, the contains conditions of ``filters``
        applied, at most ``limit``."""
        flt, post = _plan(filters)
        out: list[tuple[Json, float]] = []
        cursor = None
        with translate(VectorStoreError):
            while len(out) < limit:
                page = self.client.search(filter=flt, scope=self.scope, cursor=cursor,
                                          limit=PAGE if post is not None else min(limit - len(out), PAGE), **query)
                for hit in page.get("hits", []):
                    if post is not None and not _holds(self._out(hit["record"], None).payload or {}, post):
                        continue
                    out.append((hit["record"], hit.get("score", 0.0)))
                cursor = page.get("next_cursor")
                if not cursor:
                    break
        return out[:limit]

    # -- VectorStoreBase ------------------------------------------------------------------------

    def create_col(self, name: str, vector_size: int, distance: Any = None) -> None:
        """A collection is a namespace: it exists once it has a record."""
        return None

    def insert(self, vectors: Sequence[Sequence[float]], payloads: Sequence[Mapping[str, Any]] | None = None,
               ids: Sequence[Any] | None = None) -> None:
        keys = [str(i) for i in ids] if ids is not None else [str(uuid.uuid4()) for _ in vectors]
        self._put([self._record(vid, vec, payloads[n] if payloads else {})
                   for n, (vid, vec) in enumerate(zip(keys, vectors, strict=True))])

    def search(self, query: str, vectors: Sequence[float], top_k: int = 5,
               filters: Mapping[str, Any] | None = None) -> list[OutputData]:
        vector = {"model": self.model, "values": [float(x) for x in vectors]}
        return [self._out(record, score) for record, score in self._hits(filters=filters, limit=top_k, vector=vector)]

    def keyword_search(self, query: str, top_k: int = 5,
                       filters: Mapping[str, Any] | None = None) -> list[OutputData] | None:
        if not self._keyword or not query.strip():
            return None if not self._keyword else []
        try:
            hits = self._hits(filters=filters, limit=top_k, text=query)
        except VectorStoreError as e:
            cause = e.__cause__
            if isinstance(cause, ServiceError) and cause.reason == "UNSUPPORTED_FEATURE":
                return None
            raise
        return [self._out(record, score) for record, score in hits]

    def delete(self, vector_id: Any) -> None:
        with translate(VectorStoreError):
            call_with_retry(self.client.delete, retry=DEFAULT_RETRY, ids=[self._rid(str(vector_id))], mode="hard",
                            scope=self.scope)

    def update(self, vector_id: Any, vector: Sequence[float] | None = None,
               payload: Mapping[str, Any] | None = None) -> None:
        """A new vector and payload replace the stored ones; a payload alone
        is merged into the stored payload and a vector alone replaces the
        stored vector (as mem0's Qdrant store does)."""
        vid = str(vector_id)
        if vector is None and payload is None:
            return
        if vector is not None and payload is not None:
            self._put([self._record(vid, vector, payload)])
            return
        stored = self._get_record(vid)
        if stored is None:
            raise VectorStoreError(f"memorywire store: no vector {vid!r} in collection {self.collection_name!r}")
        old = self._out(stored, None).payload or {}
        new = {**old, **payload} if payload is not None else old
        self._put([self._record(vid, vector, new, stored.get("embeddings"))])

    def get(self, vector_id: Any) -> OutputData | None:
        record = self._get_record(str(vector_id))
        return None if record is None else self._out(record, None)

    def list_cols(self) -> list[str]:
        """The collections this store knows: its own (collections are
        namespaces, which the service does not list)."""
        return [self.collection_name]

    def delete_col(self) -> None:
        """Remove every record of the collection."""
        with translate(VectorStoreError):
            call_with_retry(self.client.delete, retry=DEFAULT_RETRY, mode="hard", scope=self.scope,
                            filter={"compare": {"field": "/id", "operator": "exists"}})

    def col_info(self) -> dict[str, Any]:
        count = len(self._hits(filters=None, limit=1 << 30))
        return {"name": self.collection_name, "namespace": self.namespace, "model": self.model,
                "dimensions": self.embedding_model_dims, "count": count}

    def list(self, filters: Mapping[str, Any] | None = None, top_k: int | None = 100) -> list[list[OutputData]]:
        """The vectors of the collection that satisfy ``filters``, in the
        order they were inserted, at most ``top_k``."""
        hits = self._hits(filters=filters, limit=100 if top_k is None else top_k)
        return [[self._out(record, None) for record, _ in hits]]

    def reset(self) -> None:
        self.delete_col()
        self.create_col(self.collection_name, self.embedding_model_dims)

    def close(self) -> None:
        if self._owned:
            self.client.close()


def register() -> None:
    """Make ``"memorywire"`` a vector store provider of mem0 (done on import)."""
    VectorStoreFactory.provider_to_class[PROVIDER] = f"{__name__}.MemorywireVectorStore"
    # VectorStoreConfig imports mem0.configs.vector_stores.<provider> and takes its config class.
    VectorStoreConfig.__private_attributes__["_provider_configs"].default[PROVIDER] = "MemorywireConfig"
    sys.modules.setdefault(f"mem0.configs.vector_stores.{PROVIDER}", sys.modules[__name__])


register()
