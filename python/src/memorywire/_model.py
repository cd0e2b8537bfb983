"""Field tables of the v1 messages, built once from the generated descriptors.

The codec walks documents with these tables; they come from the same .proto
files as the JSON Schemas, so the two views of a message cannot disagree.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import Any

from google.protobuf import descriptor as _d
from google.protobuf.message import Message

from memorywire.v1 import (
    error_pb2,
    filter_pb2,
    memory_service_pb2,
    options_pb2,
    record_pb2,
    value_pb2,
)

PACKAGE = "memorywire.v1"
MAX_SAFE_INTEGER = 2**53 - 1
MODULES = (record_pb2, error_pb2, filter_pb2, memory_service_pb2, value_pb2)

# Field kinds, one per JSON mapping rule.
STRING, BOOL, UINT, DOUBLE, FLOAT32, BYTES, ENUM, MESSAGE, TIMESTAMP, VALUE = range(10)

_FD = _d.FieldDescriptor
_SCALAR_KIND = {
    _FD.TYPE_STRING: STRING,
    _FD.TYPE_BOOL: BOOL,
    _FD.TYPE_UINT32: UINT,
    _FD.TYPE_UINT64: UINT,
    _FD.TYPE_SINT64: UINT,
    _FD.TYPE_DOUBLE: DOUBLE,
    _FD.TYPE_FLOAT: FLOAT32,
    _FD.TYPE_BYTES: BYTES,
    _FD.TYPE_ENUM: ENUM,
}


@dataclass(frozen=True)
class EnumInfo:
    name: str
    by_json: dict[str, int]
    by_number: dict[int, str]


@dataclass
class FieldInfo:
    name: str
    number: int
    kind: int
    repeated: bool = False
    is_map: bool = False
    #: Whether presence is explicit (proto3 optional, oneof member, message).
    presence: bool = False
    oneof: str | None = None
    required: bool = False
    message: MessageInfo | None = None
    enum: EnumInfo | None = None
    #: For map fields: the kind and message of the values.
    value_kind: int = 0
    min_length: int | None = None
    max_length: int | None = None
    pattern: re.Pattern[str] | None = None
    key_pattern: re.Pattern[str] | None = None
    min_items: int | None = None
    max_items: int | None = None
    minimum: float | None = None
    maximum: float | None = None
    #: The greatest value of the integer type (2^32-1, or 2^53-1 for 64 bits).
    type_max: int = MAX_SAFE_INTEGER
    #: The greatest value allowed: the type's, or the rule's if lower.
    uint_max: int = MAX_SAFE_INTEGER
    #: A named string format of the rules, such as "uri".
    format: str = ""

    @property
    def is_vector(self) -> bool:
        """Whether the field is a float32 vector (a repeated float)."""
        return self.repeated and self.kind == FLOAT32


@dataclass
class MessageInfo:
    name: str
    full_name: str
    descriptor: _d.Descriptor
    cls: type[Message]
    fields: dict[str, FieldInfo] = field(default_factory=dict)
    oneofs: dict[str, list[str]] = field(default_factory=dict)
    #: Fields in field-number order.
    ordered: list[FieldInfo] = field(default_factory=list)


def _js_pattern(pattern: str) -> re.Pattern[str]:
    """An ECMA-262 pattern of the rules as a Python pattern. The patterns
    used are valid in both, but for one difference: Python's ``$`` also
    matches before a final line feed, ECMA-262's only at the end."""
    if pattern.endswith("$") and not pattern.endswith("\\$"):
        pattern = pattern[:-1] + r"\Z"
    return re.compile(pattern)


_messages: dict[str, MessageInfo] = {}
_enums: dict[str, EnumInfo] = {}


def _enum(desc: _d.EnumDescriptor) -> EnumInfo:
    info = _enums.get(desc.full_name)
    if info is None:
        prefix = re.sub(r"(?<!^)(?=[A-Z])", "_", desc.name).upper() + "_"
        by_json = {v.name.removeprefix(prefix).lower(): v.number for v in desc.values if v.number}
        info = EnumInfo(desc.name, by_json, {n: j for j, n in by_json.items()})
        _enums[desc.full_name] = info
    return info


