"""Search (operations.md section 9): candidates, full-text ranking (BM25 on
the statistics of the store's full-text index), vector ranking (vectors.py),
fusion of the two (reciprocal rank fusion or weighted min-max), scores,
order and paging. The store (storage.py) gives the candidates and the
statistics; the rankings are computed here.

Full text: a record matches when its text contains a term of the query.
The text and the query are read by the tokenizer of the index (Unicode
words, case folded, without diacritics, Porter-stemmed), so "Seats" matches
"seat". The ranking is Okapi BM25 with the non-negative IDF of Lucene, over
the collection of the search: the records of the caller's tenant that have
text and that the request's scope and statuses admit (the filter aside).
For a record *d* and the terms *t* of the query,

    idf(t) = ln(1 + (N - n(t) + 0.5) / (n(t) + 0.5))
    score(d) = sum over t of idf(t) * tf(t, d) * (k1 + 1) / (tf(t, d) + k1 * (1 - b + b * dl(d) / avgdl))

where N is the number of records of the collection, n(t) the number of them
that contain *t*, tf(t, d) the number of occurrences of *t* in *d*, dl(d)
the number of tokens of *d* and avgdl their mean over the collection;
k1 = 1.2 and b = 0.75. So every match scores above 0, even on a term that
every record contains; other things equal, a record that matches more terms,
rarer ones or more often scores higher; and scores depend on the tenant's
records only.
"""

from __future__ import annotations

import heapq
import math
import operator
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
import numpy.typing as npt

from memorywire.service import cursors, filters
from memorywire.service import records as r
from memorywire.service.storage import QueryWord, Reads, Row, Selection, Storage, TextAnalyzer
from memorywire.service.vectors import STATUS_CODES, Index, VectorRanking, cosine

if TYPE_CHECKING:
    from memorywire.service.context import Call
    from memorywire.service.texts import TextIndex

__all__ = ["run", "text_ranking", "text_terms"]

_MAX_TERMS = 64
#: A word of a full-text query: a run of letters, digits and combining
#: marks, which the tokenizer of the index reads as one term (or, for a few
#: rare characters, as several or none).
WORD = re.compile(r"(?:[^\W_]|[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff"
                  r"\ufe20-\ufe2f\ue000-\uf8ff])+")
#: The parameters of BM25.
K1 = 1.2
B = 0.75
#: A hit: (score, sequence, rid, text_score or None, vector_score or None).
Hit = tuple[float, int, int, float | None, float | None]


class Service(Protocol):
    """What a search needs of the service that runs it (the ``Service`` of
    :mod:`memorywire.service.operations`, which this module does not import:
    that module imports this one)."""

    store: Storage
    paging: cursors.Paging

    def digest(self, method: str, req: Mapping[str, Any], drop: Iterable[str] = ()) -> bytes: ...

    def encode(self, type_name: str, doc: Mapping[str, Any]) -> bytes: ...

    def envelope(self, req: Mapping[str, Any], **fields: Any) -> dict[str, Any]: ...

    def touched_row(self, row: Row, now: str) -> Row: ...

    def page(self, method: str, req: Mapping[str, Any], field: str, item_type: str,
             items: Sequence[Mapping[str, Any]], more: bool,
             cursor_after: Callable[[int], str], **extra: Any) -> tuple[bytes, int]: ...


def text_terms(analyzer: TextAnalyzer, text: str) -> list[QueryWord]:
    """The terms of a full-text query: its words (``WORD``), each with the
    terms the index reads in it, at most 64, without two words of the same
    terms (such as "seat" and "Seats")."""
    out: dict[tuple[str, ...], str] = {}
    for word in WORD.findall(text):
        terms = analyzer.word(word)
        if terms and terms not in out:
            out[terms] = word
            if len(out) == _MAX_TERMS:
                break
    return [(word, terms) for terms, word in out.items()]


