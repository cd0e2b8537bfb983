"""The protos as stock tools see them: buf lint with the shipped third-party
file, buf breaking against the committed v1.0 image, and google/rpc/status.proto
reading the error details of the reference service."""

from __future__ import annotations

import pathlib
import shutil
import subprocess
import tempfile

import grpc_tools
import pytest
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from grpc_tools import protoc

ROOT = pathlib.Path(__file__).resolve().parents[2]
BUF = ROOT / "node_modules" / ".bin" / "buf"
BASELINE = ROOT / "proto" / "baseline" / "memorywire-v1.0.binpb"
INCLUDE = pathlib.Path(grpc_tools.__file__).parent / "_proto"


def buf(*args: str, cwd: pathlib.Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(BUF), *args], cwd=cwd, capture_output=True, text=True, timeout=300)


def test_buf_lint_passes_with_the_shipped_status_proto() -> None:
    result = buf("lint")
    assert result.returncode == 0, result.stdout + result.stderr
    listed = buf("ls-files").stdout.split()
    assert "proto/google/rpc/status.proto" in listed or "google/rpc/status.proto" in listed


def test_the_protos_keep_every_promise_of_the_v1_0_image() -> None:
    result = buf("breaking", "--against", str(BASELINE.relative_to(ROOT)))
    assert result.returncode == 0, result.stdout + result.stderr


def _copy(tmp_path: pathlib.Path) -> pathlib.Path:
    shutil.copytree(ROOT / "proto", tmp_path / "proto", ignore=shutil.ignore_patterns("baseline"))
    shutil.copy(ROOT / "buf.yaml", tmp_path / "buf.yaml")
    return tmp_path


BREAKING = [
    # (file, text, replacement, what buf names)
    ("record.proto", "string id = 2 [", "string id = 99 [", 'field "2" with name "id"'),
    ("record.proto", "uint64 sequence = 6", "sint64 sequence = 6", 'type from "uint64" to "sint64"'),
    ("record.proto", "string key = 4", "string item_key = 4", 'name from "key" to "item_key"'),
]


@pytest.mark.parametrize(("file", "text", "replacement", "named"), BREAKING,
                         ids=["renumbered", "retyped", "renamed"])
def test_buf_breaking_fails_on_a_breaking_change(tmp_path: pathlib.Path, file: str, text: str,
                                                 replacement: str, named: str) -> None:
    work = _copy(tmp_path)
    path = work / "proto" / "memorywire" / "v1" / file
    source = path.read_text()
    assert source.count(text) == 1
    path.write_text(source.replace(text, replacement))
    result = buf("breaking", "--against", str(BASELINE), cwd=work)
    assert result.returncode != 0
    assert named in result.stdout + result.stderr, result.stdout + result.stderr


def test_a_comment_change_is_not_breaking(tmp_path: pathlib.Path) -> None:
    # The image holds no comments, so that a reworded comment needs no new baseline.
    work = _copy(tmp_path)
    path = work / "proto" / "memorywire" / "v1" / "record.proto"
    path.write_text(path.read_text().replace("// The identifier of the record", "// The id of the record"))
    result = buf("breaking", "--against", str(BASELINE), cwd=work)
    assert result.returncode == 0, result.stdout + result.stderr


def _status_class() -> type:
    """google.rpc.Status compiled by protoc from the shipped file."""
    with tempfile.TemporaryDirectory() as tmp:
        target = pathlib.Path(tmp) / "set.binpb"
        assert protoc.main(["protoc", f"-I{ROOT / 'proto'}", f"-I{INCLUDE}", "--include_imports",
                            f"--descriptor_set_out={target}", "google/rpc/status.proto",
                            "memorywire/v1/error.proto"]) == 0
        files = descriptor_pb2.FileDescriptorSet.FromString(target.read_bytes())
    pool = descriptor_pool.DescriptorPool()
    for f in files.file:
        pool.Add(f)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("google.rpc.Status"))


def test_status_proto_matches_the_status_the_conformance_runner_builds() -> None:
    from memorywire_conformance.service import descriptors

    shipped = _status_class().DESCRIPTOR
    built = descriptors.pool().FindMessageTypeByName("google.rpc.Status")
    assert [(f.name, f.number, f.type, f.json_name) for f in shipped.fields] \
        == [(f.name, f.number, f.type, f.json_name) for f in built.fields]


def test_status_proto_reads_the_error_details_of_the_reference_service(
        tmp_path: pathlib.Path) -> None:
    import grpc

    from memorywire import protobuf as mprotobuf
    from memorywire.service import MemoryServer, Store

    store = Store(str(tmp_path / "s.sqlite3"))
    server = MemoryServer(store, "127.0.0.1:0", log=None)
    server.start()
    try:
        with grpc.insecure_channel(f"127.0.0.1:{server.port}") as channel:
            request = mprotobuf.Encoder("memorywire.v1.PutRequest").encode_valid(
                {"specversion": "1.0", "operation_id": "op-1",
                 "items": [{"record": {"kind": "fact", "fact": {"text": "t"}}}]})
            with pytest.raises(grpc.RpcError) as info:
                channel.unary_unary("/memorywire.v1.MemoryService/Put")(
                    request, metadata=(("memorywire-tenant", "t"),), timeout=30)
        trailers = dict(info.value.trailing_metadata())  # type: ignore[attr-defined]
    finally:
        server.stop(grace=1.0)
        store.close()
    status = _status_class().FromString(trailers["grpc-status-details-bin"])
    assert status.code == info.value.code().value[0]  # type: ignore[attr-defined]
    (detail,) = status.details
    assert detail.type_url == "type.googleapis.com/memorywire.v1.Error"
    error = mprotobuf.decode(detail.value, type="memorywire.v1.Error")
    assert error["reason"] == "REQUIRED_FIELD_MISSING"
    assert error["violations"][0]["pointer"] == "/items/0/record/id"
