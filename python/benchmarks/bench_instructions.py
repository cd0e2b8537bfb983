"""The instructions a record of batched Put takes, counted by callgrind.

A shared machine's wall clock varies by a fifth between runs minutes apart,
which hides a change of a few per cent in the ingest part of
``bench_service.py``; the instructions a process executes do not vary. This
script counts, under valgrind's callgrind, the instructions the main thread
executes for batched Put into a new SQLite store (``bench_service.py
--ingest``'s records and batches) and for the raw ``sqlite3`` baseline of the
same rows, and prints each a record and their ratio.

Each side runs twice in a child process under callgrind: once with a warm-up
batch of ten records only, once with the warm-up and ``--records`` more; the
difference, divided by ``--records``, is the cost of a record, without
start-up, imports or the generation of the records. Only the main thread
counts: the store's checkpoint thread copies the log while the writes go on,
and how much it copies depends on timing. What the count leaves out: time in
the kernel (the writes and syncs of the log), and the speed of each
instruction. valgrind's virtual CPU offers no SHA extensions, so SHA-256
counts about ten times what it costs on a CPU that has them.

Usage (valgrind on the PATH; Debian's ``valgrind`` package)::

    python bench_instructions.py [--records 3000] [--batch 1000] [--dims 384]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench_service import _sqlite_baseline, ingest_batches, ingest_service

#: The sides of the count: the name the report gives each.
SIDES = {"memorywire": "memorywire sqlite", "raw": "raw sqlite3 executemany"}
#: The records of the warm-up batch, Put before the counted ones in both runs.
WARM_UP = 10


def child(side: str, count: int, args: argparse.Namespace) -> None:
    """Put the warm-up batch and the first ``count`` records (whole batches)
    into a new store of ``side``."""
    batches = ingest_batches(args.records + args.batch, args.batch, args.dims)
    # The warm-up records come from the first batch; the counted ones are new records.
    work = [batches[0][:WARM_UP]] + batches[1:][:count // args.batch]
    with tempfile.TemporaryDirectory() as workdir:
        path = str(Path(workdir) / "ingest.sqlite3")
        if side == "raw":
            _sqlite_baseline(path, work, "FULL", False)
        else:
            ingest_service(path, work, "FULL")


def main_thread_instructions(side: str, count: int, args: argparse.Namespace) -> int:
    """The instructions the main thread of a child process executed."""
    with tempfile.TemporaryDirectory() as out:
        command = ["valgrind", "--tool=callgrind", "--separate-threads=yes",
                   f"--callgrind-out-file={out}/callgrind", sys.executable, __file__, "--child", side,
                   str(count), "--records", str(args.records), "--batch", str(args.batch),
                   "--dims", str(args.dims)]
        # The same hashes in every run, so that the same work runs.
        env = dict(os.environ, PYTHONHASHSEED="0")
        done = subprocess.run(command, env=env, capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"the {side} child failed under valgrind:\n{done.stderr[-2000:]}")
        # The first thread's file: callgrind numbers the threads from 1, the main one first.
        for line in (Path(out) / "callgrind-01").read_text().splitlines():
            if line.startswith("summary:"):
                return int(line.split()[1])
    raise SystemExit("callgrind wrote no summary")


def count(args: argparse.Namespace) -> dict[str, Any]:
    per_record = {}
    for side in SIDES:
        print(f"counting {side}: {args.records} records, twice under callgrind", file=sys.stderr)
        warm = main_thread_instructions(side, 0, args)
        full = main_thread_instructions(side, args.records, args)
        per_record[side] = (full - warm) / args.records
    return {"records": args.records, "batch": args.batch, "dims": args.dims, "per_record": per_record}


def report(result: dict[str, Any]) -> None:
    raw = result["per_record"]["raw"]
    print(f"instructions a record of batched Put (callgrind, main thread; {result['records']} records of one "
          f"{result['dims']}-dimension embedding, {result['batch']} a batch, synchronous=FULL):")
    for side, name in SIDES.items():
        n = result["per_record"][side]
        print(f"  {name:28s} {n:10,.0f} a record  {n / raw:6.2f} x raw sqlite3")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="The instructions a record of batched Put takes, counted by callgrind.")
    p.add_argument("--records", type=int, default=3000, help="the records counted (default 3000)")
    p.add_argument("--batch", type=int, default=1000, help="the records of a Put (default 1000)")
    p.add_argument("--dims", type=int, default=384, help="the dimensions of each embedding (default 384)")
    p.add_argument("--child", nargs=2, metavar=("SIDE", "COUNT"), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.records <= 0 or args.records % args.batch:
        p.error("--records must be a positive multiple of --batch")
    if args.child:
        side, n = args.child
        child(side, int(n), args)
        return 0
    if shutil.which("valgrind") is None:
        print("valgrind is not on the PATH (Debian: apt-get install valgrind)", file=sys.stderr)
        return 2
    report(count(args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
