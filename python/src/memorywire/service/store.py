"""The embedded store: one SQLite file in WAL mode (or an in-memory database),
its schema, and the transactions every operation runs in. ``Store``
implements the storage interface (:mod:`memorywire.service.storage`): its
read snapshots are ``Reader``, its write transactions ``WriteTx``, and the
SQL of every read and write is here, behind their methods. What it shares
with the PostgreSQL store (its state and lock, the numbering of records,
the bookkeeping of writes, the walk from a selection to conditions, the
caches of full-text statistics, warming and housekeeping) is in
:mod:`memorywire.service.stores_common`.

Every mutating operation runs in one write transaction (``Store.write``):
the store's single writer connection, ``BEGIN IMMEDIATE`` ... ``COMMIT``, under
the exclusive side of a readers-writer lock, so that the in-memory vector
indexes change together with the tables. The file is in WAL mode with
``synchronous=FULL`` (the default): a commit appends the transaction to the
write-ahead log and syncs it to the disk before it returns, so that a
transaction that has committed survives the loss of the process and of the
machine; a batched Put is one transaction, and so one sync, whatever its
number of items. ``synchronous=NORMAL`` syncs the log at checkpoints only: a
commit survives the loss of the process, and the loss of the machine may
take the last ones back. Checkpoints, which copy the log into the file and
sync the file, run on a thread of their own (``Checkpointer``), beside the
writes, rather than in the commit that fills the log. Reads run on per-thread connections, each in its own snapshot.
One store object at a time holds a file: a second one, in this process or
another, is refused (``Store._own``); replicas run on PostgreSQL.

The ``rid`` of a record is its tenant's number times 2**32 plus its
sequence: the records of a tenant have a range of rids of their own, in
sequence order.

What a record takes is kept once. Its document is its canonical JSON form
without the values of its embeddings (``records.doc``), which are one run of
binary32 bytes beside it (``records.vecs``, ``records.pack_split``); the
vector index reads an embedding as a slice of them (``embeddings.off``). A
change of the log holds no document while it is the latest change of its
record: it reads the record's. It gets a copy of its own when the record
moves on (``WriteTx._keep_change``), so that the log costs a few bytes a
change beyond the versions a record has left behind.

Full text: one FTS5 table, ``texts``, serves every tenant. It has a row for
each record with text (operations.md section 9.1), whose rowid is the
record's ``rid``; it keeps no copy of the text, which the record's document
holds, and a text leaves it by the text it was indexed with. A search reads the tenant's range of rowids, which FTS5
seeks to in each list of postings, so that its cost does not grow with the
other tenants, and a new tenant costs one row of ``tenants`` whatever the
number of tenants. For ranking, each record keeps the number of tokens of
its text (``words``) and its terms with their counts (``terms``), as the
index's own tokenizer finds them (``Analyzer``). The index ``records_search``
holds what a search reads of a record besides its document, so that it reads
no document it does not return.
"""

from __future__ import annotations

import errno
import fcntl
import os
import sqlite3
import threading
import time
import weakref
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from memorywire import _compiled
from memorywire.service import records as r
from memorywire.service import texts, vectors
from memorywire.service.errors import ServiceError, error
from memorywire.service.storage import (
    CHANGE_NAMES,
    CREATED,
    DELETED,
    UPDATED,
    Change,
    QueryWord,
    Reads,
    Row,
    Selection,
    Storage,
    TenantState,
    TextMatch,
    Transaction,
)
from memorywire.service.stores_common import (
    SEQUENCE_BITS,
    RWLock,
    StoreState,
    WriteState,
    cached_counts,
    cached_stats,
    conditions,
    embedding_rows,
    naming,
    next_position,
    next_record,
    replaced_row,
    retention_cutoffs,
    rid_of,
    rid_range,
)
from memorywire.service.stores_common import warm as warm_indexes

__all__ = ["CHANGE_NAMES", "CREATED", "DELETED", "UPDATED", "Analyzer", "Checkpointer", "RWLock", "Reader", "Row",
           "Store", "TenantState", "WriteTx", "rid_range", "storage_error", "store_columns", "term_key",
           "text_query"]

SCHEMA_VERSION = "5"
#: The page size of a new store file: the row of a record with a
#: 384-dimension embedding takes about 2 KB, half a page of 4 KB, so that a
#: little more text leaves each such page holding one row and half empty;
#: a page of 16 KB holds eight, with about 1% of it empty.
PAGE_SIZE = 16384
#: The size of the write-ahead log past which a checkpoint copies it into the
#: file: 1000 pages, SQLite's own threshold (which it counts in frames of the
#: log) at this page size. The log file is cut back to what it holds each
#: time the log restarts from its beginning (``journal_size_limit`` 0), so
#: that its size measures the log written since.
CHECKPOINT_BYTES = 1000 * PAGE_SIZE
#: The size of the log past which the writer checkpoints it itself, after a
#: commit, for when the checkpoints of ``Checkpointer`` fall behind the writes.
CHECKPOINT_LIMIT_BYTES = 8 * CHECKPOINT_BYTES
#: The memory the in-memory search indexes may take together: 2 GiB.
DEFAULT_INDEX_MEMORY = 2 << 30
#: The tokenizer of the full-text index: Unicode words, case folded, without
#: diacritics, Porter-stemmed.
TOKENIZER = "porter unicode61 remove_diacritics 2"

#: The embeddings of the vector index: where their binary32 bytes are in the
#: record's ``vecs`` (a byte offset), and their norm; keyed by their group
#: (tenant, model, dimensions), which an index loads in rid order, and their
#: record, so that the table is its own index.
_EMBEDDINGS = """CREATE TABLE IF NOT EXISTS embeddings (
    rid INTEGER NOT NULL,
    tenant INTEGER NOT NULL,
    model TEXT NOT NULL,
    dims INTEGER NOT NULL,
    off INTEGER NOT NULL,
    norm REAL NOT NULL,
    PRIMARY KEY (tenant, model, dims, rid, off)
) WITHOUT ROWID"""
#: The embeddings table of schema version 4, with an index by record and
#: one by group beside it.
_EMBEDDINGS_4 = """CREATE TABLE embeddings (
    rid INTEGER NOT NULL,
    tenant INTEGER NOT NULL,
    model TEXT NOT NULL,
    dims INTEGER NOT NULL,
    off INTEGER NOT NULL,
    norm REAL NOT NULL
)"""
#: The embeddings table of schema versions 2 and 3, which held a copy of the
#: binary32 bytes.
_EMBEDDINGS_2 = """CREATE TABLE embeddings (
    rid INTEGER NOT NULL,
    tenant INTEGER NOT NULL,
    model TEXT NOT NULL,
    dims INTEGER NOT NULL,
    raw BLOB NOT NULL,
    norm REAL NOT NULL
)"""
#: The change log. A change whose ``doc`` is NULL is the latest change of its
#: record, which holds the document as the change left it (``records.doc``
#: and ``records.vecs``): the log keeps no second copy of a record. A change
#: gets its own copy when the record moves on (a new version, an access
#: that Get or Search counts, a deletion for good).
_CHANGES = """CREATE TABLE IF NOT EXISTS changes (
    tenant INTEGER NOT NULL,
    pos INTEGER NOT NULL,
    type INTEGER NOT NULL,
    rid INTEGER NOT NULL,
    at REAL NOT NULL,
    doc BLOB,
    vecs BLOB,
    PRIMARY KEY (tenant, pos)
) WITHOUT ROWID"""

#: The full-text index: contentless, since the text of a record is in its
#: document, and without the lengths of texts, which ``records.words`` holds.
#: A text leaves it by the 'delete' command, with the text it was indexed with.
_TEXTS = f"body, content = '', columnsize = 0, tokenize = '{TOKENIZER}'"

#: The changes of a record that hold a document of their own, by record: a
#: change without one is its record's latest, at ``records.pos``.
_CHANGES_RID = "CREATE INDEX IF NOT EXISTS changes_rid ON changes (rid) WHERE doc IS NOT NULL"

