"""Stock JSON Schema validators read the v1 schemas as the codec does.

Ajv (with its default options: draft 2020-12, strict mode) and jsonschema-rs
compile every schema of schemas/v1 and give the verdict of the reference
codec on every example and on documents of each version: a 1.0 document with
unknown content is refused, a 1.1 document with unknown members and enum
values is accepted (spec/v1/versioning.md, section 3.2), and a document of
another major version is refused (section 1.4).
"""

from __future__ import annotations

import json
import pathlib
import re
import subprocess
from typing import Any

import jsonschema_rs
import pytest
from jsonschema import Draft202012Validator

from memorywire import _formats, _schemas, validation

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCHEMA_DIR = ROOT / "schemas" / "v1"
BASE = "https://memorywire.dev/schemas/v1/"
RECORD = "memorywire.v1.MemoryRecord"
PUT = "memorywire.v1.PutRequest"

FACT = {"id": "r1", "kind": "fact", "fact": {"text": "x"}}


def record(specversion: str, **members: Any) -> dict[str, Any]:
    return {"specversion": specversion, **FACT, **members}


def message(specversion: str, *parts: dict[str, Any]) -> dict[str, Any]:
    return {"specversion": specversion, "id": "m1", "kind": "message",
            "message": {"role": "user", "content": list(parts)}}


def put(version: str, **members: Any) -> dict[str, Any]:
    return {"specversion": version, "operation_id": "op-1", "items": [{"record": {**FACT, **members}}]}


#: name: (type, document, valid)
VERSION_CASES: dict[str, tuple[str, dict[str, Any], bool]] = {
    "1.0": (RECORD, record("1.0"), True),
    "1.0 with an unknown member": (RECORD, record("1.0", mood={"a": 1}), False),
    "1.0 with an unknown enum value": (RECORD, {**record("1.0"), "fact": {"text": "x", "category": "opinion"}},
                                       False),
    "1.1 with an unknown member": (RECORD, record("1.1", mood={"a": [1, None]}), True),
    "1.1 with an unknown enum value": (RECORD, {**record("1.1"), "fact": {"text": "x", "category": "opinion"}},
                                       True),
    "1.1 with an unknown member inside": (RECORD, {**record("1.1"), "fact": {"text": "x", "zz": [1]},
                                                   "scope": {"tenant": "t", "yy": None}}, True),
    "1.1 with an unknown kind and its payload": (RECORD, {"specversion": "1.1", "id": "r1", "kind": "memo",
                                                          "memo": {"t": 1}}, True),
    "1.1 with an unknown kind, encrypted": (RECORD, {"specversion": "1.1", "id": "r1", "kind": "memo",
                                                     "encrypted": {"algorithm": "A256GCM", "ciphertext": "AAAA"}},
                                            True),
    "1.1 with an unknown kind and a known payload": (RECORD, {"specversion": "1.1", "id": "r1", "kind": "memo",
                                                              "memo": {}, "fact": {"text": "x"}}, False),
    "1.1 with an unknown kind and no payload": (RECORD, {"specversion": "1.1", "id": "r1", "kind": "memo"}, False),
    "1.1 with the payload of another kind": (RECORD, record("1.1", message={"role": "user"}), False),
    "1.1 with unknown content as the payload": (RECORD, {"specversion": "1.1", "id": "r1", "kind": "fact",
                                                         "zz": 1}, True),
    "1.1 with unspecified": (RECORD, {**record("1.1"), "fact": {"text": "x", "category": "unspecified"}}, False),
    "1.1 with an upper-case enum name": (RECORD, {**record("1.1"), "fact": {"text": "x", "category": "Opinion"}},
                                         False),
    "1.1 with an unknown content part": (RECORD, message("1.1", {"hologram": {"x": 1}}), True),
    "1.0 with an unknown content part": (RECORD, message("1.0", {"hologram": {"x": 1}}), False),
    "1.1 with an empty content part": (RECORD, message("1.1", {}), False),
    "1.12": (RECORD, record("1.12", mood=1), True),
    "2.0": (RECORD, record("2.0"), False),
    "2.3 with unknown content": (RECORD, record("2.3", mood=1), False),
    "10.0": (RECORD, record("10.0"), False),
    "1.00": (RECORD, record("1.00"), False),
    "0.9": (RECORD, record("0.9"), False),
    "no specversion": (RECORD, dict(FACT), False),
    "PutRequest 1.1, unknown member in a nested record": (PUT, put("1.1", zz=1), True),
    "PutRequest 1.0, unknown member in a nested record": (PUT, put("1.0", zz=1), False),
    "PutRequest 1.1, unknown member": (PUT, {**put("1.1"), "qq": 3}, True),
    "PutRequest 2.0": (PUT, put("2.0"), False),
    "PutRequest 1.1, a nested record with specversion": (PUT, put("1.1", specversion="1.1"), False),
    "Error with an unknown member": ("memorywire.v1.Error", {"code": "internal", "reason": "INTERNAL_ERROR",
                                                             "message": "m", "retry": {"after": 1}}, True),
    "media type with parameters": (RECORD, message("1.0", {"image": {
        "uri": "https://example.com/a.png", "media_type": "text/plain; charset=\"utf-8\""}}), True),
    "media type without a subtype": (RECORD, message("1.0", {"image": {
        "uri": "https://example.com/a.png", "media_type": "image"}}), False),
    "uri without a scheme": (RECORD, message("1.0", {"image": {"uri": "example.com/a.png"}}), False),
}


