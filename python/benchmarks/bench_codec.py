#!/usr/bin/env python3
# Copyright 2026 The memorywire Authors
# SPDX-License-Identifier: Apache-2.0
"""Per-record cost of the memorywire reference codec against the naive stack.

Every path is timed over the same generated corpus (corpus.py) in the same run,
and the ratios are taken between numbers measured side by side. A round times
one or more whole passes over the records with time.perf_counter_ns and the
garbage collector off; the reported figure is the median of --repeat rounds,
in microseconds per record.

Comparisons (targets from the design brief):

  (a) validation       memorywire.json.decode  vs  json.loads + jsonschema
                       (precompiled Draft202012Validator of record-document):
                       target >= 100x faster.
  (b) json->protobuf   memorywire.convert(source="json", target="protobuf")  vs
                       json.loads + jsonschema + json_format.ParseDict +
                       SerializeToString: target >= 30x faster.
  (c) json->protobuf   the same  vs  the raw limit orjson.loads + upb
                       SerializeToString of the equivalent prebuilt message:
                       target <= 3x of it.
  (d) msgpack->protobuf memorywire.convert(source="msgpack", target="protobuf")
                       vs msgpack.unpackb of the same bytes: target <= 3x of it
                       with --embeddings 768.

Side by side with pydantic v2 and msgspec models of the same rules
(baseline_models.py), over the message and fact records of the corpus:

  (e) (f) JSON bytes to a validated record: >= 2x faster than pydantic,
          <= 1.5x of msgspec.
  (g) (h) MessagePack bytes to a validated record: the same targets.
  (i) (j) a validated record to JSON and to MessagePack: <= 2x of msgspec.
  (k) validate a plain dict and write it as JSON, against pydantic (no target).

Usage:

    python bench_codec.py [-n 10000] [--embeddings 768] [--repeat 5] [--json]
"""

from __future__ import annotations

import argparse
import datetime as _dt
import gc
import importlib
import importlib.metadata
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import corpus  # noqa: E402

Batch = Callable[[Sequence[Any]], None]


# ---------------------------------------------------------------------------
# Timing


@dataclass
class Timing:
    name: str
    n: int
    loops: int
    rounds_us: list[float]
    group: str = ""
    note: str = ""

    @property
    def median_us(self) -> float:
        return statistics.median(self.rounds_us)

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "group": self.group,
            "records": self.n,
            "loops": self.loops,
            "median_us": self.median_us,
            "rounds_us": self.rounds_us,
            "note": self.note,
        }


@dataclass
class Config:
    repeat: int = 5
    min_time: float = 0.2  # seconds a round should last at least
    round_budget: float = 2.0  # seconds a round of a slow baseline may last at most
    min_sample: int = 50  # records a subsample keeps at least
    verbose: bool = True
    log: list[str] = field(default_factory=list)


def _pass_ns(fn: Batch, items: Sequence[Any]) -> int:
    t0 = time.perf_counter_ns()
    fn(items)
    return time.perf_counter_ns() - t0


def estimate_us(fn: Batch, items: Sequence[Any], k: int = 20) -> float:
    """A rough per-record cost from one warm pass over the first k records."""
    head = items[: max(1, min(k, len(items)))]
    fn(head)  # warm-up
    return _pass_ns(fn, head) / len(head) / 1000


def subsample(items: Sequence[Any], m: int) -> list[Any]:
    """m records spread evenly over the corpus (so the mix of kinds is kept)."""
    if m >= len(items):
        return list(items)
    step = len(items) / m
    return [items[int(i * step)] for i in range(m)]


def sample_for(fn: Batch, items: Sequence[Any], cfg: Config) -> list[Any]:
    """All records, or a subsample when one pass of fn would exceed the round budget."""
    est = estimate_us(fn, items)
    if est * len(items) / 1e6 <= cfg.round_budget:
        return list(items)
    m = max(min(cfg.min_sample, len(items)), int(cfg.round_budget * 1e6 / est))
    return subsample(items, m)


