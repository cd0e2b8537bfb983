"""In-memory postings of the full-text index, for the text rankings of
large tenants: hybrid fusion ranks over the complete text ranking
(operations.md section 9.3), and a text search scores every match to find
its page.

For a tenant with many records, SQLite scores a word that every record
holds at about a microsecond a record; here the postings of each term (the
records that hold it and how often) are arrays, and a ranking is a few array
operations. The scores are those of the SQL ranking to the last bit: the
same formula, evaluated in binary64 in the same order (search.py).

An index is loaded on first use from the ``words`` and ``terms`` columns of
the records, which the store gives (``TextRow``), and kept in step with
every committed write; a record that changes gets a new slot and its old one
is marked dead, and an index with more dead slots than live ones is dropped,
to be loaded again when next used. Each index remembers the position of its
tenant's change log that it reflects (``TextIndex.position``), so that a
store whose writes other processes make too can bring it up to date.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence

import numpy as np
import numpy.typing as npt

from memorywire.service.budget import Budget
from memorywire.service.vectors import STATUS_CODES

__all__ = ["TextIndex", "TextIndexes", "TextRow"]

Ints = npt.NDArray[np.int64]
#: What an index holds of a record: (rid, sequence, status, words, terms),
#: its columns ``words`` and ``terms`` as the store keeps them.
TextRow = tuple[int, int, str, int, "str | None"]


def _parse_terms(terms: str | None) -> list[tuple[str, int]]:
    """The (term, count) pairs of ``records.terms``: ``\\tterm:count`` ... ``\\t``."""
    if not terms:
        return []
    out = []
    for item in terms.strip("\t").split("\t"):
        term, _, count = item.rpartition(":")
        out.append((term, int(count)))
    return out


class _Growing:
    """An int64 array that grows by doubling."""

    __slots__ = ("data", "n")

    def __init__(self, capacity: int = 16) -> None:
        self.data = np.empty(capacity, dtype=np.int64)
        self.n = 0

    def extend(self, values: list[int]) -> None:
        need = self.n + len(values)
        if need > len(self.data):
            grown = np.empty(max(need, 2 * len(self.data)), dtype=np.int64)
            grown[:self.n] = self.data[:self.n]
            self.data = grown
        self.data[self.n:need] = values
        self.n = need

    def view(self) -> Ints:
        return self.data[:self.n]


class TextIndex:
    """The records of one tenant that hold text: a slot each, and the
    postings of every term as (slots, counts)."""

    def __init__(self) -> None:
        self.rids = _Growing()
        self.seqs = _Growing()
        self.words = _Growing()
        self.status = _Growing()
        self.alive = np.zeros(16, dtype=bool)
        self.slot_of: dict[int, int] = {}
        self.postings: dict[str, tuple[_Growing, _Growing]] = {}
        self.dead = 0
        #: The bytes of the postings, kept as they grow.
        self.posting_bytes = 0
        #: The position of the tenant's change log that the index reflects.
        self.position = 0

    def __len__(self) -> int:
        return len(self.slot_of)

    def nbytes(self) -> int:
        """The memory it takes, about."""
        arrays = sum(x.data.nbytes for x in (self.rids, self.seqs, self.words, self.status)) + self.alive.nbytes
        return arrays + self.posting_bytes + 100 * len(self.slot_of)

    def add(self, rows: Iterable[TextRow]) -> None:
        """Add records: (rid, sequence, status, words, terms) each."""
        rids: list[int] = []
        seqs: list[int] = []
        words: list[int] = []
        status: list[int] = []
        first = self.rids.n
        by_term: dict[str, tuple[list[int], list[int]]] = {}
        for rid, seq, st, n_words, terms in rows:
            old = self.slot_of.get(rid)
            if old is not None:
                self.alive[old] = False
                self.dead += 1
            slot = first + len(rids)
            self.slot_of[rid] = slot
            rids.append(rid)
            seqs.append(seq)
            words.append(n_words)
            status.append(STATUS_CODES.get(st, 1))
            for term, count in _parse_terms(terms):
                found = by_term.get(term)
                if found is None:
                    found = by_term[term] = ([], [])
                found[0].append(slot)
                found[1].append(count)
        if not rids:
            return
        self.rids.extend(rids)
        self.seqs.extend(seqs)
        self.words.extend(words)
        self.status.extend(status)
        if self.rids.n > len(self.alive):
            grown = np.zeros(len(self.rids.data), dtype=bool)
            grown[:len(self.alive)] = self.alive
            self.alive = grown
        self.alive[first:self.rids.n] = True
        for term, (slots, counts) in by_term.items():
            posting = self.postings.get(term)
            if posting is None:
                posting = self.postings[term] = (_Growing(max(16, len(slots))), _Growing(max(16, len(slots))))
                before = -200  # the entry itself, about
            else:
                before = posting[0].data.nbytes + posting[1].data.nbytes
            posting[0].extend(slots)
            posting[1].extend(counts)
            self.posting_bytes += posting[0].data.nbytes + posting[1].data.nbytes - before

    def remove(self, rid: int) -> None:
        slot = self.slot_of.pop(rid, None)
        if slot is not None:
            self.alive[slot] = False
            self.dead += 1

    def collection(self, statuses: Iterable[str] | None, allowed: Ints | None) -> npt.NDArray[np.bool_]:
        """Which slots are in the collection: live, with text, of the
        statuses (all when None), and among the sorted rids ``allowed``
        when given."""
        n = self.rids.n
        mask = self.alive[:n] & (self.words.view() > 0)
        if statuses is not None:
            table = np.zeros(256, dtype=bool)
            table[[STATUS_CODES[s] for s in statuses]] = True
            mask &= table[self.status.view()]
        if allowed is not None:
            mask &= np.isin(self.rids.view(), allowed)
        return mask

    def posting(self, term: str) -> tuple[Ints, Ints]:
        """(slots, counts) of the records that hold a term, dead slots included."""
        found = self.postings.get(term)
        if found is None:
            empty = np.empty(0, dtype=np.int64)
            return empty, empty
        return found[0].view(), found[1].view()


class TextIndexes:
    """The text indexes of a store, by tenant; built on first use, kept in
    step with every committed write."""

    def __init__(self, budget: Budget) -> None:
        self._budget = budget
        self._by_tenant: dict[int, TextIndex] = {}
        self._build = threading.Lock()

    def loaded(self, tenant: int) -> TextIndex | None:
        """The index of a tenant if it is in memory."""
        index = self._by_tenant.get(tenant)
        if index is not None:
            self._budget.used(("texts", tenant))
        return index

    def room(self) -> bool:
        """Whether the loaded indexes leave room in the budget: loading one
        then drops no other."""
        return self._budget.limit is None or self._budget.total() < self._budget.limit

    def tenants(self) -> list[int]:
        """The tenants whose index is in memory."""
        return list(self._by_tenant)

    def get(self, tenant: int, load: Callable[[], Iterable[Sequence[TextRow]]],
            position: int = 0) -> TextIndex:
        """The index of a tenant; call with writes kept out (a locked read).
        ``load`` gives the rows of its records with text (``words`` > 0), in
        batches, and ``position`` the position of its change log they reflect."""
        index = self._by_tenant.get(tenant)
        if index is not None:
            self._budget.used(("texts", tenant))
            return index
        with self._build:
            index = self._by_tenant.get(tenant)
            if index is None:
                index = TextIndex()
                for rows in load():
                    index.add(rows)
                index.position = position
                self._by_tenant[tenant] = index
                self._budget.loaded(("texts", tenant), index.nbytes,
                                    lambda: self._by_tenant.pop(tenant, None))
        return index

    def apply(self, rows_of: Callable[[list[int]], Iterable[TextRow]],
              touched: Iterable[tuple[int, int]], positions: dict[int, int] | None = None) -> None:
        """Bring the loaded indexes up to date after a commit: ``touched``
        holds the (tenant, rid) of every record written or removed, and
        ``rows_of`` gives the rows of the records among some rids that are
        still there; ``positions`` the position each tenant's log is now at."""
        if not self._by_tenant:
            return
        by_tenant: dict[int, list[int]] = {}
        for tenant, rid in touched:
            if tenant in self._by_tenant:
                by_tenant.setdefault(tenant, []).append(rid)
        for tenant, rids in by_tenant.items():
            index = self._by_tenant[tenant]
            found: dict[int, TextRow] = {}
            for start in range(0, len(rids), 500):
                for row in rows_of(rids[start:start + 500]):
                    found[row[0]] = row
            for rid in rids:
                got = found.get(rid)
                if got is None or not got[3]:
                    index.remove(rid)
            index.add(row for row in found.values() if row[3])
            if index.dead > 8192 and index.dead > len(index):
                del self._by_tenant[tenant]  # loaded again on next use
                self._budget.forget(("texts", tenant))
        for tenant, position in (positions or {}).items():
            loaded = self._by_tenant.get(tenant)
            if loaded is not None:
                loaded.position = position

    def drop(self, tenant: int) -> None:
        """Forget the index of a tenant, to be loaded again on next use."""
        if self._by_tenant.pop(tenant, None) is not None:
            self._budget.forget(("texts", tenant))
