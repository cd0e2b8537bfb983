"""Validation of documents in their JSON form against the v1 rules.

Two validators give the same verdict on every document:

* the fast one runs the checking functions that :mod:`memorywire._compiled`
  generates from the field tables, plus the rules below that span fields;
  it is what the codec runs;
* the reference one runs the real ``jsonschema`` package on the schema files
  of ``schemas/v1``, which stays the authority and the error reporter of
  record (:func:`reference_errors`), plus the rules JSON Schema cannot state
  (spec/v1/json-format.md, section 8: calendar dates, embedding dimensions,
  number ranges, the resource limits).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import orjson

from memorywire import _compiled, _extras, _formats
from memorywire import _model as m
from memorywire._rules import Walk as _Walk
from memorywire.errors import ValidationError, Violation, escape_token
from memorywire.limits import DEFAULT_LIMITS, Limits

SUPPORTED_MINOR = 0

_SPECVERSION = re.compile(r"([1-9][0-9]*)\.(0|[1-9][0-9]*)")


# -- public API --------------------------------------------------------------


def _version(doc: Any) -> tuple[list[Violation], bool]:
    """Check specversion; return errors and whether the document is of a newer minor."""
    if type(doc) is not dict:
        return [], False
    sv = doc.get("specversion")
    if sv == "1.0" or type(sv) is not str:
        return [], False  # this reader's own version, or a type fault the check reports
    mt = _SPECVERSION.fullmatch(sv)
    if mt is None:
        return [], False
    if mt.group(1) != "1":
        return [Violation("/specversion", "UNSUPPORTED_VERSION",
                          f"specversion {sv} is not a 1.x version; this reader implements "
                          f"1.{SUPPORTED_MINOR}")], False
    return [], int(mt.group(2)) > SUPPORTED_MINOR


def run(doc: Any, type_name: str, limits: Limits = DEFAULT_LIMITS) -> _Walk:
    """Validate a document and return the walk, with its violations and unknown
    members. Unknown members are tolerated only in a document of a newer
    minor version (spec/v1/versioning.md, section 3)."""
    check_fn, is_record, always_tolerant = _checks.get(type_name) or _check_of(type_name)
    errors, newer = _version(doc)
    walk = _Walk(limits, tolerant=newer or always_tolerant)
    if errors:
        walk.errors.extend(errors)
    check_fn(doc, "", walk, 1)
    # An empty specversion is its default: absent (json-format.md section 4).
    if is_record and type(doc) is dict and doc.get("specversion", "") == "":
        walk.fail("/specversion", "REQUIRED_FIELD_MISSING",
                  "a record that is a document of its own carries its specversion")
    if len(walk.errors) > 1:
        walk.errors = walk.ordered()
    return walk


_checks: dict[str, tuple[Any, bool, bool]] = {}


def _check_of(type_name: str) -> tuple[Any, bool, bool]:
    name = m.message(type_name).name
    # An Error carries no specversion: it is read as of a newer minor version
    # (spec/v1/versioning.md), keeping members this reader does not know.
    entry = (_compiled.function("check", type_name), name == "MemoryRecord", name == "Error")
    _checks[type_name] = entry
    return entry


_SURROGATE = re.compile("[\ud800-\udfff]")


def surrogate(node: Any, ptr: str = "") -> str | None:
    """The pointer of the first string (or member name) holding a lone
    surrogate. Decoded documents never hold one; Python code can build one."""
    try:
        # orjson refuses a lone surrogate in any string or member name, in C:
        # a document it writes holds none (an embedding's values cost a
        # walk hundreds of calls long otherwise). What it cannot write (a
        # non-string member name, an integer beyond 64 bits) is walked.
        orjson.dumps(node)
    except TypeError:
        return _surrogate(node, ptr)
    return None


def _surrogate(node: Any, ptr: str) -> str | None:
    t = type(node)
    if t is str:
        return ptr if _SURROGATE.search(node) else None
    if t is dict:
        for key, value in node.items():
            if type(key) is str and _SURROGATE.search(key):
                return ptr
            found = _surrogate(value, f"{ptr}/{escape_token(str(key))}")
            if found is not None:
                return found
    elif t is list:
        for i, value in enumerate(node):
            found = _surrogate(value, f"{ptr}/{i}")
            if found is not None:
                return found
    return None


def _public(doc: Any, type_name: str, limits: Limits) -> _Walk:
    walk = run(doc, type_name, limits)
    pointer = surrogate(doc)
    if pointer is not None:
        walk.fail(pointer, "INVALID_UNICODE", "a string holds a lone surrogate, which UTF-8 cannot carry")
        walk.errors = walk.ordered()
    return walk


def check(doc: Any, type_name: str = "memorywire.v1.MemoryRecord", *,
          limits: Limits = DEFAULT_LIMITS) -> tuple[list[Violation], list[str]]:
    """The violations and the unknown members of a document."""
    walk = _public(doc, type_name, limits)
    return walk.errors, walk.unknown


def iter_errors(doc: Any, *, type: str = "memorywire.v1.MemoryRecord",
                limits: Limits = DEFAULT_LIMITS) -> Iterator[Violation]:
    """Every violation of a document, those of the earliest phase first."""
    yield from _public(doc, type, limits).errors


def validate(doc: Any, *, type: str = "memorywire.v1.MemoryRecord",
             limits: Limits = DEFAULT_LIMITS) -> None:
    """Raise ValidationError if the document breaks a rule of the specification."""
    errors = _public(doc, type, limits).errors
    if errors:
        raise ValidationError(errors[0].reason, errors[0].message, errors)


# -- the reference validator -------------------------------------------------

_KEYWORD_REASONS = {
    "required": "REQUIRED_FIELD_MISSING",
    "additionalProperties": "UNKNOWN_FIELD",
    "enum": "UNKNOWN_ENUM_VALUE",
    "type": "TYPE_MISMATCH",
    "pattern": "PATTERN_MISMATCH",
    "minLength": "LENGTH_OUT_OF_RANGE",
    "maxLength": "LENGTH_OUT_OF_RANGE",
    "minItems": "COUNT_OUT_OF_RANGE",
    "maxItems": "COUNT_OUT_OF_RANGE",
    "maxProperties": "COUNT_OUT_OF_RANGE",
    "minProperties": "REQUIRED_FIELD_MISSING",
    "minimum": "VALUE_OUT_OF_RANGE",
    "maximum": "VALUE_OUT_OF_RANGE",
    "oneOf": "ONEOF_CONFLICT",
    "anyOf": "REQUIRED_FIELD_MISSING",
    "not": "ONEOF_CONFLICT",
    "false": "UNKNOWN_FIELD",
    "format": "INVALID_FORMAT",
}
#: Rules the schema files cannot state; the reference adds them.
_BEYOND_SCHEMA = frozenset({
    "INVALID_TIMESTAMP", "DIMENSION_MISMATCH", "NUMBER_OUT_OF_RANGE", "NON_FINITE_NUMBER",
    "NESTING_TOO_DEEP", "TOO_MANY_ITEMS", "STRING_TOO_LONG",
    "VALUE_OUT_OF_RANGE",  # procedure states
    "INVALID_VECTOR",  # a query vector of norm zero
})
#: The patterns by which the schemas state the formats of the rules.
_FORMAT_PATTERNS = frozenset(_formats.schema_pattern(name) for name in _formats.FORMATS)
#: The newer-minor form of an enum: a name of the enum's syntax, other than "unspecified".
_ENUM_NAME_PATTERN = f"^{_formats.ENUM_NAME}$"


def _reason(e: Any) -> str:
    """The reason of the specification's registry for a jsonschema error."""
    keyword = str(e.validator)
    if keyword == "pattern" and e.validator_value in _FORMAT_PATTERNS:
        return "INVALID_FORMAT"
    if keyword == "pattern" and e.validator_value == f"^{_compiled._BASE64.pattern}$":
        return "INVALID_BASE64"
    if keyword == "pattern" and e.schema.get("title") == "Timestamp":
        return "INVALID_TIMESTAMP"
    if (keyword == "pattern" and e.validator_value == _ENUM_NAME_PATTERN) or (
            keyword == "not" and e.validator_value == {"const": "unspecified"}):
        return "UNKNOWN_ENUM_VALUE"
    if keyword == "not" and list(e.absolute_path) == ["specversion"]:
        return "UNSUPPORTED_VERSION"
    # A document's specversion is present and not empty; a nested record's is
    # absent or empty (json-format.md sections 4 and 9.1).
    if keyword == "minLength" and list(e.absolute_path) == ["specversion"]:
        return "REQUIRED_FIELD_MISSING"
    if keyword == "const" and e.validator_value == "" and list(e.absolute_path)[-1:] == ["specversion"]:
        return "UNKNOWN_FIELD"
    return _KEYWORD_REASONS.get(keyword, "INVALID_ARGUMENT")


