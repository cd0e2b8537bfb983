"""A backend whose framework is missing says what to install."""

from __future__ import annotations

import subprocess
import sys

import pytest


def import_without(module: str, framework: str) -> str:
    """The error of importing ``module`` in a process where ``framework`` cannot be imported."""
    code = (f"import sys; sys.modules[{framework!r}] = None\n"
            f"try:\n    import {module}\nexcept ImportError as e:\n    print(e.name, '|', e)\n"
            "else:\n    print('imported')\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    return done.stdout.strip()


@pytest.mark.parametrize(("module", "framework", "hint"), [
    ("memorywire.integrations.agency_swarm", "agency_swarm", "pip install 'memorywire[agency-swarm]'"),
    ("memorywire.integrations.mem0", "mem0", "pip install --no-deps mem0ai==2.2.1"),
])
def test_a_missing_framework_names_what_to_install(module: str, framework: str, hint: str) -> None:
    out = import_without(module, framework)
    name, _, text = out.partition(" | ")
    assert name.split(".")[0] == framework  # the error names the missing module
    assert text.startswith(f"{module} needs")
    assert hint in out


def test_mem0_says_why_it_has_no_extra() -> None:
    assert "pins protobuf<7" in import_without("memorywire.integrations.mem0", "mem0")
