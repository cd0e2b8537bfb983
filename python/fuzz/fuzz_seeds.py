"""Build the seed corpus of every fuzz target from the conformance vectors
(conformance/vectors/v1) and the examples (examples/v1).

    python python/fuzz/fuzz_seeds.py OUT      # writes OUT/<target>/<sha1> files

Every input of a vector, valid or not, in its encoding, is a seed of the
decoder of that encoding; the valid documents are also written in the other
encodings, as streams of a few documents, and as inputs of convert. Each
seed starts with the header of fuzz_targets.py (the message type).
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import pathlib
import sys
from collections import defaultdict
from collections.abc import Iterator

import fuzz_targets as targets

from memorywire import stream
from memorywire.convert import convert as convert_bytes
from memorywire.errors import MemorywireError

ROOT = pathlib.Path(__file__).resolve().parents[2]
VECTORS = ROOT / "conformance" / "vectors" / "v1"
EXAMPLES = ROOT / "examples" / "v1"
#: Documents per stream seed.
STREAM_LENGTH = 3
#: Larger inputs (the vectors of the size limits) make slow seeds.
MAX_SEED_BYTES = 64 * 1024


def vector_inputs() -> Iterator[tuple[str, str, bytes]]:
    """(type, encoding, bytes) of every input of every vector."""
    for path in sorted(VECTORS.glob("*.json")):
        if path.name == "vectors.schema.json":
            continue
        for case in json.loads(path.read_text(encoding="utf-8"))["cases"]:
            for encoding, given in case["inputs"].items():
                data = given["text"].encode("utf-8") if "text" in given else bytes.fromhex(given["hex"])
                yield case["type"], encoding, data


def example_documents() -> Iterator[tuple[str, bytes]]:
    """(type, JSON bytes) of every example document, its type found by trying each."""
    texts = [p.read_bytes() for p in sorted(EXAMPLES.rglob("*.json"))]
    texts += [line for p in sorted(EXAMPLES.rglob("*.jsonl")) for line in p.read_bytes().splitlines() if line]
    for text in texts:
        for type_name in targets.TYPES:
            try:
                targets.MODULES["json"].decode(text, type=type_name)
            except MemorywireError:
                continue
            yield type_name, text


def build(out: pathlib.Path) -> dict[str, int]:
    """Write the seeds of every target under out; return how many each has."""
    seeds: dict[str, set[bytes]] = defaultdict(set)
    valid: dict[str, list[tuple[str, bytes]]] = defaultdict(list)  # type -> (encoding, bytes)
    inputs = list(vector_inputs()) + [(t, "json", d) for t, d in example_documents()]
    for type_name, encoding, data in inputs:
        head = targets.header(type_name)
        seeds[encoding].add(head + data)
        try:
            targets.MODULES[encoding].decode(data, type=type_name)
        except MemorywireError:
            continue
        valid[type_name].append((encoding, data))
        for target_index, target in enumerate(targets.ENCODINGS):
            source_index = targets.ENCODINGS.index(encoding)
            seeds["convert"].add(head + bytes([source_index * 3 + target_index]) + data)
            try:
                other = convert_bytes(data, source=encoding, target=target, type=type_name)
            except MemorywireError:
                continue
            seeds[target].add(head + other)
    for type_name, docs in valid.items():
        head = targets.header(type_name)
        for encoding, name in (("json", "jsonl"), ("msgpack", "msgpack-stream"),
                               ("protobuf", "protobuf-stream")):
            for start in range(0, len(docs), STREAM_LENGTH):
                buffer = io.BytesIO()
                writer = stream.Writer(buffer, encoding, type=type_name)
                for source, data in docs[start:start + STREAM_LENGTH]:
                    try:
                        writer.write(targets.MODULES[source].decode(data, type=type_name))
                    except MemorywireError:
                        continue  # content of a newer minor version kept only in its encoding
                if writer.count:
                    seeds[name].add(head + buffer.getvalue())
    # The tight limits are reached from the same seeds.
    for name in list(seeds):
        seeds[name] |= {bytes([s[0] | 0x80]) + s[1:] for s in list(seeds[name])[::8]}
    counts = {}
    for name in targets.TARGETS:
        folder = out / name
        folder.mkdir(parents=True, exist_ok=True)
        for seed in seeds[name]:
            if len(seed) > MAX_SEED_BYTES:
                continue
            (folder / hashlib.sha1(seed).hexdigest()).write_bytes(seed)
        counts[name] = sum(len(seed) <= MAX_SEED_BYTES for seed in seeds[name])
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", type=pathlib.Path, help="the folder to write the seeds into")
    args = parser.parse_args(argv)
    for name, count in build(args.out).items():
        print(f"{name}: {count} seeds", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