class _Candidates:
    """The candidates of one search: tenant, scope, status and filter."""

    def __init__(self, store: Storage, reads: Reads, num: int, req: Mapping[str, Any],
                 pred: filters.Predicate | None) -> None:
        self.store = store
        self.reads = reads
        self.num = num
        self.pred = pred
        self.statuses: tuple[str, ...] | None
        if filters.names_status(req.get("filter")):
            self.statuses = None
        elif req.get("include_archived"):
            self.statuses = ("active", "archived")
        else:
            self.statuses = ("active",)
        #: The candidates, the filter aside.
        self.selection = Selection.of(req.get("scope"), statuses=self.statuses)
        self.rows: dict[int, Row] = {}
        #: Whether the tenant's records of the right statuses are all candidates.
        self.everything = not self.scope_sets() and pred is None and self.statuses is not None

    def scope_sets(self) -> bool:
        return self.selection.scoped

    def row(self, rid: int) -> Row | None:
        row = self.rows.get(rid)
        if row is None:
            row = self.reads.row(rid)
            if row is None:
                return None
            self.rows[rid] = row
        return row

    def read_rows(self, rids: Iterable[int]) -> None:
        """Read the records of some rids at once, those not read yet (a
        page's hits: one read, not one each)."""
        missing = [rid for rid in dict.fromkeys(rids) if rid not in self.rows]
        if len(missing) > 1:
            for row in self.reads.rows_among(self.num, Selection(), missing):
                self.rows[row.rid] = row

    def admit(self, rids: Iterable[int]) -> dict[int, int]:
        """The candidates among records: rid -> sequence."""
        ids = list(rids)
        if len(ids) > 2000:
            wanted = set(ids)
            return {rid: seq for rid, seq in self.admit_all().items() if rid in wanted}
        if self.pred is None:
            return self.reads.sequences(self.num, self.selection, ids)
        out: dict[int, int] = {}
        for row in self.reads.rows_among(self.num, self.selection, ids):
            if self.pred(row.doc):
                self.rows[row.rid] = row
                out[row.rid] = row.seq
        return out

    def term_counts(self, words: list[str]) -> list[int]:
        """The number of candidates that hold each word, the filter left aside."""
        return self.reads.term_counts(self.num, self.selection, words)

    def text_stats(self) -> tuple[int, int]:
        """The number of candidates that have text, the filter left aside,
        and the sum of their lengths in tokens."""
        return self.reads.text_stats(self.num, self.selection)

    def admit_all(self) -> dict[int, int]:
        """Every candidate: rid -> sequence."""
        if self.pred is None:
            return self.reads.sequences(self.num, self.selection)
        return {row.rid: row.seq for row in self.all()}

    def all(self, after: int = 0) -> Iterator[Row]:
        """Every candidate after a sequence, in sequence order."""
        for row in self.reads.records(self.num, self.selection, after=after):
            if self.pred is None or self.pred(row.doc):
                yield row


# -- rankings ---------------------------------------------------------------------------


def _weight(n_records: int, n: int) -> float:
    """idf(t) * (k1 + 1) for a term that n of n_records hold: the bound of
    what the term adds to a score."""
    return math.log(1.0 + (max(n_records, n) - n + 0.5) / (n + 0.5)) * (K1 + 1.0)


def _length_norm(n_records: int, n_words: int) -> tuple[float, float]:
    """a and b such that k1 * (1 - b + b * dl / avgdl) = a + b * dl."""
    return K1 * (1.0 - B), K1 * B * n_records / n_words