def schema_ref(type_name: str) -> str:
    """The schema (file and fragment) of a top-level document of a type."""
    short = type_name.rsplit(".", 1)[1]
    if short == "MemoryRecord":
        return "record-document.schema.json"
    if short == "Error":
        # Without a version from its context, an Error is read as of a newer minor.
        return "error.schema.json#/$defs/newer-minor"
    return re.sub(r"(?<!^)(?=[A-Z])", "-", short).lower() + ".schema.json"


def example_type(path: pathlib.Path) -> str:
    if path.parent.name == "records":
        return RECORD
    if path.stem.startswith("error"):
        return "memorywire.v1.Error"
    return "memorywire.v1." + "".join(p.capitalize() for p in path.stem.split("-"))


def examples() -> list[tuple[str, str, Any]]:
    out = []
    for path in sorted((ROOT / "examples" / "v1").glob("*/*.json")):
        out.append((str(path.relative_to(ROOT)), example_type(path), json.loads(path.read_text())))
    return out


def all_cases() -> list[tuple[str, str, Any, bool]]:
    cases = [(name, t, doc, True) for name, t, doc in examples()]
    cases += [(name, t, doc, valid) for name, (t, doc, valid) in VERSION_CASES.items()]
    return cases


def test_the_cases_are_the_codecs_verdicts() -> None:
    """The expected verdicts are those of both validators of the codec."""
    assert len(examples()) >= 45
    for name, type_name, doc, valid in all_cases():
        assert (validation.check(doc, type_name)[0] == []) is valid, name
        assert (validation.reference_errors(doc, type_name) == []) is valid, name


