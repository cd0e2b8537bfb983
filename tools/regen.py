"""Regenerate every file made from the .proto files, or check that none is stale.

The generated files, each made by one generator:

- python/src/memorywire/v1/*_pb2.py, *_pb2.pyi, *_pb2_grpc.py: protoc of
  grpcio-tools (the version pinned in python/pyproject.toml);
- schemas/v1/*.schema.json: tools/gen_schemas.py (the package ships them
  through the link python/src/memorywire/schemas);
- schemas/v1/openapi.json, the OpenAPI 3.1 document of the HTTP binding:
  tools/gen_openapi.py, from the registry of operations and the schemas;
- the descriptor set of the conformance runner (memorywire_v1.binpb):
  memorywire_conformance.service.descriptors;
- the descriptor set of the JavaScript testee (descriptors.binpb): its own
  scripts/build-descriptors.js, with the buf of node_modules.

Each is made into a temporary folder first; without --check the changed files
are written over the committed ones and the files no generator makes any more
are removed, with --check the differences are listed and the exit status is 1.

Usage: python tools/regen.py [--check] [--proto-root DIR]   (make proto)
"""

from __future__ import annotations

import argparse
import pathlib
import subprocess
import sys
import tempfile
from collections.abc import Callable

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import gen_openapi
import gen_schemas
import protoset

ROOT = protoset.ROOT
PY_OUT = pathlib.PurePosixPath("python/src/memorywire/v1")
SCHEMA_OUT = pathlib.PurePosixPath("schemas/v1")
RUNNER_SET = pathlib.PurePosixPath("conformance/python/src/memorywire_conformance/service/memorywire_v1.binpb")
JS_TESTEE = pathlib.PurePosixPath("conformance/testees/javascript")
JS_SET = JS_TESTEE / "descriptors.binpb"
GRPC_PROTO = "memorywire/v1/memory_service.proto"

# The committed files each generator owns, as globs: a file that matches one
# and that the generator no longer makes is stale too.
OWNED = (str(PY_OUT / "*_pb2*.py"), str(PY_OUT / "*_pb2*.pyi"), str(SCHEMA_OUT / "*.schema.json"),
         str(SCHEMA_OUT / gen_openapi.NAME), str(RUNNER_SET), str(JS_SET))

Files = dict[pathlib.PurePosixPath, bytes]


def _run(args: list[str]) -> None:
    done = subprocess.run(args, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(args[:3])} ... failed ({done.returncode}): {done.stderr.strip()}")


def python_modules(proto_root: pathlib.Path) -> Files:
    with tempfile.TemporaryDirectory() as tmp:
        protoc = [sys.executable, "-m", "grpc_tools.protoc", f"-I{proto_root}"]
        _run([*protoc, f"--python_out={tmp}", f"--pyi_out={tmp}", *protoset.proto_files(proto_root)])
        _run([*protoc, f"--grpc_python_out={tmp}", GRPC_PROTO])
        made = pathlib.Path(tmp) / "memorywire" / "v1"
        return {PY_OUT / p.name: p.read_bytes() for p in sorted(made.iterdir()) if p.is_file()}


def schemas(proto_root: pathlib.Path) -> Files:
    return {SCHEMA_OUT / name: text.encode() for name, text in gen_schemas.generate(proto_root).items()}


def openapi(proto_root: pathlib.Path) -> Files:
    return {SCHEMA_OUT / name: text.encode() for name, text in gen_openapi.generate(proto_root).items()}


def runner_descriptors(proto_root: pathlib.Path) -> Files:
    from memorywire_conformance.service.descriptors import build_descriptor_set

    return {RUNNER_SET: build_descriptor_set(proto_root)}


def js_descriptors(proto_root: pathlib.Path) -> Files:
    with tempfile.TemporaryDirectory() as tmp:
        out = pathlib.Path(tmp) / "descriptors.binpb"
        _run(["node", str(ROOT / JS_TESTEE / "scripts" / "build-descriptors.js"), str(proto_root), str(out)])
        return {JS_SET: out.read_bytes()}


GENERATORS: tuple[Callable[[pathlib.Path], Files], ...] = (
    python_modules, schemas, openapi, runner_descriptors, js_descriptors)


def generate(proto_root: pathlib.Path = protoset.PROTO_ROOT) -> Files:
    files: Files = {}
    for generator in GENERATORS:
        files.update(generator(proto_root))
    return files


def stale(files: Files, root: pathlib.Path = ROOT) -> tuple[list[str], list[str]]:
    """The committed files under ``root`` that differ from ``files`` or are
    missing, and those that no generator makes."""
    differ = sorted(str(rel) for rel, data in files.items()
                    if not (root / rel).is_file() or (root / rel).read_bytes() != data)
    owned = {p.relative_to(root).as_posix() for pattern in OWNED for p in root.glob(pattern)}
    extra = sorted(owned - {str(rel) for rel in files})
    return differ, extra


def write(files: Files, differ: list[str], extra: list[str], root: pathlib.Path = ROOT) -> None:
    """Write the files that differ and remove those no generator makes."""
    for name in differ:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(files[pathlib.PurePosixPath(name)])
    for name in extra:
        (root / name).unlink()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="fail if a generated file is stale")
    parser.add_argument("--proto-root", type=pathlib.Path, default=protoset.PROTO_ROOT,
                        help="the folder that holds memorywire/v1/*.proto (default: proto)")
    args = parser.parse_args(argv)
    files = generate(args.proto_root.resolve())
    differ, extra = stale(files)
    if args.check:
        for name in differ:
            print(f"{name}: differs from what the .proto files generate; run make proto")
        for name in extra:
            print(f"{name}: no .proto file generates it any more; run make proto")
        return 1 if differ or extra else 0
    write(files, differ, extra)
    print(f"{len(files)} generated files: {len(differ)} written, {len(extra)} removed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
