#!/usr/bin/env python3
# Copyright 2026 The memorywire Authors
# SPDX-License-Identifier: Apache-2.0
"""Load and latency of the reference memory service (memorywire.service).

Three parts, each against a real server (``python -m memorywire.service``, a
subprocess on 127.0.0.1 with a port the system picks, on a SQLite file in a
temporary directory or a database of a throwaway PostgreSQL cluster) and the
Python client (memorywire.client.Client):

  load    N concurrent clients, each in a thread, send a mix of operations
          (put, get, history, text search, vector search, update) to one
          tenant for a bounded time and a bounded number of operations, and
          the script reports operations/s and the p50 and p99 latency of
          each operation, for each of --stores side by side: a SQLite file
          (sqlite), one replica on a PostgreSQL database (postgresql), and
          two replicas on one database with the clients spread over both
          (postgresql-2).

  bindings the load of ``load`` against one server on a SQLite file that
          serves both bindings (``serve --http``): the same operations, the
          same clients and concurrency, over gRPC (the Python client) and
          over the HTTP binding (JSON bodies, one kept-alive connection per
          client), in --rounds alternating rounds; the script reports the
          median over the rounds of the operations/s and of the p50 and
          p99 latency of each binding, and the ratio of HTTP to gRPC.

  vector  for each of --vector-stores, a store of --records records with
          one --dims-dimensional float32 embedding each (100,000 x 384 by
          default) is written, then the
          server answers --queries vector searches (limit 10), and the script
          reports the p50 and p99 latency, the first (cold) query apart, and
          text and hybrid (text + vector) searches the same way, the first
          hybrid query (which loads the text postings) apart.

  tenants one Put in each of --tenants new tenants (2,000 by default), one
          after the other, and the script reports the latency of the first
          100 and of the last 100, so that a cost of a new tenant that grows
          with the number of tenants shows.

  ingest  (--ingest, on its own) batched Put in-process, --ingest-batch
          records a batch (1,000) with one --dims-dimensional embedding each,
          --ingest-records records (100,000) into a new store of each of
          --ingest-stores, against baselines on the same rows in the same
          run: raw sqlite3 (executemany of id, text and the binary32 bytes
          into one table, a transaction a batch, WAL with the same synchronous
          level), and sqlite-vec (a vec0 table beside that one) where its
          extension loads; with sqlite among the stores, the same batches
          also go through gRPC, from one Client to memorywire serve on a new
          SQLite file (synchronous=FULL, its default), as a new user loads
          them. Rounds alternate (--rounds, 3) and the script
          reports the median records/s of each and their ratios; then the
          bytes of each table of the last store of each kind, and their ratio
          to the raw size of the records (their JSON without embedding values,
          plus 4 bytes a value).

Every loop is bounded in count and time and stops by itself; all traffic stays
on loopback. Numbers depend on the machine and on what else runs on it.
PostgreSQL is a throwaway cluster on loopback (tools/postgres_cluster.py:
Debian's server, installed where it is missing), with fsync off; the SQLite
store runs with its default synchronous=FULL.

Usage:

    python bench_service.py [--clients 8] [--seconds 10] [--ops 20000]
                            [--stores sqlite,postgresql,postgresql-2]
                            [--vector-stores sqlite,postgresql]
                            [--records 100000] [--dims 384] [--queries 30]
                            [--tenants 2000] [--rounds 3] [--skip-load]
                            [--skip-bindings] [--skip-vector]
                            [--skip-tenants] [--json]
    python bench_service.py --ingest [--ingest-records 100000] [--ingest-batch 1000]
                            [--ingest-stores sqlite,postgresql] [--rounds 3]
                            [--synchronous FULL] [--dims 384]
"""

from __future__ import annotations

import argparse
import gc
import http.client
import importlib
import importlib.util
import json
import os
import platform
import random
import statistics
import sys
import tempfile
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

import memorywire.json
from memorywire.client import Client
from memorywire.client._shared import Operations, Unary
from memorywire.service.registry import operation

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))

from postgres_cluster import Cluster  # noqa: E402

from memorywire.service.process import ServeProcess  # noqa: E402

# --no-warm: the first queries load the indexes, and are timed apart.
SERVE_FLAGS = ["--quiet", "--max-workers", "64", "--no-warm"]

SPEC = "1.0"
#: The deployments the load part compares: a store kind and a number of replicas.
DEPLOYMENTS = {"sqlite": ("sqlite", 1), "postgresql": ("postgresql", 1), "postgresql-2": ("postgresql", 2)}


