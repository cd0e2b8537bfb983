"""Exact vector search without native dependencies.

Each embedding is kept twice: bit-exact in its record, and quantized in the
``embeddings`` table: the unit vector scaled so that its largest component
is M, rounded to integers and offset by M, so that every component is an
unsigned integer below 2M, with M chosen so that a dot product of two such
vectors fits in 32 bits.

In memory, the quantized vectors of one (tenant, model, dimensions) group
are held in blocks, and each block column-wise as Python integers in which
every record has a 32-bit slot: multiplying a column by one query component
and adding up the columns computes the integer dot products of the whole
block at once (SIMD within a register, on arbitrary-precision integers).
That gives an approximate cosine for every embedding together with a bound
on its error; the exact cosine (binary64 arithmetic on the binary32 values,
operations.md section 9.2) is then computed only for the records whose bound
lets them reach the results, so that the ranking is exact.
"""

from __future__ import annotations

import heapq
import math
import operator
import sqlite3
import sys
import threading
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterator, Mapping
from typing import Any

__all__ = ["Indexes", "VectorRanking", "cosine", "quantize", "STATUS_CODES"]

BLOCK = 4096
_LITTLE = sys.byteorder == "little"
STATUS_CODES = {"active": 1, "pending_approval": 2, "archived": 3, "deleted": 4, "rejected": 5}

assert array("I").itemsize == 4


