"""The service level of the runner without a real service: the descriptor
set, the message conversion, the status details, the scenario registry, and
the ``service`` command end to end against a small in-process fake that
implements GetCapabilities only."""

from __future__ import annotations

import importlib.util
import json
import re
import socket
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from concurrent import futures
from pathlib import Path
from typing import Any

import grpc
import pytest
from runner_support import REPO

from memorywire_conformance.service import all_scenarios
from memorywire_conformance.service.client import (
    DETAILS_KEY,
    RpcFailure,
    decode_status,
    encode_tenant,
)
from memorywire_conformance.service.descriptors import (
    DESCRIPTOR_SET,
    ERROR_TYPE_URL,
    SERVICE,
    build_descriptor_set,
    message_class,
)
from memorywire_conformance.service.framework import Scenario
from memorywire_conformance.service.wire import (
    NULL,
    enum_name,
    enum_number,
    from_message,
    to_message,
)
from memorywire_conformance.vectors import _anchors

SPEC = REPO / "spec" / "v1"
PROTO = REPO / "proto"
BROKEN_SERVICE = REPO / "conformance" / "testees" / "broken_service" / "broken_service.py"
SUMMARY = re.compile(r"^(\d+) passed, (\d+) failed, (\d+) skipped$")
ID = re.compile(r"^(Required|Recommended)\.Service\.[A-Z][A-Za-z]*\.[A-Z][A-Za-z0-9]*$")
OPERATIONS = {"Put", "Get", "History", "Search", "Update", "Delete", "Expire", "Merge",
              "Compact", "Review", "Watch", "CommitOffset", "Export", "Import",
              "GetCapabilities", "Erase"}
FEATURES = {"search.text", "search.vector", "search.hybrid", "watch", "watch.offsets",
            "approval", "encryption", "expire.decay", "import.replace", "import.policies",
            "export.integrity", "history.branches"}


# The descriptor set.


def test_descriptor_set_is_up_to_date() -> None:
    pytest.importorskip("grpc_tools")
    assert build_descriptor_set(PROTO) == DESCRIPTOR_SET.read_bytes(), (
        "memorywire_v1.binpb is stale: run "
        "python -m memorywire_conformance.service.descriptors")


def test_descriptor_set_has_the_service() -> None:
    from memorywire_conformance.service.descriptors import pool

    service = pool().FindServiceByName(SERVICE)
    assert {m.name for m in service.methods} == OPERATIONS
    for method in service.methods:
        assert method.input_type.name == f"{method.name}Request"
        assert method.output_type.name == f"{method.name}Response"


# Messages.


def test_records_convert_both_ways() -> None:
    record = {
        "id": "m-1", "kind": "message", "created_at": "2026-03-14T09:26:53.123456789Z",
        "message": {"role": "user", "content": [{"text": {"text": "Hi"}},
                                                 {"data": {"value": {"a": [1, 2.5, None, True]}}}]},
        "lifecycle": {"importance": 0.0, "status": "pending_approval"},
        "metadata": {"source": "crm", "n": 3},
        "embeddings": [{"model": "e", "dimensions": 2, "values": [0.5, -1.0]}],
    }
    msg: Any = to_message("MemoryRecord", record)
    assert msg.kind == 1 and msg.lifecycle.status == 2
    assert msg.lifecycle.HasField("importance")
    assert from_message(msg) == record
    assert from_message(message_class("MemoryRecord").FromString(msg.SerializeToString())) == record


def test_enums_and_null() -> None:
    assert enum_number("RecordKind", "tool_result") == 3
    assert enum_name("ErrorCode", 10) == "aborted"
    assert enum_name("ErrorCode", 99) == 99
    with pytest.raises(ValueError):
        enum_number("RecordKind", "nope")
    patch: Any = to_message("UpdateRequest", {"id": "x", "patch": NULL})
    assert patch.patch.WhichOneof("kind") == "null_value"
    assert from_message(patch)["patch"] is None
    with pytest.raises(KeyError):
        to_message("MemoryRecord", {"identifier": "x"})


def test_tenant_encoding() -> None:
    assert encode_tenant("acme") == "acme"
    assert encode_tenant("Bücher AG") == "B%C3%BCcher%20AG"
    assert encode_tenant("50%") == "50%25"


# Status details.


def _status(code: int, error: dict[str, Any] | None, extra: int = 0) -> bytes:
    status: Any = message_class("google.rpc.Status")(code=code, message="m")
    if error is not None:
        any_ = status.details.add()
        any_.type_url = ERROR_TYPE_URL
        any_.value = to_message("Error", error).SerializeToString()
    for _ in range(extra):
        status.details.add(type_url="type.googleapis.com/google.rpc.RetryInfo", value=b"")
    return bytes(status.SerializeToString())


