"""Search (operations.md section 9): candidates, full-text ranking with the
FTS5 index of the tenant (BM25), vector ranking (vectors.py), fusion of the
two (reciprocal rank fusion or weighted min-max), scores, order and paging.
"""

from __future__ import annotations

import heapq
import math
import operator
import re
import sqlite3
from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from memorywire.service import cursors, filters
from memorywire.service import records as r
from memorywire.service.store import ROW_COLUMNS, Row, row_of, scope_sql
from memorywire.service.vectors import STATUS_CODES, VectorRanking, cosine

if TYPE_CHECKING:
    from memorywire.service.operations import Call, Service

__all__ = ["run", "text_query"]

_TERM = re.compile(r"\w+")
_MAX_TERMS = 64
#: A hit: (score, sequence, rid, text_score or None, vector_score or None).
Hit = tuple[float, int, int, float | None, float | None]


def text_query(text: str) -> str | None:
    """The FTS5 query of a full-text query: any of its terms, each quoted, so
    that the text is never read as query syntax."""
    terms = list(dict.fromkeys(t.lower() for t in _TERM.findall(text)))[:_MAX_TERMS]
    if not terms:
        return None
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)


class _Candidates:
    """The candidates of one search: tenant, scope, status and filter."""

    def __init__(self, conn: sqlite3.Connection, num: int, req: Mapping[str, Any],
                 pred: filters.Predicate | None) -> None:
        self.conn = conn
        self.num = num
        self.pred = pred
        self.scope = req.get("scope")
        if filters.names_status(req.get("filter")):
            self.statuses: tuple[str, ...] | None = None
        elif req.get("include_archived"):
            self.statuses = ("active", "archived")
        else:
            self.statuses = ("active",)
        self.where, self.params = self._where("")
        #: The same conditions on the records table named r.
        self.where_r = self._where("r.")[0]
        self.rows: dict[int, Row] = {}
        #: Whether the tenant's records of the right statuses are all candidates.
        self.everything = not self.scope_sets() and pred is None and self.statuses is not None

    def _where(self, prefix: str) -> tuple[str, list[Any]]:
        where, params = scope_sql(self.scope, prefix)
        if self.statuses is not None:
            where += f" AND {prefix}status IN ({','.join('?' * len(self.statuses))})"
            params += list(self.statuses)
        return where, params

    def scope_sets(self) -> bool:
        scope = self.scope
        return scope is not None and any(scope.get(k) for k in (*r.SCOPE_FIELDS, "namespace"))

    def row(self, rid: int) -> Row | None:
        row = self.rows.get(rid)
        if row is None:
            found = self.conn.execute(f"SELECT {ROW_COLUMNS} FROM records WHERE rid = ?",
                                      (rid,)).fetchone()
            if found is None:
                return None
            row = self.rows[rid] = row_of(found)
        return row

    def admit(self, rids: Iterable[int]) -> dict[int, int]:
        """The candidates among records: rid -> sequence."""
        out: dict[int, int] = {}
        ids = list(rids)
        if len(ids) > 2000:
            wanted = set(ids)
            return {rid: seq for rid, seq in self.admit_all().items() if rid in wanted}
        cols = "rid, seq" if self.pred is None else ROW_COLUMNS
        for start in range(0, len(ids), 500):
            chunk = ids[start:start + 500]
            marks = ",".join("?" * len(chunk))
            for values in self.conn.execute(
                    f"SELECT {cols} FROM records WHERE tenant = ? AND rid IN ({marks}){self.where}",
                    (self.num, *chunk, *self.params)):
                if self.pred is None:
                    out[values[0]] = values[1]
                else:
                    row = row_of(values)
                    if self.pred(row.doc):
                        self.rows[row.rid] = row
                        out[row.rid] = row.seq
        return out

    def admit_all(self) -> dict[int, int]:
        """Every candidate: rid -> sequence."""
        if self.pred is None:
            return dict(self.conn.execute(f"SELECT rid, seq FROM records WHERE tenant = ?{self.where}",
                                          (self.num, *self.params)).fetchall())
        return {row.rid: row.seq for row in self.all()}

    def all(self, after: int = 0) -> Iterator[Row]:
        """Every candidate after a sequence, in sequence order."""
        cur = self.conn.execute(f"SELECT {ROW_COLUMNS} FROM records WHERE tenant = ?{self.where} "
                                "AND seq > ? ORDER BY seq", (self.num, *self.params, after))
        for values in cur:
            row = row_of(values)
            if self.pred is None or self.pred(row.doc):
                yield row


# -- rankings ---------------------------------------------------------------------------