def text_ranking(c: _Candidates, text: str, after: tuple[float, int] | None = None,
                 limit: int | None = None,
                 terms: list[QueryWord] | None = None) -> list[tuple[float, int, int]]:
    """(text_score, sequence, rid) of the candidates that match a full-text
    query, best first (BM25, see the module's documentation): those after a
    cursor, and at most ``limit``.

    The store counts the candidates that hold each word, and gives the
    candidates that hold any with the length of their text and the
    occurrences of each word in it; they are scored and sorted here.
    ``terms`` are the query's, when the caller has read them already."""
    if terms is None:
        terms = text_terms(c.store.analyzer, text)
    if not terms:
        return []
    n_records, n_words = c.text_stats()
    if not n_records:
        return []
    counts = c.term_counts([word for word, _ in terms])
    a, bb = _length_norm(n_records, n_words)
    # The words that some candidate holds, each with its bound.
    query: list[QueryWord] = []
    found: list[str] = []
    weights: list[float] = []
    for (word, word_terms), n in zip(terms, counts, strict=True):
        if n:
            query.append((word, word_terms))
            found.append(word)
            weights.append(_weight(n_records, n))
    if not query:
        return []

    def ranked(words: list[str]) -> list[tuple[float, int, int]]:
        """The ranking of the records that hold any of ``words``, scored on
        every term of the query: for each, idf(t) * (k1 + 1) / (1 + k1 *
        (1 - b + b * dl / avgdl) / tf), added in the order of the query."""
        matches = c.reads.text_matches(c.num, c.selection, query, words)
        if not matches:
            return []
        columns = np.array(matches, dtype=np.int64).reshape(len(matches), 3 + len(query))
        rids, seqs, dl = columns[:, 0], columns[:, 1], columns[:, 2].astype(np.float64)
        scores = np.zeros(len(matches))
        for j, weight in enumerate(weights):
            tf = columns[:, 3 + j]
            held = tf > 0
            scores[held] += weight / (1.0 + (a + bb * dl[held]) / tf[held].astype(np.float64))
        keep = np.ones(len(matches), dtype=bool) if after is None else \
            (scores < after[0]) | ((scores == after[0]) & (seqs > after[1]))
        order = np.flatnonzero(keep)
        order = order[np.lexsort((seqs[order], -scores[order]))]
        if limit is not None and c.pred is None:
            order = order[:limit]
        return list(zip(scores[order].tolist(), seqs[order].tolist(), rids[order].tolist(), strict=True))

    if limit is not None and c.pred is None and len(found) > 1:
        # MaxScore: a term adds less than idf(t) * (k1 + 1) to any score, so
        # a record that holds only common terms, whose bounds add up to
        # little, cannot reach a page that the records holding a rarer term
        # fill with greater scores. Rank those first; all only if needed.
        bounds = sorted(zip(weights, found, strict=True))
        cap = 0.25 * bounds[-1][0]
        common, total = 0, 0.0
        while common < len(bounds) - 1 and total + bounds[common][0] <= cap:
            total += bounds[common][0]
            common += 1
        if common:
            ranking = ranked([word for _, word in bounds[common:]])
            if len(ranking) == limit and ranking[-1][0] > total:
                return ranking
    ranking = ranked(found)
    if c.pred is not None and ranking:
        admitted = c.admit(rid for _, _, rid in ranking)
        ranking = [hit for hit in ranking if hit[2] in admitted][:limit]
    return ranking


class TextRanking:
    """A complete text ranking: scores, sequences and rids, best first; and
    for a ranking of the in-memory postings, the rank of each slot."""

    def __init__(self, scores: npt.NDArray[np.float64], seqs: npt.NDArray[np.int64],
                 rids: npt.NDArray[np.int64], slot_of: Mapping[int, int] | None = None,
                 rank_of_slot: npt.NDArray[np.int64] | None = None) -> None:
        self.scores = scores
        self.seqs = seqs
        self.rids = rids
        self._slot_of = slot_of
        self._rank_of_slot = rank_of_slot
        self._index: dict[int, int] | None = None

    @classmethod
    def of(cls, hits: list[tuple[float, int, int]]) -> TextRanking:
        """The ranking of (score, sequence, rid) hits, best first."""
        return cls(np.array([x[0] for x in hits], dtype=np.float64), np.array([x[1] for x in hits], dtype=np.int64),
                   np.array([x[2] for x in hits], dtype=np.int64))

    def __len__(self) -> int:
        return len(self.rids)

    def score(self, i: int) -> float:
        return float(self.scores[i])

    def rid(self, i: int) -> int:
        return int(self.rids[i])

    def find(self, rid: int) -> tuple[int, float, int] | None:
        """(1-based rank, score, sequence) of a record, or None when it is
        not in the ranking."""
        if self._rank_of_slot is not None and self._slot_of is not None:
            slot = self._slot_of.get(rid)
            i = -1 if slot is None else int(self._rank_of_slot[slot])
        else:
            if self._index is None:
                self._index = dict(zip(self.rids.tolist(), range(len(self.rids)), strict=True))
            i = self._index.get(rid, -1)
        return None if i < 0 else (i + 1, float(self.scores[i]), int(self.seqs[i]))