def scale_of(dims: int) -> int:
    """M: the greatest component of a quantized vector, such that the dot
    product of two vectors of components 0..2M fits in 32 bits."""
    return max(1, math.isqrt((2**32 - 1) // dims) // 2)


Quantized = tuple[bytes, float, int, float]


def quantize(values: list[float]) -> Quantized | None:
    """(components, scale, sum of the signed components, Euclidean norm of
    the quantization error of the unit vector) of a vector, or None for a
    vector of zero norm."""
    norm = math.sqrt(sum(map(operator.mul, values, values)))
    if norm == 0.0:
        return None
    d = len(values)
    big_m = scale_of(d)
    unit = [x / norm for x in values]
    top = max(map(abs, unit))
    f = big_m / top
    ints = [min(big_m, max(-big_m, round(x * f))) for x in unit]
    comps = array("I", [i + big_m for i in ints])
    if not _LITTLE:
        comps.byteswap()
    scale = top / big_m
    error = math.sqrt(sum((x - i * scale) ** 2 for x, i in zip(unit, ints, strict=True)))
    return comps.tobytes(), scale, sum(ints), error


def cosine(q: list[float], q_norm: float, e: list[float]) -> float | None:
    """The cosine similarity of operations.md section 9.2, or None for an
    embedding of zero norm."""
    e_norm = math.sqrt(sum(map(operator.mul, e, e)))
    if e_norm == 0.0:
        return None
    c = sum(map(operator.mul, q, e)) / (q_norm * e_norm)
    return -1.0 if c < -1.0 else 1.0 if c > 1.0 else c


def raw_of(values: list[float]) -> tuple[bytes, float]:
    """The binary32 bytes (little-endian) of a vector and its norm, as
    cosine() computes it."""
    raw = array("f", values)
    norm = math.sqrt(sum(map(operator.mul, raw, raw)))
    if not _LITTLE:
        raw.byteswap()
    return raw.tobytes(), norm


class _Block:
    __slots__ = ("cols", "dims", "max_error", "n", "norms", "offs", "raw", "rids", "rows", "scales",
                 "seqs", "status")

    def __init__(self, dims: int) -> None:
        self.dims = dims
        self.n = 0
        self.rows = array("I")
        self.rids = array("q")
        self.status = bytearray()
        self.offs = array("q")
        self.scales = array("d")
        self.seqs = array("q")
        self.raw = array("f")
        self.norms = array("d")
        self.cols: list[int] | None = None
        self.max_error = 0.0

    def add(self, rid: int, status: int, seq: int, q: Quantized, raw: bytes, norm: float,
            big_m: int) -> int:
        comps, scale, qsum, err = q
        values = array("f")
        values.frombytes(raw)
        if not _LITTLE:
            values.byteswap()
        self.raw.extend(values)
        self.norms.append(norm)
        self.seqs.append(seq)
        row = array("I")
        row.frombytes(comps)
        if not _LITTLE:
            row.byteswap()
        self.rows.extend(row)
        self.rids.append(rid)
        self.status.append(status)
        self.offs.append(big_m * qsum + self.dims * big_m * big_m)
        self.scales.append(scale)
        self.max_error = max(self.max_error, err)
        self.cols = None
        self.n += 1
        return self.n - 1

    def bulk(self, rows: list[tuple[Any, ...]], big_m: int) -> None:
        """Add many embeddings at once: (rid, status, seq, components, scale,
        sum, error, raw, norm) each."""
        comps = array("I")
        comps.frombytes(b"".join(x[3] for x in rows))
        raw = array("f")
        raw.frombytes(b"".join(x[7] for x in rows))
        if not _LITTLE:
            comps.byteswap()
            raw.byteswap()
        self.rows.extend(comps)
        self.raw.extend(raw)
        self.rids.extend(x[0] for x in rows)
        self.status.extend(STATUS_CODES.get(x[1], 1) for x in rows)
        self.seqs.extend(x[2] for x in rows)
        self.scales.extend(x[4] for x in rows)
        base = self.dims * big_m * big_m
        self.offs.extend(big_m * x[5] + base for x in rows)
        self.max_error = max(self.max_error, max(x[6] for x in rows))
        self.norms.extend(x[8] for x in rows)
        self.cols = None
        self.n += len(rows)

    def columns(self) -> list[int]:
        cols = self.cols
        if cols is None:
            d, rows = self.dims, self.rows
            cols = []
            for i in range(d):
                col = rows[i::d]
                if not _LITTLE:
                    col.byteswap()
                cols.append(int.from_bytes(col.tobytes(), "little"))
            self.cols = cols
            if self.n >= BLOCK:
                self.rows = array("I")  # a full block takes no more rows
        return cols


class Index:
    """The quantized embeddings of one (tenant, model, dimensions) group."""

    def __init__(self, dims: int) -> None:
        self.dims = dims
        self.big_m = scale_of(dims)
        self.blocks: list[_Block] = []
        self.slots: dict[int, list[tuple[_Block, int]]] = {}
        self.dead = 0

    def __len__(self) -> int:
        return len(self.slots)

    def add(self, rid: int, status: str, seq: int, q: Quantized, raw: bytes, norm: float) -> None:
        if not self.blocks or self.blocks[-1].n >= BLOCK:
            self.blocks.append(_Block(self.dims))
        block = self.blocks[-1]
        pos = block.add(rid, STATUS_CODES.get(status, 1), seq, q, raw, norm, self.big_m)
        self.slots.setdefault(rid, []).append((block, pos))

    def bulk(self, rows: list[tuple[Any, ...]]) -> None:
        """Add up to a block of embeddings, read from the store, as a new block."""
        block = _Block(self.dims)
        block.bulk(rows, self.big_m)
        self.blocks.append(block)
        for pos, x in enumerate(rows):
            self.slots.setdefault(x[0], []).append((block, pos))

    def exact(self, rid: int, q: list[float], q_norm: float) -> tuple[float, int] | None:
        """(exact cosine, sequence) of a record: its best embedding, as
        cosine() computes it."""
        best, seq, d = None, 0, self.dims
        for block, pos in self.slots.get(rid, ()):
            norm = block.norms[pos]
            if norm == 0.0:
                continue
            c = sum(map(operator.mul, q, block.raw[pos * d:(pos + 1) * d])) / (q_norm * norm)
            c = -1.0 if c < -1.0 else 1.0 if c > 1.0 else c
            if best is None or c > best:
                best, seq = c, block.seqs[pos]
        return None if best is None else (best, seq)

    def remove(self, rid: int) -> None:
        for block, pos in self.slots.pop(rid, ()):
            block.rids[pos] = -1
            self.dead += 1

    def set_status(self, rid: int, status: str) -> None:
        code = STATUS_CODES.get(status, 1)
        for block, pos in self.slots.get(rid, ()):
            block.status[pos] = code

    def approximate(self, q: list[float], keep: Callable[[int, int], bool] | None,
                    statuses: frozenset[int] | None) -> tuple[dict[int, float], float]:
        """Approximate cosines of the kept embeddings, the greatest per
        record, and a bound on the error of every one of them."""
        norm = math.sqrt(sum(map(operator.mul, q, q)))
        big_m, d = self.big_m, self.dims
        unit = [x / norm for x in q]
        top = max(map(abs, unit))
        f = big_m / top
        ints = [min(big_m, max(-big_m, round(x * f))) for x in unit]
        qb = [i + big_m for i in ints]
        base = big_m * sum(ints)
        fq = top / big_m
        # |q.e - a.b| <= |q| |e - b| + |q - a| |b| for the unit vectors q, e and
        # their reconstructions a, b, where |e - b| is each embedding's error.
        q_error = math.sqrt(sum((x - i * fq) ** 2 for x, i in zip(unit, ints, strict=True)))
        out: dict[int, float] = {}
        delta = 0.0
        for block in self.blocks:
            n = block.n
            if n == 0:
                continue
            cols = block.columns()
            total = sum(map(operator.mul, qb, cols))
            vals = array("I")
            vals.frombytes(total.to_bytes(4 * n, "little"))
            if not _LITTLE:
                vals.byteswap()
            if keep is None and statuses is not None:
                pairs = [(rid, (v - o - base) * sc) for v, o, sc, rid, st in
                         zip(vals, block.offs, block.scales, block.rids, block.status, strict=True)
                         if rid >= 0 and st in statuses]
            else:
                assert keep is not None
                pairs = [(rid, (v - o - base) * sc) for v, o, sc, rid, st in
                         zip(vals, block.offs, block.scales, block.rids, block.status, strict=True)
                         if rid >= 0 and keep(rid, st)]
            if not pairs:
                continue
            for rid, a in pairs:
                a *= fq
                prev = out.get(rid)
                if prev is None or a > prev:
                    out[rid] = a
            delta = max(delta, block.max_error + (1.0 + block.max_error) * q_error)
        # rounding of the float arithmetic on either side
        delta += 1e-9 + d * 1e-15
        return out, delta




class Indexes:
    """The vector indexes of a store, built on first use and kept in step
    with every committed write."""

    def __init__(self, store: Any) -> None:
        self._store = store
        self._by_key: dict[tuple[int, str, int], Index] = {}
        self._build = threading.Lock()

    def get(self, conn: sqlite3.Connection, tenant: int, model: str, dims: int) -> Index:
        """The index of a group; call with writes kept out (a locked read)."""
        key = (tenant, model, dims)
        index = self._by_key.get(key)
        if index is not None:
            return index
        with self._build:
            index = self._by_key.get(key)
            if index is None:
                index = Index(dims)
                cur = conn.execute(
                    "SELECT e.rid, r.status, r.seq, e.qv, e.scale, e.qsum, e.err, e.raw, e.norm "
                    "FROM embeddings e JOIN records r ON r.rid = e.rid "
                    "WHERE e.tenant = ? AND e.model = ? AND e.dims = ? ORDER BY e.rid",
                    (tenant, model, dims))
                while True:
                    rows = cur.fetchmany(BLOCK)
                    if not rows:
                        break
                    index.bulk(rows)
                self._by_key[key] = index
        return index

    def apply(self, touched: Mapping[int, tuple[int, str | None, int, list[Any] | None]]) -> None:
        """Bring the loaded indexes up to date after a commit."""
        if not self._by_key:
            return
        for rid, (tenant, status, seq, quantized) in touched.items():
            for (num, model, dims), index in list(self._by_key.items()):
                if num != tenant:
                    continue
                if status is None:
                    index.remove(rid)
                elif quantized is None:
                    index.set_status(rid, status)
                else:
                    index.remove(rid)
                    for m, d, q, raw, norm in quantized:
                        if m == model and d == dims:
                            index.add(rid, status, seq, q, raw, norm)
                if index.dead > BLOCK and index.dead > len(index):
                    del self._by_key[(num, model, dims)]  # rebuilt on next use


class VectorRanking:
    """The vector ranking of a search (operations.md section 9.3): the
    vector candidates in order of exact score descending, then sequence
    ascending, computed lazily from approximations within ``delta``."""

    def __init__(self, approx: dict[int, float], delta: float,
                 exact: Callable[[int], tuple[float, int] | None]) -> None:
        self.approx = approx
        self.delta = delta
        self._exact = exact
        self._cache: dict[int, tuple[float, int] | None] = {}
        self._sorted: tuple[list[float], list[int]] | None = None

    def __len__(self) -> int:
        return len(self.approx)

    def exact(self, rid: int) -> tuple[float, int] | None:
        """(score, sequence) of a candidate."""
        if rid not in self._cache:
            self._cache[rid] = self._exact(rid) if rid in self.approx else None
        return self._cache[rid]

    def __iter__(self) -> Iterator[tuple[float, int, int]]:
        return self.iter()

    def iter(self, after: tuple[float, int] | None = None) -> Iterator[tuple[float, int, int]]:
        """(score, sequence, rid) in ranking order, after a (score, sequence)
        position when one is given."""
        delta = self.delta
        pending = [(-(a + delta), rid) for rid, a in self.approx.items()]
        heapq.heapify(pending)
        ready: list[tuple[float, int, int]] = []
        while True:
            while pending and (not ready or -pending[0][0] >= -ready[0][0]):
                neg_upper, rid = heapq.heappop(pending)
                if after is not None and -neg_upper - 2 * delta > after[0]:
                    continue  # certainly ranked before the position
                found = self.exact(rid)
                if found is None:
                    continue
                score, seq = found
                if after is not None and (score > after[0] or (score == after[0] and seq <= after[1])):
                    continue
                heapq.heappush(ready, (-score, seq, rid))
            if not ready:
                return
            neg, seq, rid = heapq.heappop(ready)
            yield -neg, seq, rid

    def order(self) -> tuple[list[float], list[int]]:
        """Approximate scores in ascending order, and their candidates."""
        if self._sorted is None:
            pairs = sorted((a, rid) for rid, a in self.approx.items())
            self._sorted = ([a for a, _ in pairs], [rid for _, rid in pairs])
        return self._sorted

    def rank_bounds(self, rid: int) -> tuple[int, int]:
        """Bounds on the rank of a candidate, from the approximations alone."""
        values, _ = self.order()
        a = self.approx[rid]
        lo = len(values) - bisect_right(values, a + 2 * self.delta) + 1
        hi = len(values) - bisect_left(values, a - 2 * self.delta)
        return lo, hi

    def score_bounds(self, rid: int) -> tuple[float, float]:
        a = self.approx[rid]
        return max(-1.0, a - self.delta), min(1.0, a + self.delta)

    def rank(self, rid: int) -> int:
        """The 1-based rank of a candidate."""
        found = self.exact(rid)
        if found is None:
            raise KeyError(rid)
        score, seq = found
        values, rids = self.order()
        lo = bisect_left(values, score - self.delta)
        hi = bisect_right(values, score + self.delta)
        above = len(values) - hi
        for i in range(lo, hi):
            other = rids[i]
            if other == rid:
                continue
            o = self.exact(other)
            if o is not None and (o[0] > score or (o[0] == score and o[1] < seq)):
                above += 1
        return above + 1

    def extremes(self) -> tuple[float, float] | None:
        """The least and the greatest exact score, or None without candidates."""
        best = next(self.iter(), None)
        if best is None:
            return None
        values, rids = self.order()
        hi = bisect_right(values, values[0] + 2 * self.delta)
        scores = [s[0] for s in (self.exact(x) for x in rids[:hi]) if s is not None]
        return (min(scores) if scores else best[0]), best[0]