def measure_interleaved(
    entries: Sequence[tuple[str, Batch, Sequence[Any]]], cfg: Config, *, group: str = ""
) -> list[Timing]:
    """Median per-record microseconds of each (name, fn, items), gc disabled.

    The rounds of the entries alternate (A B A B ...), so that a burst of load
    from elsewhere on the machine hits the paths of a comparison alike.
    """
    plan = []
    for name, fn, items in entries:
        fn(items[: min(len(items), 200)])  # warm-up: caches, lazily built validators
        first = _pass_ns(fn, items)
        plan.append((name, fn, items, max(1, math.ceil(cfg.min_time * 1e9 / max(first, 1)))))
    rounds: list[list[float]] = [[] for _ in plan]
    enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        for _ in range(cfg.repeat):
            for k, (_name, fn, items, loops) in enumerate(plan):
                t0 = time.perf_counter_ns()
                for _ in range(loops):
                    fn(items)
                rounds[k].append((time.perf_counter_ns() - t0) / (loops * len(items)) / 1000)
    finally:
        if enabled:
            gc.enable()
    out = []
    for (name, _fn, items, loops), r in zip(plan, rounds, strict=True):
        t = Timing(name, len(items), loops, r, group)
        if cfg.verbose:
            print(f"  {name:55s} n={t.n:<6d} x{loops:<4d} {t.median_us:10.2f} us", file=sys.stderr)
        out.append(t)
    return out


def measure(
    name: str, fn: Batch, items: Sequence[Any], cfg: Config, *, group: str = "", note: str = ""
) -> Timing:
    """Median per-record microseconds of fn over items, gc disabled, cfg.repeat rounds."""
    t = measure_interleaved([(name, fn, items)], cfg, group=group)[0]
    t.note = note
    return t


# ---------------------------------------------------------------------------
# The corpus in every form


@dataclass
class Item:
    doc: dict[str, Any]
    json: bytes
    msgpack: bytes | None = None
    proto: bytes | None = None
    message: Any = None  # the upb MemoryRecord of proto
    proto3: dict[str, Any] | None = None  # proto3 JSON form (json_format) of message, built lazily
    #: The baselines' decoded records (msgspec Structs, pydantic models), for the encoders.
    typed: dict[str, Any] = field(default_factory=dict)


def _enum_prefix(enum_desc: Any) -> str:
    zero: str = enum_desc.values_by_number[0].name  # e.g. ROLE_UNSPECIFIED
    return zero[: -len("UNSPECIFIED")]


def proto3_form(value: Any, desc: Any) -> dict[str, Any]:
    """The proto3 JSON form (json_format) of a document in memorywire's JSON form.

    A fallback used only when memorywire.protobuf does not exist: it lets the
    baselines run. Walks the protobuf descriptors; repeated memorywire.v1.MapEntry
    fields are JSON objects in memorywire's form; entries are sorted by key as
    in the canonical form.
    """
    out: dict[str, Any] = {}
    for key, v in value.items():
        fd = desc.fields_by_name[key]
        out[key] = _p3_field(v, fd)
    return out


def _p3_field(v: Any, fd: Any) -> Any:
    mt = fd.message_type
    if fd.is_repeated:
        if mt is not None and mt.full_name == "memorywire.v1.MapEntry":
            return [{"key": k, "value": _p3_value(v[k])} for k in sorted(v)]
        if mt is not None and mt.GetOptions().map_entry:
            vfd = mt.fields_by_name["value"]
            return {k: _p3_single(x, vfd) for k, x in v.items()}
        return [_p3_single(x, fd) for x in v]
    return _p3_single(v, fd)


def _p3_single(v: Any, fd: Any) -> Any:
    mt = fd.message_type
    if mt is not None:
        if mt.full_name == "memorywire.v1.Value":
            return _p3_value(v)
        if mt.full_name == "google.protobuf.Timestamp":
            return v
        return proto3_form(v, mt)
    if fd.enum_type is not None:
        return _enum_prefix(fd.enum_type) + v.upper()
    return v


def _p3_value(v: Any) -> dict[str, Any]:
    if v is None:
        return {"null_value": "NULL_VALUE"}
    if isinstance(v, bool):
        return {"bool_value": v}
    if isinstance(v, int):
        return {"integer_value": str(v)}
    if isinstance(v, float):
        return {"float_value": v}
    if isinstance(v, str):
        return {"string_value": v}
    if isinstance(v, list):
        return {"list_value": {"values": [_p3_value(x) for x in v]}}
    return {"map_value": {"entries": [{"key": k, "value": _p3_value(v[k])} for k in sorted(v)]}}


def _try_import(name: str) -> Any:
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


