"""The .proto files compile, and the committed Python modules match them."""

from __future__ import annotations

import pathlib

import grpc_tools
from grpc_tools import protoc

ROOT = pathlib.Path(__file__).resolve().parents[2]
PROTOS = sorted(str(p.relative_to(ROOT / "proto")) for p in (ROOT / "proto").glob("memorywire/v1/*.proto"))
INCLUDE = pathlib.Path(grpc_tools.__file__).parent / "_proto"


def test_every_proto_compiles_and_generated_code_is_current(tmp_path: pathlib.Path) -> None:
    args = ["protoc", f"-I{ROOT / 'proto'}", f"-I{INCLUDE}", f"--python_out={tmp_path}",
            f"--pyi_out={tmp_path}", *PROTOS]
    assert protoc.main(args) == 0
    assert protoc.main(["protoc", f"-I{ROOT / 'proto'}", f"-I{INCLUDE}",
                        f"--grpc_python_out={tmp_path}", "memorywire/v1/memory_service.proto"]) == 0
    generated = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*.py*"))
    assert generated, "protoc wrote nothing"
    stale = [str(p) for p in generated
             if (tmp_path / p).read_bytes() != (ROOT / "python/src" / p).read_bytes()]
    assert stale == [], f"run `make proto`: {stale}"


def test_package_and_paths_match() -> None:
    for proto in PROTOS:
        text = (ROOT / "proto" / proto).read_text()
        assert "package memorywire.v1;" in text
        assert proto.startswith("memorywire/v1/")


def test_every_enum_starts_with_unspecified_zero() -> None:
    from memorywire.v1 import error_pb2, filter_pb2, memory_service_pb2, record_pb2

    for module in (record_pb2, error_pb2, filter_pb2, memory_service_pb2):
        for enum in module.DESCRIPTOR.enum_types_by_name.values():
            assert enum.values[0].number == 0
            assert enum.values[0].name.endswith("_UNSPECIFIED"), enum.name
