"""What the two stores share, beneath the storage interface: the SQLite store
(:mod:`memorywire.service.store`) and the PostgreSQL store
(:mod:`memorywire.service.postgres`) keep the same tables and the same
bookkeeping, and differ in their SQL, their connections and their locking.

Here: the state every store keeps alike, and its readers-writer lock; the
state of a write transaction; the rid of a record (its tenant's number times 2**32 plus its
sequence); the bookkeeping of a created record, a new version and a change;
the embeddings an index takes of a document; a change's redacted document;
the caches of full-text statistics; the walk from a
:class:`~memorywire.service.storage.Selection` to SQL conditions, with the
fragments that differ given by each store; the loading of the largest
indexes ahead of their first search; the retention of housekeeping, and
the count of writes that runs it.
"""

from __future__ import annotations

import re
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from memorywire.service import records as r
from memorywire.service import texts, vectors
from memorywire.service.budget import Budget
from memorywire.service.errors import error
from memorywire.service.storage import Row, Selection, Storage, TenantState

__all__ = ["SEQUENCE_BITS", "Housekeeping", "RWLock", "StoreState", "WriteState", "cached_counts", "cached_stats",
           "conditions", "created_row", "embedding_rows", "indexed_embeddings", "naming", "next_position",
           "next_record",
           "redacted_change", "replaced_row", "retention_cutoffs", "rid_of", "rid_range", "warm"]

#: The bits of a rid below the tenant's number: those of the sequence.
SEQUENCE_BITS = 32
#: How many writes of a store go between two runs of its housekeeping.
MAINTAIN_EVERY = 500

#: SQL and parameters of one condition.
Condition = tuple[str, list[Any]]


def rid_of(num: int, sequence: int) -> int:
    """The rid of a tenant's record of a sequence."""
    return (num << SEQUENCE_BITS) + sequence


def rid_range(num: int) -> tuple[int, int]:
    """The first and the last rid of the records of a tenant."""
    return num << SEQUENCE_BITS, ((num + 1) << SEQUENCE_BITS) - 1


# -- the bookkeeping of writes ------------------------------------------------------


class WriteState:
    """What a write transaction of either store keeps besides its
    connection: the tenants it read or wrote, by name, those whose log it
    appended to, whether to roll back at the end of the block without an
    exception (``abandon``), and its time."""

    def __init__(self) -> None:
        self.tenants: dict[str, TenantState] = {}
        self.changed_tenants: set[int] = set()
        #: Set to roll back at the end of the block without an exception.
        self.abandon = False
        self.at = time.time()


def next_record(t: TenantState, doc: dict[str, Any]) -> int:
    """Give a new record the tenant's next sequence and revision 1 (in
    ``doc``); return its rid."""
    if t.last_sequence + 1 >= 1 << SEQUENCE_BITS:
        raise error("TOO_MANY_ITEMS", f"a tenant holds fewer than 2^{SEQUENCE_BITS} records "
                    "in its life")
    t.last_sequence += 1
    t.dirty = True
    doc["sequence"] = t.last_sequence
    doc["revision"] = 1
    return rid_of(t.num, t.last_sequence)


def _namespace(doc: Mapping[str, Any]) -> str:
    return r.namespace_key(doc.get("scope", {}).get("namespace"))


def created_row(rid: int, doc: dict[str, Any]) -> Row:
    """The row of a record ``next_record`` numbered, before its change."""
    return Row(rid, doc["id"], doc["sequence"], 1, r.status(doc), doc.get("key") or None, _namespace(doc), 0, doc)


def replaced_row(row: Row, doc: dict[str, Any]) -> Row:
    """The row of a new version of a record."""
    return Row(row.rid, doc["id"], row.seq, doc["revision"], r.status(doc), doc.get("key") or None,
               _namespace(doc), row.pos, doc)


def next_position(t: TenantState) -> int:
    """The position of a change appended to the tenant's log."""
    t.last_position += 1
    t.dirty = True
    return t.last_position


def indexed_embeddings(doc: Mapping[str, Any]) -> list[tuple[str, int, bytes, float]]:
    """The embeddings of a document a vector index holds: (model,
    dimensions, binary32 bytes, norm), but for zero vectors, which are never
    compared (operations.md section 9.2)."""
    return [(model, dims, raw, norm) for model, dims, _, raw, norm in embedding_rows(doc)]


def embedding_rows(doc: Mapping[str, Any]) -> list[tuple[str, int, int, bytes, float]]:
    """``indexed_embeddings`` with where the bytes of each are among those
    of all the document's embeddings (``records.pack_split``): (model,
    dimensions, byte offset, binary32 bytes, norm). The norm is the one
    ``vectors.raw_of`` gives, computed from the bytes (``vectors.norm_of``)
    unless the values are a ``records.Vector`` measured already."""
    out = []
    off = 0
    for e in doc.get("embeddings", ()):
        values = e["values"]
        if type(values) is r.Vector:
            raw, norm = values.raw, values.norm
        else:
            raw, norm = r.raw_values(values), None
        if norm is None:
            norm = vectors.norm_of(raw)
        if norm > 0.0:
            out.append((e["model"], int(e["dimensions"]) if "dimensions" in e else len(values), off, raw, norm))
        off += len(raw)
    return out