_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS tenants (
    num INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    last_sequence INTEGER NOT NULL DEFAULT 0,
    last_position INTEGER NOT NULL DEFAULT 0,
    pruned_through INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS records (
    rid INTEGER PRIMARY KEY,
    tenant INTEGER NOT NULL,
    id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    rev INTEGER NOT NULL,
    kind TEXT NOT NULL,
    status TEXT NOT NULL,
    key TEXT,
    ns TEXT NOT NULL,
    s_user TEXT NOT NULL, s_agent TEXT NOT NULL, s_session TEXT NOT NULL,
    s_run TEXT NOT NULL, s_task TEXT NOT NULL, s_project TEXT NOT NULL,
    r_agent TEXT NOT NULL, r_caller TEXT NOT NULL,
    pos INTEGER NOT NULL,
    words INTEGER NOT NULL,
    terms TEXT,
    doc BLOB NOT NULL,
    vecs BLOB
);
CREATE UNIQUE INDEX IF NOT EXISTS records_id ON records (tenant, id);
CREATE UNIQUE INDEX IF NOT EXISTS records_key ON records (tenant, ns, key) WHERE key IS NOT NULL;
CREATE INDEX IF NOT EXISTS records_search ON records (
    rid, status, seq, words, s_user, s_agent, s_session, s_run, s_task, s_project, ns, terms);
CREATE VIRTUAL TABLE IF NOT EXISTS texts USING fts5 ({_TEXTS});
{_EMBEDDINGS};
{_CHANGES};
CREATE TABLE IF NOT EXISTS operations (
    tenant INTEGER NOT NULL,
    operation_id TEXT NOT NULL,
    method TEXT NOT NULL,
    digest BLOB NOT NULL,
    response BLOB NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (tenant, operation_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS operations_at ON operations (at);
CREATE TABLE IF NOT EXISTS offsets (
    tenant INTEGER NOT NULL,
    consumer TEXT NOT NULL,
    pos INTEGER NOT NULL,
    cursor TEXT NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (tenant, consumer)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS reviews (
    tenant INTEGER NOT NULL,
    record_id TEXT NOT NULL,
    revision INTEGER NOT NULL,
    decision TEXT NOT NULL,
    reviewer TEXT NOT NULL,
    reason TEXT NOT NULL,
    operation_id TEXT NOT NULL,
    at TEXT NOT NULL
);
"""

ROW_COLUMNS = "rid, id, seq, rev, status, key, ns, pos, doc, vecs"


def term_key(term: str) -> str:
    """What precedes the count of a term in ``records.terms``."""
    return f"\t{term}:"


def text_query(words: Iterable[str]) -> str:
    """The FTS5 query of the texts that contain any of some words, each
    quoted, so that the text is never read as query syntax."""
    return " OR ".join('"' + w.replace('"', '""') + '"' for w in words)


#: The primary result codes of SQLite that name a state of the store.
_SQLITE_BUSY, _SQLITE_LOCKED, _SQLITE_READONLY, _SQLITE_IOERR = 5, 6, 8, 10
_SQLITE_CORRUPT, _SQLITE_FULL, _SQLITE_CANTOPEN, _SQLITE_NOTADB = 11, 13, 14, 26
#: The primary codes by the words of their messages, for Python versions
#: whose sqlite3 does not give the code.
_SQLITE_MESSAGES = (("disk is full", _SQLITE_FULL), ("readonly database", _SQLITE_READONLY),
                    ("disk i/o error", _SQLITE_IOERR), ("database is locked", _SQLITE_BUSY),
                    ("unable to open database file", _SQLITE_CANTOPEN),
                    ("malformed", _SQLITE_CORRUPT), ("not a database", _SQLITE_NOTADB))
#: How long a caller waits before it retries a write the store refused.
STORE_RETRY_MILLIS = 5000


def _sqlite_code(e: sqlite3.Error) -> int | None:
    code = getattr(e, "sqlite_errorcode", None)
    if isinstance(code, int):
        return code & 0xFF
    text = str(e).lower()
    return next((c for words, c in _SQLITE_MESSAGES if words in text), None)


def storage_error(e: BaseException, path: str) -> ServiceError | None:
    """The error a call answers with when the store failed under it for a
    reason of its own state, not of the call: UNAVAILABLE, to retry, for a
    store that is full, read-only, locked by another process or failing to
    read or write its file; DATA_LOSS for a corrupt store. None for another
    fault."""
    if not isinstance(e, sqlite3.Error):
        return None
    code = _sqlite_code(e)
    if code == _SQLITE_FULL:
        found = error("UNAVAILABLE", f"the store {path} is full: the disk has no room for this write, "
                      "which did not take effect; reads are served, and writes succeed again once "
                      "there is room")
    elif code == _SQLITE_READONLY:
        found = error("UNAVAILABLE", f"the store {path} is read-only: the service cannot write it (its "
                      "file, its directory or its file system is not writable); this write did not "
                      "take effect, and reads are served")
    elif code in (_SQLITE_BUSY, _SQLITE_LOCKED):
        found = error("UNAVAILABLE", f"the store {path} is locked by another process; the call did "
                      "not take effect")
    elif code in (_SQLITE_IOERR, _SQLITE_CANTOPEN):
        found = error("UNAVAILABLE", f"the store {path} cannot be read or written now ({e}); the call "
                      "did not take effect")
    elif code in (_SQLITE_CORRUPT, _SQLITE_NOTADB):
        return error("DATA_LOSS", f"the store {path} is damaged ({e})")
    else:
        return None
    found.retry_after_millis = STORE_RETRY_MILLIS
    return found


def _check_writable(path: str) -> None:
    """ValueError naming the problem when the service could not write the
    store file ``path``: it would fail every write, so it does not start."""
    file = os.path.abspath(path)
    directory = os.path.dirname(file)
    if os.path.isdir(file):
        raise ValueError(f"the store {path} is a directory; give the path of a SQLite file")
    if not os.path.isdir(directory):
        raise ValueError(f"the directory of the store {path} does not exist: {directory}")
    if os.path.exists(file):
        if not os.access(file, os.R_OK):
            raise ValueError(f"the store {path} is not readable by this process")
        if not os.access(file, os.W_OK):
            raise ValueError(f"the store {path} is read-only: this process cannot write it "
                             f"({_why_not_writable(file)}); the service writes its store, so make "
                             "it writable or give another --store")
    # SQLite keeps its write-ahead log beside the file, and creates it.
    beside = [file + "-wal", file + "-shm"]
    if not all(os.path.exists(x) and os.access(x, os.W_OK) for x in beside) and \
            not os.access(directory, os.W_OK | os.X_OK):
        raise ValueError(f"the store {path} is in a directory this process cannot write ({directory}, "
                         f"{_why_not_writable(directory)}): SQLite creates its write-ahead log "
                         f"({os.path.basename(file)}-wal and -shm) beside the file")


def _why_not_writable(path: str) -> str:
    try:
        fs = os.statvfs(path)
    except OSError as e:
        return e.strerror or str(e)
    if fs.f_flag & os.ST_RDONLY:
        return "its file system is mounted read-only"
    return os.strerror(errno.EACCES).lower()


class Analyzer:
    """The tokens of texts as the full-text index reads them: the index's
    tokenizer, run on an in-memory FTS5 table of the analyzer's own, so that
    token counts and terms are exactly those of the index.

    ``prepare`` analyses the texts of a batch at once, ahead of the write
    that stores them, for ``columns`` (and ``offsets``) to find. An analyzer
    made with ``offsets`` false serves ``columns`` only, and keeps no tokens
    of texts (the SQLite store, which reads no offsets): the tokenizer reads
    whitespace as a separator, so that the tokens of a text are those of
    its whitespace-separated chunks in turn; ``columns`` counts the terms
    of each chunk, which the index's tokenizer finds once for each chunk it
    has not met (``_chunk_terms``) and the analyzer remembers."""

    #: The most characters of prepared texts, query words, and chunks, remembered.
    _MEMO_CHARS = 1 << 23
    _MEMO_WORDS = 8192
    _MEMO_CHUNKS = 1 << 17
    _BATCH = 1000
    #: The longest chunk of ASCII digits taken as its own term without the
    #: tokenizer: a run of digits is one token, which neither folding nor
    #: the Porter stemmer (whose rules end in letters) changes.
    _DIGITS = 64

    def __init__(self, *, offsets: bool = True) -> None:
        #: Whether ``prepare`` keeps the tokens of texts, for ``offsets``.
        self._keep_tokens = offsets
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        self._conn.execute("PRAGMA journal_mode = OFF")
        self._conn.execute(f"CREATE VIRTUAL TABLE scratch USING fts5 (x, content = '', "
                           f"tokenize = '{TOKENIZER}')")
        self._conn.execute("CREATE VIRTUAL TABLE scratch_tokens USING fts5vocab (scratch, 'instance')")
        self._memo_lock = threading.Lock()
        self._texts: dict[str, str] = {}
        self._columns: dict[str, tuple[int, str | None]] = {}
        self._texts_chars = 0
        self._words: dict[str, tuple[str, ...]] = {}
        #: The terms of the tokens of chunks of text without whitespace, in order.
        self._chunks: dict[str, tuple[str, ...]] = {}

    def _terms(self, texts: list[str]) -> list[str]:
        """The terms of the tokens of each text, in order, between tabs (a
        term holds no tab)."""
        out: list[list[str]] = [[] for _ in texts]
        for doc, term, offset in self._scratch(texts, 'SELECT doc, term, "offset" FROM scratch_tokens'):
            tokens = out[doc - 1]
            if offset >= len(tokens):
                tokens.extend([""] * (offset + 1 - len(tokens)))
            tokens[offset] = term
        return ["\t".join(tokens) for tokens in out]

    def _scratch(self, texts: list[str], query: str) -> Iterator[tuple[Any, ...]]:
        """The rows of ``query`` over the scratch index holding the texts,
        numbered from 1, in batches of ``_BATCH`` in one transaction."""
        with self._lock:
            conn = self._conn
            conn.execute("BEGIN")
            try:
                for start in range(0, len(texts), self._BATCH):
                    conn.executemany("INSERT INTO scratch (rowid, x) VALUES (?, ?)",
                                     enumerate(texts[start:start + self._BATCH], start + 1))
                    yield from conn.execute(query).fetchall()
                    conn.execute("INSERT INTO scratch (scratch) VALUES ('delete-all')")
            finally:
                conn.execute("COMMIT")

    def _chunk_terms(self, chunks: Iterable[str]) -> dict[str, tuple[str, ...]]:
        """The terms of the tokens of each chunk (text without whitespace),
        in order: remembered, or found by the tokenizer, all at once."""
        memo = self._chunks
        found: dict[str, tuple[str, ...]] = {}
        todo: list[str] = []
        digits = self._DIGITS
        for chunk in set(chunks):
            terms = memo.get(chunk)
            if terms is not None:
                found[chunk] = terms
            elif len(chunk) <= digits and chunk.isdigit() and chunk.isascii():
                found[chunk] = (chunk,)
            else:
                found[chunk] = ()
                todo.append(chunk)
        if todo:
            analysed = [tuple(t for t in tokens.split("\t") if t) for tokens in self._terms(todo)]
            with self._memo_lock:
                if len(memo) + len(todo) > self._MEMO_CHUNKS:
                    memo.clear()
                for chunk, terms in zip(todo, analysed, strict=True):
                    found[chunk] = memo[chunk] = terms
        return found

    def _columns_of(self, texts: list[str]) -> list[tuple[int, str | None]]:
        """``columns`` of each text, from the terms of its chunks."""
        split = [text.split() for text in texts]
        if _compiled.term_columns is not None:
            # Where every chunk is remembered or digits (most batches of
            # a store that has seen their words), at once from the memo.
            found = _compiled.term_columns(split, self._chunks, self._DIGITS)
            if found is not None:
                return found
        terms_of = self._chunk_terms(chain.from_iterable(split))
        if _compiled.term_columns is not None:
            found = _compiled.term_columns(split, terms_of, self._DIGITS)
            if found is not None:
                return found
        out: list[tuple[int, str | None]] = []
        for chunks in split:
            terms = [term for chunk in chunks for term in terms_of[chunk]]
            if not terms:
                out.append((0, None))
                continue
            distinct = sorted(set(terms))
            if len(distinct) == len(terms):
                out.append((len(terms), "\t" + ":1\t".join(distinct) + ":1\t"))
            else:
                counts = Counter(terms)
                out.append((len(terms), "".join([f"\t{t}:{counts[t]}" for t in distinct]) + "\t"))
        return out

    def _tokens(self, text: str) -> tuple[str, ...]:
        """The terms of the tokens of a text, in order."""
        with self._lock:
            conn = self._conn
            conn.execute("BEGIN")
            try:
                conn.execute("INSERT INTO scratch (rowid, x) VALUES (1, ?)", (text,))
                tokens = tuple(t for (t,) in conn.execute(
                    'SELECT term FROM scratch_tokens ORDER BY "offset"'))
                conn.execute("INSERT INTO scratch (scratch) VALUES ('delete-all')")
            finally:
                conn.execute("COMMIT")
        return tokens

    @staticmethod
    def offsets_of(tokens: str) -> dict[str, list[int]]:
        """The terms of tokens (as ``_terms`` gives them), each with the
        offsets of its tokens, in the order the index lists terms."""
        out: dict[str, list[int]] = {}
        if tokens:
            for offset, term in enumerate(tokens.split("\t")):
                if not term:
                    continue  # no token at this offset
                found = out.get(term)
                if found is None:
                    out[term] = [offset]
                else:
                    found.append(offset)
        return {term: out[term] for term in sorted(out)}

    @staticmethod
    def columns_of(terms: Mapping[str, list[int]]) -> tuple[int, str | None]:
        """``records.words`` and ``records.terms`` of the terms of a text
        with the offsets of their tokens (``offsets``)."""
        if not terms:
            return 0, None
        return sum(map(len, terms.values())), "".join(f"\t{t}:{len(n)}" for t, n in terms.items()) + "\t"

    def prepare(self, texts: Iterable[str]) -> None:
        """Analyse texts that are about to be stored, at once."""
        memo: dict[str, Any] = self._texts if self._keep_tokens else self._columns
        todo = list(dict.fromkeys(t for t in texts if t and t not in memo))
        if not todo:
            return
        found: list[Any] = self._terms(todo) if self._keep_tokens else self._columns_of(todo)
        chars = sum(map(len, todo))
        with self._memo_lock:
            if self._texts_chars + chars > self._MEMO_CHARS:
                memo.clear()
                self._texts_chars = 0
            for text, analysed in zip(todo, found, strict=True):
                if text not in memo:
                    memo[text] = analysed
                    self._texts_chars += len(text)

    def _tokens_of(self, text: str) -> str:
        """The terms of the tokens of a text (as ``_terms`` gives them),
        taken from the texts ``prepare`` analysed when it is one of them."""
        with self._memo_lock:
            found = self._texts.pop(text, None)
            if found is not None:
                self._texts_chars -= len(text)
        return found if found is not None else self._terms([text])[0]

    def offsets(self, text: str) -> dict[str, list[int]]:
        """The terms of a text, each with the offsets of its tokens (their
        positions among the text's tokens, from 0), as the index reads them;
        taken from the texts ``prepare`` analysed when it is one of them."""
        if not text:
            return {}
        return self.offsets_of(self._tokens_of(text))

    def columns(self, text: str) -> tuple[int, str | None]:
        """``records.words`` and ``records.terms`` of a text: its number of
        tokens, and each of its terms with its count, as ``term:count``
        between tabs (``term_key`` finds one), or None when there are none.
        A term holds no tab and no colon: the tokenizer reads both as
        separators. The same as ``columns_of(offsets(text))``, counted
        without the offsets."""
        if not text:
            return 0, None
        with self._memo_lock:
            found = self._columns.pop(text, None)
            if found is not None:
                self._texts_chars -= len(text)
        if found is not None:
            return found
        if not self._keep_tokens:
            return self._columns_of([text])[0]
        counts = Counter(self._tokens_of(text).split("\t"))
        counts.pop("", None)  # no token at an offset
        if not counts:
            return 0, None
        return sum(counts.values()), "".join(f"\t{t}:{n}" for t, n in sorted(counts.items())) + "\t"

    def word(self, word: str) -> tuple[str, ...]:
        """The terms of the tokens of one word of a query, in order: usually
        one; none for a word the index reads no token in; several, repeats
        included, for a word it splits, which matches as a phrase."""
        found = self._words.get(word)
        if found is None:
            found = self._tokens(word) if word else ()
            with self._memo_lock:
                if len(self._words) >= self._MEMO_WORDS:
                    self._words.clear()
                self._words[word] = found
        return found

    def close(self) -> None:
        with self._lock:
            self._conn.close()


def row_of(values: tuple[Any, ...]) -> Row:
    """The row of the columns ``ROW_COLUMNS``; without ``vecs``, of a
    document in the single stored form (``records.pack``)."""
    rid, id_, seq, rev, status, key, ns, pos, doc, *vecs = values
    return Row(rid, id_, seq, rev, status, key, ns, pos, r.unpack_split(doc, vecs[0] if vecs else None))


def store_columns(doc: Mapping[str, Any]) -> tuple[Any, ...]:
    """The columns of ``records`` from kind to r_caller, of a document."""
    scope = doc.get("scope", {})
    routing = doc.get("routing", {})
    namespace = scope.get("namespace")
    return (
        doc["kind"], r.status(doc), doc.get("key") or None, r.namespace_key(namespace) if namespace else "[]",
        scope.get("user", ""), scope.get("agent", ""), scope.get("session", ""),
        scope.get("run", ""), scope.get("task", ""), scope.get("project", ""),
        routing.get("agent", ""), routing.get("caller_agent", ""),
    )


def record_row(doc: Mapping[str, Any], rid: int, tenant: int, seq: int, pos: int, words: int,
               terms: str | None) -> tuple[tuple[Any, ...], list[tuple[Any, ...]], list[Any]]:
    """The row of ``records`` of a new record as ``WriteTx._RECORDS`` binds
    it (its document and vectors as bytearrays, which sqlite3 binds without
    looking for an adapter; an absent key and terms as ""), the rows of
    ``embeddings`` and the entries of the vector indexes
    (``_embedding_entries``). Compiled where it can be: the same rows."""
    if _compiled.record_row is not None:
        made = _compiled.record_row(doc, rid, tenant, seq, pos, words, terms, r.Vector, orjson.dumps,
                                    r.dumps_counted, r.namespace_key)
        if made is not None:
            return made
    data, vecs = r.pack_split(doc)
    columns = store_columns(doc)
    row = (rid, tenant, doc["id"], seq, columns[0], columns[1], columns[2] or "", *columns[3:], pos, words,
           terms or "", bytearray(data), None if vecs is None else bytearray(vecs))
    table, indexed = _embedding_entries(rid, tenant, doc)
    return row, table, indexed


def _namespace(column: str, key: str, head: str) -> tuple[str, list[Any]]:
    return f"({column} = ? OR substr({column}, 1, ?) = ?)", [key, len(head), head]


def _among(column: str, values: Sequence[str], negated: bool) -> tuple[str, list[Any]]:
    return f"{column} {'NOT IN' if negated else 'IN'} ({','.join('?' * len(values))})", list(values)


def _where(selection: Selection, prefix: str = "") -> tuple[str, list[Any]]:
    """SQL conditions (joined with AND, starting with AND) selecting the
    records of a selection, on the records table named by ``prefix``."""
    return conditions(selection, prefix, "?", _namespace, _among)


#: The texts of a tenant's range of rids (two parameters, after the query's)
#: that hold words (the query, first parameter), with their records.
def _matches(where_r: str) -> str:
    return ("FROM texts f CROSS JOIN records r INDEXED BY records_search ON r.rid = f.rowid "
            f"WHERE texts MATCH ? AND f.rowid BETWEEN ? AND ?{where_r}")


class _Queued:
    """The connection of a write transaction, which first stores the rows
    the transaction queued (``WriteTx.store_queued``), so that every
    statement sees them. It holds the transaction weakly: a reference
    cycle would keep what the transaction held (the bytes of every
    embedding it wrote) until the garbage collector ran."""

    def __init__(self, conn: sqlite3.Connection, tx: WriteTx) -> None:
        self._conn = conn
        self._tx = weakref.ref(tx)

    def _store_queued(self) -> None:
        tx = self._tx()
        if tx is not None:
            tx.store_queued()

    def execute(self, sql: str, params: Sequence[Any] = ()) -> sqlite3.Cursor:
        self._store_queued()
        return self._conn.execute(sql, params)

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> sqlite3.Cursor:
        self._store_queued()
        return self._conn.executemany(sql, rows)


class _Reads:
    """The reads of :class:`~memorywire.service.storage.Reads` on a connection."""

    store: Store
    conn: sqlite3.Connection | _Queued

    def row(self, rid: int) -> Row | None:
        found = self.conn.execute(f"SELECT {ROW_COLUMNS} FROM records WHERE rid = ?", (rid,)).fetchone()
        return None if found is None else row_of(found)

    def records_by_ids(self, tenant: int, ids: Sequence[str]) -> list[Row]:
        out = []
        for start in range(0, len(ids), 500):
            chunk = ids[start:start + 500]
            marks = ",".join("?" * len(chunk))
            out += [row_of(x) for x in self.conn.execute(
                f"SELECT {ROW_COLUMNS} FROM records WHERE tenant = ? AND id IN ({marks})",
                (tenant, *chunk))]
        return out

    def records(self, tenant: int, selection: Selection, *, after: int | None = None,
                descending: bool = False, limit: int | None = None) -> Iterator[Row]:
        # A tenant's rids are in sequence order.
        where, params = _where(selection)
        lo, hi = rid_range(tenant)
        if after is not None:
            if descending:
                hi = min(hi, rid_of(tenant, after) - 1)
            else:
                lo = max(lo, rid_of(tenant, after) + 1)
        sql = f"SELECT {ROW_COLUMNS} FROM records WHERE rid BETWEEN ? AND ?{where} ORDER BY rid"
        if descending:
            sql += " DESC"
        if limit is not None:
            sql += " LIMIT ?"
            params.append(limit)
        return (row_of(x) for x in self.conn.execute(sql, (lo, hi, *params)))

    def sequences(self, tenant: int, selection: Selection,
                  rids: Iterable[int] | None = None) -> dict[int, int]:
        if rids is not None:
            return dict(self._among_rids("rid, seq", tenant, selection, rids))
        where, params = _where(selection)
        return dict(self.conn.execute(f"SELECT rid, seq FROM records WHERE rid BETWEEN ? AND ?{where}",
                                      (*rid_range(tenant), *params)).fetchall())

    def rows_among(self, tenant: int, selection: Selection, rids: Iterable[int]) -> list[Row]:
        return [row_of(x) for x in self._among_rids(ROW_COLUMNS, tenant, selection, rids)]

    def _among_rids(self, columns: str, tenant: int, selection: Selection,
                    rids: Iterable[int]) -> Iterator[Any]:
        """The columns of the records among ``rids`` that the selection
        holds, in chunks of rids the statement can bind."""
        where, params = _where(selection)
        for chunk in _chunks(rids):
            marks = ",".join("?" * len(chunk))
            # "+tenant": the rids are looked up by key; an index on the
            # tenant would have SQLite read every record of the tenant.
            yield from self.conn.execute(
                f"SELECT {columns} FROM records WHERE +tenant = ? AND rid IN ({marks}){where}",
                (tenant, *chunk, *params))

    def _position(self, tenant: int) -> int:
        return int(self.conn.execute("SELECT last_position FROM tenants WHERE num = ?",
                                     (tenant,)).fetchone()[0])

    def text_stats(self, tenant: int, selection: Selection) -> tuple[int, int]:
        """Kept until the tenant changes."""
        def compute() -> tuple[int, int]:
            where, params = _where(selection)
            n, words = self.conn.execute(
                "SELECT count(*), total(words) FROM records INDEXED BY records_search "
                f"WHERE rid BETWEEN ? AND ? AND words > 0{where}",
                (*rid_range(tenant), *params)).fetchone()
            return int(n), int(words)

        return cached_stats(self.store.text_stats, (tenant, self._position(tenant), selection), compute)

    def term_counts(self, tenant: int, selection: Selection, words: Sequence[str]) -> list[int]:
        """Kept until the tenant changes."""
        def count(missing: list[str]) -> tuple[int, ...]:
            where_r, params = _where(selection, "r.")
            lo, hi = rid_range(tenant)
            return tuple(self.conn.execute(
                "SELECT " + ", ".join(f"(SELECT count(*) {_matches(where_r)})" for _ in missing),
                [x for word in missing for x in (text_query([word]), lo, hi, *params)]).fetchone())

        return cached_counts(self.store.term_counts, (tenant, self._position(tenant), selection), words, count)

    def text_matches(self, tenant: int, selection: Selection, query: Sequence[QueryWord],
                     any_of: Sequence[str]) -> list[TextMatch]:
        """A record's ``terms`` tell which terms it holds, and how often."""
        where_r, params = _where(selection, "r.")
        tfs: list[str] = []
        tf_params: list[Any] = []
        for word, word_terms in query:
            if len(word_terms) == 1:
                key = term_key(word_terms[0])
                tfs.append("coalesce(CAST(substr(r.terms, nullif(instr(r.terms, ?), 0) + ?, 20) "
                           "AS INTEGER), 0)")
                tf_params += [key, len(key)]
            else:
                tfs.append("coalesce((SELECT 1 FROM texts WHERE texts MATCH ? AND rowid = f.rowid), 0)")
                tf_params.append(text_query([word]))
        lo, hi = rid_range(tenant)
        return self.conn.execute(f"SELECT f.rowid, r.seq, r.words, {', '.join(tfs)} {_matches(where_r)}",
                                 [*tf_params, text_query(any_of), lo, hi, *params]).fetchall()

    def phrase_matches(self, tenant: int, word: str) -> list[int]:
        return [rid for (rid,) in self.conn.execute(
            "SELECT rowid FROM texts WHERE texts MATCH ? AND rowid BETWEEN ? AND ?",
            (text_query([word]), *rid_range(tenant)))]

    def text_index(self, tenant: int) -> texts.TextIndex:
        return self.store.texts.get(tenant, lambda: _text_rows(self.conn, tenant))

    def embedding_count(self, tenant: int, model: str, dims: int) -> int:
        return int(self.conn.execute(
            "SELECT count(*) FROM embeddings WHERE tenant = ? AND model = ? AND dims = ?",
            (tenant, model, dims)).fetchone()[0])

    def embedded(self, tenant: int, model: str, dims: int) -> list[int]:
        return [x[0] for x in self.conn.execute(
            "SELECT DISTINCT rid FROM embeddings WHERE tenant = ? AND model = ? AND dims = ?",
            (tenant, model, dims))]

    def vector_index(self, tenant: int, model: str, dims: int) -> vectors.Index:
        return self.store.vectors.get(tenant, model, dims, lambda: _vector_rows(self.conn, tenant, model, dims),
                                      self.store.positions.get(tenant, 0))

    def offset(self, tenant: int, consumer: str) -> int | None:
        row = self.conn.execute("SELECT pos FROM offsets WHERE tenant = ? AND consumer = ?",
                                (tenant, consumer)).fetchone()
        return None if row is None else int(row[0])

    def changes_after(self, tenant: int, position: int, limit: int) -> list[Change]:
        """A change without a document of its own reads its record's."""
        return [(pos, kind, r.unpack_split(doc, vecs)) for pos, kind, doc, vecs in self.conn.execute(
            "SELECT c.pos, c.type, coalesce(c.doc, r.doc), iif(c.doc IS NULL, r.vecs, c.vecs) "
            "FROM changes c LEFT JOIN records r ON c.doc IS NULL AND r.rid = c.rid "
            "WHERE c.tenant = ? AND c.pos > ? ORDER BY c.pos LIMIT ?",
            (tenant, position, limit)).fetchall()]


def _text_rows(conn: sqlite3.Connection | _Queued, tenant: int) -> Iterator[list[texts.TextRow]]:
    """The rows of a tenant's text index, in batches."""
    cur = conn.execute("SELECT rid, seq, status, words, terms FROM records "
                       "WHERE rid BETWEEN ? AND ? AND words > 0 ORDER BY rid", rid_range(tenant))
    while rows := cur.fetchmany(8192):
        yield rows


def _text_rows_among(conn: sqlite3.Connection, rids: list[int]) -> list[texts.TextRow]:
    """The rows of a text index of the records among some rids."""
    return conn.execute("SELECT rid, seq, status, words, terms FROM records WHERE rid IN "
                        f"({','.join('?' * len(rids))})", rids).fetchall()


def _vector_rows(conn: sqlite3.Connection | _Queued, tenant: int, model: str,
                 dims: int) -> Iterator[list[vectors.VectorRow]]:
    """The embeddings of a vector index, in batches, in rid order."""
    cur = conn.execute("SELECT e.rid, r.status, r.seq, substr(r.vecs, e.off + 1, 4 * e.dims), e.norm "
                       "FROM embeddings e JOIN records r ON r.rid = e.rid "
                       "WHERE e.tenant = ? AND e.model = ? AND e.dims = ? ORDER BY e.rid",
                       (tenant, model, dims))
    while rows := cur.fetchmany(vectors.BLOCK):
        yield rows


def _embedding_entries(rid: int, tenant: int, doc: Mapping[str, Any]
                       ) -> tuple[list[tuple[int, int, str, int, int, float]], list[Any]]:
    """The rows of the embeddings table of a record's embeddings
    (``embedding_rows``), and their entries in the vector indexes (model,
    dimensions, binary32 bytes, norm)."""
    table, indexed = [], []
    for model, dims, off, raw, norm in embedding_rows(doc):
        table.append((rid, tenant, model, dims, off, norm))
        indexed.append((model, dims, raw, norm))
    return table, indexed


def _chunks(rids: Iterable[int]) -> Iterator[list[int]]:
    ids = list(rids)
    for start in range(0, len(ids), 500):
        yield ids[start:start + 500]


class Reader(_Reads):
    """A read snapshot of a store (``Store.reader``)."""

    def __init__(self, store: Store, conn: sqlite3.Connection) -> None:
        self.store = store
        self.conn = conn


class Checkpointer:
    """Copies the write-ahead log of a file store into the file on a thread
    of its own, once the log has grown past ``threshold`` bytes, so that a
    commit waits for the sync of its own log alone and not for a copy of the
    log and a sync of the file, as it does when SQLite checkpoints in the
    committing call. Its checkpoints are passive: they copy what they can
    without waiting for readers or the writer, and the next one goes on.
    ``lock`` is held around each: a checkpoint that must finish (an
    erasure's, ``Store.scrub``) takes it, so as not to find this one
    running and give up."""

    def __init__(self, path: str, conn: sqlite3.Connection, threshold: int) -> None:
        self._log = path + "-wal"
        self._conn = conn
        self.threshold = threshold
        self.lock = threading.Lock()
        self._wake = threading.Event()
        self._stopping = False
        #: What the last of its checkpoints gave: whether it found the log
        #: busy, the frames in the log and those of them in the file (the
        #: result of ``PRAGMA wal_checkpoint``); None before the first.
        self.last: tuple[int, int, int] | None = None
        self._thread = threading.Thread(target=self._run, name="memorywire-checkpoint", daemon=True)
        self._thread.start()

    def log_bytes(self) -> int:
        """The size of the write-ahead log; 0 where there is none."""
        try:
            return os.stat(self._log).st_size
        except OSError:
            return 0

    def committed(self) -> None:
        """A transaction has committed: checkpoint, once the log is past the threshold."""
        self._wake.set()

    def _run(self) -> None:
        while True:
            self._wake.wait()
            self._wake.clear()
            if self._stopping:
                return
            if self.log_bytes() < self.threshold:
                continue
            try:
                with self.lock:
                    self.last = self._conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
            except sqlite3.Error:
                continue  # the store is closing, or another checkpoint runs: the next one copies it

    def stop(self) -> None:
        """Stop the thread, after the checkpoint it runs, if any."""
        self._stopping = True
        self._wake.set()
        self._thread.join()


class Store(StoreState):
    """A memory store on SQLite. ``path`` is a file name, or ``":memory:"``
    for a store that lives as long as the object."""

    def __init__(self, path: str = ":memory:", *, synchronous: str = "FULL",
                 change_retention_seconds: float = 7 * 86400,
                 operation_retention_seconds: float = 2 * 86400,
                 vector_exact_threshold: int = 1024, text_index_threshold: int = 2000,
                 index_memory_bytes: int | None = DEFAULT_INDEX_MEMORY,
                 ann_threshold: int | None = vectors.ANN_THRESHOLD) -> None:
        super().__init__(change_retention_seconds=change_retention_seconds,
                         operation_retention_seconds=operation_retention_seconds,
                         vector_exact_threshold=vector_exact_threshold, text_index_threshold=text_index_threshold,
                         index_memory_bytes=index_memory_bytes, failure=sqlite3.Error,
                         ann_threshold=ann_threshold)
        self.path = path
        self.memory = path == ":memory:" or path == ""
        if not self.memory:
            # The approximate vector indexes are saved beside the file.
            self.vectors.folder = Path(path).with_name(Path(path).name + ".ann")
        self.synchronous = synchronous
        self.analyzer = Analyzer(offsets=False)
        self._local = threading.local()
        self._connections: list[sqlite3.Connection] = []
        self._connections_lock = threading.Lock()
        self._owner: int | None = None
        if not self.memory:
            _check_writable(path)
        try:
            self._writer = self._connect()
            self._writer.executescript(_SCHEMA)
        except sqlite3.Error as e:
            found = storage_error(e, path)
            raise ValueError(found.message if found is not None else f"cannot open the store {path}: {e}") \
                from None
        if not self.memory:
            self._owner = self._own(path)
        self.positions: dict[int, int] = {}
        self.pruned: dict[int, int] = {}
        with self._writer:
            self._writer.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)", (SCHEMA_VERSION,))
            self._writer.execute("INSERT OR IGNORE INTO meta VALUES ('secret', ?)", (os.urandom(32),))
        version = self._writer.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()[0]
        if version not in _MIGRATIONS and version != SCHEMA_VERSION:
            self._writer.close()
            if self._owner is not None:
                os.close(self._owner)
            raise ValueError(f"the store {path} has schema version {version}; this version of "
                             f"memorywire reads version {SCHEMA_VERSION} and upgrades versions "
                             f"{', '.join(sorted(_MIGRATIONS))}")
        while version != SCHEMA_VERSION:
            version = self._migrate(version)
        self._writer.execute(_CHANGES_RID)
        self.secret: bytes = self._writer.execute(
            "SELECT value FROM meta WHERE key = 'secret'").fetchone()[0]
        for num, name, pos, pruned in self._writer.execute(
                "SELECT num, name, last_position, pruned_through FROM tenants"):
            self._tenant_nums[name] = num
            self.positions[num] = pos
            self.pruned[num] = pruned
        #: The checkpoints of the log of a file store (None in memory); the
        #: writer makes none of its own below ``checkpoint_limit`` bytes of log.
        self.checkpoints: Checkpointer | None = None
        self.checkpoint_limit = CHECKPOINT_LIMIT_BYTES
        if not self.memory:
            self._writer.execute("PRAGMA wal_autocheckpoint = 0")
            self._writer.execute("PRAGMA journal_size_limit = 0")
            self.checkpoints = Checkpointer(path, self._connect(), CHECKPOINT_BYTES)

    @property
    def name(self) -> str:
        """Where the store is: its file, or :memory:."""
        return self.path

    def failure(self, e: BaseException) -> ServiceError | None:
        """The error a call answers with when the store failed under it for
        a reason of its own state (``storage_error``)."""
        return storage_error(e, self.path)

    def _migrate(self, version: str) -> str:
        """Move the file from ``version`` to the next one, in one transaction."""
        conn = self._writer
        conn.execute("BEGIN IMMEDIATE")
        try:
            version = _MIGRATIONS[version](self, conn)
            conn.execute("UPDATE meta SET value = ? WHERE key = 'schema'", (version,))
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
        return version

    def _migrate_from_1(self, conn: sqlite3.Connection) -> str:
        """Version 1 kept a quantized copy of every embedding as well."""
        conn.execute("ALTER TABLE embeddings RENAME TO embeddings_1")
        conn.execute("DROP INDEX embeddings_rid")
        conn.execute("DROP INDEX embeddings_group")
        conn.execute(_EMBEDDINGS_2)
        conn.execute("INSERT INTO embeddings SELECT rid, tenant, model, dims, raw, norm FROM embeddings_1")
        conn.execute("DROP TABLE embeddings_1")
        conn.execute("CREATE INDEX embeddings_rid ON embeddings (rid)")
        conn.execute("CREATE INDEX embeddings_group ON embeddings (tenant, model, dims)")
        return "2"

    def _migrate_from_2(self, conn: sqlite3.Connection) -> str:
        """Version 2 read no text in custom records: index the strings of
        their values now, as a write of version 3 does."""
        for rid, data in conn.execute("SELECT rid, doc FROM records WHERE kind = 'custom'").fetchall():
            text = r.text_of(r.unpack(data))
            if text:
                conn.execute("UPDATE records SET words = ?, terms = ? WHERE rid = ?",
                             (*self.analyzer.columns(text), rid))
                conn.execute("INSERT INTO texts (rowid, body) VALUES (?, ?)", (rid, text))
        return "3"

    def _migrate_from_3(self, conn: sqlite3.Connection) -> str:
        """Version 3 kept each embedding twice (in the document, as base64,
        and in ``embeddings``) and each change's document in full: keep the
        binary32 bytes once, in ``records.vecs``, and a change's document
        only once its record has moved on."""
        conn.execute("ALTER TABLE records ADD COLUMN vecs BLOB")
        conn.execute("ALTER TABLE changes RENAME TO changes_3")
        conn.execute("DROP INDEX IF EXISTS changes_record")
        conn.execute(_CHANGES)
        conn.execute("CREATE INDEX changes_rid ON changes (rid)")
        for tenant, pos, kind, record_id, at, data in conn.execute(
                "SELECT tenant, pos, type, record_id, at, doc FROM changes_3").fetchall():
            found = conn.execute("SELECT rid FROM records WHERE tenant = ? AND id = ?",
                                 (tenant, record_id)).fetchone()
            conn.execute("INSERT INTO changes VALUES (?, ?, ?, ?, ?, ?, ?)",
                         (tenant, pos, kind, 0 if found is None else found[0], at,
                          *r.pack_split(r.unpack(data))))
        conn.execute("DROP TABLE changes_3")
        conn.execute("DROP INDEX embeddings_rid")
        conn.execute("DROP INDEX embeddings_group")
        conn.execute("DROP TABLE embeddings")
        conn.execute(_EMBEDDINGS_4)
        conn.execute("CREATE INDEX embeddings_rid ON embeddings (rid)")
        conn.execute("CREATE INDEX embeddings_group ON embeddings (tenant, model, dims)")
        for rid, tenant, data in conn.execute("SELECT rid, tenant, doc FROM records").fetchall():
            doc = r.unpack(data)
            conn.execute("UPDATE records SET doc = ?, vecs = ? WHERE rid = ?", (*r.pack_split(doc), rid))
            conn.executemany("INSERT INTO embeddings VALUES (?, ?, ?, ?, ?, ?)",
                             [(rid, tenant, model, dims, off, norm)
                              for model, dims, off, _, norm in embedding_rows(doc)])
        # A change that holds its record's document as it stands leaves it there.
        conn.execute("UPDATE changes SET doc = NULL, vecs = NULL WHERE EXISTS (SELECT 1 FROM records r "
                     "WHERE r.rid = changes.rid AND r.pos = changes.pos AND r.doc = changes.doc "
                     "AND r.vecs IS changes.vecs)")
        return "4"

    def _migrate_from_4(self, conn: sqlite3.Connection) -> str:
        """Version 4 kept an index of records by tenant and sequence, which
        the order of rids is already; the embeddings table with an index by
        record and one by group: it is keyed by group and record now, which
        serves both; an index of every change by record, of which only the
        changes that hold a document of their own need one
        (``_CHANGES_RID``); and in the full-text index a copy of each text
        and its length: it is contentless now (``_TEXTS``)."""
        conn.execute("DROP INDEX IF EXISTS records_seq")
        conn.execute("ALTER TABLE embeddings RENAME TO embeddings_4")
        conn.execute("DROP INDEX IF EXISTS embeddings_rid")
        conn.execute("DROP INDEX IF EXISTS embeddings_group")
        conn.execute(_EMBEDDINGS)
        conn.execute("INSERT INTO embeddings (rid, tenant, model, dims, off, norm) "
                     "SELECT rid, tenant, model, dims, off, norm FROM embeddings_4")
        conn.execute("DROP TABLE embeddings_4")
        conn.execute("DROP INDEX IF EXISTS changes_rid")
        conn.execute(_CHANGES_RID)
        conn.execute(f"CREATE VIRTUAL TABLE texts_5 USING fts5 ({_TEXTS})")
        conn.execute("INSERT INTO texts_5 (rowid, body) SELECT rowid, body FROM texts")
        conn.execute("DROP TABLE texts")
        conn.execute("ALTER TABLE texts_5 RENAME TO texts")
        return "5"

    def _own(self, path: str) -> int:
        """Hold the store file for this object's life, or refuse to open it:
        the in-memory indexes and the positions Watch waits on follow this
        process's own commits only, so a second service on the same file would
        serve searches that miss the first one's writes."""
        # flock is apart from SQLite's own (fcntl) locks, and the kernel
        # releases it when the process ends, however it ends.
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            for conn in self._connections:
                conn.close()
            raise ValueError(f"the store {path} is in use by another memorywire service: a SQLite "
                             "store serves one process; stop the other, or run several replicas on "
                             "one PostgreSQL database (--store postgresql://...)") from None
        return fd

    # -- connections ------------------------------------------------------------

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(":memory:" if self.memory else self.path, isolation_level=None,
                               check_same_thread=False, timeout=30)
        if not self.memory:
            # Only a new file takes it: SQLite keeps the page size of a file.
            conn.execute(f"PRAGMA page_size = {PAGE_SIZE}")
            conn.execute("PRAGMA journal_mode = WAL")
        conn.execute(f"PRAGMA synchronous = {self.synchronous}")
        conn.execute("PRAGMA busy_timeout = 30000")
        with self._connections_lock:
            self._connections.append(conn)
        return conn

    def _reader(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._connect()
            conn.execute("PRAGMA query_only = ON")
            self._local.conn = conn
        return conn

    def close(self) -> None:
        """Close every connection. Waits for the running write to finish."""
        self._closing()
        with self.lock.exclusive():
            if self.checkpoints is not None:
                self.checkpoints.stop()
        with self.lock.exclusive(), self._connections_lock:
            self.vectors.save()
            for conn in self._connections:
                try:
                    conn.close()
                except sqlite3.Error:
                    pass
            self._connections.clear()
            self.analyzer.close()
            if self._owner is not None:
                os.close(self._owner)
                self._owner = None

    # -- transactions --------------------------------------------------------------

    @contextmanager
    def write(self) -> Iterator[WriteTx]:
        """One write transaction: everything in it commits together, or
        nothing does when the block raises."""
        with self.lock.exclusive():
            if self.closed:
                raise sqlite3.ProgrammingError("the store is closed")
            conn = self._writer
            conn.execute("BEGIN IMMEDIATE")
            tx = WriteTx(self, conn)
            try:
                yield tx
                tx.flush()
                if tx.abandon:
                    conn.execute("ROLLBACK")
                    return
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
            self._committed(tx)
            self._checkpoint()
        self._housekeeping.committed(bool(tx.changed_tenants))

    def _checkpoint(self) -> None:
        """After a commit: wake the checkpoints, or, when the log has
        outgrown them, checkpoint it on the writer, which is idle between
        its transactions and so lets the checkpoint copy all of the log."""
        checkpoints = self.checkpoints
        if checkpoints is None:
            return
        if checkpoints.log_bytes() < self.checkpoint_limit:
            checkpoints.committed()
            return
        try:
            self._writer.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
        except sqlite3.Error:
            pass  # the write committed; the next commit checkpoints

    def _committed(self, tx: WriteTx) -> None:
        for t in tx.tenants.values():
            self.positions[t.num] = t.last_position
            self.pruned[t.num] = t.pruned_through
            self._tenant_nums[t.name] = t.num
        # Every write moves the positions the vector indexes reflect.
        self.vectors.apply(tx.touched, {t.num: t.last_position for t in tx.tenants.values()})
        if tx.touched:
            self.texts.apply(lambda rids: _text_rows_among(self._writer, rids),
                             ((t[0], rid) for rid, t in tx.touched.items()))
            self.indexes.trim()

    @contextmanager
    def read(self, *, locked: bool = False) -> Iterator[sqlite3.Connection]:
        """A read transaction: one snapshot of the store. ``locked`` also
        keeps writes out, for reads that use the in-memory indexes."""
        if self.memory:
            with self.lock.exclusive():
                if self.closed:
                    raise sqlite3.ProgrammingError("the store is closed")
                yield from self._read_on(self._writer)
            return
        if locked:
            with self.lock.shared():
                yield from self._read_on(self._reader())
        else:
            yield from self._read_on(self._reader())

    @staticmethod
    def _read_on(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
        conn.execute("BEGIN")
        try:
            yield conn
        finally:
            if conn.in_transaction:
                conn.execute("COMMIT")

    @contextmanager
    def reader(self, *, locked: bool = False) -> Iterator[Reader]:
        """A read transaction, as the reads of the storage interface."""
        with self.read(locked=locked) as conn:
            yield Reader(self, conn)

    def scan(self, tenant: int, selection: Selection) -> Iterator[Row]:
        """The selected records of a tenant in sequence order, from one
        snapshot: read as they are asked for on a connection of its own
        (file stores), or all at once (an in-memory store, whose lock is not
        held while the caller reads them)."""
        if self.memory:
            with self.reader() as reads:
                found = list(reads.records(tenant, selection))
            yield from found
            return
        with self.snapshot() as conn:
            yield from Reader(self, conn).records(tenant, selection)

    @contextmanager
    def snapshot(self) -> Iterator[sqlite3.Connection]:
        """A long read transaction on a connection of its own (file stores);
        an in-memory store reads under its lock instead."""
        if self.memory:
            with self.read() as conn:
                yield conn
            return
        conn = self._connect()
        conn.execute("PRAGMA query_only = ON")
        try:
            conn.execute("BEGIN")
            yield conn
        finally:
            try:
                if conn.in_transaction:
                    conn.execute("COMMIT")
                conn.close()
            except sqlite3.Error:
                pass
            with self._connections_lock:
                if conn in self._connections:
                    self._connections.remove(conn)

    def warm(self, stop: Callable[[], bool] = lambda: False) -> tuple[int, int]:
        """Load the in-memory search indexes of the largest groups ahead of
        their first search, largest first, while they fit in the budget and
        until ``stop`` says so; return how many vector and text indexes."""
        with self.read() as conn:
            groups = conn.execute(
                "SELECT tenant, model, dims, count(*) AS n FROM embeddings GROUP BY tenant, model, dims "
                "HAVING n > ? ORDER BY n DESC", (self.vector_exact_threshold,)).fetchall()
            tenants = conn.execute(
                "SELECT num FROM tenants WHERE (SELECT count(*) FROM records WHERE rid BETWEEN num << ? "
                "AND ((num + 1) << ?) - 1 AND words > 0) > ?",
                (SEQUENCE_BITS, SEQUENCE_BITS, self.text_index_threshold)).fetchall()
        return warm_indexes(self, groups, tenants, stop)

    def tenant_num(self, name: str) -> int | None:
        """The number of a tenant that has written anything, or None."""
        num = self._tenant_nums.get(name)
        if num is None and not self.memory:
            with self.read() as conn:
                row = conn.execute("SELECT num FROM tenants WHERE name = ?", (name,)).fetchone()
            if row is not None:
                num = self._tenant_nums[name] = row[0]
        return num

    def scrub(self) -> None:
        """After an erasure: stop overwriting freed space, and checkpoint
        the write-ahead log into the file and truncate it, so that the
        pages the erasure rewrote replace the old ones in the file and no
        copy of them stays in the log. A reader that holds an older
        snapshot (a running Export) keeps the checkpoint from finishing; it
        is not waited for, and the store's next checkpoint completes it."""
        with self.lock.exclusive():
            if self.closed:
                return
            conn = self._writer
            conn.execute("PRAGMA secure_delete = OFF")
            if not self.memory:
                # After the checkpoint the erasure's commit may have woken,
                # which would leave this one nothing it may copy.
                assert self.checkpoints is not None  # a file store has them
                with self.checkpoints.lock:
                    conn.execute("PRAGMA busy_timeout = 0")
                    try:
                        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
                    finally:
                        conn.execute("PRAGMA busy_timeout = 30000")

    # -- housekeeping --------------------------------------------------------------

    def maintain(self) -> None:
        """Forget idempotency records and changes older than their retention."""
        operations, cutoff = retention_cutoffs(time.time(), self.operation_retention_seconds,
                                               self.change_retention_seconds)
        with self.write() as tx:
            tx.conn.execute("DELETE FROM operations WHERE at < ?", (operations,))
            for num, last in tx.conn.execute(
                    "SELECT tenant, max(pos) FROM changes WHERE at < ? GROUP BY tenant",
                    (cutoff,)).fetchall():
                tx.conn.execute("DELETE FROM changes WHERE tenant = ? AND pos <= ?", (num, last))
                tx.conn.execute("UPDATE tenants SET pruned_through = max(pruned_through, ?) WHERE num = ?",
                                (last, num))
                self.pruned[num] = max(self.pruned.get(num, 0), last)


#: How a store file of each earlier schema version moves to the next one.
_MIGRATIONS: dict[str, Callable[[Store, sqlite3.Connection], str]] = {
    "1": Store._migrate_from_1,
    "2": Store._migrate_from_2,
    "3": Store._migrate_from_3,
    "4": Store._migrate_from_4,
}


class WriteTx(_Reads, WriteState):
    """One write transaction (:class:`~memorywire.service.storage.Transaction`)
    and its state."""

    #: The new records a transaction queues at most before it stores them,
    #: and the bytes of their documents and texts: a large Import keeps no
    #: more than this in memory beyond what its messages hold.
    QUEUE = 1024
    QUEUE_BYTES = 4 << 20
    #: The row of a new record (``create``). Python's sqlite3 binds an int, a
    #: float, a str or a bytearray directly, but looks for an adapter of any
    #: other value (bytes, None), which costs a new record about a
    #: microsecond each: its documents are bound as bytearrays, and an absent
    #: key or terms (never "") as "", which NULLIF makes NULL.
    _RECORDS = ("INSERT INTO records (rid, tenant, id, seq, rev, kind, status, key, ns, s_user, s_agent, "
                "s_session, s_run, s_task, s_project, r_agent, r_caller, pos, words, terms, doc, vecs) "
                "VALUES (?, ?, ?, ?, 1, ?, ?, NULLIF(?, ''), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULLIF(?, ''), ?, ?)")
    #: The places in a row of ``_RECORDS`` of the values ``create`` reads back.
    _STATUS, _KEY, _NS, _DOC, _VECS = 5, 6, 7, 19, 20

    def __init__(self, store: Store, conn: sqlite3.Connection) -> None:
        WriteState.__init__(self)
        self.store = store
        self.conn = _Queued(conn, self)
        self._writer = conn
        #: The rows of new records, their texts, embeddings and changes,
        #: stored together (``store_queued``) before the next statement of
        #: the transaction and before it commits.
        self._queued_records: list[tuple[Any, ...]] = []
        self._queued_bytes = 0
        self._queued_texts: list[tuple[int, str]] = []
        self._queued_embeddings: list[tuple[int, int, str, int, int, float]] = []
        self._queued_changes: list[tuple[int, int, int, int, float]] = []
        #: Records changed in this transaction, for the vector indexes:
        #: rid -> (tenant, status or None when removed, sequence, embeddings
        #: (model, dimensions, binary32 bytes, norm) or None when they did
        #: not change).
        self.touched: dict[int, tuple[int, str | None, int, list[Any] | None]] = {}
        #: The rids of the records removed in this transaction, by tenant and id.
        self.removed: dict[tuple[int, str], int] = {}
        #: The records ``prefetch`` read, as this transaction left them, by
        #: tenant and id (None: there is none).
        self.known: dict[tuple[int, str], Row | None] = {}
        #: The position written in ``records.pos`` ahead of the change that
        #: is to follow, by rid.
        self._next_pos: dict[int, int] = {}

    # -- tenants ------------------------------------------------------------------

    def tenant(self, name: str, *, create: bool = True) -> TenantState | None:
        t = self.tenants.get(name)
        if t is not None:
            return t
        row = self.conn.execute(
            "SELECT num, last_sequence, last_position, pruned_through FROM tenants WHERE name = ?",
            (name,)).fetchone()
        if row is None:
            if not create:
                return None
            num = self.conn.execute("INSERT INTO tenants (name) VALUES (?)", (name,)).lastrowid
            assert num is not None
            row = (num, 0, 0, 0)
        t = TenantState(row[0], name, row[1], row[2], row[3])
        self.tenants[name] = t
        return t

    def store_queued(self) -> None:
        """Store the rows the transaction queued, each table's at once."""
        if not self._queued_records and not self._queued_changes:
            return
        conn = self._writer
        if self._queued_records:
            conn.executemany(self._RECORDS, self._queued_records)
            self._queued_records.clear()
            self._queued_bytes = 0
            # What find knew is in the database now; the documents it held
            # would keep a large Import's records in memory until it commits.
            self.known.clear()
        if self._queued_texts:
            conn.executemany("INSERT INTO texts (rowid, body) VALUES (?, ?)", self._queued_texts)
            self._queued_texts.clear()
        if self._queued_embeddings:
            conn.executemany("INSERT INTO embeddings VALUES (?, ?, ?, ?, ?, ?)", self._queued_embeddings)
            self._queued_embeddings.clear()
        if self._queued_changes:
            conn.executemany("INSERT INTO changes VALUES (?, ?, ?, ?, ?, NULL, NULL)", self._queued_changes)
            self._queued_changes.clear()

    def flush(self) -> None:
        self.store_queued()
        for t in self.tenants.values():
            if t.dirty:
                self.conn.execute(
                    "UPDATE tenants SET last_sequence = ?, last_position = ? WHERE num = ?",
                    (t.last_sequence, t.last_position, t.num))
                t.dirty = False

    # -- records ------------------------------------------------------------------

    def find(self, t: TenantState, record_id: str) -> Row | None:
        key = (t.num, record_id)
        if key in self.known:
            return self.known[key]
        row = self.conn.execute(f"SELECT {ROW_COLUMNS} FROM records WHERE tenant = ? AND id = ?",
                                (t.num, record_id)).fetchone()
        return None if row is None else row_of(row)

    def prefetch(self, t: TenantState, ids: Sequence[str]) -> None:
        """Read the records of a batch at once; ``find`` answers from what
        was read, which the writes of this transaction keep up to date."""
        found = {row.id: row for row in self.records_by_ids(t.num, list(dict.fromkeys(ids)))}
        for record_id in ids:
            self.known[(t.num, record_id)] = found.get(record_id)

    def find_key(self, t: TenantState, namespace: Any, key: str) -> Row | None:
        row = self.conn.execute(
            f"SELECT {ROW_COLUMNS} FROM records WHERE tenant = ? AND ns = ? AND key = ?",
            (t.num, r.namespace_key(namespace), key)).fetchone()
        return None if row is None else row_of(row)

    def create(self, t: TenantState, doc: dict[str, Any]) -> Row:
        """Store a new record: it gets the next sequence and revision 1."""
        rid = next_record(t, doc)
        text = r.text_of(doc)
        if len(self._queued_records) >= self.QUEUE or self._queued_bytes >= self.QUEUE_BYTES:
            self.store_queued()
        num, seq = t.num, t.last_sequence
        words, terms = self.store.analyzer.columns(text)
        row, table, indexed = record_row(doc, rid, num, seq, self._pos_ahead(t, rid), words, terms)
        self._queued_records.append(row)
        self._queued_bytes += len(row[self._DOC]) + len(row[self._VECS] or b"") + 4 * len(text)
        # Its text and embeddings are queued with it.
        if text:
            self._queued_texts.append((rid, text))
        self._queued_embeddings.extend(table)
        status = row[self._STATUS]
        self.touched[rid] = (num, status, seq, indexed)
        # created_row, from the columns.
        created = Row(rid, doc["id"], seq, 1, status, row[self._KEY] or None, row[self._NS], 0, doc)
        self.known[(num, created.id)] = created
        return created

    def _pos_ahead(self, t: TenantState, rid: int) -> int:
        """The position of the change that follows the write of a record
        (``change`` checks it, and corrects ``records.pos`` when another
        came between)."""
        pos = self._next_pos[rid] = t.last_position + 1
        return pos

    def replace(self, t: TenantState, row: Row, doc: dict[str, Any]) -> Row:
        """Store a new version of a record, with its store-maintained fields set."""
        self._keep_change(row.rid)
        old_text, text = r.text_of(row.doc), r.text_of(doc)
        self.conn.execute(
            "UPDATE records SET rev = ?, kind = ?, status = ?, key = ?, ns = ?, s_user = ?, "
            "s_agent = ?, s_session = ?, s_run = ?, s_task = ?, s_project = ?, r_agent = ?, "
            "r_caller = ?, doc = ?, vecs = ?, pos = ? WHERE rid = ?",
            (doc["revision"], *store_columns(doc), *r.pack_split(doc), self._pos_ahead(t, row.rid), row.rid))
        if text != old_text:
            self.conn.execute("UPDATE records SET words = ?, terms = ? WHERE rid = ?",
                              (*self.store.analyzer.columns(text), row.rid))
        self._index(t, row.rid, row.doc, doc, old_text, text)
        new = replaced_row(row, doc)
        self.known[(t.num, new.id)] = new
        if new.id != row.id:
            self.known.pop((t.num, row.id), None)
        return new

    def touch(self, row: Row, doc: dict[str, Any]) -> None:
        """Store access fields: no revision, no change event. The record's
        latest change keeps the document as it was."""
        self._keep_change(row.rid)
        self.conn.execute("UPDATE records SET doc = ?, vecs = ? WHERE rid = ?", (*r.pack_split(doc), row.rid))
        self.known.pop((row.rid >> SEQUENCE_BITS, row.id), None)

    def remove(self, t: TenantState, row: Row) -> None:
        """Remove a record and everything derived from it."""
        self._keep_change(row.rid)
        self.conn.execute("DELETE FROM records WHERE rid = ?", (row.rid,))
        text = r.text_of(row.doc)
        if text:
            self._drop_text(row.rid, text)
        self._drop_embeddings(t, row.rid, row.doc)
        self.touched[row.rid] = (t.num, None, row.seq, None)
        self.removed[(t.num, row.id)] = row.rid
        self.known[(t.num, row.id)] = None

    def _drop_text(self, rid: int, text: str) -> None:
        """Remove a record's text, as it was indexed, from the full-text index."""
        self.conn.execute("INSERT INTO texts (texts, rowid, body) VALUES ('delete', ?, ?)", (rid, text))

    def _drop_embeddings(self, t: TenantState, rid: int, doc: Mapping[str, Any]) -> None:
        """Remove the rows of ``embeddings`` of a record as ``doc`` left
        them: those of each group it has embeddings in."""
        self.conn.executemany("DELETE FROM embeddings WHERE tenant = ? AND model = ? AND dims = ? AND rid = ?",
                              [(t.num, model, dims, rid) for model, dims in
                               dict.fromkeys((m, d) for m, d, _ in r.embedding_values(doc))])

    def _keep_change(self, rid: int) -> None:
        """The record of a rid is about to change or go: its latest change,
        which reads the record's document, gets a copy of its own. That
        change is at the record's ``pos``; after this every change of the
        record holds its document, and ``changes_rid`` finds them."""
        self.conn.execute(
            "UPDATE changes SET (doc, vecs) = (SELECT doc, vecs FROM records WHERE rid = ?) "
            "WHERE tenant = ? AND pos = (SELECT pos FROM records WHERE rid = ?) AND doc IS NULL",
            (rid, rid >> SEQUENCE_BITS, rid))

    def _index(self, t: TenantState, rid: int, old: dict[str, Any],
               new: dict[str, Any], old_text: str, new_text: str) -> None:
        """Keep the full-text and embedding rows of a replaced record in step
        (those of a new one are queued by ``create``)."""
        if old_text != new_text:
            if old_text:
                self._drop_text(rid, old_text)
            if new_text:
                self.conn.execute("INSERT INTO texts (rowid, body) VALUES (?, ?)", (rid, new_text))
        old_emb = old.get("embeddings")
        new_emb = new.get("embeddings")
        indexed: list[Any] | None = None
        if old_emb != new_emb:
            if old_emb:
                self._drop_embeddings(t, rid, old)
            table, indexed = _embedding_entries(rid, t.num, new)
            if table:
                self.conn.executemany("INSERT INTO embeddings VALUES (?, ?, ?, ?, ?, ?)", table)
        prev = self.touched.get(rid)
        if indexed is None and prev is not None and prev[3] is not None:
            indexed = prev[3]
        self.touched[rid] = (t.num, r.status(new), int(new["sequence"]), indexed)

    # -- the change log -------------------------------------------------------------

    def change(self, t: TenantState, kind: int, doc: Mapping[str, Any], rid: int | None) -> int:
        """Append a change to the tenant's change order; return its position.
        A change of a record that is there (``rid``) reads its document from
        the record, which holds ``doc`` now; that of a record removed holds
        ``doc`` itself."""
        pos = next_position(t)
        if rid is None:
            self.conn.execute("INSERT INTO changes VALUES (?, ?, ?, ?, ?, ?, ?)",
                              (t.num, pos, kind, self.removed.get((t.num, doc["id"]), 0), self.at,
                               *r.pack_split(doc)))
        else:
            self._queued_changes.append((t.num, pos, kind, rid, self.at))
            if self._next_pos.pop(rid, None) != pos:
                self.conn.execute("UPDATE records SET pos = ? WHERE rid = ?", (pos, rid))
            known = self.known.get((t.num, doc["id"]))
            if known is not None and known.rid == rid:
                known.pos = pos
        self.changed_tenants.add(t.num)
        return pos

    def redact_changes(self, t: TenantState, record_id: str, before: int, when: str) -> None:
        """After a hard deletion: the earlier changes of the record keep
        their positions but no longer carry its content."""
        rid = self.removed.get((t.num, record_id))
        if rid is None:
            return
        for pos, data, vecs in self.conn.execute(
                "SELECT pos, doc, vecs FROM changes WHERE rid = ? AND doc IS NOT NULL AND pos < ?",
                (rid, before)).fetchall():
            old = r.unpack_split(data, vecs)
            minimal = r.minimal_tombstone(old, int(old.get("revision", 1)), when)
            self.conn.execute("UPDATE changes SET doc = ?, vecs = ? WHERE tenant = ? AND pos = ?",
                              (*r.pack_split(minimal), t.num, pos))

    # -- erasure ------------------------------------------------------------------------

    def erase(self, t: TenantState, rows: Sequence[Row]) -> tuple[int, int]:
        """Remove records with every trace of them (``Transaction.erase``).
        What SQLite frees in this transaction it overwrites with zeros
        (``secure_delete``, on until ``Store.scrub``), and the full-text
        index is merged into one segment, which leaves out the postings of
        removed rows (a delete from FTS5 otherwise only masks them)."""
        self.conn.execute("PRAGMA secure_delete = ON")
        had_text = False
        for row in rows:
            had_text = had_text or bool(r.text_of(row.doc))
            self.remove(t, row)
        ids = [row.id for row in rows]
        changes = 0
        for start in range(0, len(rows), 500):
            chunk = rows[start:start + 500]
            marks = ",".join("?" * len(chunk))
            # every change of a removed record holds its document (_keep_change)
            changes += self.conn.execute(f"DELETE FROM changes WHERE rid IN ({marks}) AND doc IS NOT NULL",
                                         [row.rid for row in chunk]).rowcount
            self.conn.execute(f"DELETE FROM reviews WHERE tenant = ? AND record_id IN ({marks})",
                              (t.num, *(row.id for row in chunk)))
        names = naming(ids)
        forgotten = [(t.num, op) for op, response in self.conn.execute(
            "SELECT operation_id, response FROM operations WHERE tenant = ?", (t.num,))
            if response and names(response)]
        self.conn.executemany("UPDATE operations SET response = X'' WHERE tenant = ? AND operation_id = ?",
                              forgotten)
        if had_text:
            self.conn.execute("INSERT INTO texts (texts) VALUES ('optimize')")
        next_position(t)
        self.changed_tenants.add(t.num)
        return changes, len(forgotten)

    # -- idempotency --------------------------------------------------------------------

    def recorded(self, t: TenantState, operation_id: str) -> tuple[str, bytes, bytes] | None:
        row = self.conn.execute(
            "SELECT method, digest, response FROM operations WHERE tenant = ? AND operation_id = ?",
            (t.num, operation_id)).fetchone()
        return None if row is None else (row[0], row[1], row[2])

    def record(self, t: TenantState, operation_id: str, method: str, digest: bytes,
               response: bytes) -> None:
        self.conn.execute("INSERT INTO operations VALUES (?, ?, ?, ?, ?, ?)",
                          (t.num, operation_id, method, digest, response, self.at))

    # -- reviews and offsets ------------------------------------------------------------

    def review(self, t: TenantState, record_id: str, revision: int, decision: str, reviewer: str,
               reason: str, operation_id: str, at: str) -> None:
        self.conn.execute("INSERT INTO reviews VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                          (t.num, record_id, revision, decision, reviewer, reason, operation_id, at))

    def commit_offset(self, t: TenantState, consumer: str, position: int, cursor: str) -> None:
        self.conn.execute("INSERT OR REPLACE INTO offsets VALUES (?, ?, ?, ?, ?)",
                          (t.num, consumer, position, cursor, self.at))


if TYPE_CHECKING:
    def _implements(store: Store, reader: Reader, tx: WriteTx) -> tuple[Storage, Reads, Transaction]:
        """The SQLite store implements the storage interface (checked by mypy)."""
        return store, reader, tx
