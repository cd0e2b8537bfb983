"""Check that the JSON Schemas and the .proto files say the same thing.

For every message and enum of package memorywire.v1 there is a schema, and
for every schema a message or enum; every field has a property of the
matching type and constraints, every property a field; every enum value has
its JSON name; required-ness agrees. Each message is checked in both of its
forms: the strict one of a document of a known version, and the newer-minor
one (``$defs/newer-minor``), which tolerates unknown members and enum values;
a document type chooses between them by its specversion. The named formats of
the rules are patterns in the schemas, those of memorywire._formats. This
check reads the schema files as they are and compares them with the
descriptors protoc produces; it does not share code with the generator, so a
hand edit on either side is caught.

Usage: python tools/schema_sync.py [--proto-root DIR] [--schema-dir DIR]
Exit status 0 when in sync, 1 with one line per difference otherwise.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys
from typing import Any

from google.protobuf import descriptor_pb2
from memorywire._formats import ENUM_NAME, schema_pattern

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import protoset

F = descriptor_pb2.FieldDescriptorProto
NOT_ON_THE_WIRE = {"FieldRules", "Value", "ValueList", "ValueMap", "MapEntry"}
EXTRA_SCHEMAS = {"value.schema.json", "timestamp.schema.json", "record-document.schema.json"}
NEWER = "#/$defs/newer-minor"

JSON_TYPE = {
    F.TYPE_STRING: "string",
    F.TYPE_BYTES: "string",
    F.TYPE_BOOL: "boolean",
    F.TYPE_UINT32: "integer",
    F.TYPE_UINT64: "integer",
    F.TYPE_INT32: "integer",
    F.TYPE_INT64: "integer",
    F.TYPE_DOUBLE: "number",
    F.TYPE_FLOAT: "number",
}
CONSTRAINTS = {
    "min_length": "minLength",
    "max_length": "maxLength",
    "pattern": "pattern",
    "minimum": "minimum",
    "maximum": "maximum",
}


def target_of(ref: str) -> str:
    return ref.split("#", 1)[0]


def expected_ref(field: descriptor_pb2.FieldDescriptorProto, newer: bool) -> str:
    name = field.type_name.rsplit(".", 1)[-1]
    if field.type_name == ".google.protobuf.Timestamp":
        return "timestamp.schema.json"
    if name in ("Value", "ValueList", "ValueMap"):
        return "value.schema.json"
    return protoset.kebab(name) + ".schema.json" + (NEWER if newer else "")


def compare_scalar(where: str, field: descriptor_pb2.FieldDescriptorProto,
                   rules: dict[str, Any], prop: dict[str, Any], problems: list[str], newer: bool) -> None:
    if field.type in (F.TYPE_MESSAGE, F.TYPE_ENUM):
        want = expected_ref(field, newer)
        got = prop.get("$ref", "")
        if got != want:
            problems.append(f"{where}: proto type {field.type_name} but schema refers to {got or 'nothing'}")
        return
    want_type = JSON_TYPE.get(field.type)
    if want_type is None:
        problems.append(f"{where}: proto type {field.type} has no JSON mapping")
        return
    if prop.get("type") != want_type:
        problems.append(f"{where}: proto type maps to JSON {want_type}, schema says {prop.get('type')}")
    if field.type == F.TYPE_BYTES and prop.get("contentEncoding") != "base64":
        problems.append(f"{where}: bytes field without contentEncoding base64")
    if "format" in prop:
        problems.append(f"{where}: schema format={prop['format']!r}, which stock validators refuse")
    if rules.get("format"):
        # A format of the rules is a pattern in the schema.
        rules = {**rules, "pattern": schema_pattern(rules["format"])}
    for rule, keyword in CONSTRAINTS.items():
        if rule in rules:
            value = rules[rule]
            if keyword in ("minLength",) and rules.get("required"):
                value = max(int(value), 1)
            if prop.get(keyword) != value:
                problems.append(f"{where}: proto {rule}={value!r}, schema {keyword}={prop.get(keyword)!r}")
        elif keyword in prop and keyword not in ("minimum", "maximum", "minLength") \
                and not (field.type == F.TYPE_BYTES and keyword == "pattern"):
            problems.append(f"{where}: schema {keyword}={prop[keyword]!r} has no proto rule")


def check_form(name: str, msg: descriptor_pb2.DescriptorProto, file: str, schema: dict[str, Any],
               newer: bool, problems: list[str]) -> None:
    """Compare one form of a message's schema with the message."""
    props: dict[str, Any] = schema.get("properties", {})
    unknown = {"$ref": "value.schema.json"} if newer else False
    if schema.get("additionalProperties") != unknown:
        problems.append(f"{file}: unknown members are not {'read as Values' if newer else 'rejected'} "
                        "(additionalProperties)")
    fields = {f.name: f for f in msg.field}
    for fname in sorted(set(fields) - set(props)):
        problems.append(f"{name}.{fname}: no property in {file}")
    for pname in sorted(set(props) - set(fields)):
        problems.append(f"{file}: property {pname!r} is not a field of {name}")
    required_proto = {f.name for f in msg.field if protoset.field_rules(f).get("required")}
    required_schema = set(schema.get("required", []))
    for fname in sorted(required_proto - required_schema):
        problems.append(f"{name}.{fname}: required in the proto, optional in {file}")
    for fname in sorted(required_schema - required_proto):
        problems.append(f"{file}: {fname!r} required in the schema, optional in {name}")
    for fname in sorted(set(fields) & set(props)):
        field, prop = fields[fname], props[fname]
        rules = protoset.field_rules(field)
        where = f"{name}.{fname}"
        if field.type_name == ".memorywire.v1.MapEntry":
            # Repeated MapEntry is a map<string, Value> on the wire.
            if prop.get("type") != "object" or not isinstance(prop.get("additionalProperties"), dict):
                problems.append(f"{where}: map in the proto, not an object map in {file}")
                continue
            if target_of(prop["additionalProperties"].get("$ref", "")) != "value.schema.json":
                problems.append(f"{where}: map values are Values in the proto, not in {file}")
            if rules.get("key_pattern") != prop.get("propertyNames", {}).get("pattern"):
                problems.append(f"{where}: key patterns differ")
            if rules.get("max_items") != prop.get("maxProperties"):
                problems.append(f"{where}: proto max_items={rules.get('max_items')}, "
                                f"schema maxProperties={prop.get('maxProperties')}")
        elif field.label == F.LABEL_REPEATED:
            if prop.get("type") != "array":
                problems.append(f"{where}: repeated in the proto, {prop.get('type')} in {file}")
                continue
            item_rules = {k: v for k, v in rules.items() if k not in ("required", "min_items", "max_items")}
            compare_scalar(where + "[]", field, item_rules, prop.get("items", {}), problems, newer)
            if rules.get("max_items") != prop.get("maxItems"):
                problems.append(f"{where}: proto max_items={rules.get('max_items')}, "
                                f"schema maxItems={prop.get('maxItems')}")
        else:
            if prop.get("type") == "array":
                problems.append(f"{where}: singular in the proto, array in {file}")
                continue
            compare_scalar(where, field, protoset.singular_rules(field, rules), prop, problems, newer)


