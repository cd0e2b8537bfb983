"""Generate the JSON Schemas of schemas/v1/ from the .proto files.

The .proto files are the source of truth: every field, type, enum value and
(memorywire.v1.rules) constraint. This script turns them into one draft
2020-12 schema per message and enum, each with its strict form and its form
in a document of a newer minor version (see "Versions" below). The schemas
use only keywords that stock validators run with their default options: the
named formats of the rules are patterns (memorywire._formats). Run it after changing a .proto file;
`make test` fails when the committed schemas differ from its output, and the
independent sync check (tools/schema_sync.py) fails when they drift apart.

Usage: python tools/gen_schemas.py [--check]
"""

from __future__ import annotations

import argparse
import json
import pathlib
import re
import sys

from google.protobuf import descriptor_pb2
from memorywire import SPECVERSION
from memorywire._formats import ENUM_NAME, schema_pattern

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import protoset

F = descriptor_pb2.FieldDescriptorProto
BASE = "https://memorywire.dev/schemas/v1/"
OUT = protoset.ROOT / "schemas" / "v1"
MAX_SAFE = 9007199254740991
# The least magnitude that rounds to infinity in binary32: every number below
# it is a finite float32 value once rounded to nearest.
FLOAT32_OVERFLOW = 3.4028235677973366e38

# Messages that are encoded as plain JSON values rather than objects.
VALUE_MESSAGES = {"Value", "ValueList", "ValueMap", "MapEntry"}
# Messages that are not part of the wire model.
SKIP_MESSAGES = {"FieldRules"} | VALUE_MESSAGES

TIMESTAMP_PATTERN = (
    "^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])"
    "T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\\.[0-9]{1,9})?Z$"
)
# Standard alphabet, padded, and the unused bits before the padding zero, so
# that every byte string has exactly one spelling.
BASE64_PATTERN = "^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/][AQgw]==|[A-Za-z0-9+/]{2}[AEIMQUYcgkosw048]=)?$"

# Oneofs of which exactly one member MUST be set (the others: at most one).
EXACTLY_ONE = {("MemoryRecord", "payload"), ("ContentPart", "part"), ("Filter", "expression")}

# Versions: every message and enum schema has two forms. The strict one, of a
# document of a version this reader knows, refuses unknown members and enum
# values; "$defs/newer-minor", of a document of a newer minor version,
# tolerates what spec/v1/versioning.md, section 3.2, lists. The strict form is
# the root of the schema, except in a document type (a request, a response,
# record-document.schema.json), whose root chooses the form by specversion and
# refuses another major version; its strict form is then "$defs/strict".
MAJOR, MINOR = SPECVERSION.split(".")
KNOWN_VERSIONS = [f"{MAJOR}.{n}" for n in range(int(MINOR) + 1)]
NEWER = "newer-minor"
# A well-formed specversion of another major version than 1 (versioning.md, section 1.4).
assert MAJOR == "1", "the schemas of another major version have their own generator"
OTHER_MAJOR = "^([2-9]|[1-9][0-9]+)\\.(0|[1-9][0-9]*)$"
# A well-formed specversion of major version 1.
THIS_MAJOR = "^1\\.(0|[1-9][0-9]*)$"


def ref(name: str, tolerant: bool = False) -> str:
    return protoset.kebab(name) + ".schema.json" + (f"#/$defs/{NEWER}" if tolerant else "")


def short(type_name: str) -> str:
    return type_name.rsplit(".", 1)[-1]


