"""The descriptors a server serves by reflection."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import grpc
from google.protobuf import descriptor_pb2

from memorywire_conformance.service.descriptors import DESCRIPTOR_SET, PROTO_SUBDIR, SERVICE
from memorywire_conformance.service.framework import Ctx, Skip, scenario
from memorywire_conformance.service.reflection import Unavailable, served_files

File = descriptor_pb2.FileDescriptorProto
Field = descriptor_pb2.FieldDescriptorProto


def _messages(prefix: str, messages: Iterable[descriptor_pb2.DescriptorProto]
              ) -> Iterator[tuple[str, descriptor_pb2.DescriptorProto]]:
    """Every message, nested ones included, by full name."""
    for m in messages:
        name = f"{prefix}.{m.name}"
        yield name, m
        yield from _messages(name, m.nested_type)


def _fields(f: File) -> dict[tuple[str, int], Field]:
    """Every field and extension of a file by (message or file, number),
    without json_name, which protoc derives and not every tool writes down."""
    out: dict[tuple[str, int], Field] = {}
    for name, m in _messages(f".{f.package}", f.message_type):
        for field in [*m.field, *m.extension]:
            copy = Field()
            copy.CopyFrom(field)
            copy.ClearField("json_name")
            out[(name, copy.number)] = copy
    for field in f.extension:
        copy = Field()
        copy.CopyFrom(field)
        copy.ClearField("json_name")
        out[(f"{f.name}:{field.extendee}", copy.number)] = copy
    return out


def _closure(files: dict[str, File], root: str) -> list[str]:
    """The memorywire files ``root`` needs, itself included."""
    seen: list[str] = []
    todo = [root]
    while todo:
        name = todo.pop()
        if name in seen or name not in files:
            continue
        seen.append(name)
        todo.extend(files[name].dependency)
    return [n for n in seen if n.startswith(PROTO_SUBDIR.as_posix() + "/")]


@scenario("Required.Service.Reflection.UnchangedDescriptors", "grpc-binding.md#8",
          inapplicable={"HTTP": "server reflection is a gRPC service; the HTTP binding serves "
                                "no descriptors (schemas/v1/openapi.json describes it)"})
def unchanged_descriptors(ctx: Ctx) -> None:
    """A server that offers reflection serves, for memorywire.v1.MemoryService,
    the memorywire.v1 files unchanged, options.proto included: every field
    with its options (the (rules) of every field), every enum value and every
    method as the specification's files have them. A server without
    reflection skips the scenario."""
    try:
        service, files = served_files(ctx.mw.channel, SERVICE, ctx.timeout)
    except Unavailable as e:
        raise Skip(str(e)) from None
    except (RuntimeError, grpc.RpcError) as e:
        raise ctx.fail(f"the reflection of {SERVICE} fails: {e}") from None
    served = {f.name: f for f in files}
    expected = {f.name: f for f in descriptor_pb2.FileDescriptorSet.FromString(
        DESCRIPTOR_SET.read_bytes()).file}
    root = next(name for name, f in expected.items()
                if any(f".{f.package}.{s.name}" == f".{SERVICE}" for s in f.service))
    for name in _closure(expected, root):
        got = served.get(name)
        ctx.check(got is not None, f"{service} does not serve {name}",
                  expected=name, got=sorted(served))
        assert got is not None
        want = expected[name]
        ctx.eq(got.options, want.options, f"the options of {name}")
        fields = _fields(got)
        for key, field in _fields(want).items():
            ctx.eq(fields.get(key), field, f"the field {key[0]}.{field.name} of {name}")
        values = {(en.name, v.name): v for en in got.enum_type for v in en.value}
        for enum in want.enum_type:
            for v in enum.value:
                ctx.eq(values.get((enum.name, v.name)), v,
                       f"the enum value {enum.name}.{v.name}")
        methods = {(s.name, m.name): m for s in got.service for m in s.method}
        for s in want.service:
            for m in s.method:
                ctx.eq(methods.get((s.name, m.name)), m, f"the method {s.name}.{m.name}")