def full_text_ranking(c: _Candidates, text: str) -> TextRanking:
    """The complete text ranking of a query: text_ranking's for a small
    collection, on the in-memory postings (texts.py) for a large one."""
    terms = text_terms(c.store.analyzer, text)
    if not terms:
        return TextRanking.of([])
    store = c.store
    index = store.texts.loaded(c.num)
    if index is None and c.text_stats()[0] <= store.text_index_threshold:
        return TextRanking.of(text_ranking(c, text, terms=terms))
    index = index or c.reads.text_index(c.num)
    scored = _posting_scores(c, index, terms)
    if scored is None:
        return TextRanking.of([])
    scores, hits = scored
    order = hits[np.lexsort((index.seqs.view()[hits], -scores[hits]))]
    order = _admitted(c, index, order)
    rank_of_slot = np.full(len(scores), -1, dtype=np.int64)
    rank_of_slot[order] = np.arange(len(order))
    return TextRanking(scores[order], index.seqs.view()[order], index.rids.view()[order], index.slot_of,
                       rank_of_slot)


def posting_ranking(c: _Candidates, index: TextIndex, terms: list[QueryWord],
                    after: tuple[float, int] | None, limit: int) -> list[tuple[float, int, int]]:
    """text_ranking's hits, on the in-memory postings: the same scores in
    the same order, those after a cursor, and at most ``limit``. Only the
    matches that can reach the page are sorted."""
    scored = _posting_scores(c, index, terms)
    if scored is None:
        return []
    scores, hits = scored
    seqs = index.seqs.view()
    hit_scores, hit_seqs = scores[hits], seqs[hits]
    if after is not None:
        keep = (hit_scores < after[0]) | ((hit_scores == after[0]) & (hit_seqs > after[1]))
        hits, hit_scores, hit_seqs = hits[keep], hit_scores[keep], hit_seqs[keep]
    if c.pred is None and len(hits) > limit:
        # The limit-th greatest score: no record below it reaches the page.
        least = -np.partition(-hit_scores, limit - 1)[limit - 1]
        keep = hit_scores >= least
        hits, hit_scores, hit_seqs = hits[keep], hit_scores[keep], hit_seqs[keep]
    order = _admitted(c, index, hits[np.lexsort((hit_seqs, -hit_scores))])[:limit]
    return list(zip(scores[order].tolist(), seqs[order].tolist(), index.rids.view()[order].tolist(),
                    strict=True))


def _admitted(c: _Candidates, index: TextIndex, order: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """The slots of ``order`` whose records pass the request's filter."""
    if c.pred is None or not len(order):
        return order
    admitted = c.admit(index.rids.view()[order].tolist())
    return order[np.isin(index.rids.view()[order], np.fromiter(admitted, dtype=np.int64))]


def _posting_scores(c: _Candidates, index: TextIndex, terms: list[QueryWord]
                    ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int64]] | None:
    """The text score of every slot of the in-memory postings, and the
    slots of the collection that match the query; None when the
    collection is empty."""
    allowed = None
    if c.scope_sets():
        allowed = np.sort(np.fromiter(c.reads.sequences(c.num, c.selection), dtype=np.int64))
    mask = index.collection(c.statuses, allowed)
    n_records = int(np.count_nonzero(mask))
    if not n_records:
        return None
    words = index.words.view().astype(np.float64)
    n_words = int(index.words.view()[mask].sum())
    # The formula and the order of operations of text_ranking's, so
    # that every score is the same to the last bit.
    a, bb = _length_norm(n_records, n_words)
    scores = np.zeros(len(mask))
    matched = np.zeros(len(mask), dtype=bool)
    for word, word_terms in terms:
        if len(word_terms) == 1:
            slots, counts = index.posting(word_terms[0])
            keep = mask[slots]
            slots, tf = slots[keep], counts[keep].astype(np.float64)
        else:  # a word of several terms matches as a phrase, once
            found = (index.slot_of.get(rid) for rid in c.reads.phrase_matches(c.num, word))
            slots = np.fromiter((x for x in found if x is not None), dtype=np.int64)
            slots = slots[mask[slots]]
            tf = np.ones(len(slots))
        n = len(slots)
        if n:
            weight = _weight(n_records, n)
            scores[slots] += weight / (1.0 + (a + bb * words[slots]) / tf)
            matched[slots] = True
    return scores, np.flatnonzero(matched)


