"""Deliberately broken testees: the reference testee with one fault each.

    python broken_testee.py --fault NAME

Each fault is a small transformation of what the reference testee
(``memorywire.testee``) answers, and breaks one rule of the specification. The
conformance suite must catch every one of them: run against any of these, the
runner exits 1 with at least one failed case. They prove that the vectors and
the runner detect the mistakes implementations are likely to make.

Faults of the output (a conversion's canonical bytes are rewritten):

drop-extensions
    Removes every ``extensions`` member from the output.
    Breaks core.md section 12 (metadata and extensions survive every encoding).
drop-native
    Removes every ``native`` member (the framework's own record) from the output.
    Breaks core.md section 11 (native passthrough).
round-float32
    Rounds every embedding value to 6 significant digits before writing it.
    Breaks core.md section 3.6 and json-format.md section 3.4 (float32 vectors
    are bit-exact).
lose-timestamp-precision
    Truncates every timestamp to milliseconds.
    Breaks core.md section 3.8 (nanoseconds survive every encoding).
noncanonical-msgpack
    Writes MessagePack map keys in reverse order, at every level.
    Breaks msgpack-format.md section 7 (keys sorted by UTF-8 bytes).
unsorted-json-keys
    Writes JSON object members in reverse order, at every level.
    Breaks json-format.md section 7 (members sorted by code point).
null-for-absent
    Writes the default of an absent field explicitly in JSON: ``"tags": []`` on
    a memory record without tags.
    Breaks json-format.md section 4 and core.md section 3.11 (canonical writers
    omit defaults).
escape-non-ascii
    Writes every non-ASCII character of a JSON string as a ``\\uXXXX`` escape.
    Breaks json-format.md sections 3.1 and 7 (only ``"``, ``\\`` and control
    characters are escaped in canonical JSON).

Faults of the verdict (a rejection is answered differently):

accept-unknown-enum
    Answers ``valid`` to a document rejected with UNKNOWN_ENUM_VALUE.
    Breaks core.md section 3.9 (unknown enum values are errors).
accept-unknown-field
    Answers ``valid`` to a document rejected with UNKNOWN_FIELD.
    Breaks json-format.md section 6 and versioning.md section 4 (unknown members
    of a document of the reader's minor version are errors).
accept-truncated
    Answers ``valid`` to a Protobuf or MessagePack document rejected with
    TRUNCATED, and converts it to an empty document (no bytes).
    Breaks protobuf-format.md section 2 and msgpack-format.md section 2 (a
    document is exactly one complete message or map).
accept-duplicate-keys
    Answers ``valid`` to a document rejected with DUPLICATE_KEY.
    Breaks json-format.md section 5 and msgpack-format.md section 5.
accept-nan
    Answers ``valid`` to a document rejected with NON_FINITE_NUMBER.
    Breaks core.md section 3.5 (NaN and infinities are rejected).
accept-missing-required
    Answers ``valid`` to a document rejected with REQUIRED_FIELD_MISSING.
    Breaks core.md section 3.11 and the REQUIRED constraints of every message
    (a required field that is absent, or holds its default, is an error).
accept-out-of-range
    Answers ``valid`` to a document rejected with VALUE_OUT_OF_RANGE.
    Breaks core.md section 3 (numbers within their range, procedure states
    among the procedure's states).
wide-field-numbers
    Reads a Protobuf field number above 536870911 (2^29-1) as an unknown field,
    answering UNKNOWN_FIELD at its number, as a reader with 32-bit field numbers
    would. Breaks protobuf-format.md section 2.3 (such a tag is
    INVALID_WIRE_FORMAT). Caught by the recommended ErrorReason cases.
wrong-pointer
    Reports every rejection at the parent of the offending member.
    Breaks operations.md section 3.1 (a violation points at the offending member).
    Caught by the recommended ErrorReason cases: run with --level recommended.

Faults of the input (a valid document is refused):

enforce-block-limit
    Rejects a memory block whose value is longer than its limit, with
    VALUE_OUT_OF_RANGE at the value. Breaks core.md section 4.11 (a reader
    MUST NOT reject such a value, so that a framework's state survives).
"""

from __future__ import annotations

import argparse
import base64
import json
import re
import sys
from collections.abc import Callable, Mapping
from typing import Any

import msgpack
from memorywire._wire import MAX_FIELD_NUMBER
from memorywire.convert import module
from memorywire.errors import MemorywireError, violation
from memorywire.testee import Testee

# Output faults: functions (output bytes, encoding, message type) -> bytes.
OutputFault = Callable[[bytes, str, str], bytes]


# Helpers: a JSON reader and writer that keep number tokens exactly as written,
# so that a rewritten canonical JSON output differs only by the fault.


