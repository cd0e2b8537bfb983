"""What a plain install brings and what each extra brings.

The codec and the command line run with the base dependencies alone: a child
interpreter blocks the import of every module that neither the standard
library nor a base dependency (or a dependency of one) provides, runs the
codec and the CLI, and reports the distributions its imports came from, which
must be exactly the declared ones. The same is done for the service extra.
"""

from __future__ import annotations

import base64
import importlib
import importlib.metadata as md
import json
import pathlib
import pkgutil
import re
import struct
import subprocess
import sys
from collections.abc import Iterable
from typing import Any

import pytest

import memorywire
from memorywire import _extras

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "v1" / "records" / "fact-pending-approval.json"

# The modules that need an extra; every other module of the package is the
# codec and the CLI, which the base dependencies serve.
EXTRA_PARTS = {
    # memorywire.integrations: the kit needs the client; each backend also
    # needs its framework, which no extra of this test installs.
    "service": ("memorywire.service", "memorywire.client", "memorywire.v1.memory_service_pb2_grpc",
                "memorywire.integrations"),
    "oracle": ("memorywire._schemas",),
    # memorywire mcp: the MCP SDK, and the client or the service behind the tools.
    "mcp": ("memorywire.mcp",),
    "postgresql": ("memorywire.service.postgres",),
}

# The child: block every import outside the allowed top-level modules, run
# the code given, then print the distributions that the imported modules came
# from.
CHILD = r'''
import importlib.abc, importlib.metadata as md, json, os, sys

allowed = set(json.loads(os.environ["MW_ALLOWED"]))
before = set(sys.modules)


class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        top = name.partition(".")[0]
        # _sysconfigdata_*: the build settings of the interpreter, which sysconfig reads.
        if top in sys.stdlib_module_names or top.startswith("_sysconfigdata_") or top in allowed:
            return None
        raise ModuleNotFoundError(f"No module named {name!r} (blocked)", name=name)


sys.meta_path.insert(0, Block())


def report():
    owner = {}
    for dist in md.distributions():
        for f in dist.files or ():
            owner[os.path.realpath(dist.locate_file(f))] = dist.metadata["Name"]
    used = set()
    for name in set(sys.modules) - before:
        path = getattr(sys.modules[name], "__file__", None)
        if path and os.path.realpath(path) in owner:
            used.add(owner[os.path.realpath(path)])
    sys.stderr.flush()
    sys.stdout.write("\nMW-DISTRIBUTIONS " + json.dumps(sorted(used)) + "\n")


if sys.argv[1] == "--cli":
    import atexit, runpy
    sys.argv = ["memorywire", *sys.argv[2:]]
    atexit.register(report)
    runpy.run_module("memorywire", run_name="__main__")
else:
    exec(sys.argv[1], {"__name__": "__mw_child__"})
    report()
'''


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def requirements(extra: str | None) -> set[str]:
    """The distributions memorywire declares for a plain install or one extra."""
    out = set()
    for line in md.requires("memorywire") or []:
        name = canonical(re.split(r"[\s;<>=!~\[(]", line, maxsplit=1)[0])
        markers = line.partition(";")[2]
        if (extra is None and "extra" not in markers) or (extra is not None and f'"{extra}"' in markers):
            asked = re.findall(r"\[([^\]]*)\]", line.partition(";")[0])
            if name == "memorywire":  # an extra that brings others: memorywire[service]
                for other in asked[0].split(","):
                    out |= requirements(other.strip())
            else:
                out.add(name)
                # and what an extra of its own brings: psycopg[binary] brings psycopg-binary
                for own in (e.strip() for e in asked[0].split(",")) if asked else ():
                    out |= {canonical(re.split(r"[\s;<>=!~\[(]", x, maxsplit=1)[0])
                            for x in md.requires(name) or [] if re.search(rf'extra\s*==\s*"{own}"', x)}
    return out


