"""Every valid document parses with a stock Protobuf parser's default settings.

Stock parsers (upb, the C++ runtime, protoc --decode, protobufjs) refuse
messages nested more than 100 deep. A level of the JSON form takes up to three Protobuf
messages, so the default max_depth keeps the Protobuf nesting of every valid
document within that limit (spec/v1/security.md, section 4).
"""

from __future__ import annotations

import functools
import json
import pathlib
import subprocess
import sys
from typing import Any

import pytest
from google.protobuf.message import DecodeError, Message

from memorywire import _model
from memorywire import protobuf as mw_protobuf
from memorywire.limits import DEFAULT_LIMITS, Limits

ROOT = pathlib.Path(__file__).resolve().parents[2]
VECTORS = ROOT / "conformance" / "vectors" / "v1"
#: The default recursion limit of upb, of the C++ runtime and of protoc --decode.
STOCK_RECURSION_LIMIT = 100
#: The deepest Protobuf nesting of a valid document, as security.md, section 4, states it.
DEEPEST = 95


def worst_case_depth(type_name: str, max_depth: int) -> int:
    """The greatest number of nested Protobuf messages, the document included,
    of a document of the type within max_depth levels of its JSON form."""

    @functools.cache
    def value(level: int) -> int:
        # A Value at this JSON level: a scalar, or a map (Value, ValueMap,
        # MapEntry) whose member is a Value one level down.
        return 1 if level > max_depth else 3 + value(level + 1)

    @functools.cache
    def message(name: str, level: int) -> int:
        deepest = 0
        for f in _model.message(name).ordered:
            below = level + 1  # the member's JSON value
            if f.repeated or f.is_map:
                if below > max_depth:
                    continue  # a non-empty array or map there is too deep
                below += 1  # the elements, or the map's members
            if f.is_map:
                depth = 1 + value(below)  # MapEntry, then the Value
            elif f.kind == _model.VALUE:
                depth = value(below)
            elif f.kind == _model.TIMESTAMP:
                depth = 1
            elif f.kind == _model.MESSAGE and below <= max_depth:
                assert f.message is not None
                depth = message(f.message.full_name, below)
            else:
                depth = 0
            deepest = max(deepest, depth)
        return 1 + deepest

    return message(type_name, 1)


def nesting(msg: Message) -> int:
    """The number of nested messages of a parsed message, itself included."""
    deepest = 0
    for field, value in msg.ListFields():
        if field.message_type is None:
            continue
        items = value if field.is_repeated else [value]
        deepest = max([deepest, *(nesting(item) for item in items)])
    return 1 + deepest


def valid_protobuf_inputs() -> list[tuple[str, str, bytes]]:
    out = []
    for path in sorted(VECTORS.glob("*.json")):
        for case in json.loads(path.read_text()).get("cases", []):
            protobuf = case.get("inputs", {}).get("protobuf")
            if case["expected"]["valid"] and protobuf is not None and "hex" in protobuf:
                out.append((f"{path.stem}.{case['name']}", case["type"], bytes.fromhex(protobuf["hex"])))
    return out


def test_every_valid_vector_parses_with_the_stock_parser() -> None:
    inputs = valid_protobuf_inputs()
    assert len(inputs) >= 200
    names = {name for name, _, _ in inputs}
    assert {"Limits.DepthAtLimit", "Limits.DeepestProtobufAtLimit"} <= names
    failures = []
    for name, type_name, data in inputs:
        try:
            _model.message(type_name).cls.FromString(data)  # upb, its default recursion limit
        except DecodeError as e:
            failures.append(f"{name}: {e}")
    assert failures == []


def test_the_deepest_vector_is_as_deep_as_any_valid_document() -> None:
    (data,) = [d for name, _, d in valid_protobuf_inputs() if name == "Limits.DeepestProtobufAtLimit"]
    parsed = _model.message("memorywire.v1.UpdateRequest").cls.FromString(data)
    assert nesting(parsed) == DEEPEST
    assert mw_protobuf.decode(data, type="memorywire.v1.UpdateRequest")["operation_id"] == "op-1"