class Stores:
    """Where the stores of a run live: files in a directory, and databases
    of one PostgreSQL cluster, started when first needed."""

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.cluster: Cluster | None = None

    def new(self, kind: str, name: str) -> str:
        if kind == "sqlite":
            return str(self.workdir / f"{name}.sqlite3")
        if self.cluster is None:
            log("postgresql: starting a throwaway cluster")
            self.cluster = Cluster.start()
        return self.cluster.create_database(name.replace("-", "_"))

    def close(self) -> None:
        if self.cluster is not None:
            self.cluster.stop()


@contextmanager
def serving(store: str, replicas: int, flags: tuple[str, ...] = ()) -> Iterator[list[ServeProcess]]:
    """``replicas`` processes of memorywire serve on one store."""
    servers: list[ServeProcess] = []
    try:
        for _ in range(replicas):
            servers.append(ServeProcess(store, [*SERVE_FLAGS, *flags]))
        yield servers
    finally:
        for server in servers:
            server.stop()


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def summary(samples: list[float]) -> dict[str, float]:
    s = sorted(samples)
    if not s:
        return {"count": 0}

    def pct(p: float) -> float:
        return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))] * 1000

    return {"count": len(s), "p50_ms": round(pct(50), 3), "p99_ms": round(pct(99), 3),
            "mean_ms": round(statistics.fmean(s) * 1000, 3)}


def vector(rng: random.Random, dims: int) -> list[float]:
    return [(b - 128) / 128.0 for b in rng.randbytes(dims)]


# -- load ------------------------------------------------------------------------------

DIMS = 32
WORDS = ("window seat vegetarian flight hotel meeting report budget launch review design "
         "deadline invoice travel coffee music garden").split()


class HttpClient(Operations[dict[str, Any], Any, Any]):
    """The operations of the Python client over the HTTP binding: JSON
    bodies (the canonical JSON form, as the gRPC client encodes Protobuf),
    one kept-alive connection; the unary operations only."""

    def __init__(self, base_url: str, *, tenant: str, timeout: float = 30.0) -> None:
        host, _, port = base_url.removeprefix("http://").rpartition(":")
        self.conn = http.client.HTTPConnection(host, int(port), timeout=timeout)
        self.headers = {"content-type": "application/json", "accept": "application/json",
                        "memorywire-tenant": tenant}
        self.timeout = timeout

    def _unary(self, call: Unary) -> dict[str, Any]:
        op = operation(call.method)
        req = dict(call.request)
        req.setdefault("specversion", SPEC)
        req.setdefault("operation_id", f"op-{random.getrandbits(64):016x}")
        self.conn.request("POST", op.path, memorywire.json.encode(req, type=op.request_type), self.headers)
        response = self.conn.getresponse()
        data = response.read()
        if response.status != 200:
            raise RuntimeError(f"{call.method}: HTTP {response.status}: {data[:200]!r}")
        return memorywire.json.decode(data, type=op.response_type)

    # The load mix is unary: streams go over the real client's HTTP transport
    # in the conformance suite, not through this timing client.
    def _watch(self, call: Any) -> Any:
        raise RuntimeError("the benchmark's HTTP client makes unary calls only, not Watch")

    def _export(self, call: Any) -> Any:
        raise RuntimeError("the benchmark's HTTP client makes unary calls only, not Export")

    def _import(self, call: Any) -> Any:
        raise RuntimeError("the benchmark's HTTP client makes unary calls only, not Import")

    def __enter__(self) -> HttpClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.conn.close()


def seed(mw: Any) -> None:
    """2000 records of 10 users, each with a text and an embedding."""
    rng = random.Random(1)
    for start in range(0, 2000, 500):
        mw.put([{"id": f"seed-{i}", "kind": "fact",
                 "fact": {"text": " ".join(rng.choice(WORDS) for _ in range(8))},
                 "scope": {"user": f"u{i % 10}"},
                 "embeddings": [{"model": "bench", "dimensions": DIMS, "values": vector(rng, DIMS)}]}
                for i in range(start, start + 500)])


def run_load(args: argparse.Namespace, stores: Stores, deployment: str) -> dict[str, Any]:
    kind, replicas = DEPLOYMENTS[deployment]
    with serving(stores.new(kind, f"load-{deployment}"), replicas) as servers:
        log(f"load ({deployment}): {', '.join(s.target for s in servers)}; seeding 2000 records")
        with Client(servers[0].target, tenant="bench") as mw:
            seed(mw)
        # The clients are spread over the replicas, one each in turn.
        result = drive(args, lambda n: Client(servers[n % len(servers)].target, tenant="bench", timeout=30),
                       "c")
        return {"deployment": deployment, "replicas": replicas, **result}