def closure(names: Iterable[str]) -> set[str]:
    """The distributions and everything they require, with the extras they
    ask of each other (pyjwt[crypto]); other markers aside."""
    todo: list[tuple[str, frozenset[str]]] = [(n, frozenset()) for n in names]
    seen: set[tuple[str, frozenset[str]]] = set()
    while todo:
        name, extras = todo.pop()
        if (name, extras) in seen:
            continue
        try:
            requires = md.requires(name) or []
        except md.PackageNotFoundError:  # a requirement of another platform or Python (pywin32)
            continue
        seen.add((name, extras))
        for line in requires:
            wanted = re.search(r'extra\s*==\s*"([^"]+)"', line)
            if wanted is None or wanted[1] in extras:
                head = line.partition(";")[0]
                asked = re.search(r"\[([^\]]*)\]", head)
                todo.append((canonical(re.split(r"[\s;<>=!~\[(]", line, maxsplit=1)[0]),
                             frozenset(e.strip() for e in asked[1].split(",")) if asked else frozenset()))
    return {name for name, _ in seen}


def top_levels(distributions: Iterable[str]) -> set[str]:
    """The top-level modules that the distributions install."""
    tops = set()
    for name in distributions:
        for f in md.distribution(name).files or ():
            if f.suffix in (".py", ".so", ".pyd"):
                top = f.parts[0] if len(f.parts) > 1 else f.name.split(".")[0]
                if top.isidentifier() and top != "__pycache__":
                    tops.add(top)
    return tops


def allowed(distributions: set[str]) -> list[str]:
    return sorted(top_levels(closure(distributions)) | {"memorywire", "_typeshed"})


def run_child(args: list[str], distributions: set[str], stdin: bytes = b"") -> tuple[int, bytes, str, set[str]]:
    import os

    env = {**os.environ, "MW_ALLOWED": json.dumps(allowed(distributions))}
    done = subprocess.run([sys.executable, "-c", CHILD, *args], input=stdin, capture_output=True,
                          env=env, timeout=120, check=False)
    out, _, tail = done.stdout.rpartition(b"\nMW-DISTRIBUTIONS ")
    used = {canonical(n) for n in json.loads(tail)} if tail else set()
    return done.returncode, out, done.stderr.decode(), used


def codec_modules() -> list[str]:
    parts = tuple(p for ps in EXTRA_PARTS.values() for p in ps)
    names = [m.name for m in pkgutil.walk_packages(memorywire.__path__, "memorywire.")]
    return sorted(n for n in names if not n.startswith(parts) and not n.endswith("__main__"))


BASE = requirements(None)


def test_the_base_is_the_codec_only() -> None:
    assert BASE == {"protobuf", "msgpack", "orjson", "msgspec"}
    assert requirements("service") == {"grpcio", "grpcio-health-checking", "grpcio-reflection", "numpy"}
    assert requirements("oracle") == {"jsonschema", "referencing"}
    assert requirements("postgresql") - requirements("service") == {"psycopg", "psycopg-binary", "psycopg-pool"}


def test_the_codec_imports_exactly_the_base_dependencies() -> None:
    code = (f"import importlib\nfor name in {codec_modules()!r}: importlib.import_module(name)\n"
            "import memorywire\nfrom memorywire import json, msgpack, protobuf, stream\n"
            f"doc = json.decode(open({str(EXAMPLE)!r}, 'rb').read())\n"
            "assert json.decode(memorywire.convert(protobuf.encode(doc), source='protobuf', target='json')) == doc\n"
            "assert msgpack.decode(msgpack.encode(doc)) == doc\n")
    status, _, err, used = run_child([code], BASE)
    assert status == 0, err
    assert used == BASE, "the codec imports other distributions than it declares"


@pytest.mark.parametrize("extra", sorted(EXTRA_PARTS))
def test_each_extra_imports_exactly_its_dependencies(extra: str) -> None:
    declared = requirements(extra)
    code = f"import importlib\nfor name in {EXTRA_PARTS[extra]!r}: importlib.import_module(name)\n"
    service = importlib.import_module("memorywire.service")
    # Every module of the service, the PostgreSQL store with its own extra only.
    code += "".join(f"import {m.name}\n" for m in pkgutil.walk_packages(service.__path__, "memorywire.service.")
                    if extra in ("service", "mcp", "postgresql") and not m.name.endswith("__main__")
                    and (extra == "postgresql" or not m.name.startswith(EXTRA_PARTS["postgresql"])))
    status, _, err, used = run_child([code], BASE | declared)
    assert status == 0, err
    assert declared <= used - BASE <= closure(declared), (extra, used)
    # What memorywire._extras says each extra brings is what its distributions hold.
    assert _extras.MODULES[extra] == top_levels(declared)


