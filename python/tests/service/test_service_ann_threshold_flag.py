"""``memorywire serve --ann-threshold N``: the flag reaches the store the
service opens, its bounds are stated and enforced, and its default is the
stores' own."""

from __future__ import annotations

import json
import signal
import subprocess
import sys

import pytest

from memorywire.service.server import ANN_THRESHOLD_RANGE, MemoryServer, main
from memorywire.service.vectors import ANN_THRESHOLD


def serve_listening(*flags: str) -> dict[str, object]:
    """The ``listening`` log line of ``python -m memorywire.service`` with
    ``flags``; the service is then stopped."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "memorywire.service", "--listen", "127.0.0.1:0", "--store", ":memory:",
         "--quiet", "--no-warm", "--grace", "0", *flags],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    try:
        lines = []
        for line in proc.stderr:
            lines.append(line)
            entry = json.loads(line)
            if entry.get("event") == "listening":
                proc.send_signal(signal.SIGTERM)
                proc.wait(30)
                return dict(entry)
        raise AssertionError(f"the service did not start: {lines}")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(30)
        proc.stderr.close()


@pytest.mark.parametrize("flags", [[], ["--ann-threshold", "0"], ["--ann-threshold", str(ANN_THRESHOLD_RANGE[1])],
                                   ["--ann-threshold", "300"]])
def test_the_flag_reaches_the_store(flags: list[str]) -> None:
    expected = int(flags[1]) if flags else ANN_THRESHOLD
    assert serve_listening(*flags)["ann_threshold"] == expected


def test_the_server_opens_its_store_with_the_threshold() -> None:
    server = MemoryServer(":memory:", "127.0.0.1:0", log=None, warm=False, ann_threshold=7)
    try:
        assert server.store.ann_threshold == 7
    finally:
        server.store.close()
    assert ANN_THRESHOLD == 10_000


@pytest.mark.parametrize(("value", "message"), [
    ("-1", "--ann-threshold is -1 embeddings; give 0 to 2147483647"),
    ("2147483648", "--ann-threshold is 2147483648 embeddings; give 0 to 2147483647"),
])
def test_the_flag_is_bounded(value: str, message: str, capsys: pytest.CaptureFixture[str]) -> None:
    """A value out of its bounds is a usage error: exit status 2 and one line
    naming the flag and its bounds, before anything starts."""
    with pytest.raises(SystemExit) as exited:
        main(["--listen", "127.0.0.1:0", "--store", ":memory:", "--ann-threshold", value])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert f"memorywire serve: error: {message}" in err and "Traceback" not in err, err


def test_the_help_states_the_range_and_default(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "--ann-threshold N" in out
    assert f"{ANN_THRESHOLD_RANGE[0]} to {ANN_THRESHOLD_RANGE[1]} (default {ANN_THRESHOLD})" in out, out