def _vector_ranking(svc: Service, c: _Candidates, vector: Mapping[str, Any]) -> VectorRanking:
    model = vector["model"]
    q = list(vector["values"])
    dims = len(q)
    q_norm = math.sqrt(sum(map(operator.mul, q, q)))

    def exact(rid: int) -> tuple[float, int] | None:
        row = c.row(rid)
        if row is None:
            return None
        best = None
        for m, d, values in r.embedding_values(row.doc):
            if m == model and d == dims and len(values) == dims:
                score = cosine(q, q_norm, values)
                if score is not None and (best is None or score > best):
                    best = score
        return None if best is None else (best, row.seq)

    store = svc.store
    index = store.vectors.loaded(c.num, model, dims)
    if index is not None:
        count = len(index)
    else:
        count = c.reads.embedding_count(c.num, model, dims)
    if count <= store.vector_exact_threshold:
        rids = c.reads.embedded(c.num, model, dims)
        scores: dict[int, float] = {}
        for rid in c.admit(rids):
            found = exact(rid)
            if found is not None:
                scores[rid] = found[0]
        return VectorRanking(np.fromiter(scores, dtype=np.int64, count=len(scores)),
                             np.fromiter(scores.values(), dtype=np.float64, count=len(scores)), 0.0, exact)
    index = index or c.reads.vector_index(c.num, model, dims)

    def indexed(rid: int) -> tuple[float, int] | None:
        return index.exact(rid, q, q_norm)

    if c.everything:
        assert c.statuses is not None
        codes = frozenset(STATUS_CODES[s] for s in c.statuses)
        rids_found, approx, delta = index.approximate(q, codes, None)
    else:
        allowed = np.fromiter(c.admit(index.slots), dtype=np.int64)
        rids_found, approx, delta = index.approximate(q, None, np.sort(allowed))
    return VectorRanking(rids_found, approx, delta, indexed)


#: The approximate vector search: the fewest embeddings asked of the index,
#: how much more it is asked for each time a page is not filled, and the
#: least share of candidates among the records of the group (or, with a
#: scope or filter, among the records found) for which it is used.
ANN_MIN_K = 64
ANN_GROWTH = 4
ANN_MIN_SHARE = 0.1
#: The most embeddings of a group whose approximate index a search builds
#: itself (a few seconds). A larger group's index is built in a thread, and
#: searches rank exactly until it is ready: at a million embeddings the
#: build takes minutes, longer than a caller waits.
ANN_INLINE_BUILD = 20_000


class Approximation:
    """Whether the vector ranking of a search came from the approximate
    index (SearchResponse.approximate)."""

    used = False