def reference_errors(doc: Any, type_name: str = "memorywire.v1.MemoryRecord") -> list[Violation]:
    """The violations the reference validator reports: jsonschema on the
    schema files, then the rules beyond the schema."""
    out = []
    # The schemas read a document of a newer minor version, and an Error, with
    # the tolerance of spec/v1/versioning.md, section 3.2.
    # The oracle runs jsonschema, which the codec does not need.
    try:
        from memorywire import _schemas
    except ImportError as absent:
        if _extras.missing(absent, "oracle"):
            raise ImportError(_extras.install_hint("reference_errors", "oracle"), name=absent.name) from absent
        raise
    for e in _schemas.validator(type_name).iter_errors(doc):
        pointer = "".join("/" + escape_token(str(p)) for p in e.absolute_path)
        if e.validator == "required":
            missing = str(e.message).split("'")[1] if "'" in str(e.message) else ""
            pointer += "/" + escape_token(missing)
        location = "/".join(str(p) for p in e.absolute_schema_path)
        reason = _reason(e)
        if reason == "UNSUPPORTED_VERSION":
            # Whatever else is wrong with it (versioning.md, section 1.4).
            return [Violation(pointer, reason, e.message, schema_location=location)]
        out.append(Violation(pointer, reason, e.message, schema_location=location))
    if not out:
        out = [e for e in run(doc, type_name).errors if e.reason in _BEYOND_SCHEMA]
    return out
