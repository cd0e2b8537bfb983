"""The storage interface of the service: what the operations, search and
watch ask of a store, in terms of records, tenants, the change log and
consumer offsets, with no query language crossing it.

A store implements :class:`Storage`; its read snapshots implement
:class:`Reads`, and its write transactions :class:`Transaction` (which
reads as well, inside the transaction). :class:`~memorywire.service.store.Store`
is the embedded SQLite store; another store (a server database) implements
the same protocols.

Which records a read concerns is a :class:`Selection`: a scope, statuses,
kinds and a thread, as data. The store gives records, candidates and the
statistics of full-text ranking (how many records hold a word, the length
of each text, the occurrences of each word in it); ranking itself (BM25,
exact vectors, fusion) is done above the interface, in
:mod:`memorywire.service.search` and :mod:`memorywire.service.vectors`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from memorywire.service import records as r

if TYPE_CHECKING:
    from memorywire.service.budget import Budget
    from memorywire.service.errors import ServiceError
    from memorywire.service.texts import TextIndex, TextIndexes
    from memorywire.service.vectors import Index, Indexes

__all__ = ["CHANGE_NAMES", "CREATED", "DELETED", "UPDATED", "Change", "Reads", "Row",
           "Selection", "Storage", "TenantState", "TextAnalyzer", "TextMatch",
           "Transaction"]

#: Change types, with the numbers of memorywire.v1.ChangeType.
CREATED, UPDATED, DELETED = 1, 2, 3
CHANGE_NAMES = {CREATED: "created", UPDATED: "updated", DELETED: "deleted"}


@dataclass
class TenantState:
    """A tenant as a write transaction sees it: its number, its name, the
    last sequence of its records, the last position of its change log, and
    the position through which its changes are no longer kept."""

    num: int
    name: str
    last_sequence: int
    last_position: int
    pruned_through: int
    dirty: bool = False


@dataclass
class Row:
    """A stored record: its row and its canonical JSON form."""

    rid: int
    id: str
    seq: int
    rev: int
    status: str
    key: str | None
    ns: str
    pos: int
    doc: dict[str, Any]


@dataclass(frozen=True)
class Selection:
    """Which records of a tenant a read concerns: those within a scope (each
    scope field that is set, and the namespace or one below it), of the
    given statuses (None: any) and none of ``not_statuses``, of the given
    kinds (None: any), and of a thread of History (operations.md section 8):
    ``"all"``, ``"user"`` (the turns no agent addressed to another) or
    ``"between"`` the two ``agents``. Equal selections select the same
    records, so that a store may key what it keeps of them."""

    fields: tuple[tuple[str, str], ...] = ()
    namespace: str | None = None
    statuses: tuple[str, ...] | None = None
    not_statuses: tuple[str, ...] = ()
    kinds: tuple[str, ...] | None = None
    thread: str = "all"
    agents: tuple[str, str] | None = None

    @classmethod
    def of(cls, scope: Mapping[str, Any] | None, **conditions: Any) -> Selection:
        """The selection of the records within a request scope, and the
        other ``conditions`` (fields of Selection)."""
        fields: tuple[tuple[str, str], ...] = ()
        namespace = None
        if scope:
            fields = tuple((name, scope[name]) for name in r.SCOPE_FIELDS if scope.get(name))
            if scope.get("namespace"):
                namespace = r.namespace_key(scope["namespace"])
        return cls(fields, namespace, **conditions)

    @property
    def scoped(self) -> bool:
        """Whether the scope narrows the records."""
        return bool(self.fields) or self.namespace is not None


#: A change of the log: its position, its type and the record as it left it.
Change = tuple[int, int, dict[str, Any]]
#: A record that holds a word of a full-text query: its rid, its sequence,
#: its length in tokens, then the occurrences of each word of the query in
#: it (0 for a word it does not hold).
TextMatch = tuple[int, ...]
#: A word of a full-text query, with the terms the index reads in it.
QueryWord = tuple[str, tuple[str, ...]]


class TextAnalyzer(Protocol):
    """The tokenizer of the store's full-text index."""

    def prepare(self, texts: Iterable[str]) -> None:
        """Analyse texts that are about to be stored, at once."""

    def word(self, word: str) -> tuple[str, ...]:
        """The terms of the tokens of one word of a query, in order."""