def _ann_index(svc: Service, c: _Candidates, req: Mapping[str, Any], vector: Mapping[str, Any]) -> Index | None:
    """The index of the group of a vector-only search when the approximate
    index ranks it: not asked to be exact, a group of more than the store's
    ann_threshold embeddings, usearch installed, no embedding of irregular
    norm, and, when only statuses select the candidates, candidates that
    are at least ANN_MIN_SHARE of the group's records."""
    store = svc.store
    threshold = store.ann_threshold
    if req.get("exact") or threshold is None:
        return None
    model, dims = vector["model"], len(vector["values"])
    index = store.vectors.loaded(c.num, model, dims)
    count = len(index) if index is not None else c.reads.embedding_count(c.num, model, dims)
    if count <= threshold:
        return None
    index = index or c.reads.vector_index(c.num, model, dims)
    if not len(index) or _share(c, index) < ANN_MIN_SHARE or index.irregular:
        return None
    if index.ann is None and len(index) > ANN_INLINE_BUILD:
        index.ann_build_started(lambda: store.reader(locked=True))
        return None
    return index if index.ann_ready() else None


def _share(c: _Candidates, index: Index) -> float:
    """The share of the group's records that are candidates, when statuses
    alone select them; 1.0 when a scope or filter does (estimated later
    from the records found)."""
    if c.statuses is None or not c.everything:
        return 1.0
    return sum(int(index.statuses[STATUS_CODES[x]]) for x in c.statuses) / len(index)


def _ann_ranking(svc: Service, c: _Candidates, vector: Mapping[str, Any], index: Index,
                 after: tuple[float, int] | None, limit: int, used: Approximation
                 ) -> Iterator[tuple[float, int, int]]:
    """The vector hits (score, sequence, rid) after a position, from the
    approximate index: it is asked for the nearest k embeddings, k =
    max(ANN_MIN_K, 2 (limit + 1) / share); the candidates among the records
    found are ranked by their exact scores; while more hits are wanted, k
    grows ANN_GROWTH times, and the exact ranking takes over (after the
    last hit given) once k exceeds half the group, or when fewer than
    ANN_MIN_SHARE of the records found are candidates (a selective scope or
    filter)."""
    q = list(vector["values"])
    size = len(index)
    share = _share(c, index)
    k = max(ANN_MIN_K, math.ceil(2 * (limit + 1) / share))
    codes = frozenset(STATUS_CODES[x] for x in c.statuses) if c.statuses is not None else None
    position = after
    while True:
        if k > size // 2:
            break
        found = index.nearest(q, k)
        if c.everything:
            assert codes is not None
            admitted = [rid for rid in found if index.status_of(rid) in codes]
        else:
            allowed = c.admit(found)
            admitted = [rid for rid in found if rid in allowed]
            if len(admitted) < ANN_MIN_SHARE * len(found):
                break
        used.used = True
        for score, seq, rid in index.ranking_of(admitted, q).iter(position):
            position = (score, seq)
            yield score, seq, rid
        if len(found) < k:
            return  # every record of the group was found
        k *= ANN_GROWTH
    yield from _vector_ranking(svc, c, vector).iter(position)


def _normalise(score: float, lo: float, hi: float) -> float:
    return 1.0 if hi == lo else (score - lo) / (hi - lo)


