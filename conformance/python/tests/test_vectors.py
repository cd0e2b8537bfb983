"""Finding, loading and checking vectors; the case ids."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from runner_support import DATA, REPO

from memorywire_conformance.vectors import (
    META_SCHEMA,
    VECTORS_ENV,
    VectorError,
    check_spec_sections,
    find_spec_dir,
    find_vectors_dir,
    load_vectors,
)


@pytest.fixture(scope="module")
def vectors():
    return load_vectors(DATA)


def ids_of(vectors, area: str, name: str) -> list[str]:
    return [c.id for c in vectors.cases() if c.area == area and c.name == name]


def test_case_ids_of_a_valid_vector(vectors):
    assert ids_of(vectors, "Timestamps", "NanosecondPrecision") == [
        f"Required.Timestamps.NanosecondPrecision.{i}Input.{o}"
        for i in ("Json", "Msgpack", "Protobuf")
        for o in ("Accepted", "JsonOutput", "MsgpackOutput", "ProtobufOutput")
    ]


def test_case_ids_of_an_invalid_vector(vectors):
    assert ids_of(vectors, "Enums", "UnknownRole") == [
        "Required.Enums.UnknownRole.JsonInput.Rejected",
        "Recommended.Enums.UnknownRole.JsonInput.ErrorReason",
        "Required.Enums.UnknownRole.MsgpackInput.Rejected",
        "Recommended.Enums.UnknownRole.MsgpackInput.ErrorReason",
    ]
    levels = {c.id.split(".")[0]: c.level for c in vectors.cases() if c.area == "Enums"}
    assert levels == {"Required": "required", "Recommended": "recommended"}


def test_case_ids_with_conversion_errors(vectors):
    assert ids_of(vectors, "Versioning", "NewerMinorUnknownMember") == [
        "Required.Versioning.NewerMinorUnknownMember.JsonInput.Accepted",
        "Required.Versioning.NewerMinorUnknownMember.JsonInput.JsonOutput",
        "Required.Versioning.NewerMinorUnknownMember.JsonInput.MsgpackOutput",
        "Recommended.Versioning.NewerMinorUnknownMember.JsonInput.MsgpackOutput.ErrorReason",
        "Required.Versioning.NewerMinorUnknownMember.JsonInput.ProtobufOutput",
        "Recommended.Versioning.NewerMinorUnknownMember.JsonInput.ProtobufOutput.ErrorReason",
    ]
    case = next(c for c in vectors.cases() if c.id.endswith("MsgpackOutput.ErrorReason"))
    assert (case.check, case.output, case.reason, case.pointer) == (
        "error-reason", "msgpack", "UNREPRESENTABLE", "/future")


def test_recommended_vectors_keep_their_level(vectors):
    assert {c.id.split(".")[0] for c in vectors.cases() if c.area == "Floats"
            and c.name == "ImportanceHalf"} == {"Recommended"}


def test_inputs_and_outputs_are_exact_bytes(vectors):
    vector = next(v for v in vectors.vectors if v.name == "NanosecondPrecision")
    raw = json.loads((DATA / "Timestamps.json").read_text("utf-8"))["cases"][0]
    assert vector.inputs["json"] == raw["inputs"]["json"]["text"].encode("utf-8")
    assert vector.inputs["protobuf"] == bytes.fromhex(raw["inputs"]["protobuf"]["hex"])
    assert vector.canonical["msgpack"] == bytes.fromhex(raw["expected"]["canonical"]["msgpack"])


def test_ids_are_unique(vectors):
    ids = [c.id for c in vectors.cases()]
    assert len(ids) == len(set(ids))


# Finding the vectors.


def test_explicit_directory_wins(tmp_path, monkeypatch):
    monkeypatch.setenv(VECTORS_ENV, str(tmp_path / "nowhere"))
    assert find_vectors_dir(DATA) == DATA


def test_explicit_checkout_root(tmp_path):
    target = tmp_path / "conformance" / "vectors" / "v1"
    shutil.copytree(DATA, target)
    assert find_vectors_dir(tmp_path) == target.resolve()


def test_environment_variable(tmp_path):
    assert find_vectors_dir(None, env={VECTORS_ENV: str(DATA)}, cwd=tmp_path,
                            here=tmp_path) == DATA


def test_bad_explicit_directory(tmp_path):
    with pytest.raises(VectorError, match="--vectors"):
        find_vectors_dir(tmp_path, env={})
    with pytest.raises(VectorError, match=VECTORS_ENV):
        find_vectors_dir(None, env={VECTORS_ENV: str(tmp_path)})


def test_walk_up_from_the_current_directory(tmp_path):
    target = tmp_path / "conformance" / "vectors" / "v1"
    shutil.copytree(DATA, target)
    deep = tmp_path / "a" / "b"
    deep.mkdir(parents=True)
    assert find_vectors_dir(None, env={}, cwd=deep, here=Path("/")) == target.resolve()


def test_walk_up_from_the_runner_source(tmp_path):
    target = tmp_path / "conformance" / "vectors" / "v1"
    shutil.copytree(DATA, target)
    here = tmp_path / "conformance" / "python" / "src" / "pkg" / "vectors.py"
    empty = tmp_path / "elsewhere"
    empty.mkdir()
    assert find_vectors_dir(None, env={}, cwd=Path("/"), here=here) == target.resolve()


def test_not_found(tmp_path):
    with pytest.raises(VectorError, match="cannot find the test vectors"):
        find_vectors_dir(None, env={}, cwd=tmp_path, here=tmp_path)


# Checking.


def copy_data(tmp_path: Path) -> Path:
    target = tmp_path / "v1"
    shutil.copytree(DATA, target)
    return target


def test_meta_schema_violations_are_reported(tmp_path):
    target = copy_data(tmp_path)
    doc = json.loads((target / "Enums.json").read_text("utf-8"))
    doc["cases"][0]["level"] = "optional"
    del doc["cases"][0]["spec"]
    (target / "Enums.json").write_text(json.dumps(doc), "utf-8")
    with pytest.raises(VectorError) as e:
        load_vectors(target)
    assert any("Enums.json" in p and "optional" in p for p in e.value.problems)
    assert any("'spec' is a required property" in p for p in e.value.problems)


def test_duplicate_names_are_reported(tmp_path):
    target = copy_data(tmp_path)
    doc = json.loads((target / "Truncation.json").read_text("utf-8"))
    doc["cases"][1]["name"] = doc["cases"][0]["name"]
    (target / "Truncation.json").write_text(json.dumps(doc), "utf-8")
    with pytest.raises(VectorError, match="already used in the area Truncation"):
        load_vectors(target)


def test_same_area_in_two_files_needs_distinct_names(tmp_path):
    target = copy_data(tmp_path)
    shutil.copy(target / "Enums.json", target / "Enums2.json")
    with pytest.raises(VectorError, match="already used"):
        load_vectors(target)


def test_repeated_member_in_a_vector_file(tmp_path):
    target = copy_data(tmp_path)
    (target / "Bad.json").write_text('{"area": "Bad", "area": "Worse"}', "utf-8")
    with pytest.raises(VectorError, match="appears twice"):
        load_vectors(target)


def test_missing_meta_schema(tmp_path):
    target = copy_data(tmp_path)
    (target / META_SCHEMA).unlink()
    with pytest.raises(VectorError):
        load_vectors(target)


def test_spec_sections(vectors):
    spec = find_spec_dir(DATA)
    assert spec == REPO / "spec" / "v1"
    assert check_spec_sections(vectors.vectors, spec) == []


def test_missing_spec_sections(vectors, tmp_path):
    spec = tmp_path / "spec"
    spec.mkdir()
    (spec / "core.md").write_text('## <a id="3"></a>3. Type System\n### 3.8. Timestamp\n')
    problems = check_spec_sections(vectors.vectors, spec)
    assert not any(p.endswith("core.md#3.8: core.md has no section 3.8") for p in problems)
    assert any("core.md#3.9: core.md has no section 3.9" in p for p in problems)
    assert any("no document json-format.md" in p for p in problems)