class _Number(str):
    """A JSON number token, kept as written."""


class _Members(list[tuple[str, Any]]):
    """The members of a JSON object, in document order."""


def _parse_json(data: bytes) -> Any:
    return json.loads(data, object_pairs_hook=_Members, parse_float=_Number,
                      parse_int=_Number)


def _write_json(node: Any, *, ascii_only: bool = False) -> str:
    if isinstance(node, _Members):
        return "{" + ",".join(f"{_write_json(k, ascii_only=ascii_only)}:"
                              f"{_write_json(v, ascii_only=ascii_only)}"
                              for k, v in node) + "}"
    if isinstance(node, list):
        return "[" + ",".join(_write_json(v, ascii_only=ascii_only) for v in node) + "]"
    if isinstance(node, _Number):
        return str(node)
    if isinstance(node, str):
        return json.dumps(node, ensure_ascii=ascii_only)
    return json.dumps(node)


def _reorder(node: Any, order: Callable[[_Members], _Members]) -> Any:
    if isinstance(node, _Members):
        return order(_Members((k, _reorder(v, order)) for k, v in node))
    if isinstance(node, list):
        return [_reorder(v, order) for v in node]
    return node


def _rewrite_doc(out: bytes, target: str, type_name: str,
                 change: Callable[[Any], Any]) -> bytes:
    """Decode the output with the reference codec, change the document, write it again."""
    codec = module(target)
    doc = change(codec.decode(out, type=type_name))
    return codec.encode(doc, type=type_name)  # type: ignore[no-any-return]


def _drop_member(name: str) -> Callable[[Any], Any]:
    def drop(node: Any) -> Any:
        if isinstance(node, dict):
            return {k: drop(v) for k, v in node.items() if k != name}
        if isinstance(node, list):
            return [drop(v) for v in node]
        return node
    return drop


def _round_embeddings(node: Any) -> Any:
    if isinstance(node, dict):
        out = {k: _round_embeddings(v) for k, v in node.items()}
        embeddings = out.get("embeddings")
        if isinstance(embeddings, list):
            for embedding in embeddings:
                if isinstance(embedding, dict) and isinstance(embedding.get("values"), list):
                    embedding["values"] = [float(f"{v:.6g}") for v in embedding["values"]]
        return out
    if isinstance(node, list):
        return [_round_embeddings(v) for v in node]
    return node


_TIMESTAMP = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)\.(\d+)Z$")


