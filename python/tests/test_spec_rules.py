"""The field constraints the specification writes are the protos' (rules).

core.md and operations.md describe every field with a Constraints line:
REQUIRED or OPTIONAL, then "length a..b", "items a..b", "range a..b", a
pattern ("MUST match `...`"), a key pattern, a format (core.md section 2.1
defines the notation). The protos carry the same rules in the option
(memorywire.v1.rules), from which the schemas and the codec are generated.
This test reads both and compares them field by field, so that neither can
change alone.
"""

from __future__ import annotations

import math
import pathlib
import re
import shutil
import sys
from dataclasses import dataclass, field

import pytest
from google.protobuf import descriptor_pb2

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import protoset  # noqa: E402

SPEC = ROOT / "spec" / "v1"
DOCUMENTS = ("core.md", "operations.md")
F = descriptor_pb2.FieldDescriptorProto
MAX_SAFE = 2**53 - 1
# The range of each numeric type when no rule narrows it (core.md section 3.3).
TYPE_RANGE = {F.TYPE_UINT32: (0, 2**32 - 1), F.TYPE_UINT64: (0, MAX_SAFE),
              F.TYPE_DOUBLE: (-math.inf, math.inf), F.TYPE_FLOAT: (-math.inf, math.inf)}

HEADING = re.compile(r"^(#{2,5}) (?:<a id=\"[0-9.]+\"></a>[0-9.]+\. )?(.*)$")
OPERATION = re.compile(r"^(?:Request|Response) \((?:stream of )?`([A-Za-z]+)`\)$")
FIELD = re.compile(r"^(?:([A-Z][A-Za-z]*)\.)?([a-z][a-z0-9_]*)$")
NUMBER = r"-?[0-9]+(?:\.[0-9]+)?"
BOUNDS = rf"({NUMBER})?\.\.({NUMBER})"
PATTERN = re.compile(r"MUST\s+match\s+`([^`]+)`")
ENVELOPE = {"specversion", "operation_id", "scope"}
# The messages of value.proto are the Value type's own encoding (core.md
# section 3.4): the codec checks them by their kind, not by (rules), and the
# schemas have none of them.
VALUE_MESSAGES = {"Value", "ValueList", "ValueMap", "MapEntry"}
# The anchor that names a requirement sentence (conformance/README.md, Spec coverage).
REQUIREMENT_ID = re.compile(r'<a id="R-[A-Z]+-[0-9]+"></a>')
KEY_PATTERN = re.compile(r"every key MUST\s+match\s+(?:`([^`]+)`|the (extension) key pattern)", re.IGNORECASE)


@dataclass
class Written:
    """The constraints of one field as the specification writes them."""

    where: str
    rules: dict[str, object] = field(default_factory=dict)


def number(text: str) -> int | float:
    return float(text) if "." in text else int(text)


def parse_constraints(text: str) -> dict[str, object]:
    """The rules of a Constraints text, in the vocabulary of FieldRules."""
    text = " ".join(text.split())
    rules: dict[str, object] = {}
    head = re.match(r"(REQUIRED|OPTIONAL)\b(.?)", text)
    assert head, f"a Constraints text starts with REQUIRED or OPTIONAL: {text!r}"
    # "REQUIRED on a record that is a document of its own", "REQUIRED, except
    # on a tombstone", "REQUIRED: exactly one member": required under a
    # condition, which the rules do not express.
    if head[1] == "OPTIONAL":
        rules["required"] = False
    elif head[2] in ("", ".", ";", " ") and not re.match(r"REQUIRED (on|when|unless|if|for)\b", text):
        rules["required"] = True
    if m := re.search(r"\blength " + BOUNDS, text):
        if m[1]:
            rules["min_length"] = number(m[1])
        rules["max_length"] = number(m[2])
    if m := re.search(r"each element of length ([0-9]+) or more", text):
        rules["min_length"] = number(m[1])
    if m := re.search(r"\bitems " + BOUNDS, text):
        if m[1]:
            rules["min_items"] = number(m[1])
        rules["max_items"] = number(m[2])
    if m := re.search(r"\brange " + BOUNDS, text):
        rules["minimum"], rules["maximum"] = number(m[1]), number(m[2])
    if m := re.search(r"\bformat `([a-z-]+)`", text):
        rules["format"] = m[1]
    key = KEY_PATTERN.search(text)
    if key:
        rules["key_pattern"] = key[1] or key[2]
    patterns = [p for p in PATTERN.findall(text) if not key or p != key[1]]
    if patterns:
        assert len(patterns) == 1, f"one pattern per field: {text!r}"
        rules["pattern"] = patterns[0]
    return rules


