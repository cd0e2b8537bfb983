#!/usr/bin/env python3
"""Build the language-neutral test vectors of the memorywire conformance suite.

The cases are stated in ``conformance/tools/sources/*.py``: each source module
defines ``AREA`` (the PascalCase name of its area), ``DESCRIPTION`` and
``CASES``, a list of :class:`vectorkit.Case`. For every case this program

* checks the case itself: its name, level, type, reason token and the spec
  sections it cites (each MUST exist in ``spec/v1``);
* for a valid case, computes the canonical output in every encoding twice:
  with the independent canonical writers of :mod:`vectorkit` and with the
  reference codec (``memorywire.convert`` from every input), and requires the
  two to agree, byte for byte, from every input;
* for an invalid case, requires the reference codec to reject every input
  with the stated reason and pointer.

A case on which the reference codec departs from the specification is listed
in ``reference_deviations.py``; the vector keeps what the specification says
and the build reports the departure instead of failing. An entry whose case
the reference codec now passes is stale, and fails the build.

The vector files ``conformance/vectors/v1/<Area>.json`` are written with
sorted keys and an indent of two spaces, so that the output is deterministic.

Usage:
  build_vectors.py               write the vector files
  build_vectors.py --check       regenerate in memory; fail if a file differs
                                 or does not validate against vectors.schema.json
  build_vectors.py --self-test   read the vector files and check them against
                                 the reference codec (memorywire.convert and the
                                 decoders)
  build_vectors.py --counts      print the derived case counts per level
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

TOOLS = Path(__file__).resolve().parent
ROOT = TOOLS.parents[1]
SOURCES = TOOLS / "sources"
VECTORS = ROOT / "conformance" / "vectors" / "v1"
SCHEMA = VECTORS / "vectors.schema.json"
SPEC = ROOT / "spec" / "v1"

sys.path.insert(0, str(TOOLS))
sys.path.insert(0, str(SOURCES))

import memorywire as mw  # noqa: E402
import vectorkit as vk  # noqa: E402
from memorywire import json as mw_json  # noqa: E402
from memorywire import msgpack as mw_msgpack  # noqa: E402
from memorywire import protobuf as mw_protobuf  # noqa: E402
from reference_deviations import DEVIATIONS  # noqa: E402

ENC_NAMES = {"json": "Json", "msgpack": "Msgpack", "protobuf": "Protobuf"}
NAME = re.compile(r"^[A-Z][A-Za-z0-9]*$")
SPEC_REF = re.compile(r"^([a-z-]+\.md)#([1-9][0-9]*(?:\.[1-9][0-9]*)*)$")
POINTER = re.compile(r"^(/([^~/]|~[01])*)*$")

#: The reason tokens of operations.md section 3.3 that a reader of a document
#: can report.
READER_REASONS = frozenset("""
SYNTAX_ERROR TRUNCATED TRAILING_DATA INVALID_WIRE_FORMAT INVALID_UTF8 INVALID_UNICODE
DUPLICATE_KEY TYPE_MISMATCH NULL_VALUE UNKNOWN_FIELD UNKNOWN_ENUM_VALUE REQUIRED_FIELD_MISSING
ONEOF_CONFLICT KIND_MISMATCH NON_FINITE_NUMBER NUMBER_OUT_OF_RANGE INVALID_TIMESTAMP
INVALID_BASE64 INVALID_VECTOR DIMENSION_MISMATCH PATTERN_MISMATCH LENGTH_OUT_OF_RANGE
COUNT_OUT_OF_RANGE VALUE_OUT_OF_RANGE INVALID_FORMAT VALUE_KIND_MISSING UNSUPPORTED_VERSION
UNREPRESENTABLE DOCUMENT_TOO_LARGE NESTING_TOO_DEEP STRING_TOO_LONG TOO_MANY_ITEMS
""".split())

#: Sections of the documents of spec/v1 that are cited before the document
#: exists in the tree (the numbered outline of the specification).
OUTLINE = {
    "versioning.md": {"1", "2", "3", "4", "5", "6"},
    "security.md": {"1", "2", "3", "4", "5", "6"},
    "grpc-binding.md": {"1", "2", "3", "4", "5", "6", "7", "8"},
}
SPEC_FILES = ("core.md", "operations.md", "json-format.md", "msgpack-format.md",
              "protobuf-format.md", "grpc-binding.md", "versioning.md", "security.md")


class BuildError(Exception):
    pass


# ---------------------------------------------------------------------------
# Loading
# ---------------------------------------------------------------------------


def load_sources() -> list[Any]:
    modules = []
    for path in sorted(SOURCES.glob("*.py")):
        if path.name.startswith("_"):
            continue
        spec = importlib.util.spec_from_file_location(f"sources.{path.stem}", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
        for attr in ("AREA", "DESCRIPTION", "CASES"):
            if not hasattr(module, attr):
                raise BuildError(f"{path.name}: no {attr}")
        modules.append(module)
    areas = Counter(mod.AREA for mod in modules)
    doubled = [a for a, n in areas.items() if n > 1]
    if doubled:
        raise BuildError(f"areas defined twice: {', '.join(doubled)}")
    return modules


def spec_anchors() -> dict[str, set[str]]:
    anchors: dict[str, set[str]] = {}
    for name in SPEC_FILES:
        path = SPEC / name
        if path.exists():
            anchors[name] = set(re.findall(r'<a id="([0-9.]+)"></a>', path.read_text(encoding="utf-8")))
        else:
            anchors[name] = set(OUTLINE.get(name, ()))
    return anchors


# ---------------------------------------------------------------------------
# Checking and computing one case
# ---------------------------------------------------------------------------


_MODULES = {"json": mw_json, "msgpack": mw_msgpack, "protobuf": mw_protobuf}


def _module(enc: str) -> Any:
    return _MODULES[enc]


def _describe(exc: BaseException) -> str:
    if isinstance(exc, mw.MemorywireError):
        return f"{exc.reason} at {exc.pointer!r}"
    return f"crash {type(exc).__name__}: {exc}"


def check_case_form(case: vk.Case, anchors: dict[str, set[str]]) -> list[str]:
    errors = []
    if not NAME.match(case.name):
        errors.append(f"name {case.name!r} is not PascalCase")
    if case.level not in vk.LEVELS:
        errors.append(f"level {case.level!r}")
    if not case.description.strip():
        errors.append("no description")
    if not case.spec:
        errors.append("no spec section")
    for ref in case.spec:
        mt = SPEC_REF.match(ref)
        if mt is None or mt.group(1) not in anchors:
            errors.append(f"spec reference {ref!r} is malformed")
        elif mt.group(2) not in anchors[mt.group(1)]:
            errors.append(f"spec reference {ref!r}: no such section in spec/v1/{mt.group(1)}")
    try:
        vk.info(case.type)
    except KeyError:
        errors.append(f"no message type {case.type!r}")
    if not case.valid:
        if case.reason not in READER_REASONS:
            errors.append(f"reason {case.reason!r} is not a reader reason")
        if not POINTER.match(case.pointer):
            errors.append(f"pointer {case.pointer!r} is not a JSON Pointer")
    for enc, (reason, pointer) in case.conversion_errors.items():
        if enc not in vk.ENCODINGS or reason not in READER_REASONS or not POINTER.match(pointer):
            errors.append(f"conversion error {enc}: {reason} {pointer!r}")
    return errors


def expected_outputs(case: vk.Case) -> dict[str, bytes]:
    """The canonical outputs the specification gives: stated by the source,
    or computed by the independent writers."""
    out = dict(case.canonical)
    for enc in vk.ENCODINGS:
        if enc in out or enc in case.conversion_errors:
            continue
        assert case.doc is not None
        if enc == "json":
            out[enc] = vk.canonical_json(case.doc, case.type)
        elif enc == "msgpack":
            out[enc] = vk.canonical_msgpack(case.doc, case.type)
        else:
            out[enc] = vk.canonical_protobuf(case.doc, case.type)
    return out


def reference_problems(case: vk.Case, expected: dict[str, bytes]) -> list[str]:
    """Where the reference codec departs from the case."""
    problems = []
    for enc_in, data in case.inputs.items():
        if case.valid:
            try:
                _module(enc_in).decode(data, type=case.type)
            except Exception as e:  # noqa: BLE001
                problems.append(f"{enc_in} input: rejected ({_describe(e)}); the case is valid")
                continue
            for enc_out in vk.ENCODINGS:
                try:
                    got = mw.convert(data, source=enc_in, target=enc_out, type=case.type)
                except Exception as e:  # noqa: BLE001
                    if enc_out in case.conversion_errors:
                        want = case.conversion_errors[enc_out]
                        if not (isinstance(e, mw.MemorywireError) and (e.reason, e.pointer) == want):
                            problems.append(f"{enc_in}->{enc_out}: {_describe(e)}; expected {want[0]} at {want[1]!r}")
                    else:
                        problems.append(f"{enc_in}->{enc_out}: {_describe(e)}; expected a conversion")
                    continue
                if enc_out in case.conversion_errors:
                    want = case.conversion_errors[enc_out]
                    problems.append(f"{enc_in}->{enc_out}: converted; expected {want[0]} at {want[1]!r}")
                elif got != expected[enc_out]:
                    problems.append(f"{enc_in}->{enc_out}: wrote {_show(enc_out, got)}; "
                                    f"expected {_show(enc_out, expected[enc_out])}")
        else:
            try:
                _module(enc_in).decode(data, type=case.type)
            except Exception as e:  # noqa: BLE001
                if not (isinstance(e, mw.MemorywireError) and (e.reason, e.pointer) == (case.reason, case.pointer)):
                    problems.append(f"{enc_in} input: {_describe(e)}; expected {case.reason} at {case.pointer!r}")
            else:
                problems.append(f"{enc_in} input: accepted; expected {case.reason} at {case.pointer!r}")
    return problems


def _show(enc: str, data: bytes) -> str:
    if enc == "json":
        text = data.decode("utf-8", "replace")
        return text if len(text) < 400 else text[:400] + "…"
    h = data.hex()
    return h if len(h) < 400 else h[:400] + "…"


def self_consistency(case: vk.Case, expected: dict[str, bytes]) -> list[str]:
    """Canonical outputs are stable: the independent writers reproduce each
    from the others (read back through the reference decoders when they
    accept it)."""
    problems: list[str] = []
    if case.conversion_errors or case.canonical:
        return problems
    for enc, data in expected.items():
        try:
            doc = _module(enc).decode(data, type=case.type)
        except Exception:  # noqa: BLE001
            continue
        again = vk.canonical(doc, case.type)
        for enc_out, out in again.items():
            if out != expected[enc_out]:
                problems.append(f"canonical {enc} read back and written as {enc_out} differs")
    return problems


# ---------------------------------------------------------------------------
# Vector documents
# ---------------------------------------------------------------------------


def encode_input(enc: str, data: bytes) -> dict[str, str]:
    if enc == "json":
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            return {"hex": data.hex()}
        if text.encode("utf-8") == data:
            return {"text": text}
        return {"hex": data.hex()}
    return {"hex": data.hex()}


def decode_input(value: dict[str, str]) -> bytes:
    if "text" in value:
        return value["text"].encode("utf-8")
    return bytes.fromhex(value["hex"])


def case_document(case: vk.Case, expected: dict[str, bytes] | None) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "name": case.name,
        "description": case.description,
        "spec": case.spec,
        "level": case.level,
        "type": case.type,
        "inputs": {enc: encode_input(enc, data) for enc, data in case.inputs.items()},
    }
    if case.valid:
        assert expected is not None
        canonical = {}
        for enc, data in expected.items():
            canonical[enc] = data.decode("utf-8") if enc == "json" else data.hex()
        exp: dict[str, Any] = {"valid": True, "canonical": canonical}
        if case.conversion_errors:
            exp["conversion_errors"] = {enc: {"reason": r, "pointer": p}
                                        for enc, (r, p) in case.conversion_errors.items()}
        doc["expected"] = exp
    else:
        doc["expected"] = {"valid": False, "reason": case.reason, "pointer": case.pointer}
    return doc


def render(document: dict[str, Any]) -> str:
    return json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


# ---------------------------------------------------------------------------
# Counting derived cases (the ids the runner derives)
# ---------------------------------------------------------------------------


def derived_ids(area: str, case: dict[str, Any]) -> list[tuple[str, str]]:
    """(level, id) of every case the runner derives from one vector case."""
    level = case["level"].capitalize()
    out = []
    exp = case["expected"]
    for enc_in in case["inputs"]:
        stem = f"{area}.{case['name']}.{ENC_NAMES[enc_in]}Input"
        if exp["valid"]:
            out.append((case["level"], f"{level}.{stem}.Accepted"))
            for enc_out in vk.ENCODINGS:
                out.append((case["level"], f"{level}.{stem}.{ENC_NAMES[enc_out]}Output"))
                if enc_out in exp.get("conversion_errors", {}):
                    out.append(("recommended", f"Recommended.{stem}.{ENC_NAMES[enc_out]}Output.ErrorReason"))
        else:
            out.append((case["level"], f"{level}.{stem}.Rejected"))
            out.append(("recommended", f"Recommended.{stem}.ErrorReason"))
    return out


# ---------------------------------------------------------------------------
# Main
# ---------------------------------------------------------------------------


def build(verbose: bool = False) -> tuple[dict[str, str], list[str], dict[str, list[str]]]:
    """Build every vector file in memory. Returns the files, the failures and
    the departures of the reference codec that reference_deviations.py lists."""
    anchors = spec_anchors()
    files: dict[str, str] = {}
    failures: list[str] = []
    departures: dict[str, list[str]] = {}
    seen_deviations: set[str] = set()
    for module in load_sources():
        area = module.AREA
        if not NAME.match(area):
            failures.append(f"area {area!r} is not PascalCase")
        names: set[str] = set()
        cases_out = []
        for case in module.CASES:
            key = f"{area}.{case.name}"
            if case.name in names:
                failures.append(f"{key}: defined twice")
            names.add(case.name)
            form = check_case_form(case, anchors)
            if form:
                failures.extend(f"{key}: {e}" for e in form)
                continue
            expected = None
            if case.valid:
                try:
                    expected = expected_outputs(case)
                except vk.AuthoringError as e:
                    failures.append(f"{key}: {e}")
                    continue
                failures.extend(f"{key}: {p}" for p in self_consistency(case, expected))
            problems = reference_problems(case, expected or {})
            if key in DEVIATIONS:
                seen_deviations.add(key)
                if problems:
                    departures[key] = problems
                else:
                    failures.append(f"{key}: listed in reference_deviations.py, but the reference "
                                    "codec now agrees with the vector; remove the entry")
            elif problems:
                failures.extend(f"{key}: reference codec: {p}" for p in problems)
            cases_out.append(case_document(case, expected))
        document = {"area": area, "description": module.DESCRIPTION, "cases": cases_out}
        files[f"{area}.json"] = render(document)
    for key in sorted(set(DEVIATIONS) - seen_deviations):
        failures.append(f"{key}: listed in reference_deviations.py but no such case")
    return files, failures, departures


def validate_files(files: dict[str, str]) -> list[str]:
    """A problem for every file that is not JSON or breaks vectors.schema.json."""
    from jsonschema import (  # type: ignore[import-untyped,unused-ignore]
        Draft202012Validator,
    )

    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    validator = Draft202012Validator(schema)
    errors = []
    for name, text in sorted(files.items()):
        try:
            document = json.loads(text)
        except ValueError as e:
            errors.append(f"{name}: not valid JSON: {e}")
            continue
        for error in validator.iter_errors(document):
            where = "/".join(str(p) for p in error.absolute_path)
            errors.append(f"{name}: /{where}: {error.message[:200]}")
    return errors


def counts(files: dict[str, str]) -> tuple[Counter[str], dict[str, Counter[str]], Counter[str]]:
    total: Counter[str] = Counter()
    per_area: dict[str, Counter[str]] = {}
    vectors: Counter[str] = Counter()
    ids: set[str] = set()
    for _name, text in sorted(files.items()):
        doc = json.loads(text)
        c: Counter[str] = Counter()
        for case in doc["cases"]:
            vectors["valid" if case["expected"]["valid"] else "invalid"] += 1
            for level, cid in derived_ids(doc["area"], case):
                if cid in ids:
                    raise BuildError(f"derived case id {cid} is not unique")
                ids.add(cid)
                c[level] += 1
                total[level] += 1
        per_area[doc["area"]] = c
    return total, per_area, vectors


def not_utf8() -> list[str]:
    """A problem for every vector file on disk whose bytes are not UTF-8."""
    problems = []
    for path in vector_paths():
        try:
            path.read_bytes().decode("utf-8")
        except UnicodeDecodeError as e:
            problems.append(f"{path.name}: not UTF-8 (byte {e.start})")
    return problems


def vector_paths() -> list[Path]:
    return [p for p in sorted(VECTORS.glob("*.json")) if p.name != SCHEMA.name]


def read_files() -> dict[str, str]:
    """The vector files on disk by name. Bytes that are not UTF-8 read as
    U+FFFD, so such a file never equals what the sources give."""
    return {p.name: p.read_bytes().decode("utf-8", "replace") for p in vector_paths()}


def self_test() -> list[str]:
    """Check the vector files as written against the reference codec."""
    problems: list[str] = []
    for name, text in sorted(read_files().items()):
        try:
            doc = json.loads(text)
        except ValueError as e:
            problems.append(f"{name}: not valid JSON: {e}")
            continue
        area = doc["area"]
        for case in doc["cases"]:
            key = f"{area}.{case['name']}"
            typ = case["type"]
            exp = case["expected"]
            found = []
            if exp["valid"]:
                canonical = {enc: (v.encode("utf-8") if enc == "json" else bytes.fromhex(v))
                             for enc, v in exp["canonical"].items()}
                sources = dict(canonical)
                sources.update({f"input:{enc}": decode_input(v) for enc, v in case["inputs"].items()})
                for src_name, data in sources.items():
                    enc_in = src_name.split(":")[-1]
                    for enc_out in vk.ENCODINGS:
                        try:
                            got = mw.convert(data, source=enc_in, target=enc_out, type=typ)
                        except Exception as e:  # noqa: BLE001
                            err = exp.get("conversion_errors", {}).get(enc_out)
                            # The pointer of a conversion error names the first unknown content in the
                            # order of the input, so it is checked only for the case's own inputs.
                            want = (err["reason"], err["pointer"] if src_name.startswith("input:") else None) \
                                if err else None
                            raised = (e.reason, e.pointer if want and want[1] is not None else None) \
                                if isinstance(e, mw.MemorywireError) else None
                            if want is None or raised != want:
                                found.append(f"{src_name}->{enc_out}: {_describe(e)}")
                            continue
                        if enc_out in exp.get("conversion_errors", {}):
                            found.append(f"{src_name}->{enc_out}: converted; expected "
                                         f"{exp['conversion_errors'][enc_out]['reason']}")
                        elif got != canonical[enc_out]:
                            found.append(f"{src_name}->{enc_out}: output differs")
            else:
                for enc, v in case["inputs"].items():
                    try:
                        _module(enc).decode(decode_input(v), type=typ)
                    except Exception as e:  # noqa: BLE001
                        if not (isinstance(e, mw.MemorywireError)
                                and (e.reason, e.pointer) == (exp["reason"], exp["pointer"])):
                            found.append(f"{enc}: {_describe(e)}; expected {exp['reason']} at {exp['pointer']!r}")
                    else:
                        found.append(f"{enc}: accepted")
            if found and key not in DEVIATIONS:
                problems.extend(f"{key}: {f}" for f in found)
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="fail if the vector files are not what the sources give")
    parser.add_argument("--self-test", action="store_true",
                        help="check the written vector files against the reference codec")
    parser.add_argument("--counts", action="store_true", help="print derived case counts per area")
    parser.add_argument("--verbose", "-v", action="store_true",
                        help="print the departures of the reference codec")
    args = parser.parse_args(argv)

    if args.self_test:
        problems = self_test()
        for p in problems:
            print(p)
        print(f"self-test: {len(problems)} problem(s) outside reference_deviations.py")
        return 1 if problems else 0

    try:
        files, failures, departures = build(args.verbose)
    except BuildError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    failures.extend(validate_files(files))
    if args.verbose:
        for key, problems in sorted(departures.items()):
            print(f"{key}: the reference codec departs from the specification ({DEVIATIONS[key]}):")
            for p in problems:
                print(f"    {p}")
    if failures:
        for f in failures:
            print(f"error: {f}", file=sys.stderr)
        print(f"{len(failures)} error(s)", file=sys.stderr)
        return 1

    if args.check:
        on_disk = read_files()
        stale = [name for name, text in files.items() if on_disk.get(name) != text]
        stale.extend(sorted(set(on_disk) - set(files)))
        invalid = not_utf8() + validate_files(on_disk)
        if stale or invalid:
            for name in stale:
                print(f"out of date: {name}", file=sys.stderr)
            for problem in invalid:
                print(f"invalid: {problem}", file=sys.stderr)
            print("run conformance/tools/build_vectors.py to refresh the vectors", file=sys.stderr)
            return 1
    else:
        VECTORS.mkdir(parents=True, exist_ok=True)
        for name in sorted(set(read_files()) - set(files)):
            (VECTORS / name).unlink()
        for name, text in files.items():
            path = VECTORS / name
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                path.write_text(text, encoding="utf-8")

    total, per_area, vectors = counts(files)
    if args.counts:
        for area, c in sorted(per_area.items()):
            print(f"  {area:20} required {c['required']:5}  recommended {c['recommended']:5}")
    print(f"{len(files)} files, {vectors['valid']} valid and {vectors['invalid']} invalid vectors; "
          f"derived cases: {total['required']} required, {total['recommended']} recommended, "
          f"{total['required'] + total['recommended']} in all; "
          f"{len(departures)} case(s) where the reference codec departs from the specification")
    return 0


if __name__ == "__main__":
    sys.exit(main())