def scalar_schema(field: descriptor_pb2.FieldDescriptorProto, rules: dict[str, object],
                  tolerant: bool) -> dict[str, object]:
    t = field.type
    s: dict[str, object]
    if t == F.TYPE_STRING:
        s = {"type": "string"}
        lo = rules.get("min_length")
        if rules.get("required") and not lo:
            lo = 1
        if lo:
            s["minLength"] = lo
        if "max_length" in rules:
            s["maxLength"] = rules["max_length"]
        if rules.get("pattern"):
            s["pattern"] = rules["pattern"]
        if rules.get("format"):
            # A pattern, not "format": stock validators know no custom format,
            # and several refuse a schema that names one.
            s["$comment"] = f"format {rules['format']} (spec/v1/core.md, section 3)"
            s["pattern"] = schema_pattern(str(rules["format"]))
    elif t == F.TYPE_BOOL:
        s = {"type": "boolean"}
    elif t in (F.TYPE_UINT32, F.TYPE_UINT64):
        top = 4294967295 if t == F.TYPE_UINT32 else MAX_SAFE
        lo = rules.get("minimum", 1 if rules.get("required") else 0)
        s = {"type": "integer", "minimum": int(lo), "maximum": int(rules.get("maximum", top))}  # type: ignore[call-overload]
    elif t == F.TYPE_DOUBLE:
        s = {"type": "number"}
        if "minimum" in rules:
            s["minimum"] = rules["minimum"]
        if "maximum" in rules:
            s["maximum"] = rules["maximum"]
    elif t == F.TYPE_FLOAT:
        s = {"type": "number", "exclusiveMinimum": -FLOAT32_OVERFLOW, "exclusiveMaximum": FLOAT32_OVERFLOW}
    elif t == F.TYPE_BYTES:
        s = {"type": "string", "contentEncoding": "base64", "pattern": BASE64_PATTERN}
        if rules.get("required"):
            s["minLength"] = 1
    elif t == F.TYPE_ENUM:
        s = {"$ref": ref(short(field.type_name), tolerant)}
    elif t == F.TYPE_MESSAGE:
        name = short(field.type_name)
        if field.type_name == ".google.protobuf.Timestamp":
            s = {"$ref": "timestamp.schema.json"}
        elif name in VALUE_MESSAGES:
            s = {"$ref": "value.schema.json"}
        else:
            s = {"$ref": ref(name, tolerant)}
            if name == "MemoryRecord":
                # A record inside another document inherits its specversion;
                # an empty one is absent (spec/v1/json-format.md, section 4).
                s["type"] = "object"
                s["properties"] = {"specversion": {"const": ""}}
    else:
        raise SystemExit(f"unsupported field type {t} of {field.name}")
    return s


def field_schema(model: protoset.Model, msg: descriptor_pb2.DescriptorProto,
                 field: descriptor_pb2.FieldDescriptorProto, tolerant: bool) -> dict[str, object]:
    rules = protoset.field_rules(field)
    description = model.comment(msg.name, field.name)
    if field.type_name == ".memorywire.v1.MapEntry":
        # Repeated MapEntry has the wire format of map<string, Value>; in
        # JSON it is an object.
        s: dict[str, object] = {"type": "object", "additionalProperties": {"$ref": "value.schema.json"}}
        if rules.get("key_pattern"):
            s["propertyNames"] = {"pattern": rules["key_pattern"]}
        if "max_items" in rules:
            s["maxProperties"] = rules["max_items"]
    elif field.label == F.LABEL_REPEATED:
        item_rules = {k: v for k, v in rules.items() if k != "required"}
        s = {"type": "array", "items": scalar_schema(field, item_rules, tolerant)}
        if rules.get("required"):
            s["minItems"] = max(1, int(rules.get("min_items", 1)))  # type: ignore[call-overload]
        elif "min_items" in rules:
            s["minItems"] = rules["min_items"]
        if "max_items" in rules:
            s["maxItems"] = rules["max_items"]
    else:
        s = scalar_schema(field, protoset.singular_rules(field, rules), tolerant)
    return {"description": description, **s}


def none_of(members: list[str]) -> dict[str, object]:
    return {"not": {"anyOf": [{"required": [m]} for m in members]}}


def has_unknown(msg: descriptor_pb2.DescriptorProto) -> dict[str, object]:
    """An object holding a member the message does not define."""
    return {"not": {"propertyNames": {"enum": [f.name for f in msg.field]}}}


