"""Exact vector search on in-memory binary32 matrices.

Each embedding is kept twice: bit-exact in its record, and as its binary32
values with its norm in the ``embeddings`` table. In memory, the embeddings
of one (tenant, model, dimensions) group are the rows of binary32 matrices,
in blocks. A query multiplies every block by the unit query vector in
binary32 (one BLAS matrix-vector product each), which gives every embedding
an approximate cosine together with a proven bound on its error (see
``error_bound``). The exact cosine (binary64 arithmetic on the binary32
values, operations.md section 9.2) is then computed only for the records
whose bound lets them reach the results, so that the ranking is exact.

A group of more than ``ann_threshold`` embeddings (a setting of the store)
also gets an approximate index: an HNSW graph of the usearch library (the
``ann`` extra), keyed by record, built on the first search that uses it and
kept in step with every write after. A vector search asks it for the
nearest embeddings and computes the exact scores of those only
(operations.md section 9.2: the ranking can miss candidates, every score is
exact); search.py says when a search uses it. Without usearch every search
is exact. On SQLite the graph is saved beside the store file and loaded
again when nothing changed the tenant since; see ``Indexes``.
"""

from __future__ import annotations

import hashlib
import heapq
import json
import math
import operator
import os
import sys
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from memorywire import _compiled
from memorywire.service.budget import Budget

try:
    from memorywire import _speedups
except ImportError:  # not built (no C compiler): numpy adds the squares
    _speedups = None  # type: ignore[assignment]

__all__ = ["ANN_THRESHOLD", "Indexes", "STATUS_CODES", "VectorRanking", "VectorRow", "ann_library", "cosine",
           "error_bound", "norm_of", "norms_of", "raw_of"]

#: Rows of one block: the unit of a matrix-vector product and of growth.
BLOCK = 8192
STATUS_CODES = {"active": 1, "pending_approval": 2, "archived": 3, "deleted": 4, "rejected": 5}
#: Embeddings whose norm lies outside [2**-60, 2**60] are compared exactly
#: on every query: in binary32 their products could overflow, or lose their
#: relative precision to underflow.
_REGULAR = (2.0**-60, 2.0**60)
_F32 = np.dtype("<f4")

#: Groups of more embeddings than this get an approximate index (the
#: default ``ann_threshold`` of the stores): below it an exact search takes
#: about a millisecond.
ANN_THRESHOLD = 10_000
#: The HNSW graph: neighbours per node, the breadth of the search when
#: adding and when querying (at least the number of results asked for), and
#: the type of its copy of the vectors: 8-bit, since the records it finds
#: are scored again exactly.
ANN_CONNECTIVITY = 16
ANN_EXPANSION_ADD = 64
ANN_EXPANSION_SEARCH = 128
ANN_DTYPE = "i8"
#: Embeddings per thread of a build: HNSW graphs built by many threads
#: at once are worse (in a group of 1,200, 32 threads miss 2% of the exact
#: first ten where one thread misses none), and a build by one thread is
#: the same graph on every machine.
ANN_BUILD_SHARE = 10_000


def ann_library() -> Any | None:
    """The module usearch.index, or None when usearch is not installed."""
    try:
        import usearch.index
    except ImportError:
        return None
    return usearch.index


Floats = npt.NDArray[np.float64]
Ints = npt.NDArray[np.int64]
#: An embedding as an index loads it: (rid, status, sequence, binary32 bytes, norm).
VectorRow = tuple[int, str, int, bytes, float]
#: A record written or removed, for ``Indexes.apply``: tenant, status (None
#: when removed), sequence, and its embeddings (model, dimensions, binary32
#: bytes, norm) or None when they did not change.
Touched = tuple[int, "str | None", int, "list[Any] | None"]


def error_bound(dims: int) -> float:
    """A bound on |approximate - exact| cosine for one regular embedding.

    With u = 2**-24 the unit roundoff of binary32 and γ = d·u / (1 - d·u), a
    dot product of d terms computed in binary32, in any order and with or
    without fused multiply-add, errs by at most γ·Σ|qᵢeᵢ| ≤ γ·|q|·|e|; the
    rounding of the unit query vector to binary32 adds u·|e|, and underflow
    at most d·2**-149 against a norm of at least 2**-60. The binary64 steps
    (the division by the norm, and the exact cosine itself) stay far below
    the last term.
    """
    u = 2.0**-24
    gamma = dims * u / (1.0 - dims * u)
    return gamma * (1.0 + u) + u + dims * 2.0**-89 + 1e-12


