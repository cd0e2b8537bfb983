#!/usr/bin/env python3
# Copyright 2026 The memorywire Authors
# SPDX-License-Identifier: Apache-2.0
"""Write baseline_models.py: pydantic v2 models and msgspec Structs of message
and fact records, with the rules of the field tables, for bench_codec.py.

The models are what a developer would write with either library to accept
the same records as memorywire: every field of the record envelope, the
message and fact payloads, exact types (strict mode), enum names, patterns
and formats, lengths, counts and ranges, required fields, no unknown
members, no null. The list of the rules they leave out is in the benchmark
README ("Side by side with pydantic and msgspec").

    python make_baseline_models.py            # rewrites baseline_models.py
    python make_baseline_models.py --check    # fails if it is out of date
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from memorywire import _model as m
from memorywire._compiled import _BASE64
from memorywire._formats import FORMATS

OUT = Path(__file__).resolve().parent / "baseline_models.py"
#: The payloads the baselines accept; a record of another kind is an unknown member to them.
PAYLOADS = ("message", "fact")
TIMESTAMP = (
    r"^(?!0000)[0-9]{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9]|3[01])"
    r"T(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\.[0-9]{1,9})?Z\Z"
)
BASE64 = rf"^(?:{_BASE64.pattern})\Z"
FLOAT_MAX = 1.7976931348623157e308
FLOAT32_MAX = 3.4028234663852886e38
#: Names pydantic reserves on a model; such fields get an alias.
RESERVED = {"json", "copy", "dict", "schema", "construct", "validate", "fields", "model_config"}


def _types() -> list[m.MessageInfo]:
    record = m.message("MemoryRecord")
    out: list[m.MessageInfo] = []
    todo = [record]
    while todo:
        info = todo.pop(0)
        if info in out:
            continue
        out.append(info)
        for f in _fields(info):
            if f.message is not None:
                todo.append(f.message)
    return out


def _fields(info: m.MessageInfo) -> list[m.FieldInfo]:
    payloads = set(m.message("MemoryRecord").oneofs["payload"])
    if info.name != "MemoryRecord":
        return list(info.ordered)
    return [f for f in info.ordered if f.name not in payloads or f.name in PAYLOADS]


def _string(f: m.FieldInfo, lib: str, item: bool) -> str:
    least = f.min_length
    if f.required and not item:
        least = max(least or 0, 1)
    pattern = None
    if f.format:
        pattern = rf"^(?:{FORMATS[f.format]})?\Z"
    elif f.pattern is not None:
        # The rules search a pattern in non-empty strings only.
        pattern = rf"^\Z|{f.pattern.pattern}"
    args = []
    if least:
        args.append(f"min_length={least}")
    if f.max_length is not None:
        args.append(f"max_length={f.max_length}")
    if pattern is not None:
        args.append(f"pattern={pattern!r}")
    if not args:
        return "str"
    return f"Annotated[str, {'Meta' if lib == 'msgspec' else 'StringConstraints'}({', '.join(args)})]"


def _number(base: str, lib: str, **bounds: object) -> str:
    args = ", ".join(f"{k}={v!r}" for k, v in bounds.items() if v is not None)
    return f"Annotated[{base}, {'Meta' if lib == 'msgspec' else 'Field'}({args})]"


def _single(f: m.FieldInfo, lib: str, form: str, cls: str, item: bool) -> str:
    k = f.kind
    if k == m.STRING:
        return _string(f, lib, item)
    if k == m.MESSAGE:
        assert f.message is not None
        return cls.format(f.message.name)
    if k == m.ENUM:
        assert f.enum is not None
        return "Literal[" + ", ".join(repr(n) for n in f.enum.by_json) + "]"
    if k == m.UINT:
        least = int(f.minimum) if f.minimum is not None and f.minimum > 0 else 0
        if f.required and not item:
            least = max(least, 1)
        return _number("int", lib, ge=least, le=min(f.type_max, f.uint_max))
    if k == m.BOOL:
        return "bool"
    if k == m.DOUBLE:
        lo = f.minimum if f.minimum is not None else -FLOAT_MAX
        hi = f.maximum if f.maximum is not None else FLOAT_MAX
        return _number("float", lib, ge=lo, le=hi)
    if k == m.FLOAT32:
        return _number("float", lib, ge=-FLOAT32_MAX, le=FLOAT32_MAX)
    if k == m.TIMESTAMP:
        if form == "msgpack":
            return "datetime.datetime"
        return f"Annotated[str, {'Meta' if lib == 'msgspec' else 'StringConstraints'}(pattern=TIMESTAMP)]"
    if k == m.BYTES:
        if form == "msgpack":
            return "bytes"
        return f"Annotated[str, {'Meta' if lib == 'msgspec' else 'StringConstraints'}(pattern=BASE64)]"
    if k == m.VALUE:
        return "Any"
    raise AssertionError(f.name)


def _field(f: m.FieldInfo, lib: str, form: str, cls: str) -> str:
    count = []
    if f.required and (f.repeated or f.is_map):
        count.append("min_length=1")
    if f.max_items is not None:
        count.append(f"max_length={f.max_items}")
    meta = "Meta" if lib == "msgspec" else "Field"
    if f.is_map:
        key = "str"
        if f.key_pattern is not None:
            c = "Meta" if lib == "msgspec" else "StringConstraints"
            key = f"Annotated[str, {c}(pattern={f.key_pattern.pattern!r})]"
        t = f"dict[{key}, Any]"
    elif f.repeated:
        if f.kind == m.FLOAT32 and form == "msgpack":
            return "bytes"  # little-endian binary32 values in a bin
        t = f"list[{_single(f, lib, form, cls, item=True)}]"
    else:
        return _single(f, lib, form, cls, item=False)
    return f"Annotated[{t}, {meta}({', '.join(count)})]" if count else t


def generate() -> str:
    out = [
        "# Copyright 2026 The memorywire Authors",
        "# SPDX-License-Identifier: Apache-2.0",
        '"""pydantic v2 models and msgspec Structs of memorywire message and fact records.',
        "",
        "Written by make_baseline_models.py from memorywire's field tables; do not edit.",
        "Each library gets a model of the JSON form and one of the MessagePack form",
        "(timestamps as the timestamp extension, bytes and float32 vectors as bin).",
        '"""',
        "",
        "# ruff: noqa: E501",
        "# Optional pydantic fields default to None without admitting null, which mypy cannot see.",
        '# mypy: disable-error-code="assignment, arg-type"',
        "from __future__ import annotations",
        "",
        "import datetime",
        "from typing import Annotated, Any, Literal",
        "",
        "from msgspec import UNSET, Meta, Struct, UnsetType",
        "from pydantic import BaseModel, ConfigDict, Field, StringConstraints",
        "",
        f"TIMESTAMP = {TIMESTAMP!r}",
        f"BASE64 = {BASE64!r}",
        "",
        "",
        "class _Model(BaseModel):",
        '    model_config = ConfigDict(strict=True, extra="forbid", regex_engine="python-re")',
        "",
    ]
    types = _types()
    for lib in ("msgspec", "pydantic"):
        for form in ("json", "msgpack"):
            prefix = ("" if lib == "msgspec" else "P") + ("" if form == "json" else "Mp")
            cls = prefix + "{}"
            out.append("")
            out.append(f"# -- {lib}, the {'JSON' if form == 'json' else 'MessagePack'} form " + "-" * 40)
            for info in reversed(types):
                name = cls.format(info.name)
                out.append("")
                out.append("")
                if lib == "msgspec":
                    out.append(f"class {name}(Struct, forbid_unknown_fields=True, kw_only=True, omit_defaults=True):")
                else:
                    out.append(f"class {name}(_Model):")
                body = []
                for f in _fields(info):
                    t = _field(f, lib, form, cls)
                    if info.name == "MemoryRecord" and f.name == "specversion":
                        t = 'Literal["1.0"]'
                    attr = f.name
                    if lib == "pydantic" and attr in RESERVED:
                        attr = f"{attr}_"
                        required = f.required or f.name == "specversion" and info.name == "MemoryRecord"
                        default = "" if required else "None, "
                        body.append(f"    {attr}: {t} = Field({default}alias={f.name!r})")
                        continue
                    if f.required or (info.name == "MemoryRecord" and f.name == "specversion"):
                        body.append(f"    {attr}: {t}")
                    elif lib == "msgspec":
                        body.append(f"    {attr}: {t} | UnsetType = UNSET")
                    else:
                        body.append(f"    {attr}: {t} = None")
                out.extend(body or ["    pass"])
    out.append("")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--check", action="store_true", help="fail if baseline_models.py is out of date")
    args = p.parse_args(argv)
    text = generate()
    if args.check:
        if not OUT.exists() or OUT.read_text(encoding="utf-8") != text:
            print(f"{OUT.name} is out of date: run {Path(__file__).name}", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