def test_error_from_status_details() -> None:
    error = {"code": "aborted", "reason": "REVISION_MISMATCH", "message": "m",
             "violations": [{"pointer": "/expected_revision", "reason": "REVISION_MISMATCH"}]}
    raw = _status(10, error, extra=1)
    assert decode_status(raw)[0] == 10
    e = RpcFailure("Update", grpc.StatusCode.ABORTED, "m", ((DETAILS_KEY, raw),))
    assert e.error == error and e.error_count == 1 and e.status_code == 10
    assert e.reason == "REVISION_MISMATCH" and e.pointers == ["/expected_revision"]
    assert "ABORTED REVISION_MISMATCH at /expected_revision" in e.describe()
    bare = RpcFailure("Update", grpc.StatusCode.ABORTED, "m")
    assert bare.error is None and "no memorywire Error" in bare.describe()
    broken = RpcFailure("Update", grpc.StatusCode.ABORTED, "m", ((DETAILS_KEY, b"\xff\xff"),))
    assert broken.error is None and broken.details_problem


# The scenarios.


def test_there_are_enough_scenarios() -> None:
    scenarios = all_scenarios()
    assert len(scenarios) >= 60
    assert sum(s.case.level == "required" for s in scenarios) >= 60


def test_scenario_ids_are_stable_and_unique() -> None:
    ids = [s.id for s in all_scenarios()]
    assert len(ids) == len(set(ids))
    for id in ids:
        assert ID.match(id), id


@pytest.mark.parametrize("scenario", all_scenarios(), ids=lambda s: s.id)
def test_every_scenario_describes_itself(scenario: Scenario) -> None:
    assert scenario.description and scenario.description.endswith(".")
    assert scenario.spec
    for need in scenario.needs:
        assert need in OPERATIONS or need in FEATURES, need
    case = scenario.case
    assert case.suite == "service" and case.id == scenario.id
    assert case.classname == ".".join(scenario.id.split(".")[:2])


def test_every_cited_section_exists() -> None:
    cache: dict[str, set[str]] = {}
    missing = []
    for s in all_scenarios():
        for ref in s.spec:
            document, _, fragment = ref.partition("#")
            path = SPEC / document
            assert path.is_file(), f"{s.id}: no document {document}"
            anchors = cache.setdefault(document, _anchors(path))
            if fragment not in anchors:
                missing.append(f"{s.id}: {ref}")
    assert not missing


def test_the_service_level_does_not_import_memorywire() -> None:
    code = ("import sys, memorywire_conformance.cli, memorywire_conformance.service.command; "
            "from memorywire_conformance.service import all_scenarios; all_scenarios(); "
            "assert not [m for m in sys.modules if m == 'memorywire' "
            "or m.startswith('memorywire.')], 'memorywire imported'")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 0, done.stderr