def cosine(q: list[float], q_norm: float, e: list[float]) -> float | None:
    """The cosine similarity of operations.md section 9.2, or None for an
    embedding of zero norm."""
    e_norm = math.sqrt(sum(map(operator.mul, e, e)))
    if e_norm == 0.0:
        return None
    c = sum(map(operator.mul, q, e)) / (q_norm * e_norm)
    return -1.0 if c < -1.0 else 1.0 if c > 1.0 else c


#: Whether Python's ``sum`` of floats adds them one after the other in
#: binary64, as numpy's ``add.accumulate`` does: before Python 3.12, whose
#: ``sum`` compensates its rounding errors.
_SEQUENTIAL_SUM = sys.version_info < (3, 12)
#: The compiled sum of the squares of binary32 values, added one after the
#: other in binary64 (``_speedups.float32_sum_squares``), where ``sum``
#: adds so; not with MEMORYWIRE_PURE=1.
_sum_squares = (_speedups.float32_sum_squares if _speedups is not None and _SEQUENTIAL_SUM
                and not _compiled.PURE else None)


def norm_of(raw: bytes) -> float:
    """The norm of the vector of little-endian binary32 bytes, as cosine()
    computes it: the square root of ``sum`` of the squares of the widened
    values (each square is exact in binary64), in their order. Where
    ``sum`` adds them one after the other, the compiled extension adds them
    so (or numpy, at a third of the time of ``sum``, where it is not
    built); otherwise ``sum`` itself does."""
    if _sum_squares is not None:
        total = _sum_squares(raw)
        if total is not None:
            return math.sqrt(total)
    x = np.frombuffer(raw, dtype=_F32).astype(np.float64)
    if _SEQUENTIAL_SUM:
        if not len(x):
            return 0.0
        x *= x
        return math.sqrt(float(np.add.accumulate(x)[-1]))
    widened = x.tolist()
    return math.sqrt(sum(map(operator.mul, widened, widened)))


