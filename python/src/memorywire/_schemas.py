"""The v1 JSON Schemas shipped with the package, and validators built on them."""

from __future__ import annotations

import functools
import json
from importlib import resources
from typing import Any

from jsonschema import Draft202012Validator, ValidationError, validators
from referencing import Registry
from referencing.jsonschema import DRAFT202012

BASE = "https://memorywire.dev/schemas/v1/"
PACKAGE = "memorywire.v1."
#: The form of each message and enum in a document of a newer minor version.
NEWER_MINOR = "#/$defs/newer-minor"


def _schema_dir() -> Any:
    return resources.files("memorywire").joinpath("schemas", "v1")


@functools.cache
def registry() -> Registry[Any]:
    """A registry holding every schema of schemas/v1, by $id."""
    pairs = []
    for entry in _schema_dir().iterdir():
        if entry.name.endswith(".schema.json"):
            contents = json.loads(entry.read_text(encoding="utf-8"))
            # Without their own "$schema", referenced schemas are checked by the
            # validator of the referring one, with its ECMA-262 patterns,
            # formats and integers, instead of a stock 2020-12 validator.
            contents.pop("$schema", None)
            pairs.append((contents["$id"], DRAFT202012.create_resource(contents)))
    return Registry().with_resources(pairs)


def kebab(name: str) -> str:
    return "".join("-" + c.lower() if c.isupper() else c for c in name).lstrip("-")


def schema_file(type_name: str) -> str:
    """The schema file of a top-level document of the given message type.

    A MemoryRecord at the top level is a record document, which carries its
    specversion.
    """
    short = type_name.removeprefix(PACKAGE)
    if short == "MemoryRecord":
        return "record-document.schema.json"
    return kebab(short) + ".schema.json"


def schema(type_name: str) -> dict[str, Any]:
    """The schema of a top-level document of the given message type.

    An Error carries no specversion and, without a version from its context,
    is read as a document of a newer minor version (spec/v1/versioning.md,
    section 1.2): its schema is the newer-minor form of error.schema.json.
    """
    if type_name.removeprefix(PACKAGE) == "Error":
        return {"$schema": "https://json-schema.org/draft/2020-12/schema",
                "$ref": BASE + schema_file(type_name) + NEWER_MINOR}
    contents: dict[str, Any] = dict(registry().contents(BASE + schema_file(type_name)))
    contents["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    return contents


def _pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Any:
    # ECMA-262 semantics, which JSON Schema prescribes: "$" matches only at
    # the end, where Python's also matches before a final line feed.
    from memorywire._model import _js_pattern

    if isinstance(instance, str) and _js_pattern(pattern).search(instance) is None:
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def _is_integer(checker: Any, instance: Any) -> bool:
    # The JSON mapping keeps integers apart from floats: 7.0 is a float, which
    # an integer field refuses (spec/v1/json-format.md, section 3.2).
    return isinstance(instance, int) and not isinstance(instance, bool)


_Reference = validators.extend(
    Draft202012Validator, {"pattern": _pattern},
    type_checker=Draft202012Validator.TYPE_CHECKER.redefine("integer", _is_integer))


@functools.cache
def validator(type_name: str) -> Any:
    """The reference (jsonschema) validator of a top-level document type: the
    2020-12 validator, with ECMA-262 patterns. The schemas state the formats
    of the rules as patterns, so no format checker is needed."""
    return _Reference(schema(type_name), registry=registry())