def test_broken_service_faults_are_documented() -> None:
    spec = importlib.util.spec_from_file_location("broken_service", BROKEN_SERVICE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert len(module.FAULTS) >= 8
    for fault in module.FAULTS:
        assert f"\n{fault}\n" in module.__doc__, fault


# The command, against a fake service.

REQUIRED_ONLY = ["Put", "Get", "History", "Search", "Update", "Delete", "Export", "Import",
                 "GetCapabilities"]


class _Abort(Exception):
    pass


def _fake_handler() -> grpc.GenericRpcHandler:
    """GetCapabilities with the REQUIRED operations only; every other method
    fails with UNIMPLEMENTED UNSUPPORTED_FEATURE and no pointer."""
    def capabilities(request: bytes, context: grpc.ServicerContext) -> bytes:
        req: Any = message_class("GetCapabilitiesRequest").FromString(request)
        return to_message("GetCapabilitiesResponse", {
            "specversion": "1.0", "operation_id": req.operation_id,
            "implementation": "fake", "specversions": ["1.0"],
            "operations": REQUIRED_ONLY, "limits": {
                "max_document_bytes": 4194304, "max_depth": 64, "max_batch_records": 100,
                "max_string_bytes": 1048576, "max_items": 100000, "max_dimensions": 4096}}
        ).SerializeToString()

    def unsupported(request: Any, context: grpc.ServicerContext) -> bytes:
        error = {"code": "unimplemented", "reason": "UNSUPPORTED_FEATURE",
                 "message": "not implemented"}
        context.abort_with_status(_FakeStatus(grpc.StatusCode.UNIMPLEMENTED, "not implemented",
                                              ((DETAILS_KEY, _status(12, error)),)))
        raise _Abort

    def stream(request: bytes, context: grpc.ServicerContext) -> Iterator[bytes]:
        unsupported(request, context)
        yield b""

    handlers = {m: grpc.unary_unary_rpc_method_handler(unsupported) for m in OPERATIONS}
    handlers["GetCapabilities"] = grpc.unary_unary_rpc_method_handler(capabilities)
    handlers["Watch"] = grpc.unary_stream_rpc_method_handler(stream)
    handlers["Export"] = grpc.unary_stream_rpc_method_handler(stream)
    handlers["Import"] = grpc.stream_unary_rpc_method_handler(unsupported)
    return grpc.method_handlers_generic_handler(SERVICE, handlers)


class _FakeStatus(grpc.Status):  # type: ignore[misc]
    def __init__(self, code: grpc.StatusCode, details: str,
                 trailing_metadata: tuple[tuple[str, bytes], ...]) -> None:
        self.code = code
        self.details = details
        self.trailing_metadata = trailing_metadata


@pytest.fixture(scope="module")
def fake_target() -> Iterator[str]:
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
    server.add_generic_rpc_handlers((_fake_handler(),))
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    yield f"127.0.0.1:{port}"
    server.stop(0).wait()


def counts(run: Any) -> tuple[int, ...]:
    match = SUMMARY.match(run.last_line)
    assert match, run.stdout + run.stderr
    return tuple(int(x) for x in match.groups())


def test_capability_gated_scenarios_are_skipped(run_cli: Any, fake_target: str) -> None:
    run = run_cli("service", "--target", fake_target, "--case", "Required.Service.Watch.*",
                  "--verbose")
    assert run.status == 2, run.stdout + run.stderr
    passed, failed, skipped = counts(run)
    assert passed == failed == 0 and skipped >= 5
    assert "does not announce the feature watch" in run.stdout
    assert "no case ran" in run.stderr


def test_a_run_with_failures_and_reports(run_cli: Any, fake_target: str,
                                         tmp_path: Path) -> None:
    run = run_cli("service", "--target", fake_target, "--case", "Required.Service.Capabilities.*",
                  "Required.Service.Put.Replace", "--report-json", str(tmp_path / "r.json"),
                  "--junit", str(tmp_path / "j.xml"), "--tenant-prefix", "test-")
    assert run.status == 1, run.stdout + run.stderr
    # LargeMessages is skipped: the fake states max_document_bytes 4 MiB.
    assert counts(run) == (4, 2, 1)
    assert "FAIL Required.Service.Put.Replace" in run.stdout
    assert "FAIL Required.Service.Capabilities.UnannouncedFeaturesRejected" in run.stdout
    assert "service: fake" in run.stdout and "tenants test-" in run.stdout
    report = json.loads((tmp_path / "r.json").read_text("utf-8"))
    assert report["suite"] == "service" and report["passed"] is False
    assert {c["id"] for c in report["cases"] if c["status"] == "failed"} == {
        "Required.Service.Put.Replace",
        "Required.Service.Capabilities.UnannouncedFeaturesRejected"}
    root = ET.parse(tmp_path / "j.xml").getroot()
    assert len(list(root.iter("testcase"))) == 7
    known = tmp_path / "known.txt"
    known.write_text("Required.Service.Put.Replace  # no Put\n"
                     "Required.Service.Capabilities.UnannouncedFeaturesRejected\n", "utf-8")
    again = run_cli("service", "--target", fake_target, "--case",
                    "Required.Service.Capabilities.*", "Required.Service.Put.Replace",
                    "--known-failures", str(known))
    assert again.status == 0, again.stdout
    assert again.last_line == "4 passed, 2 failed, 1 skipped"


def test_unreachable_service(run_cli: Any) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    run = run_cli("service", "--target", f"127.0.0.1:{port}", "--timeout", "0.5")
    assert run.status == 2 and "cannot be used" in run.stderr and run.stdout == ""


def test_service_usage_errors(run_cli: Any, fake_target: str, tmp_path: Path) -> None:
    assert run_cli("service").status == 2
    run = run_cli("service", "--target", fake_target, "--case", "Nothing.*")
    assert run.status == 2 and "no case matches" in run.stderr
    bad = tmp_path / "bad.txt"
    bad.write_text("not an id!\n", "utf-8")
    assert run_cli("service", "--target", fake_target, "--known-failures", str(bad)).status == 2
    assert run_cli("service", "--help").status == 0
