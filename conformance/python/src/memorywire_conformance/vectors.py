"""The test vectors: finding, loading and checking them, and the case ids of the codec suite.

A vector directory (conformance/vectors/v1 in the memorywire repository) holds
``vectors.schema.json``, the meta-schema, and one ``<Area>.json`` file per area.
Every vector becomes several cases, one per input encoding and check:

* a valid vector: ``Level.Area.Name.<Enc>Input.Accepted`` (a validate-only
  request answered ``valid``) and ``Level.Area.Name.<Enc>Input.<Enc>Output``
  for every canonical output it lists (the output compared byte for byte);
  for an output encoding listed in ``conversion_errors`` instead (content the
  output encoding cannot carry), ``Level.Area.Name.<Enc>Input.<Enc>Output``
  passes when the conversion is answered ``invalid`` and
  ``Recommended.Area.Name.<Enc>Input.<Enc>Output.ErrorReason`` compares the
  reason and pointer;
* an invalid vector: ``Level.Area.Name.<Enc>Input.Rejected`` (a validate-only
  request answered ``invalid``, whatever the reason) and
  ``Recommended.Area.Name.<Enc>Input.ErrorReason`` (reason and pointer equal to
  the expected ones), recommended whatever the level of the vector.

``Enc`` is ``Json``, ``Msgpack`` or ``Protobuf``.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

from memorywire_conformance.cases import LEVELS, Case, level_label

__all__ = [
    "ENCODINGS",
    "META_SCHEMA",
    "VECTORS_ENV",
    "VECTORS_PATH",
    "CodecCase",
    "Vector",
    "VectorError",
    "VectorSet",
    "check_spec_sections",
    "codec_cases",
    "find_spec_dir",
    "find_vectors_dir",
    "load_vectors",
]

ENCODINGS = ("json", "msgpack", "protobuf")
ENCODING_LABELS = {"json": "Json", "msgpack": "Msgpack", "protobuf": "Protobuf"}
#: The environment variable naming the vector directory.
VECTORS_ENV = "MEMORYWIRE_CONFORMANCE_VECTORS"
#: Where the vectors live in a checkout of the memorywire repository.
VECTORS_PATH = Path("conformance", "vectors", "v1")
#: The file name of the meta-schema in the vector directory.
META_SCHEMA = "vectors.schema.json"
SPEC_PATH = Path("spec", "v1")

CONVERT = "convert"
ACCEPT = "accept"
REJECT = "reject"
ERROR_REASON = "error-reason"


class VectorError(Exception):
    """The vectors cannot be found or do not follow the meta-schema."""

    def __init__(self, problems: str | list[str]) -> None:
        self.problems = [problems] if isinstance(problems, str) else list(problems)
        super().__init__("\n".join(self.problems))


@dataclass(frozen=True)
class Vector:
    """One case entry of a vector file, its bytes decoded."""

    area: str
    name: str
    description: str
    spec: tuple[str, ...]
    level: str
    type: str
    #: The exact input bytes per encoding.
    inputs: Mapping[str, bytes]
    valid: bool
    #: For a valid vector, the exact canonical bytes per output encoding.
    canonical: Mapping[str, bytes]
    #: For a valid vector, the output encodings to which a conversion MUST
    #: fail, with the expected reason token and JSON Pointer.
    conversion_errors: Mapping[str, tuple[str, str]]
    #: For an invalid vector, the expected reason token and JSON Pointer.
    reason: str | None
    pointer: str | None
    #: The vector file and the JSON Pointer of the entry in it.
    source: str


@dataclass(frozen=True)
class CodecCase(Case):
    """A case of the codec suite."""

    vector: Vector
    #: "convert" (the output equals the canonical bytes), "accept" (answered
    #: valid), "reject" (answered invalid) or "error-reason" (answered invalid
    #: with the expected reason and pointer).
    check: str
    input: str
    #: The output encoding of the request; None for a validate-only request.
    output: str | None
    #: The reason and pointer a "reject" or "error-reason" case expects.
    reason: str | None = None
    pointer: str | None = None


@dataclass(frozen=True)
class VectorSet:
    """The loaded vectors of a directory."""

    directory: Path
    files: tuple[Path, ...]
    vectors: tuple[Vector, ...]

    def cases(self) -> list[CodecCase]:
        return codec_cases(self.vectors)


# Finding the vectors.


def _has_vectors(path: Path) -> bool:
    return (path / META_SCHEMA).is_file()


def find_vectors_dir(explicit: str | os.PathLike[str] | None = None, *,
                     env: Mapping[str, str] | None = None,
                     cwd: str | os.PathLike[str] | None = None,
                     here: str | os.PathLike[str] | None = None) -> Path:
    """The vector directory, the first of:

    1. ``explicit`` (``--vectors DIR``): a vector directory, or a folder that
       holds conformance/vectors/v1;
    2. the environment variable MEMORYWIRE_CONFORMANCE_VECTORS, the same way;
    3. the first folder holding conformance/vectors/v1 from the current
       directory upwards;
    4. the same from the runner's own source files upwards (an editable
       install or a checkout).
    """
    environ = os.environ if env is None else env
    for label, given in (("--vectors", explicit), (VECTORS_ENV, environ.get(VECTORS_ENV))):
        if given:
            path = Path(given).expanduser().resolve()
            if _has_vectors(path):
                return path
            if _has_vectors(path / VECTORS_PATH):
                return path / VECTORS_PATH
            raise VectorError(f"{label} {given}: no {META_SCHEMA} there "
                              f"nor in {VECTORS_PATH} below it")
    starts = [Path(cwd) if cwd is not None else Path.cwd(),
              Path(here) if here is not None else Path(__file__)]
    for start in starts:
        for folder in (start.resolve(), *start.resolve().parents):
            if _has_vectors(folder / VECTORS_PATH):
                return folder / VECTORS_PATH
    raise VectorError(
        f"cannot find the test vectors: pass --vectors DIR, set {VECTORS_ENV}, or run from "
        f"a checkout of memorywire (a folder holding {VECTORS_PATH.as_posix()})")


# Loading.


def _strict_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"the member {key!r} appears twice")
        out[key] = value
    return out


def _read_json(path: Path) -> Any:
    return json.loads(path.read_text("utf-8"), object_pairs_hook=_strict_object)


def vector_files(directory: Path) -> list[Path]:
    """The vector files of a directory: every ``*.json`` but the meta-schema."""
    return sorted(p for p in directory.glob("*.json") if p.name != META_SCHEMA)


def _pointer(path: Iterable[Any]) -> str:
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


def _bytes_of(spec: Any, encoding: str) -> bytes:
    """Bytes given as {"text": ...} or {"hex": ...}, or as a bare string: text
    for JSON, hex for the binary encodings."""
    if isinstance(spec, Mapping):
        if "hex" in spec:
            return bytes.fromhex(spec["hex"])
        return str(spec["text"]).encode("utf-8")
    if isinstance(spec, str):
        return spec.encode("utf-8") if encoding == "json" else bytes.fromhex(spec)
    raise ValueError(f"not a byte string: {spec!r}")


def load_vectors(directory: str | os.PathLike[str]) -> VectorSet:
    """Load and check every vector file of a directory; VectorError lists every problem."""
    directory = Path(directory)
    problems: list[str] = []
    try:
        meta = _read_json(directory / META_SCHEMA)
        Draft202012Validator.check_schema(meta)
    except (OSError, ValueError) as e:
        raise VectorError(f"{directory / META_SCHEMA}: {e}") from None
    except Exception as e:  # jsonschema.SchemaError
        raise VectorError(f"{directory / META_SCHEMA}: not a JSON Schema: {e}") from None
    validator = Draft202012Validator(meta)
    files = vector_files(directory)
    if not files:
        raise VectorError(f"{directory}: no vector files")
    vectors: list[Vector] = []
    for path in files:
        try:
            document = _read_json(path)
        except (OSError, ValueError) as e:
            problems.append(f"{path.name}: {e}")
            continue
        errors = sorted(validator.iter_errors(document), key=lambda e: list(e.absolute_path))
        for error in errors:
            problems.append(f"{path.name}: {_pointer(error.absolute_path) or '/'}: {error.message}")
        if errors:
            continue
        for index, entry in enumerate(document["cases"]):
            where = f"{path.name}#/cases/{index}"
            try:
                vectors.append(_vector(document["area"], entry, where))
            except (KeyError, TypeError, ValueError) as e:
                problems.append(f"{where}: {e}")
    seen: dict[str, str] = {}
    for vector in vectors:
        key = f"{vector.area}.{vector.name}"
        if key in seen:
            problems.append(f"{vector.source}: the name {vector.name} is already used in the "
                            f"area {vector.area} by {seen[key]}")
        seen.setdefault(key, vector.source)
    ids: dict[str, str] = {}
    for case in codec_cases(vectors):
        if case.id in ids and ids[case.id] != case.vector.source:
            problems.append(f"{case.vector.source}: the case id {case.id} is also made by "
                            f"{ids[case.id]}")
        ids.setdefault(case.id, case.vector.source)
    if problems:
        raise VectorError(problems)
    return VectorSet(directory, tuple(files), tuple(vectors))


def _vector(area: str, entry: Mapping[str, Any], where: str) -> Vector:
    level = entry["level"]
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}")
    inputs = {}
    for encoding, spec in entry["inputs"].items():
        if encoding not in ENCODINGS:
            raise ValueError(f"unknown input encoding {encoding!r}")
        try:
            inputs[encoding] = _bytes_of(spec, encoding)
        except UnicodeEncodeError:
            raise ValueError(f"the {encoding} input text is not encodable as UTF-8; "
                             "give it as hex") from None
    expected = entry["expected"]
    canonical = {}
    conversion_errors = {}
    if expected["valid"]:
        for encoding, spec in expected.get("canonical", {}).items():
            if encoding not in ENCODINGS:
                raise ValueError(f"unknown output encoding {encoding!r}")
            canonical[encoding] = _bytes_of(spec, encoding)
        for encoding, error in expected.get("conversion_errors", {}).items():
            if encoding not in ENCODINGS:
                raise ValueError(f"unknown output encoding {encoding!r}")
            if encoding in canonical:
                raise ValueError(f"the {encoding} output is both canonical and an error")
            conversion_errors[encoding] = (error["reason"], error["pointer"])
    return Vector(
        area=area,
        name=entry["name"],
        description=entry.get("description", ""),
        spec=tuple(entry.get("spec", ())),
        level=level,
        type=entry["type"],
        inputs=inputs,
        valid=bool(expected["valid"]),
        canonical=canonical,
        conversion_errors=conversion_errors,
        reason=None if expected["valid"] else expected.get("reason"),
        pointer=None if expected["valid"] else expected.get("pointer"),
        source=where,
    )


# Case ids.


def codec_cases(vectors: Iterable[Vector]) -> list[CodecCase]:
    """The cases of the codec suite, in a stable order: vector by vector, input
    encoding by input encoding (json, msgpack, protobuf), the validate-only
    checks before the conversions."""
    cases = []
    for vector in vectors:
        level = level_label(vector.level)
        for source in ENCODINGS:
            if source not in vector.inputs:
                continue
            base = f"{vector.area}.{vector.name}.{ENCODING_LABELS[source]}Input"

            def case(id: str, level: str, check: str, output: str | None,
                     error: tuple[str | None, str | None] = (None, None),
                     vector: Vector = vector, source: str = source) -> CodecCase:
                return CodecCase(id=id, suite="codec", level=level, area=vector.area,
                                 name=vector.name, spec=vector.spec,
                                 description=vector.description, vector=vector, check=check,
                                 input=source, output=output, reason=error[0], pointer=error[1])

            if vector.valid:
                cases.append(case(f"{level}.{base}.Accepted", vector.level, ACCEPT, None))
                for target in ENCODINGS:
                    out = f"{base}.{ENCODING_LABELS[target]}Output"
                    if target in vector.canonical:
                        cases.append(case(f"{level}.{out}", vector.level, CONVERT, target))
                    elif target in vector.conversion_errors:
                        error = vector.conversion_errors[target]
                        cases.append(case(f"{level}.{out}", vector.level, REJECT, target, error))
                        cases.append(case(f"Recommended.{out}.ErrorReason", "recommended",
                                          ERROR_REASON, target, error))
            else:
                rejection = (vector.reason, vector.pointer)
                cases.append(case(f"{level}.{base}.Rejected", vector.level, REJECT, None,
                                  rejection))
                cases.append(case(f"Recommended.{base}.ErrorReason", "recommended",
                                  ERROR_REASON, None, rejection))
    return cases


# Spec sections.


def find_spec_dir(start: Path) -> Path | None:
    """The spec/v1 folder of the checkout holding ``start``, if any."""
    for folder in (start.resolve(), *start.resolve().parents):
        if (folder / SPEC_PATH).is_dir():
            return folder / SPEC_PATH
    return None


_ANCHOR = re.compile(r"""\bid\s*=\s*["']([^"']+)["']""")
_HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$")
_NUMBER = re.compile(r"^(?:<a [^>]*></a>\s*)?(\d+(?:\.\d+)*)\.?\s")


def _slug(heading: str) -> str:
    text = re.sub(r"<[^>]+>", "", heading).strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    anchors: set[str] = set()
    for line in path.read_text("utf-8").splitlines():
        anchors.update(_ANCHOR.findall(line))
        heading = _HEADING.match(line)
        if heading:
            number = _NUMBER.match(heading.group(1))
            if number:
                anchors.add(number.group(1))
            anchors.add(_slug(heading.group(1)))
    return anchors


def check_spec_sections(vectors: Iterable[Vector], spec_dir: Path) -> list[str]:
    """A problem for every cited section that spec_dir does not have: a missing
    document, or a fragment that is neither an anchor, a section number nor a
    heading slug of it."""
    problems = []
    cache: dict[str, set[str] | None] = {}
    for vector in vectors:
        for ref in vector.spec:
            document, _, fragment = ref.partition("#")
            if document not in cache:
                path = spec_dir / document
                cache[document] = _anchors(path) if path.is_file() else None
            anchors = cache[document]
            if anchors is None:
                problems.append(f"{vector.source}: {ref}: no document {document} in {spec_dir}")
            elif fragment and fragment not in anchors:
                problems.append(f"{vector.source}: {ref}: {document} has no section {fragment}")
    return problems
