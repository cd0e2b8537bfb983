"""Run the fuzz targets of fuzz_targets.py, each for a bounded time.

    python python/fuzz/run.py --seconds 3600 json          # one target, an hour
    python python/fuzz/run.py --seconds 60                 # every target, a minute each

Each target runs in a process of its own under atheris, coverage-guided
(libFuzzer). Its corpus grows in WORKDIR/corpus/<target> (kept between runs),
starting from seeds built afresh from the conformance vectors and examples
(fuzz_seeds.py). An input that breaks the invariant is written to
WORKDIR/crashes/<target>/ and the run fails; replay one with
``--replay FILE``.

Where atheris is not installed (it has wheels for Linux only), a target is
fuzzed without coverage instead: random mutations of the seeds, for the
same time; the run says so. ``--require-atheris`` makes that an error.

Exit status: 0 when every target held, 1 when one failed, 2 on a usage error.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import random
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable

HERE = pathlib.Path(__file__).resolve().parent
DEFAULT_WORKDIR = HERE / "work"
#: Seconds one input may take before libFuzzer reports it as a hang.
INPUT_TIMEOUT = 10
#: Memory one target may take (MiB) before libFuzzer reports it.
RSS_LIMIT_MB = 2048


def have_atheris() -> bool:
    try:
        import atheris  # noqa: F401
    except ImportError:
        return False
    return True


def _targets() -> dict[str, Callable[[bytes], None]]:
    import fuzz_targets

    return fuzz_targets.TARGETS


# -- a worker: one target in this process -------------------------------------------


def _atheris_worker(name: str, libfuzzer_args: list[str]) -> None:
    import atheris

    with atheris.instrument_imports(include=["memorywire"]):
        target = _targets()[name]
    atheris.Setup([sys.argv[0], *libfuzzer_args], target)
    atheris.Fuzz()


def _mutate(rng: random.Random, data: bytes) -> bytes:
    buf = bytearray(data)
    for _ in range(rng.randint(1, 6)):
        action = rng.randrange(6)
        pos = rng.randrange(len(buf) + 1)
        if action == 0 and buf:
            buf[pos % len(buf)] ^= 1 << rng.randrange(8)
        elif action == 1 and buf:
            buf[pos % len(buf)] = rng.randrange(256)
        elif action == 2:
            buf[pos:pos] = rng.randbytes(rng.randint(1, 8))
        elif action == 3:
            del buf[pos:pos + rng.randint(1, 8)]
        elif action == 4 and buf:
            start = rng.randrange(len(buf))
            buf[pos:pos] = buf[start:start + rng.randint(1, 64)]
        else:
            buf[pos:pos] = rng.choice([b"1E400", b"-0", b"9" * 40, b",", b"\\u", b"\xff", b"\x80",
                                      b"[", b"{", b"\xc1", b"\xdc\xff\xff", b"\x0a\xff\xff\xff\x0f"])
    return bytes(buf)


def _plain_worker(name: str, seconds: float, corpus: list[pathlib.Path], crashes: pathlib.Path) -> int:
    """Coverage-free fuzzing: every seed, then random mutations of them."""
    target = _targets()[name]
    pool = [p.read_bytes() for folder in corpus if folder.is_dir() for p in sorted(folder.iterdir())]
    rng = random.Random(int(os.environ.get("MEMORYWIRE_FUZZ_SEED", "0")) or None)
    deadline = time.monotonic() + seconds
    runs = 0
    queue = iter(pool)
    while time.monotonic() < deadline:
        data = next(queue, None)
        if data is None:
            data = _mutate(rng, rng.choice(pool) if pool else b"")
        runs += 1
        try:
            target(data)
        except Exception:
            crashes.mkdir(parents=True, exist_ok=True)
            path = crashes / f"crash-{runs}"
            path.write_bytes(data)
            traceback.print_exc()
            print(f"{name}: input written to {path}", file=sys.stderr)
            return 1
    print(f"{name}: {runs} inputs without coverage guidance (atheris is not installed)", file=sys.stderr)
    return 0


# -- the driver ----------------------------------------------------------------------


def run_target(name: str, seconds: float, workdir: pathlib.Path, *, coverage: bool,
               quiet: bool = False) -> int:
    """Fuzz one target in a process of its own; return its exit status."""
    corpus = workdir / "corpus" / name
    seeds = workdir / "seeds" / name
    crashes = workdir / "crashes" / name
    corpus.mkdir(parents=True, exist_ok=True)
    crashes.mkdir(parents=True, exist_ok=True)
    if coverage:
        args = [f"-max_total_time={max(1, round(seconds))}", f"-timeout={INPUT_TIMEOUT}",
                f"-rss_limit_mb={RSS_LIMIT_MB}", f"-artifact_prefix={crashes}{os.sep}",
                "-print_final_stats=1", str(corpus), str(seeds)]
        command = [sys.executable, __file__, "--worker", name, "--", *args]
    else:
        command = [sys.executable, __file__, "--worker", name, "--plain", str(seconds), str(workdir)]
    proc = subprocess.run(command, cwd=workdir, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, errors="replace", check=False)
    lines = proc.stdout.splitlines()
    if proc.returncode != 0:
        print("\n".join(lines[-80:]), file=sys.stderr)
        print(f"{name}: FAILED (exit {proc.returncode}); inputs in {crashes}", file=sys.stderr)
    elif not quiet:
        summary = [line for line in lines if "stat::number_of_executed_units" in line
                   or "without coverage" in line or line.startswith("Done ")]
        print(f"{name}: ok  {' '.join(summary)}", file=sys.stderr)
    return proc.returncode


def _worker(argv: list[str]) -> int:
    """``--worker NAME -- LIBFUZZER-ARGS`` or ``--worker NAME --plain SECONDS WORKDIR``:
    parsed by hand, so that nothing imports memorywire before atheris
    instruments it."""
    name, rest = argv[1], argv[2:]
    if rest[:1] == ["--plain"]:
        seconds, workdir = float(rest[1]), pathlib.Path(rest[2])
        return _plain_worker(name, seconds, [workdir / "corpus" / name, workdir / "seeds" / name],
                             workdir / "crashes" / name)
    _atheris_worker(name, rest[1:] if rest[:1] == ["--"] else rest)
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--worker"]:
        return _worker(argv)
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("targets", nargs="*", metavar="TARGET",
                        help="the targets to run (default: all): " + ", ".join(_targets()))
    parser.add_argument("--seconds", type=float, default=60.0, help="seconds per target (default: 60)")
    parser.add_argument("--workdir", type=pathlib.Path, default=DEFAULT_WORKDIR,
                        help="where the corpus, seeds and crashes go (default: python/fuzz/work)")
    parser.add_argument("--require-atheris", action="store_true",
                        help="fail rather than fuzz without coverage when atheris is missing")
    parser.add_argument("--replay", type=pathlib.Path, metavar="FILE",
                        help="run one input of one TARGET and show what it raises")
    args = parser.parse_args(argv)
    known = _targets()
    names = args.targets or list(known)
    unknown = [n for n in names if n not in known]
    if unknown or args.seconds <= 0:
        parser.error(f"unknown target {unknown[0]!r}" if unknown else "--seconds must be positive")
    if args.replay is not None:
        if len(names) != 1:
            parser.error("--replay takes exactly one TARGET")
        known[names[0]](args.replay.read_bytes())
        print(f"{names[0]}: the input held", file=sys.stderr)
        return 0
    coverage = have_atheris()
    if not coverage:
        if args.require_atheris:
            print("atheris is not installed: pip install atheris", file=sys.stderr)
            return 2
        print("atheris is not installed: fuzzing without coverage guidance", file=sys.stderr)
    import fuzz_seeds as seeds

    workdir = args.workdir.resolve()
    with tempfile.TemporaryDirectory() as fresh:
        # Seeds are built afresh, so that they follow the vectors.
        seeds.build(pathlib.Path(fresh))
        for name in names:
            target_seeds = workdir / "seeds" / name
            target_seeds.mkdir(parents=True, exist_ok=True)
            for old in target_seeds.iterdir():
                old.unlink()
            for seed in (pathlib.Path(fresh) / name).iterdir():
                (target_seeds / seed.name).write_bytes(seed.read_bytes())
    failed = [name for name in names if run_target(name, args.seconds, workdir, coverage=coverage) != 0]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