@dataclass
class Codec:
    """memorywire's codec modules, or None where they do not exist yet."""

    json: Any
    msgpack: Any
    protobuf: Any
    convert: Any

    @classmethod
    def load(cls) -> Codec:
        import memorywire

        convert = getattr(memorywire, "convert", None)
        if convert is not None and not callable(convert):  # the submodule, not the function
            convert = getattr(convert, "convert", None)
        return cls(
            _try_import("memorywire.json"),
            _try_import("memorywire.msgpack"),
            _try_import("memorywire.protobuf"),
            convert,
        )

    def missing(self) -> list[str]:
        names = {
            "memorywire.json": self.json,
            "memorywire.msgpack": self.msgpack,
            "memorywire.protobuf": self.protobuf,
            "memorywire.convert": self.convert,
        }
        return [k for k, v in names.items() if v is None]


def build_items(docs: list[dict[str, Any]], codec: Codec) -> list[Item]:
    from google.protobuf import json_format

    from memorywire.v1 import record_pb2

    mr = record_pb2.MemoryRecord
    items = []
    for doc in docs:
        it = Item(doc=doc, json=corpus.dumps_json(doc))
        if codec.msgpack is not None:
            it.msgpack = codec.msgpack.encode(doc)
        if codec.protobuf is not None:
            it.proto = codec.protobuf.encode(doc)
        else:
            msg = json_format.ParseDict(proto3_form(doc, mr.DESCRIPTOR), mr())
            it.proto = msg.SerializeToString(deterministic=True)
        it.message = mr.FromString(it.proto)
        items.append(it)
    return items


def ensure_proto3(items: Sequence[Item]) -> None:
    """The baseline (b) input: json_format.MessageToDict of the memorywire protobuf message."""
    from google.protobuf import json_format

    for it in items:
        if it.proto3 is None:
            it.proto3 = json_format.MessageToDict(it.message, preserving_proto_field_name=True)


# ---------------------------------------------------------------------------
# Environment


def environment() -> dict[str, Any]:
    import google.protobuf
    import msgpack
    import orjson
    from google.protobuf.internal import api_implementation

    import memorywire

    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=Path(__file__).parent,
            capture_output=True,
            text=True,
            timeout=5,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        commit = ""
    try:
        affinity = len(os.sched_getaffinity(0))
    except AttributeError:
        affinity = os.cpu_count() or 0

    def version(dist: str) -> str:
        try:
            return importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            return "?"

    return {
        "date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "protobuf": google.protobuf.__version__,
        "protobuf_api": api_implementation.Type(),
        "orjson": orjson.__version__,
        "msgpack": ".".join(map(str, msgpack.version)),
        "jsonschema": version("jsonschema"),
        "memorywire": getattr(memorywire, "__version__", "?"),
        "commit": commit,
        "cpu": cpu,
        "cpus": affinity,
        "platform": platform.platform(),
        "loadavg": [round(x, 2) for x in os.getloadavg()] if hasattr(os, "getloadavg") else None,
    }


# ---------------------------------------------------------------------------
# The benchmark


@dataclass
class Comparison:
    label: str
    baseline: Timing
    subject: Timing
    kind: str  # "faster": baseline / subject >= target ; "within": subject / baseline <= target
    target: float
    applies: bool = True
    note: str = ""

    @property
    def ratio(self) -> float:
        if self.kind == "faster":
            return self.baseline.median_us / self.subject.median_us
        return self.subject.median_us / self.baseline.median_us

    @property
    def ok(self) -> bool | None:
        if not self.applies:
            return None
        return self.ratio >= self.target if self.kind == "faster" else self.ratio <= self.target

    def target_text(self) -> str:
        t = f">= {self.target:g}x faster" if self.kind == "faster" else f"<= {self.target:g}x of it"
        return t if self.applies else t + " (n/a)"

    def ratio_text(self) -> str:
        return f"{self.ratio:.1f}x faster" if self.kind == "faster" else f"{self.ratio:.2f}x of it"

    def as_dict(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "baseline": self.baseline.as_dict(),
            "subject": self.subject.as_dict(),
            "kind": self.kind,
            "ratio": self.ratio,
            "target": self.target,
            "applies": self.applies,
            "ok": self.ok,
            "note": self.note,
        }