def read(document: str, text: str, messages: dict[str, set[str]],
         out: dict[tuple[str, str], Written]) -> None:
    """The fields that one document describes, into ``out``."""
    lines = REQUIREMENT_ID.sub("", text).split("\n")
    context: str | None = None
    pending: dict[str, tuple[str, dict[str, object]]] = {}

    def settle() -> None:
        # The fields of a section without a message of its own belong to
        # the one message that has all of them.
        if not pending:
            return
        names = set(pending)
        if context is None and names <= ENVELOPE:
            # The envelope (operations.md section 2): every request and
            # response that has the field.
            for name, (where, rules) in pending.items():
                for owner, fields_of in messages.items():
                    if owner.endswith(("Request", "Response")) and name in fields_of:
                        out[(owner, name)] = Written(where, rules)
        else:
            owners = [m for m, fields_of in messages.items() if names <= fields_of]
            assert len(owners) == 1, f"{document}: the fields {sorted(names)} belong to {owners or 'no message'}"
            for name, (where, rules) in pending.items():
                out[(owners[0], name)] = Written(where, rules)
        pending.clear()

    i = 0
    while i < len(lines):
        m = HEADING.match(lines[i])
        if not m:
            i += 1
            continue
        level, title = len(m[1]), m[2]
        if op := OPERATION.match(title):
            settle()
            context = op[1]
        elif level <= 3:
            settle()
            context = None
        elif f := FIELD.match(title):
            j = i + 1
            while j < len(lines) and not HEADING.match(lines[j]):
                j += 1
            block = lines[i + 1:j]
            start = next((k for k, line in enumerate(block) if line.startswith("- Constraints:")), None)
            if start is not None:
                end = next((k for k in range(start + 1, len(block))
                            if block[k].startswith("- ") or block[k].startswith("##")), len(block))
                constraints = " ".join([block[start][len("- Constraints:"):], *block[start + 1:end]])
                constraints = re.sub(r"^\s*-\s+", "", constraints.strip())
                constraints = re.sub(r"\s+-\s+(?=[A-Z])", " ", constraints)
                where = f"{document}:{i + 1}"
                rules = parse_constraints(constraints)
                owner = f[1] or context
                if owner is not None:
                    out[(owner, f[2])] = Written(where, rules)
                else:
                    pending[f[2]] = (where, rules)
            i = j
            continue
        i += 1
    settle()


def written(documents: dict[str, str], messages: dict[str, set[str]]) -> dict[tuple[str, str], Written]:
    """Every field the documents describe, by (message, field)."""
    out: dict[tuple[str, str], Written] = {}
    for document, text in documents.items():
        read(document, text, messages, out)
    # A key pattern named by reference is the one of MemoryRecord.extensions.
    extension = out[("MemoryRecord", "extensions")].rules["key_pattern"]
    for entry in out.values():
        if entry.rules.get("key_pattern") == "extension":
            entry.rules["key_pattern"] = extension
    return out


def normalise(rules: dict[str, object], f: descriptor_pb2.FieldDescriptorProto) -> dict[str, object]:
    """The rules with what the type implies made explicit: a REQUIRED string
    or list has at least one code point or element, and a number's range is
    its type's unless narrowed."""
    out = {k: v for k, v in rules.items() if v is not None}
    repeated = f.label == F.LABEL_REPEATED
    if out.get("required"):
        if f.type == F.TYPE_STRING and not repeated:
            out["min_length"] = max(int(out.get("min_length", 0)), 1)  # type: ignore[call-overload]
        if repeated:
            out["min_items"] = max(int(out.get("min_items", 0)), 1)  # type: ignore[call-overload]
    out.pop("required", None)
    if f.type in TYPE_RANGE and not repeated:
        lo, hi = TYPE_RANGE[f.type]
        out["minimum"] = out.get("minimum", lo)
        out["maximum"] = out.get("maximum", hi)
    return {k: (float(v) if k in ("minimum", "maximum") else v) for k, v in out.items()}


def proto_rules(proto_root: pathlib.Path) -> tuple[dict[str, set[str]], dict[tuple[str, str], tuple[
        descriptor_pb2.FieldDescriptorProto, dict[str, object]]]]:
    model = protoset.load(proto_root)
    messages = {name: {f.name for f in m.field} for name, m in model.messages.items()}
    fields = {(name, f.name): (f, protoset.field_rules(f))
              for name, m in model.messages.items() for f in m.field}
    return messages, fields


