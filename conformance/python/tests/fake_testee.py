"""A testee for the runner's own tests: it knows every answer and can misbehave.

It answers from the vector files themselves (so it needs no codec): the case
id of a request names the vector, and the vector gives the answer. Options
make it misbehave on the cases whose id matches a glob:

  --crash GLOB           write to stderr and exit 3 without answering
  --hang GLOB            never answer
  --malformed GLOB       answer with a frame that is not JSON
  --runtime-error GLOB   answer runtime_error
  --bad-response GLOB    answer a frame that breaks the protocol schema
  --wrong GLOB           answer "valid" / a wrong payload
  --unsupported GLOB     answer unsupported
  --extra-frame GLOB     answer, then write a second frame nobody asked for
  --print GLOB           print a line of text to stdout, then answer
  --encodings LIST       announce only these encodings (comma-separated)
  --crash-at-start       exit before the handshake
  --no-handshake         answer the handshake with a runtime_error
  --handshake-json JSON  answer the handshake with this frame
  --die-after FILE       once FILE exists, exit at start (the --crash case creates it)
"""

from __future__ import annotations

import argparse
import base64
import fnmatch
import json
import struct
import sys
import time
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data" / "vectors" / "v1"


def load_answers(directory: Path) -> dict[str, dict]:
    vectors = {}
    for path in sorted(directory.glob("*.json")):
        if path.name == "vectors.schema.json":
            continue
        doc = json.loads(path.read_text("utf-8"))
        for case in doc["cases"]:
            vectors[f"{doc['area']}.{case['name']}"] = case
    return vectors


def answer(vectors: dict[str, dict], request: dict) -> dict:
    _, area, name, _rest = request["id"].split(".", 3)
    expected = vectors[f"{area}.{name}"]["expected"]
    output = request["output"]
    if not expected["valid"]:
        return {"type": "invalid", "stage": "validation", "reason": expected["reason"],
                "pointer": expected["pointer"], "message": "rejected"}
    if output is None:
        return {"type": "valid"}
    if output in expected.get("conversion_errors", {}):
        error = expected["conversion_errors"][output]
        return {"type": "invalid", "stage": "validation", "reason": error["reason"],
                "pointer": error["pointer"], "message": "cannot convert"}
    canonical = expected["canonical"][output]
    data = canonical.encode("utf-8") if output == "json" else bytes.fromhex(canonical)
    return {"type": "payload", "data": base64.b64encode(data).decode("ascii")}


def write(frame: dict | bytes) -> None:
    body = frame if isinstance(frame, bytes) else json.dumps(frame).encode("utf-8")
    sys.stdout.buffer.write(struct.pack("<I", len(body)) + body)
    sys.stdout.buffer.flush()


def read() -> dict | None:
    head = sys.stdin.buffer.read(4)
    if len(head) < 4:
        return None
    (size,) = struct.unpack("<I", head)
    return json.loads(sys.stdin.buffer.read(size))


def main() -> int:
    parser = argparse.ArgumentParser()
    for option in ("crash", "hang", "malformed", "runtime-error", "bad-response", "wrong",
                   "unsupported", "extra-frame", "print"):
        parser.add_argument(f"--{option}", action="append", default=[], metavar="GLOB")
    parser.add_argument("--encodings", default="json,msgpack,protobuf")
    parser.add_argument("--crash-at-start", action="store_true")
    parser.add_argument("--no-handshake", action="store_true")
    parser.add_argument("--handshake-json", metavar="JSON")
    parser.add_argument("--die-after", metavar="FILE")
    parser.add_argument("--vectors", default=str(DATA))
    args = parser.parse_args()
    if args.crash_at_start or (args.die_after and Path(args.die_after).exists()):
        print("fake testee: cannot start", file=sys.stderr)
        return 4
    vectors = load_answers(Path(args.vectors))

    def hit(option: str, case_id: str) -> bool:
        return any(fnmatch.fnmatchcase(case_id, g) for g in getattr(args, option))

    while True:
        request = read()
        if request is None or request["type"] == "shutdown":
            return 0
        if request["type"] == "handshake":
            if args.no_handshake:
                write({"type": "runtime_error", "message": "no handshake today"})
                continue
            if args.handshake_json:
                write(json.loads(args.handshake_json))
                continue
            write({"type": "handshake", "name": "fake", "version": "0", "language": "python",
                   "protocol": 1, "specversions": ["1.0"],
                   "encodings": args.encodings.split(",")})
            continue
        case_id = request["id"]
        if hit("crash", case_id):
            print(f"fake testee: crashing on {case_id}", file=sys.stderr)
            sys.stderr.flush()
            if args.die_after:
                Path(args.die_after).touch()
            return 3
        if hit("hang", case_id):
            time.sleep(3600)
        if hit("malformed", case_id):
            write(b"this is not JSON")
            continue
        if hit("runtime_error", case_id):
            write({"type": "runtime_error", "message": "out of cheese"})
            continue
        if hit("bad_response", case_id):
            write({"type": "invalid", "reason": "lowercase reason"})
            continue
        if hit("print", case_id):
            sys.stdout.write("hello from the testee\n")
            sys.stdout.flush()
        if hit("unsupported", case_id):
            write({"type": "unsupported", "message": "not today"})
            continue
        response = answer(vectors, request)
        if hit("wrong", case_id):
            if response["type"] == "valid":
                response = {"type": "invalid", "stage": "parse", "reason": "SYNTAX_ERROR",
                            "pointer": "", "message": "wrong on purpose"}
            elif request["output"] is None:
                response = {"type": "valid"}
            else:
                response = {"type": "payload", "data": base64.b64encode(b"{}").decode("ascii")}
        write(response)
        if hit("extra_frame", case_id):
            write({"type": "valid"})


if __name__ == "__main__":
    sys.exit(main())