def norms_of(raws: Sequence[bytes]) -> list[float]:
    """``norm_of`` of each vector of little-endian binary32 bytes: each by
    itself where the compiled extension adds the squares, else those of
    one length computed together where numpy adds their squares as
    ``norm_of`` does (one after the other, in binary64): the squares of the
    vectors are held column by column, and each column is added to the
    running sums of all the vectors at once."""
    if not _SEQUENTIAL_SUM or len(raws) < 2 or _sum_squares is not None:
        return [norm_of(raw) for raw in raws]
    out = [0.0] * len(raws)
    by_length: dict[int, list[int]] = {}
    for i, raw in enumerate(raws):
        if raw:
            by_length.setdefault(len(raw), []).append(i)
    for length, rows in by_length.items():
        x = np.frombuffer(b"".join([raws[i] for i in rows]), dtype=_F32).reshape(len(rows), length // 4)
        columns = x.T.astype(np.float64, order="C")
        columns *= columns
        sums = columns[0].copy()
        for column in columns[1:]:
            sums += column
        for i, total in zip(rows, sums.tolist(), strict=True):
            out[i] = math.sqrt(total)
    return out


def raw_of(values: list[float]) -> tuple[bytes, float]:
    """The binary32 bytes (little-endian) of a vector and its norm, as
    cosine() computes it."""
    raw = np.asarray(values, dtype=_F32).tobytes()
    return raw, norm_of(raw)


class _Block:
    """Up to BLOCK embeddings: their rows and what a query needs of them."""

    __slots__ = ("matrix", "n", "inv", "norms", "rids", "seqs", "status")

    def __init__(self, dims: int, capacity: int) -> None:
        self.n = 0
        self.matrix = np.empty((capacity, dims), dtype=np.float32)
        self.rids = np.empty(capacity, dtype=np.int64)  # -1 once removed
        self.status = np.empty(capacity, dtype=np.uint8)
        self.seqs = np.empty(capacity, dtype=np.int64)
        self.norms = np.empty(capacity, dtype=np.float64)
        self.inv = np.empty(capacity, dtype=np.float64)  # 1 / norm, 0 when irregular

    def _reserve(self, extra: int) -> None:
        need = self.n + extra
        capacity = len(self.rids)
        if need <= capacity:
            return
        capacity = min(BLOCK, max(need, 2 * capacity))
        for name in ("matrix", "rids", "status", "seqs", "norms", "inv"):
            old = getattr(self, name)
            new = np.empty((capacity, *old.shape[1:]), dtype=old.dtype)
            new[:self.n] = old[:self.n]
            setattr(self, name, new)

    def extend(self, rids: list[int], status: list[int], seqs: list[int], raw: bytes,
               norms: list[float]) -> range:
        """Append embeddings; return their positions."""
        k = len(rids)
        self._reserve(k)
        start, end = self.n, self.n + k
        self.matrix[start:end] = np.frombuffer(raw, dtype=_F32).reshape(k, -1)
        self.rids[start:end] = rids
        self.status[start:end] = status
        self.seqs[start:end] = seqs
        nv = np.asarray(norms, dtype=np.float64)
        self.norms[start:end] = nv
        regular = (nv >= _REGULAR[0]) & (nv <= _REGULAR[1])
        self.inv[start:end] = np.divide(1.0, nv, out=np.zeros(k), where=regular)
        self.n = end
        return range(start, end)


class Index:
    """The embeddings of one (tenant, model, dimensions) group."""

    def __init__(self, dims: int) -> None:
        self.dims = dims
        self.blocks: list[_Block] = []
        #: rid -> the (block, position) of each of its embeddings.
        self.slots: dict[int, list[tuple[_Block, int]]] = {}
        #: Records with more than one embedding in the group.
        self.multi: set[int] = set()
        #: How many live embeddings have a norm outside the regular range
        #: (their inv is 0); a query looks for them only when there are any.
        self.irregular = 0
        self.dead = 0
        #: The position of the tenant's change log that the index reflects.
        self.position = 0
        #: How many records have each status code.
        self.statuses = np.zeros(256, dtype=np.int64)
        #: The approximate index (a usearch Index keyed by rid) once built,
        #: and whether it changed since it was saved or loaded.
        self.ann: Any | None = None
        self.ann_changed = False
        self._ann_lock = threading.Lock()
        #: Whether a thread is building the approximate index.
        self.ann_building = False
        #: While a thread builds it from a snapshot: the records whose
        #: embeddings were added or removed since, to be put right after.
        self._ann_touched: set[int] | None = None
        #: Where the approximate index is saved, or None.
        self.file: Path | None = None

    def __len__(self) -> int:
        return len(self.slots)

    def nbytes(self) -> int:
        """The memory it takes, about."""
        arrays = sum(b.matrix.nbytes + b.rids.nbytes + b.status.nbytes + b.seqs.nbytes + b.norms.nbytes
                     + b.inv.nbytes for b in self.blocks)
        ann = int(self.ann.memory_usage) if self.ann is not None else 0
        return arrays + 150 * len(self.slots) + ann

    def add(self, rids: list[int], status: list[int], seqs: list[int], raw: bytes,
            norms: list[float]) -> None:
        """Append embeddings: their records, statuses, sequences, the
        concatenated binary32 bytes of their values, and their norms."""
        done = 0
        while done < len(rids):
            if not self.blocks or self.blocks[-1].n >= BLOCK:
                self.blocks.append(_Block(self.dims, min(BLOCK, max(64, len(rids) - done))))
            block = self.blocks[-1]
            k = min(BLOCK - block.n, len(rids) - done)
            row = 4 * self.dims
            positions = block.extend(rids[done:done + k], status[done:done + k], seqs[done:done + k],
                                     raw[done * row:(done + k) * row], norms[done:done + k])
            touched = self._ann_touched  # read once: the building thread may drop it
            if touched is not None:
                touched.update(rids[done:done + k])
            for rid, pos, norm, code in zip(rids[done:done + k], positions, norms[done:done + k],
                                            status[done:done + k], strict=True):
                found = self.slots.setdefault(rid, [])
                if found:
                    self.multi.add(rid)
                else:
                    self.statuses[code] += 1
                found.append((block, pos))
                if not _REGULAR[0] <= norm <= _REGULAR[1]:
                    self.irregular += 1
            if self.ann is not None:
                live = positions.start + np.flatnonzero(block.inv[positions.start:positions.stop] > 0.0)
                if len(live):
                    self.ann.add(block.rids[live].astype(np.uint64), block.matrix[live], threads=1)
                    self.ann_changed = True
            done += k

    def remove(self, rid: int) -> None:
        found = self.slots.pop(rid, ())
        touched = self._ann_touched
        if found and touched is not None:
            touched.add(rid)
        for block, pos in found:
            block.rids[pos] = -1
            if block.inv[pos] == 0.0:
                self.irregular -= 1
            self.dead += 1
        if found:
            self.statuses[found[0][0].status[found[0][1]]] -= 1
            if self.ann is not None:
                self.ann.remove(rid)
                self.ann_changed = True
        self.multi.discard(rid)

    def set_status(self, rid: int, status: str) -> None:
        code = STATUS_CODES.get(status, 1)
        found = self.slots.get(rid, ())
        if found:
            self.statuses[found[0][0].status[found[0][1]]] -= 1
            self.statuses[code] += 1
        for block, pos in found:
            block.status[pos] = code

    def status_of(self, rid: int) -> int:
        """The status code of a record of the index."""
        block, pos = self.slots[rid][0]
        return int(block.status[pos])

    def fingerprint(self) -> tuple[int, int]:
        """The number of embeddings the approximate index holds (those of
        regular norm) and the sum of their rids modulo 2**64: what a saved
        index is checked against before it is loaded."""
        count = total = 0
        for block in self.blocks:
            n = block.n
            live = (block.rids[:n] >= 0) & (block.inv[:n] > 0.0)
            count += int(np.count_nonzero(live))
            total = (total + int(block.rids[:n][live].astype(np.uint64).sum(dtype=np.uint64))) % 2**64
        return count, total

    def _new_ann(self) -> Any:
        lib = ann_library()
        assert lib is not None
        return lib.Index(ndim=self.dims, metric="cos", dtype=ANN_DTYPE, multi=True,
                         connectivity=ANN_CONNECTIVITY, expansion_add=ANN_EXPANSION_ADD,
                         expansion_search=ANN_EXPANSION_SEARCH)

    def _ann_of(self, parts: list[tuple[npt.NDArray[np.int64], npt.NDArray[np.float32], npt.NDArray[np.int64]]]
                ) -> Any:
        """An approximate index of the live embeddings of ``_live_parts``."""
        ann = self._new_ann()
        total = sum(len(live) for _, _, live in parts)
        threads = max(1, min(os.cpu_count() or 1, total // ANN_BUILD_SHARE))
        for rids, matrix, live in parts:
            ann.add(rids[live].astype(np.uint64), matrix[live], threads=threads)
        return ann

    def _live_parts(self) -> list[tuple[npt.NDArray[np.int64], npt.NDArray[np.float32], npt.NDArray[np.int64]]]:
        """Of each block: its rids, its matrix and the positions of its live
        embeddings of regular norm, as they are now. The rows below a
        block's count never change and a growing block gets a new matrix,
        so the parts stay what they were while writes go on."""
        parts = []
        for block in self.blocks:
            n = block.n
            rids = block.rids[:n].copy()
            live = np.flatnonzero((rids >= 0) & (block.inv[:n] > 0.0))
            if len(live):
                parts.append((rids, block.matrix, live))
        return parts

    def ann_ready(self) -> bool:
        """Build the approximate index if it is not built; False when usearch
        is missing or the group has embeddings of irregular norm, which are
        ranked exactly only. Call with writes kept out."""
        if self.ann is not None:
            return True
        if ann_library() is None or self.irregular:
            return False
        with self._ann_lock:
            if self.ann is None:
                self.ann = self._ann_of(self._live_parts())
                self.ann_changed = True
        return True

    def ann_build_started(self, writes_kept_out: Callable[[], AbstractContextManager[object]]) -> None:
        """Start building the approximate index in a thread unless one is at
        it. The thread takes a snapshot of the embeddings and notes the
        records that writes touch from then on, both within
        ``writes_kept_out()``; builds without it, so that writes go on; and
        within it again puts the touched records right and installs the
        index, unless one was built meanwhile or the group now has
        embeddings of irregular norm."""
        with self._ann_lock:
            if self.ann is not None or self.ann_building or ann_library() is None or self.irregular:
                return
            self.ann_building = True

        def run() -> None:
            try:
                with writes_kept_out():
                    self._ann_touched = set()
                    parts = self._live_parts()
                ann = self._ann_of(parts)
                del parts
                with writes_kept_out():
                    self._install(ann)
            except Exception:  # noqa: BLE001, S110 - a closed store; the next search starts again
                pass
            finally:
                self._ann_touched = None
                self.ann_building = False

        threading.Thread(target=run, name="memorywire-ann", daemon=True).start()

    def _install(self, ann: Any) -> None:
        """Bring an index built from a snapshot up to date with the records
        touched since, and make it this index's. Call with writes kept out."""
        touched, self._ann_touched = self._ann_touched or set(), None
        with self._ann_lock:
            if self.ann is not None or self.irregular:
                return  # built in the meantime, or no longer one to build
            for rid in touched:
                ann.remove(rid)
                found = [(block, pos) for block, pos in self.slots.get(rid, ()) if block.inv[pos] > 0.0]
                if found:
                    ann.add(np.full(len(found), rid, dtype=np.uint64),
                            np.stack([block.matrix[pos] for block, pos in found]), threads=1)
            self.ann = ann
            self.ann_changed = True

    def ranking_of(self, rids: list[int], q: list[float]) -> VectorRanking:
        """The vector ranking of some records of the index: approximate
        cosines as ``approximate`` computes them (of each record its best
        embedding), refined exactly where the order needs it."""
        q_norm = math.sqrt(sum(map(operator.mul, q, q)))
        unit = (np.asarray(q, dtype=np.float64) / q_norm).astype(np.float32)
        found: list[int] = []
        rows: list[Any] = []
        inv: list[float] = []
        for rid in rids:
            for block, pos in self.slots.get(rid, ()):
                found.append(rid)
                rows.append(block.matrix[pos])
                inv.append(float(block.inv[pos]))
        all_rids = np.asarray(found, dtype=np.int64)
        if rows:
            approx = (np.stack(rows) @ unit).astype(np.float64) * np.asarray(inv)
        else:
            approx = np.empty(0, dtype=np.float64)
        if len(set(found)) < len(found):  # one entry per record: its greatest approximate cosine
            order = np.lexsort((-approx, all_rids))
            sorted_rids = all_rids[order]
            first = np.ones(len(order), dtype=bool)
            first[1:] = sorted_rids[1:] != sorted_rids[:-1]
            all_rids, approx = sorted_rids[first], approx[order][first]
        return VectorRanking(all_rids, approx, error_bound(self.dims), lambda rid: self.exact(rid, q, q_norm))

    def nearest(self, q: list[float], count: int) -> list[int]:
        """The records of the ``count`` nearest embeddings the approximate
        index finds, nearest first, each once."""
        assert self.ann is not None
        found = self.ann.search(np.asarray(q, dtype=np.float32), count, threads=1)
        return list(dict.fromkeys(found.keys.astype(np.int64).tolist()))

    def exact(self, rid: int, q: list[float], q_norm: float) -> tuple[float, int] | None:
        """(exact cosine, sequence) of a record: its best embedding, as
        cosine() computes it."""
        best, seq = None, 0
        for block, pos in self.slots.get(rid, ()):
            norm = float(block.norms[pos])
            c = sum(map(operator.mul, q, block.matrix[pos].tolist())) / (q_norm * norm)
            c = -1.0 if c < -1.0 else 1.0 if c > 1.0 else c
            if best is None or c > best:
                best, seq = c, int(block.seqs[pos])
        return None if best is None else (best, seq)

    def approximate(self, q: list[float], statuses: frozenset[int] | None,
                    allowed: Ints | None) -> tuple[Ints, Floats, float]:
        """The records among the candidates (of the given statuses, or of
        the sorted rids ``allowed``), the approximate cosine of each (of its
        best embedding), and the bound on the error of every one of them."""
        qv = np.asarray(q, dtype=np.float64)
        q_norm = math.sqrt(sum(map(operator.mul, q, q)))
        unit = (qv / q_norm).astype(np.float32)
        table = np.zeros(256, dtype=bool)
        if statuses is not None:
            table[list(statuses)] = True
        rid_parts: list[Ints] = []
        score_parts: list[Floats] = []
        for block in self.blocks:
            n = block.n
            if n == 0:
                continue
            rids = block.rids[:n]
            if statuses is not None:
                keep = table[block.status[:n]] & (rids >= 0)
            else:
                assert allowed is not None
                keep = np.isin(rids, allowed)
            with np.errstate(all="ignore"):  # irregular rows may overflow; they are replaced below
                scores = (block.matrix[:n] @ unit).astype(np.float64) * block.inv[:n]
            if self.irregular:
                for pos in np.flatnonzero(keep & (block.inv[:n] == 0.0)).tolist():
                    found = self.exact(int(rids[pos]), q, q_norm)
                    scores[pos] = found[0] if found is not None else -np.inf
            rid_parts.append(rids[keep])
            score_parts.append(scores[keep])
        all_rids = np.concatenate(rid_parts) if rid_parts else np.empty(0, dtype=np.int64)
        approx = np.concatenate(score_parts) if score_parts else np.empty(0, dtype=np.float64)
        if self.multi and len(all_rids):
            # One entry per record: its greatest approximate cosine.
            order = np.lexsort((-approx, all_rids))
            sorted_rids = all_rids[order]
            first = np.ones(len(order), dtype=bool)
            first[1:] = sorted_rids[1:] != sorted_rids[:-1]
            all_rids, approx = sorted_rids[first], approx[order][first]
        return all_rids, approx, error_bound(self.dims)


class Indexes:
    """The vector indexes of a store, built on first use and kept in step
    with every committed write."""

    def __init__(self, budget: Budget) -> None:
        self._budget = budget
        self._by_key: dict[tuple[int, str, int], Index] = {}
        self._build = threading.Lock()
        #: The folder where approximate indexes are saved (beside a SQLite
        #: store file), or None: a PostgreSQL store, shared by several
        #: processes that each keep their own, builds them from its rows.
        self.folder: Path | None = None

    def _file(self, key: tuple[int, str, int]) -> Path | None:
        if self.folder is None:
            return None
        digest = hashlib.sha256(key[1].encode()).hexdigest()[:16]
        return self.folder / f"{key[0]}-{key[2]}-{digest}.usearch"

    @staticmethod
    def _load_saved(index: Index) -> None:
        """Load the saved approximate index of a group when it holds exactly
        the embeddings the group has now: saved at the position of the
        tenant's log the index reflects, with the same count and rids."""
        lib = ann_library()
        if index.file is None or lib is None or index.irregular:
            return
        try:
            meta = json.loads(index.file.with_suffix(".json").read_text())
            count, total = index.fingerprint()
            if meta != {"position": index.position, "count": count, "rids": total, "dims": index.dims}:
                return
            ann = lib.Index.restore(str(index.file))
        except (OSError, ValueError, RuntimeError):
            return
        if ann is not None and len(ann) == count:
            index.ann = ann
            index.ann_changed = False

    def save(self) -> None:
        """Save the approximate indexes (at close, with writes kept out):
        those that changed since they were saved or loaded, and the
        position of the tenant's log every one reflects; an index that
        cannot be saved is built again on next use."""
        for index in list(self._by_key.values()):
            if index.ann is None or index.file is None:
                continue
            count, total = index.fingerprint()
            meta = index.file.with_suffix(".json")
            try:
                index.file.parent.mkdir(exist_ok=True)
                if index.ann_changed:
                    meta.unlink(missing_ok=True)  # no stale description of a new file
                    tmp = index.file.with_suffix(".tmp")
                    index.ann.save(str(tmp))
                    os.replace(tmp, index.file)
                # An unchanged index is still valid at the index's (later) position.
                meta.write_text(json.dumps({"position": index.position, "count": count, "rids": total,
                                            "dims": index.dims}))
                index.ann_changed = False
            except (OSError, RuntimeError):
                continue

    def loaded(self, tenant: int, model: str, dims: int) -> Index | None:
        """The index of a group if it is in memory."""
        index = self._by_key.get((tenant, model, dims))
        if index is not None:
            self._budget.used(("vectors", tenant, model, dims))
        return index

    def tenants(self) -> list[int]:
        """The tenants that have an index in memory."""
        return sorted({key[0] for key in list(self._by_key)})

    def of_tenant(self, tenant: int) -> list[Index]:
        """The indexes of a tenant that are in memory."""
        return [index for key, index in list(self._by_key.items()) if key[0] == tenant]

    def get(self, tenant: int, model: str, dims: int, load: Callable[[], Iterable[Sequence[VectorRow]]],
            position: int = 0) -> Index:
        """The index of a group; call with writes kept out (a locked read).
        ``load`` gives its embeddings in batches, in rid order, and
        ``position`` the position of the tenant's change log they reflect."""
        key = (tenant, model, dims)
        index = self._by_key.get(key)
        if index is not None:
            self._budget.used(("vectors", *key))
            return index
        with self._build:
            index = self._by_key.get(key)
            if index is None:
                index = Index(dims)
                for rows in load():
                    index.add([x[0] for x in rows], [STATUS_CODES.get(x[1], 1) for x in rows],
                              [x[2] for x in rows], b"".join(x[3] for x in rows), [x[4] for x in rows])
                index.position = position
                index.file = self._file(key)
                self._load_saved(index)
                self._by_key[key] = index
                self._budget.loaded(("vectors", *key), index.nbytes,
                                    lambda: self._by_key.pop(key, None))
        return index

    def drop(self, tenant: int) -> None:
        """Forget the indexes of a tenant, to be loaded again on next use."""
        for key in [k for k in list(self._by_key) if k[0] == tenant]:
            if self._by_key.pop(key, None) is not None:
                self._budget.forget(("vectors", *key))

    def apply(self, touched: Mapping[int, Touched], positions: Mapping[int, int] | None = None) -> None:
        """Bring the loaded indexes up to date after a commit; ``positions``:
        the position each tenant's log is now at."""
        if not self._by_key:
            return
        for rid, (tenant, status, seq, embeddings) in touched.items():
            for (num, model, dims), index in list(self._by_key.items()):
                if num != tenant:
                    continue
                if status is None:
                    index.remove(rid)
                elif embeddings is None:
                    index.set_status(rid, status)
                else:
                    index.remove(rid)
                    code = STATUS_CODES.get(status, 1)
                    for m, d, raw, norm in embeddings:
                        if m == model and d == dims:
                            index.add([rid], [code], [seq], raw, [norm])
                if index.dead > BLOCK and index.dead > len(index):
                    del self._by_key[(num, model, dims)]  # rebuilt on next use
                    self._budget.forget(("vectors", num, model, dims))
        for tenant, position in (positions or {}).items():
            for index in self.of_tenant(tenant):
                index.position = position


class VectorRanking:
    """The vector ranking of a search (operations.md section 9.3): the
    vector candidates in order of exact score descending, then sequence
    ascending, computed lazily from approximations within ``delta``."""

    def __init__(self, rids: Ints, approx: Floats, delta: float,
                 exact: Callable[[int], tuple[float, int] | None]) -> None:
        self.rids = rids
        self.approx = approx
        self.delta = delta
        self._exact = exact
        self._cache: dict[int, tuple[float, int] | None] = {}
        self._positions: dict[int, int] | None = None
        self._sorted: tuple[Floats, list[int]] | None = None
        #: Exact scores and sequences in the order of ``order()``, NaN until known.
        self._exact_sorted: tuple[Floats, Ints] | None = None

    def __len__(self) -> int:
        return len(self.rids)

    def _position(self, rid: int) -> int | None:
        if self._positions is None:
            self._positions = dict(zip(self.rids.tolist(), range(len(self.rids)), strict=True))
        return self._positions.get(rid)

    def __contains__(self, rid: object) -> bool:
        return isinstance(rid, int) and self._position(rid) is not None

    def approx_of(self, rid: int) -> float:
        pos = self._position(rid)
        if pos is None:
            raise KeyError(rid)
        return float(self.approx[pos])

    def exact(self, rid: int) -> tuple[float, int] | None:
        """(score, sequence) of a candidate."""
        try:
            return self._cache[rid]
        except KeyError:
            found = self._cache[rid] = self._exact(rid)
            return found

    def _descending(self) -> Iterator[tuple[float, int]]:
        """(approximate score, rid) of every candidate, greatest first:
        sorted in growing slices, so that a query that needs only the first
        few sorts only a few."""
        if self._sorted is not None:
            values, rids = self._sorted
            yield from zip(reversed(values.tolist()), reversed(rids), strict=True)
            return
        left = len(self.approx)
        work = -self.approx  # a copy: taken entries become +inf
        size = 32
        while left:
            if size >= left // 4:
                idx = np.argsort(work, kind="stable")[:left]
            else:
                idx = np.argpartition(work, size - 1)[:size]
                idx = idx[np.argsort(work[idx], kind="stable")]
            values = (-work[idx]).tolist()
            work[idx] = np.inf
            left -= len(idx)
            yield from zip(values, self.rids[idx].tolist(), strict=True)
            size *= 8

    def __iter__(self) -> Iterator[tuple[float, int, int]]:
        return self.iter()

    def iter(self, after: tuple[float, int] | None = None) -> Iterator[tuple[float, int, int]]:
        """(score, sequence, rid) in ranking order, after a (score, sequence)
        position when one is given."""
        delta = self.delta
        stream = self._descending()
        upcoming = next(stream, None)
        ready: list[tuple[float, int, int]] = []
        while True:
            while upcoming is not None and (not ready or upcoming[0] + delta >= -ready[0][0]):
                a, rid = upcoming
                upcoming = next(stream, None)
                if after is not None and a - delta > after[0]:
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

    def order(self) -> tuple[Floats, list[int]]:
        """Approximate scores in ascending order, and their candidates."""
        if self._sorted is None:
            idx = np.argsort(self.approx, kind="stable")
            self._sorted = (self.approx[idx], self.rids[idx].tolist())
        return self._sorted

    def rank_bounds(self, rid: int) -> tuple[int, int]:
        """Bounds on the rank of a candidate, from the approximations alone."""
        values, _ = self.order()
        a = self.approx_of(rid)
        n = len(values)
        lo = n - int(np.searchsorted(values, a + 2 * self.delta, side="right")) + 1
        hi = n - int(np.searchsorted(values, a - 2 * self.delta, side="left"))
        return lo, hi

    def score_bounds(self, rid: int) -> tuple[float, float]:
        a = self.approx_of(rid)
        return max(-1.0, a - self.delta), min(1.0, a + self.delta)

    def rank(self, rid: int) -> int:
        """The 1-based rank of a candidate: those certainly ranked before it
        by their approximate scores, and those within the error bound of its
        score compared exactly (in arrays, so that many records of one
        score, such as copies of one embedding, cost little each)."""
        found = self.exact(rid)
        if found is None:
            raise KeyError(rid)
        score, seq = found
        values, rids = self.order()
        lo = int(np.searchsorted(values, score - self.delta, side="left"))
        hi = int(np.searchsorted(values, score + self.delta, side="right"))
        if self._exact_sorted is None:
            self._exact_sorted = (np.full(len(values), np.nan), np.zeros(len(values), dtype=np.int64))
        scores, seqs = self._exact_sorted
        for i in np.flatnonzero(np.isnan(scores[lo:hi])).tolist():
            other = self.exact(rids[lo + i])
            scores[lo + i], seqs[lo + i] = other if other is not None else (-np.inf, 0)
        band, band_seqs = scores[lo:hi], seqs[lo:hi]
        before = np.count_nonzero((band > score) | ((band == score) & (band_seqs < seq)))
        return len(values) - hi + int(before) + 1

    def extremes(self) -> tuple[float, float] | None:
        """The least and the greatest exact score, or None without candidates."""
        best = next(self.iter(), None)
        if best is None:
            return None
        values, rids = self.order()
        hi = int(np.searchsorted(values, values[0] + 2 * self.delta, side="right"))
        scores = [s[0] for s in (self.exact(x) for x in rids[:hi]) if s is not None]
        return (min(scores) if scores else best[0]), best[0]
