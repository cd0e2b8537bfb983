"""conformance/tools/build_vectors.py --check on vector files that are not
what the sources give."""

from __future__ import annotations

import pathlib
import shutil
import subprocess
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]

TOOL = REPO / "conformance" / "tools" / "build_vectors.py"
VECTORS = REPO / "conformance" / "vectors" / "v1"

# Runs the tool's --check on another vector directory.
CHECK = """
import importlib.util, pathlib, sys
spec = importlib.util.spec_from_file_location("build_vectors", sys.argv[1])
tool = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tool)
tool.VECTORS = pathlib.Path(sys.argv[2])
sys.exit(tool.main(["--check"]))
"""


def check(directory) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", CHECK, str(TOOL), str(directory)],
                          capture_output=True, text=True, timeout=300, check=False)


@pytest.fixture
def vectors(tmp_path):
    copy = tmp_path / "v1"
    shutil.copytree(VECTORS, copy)
    return copy


def test_check_passes_on_the_vectors(vectors):
    done = check(vectors)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("content", [b'{"area": "Enums", ', b"", b"\xff\xfe not text"])
def test_check_reports_a_file_that_is_not_json(vectors, content):
    (vectors / "Enums.json").write_bytes(content)
    done = check(vectors)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    assert "out of date: Enums.json" in done.stderr
    assert "Enums.json: not valid JSON" in done.stderr