def message_body(model: protoset.Model, msg: descriptor_pb2.DescriptorProto,
                 tolerant: bool) -> dict[str, object]:
    """The schema of a message in a document of a known version, or (tolerant)
    of a newer minor version (spec/v1/versioning.md, section 3.2)."""
    s: dict[str, object] = {
        "type": "object",
        "properties": {f.name: field_schema(model, msg, f, tolerant) for f in msg.field},
    }
    required = [f.name for f in msg.field if protoset.field_rules(f).get("required")]
    if required:
        s["required"] = required
    # Unknown members: refused, or read as Values (versioning.md, sections 3.2 and 3.3).
    s["additionalProperties"] = {"$ref": "value.schema.json"} if tolerant else False
    all_of: list[object] = []
    for index, oneof in enumerate(msg.oneof_decl):
        members = [f.name for f in msg.field if f.HasField("oneof_index")
                   and f.oneof_index == index and not f.proto3_optional]
        if not members:
            continue
        alternatives: list[object] = [{"required": [m]} for m in members]
        exactly_one = (msg.name, oneof.name) in EXACTLY_ONE
        if not exactly_one:
            alternatives.append(none_of(members))
        elif msg.name == "MemoryRecord":
            # A tombstone keeps no payload.
            alternatives.append({**none_of(members), **TOMBSTONE})
        if exactly_one and tolerant:
            # Unknown content completes the oneof (versioning.md, section 3.2, item 3).
            unknown = [none_of(members), has_unknown(msg)]
            if msg.name == "MemoryRecord":
                unknown.append({"not": TOMBSTONE})
            alternatives.append({"allOf": unknown})
        all_of.append({"oneOf": alternatives})
    if msg.name == "MemoryRecord":
        all_of.extend(kind_rules(tolerant))
    all_of.extend(SPECIAL.get(msg.name, []))
    if all_of:
        s["allOf"] = all_of
    return s


TOMBSTONE = {
    "type": "object",
    "required": ["lifecycle"],
    "properties": {"lifecycle": {"type": "object", "required": ["status"],
                                 "properties": {"status": {"const": "deleted"}}}},
}
KINDS = ["message", "tool_call", "tool_result", "fact", "episode", "procedure",
         "emotion", "summary", "block", "custom"]


def kind_rules(tolerant: bool) -> list[object]:
    # The kind names its payload member; with unknown content and no known
    # payload, the unknown content is the payload (versioning.md, section 3.2).
    unknown_payload = [none_of(KINDS + ["encrypted"])] if tolerant else []
    rules: list[object] = [
        {
            "if": {"properties": {"kind": {"const": k}}, "required": ["kind"]},
            "then": {"anyOf": [{"required": [k]}, {"required": ["encrypted"]}, TOMBSTONE,
                               *unknown_payload]},
        }
        for k in KINDS
    ]
    if tolerant:
        # A kind of a newer minor version matches no payload member this reader knows.
        rules.append({"if": {"properties": {"kind": {"not": {"enum": KINDS}}}, "required": ["kind"]},
                      "then": none_of(KINDS)})
    rules.append({
        # A tombstone keeps none of the content.
        "if": TOMBSTONE,
        "then": none_of(KINDS + ["encrypted"]),
    })
    return rules


