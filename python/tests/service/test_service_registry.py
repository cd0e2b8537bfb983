"""The registry of operations: it and the protos name the same operations,
it agrees with the table of operations.md section 1.3, each handler is a
method of the Service, and the lists of operations come from it."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest
from google.protobuf import descriptor_pb2, descriptor_pool
from google.protobuf.descriptor import FileDescriptor, ServiceDescriptor

from memorywire.service import registry
from memorywire.service.operations import OPERATIONS, Service
from memorywire.service.registry import Streaming
from memorywire.v1 import memory_service_pb2

ROOT = Path(__file__).resolve().parents[3]
OPERATIONS_MD = ROOT / "spec" / "v1" / "operations.md"


def _service_file() -> descriptor_pb2.FileDescriptorProto:
    f = descriptor_pb2.FileDescriptorProto()
    memory_service_pb2.DESCRIPTOR.CopyToProto(f)
    return f


def _service_with(f: descriptor_pb2.FileDescriptorProto) -> ServiceDescriptor:
    """The MemoryService of a changed copy of memory_service.proto, in a pool of its own."""
    pool = descriptor_pool.DescriptorPool()
    added: set[str] = set()

    def add(file: FileDescriptor) -> None:
        if file.name in added:
            return
        for dep in file.dependencies:
            add(dep)
        proto = descriptor_pb2.FileDescriptorProto()
        file.CopyToProto(proto)
        pool.Add(proto)
        added.add(file.name)

    for dep in memory_service_pb2.DESCRIPTOR.dependencies:
        add(dep)
    pool.Add(f)
    return pool.FindServiceByName(registry.SERVICE)


# -- the registry and the protos ----------------------------------------------------------------


def test_the_registry_and_the_protos_name_the_same_operations() -> None:
    service = memory_service_pb2.DESCRIPTOR.services_by_name["MemoryService"]
    declared = [m.name for m in service.methods]
    assert sorted(registry.TABLE) == sorted(declared), (
        "add the operation to memorywire.service.registry.TABLE, or remove it from it")
    assert [op.name for op in registry.OPERATIONS] == declared
    for op, method in zip(registry.OPERATIONS, service.methods, strict=True):
        assert op.request_type == method.input_type.full_name
        assert op.response_type == method.output_type.full_name
        assert op.path == f"/memorywire.v1.MemoryService/{method.name}"


def test_a_method_the_table_lacks_is_refused() -> None:
    f = _service_file()
    f.service[0].method.add(name="Forget", input_type=".memorywire.v1.GetRequest",
                            output_type=".memorywire.v1.GetResponse")
    with pytest.raises(ImportError, match="Forget of memorywire.v1.MemoryService have no row"):
        registry.build(_service_with(f), registry.TABLE)


def test_a_row_the_protos_lack_is_refused() -> None:
    table = {**registry.TABLE, "Forget": (True, "forget")}
    service = memory_service_pb2.DESCRIPTOR.services_by_name["MemoryService"]
    with pytest.raises(ImportError, match="registry's Forget are not methods"):
        registry.build(service, table)


def test_streaming_is_read_from_the_protos() -> None:
    f = _service_file()
    for method in f.service[0].method:
        if method.name == "Get":
            method.server_streaming = True
        if method.name == "Watch":
            method.server_streaming = False
    ops = {op.name: op for op in registry.build(_service_with(f), registry.TABLE)}
    assert ops["Get"].streaming is Streaming.SERVER
    assert ops["Watch"].streaming is Streaming.UNARY


def test_the_registry_agrees_with_the_table_of_the_specification() -> None:
    """operations.md section 1.3: name, request, response, streaming and kind."""
    text = OPERATIONS_MD.read_text(encoding="utf-8")
    section = text.split('<a id="1.3"></a>', 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| (\w+) \| (.+?) \| (.+?) \| (mutating|read) \|", section, re.M)
    assert len(rows) == len(registry.OPERATIONS)
    for (name, request, response, kind), op in zip(rows, registry.OPERATIONS, strict=True):
        assert name == op.name
        assert request.endswith(f"`{op.request_type.rsplit('.', 1)[1]}`")
        assert response.endswith(f"`{op.response_type.rsplit('.', 1)[1]}`")
        assert request.startswith("stream of ") == (op.streaming is Streaming.CLIENT), name
        assert response.startswith("stream of ") == (op.streaming is Streaming.SERVER), name
        assert (kind == "mutating") == op.mutating, name


# -- the handlers and their readers ---------------------------------------------------------------


@pytest.mark.parametrize("op", registry.OPERATIONS, ids=lambda op: op.name)
def test_each_handler_is_a_method_of_the_service(op: registry.Operation) -> None:
    handler = getattr(Service, op.handler)
    assert callable(handler)
    params = list(inspect.signature(handler).parameters)
    assert params[:2] == ["self", "call"], params
    if op.streaming is Streaming.CLIENT:
        assert params == ["self", "call", "max_bytes"], params
    else:
        assert params[2] == "req", params
        # Only the operations that store records are told the unknown fields.
        assert params[3:] == (["unknown"] if op.name in ("Put", "Compact") else []), params


def test_the_lists_derived_from_the_registry() -> None:
    from memorywire.client._shared import Streamed, Upload
    from memorywire.service.fairness import REFLECTION, STREAM_METHODS
    from memorywire.service.operations import MUTATING

    assert OPERATIONS == tuple(op.name for op in registry.OPERATIONS)
    assert MUTATING == {"Put", "Update", "Delete", "Expire", "Merge", "Compact", "Review",
                        "CommitOffset", "Import", "Erase"}
    assert STREAM_METHODS == ("Watch", "Export", "Import", REFLECTION)
    with pytest.raises(ValueError, match="Import is a client call"):
        Streamed("Import", b"", None)
    with pytest.raises(ValueError, match="Watch is a server call"):
        Upload("Watch", (), None)
    with pytest.raises(KeyError, match="no operation 'Forget'"):
        registry.operation("Forget")