def run(args: argparse.Namespace) -> dict[str, Any]:
    import msgpack
    import orjson
    from google.protobuf import json_format

    from memorywire.v1 import record_pb2

    cfg = Config(
        repeat=args.repeat,
        min_time=args.min_time,
        round_budget=args.round_budget,
        verbose=not args.quiet,
    )
    codec = Codec.load()
    missing = codec.missing()
    env = environment()

    t0 = time.perf_counter()
    docs = corpus.corpus(args.n, seed=args.seed, embeddings=args.embeddings)
    items = build_items(docs, codec)
    del docs
    setup_s = time.perf_counter() - t0
    sizes = {
        "json": statistics.fmean(len(i.json) for i in items),
        "protobuf": statistics.fmean(len(i.proto) for i in items if i.proto is not None),
    }
    if codec.msgpack is not None:
        sizes["msgpack"] = statistics.fmean(len(i.msgpack) for i in items if i.msgpack is not None)
    if not args.quiet:
        print(
            f"corpus: {len(items)} records, embeddings {args.embeddings or 'none'}, mean bytes "
            + ", ".join(f"{k} {v:.0f}" for k, v in sizes.items())
            + f" (setup {setup_s:.1f} s)",
            file=sys.stderr,
        )
        if missing:
            print(f"missing: {', '.join(missing)}; those rows are skipped", file=sys.stderr)

    validator = corpus.schema_validator()
    MR = record_pb2.MemoryRecord
    rows: list[Timing] = []
    comps: list[Comparison] = []

    # -- batch functions (whole passes; locals bound for a tight loop) -------

    def b_json_loads(batch: Sequence[Item], loads: Any = json.loads) -> None:
        for it in batch:
            loads(it.json)

    def b_orjson_loads(batch: Sequence[Item], loads: Any = orjson.loads) -> None:
        for it in batch:
            loads(it.json)

    def b_msgpack_unpackb(batch: Sequence[Item], unpackb: Any = msgpack.unpackb) -> None:
        for it in batch:
            unpackb(it.msgpack)

    def b_upb_parse(batch: Sequence[Item], parse: Any = MR.FromString) -> None:
        for it in batch:
            parse(it.proto)

    def b_upb_serialize(batch: Sequence[Item]) -> None:
        for it in batch:
            it.message.SerializeToString()

    def b_jsonschema(
        batch: Sequence[Item], loads: Any = json.loads, validate: Any = validator.validate
    ) -> None:
        for it in batch:
            validate(loads(it.json))

    def b_jsonschema_only(batch: Sequence[Item], validate: Any = validator.validate) -> None:
        for it in batch:
            validate(it.doc)

    def b_parsedict(batch: Sequence[Item], parse: Any = json_format.ParseDict) -> None:
        for it in batch:
            parse(it.proto3, MR()).SerializeToString()

    def b_naive(
        batch: Sequence[Item],
        loads: Any = json.loads,
        validate: Any = validator.validate,
        parse: Any = json_format.ParseDict,
    ) -> None:
        for it in batch:
            validate(loads(it.json))
            parse(it.proto3, MR()).SerializeToString()

    def b_raw_limit(batch: Sequence[Item], loads: Any = orjson.loads) -> None:
        for it in batch:
            loads(it.json)
            it.message.SerializeToString()

    def mk_decode(mod: Any, attr: str) -> Batch:
        decode = mod.decode

        def b(batch: Sequence[Item]) -> None:
            for it in batch:
                decode(getattr(it, attr))

        return b

    def mk_encode(mod: Any) -> Batch:
        encode = mod.encode

        def b(batch: Sequence[Item]) -> None:
            for it in batch:
                encode(it.doc)

        return b

    def mk_convert(source: str, target: str) -> Batch:
        convert = codec.convert
        attr = {"json": "json", "msgpack": "msgpack", "protobuf": "proto"}[source]

        def b(batch: Sequence[Item]) -> None:
            for it in batch:
                convert(getattr(it, attr), source=source, target=target)

        return b

    def m(name: str, fn: Batch, batch: Sequence[Item], group: str, note: str = "") -> Timing:
        t = measure(name, fn, batch, cfg, group=group, note=note)
        rows.append(t)
        return t

    def compare(
        label: str,
        baseline: tuple[str, Batch],
        subject: tuple[str, Batch] | None,
        batch: Sequence[Item],
        kind: str,
        target: float,
        *,
        applies: bool = True,
        note: str = "",
    ) -> None:
        """Time a baseline and its memorywire counterpart over the same records, rounds
        interleaved; a comparison whose subject does not exist yet times the baseline only."""
        entries = [(baseline[0], baseline[1], batch)]
        if subject is not None:
            entries.append((subject[0], subject[1], batch))
        timed = measure_interleaved(entries, cfg, group="compare")
        if subject is None:
            rows.append(timed[0])
            return
        comps.append(Comparison(label, timed[0], timed[1], kind, target, applies, note))

    # -- informational: raw codecs, memorywire, baselines alone -------------------
    if not args.quiet:
        print("timing (median of rounds, us per record):", file=sys.stderr)
    if not args.skip_info:
        m("json.loads", b_json_loads, items, "raw")
        m("orjson.loads", b_orjson_loads, items, "raw")
        if codec.msgpack is not None:
            m("msgpack.unpackb", b_msgpack_unpackb, items, "raw")
        m("upb MemoryRecord.FromString", b_upb_parse, items, "raw")
        m("upb SerializeToString", b_upb_serialize, items, "raw")
        for fmt, mod, attr in (
            ("json", codec.json, "json"),
            ("msgpack", codec.msgpack, "msgpack"),
            ("protobuf", codec.protobuf, "proto"),
        ):
            if mod is not None:
                m(f"memorywire.{fmt}.decode", mk_decode(mod, attr), items, "memorywire")
                m(f"memorywire.{fmt}.encode", mk_encode(mod), items, "memorywire")
        if codec.convert is not None:
            for src, dst in (
                ("json", "protobuf"),
                ("msgpack", "protobuf"),
                ("protobuf", "json"),
                ("json", "msgpack"),
            ):
                if src == "msgpack" and codec.msgpack is None:
                    continue
                m(f"memorywire.convert {src}->{dst}", mk_convert(src, dst), items, "memorywire")

    sample_a = sample_for(b_jsonschema, items, cfg)
    ensure_proto3(items[: min(20, len(items))])
    sample_b = sample_for(b_naive, items, cfg)
    ensure_proto3(sample_b)
    if not args.skip_info:
        m("jsonschema.validate (after json.loads)", b_jsonschema_only, sample_a, "baseline")
        m(
            "json_format.ParseDict + SerializeToString",
            b_parsedict,
            sample_b,
            "baseline",
            note="input: MessageToDict of the memorywire protobuf message",
        )

    # -- the comparisons -----------------------------------------------------------
    conv_jp = mk_convert("json", "protobuf") if codec.convert is not None else None
    compare(
        "(a) validation: json.decode vs json.loads + jsonschema",
        ("json.loads + jsonschema.validate", b_jsonschema),
        ("memorywire.json.decode", mk_decode(codec.json, "json")) if codec.json else None,
        sample_a,
        "faster",
        100,
    )
    compare(
        "(b) json->protobuf: convert vs jsonschema + json_format",
        ("json.loads + jsonschema + ParseDict + Serialize", b_naive),
        ("memorywire.convert json->protobuf", conv_jp) if conv_jp else None,
        sample_b,
        "faster",
        30,
    )
    compare(
        "(c) json->protobuf: convert vs orjson + upb (raw limit)",
        ("orjson.loads + upb SerializeToString", b_raw_limit),
        ("memorywire.convert json->protobuf", conv_jp) if conv_jp else None,
        items,
        "within",
        3,
    )
    if codec.msgpack is not None:
        compare(
            "(d) msgpack->protobuf: convert vs msgpack.unpackb",
            ("msgpack.unpackb", b_msgpack_unpackb),
            ("memorywire.convert msgpack->protobuf", mk_convert("msgpack", "protobuf"))
            if codec.convert
            else None,
            items,
            "within",
            3,
            applies=args.embeddings == 768,
            note="its target is stated for --embeddings 768",
        )

    side_by_side(items, codec, cfg, comps, compare_entry=compare)
    before_after(items, codec, comps, compare_entry=compare)

    return {
        "environment": env,
        "config": {
            "n": len(items),
            "embeddings": args.embeddings,
            "seed": args.seed,
            "repeat": cfg.repeat,
            "min_time_s": cfg.min_time,
            "round_budget_s": cfg.round_budget,
        },
        "mean_bytes": sizes,
        "missing": missing,
        "rows": [r.as_dict() for r in rows],
        "comparisons": [c.as_dict() for c in comps],
        "_rows": rows,
        "_comps": comps,
    }