# Rules that span fields, stated in the specification beside each message.
SPECIAL: dict[str, list[object]] = {
    # An empty string is the default, which counts as absent.
    "MediaPart": [{"anyOf": [{"required": [k], "properties": {k: {"type": "string", "minLength": 1}}}
                             for k in ("uri", "data", "file_id")]}],
    "ToolResult": [{"not": {"required": ["output", "output_parts"],
                            "properties": {"output_parts": {"type": "array", "minItems": 1}}}}],
    "ExpirePolicy": [
        {"anyOf": [{"required": [c]} for c in ("older_than_seconds", "not_accessed_seconds",
                                               "importance_below")]
         + [{"required": ["past_expiry"], "properties": {"past_expiry": {"const": True}}}]},
        {"dependentRequired": {"half_life_seconds": ["importance_below"]}},
    ],
    "DeleteRequest": [
        # An empty list is the default, which counts as absent.
        {"oneOf": [{"required": ["ids"], "properties": {"ids": {"type": "array", "minItems": 1}}},
                   {"required": ["filter"]}]},
        {"if": {"required": ["expected_revision"]},
         "then": {"required": ["ids"], "properties": {"ids": {"type": "array", "minItems": 1, "maxItems": 1}}}},
    ],
    "HistoryRequest": [
        {"if": {"required": ["thread"], "properties": {"thread": {"const": "between"}}},
         "then": {"required": ["agents"], "properties": {"agents": {"type": "array", "minItems": 2}}},
         "else": {"properties": {"agents": {"type": "array", "maxItems": 0}}}},
    ],
    "UpdateRequest": [{"properties": {"patch": {"type": "object"}}}],
    "ReviewRequest": [
        {"properties": {"patch": {"type": "object"}}},
        {"if": {"required": ["decision"], "properties": {"decision": {"const": "amend"}}},
         "then": {"required": ["patch"]},
         "else": {"not": {"required": ["patch"]}}},
    ],
    "CompactRequest": [{"properties": {"summary": {"type": "object",
                                                   "properties": {"kind": {"const": "summary"}},
                                                   "not": {"required": ["encrypted"]}}}}],
}


def enum_schema(model: protoset.Model, enum: descriptor_pb2.EnumDescriptorProto) -> dict[str, object]:
    names = [protoset.enum_json_name(enum.name, v.name) for v in enum.value if v.number != 0]
    unknown_name = f"^{ENUM_NAME}$"
    assert all(re.fullmatch(ENUM_NAME, n) for n in names), f"{enum.name}: a name outside {unknown_name}"
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": BASE + ref(enum.name),
        "title": enum.name,
        "description": model.comment(enum.name) + " Values: " + "; ".join(
            f'"{protoset.enum_json_name(enum.name, v.name)}": {model.comment(enum.name, v.name)}'
            for v in enum.value if v.number != 0),
        "type": "string",
        "enum": names,
        "$defs": {NEWER: {
            "description": f"A value of {enum.name} in a document of a newer minor version: one of "
            "the values above, or a name that a newer minor version adds (spec/v1/versioning.md, "
            "section 3.2).",
            "type": "string",
            "pattern": unknown_name,
            "not": {"const": "unspecified"},
        }},
    }


def version_choice(strict: str, tolerant: str) -> dict[str, object]:
    """The keywords of a document type that read its specversion: another
    major version is refused, a newer minor version takes the tolerant form
    (spec/v1/versioning.md, sections 1.4 and 3)."""
    return {
        "allOf": [{"properties": {"specversion": {
            "$comment": "A reader of version 1 reads no further member of a document of another "
            "major version (spec/v1/versioning.md, section 1.4).",
            "not": {"type": "string", "pattern": OTHER_MAJOR}}}}],
        "if": {"required": ["specversion"], "properties": {"specversion": {
            "type": "string", "pattern": THIS_MAJOR, "not": {"enum": KNOWN_VERSIONS}}}},
        "then": {"$ref": tolerant},
        "else": {"$ref": strict},
    }


def record_version_choice() -> dict[str, object]:
    """The version choice of a record that is a document of its own, whose
    specversion, unlike that of a nested record, is not empty."""
    choice = version_choice(ref("MemoryRecord"), ref("MemoryRecord", tolerant=True))
    present = {"properties": {"specversion": {"type": "string", "minLength": 1}}}
    return {**choice, "allOf": [*choice["allOf"], present]}  # type: ignore[misc]