class Reads(Protocol):
    """The reads of one snapshot of a store. Tenants are named by number
    (``Storage.tenant_num``)."""

    def row(self, rid: int) -> Row | None:
        """The record of a rid."""

    def records_by_ids(self, tenant: int, ids: Sequence[str]) -> list[Row]:
        """The records of a tenant that have these identifiers, in no order."""

    def records(self, tenant: int, selection: Selection, *, after: int | None = None,
                descending: bool = False, limit: int | None = None) -> Iterator[Row]:
        """The selected records of a tenant in sequence order (descending:
        the reverse), those after the sequence ``after`` (before it, when
        descending), at most ``limit``."""

    def sequences(self, tenant: int, selection: Selection,
                  rids: Iterable[int] | None = None) -> dict[int, int]:
        """rid -> sequence of the selected records (among ``rids``)."""

    def rows_among(self, tenant: int, selection: Selection, rids: Iterable[int]) -> list[Row]:
        """The selected records among some rids, in no order."""

    def text_stats(self, tenant: int, selection: Selection) -> tuple[int, int]:
        """The number of selected records that have text, and the sum of
        their lengths in tokens."""

    def term_counts(self, tenant: int, selection: Selection, words: Sequence[str]) -> list[int]:
        """The number of selected records whose text holds each word."""

    def text_matches(self, tenant: int, selection: Selection, query: Sequence[QueryWord],
                     any_of: Sequence[str]) -> list[TextMatch]:
        """The selected records whose text holds any of the words ``any_of``,
        each with the occurrences in it of every word of ``query`` (see
        ``TextMatch``): those of its term, or for a word of several terms
        (a phrase), 1 when the text holds the phrase."""

    def phrase_matches(self, tenant: int, word: str) -> list[int]:
        """The rids of a tenant's records whose text holds a word of
        several terms, as a phrase."""

    def text_index(self, tenant: int) -> TextIndex:
        """The in-memory postings of a tenant, loaded when they are not
        (in a read that keeps writes out)."""

    def embedding_count(self, tenant: int, model: str, dims: int) -> int:
        """The number of a tenant's embeddings of a model and dimensions."""

    def embedded(self, tenant: int, model: str, dims: int) -> list[int]:
        """The rids of a tenant's records with an embedding of a model and
        dimensions."""

    def vector_index(self, tenant: int, model: str, dims: int) -> Index:
        """The in-memory vector index of a tenant's embeddings of a model
        and dimensions, loaded when it is not (in a read that keeps writes
        out)."""

    def offset(self, tenant: int, consumer: str) -> int | None:
        """The position a consumer committed, if any."""

    def changes_after(self, tenant: int, position: int, limit: int) -> list[Change]:
        """The changes of a tenant's log after a position, in order, at most
        ``limit``."""


