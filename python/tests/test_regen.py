"""make proto regenerates every file made from the protos, and its check
(tools/regen.py --check, run by make test) finds every stale one."""

from __future__ import annotations

import pathlib
import shutil
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import regen  # noqa: E402

KINDS = {
    "python modules": regen.PY_OUT,
    "schemas": regen.SCHEMA_OUT,
    "runner descriptor set": regen.RUNNER_SET,
    "JavaScript testee descriptor set": regen.JS_SET,
}


@pytest.fixture
def proto(tmp_path: pathlib.Path) -> pathlib.Path:
    shutil.copytree(ROOT / "proto", tmp_path / "proto")
    return tmp_path / "proto"


def kinds(names: list[str]) -> set[str]:
    return {kind for kind, out in KINDS.items() for name in names
            if name == str(out) or name.startswith(str(out) + "/")}


def test_the_committed_files_are_what_the_protos_generate(proto: pathlib.Path) -> None:
    files = regen.generate(proto)
    assert kinds([str(name) for name in files]) == set(KINDS)
    assert regen.stale(files) == ([], [])


def test_a_changed_proto_makes_every_kind_stale(proto: pathlib.Path) -> None:
    record = proto / "memorywire" / "v1" / "record.proto"
    text = record.read_text()
    old = "string tenant = 1 [(rules) = {max_length: 256}];"
    assert text.count(old) == 1
    record.write_text(text.replace(old, "string tenant = 1 [(rules) = {max_length: 255}];"))
    differ, extra = regen.stale(regen.generate(proto))
    assert kinds(differ) == set(KINDS), differ
    assert str(regen.PY_OUT / "record_pb2.py") in differ
    assert str(regen.SCHEMA_OUT / "scope.schema.json") in differ
    assert extra == []


def test_a_file_no_proto_makes_any_more_is_stale_and_removed(tmp_path: pathlib.Path) -> None:
    files = regen.generate()
    regen.write(files, [str(name) for name in files], [], root=tmp_path)
    assert regen.stale(files, root=tmp_path) == ([], [])
    gone = tmp_path / regen.SCHEMA_OUT / "gone.schema.json"
    gone.write_text("{}\n")
    (tmp_path / regen.PY_OUT / "record_pb2.py").write_text("# edited by hand\n")
    differ, extra = regen.stale(files, root=tmp_path)
    assert (differ, extra) == ([str(regen.PY_OUT / "record_pb2.py")], [str(regen.SCHEMA_OUT / "gone.schema.json")])
    regen.write(files, differ, extra, root=tmp_path)
    assert not gone.exists()
    assert regen.stale(files, root=tmp_path) == ([], [])