def message_schema(model: protoset.Model, msg: descriptor_pb2.DescriptorProto,
                   document: bool) -> dict[str, object]:
    header: dict[str, object] = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": BASE + ref(msg.name),
        "title": msg.name,
        "description": model.comment(msg.name),
    }
    tolerant = {
        "description": f"{msg.name} in a document of a newer minor version, which tolerates unknown "
        "members, enum values and record kinds (spec/v1/versioning.md, section 3.2).",
        **message_body(model, msg, tolerant=True),
    }
    if not document:
        return {**header, **message_body(model, msg, tolerant=False), "$defs": {NEWER: tolerant}}
    # A document type, never nested: its specversion chooses the form.
    return {
        **header,
        "type": "object",
        **version_choice("#/$defs/strict", f"#/$defs/{NEWER}"),
        "$defs": {
            "strict": {
                "description": f"{msg.name} in a document of version {', '.join(KNOWN_VERSIONS)}.",
                **message_body(model, msg, tolerant=False),
            },
            NEWER: tolerant,
        },
    }


def fixed_schemas(model: protoset.Model) -> dict[str, dict[str, object]]:
    header = {"$schema": "https://json-schema.org/draft/2020-12/schema"}
    return {
        "value.schema.json": {
            **header,
            "$id": BASE + "value.schema.json",
            "title": "Value",
            "description": model.comment("Value") + " In JSON a Value is any JSON value; "
            "a number without fraction or exponent is an integer.",
            # One type per branch: stock validators in strict mode refuse a list of types.
            "anyOf": [{"type": t} for t in ("null", "boolean", "number", "string")] + [
                {"type": "array", "items": {"$ref": "#"}},
                {"type": "object", "additionalProperties": {"$ref": "#"}},
            ],
        },
        "timestamp.schema.json": {
            **header,
            "$id": BASE + "timestamp.schema.json",
            "title": "Timestamp",
            "description": "An instant in UTC as an RFC 3339 string with an uppercase T and Z and "
            "0 to 9 fractional digits, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999999Z "
            "(spec/v1/json-format.md, section 3.6).",
            "type": "string",
            "pattern": TIMESTAMP_PATTERN,
        },
        "record-document.schema.json": {
            **header,
            "$id": BASE + "record-document.schema.json",
            "title": "MemoryRecord document",
            "description": "A memory record that is a document of its own, such as one line of an "
            "export. Unlike a record inside another document, it carries its specversion.",
            "type": "object",
            "required": ["specversion"],
            **record_version_choice(),
        },
    }


def document_types(model: protoset.Model) -> set[str]:
    """Messages that are documents of their own only: they carry specversion
    and no field of another message holds them."""
    nested = {short(f.type_name) for msg in model.messages.values() for f in msg.field}
    return {name for name, msg in model.messages.items()
            if name not in nested and any(f.name == "specversion" for f in msg.field)}


def generate(proto_root: pathlib.Path = protoset.PROTO_ROOT) -> dict[str, str]:
    model = protoset.load(proto_root)
    documents = document_types(model)
    files: dict[str, dict[str, object]] = {}
    for name, msg in model.messages.items():
        if name not in SKIP_MESSAGES:
            files[ref(name)] = message_schema(model, msg, name in documents)
    for name, enum in model.enums.items():
        files[ref(name)] = enum_schema(model, enum)
    files.update(fixed_schemas(model))
    return {k: json.dumps(v, indent=2, ensure_ascii=False) + "\n" for k, v in sorted(files.items())}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="fail if schemas/v1 differs from the output")
    args = parser.parse_args(argv)
    files = generate()
    if args.check:
        stale = sorted(
            name for name, text in files.items()
            if not (OUT / name).exists() or (OUT / name).read_text() != text
        )
        extra = sorted(p.name for p in OUT.glob("*.schema.json") if p.name not in files)
        for name in stale:
            print(f"schemas/v1/{name}: differs from the .proto files; run tools/gen_schemas.py")
        for name in extra:
            print(f"schemas/v1/{name}: no .proto message or enum generates it")
        return 1 if stale or extra else 0
    OUT.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (OUT / name).write_text(text)
    print(f"wrote {len(files)} schemas to {OUT.relative_to(protoset.ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