def differences(spec_dir: pathlib.Path = SPEC, proto_root: pathlib.Path = protoset.PROTO_ROOT) -> list[str]:
    messages, fields = proto_rules(proto_root)
    spec = written({d: (spec_dir / d).read_text() for d in DOCUMENTS}, messages)
    found = []
    for key, entry in sorted(spec.items()):
        if key[0] in VALUE_MESSAGES:
            continue
        if key not in fields:
            found.append(f"{entry.where}: {key[0]}.{key[1]} is not a field of the protos")
            continue
        f, rules = fields[key]
        want = dict(entry.rules)
        if "required" not in want:  # required under a condition: the rules cannot say it
            want["required"] = rules.get("required", False)
        a, b = normalise(want, f), normalise(rules, f)
        if a != b:
            keys = sorted(set(a) | set(b))
            found.append(f"{entry.where}: {key[0]}.{key[1]}: the spec says "
                         + ", ".join(f"{k}={a.get(k)!r}" for k in keys if a.get(k) != b.get(k))
                         + "; the proto says "
                         + ", ".join(f"{k}={b.get(k)!r}" for k in keys if a.get(k) != b.get(k)))
        if bool(want.get("required")) != bool(rules.get("required")):
            found.append(f"{entry.where}: {key[0]}.{key[1]}: REQUIRED in one, not the other")
    for key, (f, rules) in sorted(fields.items()):
        if key not in spec and key[0] != "FieldRules" and normalise(rules, f) != normalise({}, f):
            found.append(f"{key[0]}.{key[1]} has rules but no Constraints in the specification")
    return found


def test_the_specification_and_the_protos_state_the_same_rules() -> None:
    assert differences() == []


def test_every_kind_of_constraint_is_read() -> None:
    messages, fields = proto_rules(protoset.PROTO_ROOT)
    spec = written({d: (SPEC / d).read_text() for d in DOCUMENTS}, messages)
    seen = {k for entry in spec.values() for k, v in entry.rules.items() if v is not False}
    used = {k for _, rules in fields.values() for k in rules}
    assert used == {"required", "min_length", "max_length", "pattern", "max_items", "minimum", "maximum",
                    "format", "key_pattern"}
    assert seen == used
    assert len(spec) > 200
    assert spec[("MemoryRecord", "id")].rules == {
        "required": True, "min_length": 1, "max_length": 256, "pattern": r"^[^\u0000-\u001f\u007f]+$"}


@pytest.fixture
def tree(tmp_path: pathlib.Path) -> tuple[pathlib.Path, pathlib.Path]:
    shutil.copytree(SPEC, tmp_path / "spec")
    shutil.copytree(protoset.PROTO_ROOT, tmp_path / "proto")
    return tmp_path / "spec", tmp_path / "proto"


def edit(path: pathlib.Path, old: str, new: str) -> None:
    text = path.read_text()
    assert text.count(old) == 1, f"{old!r} is not once in {path}"
    path.write_text(text.replace(old, new))


def test_a_changed_length_in_the_spec_is_caught(tree: tuple[pathlib.Path, pathlib.Path]) -> None:
    spec, proto = tree
    edit(spec / "core.md", "- Constraints: OPTIONAL; length ..256.\n- Examples: `\"u-42\"`",
         "- Constraints: OPTIONAL; length ..255.\n- Examples: `\"u-42\"`")
    assert [d.split(": ", 1)[1] for d in differences(spec, proto)] == [
        "Scope.user: the spec says max_length=255; the proto says max_length=256"]


def test_a_changed_number_in_the_proto_is_caught(tree: tuple[pathlib.Path, pathlib.Path]) -> None:
    spec, proto = tree
    edit(proto / "memorywire" / "v1" / "record.proto", "string user = 2 [(rules) = {max_length: 256}];",
         "string user = 2 [(rules) = {max_length: 512}];")
    assert [d.split(": ", 1)[1] for d in differences(spec, proto)] == [
        "Scope.user: the spec says max_length=256; the proto says max_length=512"]


def test_a_dropped_requirement_is_caught(tree: tuple[pathlib.Path, pathlib.Path]) -> None:
    spec, proto = tree
    edit(spec / "core.md", "Constraints: REQUIRED; length ..64.\n- Examples: `\"file_citation\"`",
         "Constraints: OPTIONAL; length ..64.\n- Examples: `\"file_citation\"`")
    found = [d.split(": ", 1)[1] for d in differences(spec, proto)]
    assert "Annotation.type: REQUIRED in one, not the other" in found
