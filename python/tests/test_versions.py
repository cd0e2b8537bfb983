"""One version for what is versioned together.

VERSION, at the root of the repository, is the release of the specification
and of what is released with it: the protos, the schemas, the vectors, the
conformance runner (which reads it as its package version) and the
JavaScript testee. The Python package is versioned apart from the
specification (spec/v1/versioning.md, section 5) and states the
specification version it implements, memorywire.SPECVERSION.
"""

from __future__ import annotations

import importlib.metadata as md
import json
import pathlib
import re

import memorywire_conformance
from memorywire_conformance.service import client as runner_client

import memorywire

ROOT = pathlib.Path(__file__).resolve().parents[2]
RELEASE = re.compile(r"(?P<major>[1-9][0-9]*)\.(?P<minor>0|[1-9][0-9]*)\.(?P<patch>0|[1-9][0-9]*)"
                     r"(?:\.dev(?P<dev>[0-9]+))?")


def release() -> re.Match[str]:
    text = (ROOT / "VERSION").read_text()
    match = RELEASE.fullmatch(text.rstrip("\n"))
    assert match and text.endswith("\n") and text.count("\n") == 1, f"VERSION holds {text!r}"
    return match


def npm_form(version: re.Match[str]) -> str:
    """The semantic version npm writes for a release of VERSION."""
    core = f"{version['major']}.{version['minor']}.{version['patch']}"
    return core if version["dev"] is None else f"{core}-dev.{version['dev']}"


def test_the_specification_version_is_the_release() -> None:
    v = release()
    spec = f"{v['major']}.{v['minor']}"
    assert memorywire.SPECVERSION == spec
    assert runner_client.SPECVERSION == spec
    assert f"this version is `{spec}`." in (ROOT / "spec" / "v1" / "versioning.md").read_text()
    assert f'This version of the specification is `"{spec}"`.' in (ROOT / "spec" / "v1" / "core.md").read_text()
    assert f"Status: **Version {spec}**" in (ROOT / "spec" / "v1" / "README.md").read_text()


def test_the_major_version_names_the_package_and_the_schemas() -> None:
    major = release()["major"]
    protos = sorted((ROOT / "proto" / "memorywire").glob("*/*.proto"))
    assert protos and {p.parent.name for p in protos} == {f"v{major}"}
    for proto in protos:
        assert f"\npackage memorywire.v{major};\n" in proto.read_text(), proto
    for schema in (ROOT / "schemas").glob("*/*.schema.json"):
        assert json.loads(schema.read_text())["$id"].startswith(f"https://memorywire.dev/schemas/v{major}/")


def test_the_runner_and_the_javascript_testee_are_the_release() -> None:
    v = release()
    assert memorywire_conformance.__version__ == md.version("memorywire-conformance") == v[0]
    testee = ROOT / "conformance" / "testees" / "javascript"
    assert json.loads((testee / "package.json").read_text())["version"] == npm_form(v)
    lock = json.loads((testee / "package-lock.json").read_text())
    assert lock["version"] == lock["packages"][""]["version"] == npm_form(v)


def test_the_python_package_has_one_version() -> None:
    # pyproject.toml reads it from memorywire._version; the installed metadata
    # is what pip made of it.
    assert md.version("memorywire") == memorywire.__version__
    assert 'version = {attr = "memorywire._version.__version__"}' in (ROOT / "python" / "pyproject.toml").read_text()


def test_the_npm_form_of_a_release() -> None:
    v = RELEASE.fullmatch("1.1.0")
    assert v is not None and npm_form(v) == "1.1.0" and f"{v['major']}.{v['minor']}" != memorywire.SPECVERSION
    dev = RELEASE.fullmatch("2.0.0.dev3")
    assert dev is not None and npm_form(dev) == "2.0.0-dev.3"
