#!/usr/bin/env python3
# Copyright 2026 The memorywire Authors
# SPDX-License-Identifier: Apache-2.0
"""Throughput of the framework adapters, beside the codec.

For each form of memorywire.adapters.FORMS, the items of its captured real
output (python/tests/adapters/data/<form>/) are repeated up to -n items and
timed, in the same run:

  to_records     Form.to_records of the whole list
  from_records   Form.from_records of those records
  baseline       orjson.loads(orjson.dumps(items)): one pass of serializing
                 and parsing the items, the least any conversion costs
  codec          memorywire.json encode of every record: what writing the
                 records costs once they exist

A round times one pass with time.perf_counter_ns and the garbage collector
off; each figure is the median of --repeat rounds. Records per second, and
the ratios of to_records and from_records to the baseline and the codec.

Usage:

    python bench_adapters.py [-n 100000] [--repeat 3] [--form NAME ...] [--json]
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

import memorywire.json
from memorywire.adapters import FORMS

DATA = Path(__file__).resolve().parents[1] / "tests" / "adapters" / "data"
sys.path.insert(0, str(DATA.parent))

import capture  # type: ignore[import-not-found]  # noqa: E402


def captured_items(form: str) -> list[Any]:
    """Every list of items captured for a form, one after another."""
    items: list[Any] = []
    for path in sorted((DATA / form).glob("*.json")):
        with open(path, encoding="utf-8") as f:
            found = capture.decode(json.load(f))["items"]
        if isinstance(found, str):  # the text of a text form is one item
            items.append(found)
            continue
        lists = [found] if isinstance(found, list) else [v for v in found.values() if isinstance(v, list)]
        for each in lists:
            items.extend(x for x in each if isinstance(x, dict))
    return items


def median_ns(fn: Callable[[], Any], repeat: int) -> int:
    rounds = []
    for _ in range(repeat):
        gc.collect()
        gc.disable()
        try:
            start = time.perf_counter_ns()
            fn()
            rounds.append(time.perf_counter_ns() - start)
        finally:
            gc.enable()
    return int(statistics.median(rounds))


def measure(name: str, n: int, repeat: int) -> dict[str, Any] | None:
    form = FORMS[name]
    sample = captured_items(name)
    if not sample or form.extra is not None:
        return None
    items = (sample * (n // len(sample) + 1))[:n]
    records = form.to_records(items, session="bench")
    encoder = memorywire.json.Encoder()
    times = {
        "to_records": median_ns(lambda: form.to_records(items, session="bench"), repeat),
        "from_records": median_ns(lambda: form.from_records(records), repeat),
        "baseline": median_ns(lambda: orjson.loads(orjson.dumps(items, option=orjson.OPT_PASSTHROUGH_SUBCLASS)),
                              repeat) if _orjson_can(items) else None,
        "codec": median_ns(lambda: [encoder.encode(r) for r in records], repeat),
    }
    return {"form": name, "items": len(items), "records": len(records), "ns": times}


def _orjson_can(items: list[Any]) -> bool:
    try:
        orjson.dumps(items[:200])
    except TypeError:
        return False  # bytes or integers beyond 64 bits: no JSON baseline
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", type=int, default=100_000, help="items per form (default: 100000)")
    parser.add_argument("--repeat", type=int, default=3, help="rounds per figure; the median is kept")
    parser.add_argument("--form", action="append", help="only these forms")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    args = parser.parse_args(argv)
    results = []
    for name in args.form or list(FORMS):
        result = measure(name, args.n, args.repeat)
        if result is not None:
            results.append(result)
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    print(f"{'form':34} {'to rec/s':>10} {'from rec/s':>10} {'to/base':>8} {'from/base':>9} "
          f"{'to/codec':>8} {'from/codec':>10}")
    for r in results:
        ns, count = r["ns"], r["records"]
        rates = [f"{count / (ns[key] / 1e9):10,.0f}" for key in ("to_records", "from_records")]
        ratios = ["n/a" if ns[b] is None else f"{ns[a] / ns[b]:.1f}x"
                  for b in ("baseline", "codec") for a in ("to_records", "from_records")]
        print(f"{r['form']:34} {rates[0]} {rates[1]} {ratios[0]:>8} {ratios[1]:>9} {ratios[2]:>8} {ratios[3]:>10}")
    print(f"medians of {args.repeat} rounds; baseline: orjson dumps+loads of the items; "
          "codec: memorywire.json encode of the records")
    return 0


if __name__ == "__main__":
    sys.exit(main())
