"""The main job on the embedded defaults: validate every example memory and
convert it across all encodings, showing sizes and that nothing changed.

Run through `make demo`.
"""

from __future__ import annotations

import pathlib
import sys
import time

import memorywire
from memorywire import json as mjson
from memorywire.convert import ENCODINGS, module

ROOT = pathlib.Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples" / "v1"


def example_type(path: pathlib.Path) -> str:
    if path.parent.name == "records":
        return "memorywire.v1.MemoryRecord"
    if path.stem.startswith("error"):
        return "memorywire.v1.Error"
    return "memorywire.v1." + "".join(p.capitalize() for p in path.stem.split("-"))


def main() -> int:
    files = sorted(EXAMPLES.glob("records/*.json")) + sorted(EXAMPLES.glob("operations/*.json"))
    print(f"memorywire {memorywire.__version__}, specification {memorywire.SPECVERSION}")
    print(f"{len(files)} example documents in {EXAMPLES.relative_to(ROOT)}\n")
    print(f"{'document':<44} {'type':<26} {'json':>6} {'msgpack':>8} {'protobuf':>9}  round trips")
    failures = 0
    totals = dict.fromkeys(ENCODINGS, 0)
    started = time.perf_counter()
    for path in files:
        type_name = example_type(path)
        name = f"{path.parent.name}/{path.name}"
        try:
            doc = mjson.decode(path.read_bytes(), type=type_name)
            encoded = {enc: module(enc).encode(doc, type=type_name) for enc in ENCODINGS}
            checked = 0
            for source in ENCODINGS:
                for target in ENCODINGS:
                    out = memorywire.convert(encoded[source], source=source, target=target, type=type_name)
                    if out != encoded[target]:
                        raise AssertionError(f"{source} -> {target} changed the document")
                    checked += 1
        except (memorywire.MemorywireError, AssertionError) as e:
            failures += 1
            print(f"{name:<44} FAILED: {e}")
            continue
        for enc in ENCODINGS:
            totals[enc] += len(encoded[enc])
        short = type_name.rsplit(".", 1)[-1]
        print(f"{name:<44} {short:<26} {len(encoded['json']):>6} {len(encoded['msgpack']):>8} "
              f"{len(encoded['protobuf']):>9}  {checked} identical")
    elapsed = time.perf_counter() - started
    print(f"\n{'total bytes':<71} {totals['json']:>6} {totals['msgpack']:>8} {totals['protobuf']:>9}")
    print(f"{len(files) - failures} of {len(files)} documents valid and lossless across "
          f"{len(ENCODINGS)} encodings ({len(files) * 9} conversions) in {elapsed:.2f} s")
    return 1 if failures or not files else 0


if __name__ == "__main__":
    sys.exit(main())