def test_the_cli_runs_without_the_extras(tmp_path: pathlib.Path) -> None:
    status, out, err, used = run_child(["--cli", "validate", str(EXAMPLE)], BASE)
    assert (status, "Traceback" in err) == (0, False), err
    assert used <= BASE
    binpb = tmp_path / "r.binpb"
    status, _, err, _ = run_child(["--cli", "convert", str(EXAMPLE), "--to", "protobuf", "-o", str(binpb)], BASE)
    assert status == 0, err
    status, out, err, _ = run_child(["--cli", "inspect", str(binpb)], BASE)
    assert status == 0, err
    assert json.loads(out) == json.loads(EXAMPLE.read_bytes())


def test_the_testee_runs_without_the_extras() -> None:
    def frame(value: dict[str, Any]) -> bytes:
        data = json.dumps(value).encode()
        return struct.pack("<I", len(data)) + data

    request = {"type": "codec", "message_type": "memorywire.v1.MemoryRecord",
               "input": {"encoding": "json", "data": base64.b64encode(EXAMPLE.read_bytes()).decode()}}
    frames = frame({"type": "handshake", "protocol": 1}) + frame(request) + frame({"type": "shutdown"})
    status, out, err, _ = run_child(["--cli", "testee"], BASE, stdin=frames)
    assert status == 0, err
    answers = []
    while out:
        (size,) = struct.unpack("<I", out[:4])
        answers.append(json.loads(out[4:4 + size]))
        out = out[4 + size:]
    assert [a["type"] for a in answers] == ["handshake", "valid"]


def test_serve_without_the_service_extra_names_it() -> None:
    status, out, err, _ = run_child(["--cli", "serve", "--listen", "127.0.0.1:0"], BASE)
    assert status == 2
    assert "pip install 'memorywire[service]'" in err
    assert "Traceback" not in err


def test_mcp_without_its_extra_names_it() -> None:
    # Without the service extra, or with it and without the MCP SDK.
    for distributions in (BASE, BASE | requirements("service")):
        status, out, err, _ = run_child(["--cli", "mcp", "--store", ":memory:", "--tenant", "t"], distributions)
        assert status == 2, err
        assert "pip install 'memorywire[mcp]'" in err
        assert "Traceback" not in err


def test_the_client_and_the_oracle_without_their_extras_name_them() -> None:
    code = ("import memorywire\n"
            "try:\n    memorywire.Client\nexcept ImportError as e:\n    print('client:', e)\n"
            "from memorywire import validation\n"
            "try:\n    validation.reference_errors({})\nexcept ImportError as e:\n    print('oracle:', e)\n")
    status, out, err, _ = run_child([code], BASE)
    assert status == 0, err
    assert out.decode().splitlines() == [
        "client: memorywire.client needs the 'service' extra: pip install 'memorywire[service]'",
        "oracle: reference_errors needs the 'oracle' extra: pip install 'memorywire[oracle]'"]


# The license.


@pytest.mark.parametrize("distribution", ["memorywire", "memorywire-conformance"])
def test_both_packages_carry_the_license(distribution: str) -> None:
    text = (ROOT / "LICENSE").read_text()
    assert text.split()[:4] == ["Apache", "License", "Version", "2.0,"]
    assert "END OF TERMS AND CONDITIONS" in text and "APPENDIX" in text
    dist = md.distribution(distribution)
    assert dist.metadata["License-Expression"] == "Apache-2.0"
    assert dist.metadata.get_all("License-File") == ["LICENSE"]
    assert dist.read_text("licenses/LICENSE") == text
