#!/usr/bin/env python3
# Copyright 2026 The memorywire Authors
# SPDX-License-Identifier: Apache-2.0
"""Streaming conversion: JSON Lines to length-delimited Protobuf, throughput and peak memory.

The input is a JSON Lines file of N generated records (corpus.py; default one
million), cached in a temporary directory so that only the first run pays for
the generation. The conversion runs in a child process, so that neither the
generation nor this parent counts: the child reports records per second and
its peak resident set size (resource.getrusage(RUSAGE_SELF).ru_maxrss), both
after its imports and at the end. Target: peak memory under 150 MB.

The child uses memorywire's streaming API when it exists:
memorywire.stream.read(fp, "json") yields the documents of the JSON Lines file
and memorywire.stream.Writer(out, "protobuf") writes each one as canonical,
varint-length-delimited Protobuf (--mode stream). Without it (or with --mode
convert) the child iterates the lines and calls
memorywire.convert(line, source="json", target="protobuf") per line.

Usage:

    python bench_stream.py [-n 1000000] [--embeddings DIM] [--repeat 1]
                           [--mode auto|stream|convert] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

HERE = Path(__file__).resolve().parent
TARGET_MB = 150.0

# ---------------------------------------------------------------------------
# The child: converts one file and reports.


def _maxrss_bytes() -> int:
    import resource

    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return rss if sys.platform == "darwin" else rss * 1024  # kilobytes on Linux


def _stream_strategy(out: BinaryIO) -> tuple[str, Callable[[BinaryIO], int]] | None:
    """The conversion through memorywire.stream, or None when it does not exist.

    memorywire.stream.read(fp, "json") yields (position, document) pairs of a
    JSON Lines stream; memorywire.stream.Writer(out, "protobuf") writes each
    document as canonical, varint-length-delimited Protobuf.
    """
    try:
        from memorywire import stream as st
    except ImportError:
        return None
    if not (callable(getattr(st, "read", None)) and callable(getattr(st, "Writer", None))):
        return None

    def convert(fp: BinaryIO) -> int:
        writer = st.Writer(out, "protobuf")
        write = writer.write
        for _position, doc in st.read(fp, "json"):
            write(doc)
        count: int = writer.count
        return count

    return 'memorywire.stream.read(fp, "json") + memorywire.stream.Writer(out, "protobuf")', convert


def _convert_strategy(out: BinaryIO) -> tuple[str, Callable[[BinaryIO], int]]:
    import memorywire

    convert = getattr(memorywire, "convert", None)
    if convert is not None and not callable(convert):
        convert = getattr(convert, "convert", None)
    if convert is None:
        raise SystemExit("memorywire.convert is not available")

    sys.path.insert(0, str(HERE))
    from corpus import varint

    def per_line(fp: BinaryIO) -> int:
        write = out.write
        count = 0
        for line in fp:
            line = line.rstrip(b"\r\n")
            if not line.strip():
                continue
            data = convert(line, source="json", target="protobuf")
            write(varint(len(data)))
            write(data)
            count += 1
        return count

    return "per line: memorywire.convert(source='json', target='protobuf')", per_line


def child(input_path: str, output_path: str, mode: str) -> int:
    import memorywire  # noqa: F401  (imports count as the starting footprint)

    with open(output_path, "wb", buffering=1 << 20) as out:
        strategy = None
        if mode in ("auto", "stream"):
            strategy = _stream_strategy(out)
            if strategy is None and mode == "stream":
                raise SystemExit("memorywire.stream (read and Writer) is not available")
        if strategy is None:
            strategy = _convert_strategy(out)
        name, fn = strategy
        rss_start = _maxrss_bytes()
        t0 = time.perf_counter()
        with open(input_path, "rb", buffering=1 << 20) as fp:
            count = fn(fp)
        out.flush()
        elapsed = time.perf_counter() - t0
    rss_peak = _maxrss_bytes()
    print(
        json.dumps(
            {
                "strategy": name,
                "records": count,
                "seconds": elapsed,
                "input_bytes": os.path.getsize(input_path),
                "output_bytes": os.path.getsize(output_path),
                "rss_after_imports": rss_start,
                "rss_peak": rss_peak,
            }
        )
    )
    return 0


# ---------------------------------------------------------------------------
# The parent: generates (or reuses) the corpus, runs the child, reports.


def ensure_corpus(n: int, embeddings: int, seed: int, cache_dir: Path, quiet: bool) -> Path:
    sys.path.insert(0, str(HERE))
    import corpus

    cache_dir.mkdir(parents=True, exist_ok=True)
    path = cache_dir / f"records-n{n}-e{embeddings}-s{seed}-v{_corpus_version()}.jsonl"
    if path.exists():
        return path
    for stale in cache_dir.glob(f"records-n{n}-e{embeddings}-s{seed}-v*.jsonl"):
        stale.unlink()  # made by an older corpus.py
    if not quiet:
        print(f"generating {n} records into {path} ...", file=sys.stderr)
    t0 = time.perf_counter()
    tmp = path.with_suffix(f".tmp{os.getpid()}")
    with open(tmp, "wb", buffering=1 << 20) as out:
        corpus.write_stream(corpus.generate(n, seed=seed, embeddings=embeddings), "jsonl", out)
    tmp.replace(path)
    if not quiet:
        print(f"generated in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    return path


def _corpus_version() -> str:
    """A short digest of corpus.py, so that a changed generator does not reuse an old cache."""
    import hashlib

    return hashlib.sha256((HERE / "corpus.py").read_bytes()).hexdigest()[:10]


def run_child(input_path: Path, output_path: Path, mode: str) -> dict[str, Any]:
    cmd = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--child",
        "--input",
        str(input_path),
        "--output",
        str(output_path),
        "--mode",
        mode,
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr)
        raise SystemExit(f"the conversion child failed with exit status {proc.returncode}")
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__.split("\n\n", 1)[1],
    )
    p.add_argument("-n", type=int, default=1_000_000, help="number of records (default 1000000)")
    p.add_argument(
        "--embeddings",
        type=int,
        default=0,
        metavar="DIM",
        help="one embedding of DIM values per record",
    )
    p.add_argument("--seed", type=int, default=20260509, help="corpus seed")
    p.add_argument(
        "--repeat", type=int, default=1, help="conversion runs; medians are reported (default 1)"
    )
    p.add_argument(
        "--mode",
        choices=("auto", "stream", "convert"),
        default="auto",
        help="auto: memorywire.stream if it exists, else memorywire.convert per line",
    )
    p.add_argument(
        "--cache-dir",
        type=Path,
        default=Path(tempfile.gettempdir()) / "memorywire-bench",
        help="where the generated JSON Lines file is cached",
    )
    p.add_argument(
        "-o",
        "--output",
        type=Path,
        help="keep the length-delimited protobuf output here (default: a temporary file, removed)",
    )
    p.add_argument("--json", action="store_true", help="print machine-readable JSON")
    p.add_argument("-q", "--quiet", action="store_true")
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--input", help=argparse.SUPPRESS)
    args = p.parse_args(argv)

    if args.child:
        return child(args.input, str(args.output), args.mode)

    input_path = ensure_corpus(args.n, args.embeddings, args.seed, args.cache_dir, args.quiet)
    output_path = args.output or args.cache_dir / f"out-{os.getpid()}.pb"
    runs = []
    try:
        for i in range(args.repeat):
            r = run_child(input_path, output_path, args.mode)
            runs.append(r)
            if not args.quiet:
                print(
                    f"  run {i + 1}: {r['records'] / r['seconds']:,.0f} records/s, "
                    f"peak RSS {r['rss_peak'] / 1e6:.1f} MB",
                    file=sys.stderr,
                )
    finally:
        if args.output is None and output_path.exists():
            output_path.unlink()

    sys.path.insert(0, str(HERE))
    from bench_codec import environment

    rates = [r["records"] / r["seconds"] for r in runs]
    peak = max(r["rss_peak"] for r in runs)
    first = runs[0]
    summary = {
        "environment": environment(),
        "config": {
            "n": args.n,
            "embeddings": args.embeddings,
            "seed": args.seed,
            "repeat": args.repeat,
            "input": str(input_path),
        },
        "strategy": first["strategy"],
        "records": first["records"],
        "input_bytes": first["input_bytes"],
        "output_bytes": first["output_bytes"],
        "records_per_second_median": statistics.median(rates),
        "input_mb_per_second_median": statistics.median(
            r["input_bytes"] / r["seconds"] / 1e6 for r in runs
        ),
        "rss_after_imports_mb": max(r["rss_after_imports"] for r in runs) / 1e6,
        "rss_peak_mb": peak / 1e6,
        "target_rss_mb": TARGET_MB,
        "ok": peak / 1e6 < TARGET_MB,
        "runs": runs,
    }
    if args.json:
        print(json.dumps(summary, indent=2))
        return 0
    env = summary["environment"]
    print(f"memorywire stream benchmark, {env['date']}")
    print(
        f"  Python {env['python']} | protobuf {env['protobuf']} ({env['protobuf_api']}) | "
        f"orjson {env['orjson']} | msgpack {env['msgpack']} | "
        f"memorywire {env['memorywire']} {env['commit']}"
    )
    print(f"  CPU {env['cpu']} ({env['cpus']} usable) | load {env['loadavg']}")
    print(
        f"  input: {first['records']} records, {first['input_bytes'] / 1e6:.1f} MB JSON Lines "
        f"(embeddings {args.embeddings or 'none'}) -> {first['output_bytes'] / 1e6:.1f} MB "
        "length-delimited protobuf"
    )
    print(f"  path: {first['strategy']}")
    print()
    print(
        f"  throughput (median of {len(runs)}): "
        f"{summary['records_per_second_median']:,.0f} records/s, "
        f"{summary['input_mb_per_second_median']:.1f} MB/s of JSON"
    )
    print(f"  RSS after imports: {summary['rss_after_imports_mb']:.1f} MB")
    print(
        f"  peak RSS: {summary['rss_peak_mb']:.1f} MB   target < {TARGET_MB:.0f} MB   "
        f"{'PASS' if summary['ok'] else 'FAIL'}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
