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
import sys
import threading
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, Protocol

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
    """(components, scale, sum of the signed components, L1 norm of the
    reconstruction) of a vector, or None for a vector of zero norm."""
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
    return comps.tobytes(), scale, sum(ints), sum(map(abs, ints)) * scale


def cosine(q: list[float], q_norm: float, e: list[float]) -> float | None:
    """The cosine similarity of operations.md section 9.2, or None for an
    embedding of zero norm."""
    e_norm = math.sqrt(sum(map(operator.mul, e, e)))
    if e_norm == 0.0:
        return None
    c = sum(map(operator.mul, q, e)) / (q_norm * e_norm)
    return -1.0 if c < -1.0 else 1.0 if c > 1.0 else c


class _Block:
    __slots__ = ("cols", "dims", "l1s", "max_l1", "max_scale", "n", "offs", "rids", "rows",
                 "scales", "status")

    def __init__(self, dims: int) -> None:
        self.dims = dims
        self.n = 0
        self.rows = array("I")
        self.rids = array("q")
        self.status = bytearray()
        self.offs = array("q")
        self.scales = array("d")
        self.l1s = array("d")
        self.cols: list[int] | None = None
        self.max_scale = 0.0
        self.max_l1 = 0.0

    def add(self, rid: int, status: int, q: Quantized, big_m: int) -> int:
        comps, scale, qsum, l1 = q
        row = array("I")
        row.frombytes(comps)
        if not _LITTLE:
            row.byteswap()
        self.rows.extend(row)
        self.rids.append(rid)
        self.status.append(status)
        self.offs.append(big_m * qsum + self.dims * big_m * big_m)
        self.scales.append(scale)
        self.l1s.append(l1)
        self.max_scale = max(self.max_scale, scale)
        self.max_l1 = max(self.max_l1, l1)
        self.cols = None
        self.n += 1
        return self.n - 1

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

    def add(self, rid: int, status: str, q: Quantized) -> None:
        if not self.blocks or self.blocks[-1].n >= BLOCK:
            self.blocks.append(_Block(self.dims))
        block = self.blocks[-1]
        pos = block.add(rid, STATUS_CODES.get(status, 1), q, self.big_m)
        self.slots.setdefault(rid, []).append((block, pos))

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
        l1q = sum(map(abs, unit))
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
                         zip(vals, block.offs, block.scales, block.rids, block.status)
                         if rid >= 0 and st in statuses]
            else:
                assert keep is not None
                pairs = [(rid, (v - o - base) * sc) for v, o, sc, rid, st in
                         zip(vals, block.offs, block.scales, block.rids, block.status)
                         if rid >= 0 and keep(rid, st)]
            if not pairs:
                continue
            for rid, a in pairs:
                a *= fq
                prev = out.get(rid)
                if prev is None or a > prev:
                    out[rid] = a
            delta = max(delta, (l1q * block.max_scale + block.max_l1 * fq) / 2)
        # rounding of the float arithmetic on either side
        delta += 1e-9 + d * 1e-15
        return out, delta


class _Source(Protocol):
    def execute(self, sql: str, params: Iterable[Any] = ...) -> Any: ...


class Indexes:
    """The vector indexes of a store, built on first use and kept in step
    with every committed write."""

    def __init__(self, store: Any) -> None:
        self._store = store
        self._by_key: dict[tuple[int, str, int], Index] = {}
        self._build = threading.Lock()

    def get(self, conn: _Source, tenant: int, model: str, dims: int) -> Index:
        """The index of a group; call with writes kept out (a locked read)."""
        key = (tenant, model, dims)
        index = self._by_key.get(key)
        if index is not None:
            return index
        with self._build:
            index = self._by_key.get(key)
            if index is None:
                index = Index(dims)
                for rid, status, qv, scale, qsum, l1 in conn.execute(
                        "SELECT e.rid, r.status, e.qv, e.scale, e.qsum, e.l1 FROM embeddings e "
                        "JOIN records r ON r.rid = e.rid "
                        "WHERE e.tenant = ? AND e.model = ? AND e.dims = ? ORDER BY e.rid",
                        (tenant, model, dims)):
                    index.add(rid, status, (qv, scale, qsum, l1))
                self._by_key[key] = index
        return index

    def apply(self, touched: Mapping[int, tuple[int, str | None, list[Any] | None]]) -> None:
        """Bring the loaded indexes up to date after a commit."""
        if not self._by_key:
            return
        for rid, (tenant, status, quantized) in touched.items():
            for (num, model, dims), index in list(self._by_key.items()):
                if num != tenant:
                    continue
                if status is None:
                    index.remove(rid)
                elif quantized is None:
                    index.set_status(rid, status)
                else:
                    index.remove(rid)
                    for m, d, q in quantized:
                        if m == model and d == dims:
                            index.add(rid, status, q)
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

    def _order(self) -> tuple[list[float], list[int]]:
        if self._sorted is None:
            pairs = sorted((a, rid) for rid, a in self.approx.items())
            self._sorted = ([a for a, _ in pairs], [rid for _, rid in pairs])
        return self._sorted

    def rank(self, rid: int) -> int:
        """The 1-based rank of a candidate."""
        found = self.exact(rid)
        if found is None:
            raise KeyError(rid)
        score, seq = found
        values, rids = self._order()
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
        values, rids = self._order()
        hi = bisect_right(values, values[0] + 2 * self.delta)
        scores = [s[0] for s in (self.exact(x) for x in rids[:hi]) if s is not None]
        return (min(scores) if scores else best[0]), best[0]
