"""schemathesis against schemas/v1/openapi.json and a live ``memorywire serve --http``.

schemathesis generates requests for every operation of the OpenAPI document
(bodies from the JSON Schemas it references, the headers it declares, and
requests that break them) and sends them to a real service on loopback, an
SQLite store behind it. Each response must not be a server error (5xx) and
must conform to the document: a status the operation declares, a
Content-Type it declares for that status, a body valid against the schema of
that content, the headers it declares. Whether a request the schemas allow
is accepted is not checked (see CHECKS). The service runs as a subprocess,
as ``memorywire serve`` runs.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis import checks

from memorywire.service.process import ServeProcess

ROOT = Path(__file__).resolve().parents[3]
OPENAPI = ROOT / "schemas" / "v1" / "openapi.json"
#: The examples schemathesis generates for each operation.
EXAMPLES = 25

schema = schemathesis.openapi.from_path(OPENAPI)

# Generating requests from the schemas of records takes a while the first
# time for each operation: make test runs this, make check does not.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(1200)]


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    store = tmp_path_factory.mktemp("schemathesis") / "memory.db"
    with ServeProcess(store, ["--quiet", "--http", "127.0.0.1:0", "--heartbeat", "0.5"]) as served:
        address = next(line["address"] for line in served.lines if line.get("event") == "listening_http")
        yield f"http://{address}"


@pytest.fixture(scope="module")
def session() -> Iterator[requests.Session]:
    with requests.Session() as s:
        yield s


#: What every response is checked for: no server error, and a status, a
#: Content-Type, headers and a body that the document declares. Not whether
#: a request the schemas allow is accepted: the schemas cannot state every
#: rule of the specification (a cursor the service issued, an id that
#: exists, a memorywire-operation-id header equal to the body's), so a 4xx
#: answer to such a request is the service's right, and its body is checked.
CHECKS = [checks.not_a_server_error, checks.status_code_conformance, checks.content_type_conformance,
          checks.response_headers_conformance, checks.response_schema_conformance]

#: The path of every operation the document describes.
PATHS = sorted(schema.raw_schema["paths"])


@pytest.mark.parametrize("path", PATHS, ids=[p.rsplit("/", 1)[-1] for p in PATHS])
def test_every_response_conforms_to_the_document(path: str, base_url: str,
                                                 session: requests.Session) -> None:
    operation = schema[path]["POST"]

    @given(case=operation.as_strategy())
    @settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck),
              database=None)
    def check(case: schemathesis.Case) -> None:
        # A timeout the client gives is honoured: the service answers one that
        # has passed with 504 DEADLINE_EXCEEDED (http-binding.md sections 3.5
        # and 4), the client's doing, not a server error; the generated
        # value is kept long enough for the request to be performed.
        if case.headers and "connect-timeout-ms" in case.headers:
            case.headers["connect-timeout-ms"] = str(max(30000, int(case.headers["connect-timeout-ms"])))
        # A generated Watch streams until max_events or the read timeout;
        # heartbeats keep a quiet one open meanwhile.
        case.call_and_validate(base_url=base_url, session=session, timeout=10, checks=CHECKS)

    check()