def _truncate_timestamps(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: _truncate_timestamps(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_truncate_timestamps(v) for v in node]
    if isinstance(node, str):
        match = _TIMESTAMP.match(node)
        if match:
            return f"{match.group(1)}.{match.group(2)[:3]}Z"
    return node


# Output faults.


def drop_extensions(out: bytes, target: str, type_name: str) -> bytes:
    return _rewrite_doc(out, target, type_name, _drop_member("extensions"))


def drop_native(out: bytes, target: str, type_name: str) -> bytes:
    return _rewrite_doc(out, target, type_name, _drop_member("native"))


def round_float32(out: bytes, target: str, type_name: str) -> bytes:
    return _rewrite_doc(out, target, type_name, _round_embeddings)


def lose_timestamp_precision(out: bytes, target: str, type_name: str) -> bytes:
    return _rewrite_doc(out, target, type_name, _truncate_timestamps)


def noncanonical_msgpack(out: bytes, target: str, type_name: str) -> bytes:
    if target != "msgpack":
        return out
    doc = msgpack.unpackb(out, raw=False, strict_map_key=False, timestamp=0,
                          object_pairs_hook=lambda pairs: dict(reversed(pairs)))
    return msgpack.packb(doc, use_bin_type=True)  # type: ignore[no-any-return]


def unsorted_json_keys(out: bytes, target: str, type_name: str) -> bytes:
    if target != "json":
        return out
    doc = _reorder(_parse_json(out), lambda members: _Members(reversed(members)))
    return _write_json(doc).encode("utf-8")


def null_for_absent(out: bytes, target: str, type_name: str) -> bytes:
    if target != "json" or type_name != "memorywire.v1.MemoryRecord":
        return out
    doc = _parse_json(out)
    if any(k == "tags" for k, _ in doc):
        return out
    doc.append(("tags", []))
    doc.sort(key=lambda member: member[0])
    return _write_json(doc).encode("utf-8")


def escape_non_ascii(out: bytes, target: str, type_name: str) -> bytes:
    if target != "json":
        return out
    return _write_json(_parse_json(out), ascii_only=True).encode("utf-8")


OUTPUT_FAULTS: dict[str, OutputFault] = {
    "drop-extensions": drop_extensions,
    "drop-native": drop_native,
    "round-float32": round_float32,
    "lose-timestamp-precision": lose_timestamp_precision,
    "noncanonical-msgpack": noncanonical_msgpack,
    "unsorted-json-keys": unsorted_json_keys,
    "null-for-absent": null_for_absent,
    "escape-non-ascii": escape_non_ascii,
}

# Verdict faults: the reason token accepted, and the input encodings it
# applies to (None: all).
ACCEPTED_REASONS: dict[str, tuple[str, tuple[str, ...] | None]] = {
    "accept-unknown-enum": ("UNKNOWN_ENUM_VALUE", None),
    "accept-unknown-field": ("UNKNOWN_FIELD", None),
    "accept-truncated": ("TRUNCATED", ("protobuf", "msgpack")),
    "accept-duplicate-keys": ("DUPLICATE_KEY", None),
    "accept-nan": ("NON_FINITE_NUMBER", None),
    "accept-missing-required": ("REQUIRED_FIELD_MISSING", None),
    "accept-out-of-range": ("VALUE_OUT_OF_RANGE", None),
}



def _overlong_block_value(node: Any, pointer: str = "") -> str | None:
    """The pointer of the first block value longer than its limit."""
    if isinstance(node, dict):
        block = node.get("block")
        if isinstance(block, dict) and isinstance(block.get("limit"), int) \
                and len(block.get("value", "")) > block["limit"]:
            return f"{pointer}/block/value"
        items: Any = node.items()
    elif isinstance(node, list):
        items = enumerate(node)
    else:
        return None
    for key, value in items:
        found = _overlong_block_value(value, f"{pointer}/{key}")
        if found is not None:
            return found
    return None


# Input faults: functions (decoded document) -> an error to raise, or None.
INPUT_FAULTS: dict[str, Callable[[Any], MemorywireError | None]] = {
    "enforce-block-limit": lambda doc: (
        None if (where := _overlong_block_value(doc)) is None
        else violation("VALUE_OUT_OF_RANGE", where, "the value is longer than the limit")),
}

#: The tag of a rejection for a Protobuf field number out of range, as the
#: reference codec words it.
_BAD_TAG = re.compile(r"tag (\d+) is not valid")

FAULTS = sorted([*OUTPUT_FAULTS, *ACCEPTED_REASONS, *INPUT_FAULTS, "wide-field-numbers", "wrong-pointer"])


class BrokenTestee(Testee):
    """The reference testee with one fault."""

    def __init__(self, fault: str) -> None:
        super().__init__()
        if fault not in FAULTS:
            raise ValueError(f"no fault {fault!r}")
        self.fault = fault
        self.name = f"memorywire-python-broken-{fault}"

    def decode(self, data: bytes, source: str, type_name: str) -> dict[str, Any]:
        doc = super().decode(data, source, type_name)
        refuse = INPUT_FAULTS.get(self.fault)
        if refuse is not None and (problem := refuse(doc)) is not None:
            raise problem
        return doc

    def convert(self, data: bytes, source: str, target: str, type_name: str, *,
                canonical: bool = True) -> bytes:
        if self.fault in INPUT_FAULTS:
            self.decode(data, source, type_name)
        out = super().convert(data, source, target, type_name, canonical=canonical)
        rewrite = OUTPUT_FAULTS.get(self.fault)
        return rewrite(out, target, type_name) if rewrite else out

    def rejection(self, error: MemorywireError, request: Mapping[str, Any]) -> dict[str, Any]:
        response = super().rejection(error, request)
        if self.fault == "wrong-pointer":
            response["pointer"] = response["pointer"].rsplit("/", 1)[0]
            return response
        if self.fault == "wide-field-numbers":
            tag = _BAD_TAG.fullmatch(error.message) if error.reason == "INVALID_WIRE_FORMAT" else None
            if tag is not None and int(tag[1]) >> 3 > MAX_FIELD_NUMBER:
                response.update(reason="UNKNOWN_FIELD", pointer=f"{error.pointer}/{int(tag[1]) >> 3}")
            return response
        accepted = ACCEPTED_REASONS.get(self.fault)
        if accepted is None:
            return response
        reason, encodings = accepted
        if error.reason != reason:
            return response
        if encodings is not None and request["input"]["encoding"] not in encodings:
            return response
        if request.get("output") is None:
            return {"type": "valid"}
        if self.fault == "accept-truncated":
            return {"type": "payload", "data": base64.b64encode(b"").decode("ascii")}
        return response


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="The reference testee of memorywire with one deliberate fault.",
        epilog="Faults: " + ", ".join(FAULTS))
    parser.add_argument("--fault", required=True, choices=FAULTS)
    args = parser.parse_args(argv)
    return BrokenTestee(args.fault).serve(sys.stdin.buffer, sys.stdout.buffer)


if __name__ == "__main__":
    sys.exit(main())
