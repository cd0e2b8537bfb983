"""The gRPC server reflection protocol, as far as the runner reads it.

A server that offers reflection (grpc-binding.md section 8) answers
``ServerReflectionInfo`` of ``grpc.reflection.v1.ServerReflection`` (or of
``grpc.reflection.v1alpha``, whose messages are the same on the wire) with
the ``FileDescriptorProto`` of the file that declares a symbol and of the
files it imports. The four messages the runner needs are declared here field
by field, in a descriptor pool of their own, like ``google.rpc.Status`` in
:mod:`memorywire_conformance.service.descriptors`.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Any

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from google.protobuf.message import Message

__all__ = ["SERVICES", "Unavailable", "message_class", "served_files"]

#: The reflection services, newest first.
SERVICES = ("grpc.reflection.v1.ServerReflection", "grpc.reflection.v1alpha.ServerReflection")
_PACKAGE = "grpc.reflection.v1"


class Unavailable(Exception):
    """The server offers no reflection service."""


def _file() -> descriptor_pb2.FileDescriptorProto:
    f = descriptor_pb2.FileDescriptorProto(name="grpc/reflection/v1/reflection.proto",
                                           package=_PACKAGE, syntax="proto3")
    t = descriptor_pb2.FieldDescriptorProto
    one, many = t.LABEL_OPTIONAL, t.LABEL_REPEATED

    def message(name: str, *fields: tuple[str, int, int, int, str]) -> None:
        m = f.message_type.add(name=name)
        for field_name, number, kind, label, type_name in fields:
            m.field.add(name=field_name, number=number, type=kind, label=label,
                        type_name=type_name or None, json_name=field_name)

    message("ServerReflectionRequest", ("host", 1, t.TYPE_STRING, one, ""),
            ("file_by_filename", 3, t.TYPE_STRING, one, ""),
            ("file_containing_symbol", 4, t.TYPE_STRING, one, ""))
    message("FileDescriptorResponse", ("file_descriptor_proto", 1, t.TYPE_BYTES, many, ""))
    message("ErrorResponse", ("error_code", 1, t.TYPE_INT32, one, ""),
            ("error_message", 2, t.TYPE_STRING, one, ""))
    message("ServerReflectionResponse", ("valid_host", 1, t.TYPE_STRING, one, ""),
            ("original_request", 2, t.TYPE_MESSAGE, one, f".{_PACKAGE}.ServerReflectionRequest"),
            ("file_descriptor_response", 4, t.TYPE_MESSAGE, one,
             f".{_PACKAGE}.FileDescriptorResponse"),
            ("error_response", 7, t.TYPE_MESSAGE, one, f".{_PACKAGE}.ErrorResponse"))
    return f


@functools.cache
def message_class(name: str) -> type[Message]:
    """A reflection message class by short name, e.g. ``"ServerReflectionResponse"``."""
    pool = descriptor_pool.DescriptorPool()
    pool.Add(_file())
    cls: Any = message_factory.GetMessageClass(pool.FindMessageTypeByName(f"{_PACKAGE}.{name}"))
    return cls  # type: ignore[no-any-return]


def _ask(channel: grpc.Channel, service: str, requests: Iterable[bytes],
         timeout: float) -> list[bytes]:
    info = channel.stream_stream(f"/{service}/ServerReflectionInfo")
    return list(info(iter(requests), timeout=timeout))


def served_files(channel: grpc.Channel, symbol: str, timeout: float
                 ) -> tuple[str, list[descriptor_pb2.FileDescriptorProto]]:
    """The reflection service that answered, and the files it serves for
    ``symbol``: the file that declares it and the files that file imports.
    Unavailable when no reflection service is offered; RuntimeError when the
    answer is an error or holds no files."""
    # Any: the stubs type the class as the base Message, which takes no fields.
    request_class: Any = message_class("ServerReflectionRequest")
    request = request_class(file_containing_symbol=symbol)
    for service in SERVICES:
        try:
            answers = _ask(channel, service, [request.SerializeToString()], timeout)
        except grpc.RpcError as e:
            if e.code() == grpc.StatusCode.UNIMPLEMENTED:
                continue
            raise
        if len(answers) != 1:
            raise RuntimeError(f"{service} answered one request with {len(answers)} messages")
        response: Any = message_class("ServerReflectionResponse").FromString(answers[0])
        if response.HasField("error_response"):
            raise RuntimeError(f"{service} answered an error for {symbol}: "
                               f"{response.error_response.error_code} "
                               f"{response.error_response.error_message}")
        files = [descriptor_pb2.FileDescriptorProto.FromString(data)
                 for data in response.file_descriptor_response.file_descriptor_proto]
        if not files:
            raise RuntimeError(f"{service} served no file for {symbol}")
        return service, files
    raise Unavailable("the server offers no reflection service")
