"""The operations of ``memorywire.v1.MemoryService``, in one registry.

What the protos say of an operation is read from the service's descriptor:
its name, its request and response types, and whether its requests or its
responses stream. What they do not say is written once, in :data:`TABLE`:
whether the operation writes (a mutating operation is idempotent under its
``operation_id``, operations.md section 3.3) and the method of
:class:`~memorywire.service.operations.Service` that performs it.

The server's dispatch, GetCapabilities, the fair share, the client and the
broken service of the conformance suite read :data:`OPERATIONS` rather than
naming the operations again. An operation that the protos declare and the
table does not (or the other way round) is an ImportError of this module.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass

from google.protobuf.descriptor import ServiceDescriptor

from memorywire.v1 import memory_service_pb2

__all__ = ["OPERATIONS", "SERVICE", "TABLE", "Operation", "Streaming", "build", "operation"]

#: The full name of the service.
SERVICE = "memorywire.v1.MemoryService"

#: What the protos do not say, one row per operation: whether it mutates,
#: and the name of the ``Service`` method that performs it. A unary
#: operation's method answers ``(call, request)`` with the response bytes
#: (and takes ``unknown``, the pointers of the request's unknown fields,
#: when it stores records); a server-streaming one answers with an iterator
#: of response bytes; the client-streaming Import's method opens an
#: ``ImportStream`` that takes the messages as they arrive.
TABLE: Mapping[str, tuple[bool, str]] = {
    # name               mutating  handler
    "Put":              (True,  "put"),
    "Get":              (False, "get"),
    "History":          (False, "history"),
    "Search":           (False, "search"),
    "Update":           (True,  "update"),
    "Delete":           (True,  "delete"),
    "Expire":           (True,  "expire"),
    "Merge":            (True,  "merge"),
    "Compact":          (True,  "compact"),
    "Review":           (True,  "review"),
    "Watch":            (False, "watch"),
    "CommitOffset":     (True,  "commit_offset"),
    "Export":           (False, "export"),
    "Import":           (True,  "import_stream"),
    "GetCapabilities":  (False, "get_capabilities"),
    "Erase":            (True,  "erase"),
}  # fmt: skip


class Streaming(enum.Enum):
    """How an operation's messages flow (grpc-binding.md section 2)."""

    #: One request, one response.
    UNARY = "unary"
    #: One request, a stream of responses (Watch, Export).
    SERVER = "server"
    #: A stream of requests, one response (Import).
    CLIENT = "client"


@dataclass(frozen=True)
class Operation:
    """One operation of the service."""

    #: The method's name in the service, e.g. ``"Put"``.
    name: str
    #: The full names of its request and response messages.
    request_type: str
    response_type: str
    streaming: Streaming
    #: Whether it writes, and so is recorded under its operation_id.
    mutating: bool
    #: The name of the ``Service`` method that performs it.
    handler: str

    @property
    def path(self) -> str:
        """The gRPC path of the method: ``/memorywire.v1.MemoryService/Put``."""
        return f"/{SERVICE}/{self.name}"


def _streaming(name: str, client: bool, server: bool) -> Streaming:
    if client and server:
        raise ImportError(f"{SERVICE}/{name} streams both ways, which no operation does")
    return Streaming.CLIENT if client else Streaming.SERVER if server else Streaming.UNARY


def build(service: ServiceDescriptor,
          table: Mapping[str, tuple[bool, str]]) -> tuple[Operation, ...]:
    """The operations of ``service`` in the order of its declaration, each
    completed by its row of ``table``. ImportError when the service and the
    table do not name the same operations."""
    declared = [m.name for m in service.methods]
    missing = [name for name in declared if name not in table]
    extra = [name for name in table if name not in declared]
    if missing or extra:
        problems = []
        if missing:
            problems.append(f"{', '.join(missing)} of {service.full_name} "
                            "have no row in the registry")
        if extra:
            problems.append(f"the registry's {', '.join(extra)} are not methods of "
                            f"{service.full_name}")
        raise ImportError("; ".join(problems))
    out = []
    for method in service.methods:
        mutating, handler = table[method.name]
        out.append(Operation(method.name, method.input_type.full_name,
                             method.output_type.full_name,
                             _streaming(method.name, method.client_streaming,
                                        method.server_streaming),
                             mutating, handler))
    return tuple(out)


#: Every operation, in the order of the service's declaration.
OPERATIONS = build(memory_service_pb2.DESCRIPTOR.services_by_name["MemoryService"], TABLE)
_BY_NAME = {op.name: op for op in OPERATIONS}


def operation(name: str) -> Operation:
    """The operation of that name; KeyError for a name the service lacks."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise KeyError(f"no operation {name!r} in {SERVICE}") from None