def _baselines() -> Any:
    """baseline_models, or None when pydantic or msgspec is not installed."""
    try:
        import baseline_models
    except ImportError:
        return None
    return baseline_models


#: The MessagePack baselines keep a float32 vector as the bin it came in,
#: unchecked; memorywire is asked for the same form (and checks it).
BYTES_NOTE = "float32 vectors as bytes, as the baselines keep them"
FLOATS_NOTE = "no target, for reference: vectors as lists of Python floats, which the baselines do not build"
JSON_BYTES_NOTE = ("no target, for reference: vectors as float32 bytes, where the baselines build lists of "
                   "Python floats")


def side_by_side(items: Sequence[Item], codec: Codec, cfg: Config, comps: list[Comparison],
                 compare_entry: Callable[..., None]) -> None:
    """(e) to (k): memorywire against pydantic and msgspec models of the same
    rules, over the message and fact records of the corpus."""
    import msgpack
    import msgspec

    bm = _baselines()
    if bm is None or codec.json is None or codec.msgpack is None:
        print("pydantic or msgspec is missing (pip install -e 'python[bench]'): "
              "no side-by-side comparisons", file=sys.stderr)
        return
    batch = [it for it in items if it.doc.get("kind") in ("message", "fact")]
    if not batch:
        return
    js_dec = msgspec.json.Decoder(bm.MemoryRecord)
    mp_dec = msgspec.msgpack.Decoder(bm.MpMemoryRecord)
    for it in batch:
        assert it.msgpack is not None
        it.typed["msgspec"] = js_dec.decode(it.json)
        it.typed["msgspec_mp"] = mp_dec.decode(it.msgpack)
        it.typed["pydantic"] = bm.PMemoryRecord.model_validate_json(it.json)
        # What each encoder is given is a record its own decoder gave, as the
        # baselines' Structs are: from MessagePack, vectors as bytes.
        it.typed["memorywire"] = codec.json.decode(it.json)
        it.typed["memorywire_mp"] = codec.msgpack.decode(it.msgpack, vectors="bytes")
    json_enc = codec.json.Encoder()
    mp_bytes = codec.msgpack.Decoder(vectors="bytes")
    json_bytes = codec.json.Decoder(vectors="bytes")
    mp_enc = codec.msgpack.Encoder()
    validate_json = bm.PMemoryRecord.model_validate_json
    validate_mp = bm.PMpMemoryRecord.model_validate
    validate_dict = bm.PMemoryRecord.model_validate

    def b_pydantic_json(batch: Sequence[Item]) -> None:
        for it in batch:
            validate_json(it.json)

    def b_msgspec_json(batch: Sequence[Item], decode: Any = js_dec.decode) -> None:
        for it in batch:
            decode(it.json)

    def b_pydantic_mp(batch: Sequence[Item], unpackb: Any = msgpack.unpackb) -> None:
        for it in batch:
            validate_mp(unpackb(it.msgpack, timestamp=3))

    def b_msgspec_mp(batch: Sequence[Item], decode: Any = mp_dec.decode) -> None:
        for it in batch:
            decode(it.msgpack)

    def b_json_decode(batch: Sequence[Item], decode: Any = codec.json.decode) -> None:
        for it in batch:
            decode(it.json)

    def b_mp_decode(batch: Sequence[Item], decode: Any = codec.msgpack.decode) -> None:
        for it in batch:
            decode(it.msgpack)

    def b_json_decode_bytes(batch: Sequence[Item], decode: Any = json_bytes.decode) -> None:
        for it in batch:
            decode(it.json)

    # The baselines keep a vector as the bin it came in; so does this.
    def b_mp_decode_bytes(batch: Sequence[Item], decode: Any = mp_bytes.decode) -> None:
        for it in batch:
            decode(it.msgpack)

    def b_msgspec_json_enc(batch: Sequence[Item], encode: Any = msgspec.json.encode) -> None:
        for it in batch:
            encode(it.typed["msgspec"])

    def b_msgspec_mp_enc(batch: Sequence[Item], encode: Any = msgspec.msgpack.encode) -> None:
        for it in batch:
            encode(it.typed["msgspec_mp"])

    def b_json_enc(batch: Sequence[Item], encode: Any = json_enc.encode_valid) -> None:
        for it in batch:
            encode(it.typed["memorywire"])

    def b_mp_enc(batch: Sequence[Item], encode: Any = mp_enc.encode_valid) -> None:
        for it in batch:
            encode(it.typed["memorywire_mp"])

    def b_pydantic_dict(batch: Sequence[Item]) -> None:
        for it in batch:
            validate_dict(it.doc).model_dump_json(by_alias=True, exclude_unset=True)

    def b_validate_encode(batch: Sequence[Item], encode: Any = codec.json.encode) -> None:
        for it in batch:
            encode(it.doc)

    fast = "; fast path " + ("on" if _fast_path() else "off")
    for label, base, subject, kind, target, note in (
        ("(e) json decode vs pydantic", ("pydantic model_validate_json", b_pydantic_json),
         ("memorywire.json.decode", b_json_decode), "faster", 2, ""),
        ("(f) json decode vs msgspec", ("msgspec.json Decoder(Struct)", b_msgspec_json),
         ("memorywire.json.decode", b_json_decode), "within", 1.5, ""),
        ("(e2) json decode, vectors as bytes, vs pydantic", ("pydantic model_validate_json", b_pydantic_json),
         ("memorywire.json.decode(vectors='bytes')", b_json_decode_bytes), "faster", 2, JSON_BYTES_NOTE),
        ("(g) msgpack decode vs pydantic", ("msgpack.unpackb + pydantic model_validate", b_pydantic_mp),
         ("memorywire.msgpack.decode(vectors='bytes')", b_mp_decode_bytes), "faster", 2, BYTES_NOTE),
        ("(h) msgpack decode vs msgspec", ("msgspec.msgpack Decoder(Struct)", b_msgspec_mp),
         ("memorywire.msgpack.decode(vectors='bytes')", b_mp_decode_bytes), "within", 1.5, BYTES_NOTE),
        ("(g2) msgpack decode, vectors as floats, vs pydantic",
         ("msgpack.unpackb + pydantic model_validate", b_pydantic_mp),
         ("memorywire.msgpack.decode", b_mp_decode), "faster", 2, FLOATS_NOTE),
        ("(h2) msgpack decode, vectors as floats, vs msgspec", ("msgspec.msgpack Decoder(Struct)", b_msgspec_mp),
         ("memorywire.msgpack.decode", b_mp_decode), "within", 1.5, FLOATS_NOTE),
        ("(i) json encode vs msgspec", ("msgspec.json.encode(Struct)", b_msgspec_json_enc),
         ("memorywire.json Encoder.encode_valid", b_json_enc), "within", 2,
         "a record already validated: no validation on either side"),
        ("(j) msgpack encode vs msgspec", ("msgspec.msgpack.encode(Struct)", b_msgspec_mp_enc),
         ("memorywire.msgpack Encoder.encode_valid", b_mp_enc), "within", 2,
         "a record already validated: no validation on either side"),
        ("(k) validate + json encode vs pydantic", ("pydantic model_validate + model_dump_json", b_pydantic_dict),
         ("memorywire.json.encode", b_validate_encode), "faster", 1,
         "a plain dict, validated then written; no target, for reference"),
    ):
        compare_entry(label, base, subject, batch, kind, target,
                      applies=not label.startswith(("(k)", "(e2)", "(g2)", "(h2)")),
                      note=(note + "; " if note else "") + f"message and fact records{fast}")