class Transaction(Reads, Protocol):
    """One write transaction, which commits when its block ends without an
    exception (and ``abandon`` is false) and rolls back otherwise."""

    #: Set to roll back at the end of the block without an exception.
    abandon: bool
    #: When the transaction began, in seconds since the epoch.
    at: float

    def tenant(self, name: str, *, create: bool = True) -> TenantState | None:
        """The state of a tenant, created when it has none (unless not
        ``create``)."""

    def find(self, t: TenantState, record_id: str) -> Row | None:
        """A record by identifier."""

    def prefetch(self, t: TenantState, ids: Sequence[str]) -> None:
        """A hint: the records of these identifiers are about to be found
        (``find``), so that a store whose reads cross a network may read
        them at once."""

    def find_key(self, t: TenantState, namespace: Any, key: str) -> Row | None:
        """The record that holds a key in a namespace."""

    def create(self, t: TenantState, doc: dict[str, Any]) -> Row:
        """Store a new record: it gets the next sequence and revision 1."""

    def replace(self, t: TenantState, row: Row, doc: dict[str, Any]) -> Row:
        """Store a new version of a record."""

    def touch(self, row: Row, doc: dict[str, Any]) -> None:
        """Store access fields: no revision, no change event."""

    def remove(self, t: TenantState, row: Row) -> None:
        """Remove a record and everything derived from it."""

    def change(self, t: TenantState, kind: int, doc: Mapping[str, Any], rid: int | None) -> int:
        """Append a change to the tenant's log; return its position."""

    def redact_changes(self, t: TenantState, record_id: str, before: int, when: str) -> None:
        """Strip the content of a record's changes before a position."""

    def erase(self, t: TenantState, rows: Sequence[Row]) -> tuple[int, int]:
        """Remove records for good with every trace the store keeps of
        them (operations.md section 19): the records and their indexes,
        their changes, the reviews of them, and the recorded responses of
        the operations that name them (each kept as an empty response, so
        that a replay is recognised and refused); the tenant's position
        advances by one, with no change at it. How many changes and
        recorded responses were removed."""

    def recorded(self, t: TenantState, operation_id: str) -> tuple[str, bytes, bytes] | None:
        """The method, request digest and response recorded under an
        operation identifier."""

    def record(self, t: TenantState, operation_id: str, method: str, digest: bytes,
               response: bytes) -> None:
        """Record the response of a mutating operation."""

    def review(self, t: TenantState, record_id: str, revision: int, decision: str, reviewer: str,
               reason: str, operation_id: str, at: str) -> None:
        """Keep a decision of Review."""

    def commit_offset(self, t: TenantState, consumer: str, position: int, cursor: str) -> None:
        """Store a consumer's committed offset."""


@runtime_checkable
class Storage(Protocol):
    """A memory store."""

    @property
    def name(self) -> str:
        """Where the store is, for logs and messages (never a password)."""

    @property
    def secret(self) -> bytes:
        """The secret of the store's cursors."""

    @property
    def closed(self) -> bool:
        """Whether the store is closed."""

    @property
    def changed(self) -> threading.Condition:
        """Notified when a write that changed a tenant's log commits, and at
        close."""

    @property
    def positions(self) -> Mapping[int, int]:
        """The last committed position of each tenant's log, by number."""

    @property
    def pruned(self) -> Mapping[int, int]:
        """The position through which each tenant's changes are no longer kept."""

    @property
    def analyzer(self) -> TextAnalyzer:
        """The tokenizer of the full-text index."""

    @property
    def vector_exact_threshold(self) -> int:
        """Below this many candidates a vector search compares every one exactly."""

    @property
    def ann_threshold(self) -> int | None:
        """Above this many embeddings in a group, a vector search may use the
        approximate index; None: never."""

    @property
    def text_index_threshold(self) -> int:
        """Above this many records with text, hybrid search ranks text on
        the in-memory postings."""

    @property
    def texts(self) -> TextIndexes:
        """The in-memory postings of the tenants."""

    @property
    def vectors(self) -> Indexes:
        """The in-memory vector indexes."""

    @property
    def indexes(self) -> Budget:
        """The memory budget of the in-memory indexes."""

    def tenant_num(self, name: str) -> int | None:
        """The number of a tenant that has written anything, or None."""

    def reader(self, *, locked: bool = False) -> AbstractContextManager[Reads]:
        """A read snapshot; ``locked`` also keeps writes out, for reads that
        use the in-memory indexes."""

    def write(self) -> AbstractContextManager[Transaction]:
        """A write transaction."""

    def scan(self, tenant: int, selection: Selection) -> Iterator[Row]:
        """The selected records of a tenant in sequence order, from one
        snapshot, however many (Export)."""

    def warm(self, stop: Callable[[], bool] = ...) -> tuple[int, int]:
        """Load the in-memory indexes of the largest groups ahead of their
        first search, until ``stop`` says so; how many vector and text
        indexes."""

    def scrub(self) -> None:
        """After an erasure has committed (or failed): make what it removed
        unreadable in the store's files too, as far as the store's policy
        goes (operations.md section 19)."""

    def failure(self, e: BaseException) -> ServiceError | None:
        """The error a call answers with when the store failed under it for
        a reason of its own state (unreachable, full, read-only, ...), not
        of the call: UNAVAILABLE with a time to retry after, or DATA_LOSS;
        None for another fault."""

    def close(self) -> None:
        """Close the store."""