def test_ajv_with_default_options_compiles_every_schema_and_agrees() -> None:
    cases = all_cases()
    result = subprocess.run(
        ["node", str(ROOT / "tools" / "ajv_check.js")],
        input=json.dumps([{"schema": schema_ref(t), "document": doc} for _, t, doc, _ in cases]),
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(result.stdout)
    assert report["compiled"] == len(list(SCHEMA_DIR.glob("*.schema.json")))
    assert report["warnings"] == []
    wrong = [f"{name}: ajv says {verdict['valid']}, {verdict['errors'][:3]}"
             for (name, _, _, valid), verdict in zip(cases, report["verdicts"], strict=True)
             if verdict["valid"] is not valid]
    assert wrong == []


@pytest.fixture(scope="module")
def rs_registry() -> tuple[Any, dict[str, Any]]:
    schemas = {}
    for path in SCHEMA_DIR.glob("*.schema.json"):
        schema = json.loads(path.read_text())
        schemas[schema["$id"]] = schema
    return jsonschema_rs.Registry(list(schemas.items())), schemas


def test_jsonschema_rs_compiles_every_schema_and_agrees(rs_registry: tuple[Any, dict[str, Any]]) -> None:
    registry, schemas = rs_registry
    for schema in schemas.values():
        jsonschema_rs.validator_for(schema, registry=registry)
    validators: dict[str, Any] = {}
    wrong = []
    for name, type_name, doc, valid in all_cases():
        ref = schema_ref(type_name)
        if ref not in validators:
            validators[ref] = jsonschema_rs.validator_for(
                {"$schema": "https://json-schema.org/draft/2020-12/schema", "$ref": BASE + ref}, registry=registry)
        if validators[ref].is_valid(doc) is not valid:
            wrong.append(f"{name}: jsonschema-rs says {not valid}")
    assert wrong == []


def test_no_schema_names_a_format() -> None:
    """Stock validators refuse a format they do not know (Ajv's strict mode),
    so the formats of the rules are patterns."""
    texts = {p.name: p.read_text() for p in SCHEMA_DIR.glob("*.schema.json")}

    def keywords(node: Any) -> set[str]:
        if isinstance(node, list):
            return set().union(*map(keywords, node))
        if not isinstance(node, dict):
            return set()
        found = set(node)
        for key, value in node.items():
            # The members of "properties" are field names, not keywords.
            found |= set().union(*map(keywords, value.values())) if key == "properties" else keywords(value)
        return found

    assert [name for name, text in texts.items() if "format" in keywords(json.loads(text))] == []
    for name in _formats.FORMATS:
        assert any(json.dumps(_formats.schema_pattern(name)) in text for text in texts.values()), name


def test_the_white_space_of_the_formats_is_pythons() -> None:
    """The formats spell white space out; the set is exactly Python's \\s, which the
    codec used before, so that the patterns mean the same in every engine."""
    space = re.compile(f"[{_formats._SPACE}]")
    differ = [hex(c) for c in range(0x110000)
              if (re.fullmatch(r"\s", chr(c)) is None) is not (space.fullmatch(chr(c)) is None)]
    assert differ == []


# -- the rules the schemas do not state (json-format.md, section 9.2) ----------------

REC = '{"specversion":"1.0","id":"r1","kind":"fact","fact":{"text":"x"}'
DEEP = "[" * 31 + "1" + "]" * 31  # depth 33 at the last array
#: name: (type, JSON text that every schema accepts, the reason the codec gives)
BEYOND_SCHEMA: dict[str, tuple[str, str, str]] = {
    "a repeated member name": (RECORD, '{"specversion":"1.0","id":"r1","id":"r2","kind":"fact","fact":{"text":"x"}}',
                               "DUPLICATE_KEY"),
    "a lone surrogate": (RECORD, '{"specversion":"1.0","id":"r1","kind":"fact","fact":{"text":"\\ud800"}}',
                         "INVALID_UNICODE"),
    "a fraction in an integer field": (RECORD, REC + ',"revision":1.0}', "TYPE_MISMATCH"),
    "an exponent in an integer field": (RECORD, REC + ',"revision":1e3}', "TYPE_MISMATCH"),
    "an integer Value beyond 64 bits": (RECORD, REC + ',"metadata":{"a":9223372036854775808}}',
                                        "NUMBER_OUT_OF_RANGE"),
    "a number that overflows binary64": (RECORD, REC + ',"metadata":{"a":1e400}}', "NON_FINITE_NUMBER"),
    "February 30": (RECORD, REC + ',"created_at":"2026-02-30T00:00:00Z"}', "INVALID_TIMESTAMP"),
    "year 0000": (RECORD, REC + ',"created_at":"0000-01-01T00:00:00Z"}', "INVALID_TIMESTAMP"),
    "dimensions and values differ": (RECORD, REC + ',"embeddings":[{"model":"m","dimensions":3,"values":[1.0,2.0]}]}',
                                     "DIMENSION_MISMATCH"),
    "a state not among the states": (RECORD, '{"specversion":"1.0","id":"p1","kind":"procedure","procedure":'
                                             '{"name":"n","states":["a","b"],"current_state":"c"}}',
                                     "VALUE_OUT_OF_RANGE"),
    "a query vector of norm zero": ("memorywire.v1.SearchRequest",
                                    '{"specversion":"1.0","operation_id":"op-1","vector":'
                                    '{"model":"m","values":[0.0,-0.0]}}', "INVALID_VECTOR"),
    "nesting beyond max_depth": (RECORD, REC + ',"metadata":{"a":' + DEEP + "}}", "NESTING_TOO_DEEP"),
    # 600,000 code points, within any length of a schema, are 1,200,000 bytes of UTF-8.
    "a string beyond max_string_bytes": (RECORD, REC + ',"metadata":{"k":"' + "\u00e9" * 600_000 + '"}}',
                                         "STRING_TOO_LONG"),
    "an array beyond max_items": (RECORD, REC + ',"metadata":{"a":[' + ",".join(["0"] * 100_001) + "]}}",
                                  "TOO_MANY_ITEMS"),
}


def test_the_rules_beyond_the_schemas_are_not_in_them() -> None:
    """Each document breaks one rule of the table of json-format.md, section 9.2:
    Ajv and the jsonschema package accept it, and the codec refuses it with the
    table's reason."""
    from memorywire import json as mw_json
    from memorywire.errors import MemorywireError

    cases = list(BEYOND_SCHEMA.items())
    result = subprocess.run(
        ["node", str(ROOT / "tools" / "ajv_check.js")],
        input=json.dumps([{"schema": schema_ref(t), "text": text} for _, (t, text, _) in cases]),
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    verdicts = json.loads(result.stdout)["verdicts"]
    for (name, (type_name, text, reason)), verdict in zip(cases, verdicts, strict=True):
        # Ajv refuses the Infinity that JSON.parse makes of 1e400: the parser decides.
        assert verdict["valid"] is (name != "a number that overflows binary64"), \
            f"{name}: ajv says {verdict['valid']}: {verdict['errors'][:3]}"
        stock = Draft202012Validator(_schemas.schema(type_name), registry=_schemas.registry())
        assert stock.is_valid(json.loads(text)), f"{name}: the jsonschema package refuses it"
        with pytest.raises(MemorywireError) as info:
            mw_json.decode(text.encode(), type=type_name)
        assert info.value.reason == reason, f"{name}: {info.value}"


#: name: (type, document, reason): single faults the schemas state, whose keyword
#: the reference validator maps to the reason the codec gives.
REASON_CASES: dict[str, tuple[str, dict[str, Any], str]] = {
    "2.0 with unknown content": (RECORD, record("2.0", mood=1, id=""), "UNSUPPORTED_VERSION"),
    "PutRequest 2.3": (PUT, put("2.3", zz=1), "UNSUPPORTED_VERSION"),
    "1.0 with an unknown member": VERSION_CASES["1.0 with an unknown member"][:2] + ("UNKNOWN_FIELD",),
    "1.0 with an unknown enum value": VERSION_CASES["1.0 with an unknown enum value"][:2] + ("UNKNOWN_ENUM_VALUE",),
    "1.1 with unspecified": VERSION_CASES["1.1 with unspecified"][:2] + ("UNKNOWN_ENUM_VALUE",),
    "1.1 with an upper-case enum name": VERSION_CASES["1.1 with an upper-case enum name"][:2]
    + ("UNKNOWN_ENUM_VALUE",),
    "1.00": (RECORD, record("1.00"), "PATTERN_MISMATCH"),
    "media type without a subtype": VERSION_CASES["media type without a subtype"][:2] + ("INVALID_FORMAT",),
    "uri without a scheme": VERSION_CASES["uri without a scheme"][:2] + ("INVALID_FORMAT",),
    "a timestamp with a space": (RECORD, record("1.0", created_at="2026-01-01 00:00:00Z"), "INVALID_TIMESTAMP"),
    "base64 with a wrong pad": (RECORD, {"specversion": "1.0", "id": "r1", "kind": "fact",
                                         "encrypted": {"algorithm": "A256GCM", "ciphertext": "A==="}},
                                "INVALID_BASE64"),
}


@pytest.mark.parametrize("name", sorted(REASON_CASES))
def test_the_reference_validator_gives_the_codecs_reason(name: str) -> None:
    type_name, doc, reason = REASON_CASES[name]
    fast = validation.check(doc, type_name)[0]
    reference = validation.reference_errors(doc, type_name)
    assert [v.reason for v in fast[:1]] == [reason]
    assert [v.reason for v in reference[:1]] == [reason]
    if reason == "UNSUPPORTED_VERSION":
        # Whatever else is wrong with the document (versioning.md, section 1.4).
        assert [(v.pointer, v.reason) for v in reference] == [("/specversion", reason)]