def drive(args: argparse.Namespace, connect: Callable[[int], AbstractContextManager[Any]],
          tag: str) -> dict[str, Any]:
    """The load: ``args.clients`` threads, client n made by ``connect(n)``,
    sending the mix of operations; puts write new ids that start with ``tag``."""
    dims, words = DIMS, WORDS
    latencies: dict[str, list[float]] = defaultdict(list)
    errors: dict[str, int] = defaultdict(int)
    lock = threading.Lock()
    budget = [args.ops]
    deadline = time.monotonic() + args.seconds
    barrier = threading.Barrier(args.clients)

    def client(n: int) -> None:
        rng = random.Random(100 + n)
        mine: dict[str, list[float]] = defaultdict(list)
        with connect(n) as mw:
            barrier.wait()
            i = 0
            while time.monotonic() < deadline:
                with lock:
                    if budget[0] <= 0:
                        break
                    budget[0] -= 1
                op = rng.choices(("put", "get", "history", "search_text", "search_vector", "update"),
                                 weights=(30, 25, 10, 15, 15, 5))[0]
                started = time.perf_counter()
                try:
                    if op == "put":
                        mw.put({"id": f"{tag}{n}-{i}", "kind": "fact",
                                "fact": {"text": " ".join(rng.choice(words) for _ in range(8))},
                                "scope": {"user": f"u{i % 10}"},
                                "embeddings": [{"model": "bench", "dimensions": dims,
                                                "values": vector(rng, dims)}]})
                    elif op == "get":
                        mw.get([f"seed-{rng.randrange(2000)}" for _ in range(5)])
                    elif op == "history":
                        mw.history(scope={"user": f"u{rng.randrange(10)}"}, limit=20,
                                   order="descending")
                    elif op == "search_text":
                        mw.search(" ".join(rng.choice(words) for _ in range(2)))
                    elif op == "search_vector":
                        mw.search(vector={"model": "bench", "values": vector(rng, dims)})
                    else:
                        mw.update(f"seed-{rng.randrange(2000)}",
                                  {"lifecycle": {"importance": round(rng.random(), 3)}})
                except Exception:  # noqa: BLE001 - counted, the run goes on
                    with lock:
                        errors[op] += 1
                    continue
                mine[op].append(time.perf_counter() - started)
                i += 1
        with lock:
            for op, xs in mine.items():
                latencies[op].extend(xs)

    log(f"load: {args.clients} clients for at most {args.seconds} s / {args.ops} operations")
    started = time.perf_counter()
    threads = [threading.Thread(target=client, args=(n,)) for n in range(args.clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - started
    total = sum(len(v) for v in latencies.values())
    return {"clients": args.clients,
            "seconds": round(elapsed, 2), "operations": total,
            "operations_per_second": round(total / elapsed, 1), "errors": dict(errors),
            "all": summary([x for xs in latencies.values() for x in xs]),
            "by_operation": {op: summary(xs) for op, xs in sorted(latencies.items())}}


# -- gRPC and HTTP side by side -------------------------------------------------------

BINDINGS = ("grpc", "http")


def run_bindings(args: argparse.Namespace, stores: Stores) -> dict[str, Any]:
    """The load over each binding of one server, in alternating rounds."""
    with serving(stores.new("sqlite", "bindings"), 1, ("--http", "127.0.0.1:0")) as (server,):
        address = next(line["address"] for line in server.lines if line.get("event") == "listening_http")
        base_url = f"http://{address}"
        log(f"bindings: gRPC {server.target}, HTTP {base_url}; seeding 2000 records")
        with Client(server.target, tenant="bench") as mw:
            seed(mw)
        connect: dict[str, Callable[[int], AbstractContextManager[Any]]] = {
            "grpc": lambda n: Client(server.target, tenant="bench", timeout=30),
            "http": lambda n: HttpClient(base_url, tenant="bench", timeout=30),
        }
        rounds: dict[str, list[dict[str, Any]]] = {b: [] for b in BINDINGS}
        for r in range(args.rounds):
            # Alternating which goes first, so that neither always meets the larger store.
            for binding in BINDINGS if r % 2 == 0 else BINDINGS[::-1]:
                log(f"bindings: round {r + 1} of {args.rounds}, {binding}")
                rounds[binding].append(drive(args, connect[binding], f"{binding}{r}-"))
    report: dict[str, Any] = {"clients": args.clients, "rounds": args.rounds, "bindings": {}}
    for binding, runs in rounds.items():
        ops = sorted({op for run in runs for op in run["by_operation"]})
        report["bindings"][binding] = {
            "operations_per_second": statistics.median(run["operations_per_second"] for run in runs),
            "errors": sum(sum(run["errors"].values()) for run in runs),
            "p50_ms": statistics.median(run["all"]["p50_ms"] for run in runs),
            "p99_ms": statistics.median(run["all"]["p99_ms"] for run in runs),
            "by_operation": {op: {k: statistics.median(run["by_operation"][op][k] for run in runs
                                                       if op in run["by_operation"])
                                  for k in ("p50_ms", "p99_ms")} for op in ops},
            "rounds_operations_per_second": [run["operations_per_second"] for run in runs]}
    g, h = report["bindings"]["grpc"], report["bindings"]["http"]
    report["http_over_grpc"] = {
        "operations_per_second": round(h["operations_per_second"] / g["operations_per_second"], 2),
        "p50": round(h["p50_ms"] / g["p50_ms"], 2), "p99": round(h["p99_ms"] / g["p99_ms"], 2)}
    return report


# -- vector search at scale ---------------------------------------------------------


def build_store(location: str, records: int, dims: int) -> dict[str, float]:
    """Write the store in-process (the same code the server runs), in
    batches of 1000 records, one transaction each."""
    from memorywire.service import Service
    from memorywire.service.operations import Call
    from memorywire.service.stores import is_postgres, open_store

    store = open_store(location) if is_postgres(location) else open_store(location, synchronous="NORMAL")
    svc = Service(store)
    rng = random.Random(7)
    started = time.perf_counter()
    for start in range(0, records, 1000):
        items = [{"record": {"id": f"r{i}", "kind": "fact",
                             "fact": {"text": f"memory {i} about topic {i % 97} and item {i % 1013}"},
                             "embeddings": [{"model": "bench", "dimensions": dims,
                                             "values": vector(rng, dims)}]}}
                 for i in range(start, min(records, start + 1000))]
        svc.put(Call("bench"), {"specversion": SPEC, "operation_id": f"load-{start}", "items": items})
        if start % 20000 == 0:
            log(f"vector: {start + len(items)} records written")
    elapsed = time.perf_counter() - started
    store.close()
    return {"records": records, "seconds": round(elapsed, 1),
            "records_per_second": round(records / elapsed, 1)}


def run_vector(args: argparse.Namespace, stores: Stores, kind: str) -> dict[str, Any]:
    keep = Path(args.keep) if args.keep else None
    name = f"vectors-{args.records}x{args.dims}"
    path = keep / f"{name}.sqlite3" if keep is not None and kind == "sqlite" else None
    if path is not None and path.exists():
        log(f"vector: reusing {path}")
        location = str(path)
        load: dict[str, Any] = {"records": args.records, "seconds": None, "records_per_second": None}
    else:
        location = str(path) if path is not None else stores.new(kind, name)
        log(f"vector ({kind}): writing {args.records} records x {args.dims} dimensions")
        load = build_store(location, args.records, args.dims)
    with serving(location, 1) as (server,):
        rng = random.Random(11)
        with Client(server.target, tenant="bench", timeout=120) as mw:
            started = time.perf_counter()
            first = mw.search(vector={"model": "bench", "values": vector(rng, args.dims)})
            cold = time.perf_counter() - started
            assert len(first["hits"]) == 10
            started = time.perf_counter()
            first = mw.search("topic 0", vector={"model": "bench", "values": vector(rng, args.dims)})
            cold_hybrid = time.perf_counter() - started
            assert len(first["hits"]) == 10
            deadline = time.monotonic() + max(30.0, args.seconds * 3)
            warm: list[float] = []
            text: list[float] = []
            hybrid: list[float] = []
            for i in range(args.queries):
                if time.monotonic() > deadline:
                    break
                q = {"model": "bench", "values": vector(rng, args.dims)}
                t0 = time.perf_counter()
                out = mw.search(vector=q)
                warm.append(time.perf_counter() - t0)
                assert len(out["hits"]) == 10
                # "topic" is in every record, the number in about 1 %
                t0 = time.perf_counter()
                out = mw.search(f"topic {i % 97}")
                text.append(time.perf_counter() - t0)
                assert len(out["hits"]) == 10 and out["hits"][0]["score"] > 1.0
                t0 = time.perf_counter()
                mw.search(f"topic {i % 97}", vector=q)
                hybrid.append(time.perf_counter() - t0)
        return {"store": kind, "load": load, "dims": args.dims, "cold_first_query_ms": round(cold * 1000, 1),
                "cold_first_hybrid_ms": round(cold_hybrid * 1000, 1),
                "vector_search": summary(warm), "text_search": summary(text),
                "hybrid_search": summary(hybrid)}


# -- new tenants ----------------------------------------------------------------------


def run_tenants(args: argparse.Namespace, stores: Stores) -> dict[str, Any]:
    with serving(stores.new("sqlite", "tenants"), 1) as (server,):
        log(f"tenants: one Put in each of {args.tenants} new tenants")
        latencies: list[float] = []
        deadline = time.monotonic() + max(60.0, args.seconds * 6)
        while len(latencies) < args.tenants and time.monotonic() < deadline:
            with Client(server.target, tenant=f"tenant-{len(latencies)}", timeout=120) as mw:
                mw.capabilities()  # connected before the clock starts
                t0 = time.perf_counter()
                mw.put({"id": "f", "kind": "fact", "fact": {"text": "The user prefers window seats."}})
                latencies.append(time.perf_counter() - t0)
        window = min(100, max(1, len(latencies) // 2))
        return {"tenants": len(latencies), "first": summary(latencies[:window]),
                "last": summary(latencies[-window:])}


# -- ingest ---------------------------------------------------------------------------


#: The ingest of one Client through gRPC, in the report.
GRPC_INGEST = "memorywire sqlite via gRPC"


def ingest_batches(records: int, batch: int, dims: int) -> list[list[dict[str, Any]]]:
    """The Put items of the ingest part, in batches: facts with a short text
    and one embedding, as a Python caller builds them (values as floats)."""
    rng = random.Random(7)
    out = []
    for start in range(0, records, batch):
        out.append([{"record": {"id": f"r{i}", "kind": "fact",
                                "fact": {"text": f"memory {i} about topic {i % 97} and item {i % 1013}"},
                                "embeddings": [{"model": "bench", "dimensions": dims,
                                                "values": vector(rng, dims)}]}}
                    for i in range(start, min(records, start + batch))])
    return out


def raw_size(batches: list[list[dict[str, Any]]]) -> int:
    """The raw size of the records: their JSON without the embedding values,
    plus 4 bytes a value."""
    import orjson

    total = 0
    for items in batches:
        for item in items:
            rec = item["record"]
            embeddings = rec.get("embeddings", [])
            bare = dict(rec, embeddings=[{k: v for k, v in e.items() if k != "values"} for e in embeddings])
            total += len(orjson.dumps(bare)) + sum(4 * len(e["values"]) for e in embeddings)
    return total


def ingest_service(location: str, batches: list[list[dict[str, Any]]], synchronous: str) -> float:
    """Records/s of batched Put in-process on a new store."""
    from memorywire.service import Service
    from memorywire.service.operations import Call
    from memorywire.service.stores import is_postgres, open_store

    store = open_store(location) if is_postgres(location) else open_store(location, synchronous=synchronous)
    svc = Service(store)
    call = Call("bench")
    count = sum(map(len, batches))
    try:
        started = time.perf_counter()
        for n, items in enumerate(batches):
            svc.put(call, {"specversion": SPEC, "operation_id": f"ingest-{n}", "items": items})
        return count / (time.perf_counter() - started)
    finally:
        store.close()


def ingest_grpc(path: str, batches: list[list[dict[str, Any]]]) -> float:
    """Records/s of batched Put from one Client through gRPC to memorywire
    serve on a new SQLite file; the batches are the Client's input, the
    codec's checks and encoding of each request are in the time."""
    count = sum(map(len, batches))
    with serving(path, 1) as (server,), Client(server.target, tenant="bench", timeout=600) as mw:
        mw.capabilities()  # connected before the clock starts
        started = time.perf_counter()
        for items in batches:
            mw.put(items)
        return count / (time.perf_counter() - started)


def _sqlite_baseline(path: str, batches: list[list[dict[str, Any]]], synchronous: str,
                     vec: bool) -> float:
    """Records/s of raw sqlite3 executemany of the same rows (id, text and
    binary32 bytes), a transaction a batch; with ``vec``, into a sqlite-vec
    vec0 table as well."""
    import sqlite3
    from array import array

    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute(f"PRAGMA synchronous = {synchronous}")
    conn.execute("CREATE TABLE items (id TEXT PRIMARY KEY, text TEXT NOT NULL, embedding BLOB NOT NULL)")
    dims = len(batches[0][0]["record"]["embeddings"][0]["values"])
    if vec:
        # an optional package, not a dependency of the benchmark
        sqlite_vec = importlib.import_module("sqlite_vec")
        conn.enable_load_extension(True)
        sqlite_vec.load(conn)
        conn.execute(f"CREATE VIRTUAL TABLE vecs USING vec0 (embedding float[{dims}])")
    count = sum(map(len, batches))
    started = time.perf_counter()
    for items in batches:
        rows = [(it["record"]["id"], it["record"]["fact"]["text"],
                 array("f", it["record"]["embeddings"][0]["values"]).tobytes()) for it in items]
        conn.execute("BEGIN")
        conn.executemany("INSERT INTO items VALUES (?, ?, ?)", rows)
        if vec:
            conn.executemany("INSERT INTO vecs (rowid, embedding) SELECT rowid, embedding FROM items "
                             "WHERE id = ?", [(row[0],) for row in rows])
        conn.execute("COMMIT")
    elapsed = time.perf_counter() - started
    conn.close()
    return count / elapsed


def sqlite_vec_available() -> str | None:
    """None when sqlite-vec loads into this Python's sqlite3, else why not."""
    import sqlite3

    if importlib.util.find_spec("sqlite_vec") is None:
        return "the sqlite-vec package is not installed"
    conn = sqlite3.connect(":memory:")
    if not hasattr(conn, "enable_load_extension"):
        return "this Python's sqlite3 cannot load extensions"
    conn.close()
    return None


def table_bytes(path: str) -> dict[str, int]:
    """The bytes of each table of a SQLite file, its indexes with it (dbstat)."""
    import sqlite3

    conn = sqlite3.connect(path)
    try:
        tables = dict(conn.execute("SELECT name, tbl_name FROM sqlite_schema WHERE name IS NOT NULL"))
        out: dict[str, int] = defaultdict(int)
        for name, size in conn.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name"):
            table = tables.get(name, name)
            # the shadow tables of the full-text index count with it
            out["texts" if table.startswith("texts_") else table] += size
        return dict(sorted(out.items(), key=lambda x: -x[1]))
    finally:
        conn.close()


def postgres_table_bytes(dsn: str) -> dict[str, int]:
    import psycopg

    with psycopg.connect(dsn) as conn:
        return {name: int(size) for name, size in conn.execute(
            "SELECT relname, pg_total_relation_size(oid) FROM pg_class WHERE relkind = 'r' "
            "AND relnamespace = 'public'::regnamespace ORDER BY 2 DESC")}


def run_ingest(args: argparse.Namespace, stores: Stores) -> dict[str, Any]:
    batches = ingest_batches(args.ingest_records, args.ingest_batch, args.dims)
    count = sum(map(len, batches))
    # The input is the caller's, made before the clock starts: the garbage
    # collector leaves it be, as it would the caller's own objects.
    gc.freeze()
    vec_missing = sqlite_vec_available()
    rates: dict[str, list[float]] = defaultdict(list)
    last: dict[str, str] = {}
    for n in range(args.rounds):
        for kind in args.ingest_stores:
            location = stores.new(kind, f"ingest-{kind}-{n}")
            log(f"ingest round {n + 1}/{args.rounds}: {kind}, {count} records")
            rates[f"memorywire {kind}"].append(ingest_service(location, batches, args.synchronous))
            last[kind] = location
        if "sqlite" in args.ingest_stores:
            log(f"ingest round {n + 1}/{args.rounds}: sqlite through gRPC, {count} records")
            rates[GRPC_INGEST].append(ingest_grpc(stores.new("sqlite", f"ingest-grpc-{n}"), batches))
        path = str(stores.workdir / f"ingest-raw-{n}.sqlite3")
        rates["raw sqlite3 executemany"].append(_sqlite_baseline(path, batches, args.synchronous, False))
        last["raw"] = path
        if vec_missing is None:
            rates["raw sqlite3 + sqlite-vec"].append(
                _sqlite_baseline(str(stores.workdir / f"ingest-vec-{n}.sqlite3"), batches, args.synchronous, True))
    medians = {name: statistics.median(xs) for name, xs in rates.items()}
    footprint: dict[str, dict[str, int]] = {}
    for kind, location in last.items():
        footprint[kind] = postgres_table_bytes(location) if kind == "postgresql" else table_bytes(location)
    return {"records": count, "batch": args.ingest_batch, "dims": args.dims, "rounds": args.rounds,
            "synchronous": args.synchronous, "records_per_second": {k: round(v, 1) for k, v in medians.items()},
            "rounds_records_per_second": {k: [round(x, 1) for x in v] for k, v in rates.items()},
            "sqlite_vec": vec_missing or "loaded", "raw_bytes": raw_size(batches), "table_bytes": footprint}


def print_ingest(ing: dict[str, Any]) -> None:
    rates = ing["records_per_second"]
    raw = rates["raw sqlite3 executemany"]
    print(f"\ningest: batched Put in-process, {ing['records']} records of one {ing['dims']}-dimension embedding, "
          f"{ing['batch']} a batch, synchronous={ing['synchronous']}, WAL; median of {ing['rounds']} "
          "alternating rounds")
    for name, rate in rates.items():
        print(f"  {name:<28} {rate:>10.0f} records/s   {rate / raw:6.3f} x raw sqlite3")
    if GRPC_INGEST in rates:
        print(f"  through gRPC: {rates[GRPC_INGEST] / rates['memorywire sqlite']:.3f} x in-process")
    if ing["sqlite_vec"] != "loaded":
        print(f"  sqlite-vec: not measured ({ing['sqlite_vec']})")
    raw_bytes = ing["raw_bytes"]
    print(f"  raw size of the records: {raw_bytes} bytes ({raw_bytes / ing['records']:.0f} a record)")
    for kind, tables in ing["table_bytes"].items():
        total = sum(tables.values())
        print(f"  {kind}: {total} bytes, {total / ing['records']:.0f} a record, "
              f"{total / raw_bytes:.2f} x the raw size")
        for table, size in tables.items():
            if size >= 0.005 * total:
                print(f"    {table:<24} {size:>12} bytes  {size / ing['records']:8.0f} a record")


def _deployments(text: str) -> list[str]:
    names = [x.strip() for x in text.split(",") if x.strip()]
    unknown = [x for x in names if x not in DEPLOYMENTS]
    if unknown or not names:
        raise argparse.ArgumentTypeError(f"choose among {', '.join(DEPLOYMENTS)}")
    return names


def _kinds(text: str) -> list[str]:
    names = [x.strip() for x in text.split(",") if x.strip()]
    if not names or any(x not in ("sqlite", "postgresql") for x in names):
        raise argparse.ArgumentTypeError("choose among sqlite, postgresql")
    return names


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--clients", type=int, default=8)
    p.add_argument("--seconds", type=float, default=10.0, help="the longest the load part runs")
    p.add_argument("--ops", type=int, default=20000, help="the most operations the load part sends")
    p.add_argument("--records", type=int, default=100_000)
    p.add_argument("--dims", type=int, default=384)
    p.add_argument("--queries", type=int, default=30)
    p.add_argument("--tenants", type=int, default=2000)
    p.add_argument("--stores", default="sqlite,postgresql,postgresql-2", type=_deployments,
                   help="the deployments the load part compares, side by side: "
                        f"{', '.join(DEPLOYMENTS)} (default all)")
    p.add_argument("--vector-stores", default="sqlite,postgresql", type=_kinds,
                   help="the stores of the vector part: sqlite, postgresql (default both)")
    p.add_argument("--rounds", type=int, default=3,
                   help="the alternating rounds of the bindings part and of the ingest part (default 3)")
    p.add_argument("--skip-load", action="store_true")
    p.add_argument("--skip-bindings", action="store_true")
    p.add_argument("--skip-vector", action="store_true")
    p.add_argument("--skip-tenants", action="store_true")
    p.add_argument("--keep", metavar="DIR",
                   help="keep the vector store in DIR, and reuse it when it is there")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument("--ingest", action="store_true", help="run the ingest part only")
    p.add_argument("--ingest-records", type=int, default=100_000)
    p.add_argument("--ingest-batch", type=int, default=1000)
    p.add_argument("--ingest-stores", default="sqlite", type=_kinds,
                   help="the stores of the ingest part: sqlite, postgresql (default sqlite)")
    p.add_argument("--synchronous", default="FULL", choices=("FULL", "NORMAL", "OFF"),
                   help="the synchronous level of the SQLite stores of the ingest part (default FULL, "
                        "the service's)")
    args = p.parse_args()
    report: dict[str, Any] = {
        "machine": {"python": platform.python_version(), "platform": platform.platform(),
                    "cpus": os.cpu_count(), "load_average": os.getloadavg()},
    }
    with tempfile.TemporaryDirectory(prefix="memorywire-bench-") as tmp:
        stores = Stores(Path(tmp))
        try:
            if args.ingest:
                report["ingest"] = run_ingest(args, stores)
            elif not args.skip_load:
                report["load"] = [run_load(args, stores, d) for d in args.stores]
            if not args.skip_bindings and not args.ingest:
                report["bindings"] = run_bindings(args, stores)
            if not args.skip_vector and not args.ingest:
                report["vector"] = [run_vector(args, stores, k) for k in args.vector_stores]
            if not args.skip_tenants and not args.ingest:
                report["tenants"] = run_tenants(args, stores)
        finally:
            stores.close()
    report["machine"]["load_average_after"] = os.getloadavg()
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    m = report["machine"]
    print(f"python {m['python']} on {m['platform']}, {m['cpus']} CPUs, "
          f"load average {m['load_average'][0]:.2f} before, {m['load_average_after'][0]:.2f} after")
    if "load" in report:
        runs = report["load"]
        print(f"\nload: {args.clients} clients, at most {args.seconds} s / {args.ops} operations, "
              "p50 / p99 ms of each operation")
        print(f"  {'':<15}" + "".join(f"{r['deployment']:>22}" for r in runs))
        print(f"  {'operations/s':<15}" + "".join(f"{r['operations_per_second']:>22}" for r in runs))
        print(f"  {'errors':<15}" + "".join(f"{sum(r['errors'].values()):>22}" for r in runs))
        for op in sorted({op for r in runs for op in r["by_operation"]}):
            cells = []
            for r in runs:
                s = r["by_operation"].get(op, {"count": 0})
                cells.append(f"{s['p50_ms']} / {s['p99_ms']}" if s["count"] else "-")
            print(f"  {op:<15}" + "".join(f"{c:>22}" for c in cells))
    if "bindings" in report:
        b = report["bindings"]
        print(f"\nbindings: the load of {b['clients']} clients over each binding of one server (SQLite), "
              f"medians of {b['rounds']} alternating rounds; p50 / p99 ms")
        print(f"  {'':<15}" + "".join(f"{name:>22}" for name in BINDINGS) + f"{'HTTP / gRPC':>16}")
        g, h = b["bindings"]["grpc"], b["bindings"]["http"]
        ratio = b["http_over_grpc"]
        print(f"  {'operations/s':<15}{g['operations_per_second']:>22}{h['operations_per_second']:>22}"
              f"{ratio['operations_per_second']:>16}")
        print(f"  {'errors':<15}{g['errors']:>22}{h['errors']:>22}")
        cells = [f"{x['p50_ms']} / {x['p99_ms']}" for x in (g, h)]
        print(f"  {'all operations':<15}" + "".join(f"{c:>22}" for c in cells)
              + f"{str(ratio['p50']) + ' / ' + str(ratio['p99']):>16}")
        for op in sorted(g["by_operation"]):
            cells = [f"{x['by_operation'][op]['p50_ms']} / {x['by_operation'][op]['p99_ms']}"
                     if op in x["by_operation"] else "-" for x in (g, h)]
            print(f"  {op:<15}" + "".join(f"{c:>22}" for c in cells))
    for v in report.get("vector", []):
        if v["load"]["seconds"] is not None:
            print(f"\nvector ({v['store']}): {v['load']['records']} records x {v['dims']} dims written in "
                  f"{v['load']['seconds']} s ({v['load']['records_per_second']} records/s, in-process)")
        else:
            print(f"\nvector ({v['store']}): {v['load']['records']} records x {v['dims']} dims (store reused)")
        print(f"  first query (builds the in-memory index): {v['cold_first_query_ms']} ms")
        print(f"  first hybrid query (loads the text postings): {v['cold_first_hybrid_ms']} ms")
        for name in ("vector_search", "text_search", "hybrid_search"):
            s = v[name]
            print(f"  {name:<15} {s['count']} queries: p50 {s['p50_ms']} ms, p99 {s['p99_ms']} ms, "
                  f"mean {s['mean_ms']} ms")
    if "ingest" in report:
        print_ingest(report["ingest"])
    if "tenants" in report:
        t = report["tenants"]
        print(f"\ntenants: the first Put in each of {t['tenants']} new tenants")
        for name in ("first", "last"):
            s = t[name]
            print(f"  {name:<6}{s['count']:>5} tenants: p50 {s['p50_ms']} ms, p99 {s['p99_ms']} ms, "
                  f"mean {s['mean_ms']} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