def before_after(items: Sequence[Item], codec: Codec, comps: list[Comparison],
                 compare_entry: Callable[..., None]) -> None:
    """(l) to (o): the codec with its typed fast path against the generated
    walkers alone (what runs with MEMORYWIRE_PURE=1, and what ran before the
    fast path), over the whole corpus."""
    try:
        from memorywire import _fast
    except ImportError:
        return
    if not _fast.ENABLED or codec.json is None or codec.msgpack is None or codec.protobuf is None:
        return
    _fast.ENABLED = False
    _fast._decoders.clear()
    try:
        walkers = {"json": codec.json.Decoder(), "msgpack": codec.msgpack.Decoder()}
    finally:
        _fast.ENABLED = True
        _fast._decoders.clear()
    fast = {"json": codec.json.Decoder(), "msgpack": codec.msgpack.Decoder()}
    to_protobuf = codec.protobuf.Encoder()
    attr = {"json": "json", "msgpack": "msgpack"}

    def mk(decoders: dict[str, Any], source: str, convert: bool) -> Batch:
        decode_walk = decoders[source].decode_walk
        write = to_protobuf.encode_valid
        name = attr[source]

        def b(batch: Sequence[Item]) -> None:
            for it in batch:
                doc, walk = decode_walk(getattr(it, name))
                if convert:
                    write(doc, walk)

        return b

    for label, source, convert in (
        ("(l) json decode: walkers alone vs fast path", "json", False),
        ("(m) msgpack decode: walkers alone vs fast path", "msgpack", False),
        ("(n) json->protobuf: walkers alone vs fast path", "json", True),
        ("(o) msgpack->protobuf: walkers alone vs fast path", "msgpack", True),
    ):
        compare_entry(label, ("walkers alone", mk(walkers, source, convert)),
                      ("fast path", mk(fast, source, convert)), items, "faster", 1, applies=False,
                      note="before and after the typed fast path; no target")