def _fused(req: Mapping[str, Any], c: _Candidates, text: str, vector: VectorRanking) -> Iterator[Hit]:
    """The union of the text ranking and the vector ranking, by fused score
    (operations.md section 9.3), best first.

    A threshold algorithm over the two rankings: records are taken from the
    front of either ranking (the vector ranking in order of approximate
    score) into a heap, each with its text part and an upper bound on its
    vector part, from its approximate score; a record's exact vector rank or
    score is computed only when it reaches the front of the heap; and the
    front is final once no record not yet taken could score as much."""
    fusion = req.get("fusion", {})
    weighted = fusion.get("method") == "weighted"
    k = int(fusion.get("rrf_k", 60))
    w = float(fusion.get("text_weight", 0.5))
    matched = full_text_ranking(c, text)
    v_lo = v_hi = t_lo = t_hi = 0.0
    if weighted:
        t_lo = float(matched.scores.min()) if len(matched) else 0.0
        t_hi = float(matched.scores.max()) if len(matched) else 0.0
        ext = vector.extremes()
        if ext is not None:
            v_lo, v_hi = ext

    def text_part(trank: int, ts: float) -> float:
        return w * _normalise(ts, t_lo, t_hi) if weighted else 1 / (k + trank)

    def vector_bound(rid: int) -> float:
        if weighted:
            return (1 - w) * _normalise(vector.score_bounds(rid)[1], v_lo, v_hi)
        return 1 / (k + vector.rank_bounds(rid)[0])

    # Entries: (-score or -bound, exact?, sequence, rid, text_score, vector_score, text part).
    # A bound sorts before an exact score it equals, so that it is refined first.
    heap: list[tuple[float, int, int, int, float | None, float | None, float]] = []
    taken: set[int] = set()
    values, rids = vector.order()
    next_t = 0  # the next record of the text ranking
    next_v = len(rids) - 1  # the next record of the vector ranking, by approximate score

    def take(rid: int) -> None:
        taken.add(rid)
        text_hit = matched.find(rid)
        part, ts = 0.0, None
        if text_hit is not None:
            part, ts = text_part(text_hit[0], text_hit[1]), text_hit[1]
            seq = text_hit[2]
        if rid in vector:
            if text_hit is None:
                found = vector.exact(rid)
                assert found is not None
                seq = found[1]
            heapq.heappush(heap, (-(part + vector_bound(rid)), 0, seq, rid, ts, None, part))
        else:
            heapq.heappush(heap, (-part, 1, seq, rid, ts, None, part))

    def feed() -> None:
        """Take records until none not yet taken could reach the front;
        stop early when the front is a bound, which is refined first."""
        nonlocal next_t, next_v
        while not heap or heap[0][1]:
            while next_t < len(matched) and matched.rid(next_t) in taken:
                next_t += 1
            while next_v >= 0 and rids[next_v] in taken:
                next_v -= 1
            if next_t >= len(matched) and next_v < 0:
                return  # every record is in
            text_cap = text_part(next_t + 1, matched.score(next_t)) if next_t < len(matched) else 0.0
            vector_cap = vector_bound(rids[next_v]) if next_v >= 0 else 0.0
            if heap and text_cap + vector_cap < -heap[0][0]:
                return  # no record not yet taken can reach the front
            if next_v < 0 or (next_t < len(matched) and text_cap >= vector_cap):
                take(matched.rid(next_t))
            else:
                take(rids[next_v])

    while True:
        feed()
        if not heap:
            return
        entry = heapq.heappop(heap)
        if not entry[1]:
            rid = entry[3]
            refined = vector.exact(rid)
            assert refined is not None
            part = entry[6]
            if weighted:
                score = part + (1 - w) * _normalise(refined[0], v_lo, v_hi)
            else:
                score = part + 1 / (k + vector.rank(rid))
            heapq.heappush(heap, (-score, 1, entry[2], rid, entry[4], refined[0], part))
            continue
        yield -entry[0], entry[2], entry[3], entry[4], entry[5]


# -- the operation --------------------------------------------------------------------------