def _message(desc: _d.Descriptor) -> MessageInfo:
    info = _messages.get(desc.full_name)
    if info is not None:
        return info
    cls = _message_class(desc)
    info = MessageInfo(desc.name, desc.full_name, desc, cls)
    _messages[desc.full_name] = info
    for oneof in desc.oneofs:
        if not (len(oneof.fields) == 1 and oneof.name.startswith("_")):
            info.oneofs[oneof.name] = [f.name for f in oneof.fields]
    for fd in desc.fields:
        info.fields[fd.name] = _field(fd)
    info.ordered = sorted(info.fields.values(), key=lambda f: f.number)
    return info


def _message_class(desc: _d.Descriptor) -> type[Message]:
    from google.protobuf import message_factory

    return message_factory.GetMessageClass(desc)


def _field(fd: _d.FieldDescriptor) -> FieldInfo:
    rules: options_pb2.FieldRules = fd.GetOptions().Extensions[options_pb2.rules]  # type: ignore[index]
    f = FieldInfo(fd.name, fd.number, STRING)
    f.required = rules.required
    f.repeated = fd.is_repeated
    oneof = fd.containing_oneof
    if oneof is not None and not (len(oneof.fields) == 1 and oneof.name.startswith("_")):
        f.oneof = oneof.name
    f.presence = fd.has_presence and not f.repeated
    if fd.type == _FD.TYPE_MESSAGE:
        mt = fd.message_type
        assert mt is not None
        if mt.full_name == f"{PACKAGE}.MapEntry":
            # Repeated MapEntry is a map<string, Value> on the wire.
            f.is_map = True
            f.repeated = False
            f.kind = f.value_kind = VALUE
        elif mt.full_name == "google.protobuf.Timestamp":
            f.kind = TIMESTAMP
        elif mt.full_name == f"{PACKAGE}.Value":
            f.kind = VALUE
        else:
            f.kind = MESSAGE
            f.message = _message(mt)
    else:
        f.kind = _SCALAR_KIND[fd.type]
        if fd.type == _FD.TYPE_ENUM:
            assert fd.enum_type is not None
            f.enum = _enum(fd.enum_type)
        if fd.type == _FD.TYPE_UINT32:
            f.uint_max = f.type_max = 2**32 - 1
    if rules.HasField("min_length"):
        f.min_length = rules.min_length
    if rules.HasField("max_length"):
        f.max_length = rules.max_length
    if rules.pattern:
        f.pattern = _js_pattern(rules.pattern)
    f.format = rules.format
    if rules.key_pattern:
        f.key_pattern = _js_pattern(rules.key_pattern)
    if rules.HasField("min_items"):
        f.min_items = rules.min_items
    if rules.HasField("max_items"):
        f.max_items = rules.max_items
    if rules.HasField("minimum"):
        f.minimum = rules.minimum
    if rules.HasField("maximum"):
        f.maximum = rules.maximum
        if f.kind == UINT:
            f.uint_max = min(f.uint_max, int(rules.maximum))
    return f


@functools.cache
def message(type_name: str) -> MessageInfo:
    """The field table of a message type, by full or short name."""
    full = type_name if "." in type_name else f"{PACKAGE}.{type_name}"
    for module in MODULES:
        desc = module.DESCRIPTOR.message_types_by_name.get(full.rsplit(".", 1)[-1])
        if desc is not None and desc.full_name == full:
            return _message(desc)
    raise KeyError(f"no message type {type_name!r} in {PACKAGE}")


def top_level_types() -> list[str]:
    """Every message type that can be a document of its own."""
    skip = {"Value", "ValueList", "ValueMap", "MapEntry", "FieldRules"}
    names = []
    for module in MODULES:
        for name, desc in module.DESCRIPTOR.message_types_by_name.items():
            if name not in skip:
                names.append(desc.full_name)
    return sorted(names)


def reachable_infos() -> list[MessageInfo]:
    """The top-level message types, then every message type they reach
    through their fields, each once."""
    infos: list[MessageInfo] = []
    for name in top_level_types():
        info = message(name)
        if info not in infos:
            infos.append(info)
    i = 0
    while i < len(infos):
        for f in infos[i].ordered:
            if f.message is not None and f.message not in infos:
                infos.append(f.message)
        i += 1
    return infos


def resolve(fields_msg: MessageInfo, name: str) -> FieldInfo | None:
    return fields_msg.fields.get(name)


def kind_payloads() -> dict[str, str]:
    """RecordKind JSON names and the payload member each one requires."""
    kinds = _enum(record_pb2.DESCRIPTOR.enum_types_by_name["RecordKind"])
    return {k: k for k in kinds.by_json}


Any_ = Any
