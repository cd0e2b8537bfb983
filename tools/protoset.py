"""Load the memorywire .proto files as descriptors, with their comments.

Shared by the schema generator and the schema-sync check, so that both read
the .proto files the same way: through protoc, not through a hand parser.
"""

from __future__ import annotations

import pathlib
import sys
import tempfile
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from google.protobuf import descriptor_pb2

if TYPE_CHECKING:
    from google.protobuf.internal.extension_dict import _ExtensionFieldDescriptor

ROOT = pathlib.Path(__file__).resolve().parent.parent
PROTO_ROOT = ROOT / "proto"
PACKAGE = "memorywire.v1"


def proto_files(proto_root: pathlib.Path = PROTO_ROOT) -> list[str]:
    return sorted(
        str(p.relative_to(proto_root)) for p in proto_root.glob("memorywire/v1/*.proto")
    )


def compile_set(proto_root: pathlib.Path = PROTO_ROOT) -> descriptor_pb2.FileDescriptorSet:
    """Compile every .proto under proto_root into a FileDescriptorSet."""
    import grpc_tools
    from grpc_tools import protoc

    include = pathlib.Path(grpc_tools.__file__).parent / "_proto"
    with tempfile.TemporaryDirectory() as tmp:
        out = pathlib.Path(tmp) / "set.pb"
        args = [
            "protoc",
            f"-I{proto_root}",
            f"-I{include}",
            "--include_source_info",
            f"--descriptor_set_out={out}",
            *proto_files(proto_root),
        ]
        if protoc.main(args) != 0:
            sys.exit(f"protoc failed on {proto_root}")
        fds = descriptor_pb2.FileDescriptorSet()
        fds.ParseFromString(out.read_bytes())
    return fds


@dataclass
class Model:
    """The messages and enums of the package, by short name, with comments."""

    messages: dict[str, descriptor_pb2.DescriptorProto]
    enums: dict[str, descriptor_pb2.EnumDescriptorProto]
    comments: dict[tuple[str, ...], str]

    def comment(self, *path: str) -> str:
        return self.comments.get(path, "")


def load(proto_root: pathlib.Path = PROTO_ROOT) -> Model:
    fds = compile_set(proto_root)
    messages: dict[str, descriptor_pb2.DescriptorProto] = {}
    enums: dict[str, descriptor_pb2.EnumDescriptorProto] = {}
    comments: dict[tuple[str, ...], str] = {}
    for f in fds.file:
        by_path = {
            tuple(loc.path): " ".join(loc.leading_comments.split())
            for loc in f.source_code_info.location
            if loc.leading_comments
        }
        for i, m in enumerate(f.message_type):
            messages[m.name] = m
            comments[(m.name,)] = by_path.get((4, i), "")
            for j, fld in enumerate(m.field):
                comments[(m.name, fld.name)] = by_path.get((4, i, 2, j), "")
        for i, e in enumerate(f.enum_type):
            enums[e.name] = e
            comments[(e.name,)] = by_path.get((5, i), "")
            for j, v in enumerate(e.value):
                comments[(e.name, v.name)] = by_path.get((5, i, 2, j), "")
    return Model(messages, enums, comments)


def field_rules(field: descriptor_pb2.FieldDescriptorProto) -> dict[str, object]:
    """The (memorywire.v1.rules) option of a field, as a dict of set values."""
    opts = field.options
    raw = opts.SerializeToString()
    # The extension is not registered on the descriptor_pb2 options class, so
    # read it back through the generated module: that of the installed
    # package, else of the checkout (a path put first would also hide the
    # installed package's metadata from importlib.metadata).
    try:
        from memorywire.v1 import options_pb2
    except ImportError:
        if str(ROOT / "python" / "src") not in sys.path:
            sys.path.append(str(ROOT / "python" / "src"))
        from memorywire.v1 import options_pb2

    parsed = descriptor_pb2.FieldOptions.FromString(raw)
    # The generated stub types the extension as a plain FieldDescriptor.
    extension = cast("_ExtensionFieldDescriptor[descriptor_pb2.FieldOptions, options_pb2.FieldRules]",
                     options_pb2.rules)
    rules = parsed.Extensions[extension]
    out: dict[str, object] = {}
    for fd, value in rules.ListFields():
        out[fd.name] = value
    return out


def singular_rules(field: descriptor_pb2.FieldDescriptorProto, rules: dict[str, object]) -> dict[str, object]:
    """The rules of a singular field as the schemas state them: a string that
    is not required may also be empty, its default, which a reader takes for
    absent (spec/v1/json-format.md, section 4), whatever its pattern."""
    pattern = rules.get("pattern")
    if field.type != descriptor_pb2.FieldDescriptorProto.TYPE_STRING or not pattern or rules.get("required"):
        return rules
    return {**rules, "pattern": f"^$|{pattern}"}


def enum_json_name(enum_name: str, value_name: str) -> str:
    """The JSON name of an enum value: the value name without the enum's
    prefix, in lower case (ROLE_USER of Role is "user")."""
    prefix = "".join("_" + c if c.isupper() else c for c in enum_name).lstrip("_").upper() + "_"
    if not value_name.startswith(prefix):
        raise ValueError(f"{value_name} does not start with {prefix}")
    return value_name[len(prefix):].lower()


def kebab(name: str) -> str:
    return "".join("-" + c.lower() if c.isupper() else c for c in name).lstrip("-")