def run(svc: Service, call: Call, req: Mapping[str, Any], pred: filters.Predicate | None) -> bytes:
    """The SearchResponse of a checked request."""
    assert call.tenant is not None
    store = svc.store
    request_digest = svc.digest("Search", req, ("operation_id", "cursor", "limit"))
    after: tuple[float, int] | None = None
    if req.get("cursor"):
        after = cursors.decode_page(store.secret, call.tenant, request_digest, req["cursor"], svc.paging)
    limit = req.get("limit") or 10
    min_score = req.get("min_score")
    text = req.get("text") or ""
    vector = req.get("vector")
    num = store.tenant_num(call.tenant)
    if num is None:
        return svc.encode("memorywire.v1.SearchResponse", svc.envelope(req))
    page: list[Hit] = []
    rows: dict[int, Row] = {}
    approximation = Approximation()
    postings = bool(text) and vector is None and _on_postings(store, num, req, pred)
    # Only the in-memory indexes need writes kept out: they change when
    # writes commit.
    with store.reader(locked=vector is not None or postings) as reads:
        c = _Candidates(store, reads, num, req, pred)
        hits: Iterable[Hit]
        if not text and vector is None:
            hits = _plain(c, after)
        elif vector is None:
            hits = ((ts, seq, rid, ts, None) for ts, seq, rid in _text_page(c, text, after, limit + 1, postings))
        elif not text:
            index = _ann_index(svc, c, req, vector)
            ranked = (_vector_ranking(svc, c, vector).iter(after) if index is None
                      else _ann_ranking(svc, c, vector, index, after, limit, approximation))
            hits = ((vs, seq, rid, None, vs) for vs, seq, rid in ranked)
        else:
            hits = _fused(req, c, text, _vector_ranking(svc, c, vector))
        for hit in hits:
            score, seq = hit[0], hit[1]
            if after is not None and not (score < after[0] or (score == after[0] and seq > after[1])):
                continue
            if min_score is not None and score < min_score:
                break
            page.append(hit)
            if len(page) > limit:
                break
        c.read_rows(hit[2] for hit in page[:limit])
        for hit in page[:limit]:
            row = c.row(hit[2])
            if row is not None:
                rows[hit[2]] = row
    more = len(page) > limit

    def respond(page: list[Hit]) -> tuple[bytes, int]:
        """The response of a page, shortened to fit in one document."""
        docs = []
        for score, _, rid, ts, vs in page:
            hit_doc: dict[str, Any] = {"record": rows[rid].doc, "score": score}
            if ts is not None:
                hit_doc["text_score"] = ts
            if vs is not None:
                hit_doc["vector_score"] = vs
            docs.append(hit_doc)

        def cursor_after(i: int) -> str:
            assert call.tenant is not None
            return cursors.encode_page(store.secret, call.tenant, request_digest, page[i][0], page[i][1],
                                       svc.paging)

        return svc.page("Search", req, "hits", "memorywire.v1.SearchHit", docs, more, cursor_after,
                        approximate=approximation.used or None)

    page = [hit for hit in page[:limit] if hit[2] in rows]
    if not (req.get("touch") and page):
        return respond(page)[0]
    with store.write() as tx:
        now = r.now()
        for rid in list(rows):
            found = tx.row(rid)
            if found is None:
                del rows[rid]
            else:
                rows[rid] = svc.touched_row(found, now)
        page = [hit for hit in page if hit[2] in rows]
        data, sent = respond(page)
        # Only the hits sent count as accesses.
        for hit in page[:sent]:
            tx.touch(rows[hit[2]], rows[hit[2]].doc)
    return data


def _on_postings(store: Storage, num: int, req: Mapping[str, Any], pred: filters.Predicate | None) -> bool:
    """Whether a text search ranks on the in-memory postings (texts.py):
    when they are loaded, or when the collection is large enough to load
    them and the index budget has room for them. Unlike hybrid search, a
    text search does not need every match, so it drops no other index: it
    ranks the store's matches instead."""
    if store.texts.loaded(num) is not None:
        return True
    if not store.texts.room():
        return False
    with store.reader() as reads:
        return _Candidates(store, reads, num, req, pred).text_stats()[0] > store.text_index_threshold


def _text_page(c: _Candidates, text: str, after: tuple[float, int] | None, limit: int,
               postings: bool) -> list[tuple[float, int, int]]:
    """The hits of a text search: text_ranking's, on the in-memory
    postings when ``postings`` (in a locked read), else on the store's
    matches."""
    terms = text_terms(c.store.analyzer, text)
    if not terms:
        return []
    if postings:
        index = c.store.texts.loaded(c.num) or c.reads.text_index(c.num)
        return posting_ranking(c, index, terms, after, limit)
    return text_ranking(c, text, after, limit, terms)


def _plain(c: _Candidates, after: tuple[float, int] | None) -> Iterator[Hit]:
    """A search with neither text nor vector: every candidate, score 0."""
    start = after[1] if after is not None and after[0] == 0.0 else 0
    for row in c.all(start):
        c.rows[row.rid] = row
        yield 0.0, row.seq, row.rid, None, None