def check(proto_root: pathlib.Path, schema_dir: pathlib.Path) -> list[str]:
    model = protoset.load(proto_root)
    problems: list[str] = []
    schemas: dict[str, dict[str, Any]] = {
        p.name: json.loads(p.read_text()) for p in sorted(schema_dir.glob("*.schema.json"))
    }
    wanted: set[str] = set(EXTRA_SCHEMAS)
    # Messages that carry specversion and that no other message holds.
    held = {f.type_name.rsplit(".", 1)[-1] for msg in model.messages.values() for f in msg.field}
    documents = {name for name, msg in model.messages.items()
                 if name not in held and any(f.name == "specversion" for f in msg.field)}
    record = schemas.get("record-document.schema.json", {})
    if record.get("then") != {"$ref": "memory-record.schema.json" + NEWER} \
            or record.get("else") != {"$ref": "memory-record.schema.json"}:
        problems.append("record-document.schema.json: specversion does not choose between the forms "
                        "of memory-record.schema.json")

    for name, enum in model.enums.items():
        file = protoset.kebab(name) + ".schema.json"
        wanted.add(file)
        schema = schemas.get(file)
        if schema is None:
            problems.append(f"enum {name}: no schema {file}")
            continue
        want = {protoset.enum_json_name(name, v.name) for v in enum.value if v.number != 0}
        got = set(schema.get("enum", []))
        for value in sorted(want - got):
            problems.append(f"enum {name}: value {value!r} missing from {file}")
        for value in sorted(got - want):
            problems.append(f"{file}: value {value!r} is not in enum {name}")
        newer = schema.get("$defs", {}).get("newer-minor", {})
        if newer.get("pattern") != f"^{ENUM_NAME}$" or newer.get("not") != {"const": "unspecified"}:
            problems.append(f"{file}: {NEWER} does not take the names a newer minor version may add")

    for name, msg in model.messages.items():
        if name in NOT_ON_THE_WIRE:
            continue
        file = protoset.kebab(name) + ".schema.json"
        wanted.add(file)
        schema = schemas.get(file)
        if schema is None:
            problems.append(f"message {name}: no schema {file}")
            continue
        if "/v1/" not in schema.get("$id", ""):
            problems.append(f"{file}: $id does not carry /v1/")
        defs = schema.get("$defs", {})
        if name in documents:
            # A document type: its specversion chooses the form.
            if schema.get("then") != {"$ref": NEWER} or schema.get("else") != {"$ref": "#/$defs/strict"}:
                problems.append(f"{file}: specversion does not choose between $defs/strict and {NEWER}")
            strict = defs.get("strict", {})
        else:
            strict = schema
        check_form(name, msg, file, strict, False, problems)
        if "newer-minor" not in defs:
            problems.append(f"{file}: no {NEWER}, the form of a document of a newer minor version")
        else:
            check_form(name, msg, f"{file}{NEWER}", defs["newer-minor"], True, problems)

    for file in sorted(set(schemas) - wanted):
        problems.append(f"{file}: no message or enum of the proto")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--proto-root", type=pathlib.Path, default=protoset.PROTO_ROOT)
    parser.add_argument("--schema-dir", type=pathlib.Path, default=protoset.ROOT / "schemas" / "v1")
    args = parser.parse_args(argv)
    problems = check(args.proto_root, args.schema_dir)
    for line in problems:
        print(line)
    if not problems:
        print("schemas and protos are in sync")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