def test_no_document_type_nests_deeper_at_the_default_limit() -> None:
    depths = {t: worst_case_depth(t, DEFAULT_LIMITS.max_depth) for t in _model.top_level_types()}
    assert max(depths.values()) == DEEPEST <= STOCK_RECURSION_LIMIT
    assert depths["memorywire.v1.UpdateRequest"] == DEEPEST
    assert depths["memorywire.v1.PutRequest"] < DEEPEST


def deep_patch(levels: int) -> dict[str, Any]:
    patch: Any = "bottom"
    for _ in range(levels):
        patch = {"k": patch}
    return {"specversion": "1.0", "operation_id": "op-1", "id": "fact-1", "patch": patch}


@pytest.mark.parametrize("max_depth", [32, 33, 64])
def test_the_computed_depth_is_what_the_stock_parser_sees(max_depth: int) -> None:
    """The deepest UpdateRequest within a limit has the computed depth; beyond
    the default limit, the stock parser refuses it (why the limit is 32)."""
    limits = Limits(max_depth=max_depth)
    data = mw_protobuf.Encoder("memorywire.v1.UpdateRequest", limits=limits).encode(deep_patch(max_depth - 1))
    want = worst_case_depth("memorywire.v1.UpdateRequest", max_depth)
    cls = _model.message("memorywire.v1.UpdateRequest").cls
    if want <= STOCK_RECURSION_LIMIT + 1:  # the limit counts the messages below the top one
        assert nesting(cls.FromString(data)) == want
    else:
        with pytest.raises(DecodeError):
            cls.FromString(data)


def protobufjs(cases: list[tuple[str, bytes]]) -> list[dict[str, Any]]:
    """Decode each (type, bytes) with protobufjs and its default settings."""
    result = subprocess.run(
        ["node", str(ROOT / "tools" / "protobufjs_check.js")],
        input=json.dumps([{"type": t, "hex": data.hex()} for t, data in cases]),
        capture_output=True, text=True, timeout=300, check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return json.loads(result.stdout)  # type: ignore[no-any-return]


def test_protobufjs_reads_every_valid_vector_and_not_the_old_limit() -> None:
    inputs = valid_protobuf_inputs()
    update = "memorywire.v1.UpdateRequest"
    too_deep = mw_protobuf.Encoder(update, limits=Limits(max_depth=64)).encode(deep_patch(63))
    results = protobufjs([(t, data) for _, t, data in inputs] + [(update, too_deep)])
    failures = [f"{name}: {r.get('error')}" for (name, _, _), r in zip(inputs, results[:-1], strict=True)
                if not r["ok"]]
    assert failures == []
    # A document within the former limit of 64 is beyond protobufjs's recursion limit.
    assert results[-1] == {"ok": False, "error": "max depth exceeded"}


def protoc_decode(type_name: str, data: bytes) -> subprocess.CompletedProcess[bytes]:
    import grpc_tools

    include = pathlib.Path(grpc_tools.__file__).parent / "_proto"
    files = sorted(str(p.relative_to(ROOT / "proto")) for p in (ROOT / "proto").glob("memorywire/v1/*.proto"))
    return subprocess.run(
        [sys.executable, "-m", "grpc_tools.protoc", f"-I{ROOT / 'proto'}", f"-I{include}",
         f"--decode={type_name}", *files],
        input=data, capture_output=True, timeout=120, check=False,
    )


def test_protoc_decode_reads_the_deepest_vectors() -> None:
    deepest = {name: (t, d) for name, t, d in valid_protobuf_inputs()
               if name in ("Limits.DepthAtLimit", "Limits.DeepestProtobufAtLimit")}
    assert len(deepest) == 2
    for name, (type_name, data) in deepest.items():
        result = protoc_decode(type_name, data)
        assert result.returncode == 0, f"{name}: {result.stderr.decode()}"
    update = "memorywire.v1.UpdateRequest"
    too_deep = mw_protobuf.Encoder(update, limits=Limits(max_depth=64)).encode(deep_patch(63))
    assert protoc_decode(update, too_deep).returncode != 0