def redacted_change(data: bytes, when: str) -> bytes:
    """The stored document of an earlier change of a record deleted for
    good: its minimal tombstone, without the content."""
    old = r.unpack(data)
    return r.pack(r.minimal_tombstone(old, int(old.get("revision", 1)), when))


# -- reads -----------------------------------------------------------------------------


def conditions(selection: Selection, prefix: str, mark: str,
               namespace: Callable[[str, str, str], Condition],
               among: Callable[[str, Sequence[str], bool], Condition]) -> Condition:
    """SQL conditions (joined with AND, starting with AND) selecting the
    records of a selection, on the records table named by ``prefix``, with
    ``mark`` for a parameter. What the SQL of the stores spells apart comes
    from them: ``namespace(column, key, head)``, a namespace or one below
    it (whose keys start with ``head``); ``among(column, values, negated)``,
    a column's value among some, or not."""
    sql: list[str] = []
    params: list[Any] = []
    for name, value in selection.fields:
        sql.append(f"{prefix}s_{name} = {mark}")
        params.append(value)
    if selection.namespace is not None:
        key = selection.namespace
        found, args = namespace(f"{prefix}ns", key, key[:-1] + ",")
        sql.append(found)
        params += args
    if selection.thread == "user":
        sql.append(f"{prefix}r_caller = ''")
    elif selection.thread == "between":
        assert selection.agents is not None
        a, b = selection.agents
        sql.append(f"(({prefix}r_agent = {mark} AND {prefix}r_caller = {mark}) OR "
                   f"({prefix}r_agent = {mark} AND {prefix}r_caller = {mark}))")
        params += [a, b, b, a]
    for column, values, negated in (("kind", selection.kinds, False),
                                    ("status", selection.statuses, False),
                                    ("status", selection.not_statuses or None, True)):
        if values is not None:
            found, args = among(f"{prefix}{column}", list(values), negated)
            sql.append(found)
            params += args
    return "".join(" AND " + s for s in sql), params


def cached_stats(cache: dict[tuple[Any, ...], tuple[int, int]], key: tuple[Any, ...],
                 compute: Callable[[], tuple[int, int]]) -> tuple[int, int]:
    """Full-text statistics of a collection, from ``cache`` by ``key`` (the
    tenant, its position and the selection) or computed and kept."""
    found = cache.get(key)
    if found is None:
        found = compute()
        if len(cache) >= 1024:
            cache.clear()
        cache[key] = found
    return found


def cached_counts(cache: dict[tuple[Any, ...], int], prefix: tuple[Hashable, ...], words: Sequence[str],
                  count: Callable[[list[str]], Iterable[int]]) -> list[int]:
    """How many records hold each word, from ``cache`` by ``prefix`` (the
    tenant, its position and the selection) and word, or counted
    (``count``, for the words the cache does not hold) and kept."""
    keys = [(*prefix, word) for word in words]
    known = {key: cache.get(key) for key in keys}
    missing = [word for word, key in zip(words, keys, strict=True) if known[key] is None]
    if missing:
        counts = list(count(missing))
        if len(cache) + len(missing) > 4096:
            cache.clear()
        for word, n in zip(missing, counts, strict=True):
            key = (*prefix, word)
            known[key] = cache[key] = int(n)
    return [int(known[key] or 0) for key in keys]


# -- the store ----------------------------------------------------------------------------


def warm(store: Storage, groups: Iterable[Sequence[Any]], tenants: Iterable[Sequence[Any]],
         stop: Callable[[], bool]) -> tuple[int, int]:
    """Load the vector indexes of ``groups`` (tenant, model, dimensions),
    with their approximate indexes above the store's ann_threshold, then
    the text indexes of ``tenants``, in their order, while they fit in
    the budget and until ``stop`` says so; return how many of each."""
    loaded = [0, 0]
    limit = store.indexes.limit

    def room() -> bool:
        return not stop() and (limit is None or store.indexes.total() < limit)

    for tenant, model, dims, *_ in groups:
        if not room():
            break
        with store.reader(locked=True) as reads:
            index = reads.vector_index(tenant, model, dims)
            if store.ann_threshold is not None and len(index) > store.ann_threshold:
                index.ann_ready()  # the approximate index too, where search will use it
        loaded[0] += 1
    for (tenant, *_) in tenants:
        if not room():
            break
        with store.reader(locked=True) as reads:
            reads.text_index(tenant)
        loaded[1] += 1
    return loaded[0], loaded[1]


def retention_cutoffs(now: float, operation_retention_seconds: float,
                      change_retention_seconds: float) -> tuple[float, float]:
    """The times before which housekeeping forgets idempotency records, and
    changes."""
    return now - operation_retention_seconds, now - change_retention_seconds


