"""How the ``service`` command reaches a service: TLS (``--tls-ca``), mutual
TLS (``--tls-cert``/``--tls-key``) and a bearer token (``--token-file``),
against a small in-process service that answers GetCapabilities and records
the ``authorization`` metadata of every call. Certificates are made by the
openssl command."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent import futures
from pathlib import Path
from typing import Any

import grpc
import pytest
from tls_support import Pki, make_pki

from memorywire_conformance.service.client import Client
from memorywire_conformance.service.descriptors import SERVICE, message_class
from memorywire_conformance.service.transport import NO_TOKEN, Security, is_local, secure_channel
from memorywire_conformance.service.wire import to_message

TOKEN = "runner-Token_1.x~"
CAPABILITIES = "Required.Service.Capabilities.AnyTenantOrNone"


class Fake:
    """A service that answers GetCapabilities and keeps what each call sent
    as ``authorization``; with ``token``, it refuses calls without it."""

    def __init__(self, token: str | None = None) -> None:
        self.token = token
        self.seen: list[list[str]] = []
        self.keys: list[list[str]] = []

    def capabilities(self, request: bytes, context: grpc.ServicerContext) -> bytes:
        metadata = context.invocation_metadata()
        auth = [v for k, v in metadata if k == "authorization"]
        self.seen.append(auth)
        self.keys.append([k for k, _ in metadata])
        if self.token is not None and auth != [f"Bearer {self.token}"]:
            context.abort(grpc.StatusCode.UNAUTHENTICATED, "no credentials")
        req: Any = message_class("GetCapabilitiesRequest").FromString(request)
        return to_message("GetCapabilitiesResponse", {
            "specversion": "1.0", "operation_id": req.operation_id, "implementation": "fake",
            "specversions": ["1.0"], "operations": ["Put", "Get", "History", "Search", "Update",
                                                    "Delete", "Export", "Import",
                                                    "GetCapabilities"]}).SerializeToString()

    def serve(self, credentials: grpc.ServerCredentials | None) -> Iterator[str]:
        server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
        server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(SERVICE, {
            "GetCapabilities": grpc.unary_unary_rpc_method_handler(self.capabilities)}),))
        if credentials is None:
            port = server.add_insecure_port("127.0.0.1:0")
        else:
            port = server.add_secure_port("127.0.0.1:0", credentials)
        server.start()
        try:
            yield f"127.0.0.1:{port}"
        finally:
            server.stop(0).wait()


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    return make_pki(tmp_path_factory.mktemp("pki"))


@pytest.fixture
def token_file(tmp_path: Path) -> Path:
    path = tmp_path / "token"
    path.write_text(TOKEN + "\n", "utf-8")
    return path


def _server_credentials(pki: Pki, mutual: bool) -> grpc.ServerCredentials:
    return grpc.ssl_server_credentials(
        [(pki.server_key.read_bytes(), pki.server_cert.read_bytes())],
        root_certificates=pki.client_ca.read_bytes() if mutual else None,
        require_client_auth=mutual)


def test_token_on_every_call(run_cli: Any, token_file: Path) -> None:
    """The token goes with every call, those with metadata of their own
    (a malformed tenant) included."""
    fake = Fake(TOKEN)
    for target in fake.serve(None):
        run = run_cli("service", "--target", target, "--case", CAPABILITIES,
                      "--token-file", str(token_file))
        assert run.status == 0 and run.last_line == "1 passed, 0 failed, 0 skipped", run.stdout
        assert "(plain channel; bearer token)" in run.stdout
        assert TOKEN not in run.stdout + run.stderr
        without = run_cli("service", "--target", target, "--case", CAPABILITIES)
        assert without.status == 2 and "UNAUTHENTICATED" in without.stderr
    assert len(fake.seen) >= 5
    assert fake.seen[:-1] == [[f"Bearer {TOKEN}"]] * (len(fake.seen) - 1)
    assert fake.seen[-1] == []


def test_tls_and_token(run_cli: Any, pki: Pki, token_file: Path) -> None:
    fake = Fake(TOKEN)
    for target in fake.serve(_server_credentials(pki, mutual=False)):
        run = run_cli("service", "--target", target, "--case", CAPABILITIES,
                      "--tls-ca", str(pki.ca), "--token-file", str(token_file))
        assert run.status == 0 and run.last_line == "1 passed, 0 failed, 0 skipped", run.stdout
        assert "(TLS; bearer token)" in run.stdout
        # A CA that did not sign the service, and a plain channel, do not connect.
        for options in (("--tls-ca", str(pki.stranger_ca)), ()):
            run = run_cli("service", "--target", target, "--case", CAPABILITIES,
                          "--timeout", "1", *options)
            assert run.status == 2 and "cannot be used" in run.stderr, run.stderr


def test_mutual_tls(run_cli: Any, pki: Pki) -> None:
    fake = Fake()
    for target in fake.serve(_server_credentials(pki, mutual=True)):
        run = run_cli("service", "--target", target, "--case", CAPABILITIES, "--tls-ca",
                      str(pki.ca), "--tls-cert", str(pki.client_cert), "--tls-key",
                      str(pki.client_key))
        assert run.status == 0 and "(mutual TLS)" in run.stdout, run.stdout + run.stderr
        anonymous = run_cli("service", "--target", target, "--case", CAPABILITIES, "--tls-ca",
                            str(pki.ca), "--timeout", "1")
        assert anonymous.status == 2 and "cannot be used" in anonymous.stderr
    assert fake.seen and all(auth == [] for auth in fake.seen)


def test_option_errors(run_cli: Any, pki: Pki, token_file: Path, tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.write_text("\n", "utf-8")
    two = tmp_path / "two"
    two.write_text(f"{TOKEN} {TOKEN}\n", "utf-8")
    missing = tmp_path / "missing"
    target = "127.0.0.1:9"  # never reached: every run fails before it connects
    cases = [
        (("--tls-cert", str(pki.client_cert)), "--tls-cert needs --tls-key"),
        (("--tls-key", str(pki.client_key)), "--tls-key needs --tls-cert"),
        (("--tls-ca", str(missing)), f"cannot read the CA certificates (--tls-ca) {missing}"),
        (("--tls-ca", str(pki.client_key)), "holds no PEM certificate"),
        (("--tls-cert", str(pki.client_key), "--tls-key", str(pki.client_key)),
         "holds no PEM certificate"),
        (("--tls-cert", str(pki.client_cert), "--tls-key", str(pki.client_cert)),
         "holds no PEM private key"),
        (("--token-file", str(missing)), f"cannot read the token file {missing}"),
        (("--token-file", str(empty)), "is empty"),
        (("--token-file", str(two)), "does not hold one bearer token"),
        (("--narrow-token-file", str(token_file)), "--narrow-token-file needs --token-file"),
        (("--token-file", str(token_file), "--narrow-token-file", str(empty)), "is empty"),
    ]
    for options, message in cases:
        run = run_cli("service", "--target", target, *options)
        assert run.status == 2 and message in run.stderr, (options, run.stderr)
        assert TOKEN not in run.stderr and run.stdout == ""
    for remote in ("10.1.2.3:50051", "memory.example.com:443", "[2001:db8::1]:1"):
        run = run_cli("service", "--target", remote, "--token-file", str(token_file))
        assert run.status == 2 and "a token is sent only over TLS" in run.stderr, run.stderr


@pytest.mark.parametrize(("target", "local"), [
    ("127.0.0.1:50051", True), ("localhost:1", True), ("[::1]:1", True), ("unix:/tmp/s", True),
    ("unix-abstract:s", True), ("dns:///localhost:1", True), ("ipv4:127.0.0.1:1,127.0.0.9:1", True),
    ("10.0.0.1:1", False), ("0.0.0.0:1", False), ("[::]:1", False), ("example.com:443", False),
    ("ipv4:127.0.0.1:1,10.0.0.1:1", False), ("http://127.0.0.1:1", False), ("", False),
])
def test_local_targets(target: str, local: bool) -> None:
    assert is_local(target) is local


@pytest.mark.parametrize("token", [TOKEN, None])
def test_a_call_marked_to_go_without_the_token(token: str | None) -> None:
    """A call with the NO_TOKEN metadata leaves without the token, and the
    marker itself never leaves the runner, with a token or without one."""
    fake = Fake()
    for target in fake.serve(None):
        channel = secure_channel(target, Security(token=token), [])
        try:
            client = Client(channel, "acme", 5.0)
            client.call("GetCapabilities", {},
                        metadata=((NO_TOKEN, "1"), ("memorywire-tenant", "acme")))
            client.call("GetCapabilities", {})
        finally:
            channel.close()
    assert fake.seen == [[], [f"Bearer {token}"] if token else []]
    assert all(NO_TOKEN not in keys for keys in fake.keys)
    assert "memorywire-tenant" in fake.keys[0]