def _text_matches(c: _Candidates, text: str) -> Iterator[tuple[float, int, int]]:
    """(text_score, sequence, rid) of the candidates that match, best first
    (score descending, then sequence ascending)."""
    query = text_query(text)
    if query is None:
        return
    table = f"fts_{c.num}"
    cols = "r.rid, r.seq" if c.pred is None else ", ".join(f"r.{x.strip()}" for x in ROW_COLUMNS.split(","))
    try:
        cur = c.conn.execute(
            f"SELECT m.score, {cols} FROM (SELECT rowid AS rid, -bm25({table}) AS score FROM {table} "
            f"WHERE {table} MATCH ?) m JOIN records r ON r.rid = m.rid WHERE r.tenant = ?{c.where_r} "
            "ORDER BY m.score DESC, r.seq ASC", (query, c.num, *c.params))
    except sqlite3.OperationalError:
        return
    for values in cur:
        score = max(float(values[0]), 1e-9)
        if c.pred is None:
            yield score, values[2], values[1]
        else:
            row = row_of(values[1:])
            if c.pred(row.doc):
                c.rows[row.rid] = row
                yield score, row.seq, row.rid


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
    count = c.conn.execute("SELECT count(*) FROM embeddings WHERE tenant = ? AND model = ? AND dims = ?",
                           (c.num, model, dims)).fetchone()[0]
    if count <= store.vector_exact_threshold:
        rids = [x[0] for x in c.conn.execute(
            "SELECT DISTINCT rid FROM embeddings WHERE tenant = ? AND model = ? AND dims = ?",
            (c.num, model, dims))]
        scores: dict[int, float] = {}
        for rid in c.admit(rids):
            found = exact(rid)
            if found is not None:
                scores[rid] = found[0]
        return VectorRanking(scores, 0.0, exact)
    index = store.vectors.get(c.conn, c.num, model, dims)

    def indexed(rid: int) -> tuple[float, int] | None:
        return index.exact(rid, q, q_norm)

    if c.everything:
        assert c.statuses is not None
        codes = frozenset(STATUS_CODES[s] for s in c.statuses)
        approx, delta = index.approximate(q, None, codes)
    else:
        allowed = set(c.admit(index.slots))
        approx, delta = index.approximate(q, lambda rid, st: rid in allowed, None)
    return VectorRanking(approx, delta, indexed)


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
    matched = list(_text_matches(c, text))
    by_rid = {rid: (trank, ts, seq) for trank, (ts, seq, rid) in enumerate(matched, 1)}
    v_lo = v_hi = t_lo = t_hi = 0.0
    if weighted:
        t_lo = min((x for x, _, _ in matched), default=0.0)
        t_hi = max((x for x, _, _ in matched), default=0.0)
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
        text_hit = by_rid.get(rid)
        part, ts = 0.0, None
        if text_hit is not None:
            part, ts = text_part(text_hit[0], text_hit[1]), text_hit[1]
            seq = text_hit[2]
        if rid in vector.approx:
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
            while next_t < len(matched) and matched[next_t][2] in taken:
                next_t += 1
            while next_v >= 0 and rids[next_v] in taken:
                next_v -= 1
            if next_t >= len(matched) and next_v < 0:
                return  # every record is in
            text_cap = text_part(next_t + 1, matched[next_t][0]) if next_t < len(matched) else 0.0
            vector_cap = vector_bound(rids[next_v]) if next_v >= 0 else 0.0
            if heap and text_cap + vector_cap < -heap[0][0]:
                return  # no record not yet taken can reach the front
            if next_v < 0 or (next_t < len(matched) and text_cap >= vector_cap):
                take(matched[next_t][2])
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


def run(svc: Service, call: Call, req: Mapping[str, Any], pred: filters.Predicate | None) -> dict[str, Any]:
    """The SearchResponse document of a checked request."""
    assert call.tenant is not None
    store = svc.store
    request_digest = svc.digest("Search", req, ("operation_id", "cursor", "limit"))
    after: tuple[float, int] | None = None
    if req.get("cursor"):
        after = cursors.decode_page(store.secret, call.tenant, request_digest, req["cursor"])
    limit = req.get("limit") or 10
    min_score = req.get("min_score")
    text = req.get("text") or ""
    vector = req.get("vector")
    num = store.tenant_num(call.tenant)
    if num is None:
        return svc.envelope(req)
    page: list[Hit] = []
    rows: dict[int, Row] = {}
    # Only the vector index needs writes kept out: it changes when they commit.
    with store.read(locked=vector is not None) as conn:
        c = _Candidates(conn, num, req, pred)
        hits: Iterable[Hit]
        if not text and vector is None:
            hits = _plain(c, after)
        elif vector is None:
            hits = ((ts, seq, rid, ts, None) for ts, seq, rid in _text_matches(c, text))
        elif not text:
            hits = ((vs, seq, rid, None, vs) for vs, seq, rid in _vector_ranking(svc, c, vector).iter(after))
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
        for hit in page[:limit]:
            row = c.row(hit[2])
            if row is not None:
                rows[hit[2]] = row
    more = len(page) > limit
    page = page[:limit]
    if req.get("touch") and page:
        with store.write() as tx:
            now = r.now()
            for rid in list(rows):
                found = tx.conn.execute(f"SELECT {ROW_COLUMNS} FROM records WHERE rid = ?",
                                        (rid,)).fetchone()
                if found is None:
                    del rows[rid]
                else:
                    rows[rid] = svc.touch_row(tx, row_of(found), now)
    out = []
    for score, _, rid, ts, vs in page:
        row = rows.get(rid)
        if row is None:
            continue
        hit_doc: dict[str, Any] = {"record": row.doc, "score": score}
        if ts is not None:
            hit_doc["text_score"] = ts
        if vs is not None:
            hit_doc["vector_score"] = vs
        out.append(hit_doc)
    next_cursor = None
    if more and page:
        next_cursor = cursors.encode_page(store.secret, call.tenant, request_digest, page[-1][0], page[-1][1])
    return svc.envelope(req, hits=out or None, next_cursor=next_cursor)


def _plain(c: _Candidates, after: tuple[float, int] | None) -> Iterator[Hit]:
    """A search with neither text nor vector: every candidate, score 0."""
    start = after[1] if after is not None and after[0] == 0.0 else 0
    for row in c.all(start):
        c.rows[row.rid] = row
        yield 0.0, row.seq, row.rid, None, None
