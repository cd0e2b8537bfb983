#!/usr/bin/env python3
# Copyright 2026 The memorywire Authors
# SPDX-License-Identifier: Apache-2.0
"""Every performance target of the codec and the service, in one run.

Runs the benchmarks one after another on this machine and prints one table,
each row a target with what was measured, the goal and whether it is met:

  codec     bench_codec.py, records without embeddings, then with one
            768-dimension embedding each (the targets that are stated for
            it): validation, decode against pydantic v2 and msgspec, encode
            against msgspec, conversion against the raw parser and upb;
  ingest    bench_service.py --ingest: batched Put of records with one
            384-dimension embedding each on the embedded store, and the
            store's bytes against the raw size of the records;
  ANN       bench_ann.py: recall@10 of the approximate search against the
            exact one, and its p50, at each size up to 1,000,000 vectors.

Each benchmark takes its ratios between numbers it measured side by side;
this script only collects them. A part whose packages are missing (the
bench-ann extra for the ANN part) is listed as not measured, with why.

Usage: python python/benchmarks/bench_targets.py [--quick] [--skip-ann] [--json]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent

#: The service's targets (the codec's come with bench_codec.py's comparisons).
INGEST_RECORDS_PER_SECOND = 20_000
FOOTPRINT_TIMES_RAW = 2.0
ANN_RECALL = 0.95
ANN_P50_SECONDS = 0.010
ANN_P50_AT = 1_000_000


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def run_json(script: str, *args: str) -> dict[str, Any]:
    """The JSON report of one benchmark, its progress passed through."""
    log(f"-- {script} {' '.join(args)}")
    done = subprocess.run([sys.executable, str(HERE / script), *args, "--json"], stdout=subprocess.PIPE,
                          check=True, cwd=HERE)
    report: dict[str, Any] = json.loads(done.stdout)
    return report


def codec_rows(report: dict[str, Any], corpus: str) -> list[dict[str, Any]]:
    rows = []
    for c in report["comparisons"]:
        if c.get("target") is None or not c.get("applies", True):
            continue
        kind = c["kind"]
        rows.append({"part": "codec", "target": f"{c['label']} ({corpus})",
                     "measured": f"{c['ratio']:.2f}x {'faster' if kind == 'faster' else 'its time'}",
                     "goal": f"{'>=' if kind == 'faster' else '<='} {c['target']}x", "met": bool(c["ok"])})
    return rows


def ingest_rows(report: dict[str, Any]) -> list[dict[str, Any]]:
    ingest = report["ingest"]
    rate = ingest["records_per_second"]["memorywire sqlite"]
    raw = ingest["records_per_second"].get("raw sqlite3 executemany")
    stored = sum(ingest["table_bytes"]["sqlite"].values())
    times_raw = stored / ingest["raw_bytes"]
    return [
        {"part": "ingest", "target": f"batched Put, {ingest['records']:,} records of one {ingest['dims']}-dim "
                                      f"embedding, {ingest['batch']} a batch, synchronous={ingest['synchronous']}",
         "measured": f"{rate:,.0f} records/s" + (f" ({rate / raw:.2f}x raw sqlite3)" if raw else ""),
         "goal": f">= {INGEST_RECORDS_PER_SECOND:,}", "met": rate >= INGEST_RECORDS_PER_SECOND},
        {"part": "ingest", "target": "the store's bytes against the raw size of its records",
         "measured": f"{times_raw:.2f}x ({stored / ingest['records']:,.0f} B a record)",
         "goal": f"<= {FOOTPRINT_TIMES_RAW}x", "met": times_raw <= FOOTPRINT_TIMES_RAW},
    ]


def ann_rows(report: dict[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for size in report["sizes"]:
        n = size["vectors"]
        rows.append({"part": "ANN", "target": f"recall@10 at {n:,} vectors ({size['real']:,} real)",
                     "measured": f"{size['recall_at_10']:.3f}", "goal": f">= {ANN_RECALL}",
                     "met": size["recall_at_10"] >= ANN_RECALL})
        p50 = size["ann_p50_s"]
        at_target = n >= ANN_P50_AT
        rows.append({"part": "ANN", "target": f"approximate p50 at {n:,} vectors (exact "
                                              f"{size['exact_p50_s'] * 1e3:.1f} ms, build {size['build_s']:.0f} s)",
                     "measured": f"{p50 * 1e3:.2f} ms",
                     "goal": f"< {ANN_P50_SECONDS * 1e3:.0f} ms" if at_target else "(the cost curve)",
                     "met": p50 < ANN_P50_SECONDS if at_target else None})
    return rows


def ann_missing() -> str | None:
    """Why the ANN part cannot run here, or None."""
    for module, extra in (("usearch", "ann"), ("sentence_transformers", "bench-ann")):
        if importlib.util.find_spec(module) is None:
            return f"{module} is not installed (pip install 'memorywire[{extra}]')"
    return None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("--quick", action="store_true",
                    help="smaller runs (fewer records and rounds, ANN up to 100,000): a check of the "
                         "script, not figures to quote")
    ap.add_argument("--skip-ann", action="store_true", help="leave out the ANN part")
    ap.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = ap.parse_args(argv)

    codec = ["-n", "2000", "--repeat", "3", "-q"] if args.quick else ["-q"]
    ingest = ["--ingest-records", "20000", "--rounds", "1"] if args.quick else []
    sizes = "10000,100000" if args.quick else "10000,100000,1000000"
    load_before = os.getloadavg()[0]

    rows: list[dict[str, Any]] = []
    rows += codec_rows(run_json("bench_codec.py", *codec, "--skip-info"), "no embeddings")
    rows += [r for r in codec_rows(run_json("bench_codec.py", *codec, "--skip-info", "--embeddings", "768"),
                                   "768-dim embedding")]
    rows += ingest_rows(run_json("bench_service.py", "--ingest", *ingest))
    missing = "left out (--skip-ann)" if args.skip_ann else ann_missing()
    if missing is None:
        rows += ann_rows(run_json("bench_ann.py", "--sizes", sizes, *(["--rounds", "1"] if args.quick else [])))
    else:
        rows.append({"part": "ANN", "target": "recall@10 and p50 up to 1,000,000 vectors",
                     "measured": f"not measured: {missing}", "goal": "", "met": None})

    machine = (f"{platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
               f"load average {load_before:.1f} before and {os.getloadavg()[0]:.1f} after")
    if args.json:
        print(json.dumps({"machine": machine, "rows": rows}, indent=1))
        return 0
    print(f"machine: {machine}")
    width = max(len(r["target"]) for r in rows)
    print(f"{'part':<7} {'target':<{width}}  {'measured':<34} {'goal':<16} result")
    for r in rows:
        result = {True: "met", False: "NOT MET", None: "-"}[r["met"]]
        print(f"{r['part']:<7} {r['target']:<{width}}  {r['measured']:<34} {r['goal']:<16} {result}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