def _fast_path() -> bool:
    try:
        from memorywire import _fast
    except ImportError:
        return False
    return bool(_fast.ENABLED)


def print_report(res: dict[str, Any]) -> None:
    env, conf = res["environment"], res["config"]
    print(f"memorywire codec benchmark, {env['date']}")
    print(
        f"  Python {env['python']} | protobuf {env['protobuf']} ({env['protobuf_api']}) | "
        f"orjson {env['orjson']} | msgpack {env['msgpack']} | jsonschema {env['jsonschema']} | "
        f"memorywire {env['memorywire']} {env['commit']}"
    )
    print(f"  CPU {env['cpu']} ({env['cpus']} usable) | {env['platform']} | load {env['loadavg']}")
    print(
        f"  corpus: {conf['n']} records, seed {conf['seed']}, embeddings "
        f"{conf['embeddings'] or 'none'}; mean bytes/record: "
        + ", ".join(f"{k} {v:.0f}" for k, v in res["mean_bytes"].items())
    )
    print(
        f"  median of {conf['repeat']} rounds (each >= {conf['min_time_s']} s, gc off), "
        "microseconds per record; records = records per pass.\n"
        "  A comparison times both sides over the same records, alternating rounds; a baseline\n"
        f"  slower than {conf['round_budget_s']:g} s a pass runs on an evenly spread subsample."
    )
    if res["missing"]:
        print(f"  not available yet: {', '.join(res['missing'])} (their rows are skipped)")
    order = {"raw": 0, "memorywire": 1, "baseline": 2, "compare": 3}
    rows: list[Timing] = sorted(res["_rows"], key=lambda r: order.get(r.group, 9))
    if rows:
        print()
        w = max(len(r.name) for r in rows) + 2
        print(f"{'path':{w}s}{'us/record':>12s}{'records':>9s}")
        last = None
        for r in rows:
            if r.group != last and last is not None:
                print()
            last = r.group
            print(f"{r.name:{w}s}{r.median_us:12.2f}{r.n:9d}")
    comps: list[Comparison] = res["_comps"]
    if comps:
        print()
        cw = max(len(c.label) for c in comps) + 2
        print(
            f"{'comparison':{cw}s}{'records':>8s}{'baseline':>11s}{'memorywire':>12s}"
            f"{'ratio':>15s}  {'target':24s}result"
        )
        for c in comps:
            ok = {True: "PASS", False: "FAIL", None: "-"}[c.ok]
            print(
                f"{c.label:{cw}s}{c.subject.n:8d}{c.baseline.median_us:11.2f}"
                f"{c.subject.median_us:12.2f}{c.ratio_text():>15s}  {c.target_text():24s}{ok}"
            )
        print()
        for c in comps:
            print(f"  {c.label.split(' ', 1)[0]} baseline: {c.baseline.name}; memorywire: {c.subject.name}")
            if c.note:
                print(f"      {c.note}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__.split("\n\n", 1)[1],
    )
    p.add_argument("-n", type=int, default=10_000, help="number of records (default 10000)")
    p.add_argument(
        "--embeddings",
        type=int,
        default=0,
        metavar="DIM",
        help="add one embedding of DIM float32 values to every record (e.g. 768)",
    )
    p.add_argument(
        "--repeat", type=int, default=5, help="rounds per path; the median is reported (default 5)"
    )
    p.add_argument(
        "--min-time",
        type=float,
        default=0.2,
        help="seconds a round lasts at least; fast paths loop over the records (default 0.2)",
    )
    p.add_argument(
        "--round-budget",
        type=float,
        default=2.0,
        help="seconds one pass of a slow baseline may take; beyond it both sides of the "
        "comparison run on the same evenly spread subsample (default 2.0)",
    )
    p.add_argument("--seed", type=int, default=corpus.DEFAULT_SEED, help="corpus seed")
    p.add_argument(
        "--skip-info",
        action="store_true",
        help="time only what the comparisons need, not the informational rows",
    )
    p.add_argument(
        "--json", action="store_true", help="print machine-readable JSON instead of a table"
    )
    p.add_argument("-q", "--quiet", action="store_true", help="no progress on standard error")
    args = p.parse_args(argv)
    if args.n < 1 or args.repeat < 1:
        p.error("-n and --repeat must be at least 1")
    res = run(args)
    if args.json:
        print(json.dumps({k: v for k, v in res.items() if not k.startswith("_")}, indent=2))
    else:
        print_report(res)
    return 0


if __name__ == "__main__":
    sys.exit(main())
