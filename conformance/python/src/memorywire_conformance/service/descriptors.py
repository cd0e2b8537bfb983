"""The message types of ``memorywire.v1``, built at run time from a descriptor set.

The package carries ``memorywire_v1.binpb``: the ``FileDescriptorSet`` of
every file of ``proto/memorywire/v1`` with the files they import, compiled by
``protoc --include_imports``. The message classes come from a descriptor pool
of their own (never the default pool), so that the runner needs no generated
code and does not clash with an implementation loaded in the same process.

The service's descriptor gives the runner its list of operations, their
paths and their message types (:func:`operations`, :func:`method`), so that
no part of the runner names them again.

``google.rpc.Status``, which carries the memorywire ``Error`` in the trailer
``grpc-status-details-bin`` (grpc-binding.md section 5), is declared here
field by field (``code = 1``, ``message = 2``, ``details = 3`` of
``google.protobuf.Any``), since it is not part of ``proto/``.

``regenerate()`` rebuilds the descriptor set from a checkout's ``proto/``
folder; a test checks that the committed file is up to date::

    python -m memorywire_conformance.service.descriptors [PROTO_DIR]
"""

from __future__ import annotations

import functools
import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from google.protobuf import any_pb2, descriptor_pb2, descriptor_pool, message_factory
from google.protobuf.descriptor import Descriptor, EnumDescriptor, MethodDescriptor
from google.protobuf.message import Message

__all__ = [
    "DESCRIPTOR_SET",
    "ERROR_TYPE_URL",
    "PACKAGE",
    "SERVICE",
    "build_descriptor_set",
    "enum_descriptor",
    "find_proto_dir",
    "message_class",
    "message_descriptor",
    "method",
    "method_path",
    "operations",
    "pool",
    "regenerate",
]

PACKAGE = "memorywire.v1"
SERVICE = "memorywire.v1.MemoryService"
ERROR_TYPE_URL = "type.googleapis.com/memorywire.v1.Error"
#: The committed descriptor set.
DESCRIPTOR_SET = Path(__file__).resolve().with_name("memorywire_v1.binpb")
#: The folder of the memorywire files, relative to the proto root.
PROTO_SUBDIR = Path("memorywire") / "v1"


def _status_file() -> descriptor_pb2.FileDescriptorProto:
    """``google/rpc/status.proto``: the message ``google.rpc.Status``."""
    f = descriptor_pb2.FileDescriptorProto(name="google/rpc/status.proto", package="google.rpc",
                                           syntax="proto3",
                                           dependency=["google/protobuf/any.proto"])
    m = f.message_type.add(name="Status")
    t = descriptor_pb2.FieldDescriptorProto
    m.field.add(name="code", number=1, type=t.TYPE_INT32, label=t.LABEL_OPTIONAL,
                json_name="code")
    m.field.add(name="message", number=2, type=t.TYPE_STRING, label=t.LABEL_OPTIONAL,
                json_name="message")
    m.field.add(name="details", number=3, type=t.TYPE_MESSAGE, label=t.LABEL_REPEATED,
                type_name=".google.protobuf.Any", json_name="details")
    return f


@functools.lru_cache(maxsize=1)
def pool() -> descriptor_pool.DescriptorPool:
    """The descriptor pool of memorywire.v1 and google.rpc.Status."""
    files = descriptor_pb2.FileDescriptorSet.FromString(DESCRIPTOR_SET.read_bytes())
    p = descriptor_pool.DescriptorPool()
    names = set()
    for f in files.file:
        p.Add(f)
        names.add(f.name)
    if "google/protobuf/any.proto" not in names:
        any_file = descriptor_pb2.FileDescriptorProto()
        any_pb2.DESCRIPTOR.CopyToProto(any_file)
        p.Add(any_file)
    p.Add(_status_file())
    return p


def message_descriptor(name: str) -> Descriptor:
    """A message descriptor by full name, or by short name in memorywire.v1."""
    full = name if "." in name else f"{PACKAGE}.{name}"
    return pool().FindMessageTypeByName(full)


def enum_descriptor(name: str) -> EnumDescriptor:
    full = name if "." in name else f"{PACKAGE}.{name}"
    return pool().FindEnumTypeByName(full)


@functools.cache
def message_class(name: str) -> type[Message]:
    """The message class of a type, e.g. ``message_class("PutRequest")``."""
    cls: Any = message_factory.GetMessageClass(message_descriptor(name))
    return cls  # type: ignore[no-any-return]


def operations() -> tuple[str, ...]:
    """The names of the methods of memorywire.v1.MemoryService, in the order
    of the proto."""
    return tuple(m.name for m in pool().FindServiceByName(SERVICE).methods)


def method(name: str) -> MethodDescriptor:
    """A method of memorywire.v1.MemoryService: its input and output types and
    whether it streams. KeyError for a name the service lacks."""
    return pool().FindServiceByName(SERVICE).FindMethodByName(name)


def method_path(name: str) -> str:
    """The gRPC path of a method: ``/memorywire.v1.MemoryService/Put``."""
    return f"/{SERVICE}/{method(name).name}"


# Regeneration.


def find_proto_dir(start: Path | None = None) -> Path | None:
    """The ``proto`` folder of the nearest checkout above ``start`` (default:
    this file), or None."""
    here = (start or Path(__file__)).resolve()
    for folder in (here, *here.parents):
        candidate = folder / "proto"
        if (candidate / PROTO_SUBDIR).is_dir():
            return candidate
    return None


def build_descriptor_set(proto_dir: str | os.PathLike[str],
                         python: str = sys.executable) -> bytes:
    """The descriptor set of ``proto_dir/memorywire/v1/*.proto``, compiled with
    ``python -m grpc_tools.protoc --include_imports`` (grpcio-tools)."""
    root = Path(proto_dir)
    protos = sorted(p.relative_to(root).as_posix() for p in (root / PROTO_SUBDIR).glob("*.proto"))
    if not protos:
        raise FileNotFoundError(f"no .proto files in {root / PROTO_SUBDIR}")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "descriptors.binpb"
        done = subprocess.run(
            [python, "-m", "grpc_tools.protoc", f"-I{root}", "--include_imports",
             f"--descriptor_set_out={out}", *protos],
            capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"protoc failed ({done.returncode}): {done.stderr.strip()}")
        return out.read_bytes()


def regenerate(proto_dir: str | os.PathLike[str] | None = None,
               out: str | os.PathLike[str] = DESCRIPTOR_SET) -> bool:
    """Rebuild the committed descriptor set from ``proto_dir`` (default: the
    checkout's ``proto``); True when the file changed."""
    root = Path(proto_dir) if proto_dir is not None else find_proto_dir()
    if root is None:
        raise FileNotFoundError("no proto/memorywire/v1 folder found; pass the proto folder")
    data = build_descriptor_set(root)
    path = Path(out)
    if path.is_file() and path.read_bytes() == data:
        return False
    path.write_bytes(data)
    return True


def _main(argv: Sequence[str]) -> int:
    changed = regenerate(argv[0] if argv else None)
    print(f"{DESCRIPTOR_SET}: {'regenerated' if changed else 'up to date'}")
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
