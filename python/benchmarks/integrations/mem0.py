#!/usr/bin/env python3
# Copyright 2026 The memorywire Authors
# SPDX-License-Identifier: Apache-2.0
"""Per-turn overhead of the mem0 vector store backend against mem0's default.

One turn is what mem0's Memory.add asks of its vector store once the LLM has
extracted a fact: a search of the user's memories (top 10, filtered by
user_id), then the insert of one vector with its payload; and a
Memory.search: a search of the top 60 (mem0 over-fetches four times the
top_k of 20, at least 60). The store grows by one memory per turn up to -n.

  baseline     mem0's Qdrant store on an in-memory QdrantClient (":memory:"),
               the provider mem0 uses by default
  memorywire   MemorywireVectorStore on a memorywire serve started on
               loopback (SQLite store in a temporary directory)

Vectors are random (--dims, 384 by default), so the figures measure the
stores and not an embedder or an LLM. Each figure is the median over the
turns of a window and over --repeat rounds. Run it in the mem0 framework
environment:

    PYTHONPATH=python/src .venv-fw/mem0/bin/python python/benchmarks/integrations/mem0.py
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

os.environ["MEM0_TELEMETRY"] = "False"
HERE = Path(__file__).resolve().parent
# This script's name is its framework's: its own folder must not hide the package.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]

from mem0.vector_stores.qdrant import Qdrant  # noqa: E402
from qdrant_client import QdrantClient  # noqa: E402

from memorywire.integrations.mem0 import MemorywireVectorStore  # noqa: E402
from memorywire.service.process import ServeProcess  # noqa: E402


def turns(store: Any, n: int, dims: int, at: list[int], rng: random.Random) -> dict[int, tuple[float, float]]:
    """Seconds of an add turn and of a search, at each store size of ``at``."""
    out: dict[int, tuple[float, float]] = {}
    window: list[tuple[float, float]] = []
    for k in range(1, n + 1):
        vec = [rng.gauss(0, 1) for _ in range(dims)]
        user = f"u{k % 4}"
        payload = {"data": f"Fact number {k} about {user}.", "hash": uuid.uuid4().hex, "user_id": user,
                   "created_at": "2026-05-04T12:30:15.124456+00:00", "updated_at": "2026-05-04T12:30:15.124456+00:00",
                   "text_lemmatized": f"fact number {k} {user}"}
        start = time.perf_counter()
        store.search(query=payload["data"], vectors=vec, top_k=10, filters={"user_id": user})
        store.insert(vectors=[vec], payloads=[payload], ids=[str(uuid.uuid4())])
        added = time.perf_counter()
        store.search(query=payload["data"], vectors=vec, top_k=60, filters={"user_id": user})
        window.append((added - start, time.perf_counter() - added))
        if k in at:
            out[k] = (statistics.median(w[0] for w in window), statistics.median(w[1] for w in window))
            window = []
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("-n", type=int, default=400, help="memories at the end (default 400)")
    parser.add_argument("--dims", type=int, default=384)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    at = sorted({10, args.n // 4, args.n // 2, args.n})
    rounds: dict[str, list[dict[int, tuple[float, float]]]] = {"baseline": [], "memorywire": []}
    with tempfile.TemporaryDirectory() as tmp:
        served = ServeProcess(Path(tmp) / "store.sqlite3", ["--quiet"])
        try:
            for r in range(args.repeat):
                base = Qdrant(collection_name=f"bench{r}", embedding_model_dims=args.dims,
                              client=QdrantClient(":memory:"))
                rounds["baseline"].append(turns(base, args.n, args.dims, at, random.Random(r)))
                mw = MemorywireVectorStore(collection_name=f"bench{r}", embedding_model_dims=args.dims,
                                           service=served.target, tenant=f"bench-{r}")
                rounds["memorywire"].append(turns(mw, args.n, args.dims, at, random.Random(r)))
                mw.close()
        finally:
            served.stop()
    print(f"mem0 vector store per turn, {args.dims} dimensions: median of {args.repeat} rounds, in ms")
    print("add turn: search top 10 by user_id + insert one; search: top 60 by user_id")
    print("baseline: mem0's Qdrant store, in-memory QdrantClient; ratio: memorywire / baseline")
    print(f"{'memories':>9} {'add base':>9} {'add mw':>8} {'ratio':>7} "
          f"{'search base':>12} {'search mw':>10} {'ratio':>7}")
    for k in at:
        cells = []
        for part, width in ((0, (9, 8)), (1, (12, 10))):
            b = statistics.median(r[k][part] for r in rounds["baseline"]) * 1000
            m = statistics.median(r[k][part] for r in rounds["memorywire"]) * 1000
            cells.append(f"{b:>{width[0]}.3f} {m:>{width[1]}.3f} {m / b:>7.1f}")
        print(f"{k:>9} " + " ".join(cells))


if __name__ == "__main__":
    main()