class Housekeeping:
    """What follows a committed write: ``changed`` is notified when it
    changed a tenant's log, and every ``MAINTAIN_EVERY`` writes ``maintain``
    runs; a failure of the database there (``failure``) is let be, since
    the write committed and housekeeping runs again later."""

    def __init__(self, changed: threading.Condition, maintain: Callable[[], None],
                 failure: type[Exception]) -> None:
        self._changed = changed
        self._maintain = maintain
        self._failure = failure
        self._writes = 0

    def wake(self) -> None:
        with self._changed:
            self._changed.notify_all()

    def committed(self, changed: bool) -> None:
        if changed:
            self.wake()
        self._writes += 1
        if self._writes % MAINTAIN_EVERY == 0:
            try:
                self._maintain()
            except self._failure:
                pass


class RWLock:
    """A readers-writer lock, fair both ways: a waiting writer goes before
    readers that come after it, and the readers waiting when a writer
    leaves go before the next writer, so that neither side starves under a
    steady stream of the other."""

    def __init__(self) -> None:
        self._cond = threading.Condition(threading.Lock())
        self._readers = 0
        self._writer = False
        self._waiting = 0  # writers waiting
        self._readers_waiting = 0
        self._admitted = 0  # readers let in ahead of the waiting writers

    @contextmanager
    def shared(self) -> Iterator[None]:
        with self._cond:
            self._readers_waiting += 1
            while self._writer or (self._waiting and not self._admitted):
                self._cond.wait()
            self._readers_waiting -= 1
            if self._admitted:
                self._admitted -= 1
            self._readers += 1
        try:
            yield
        finally:
            with self._cond:
                self._readers -= 1
                if not self._readers:
                    self._cond.notify_all()

    @contextmanager
    def exclusive(self) -> Iterator[None]:
        with self._cond:
            self._waiting += 1
            while self._writer or self._readers or self._admitted:
                self._cond.wait()
            self._waiting -= 1
            self._writer = True
        try:
            yield
        finally:
            with self._cond:
                self._writer = False
                self._admitted = self._readers_waiting
                self._cond.notify_all()


class StoreState(ABC):
    """What each store keeps alike: its retention and thresholds, the
    readers-writer lock of its in-memory indexes, the condition that wakes
    watchers, the caches of full-text statistics, the numbers of its
    tenants, its in-memory indexes within their budget, and its
    housekeeping (``failure``: the error of its database that housekeeping
    after a write lets be)."""

    def __init__(self, *, change_retention_seconds: float, operation_retention_seconds: float,
                 vector_exact_threshold: int, text_index_threshold: int, index_memory_bytes: int | None,
                 failure: type[Exception], ann_threshold: int | None = vectors.ANN_THRESHOLD) -> None:
        self.change_retention_seconds = change_retention_seconds
        self.operation_retention_seconds = operation_retention_seconds
        #: Below this many candidates a vector search compares every one
        #: exactly instead of going through the in-memory index.
        self.vector_exact_threshold = vector_exact_threshold
        #: Above this many embeddings in a group, a vector search may use
        #: the approximate index (search.py says when); None: never.
        self.ann_threshold = ann_threshold
        #: Above this many records with text in a collection, text rankings
        #: are computed on in-memory postings.
        self.text_index_threshold = text_index_threshold
        self.lock = RWLock()
        self.changed = threading.Condition()
        self.closed = False
        #: Full-text statistics of collections, by tenant, change position and scope.
        self.text_stats: dict[tuple[Any, ...], tuple[int, int]] = {}
        #: The number of records that hold a word, by tenant, change position, scope and word.
        self.term_counts: dict[tuple[Any, ...], int] = {}
        self._tenant_nums: dict[str, int] = {}
        #: The in-memory search indexes, within index_memory_bytes.
        self.indexes = Budget(index_memory_bytes)
        self.vectors = vectors.Indexes(self.indexes)
        self.texts = texts.TextIndexes(self.indexes)
        self._housekeeping = Housekeeping(self.changed, self.maintain, failure)

    @abstractmethod
    def maintain(self) -> None:
        """Forget what is past its retention (each store's own)."""

    def _closing(self) -> None:
        """Mark the store closed, and wake those who wait on ``changed``."""
        with self.changed:
            self.closed = True
            self.changed.notify_all()


# -- erasure -------------------------------------------------------------------------------


def naming(ids: Sequence[str]) -> Callable[[bytes], bool]:
    """Whether a recorded response names any of some record identifiers:
    holds the UTF-8 bytes of one (a Protobuf string is its UTF-8 bytes), so
    that an erasure forgets every response that may carry what it erases,
    and perhaps a few more."""
    if not ids:
        return lambda data: False
    pattern = re.compile(b"|".join(re.escape(x.encode()) for x in sorted(set(ids), key=len, reverse=True)))
    return lambda data: pattern.search(data) is not None
