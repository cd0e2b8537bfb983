"""TLS, mutual TLS and bearer tokens (grpc-binding.md section 3.2): a real
server on loopback with certificates made by openssl, the client's TLS
credentials and its refusal to send a token in the clear, the tokens file,
and the start failures of ``memorywire serve``."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from service_helpers import fact, fails, send
from tls_helpers import Pki, make_pki

from memorywire._transport import is_local
from memorywire.client import Client, tls_credentials
from memorywire.service.server import MemoryServer, Tls, load_tokens, main

TOKENS = {"tok-acme.1": ["acme"], "tok-all_2": "*", "tok-two~3": ["acme", "globex"]}


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    return make_pki(tmp_path_factory.mktemp("pki"))


@pytest.fixture(scope="module")
def tokens_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("tokens") / "tokens.json"
    path.write_text(json.dumps(TOKENS), "utf-8")
    return path


def _serve(**kwargs: Any) -> Iterator[str]:
    server = MemoryServer(":memory:", "127.0.0.1:0", log=None, **kwargs)
    port = server.start()
    try:
        yield f"127.0.0.1:{port}"
    finally:
        server.stop(grace=0.5)


@pytest.fixture(scope="module")
def tls_target(pki: Pki) -> Iterator[str]:
    yield from _serve(tls=Tls.from_files(pki.server_cert, pki.server_key))


@pytest.fixture(scope="module")
def mtls_target(pki: Pki) -> Iterator[str]:
    yield from _serve(tls=Tls.from_files(pki.server_cert, pki.server_key, pki.client_ca))


@pytest.fixture(scope="module")
def token_target(pki: Pki, tokens_file: Path) -> Iterator[str]:
    yield from _serve(tls=Tls.from_files(pki.server_cert, pki.server_key),
                      tokens=load_tokens(tokens_file))


def _unreachable(client: Client) -> None:
    e = fails("UNAVAILABLE", lambda: client.get("x"))
    assert e.code == "UNAVAILABLE"


# -- TLS --------------------------------------------------------------------------------------


def test_tls_client_with_the_ca(tls_target: str, pki: Pki) -> None:
    port = tls_target.rsplit(":", 1)[1]
    for target, ca in ((tls_target, pki.ca), (f"localhost:{port}", pki.ca.read_bytes())):
        with Client(target, tenant="acme", credentials=tls_credentials(ca=ca), timeout=10) as mw:
            mw.put(fact("f1", "over TLS"))
            assert mw.get("f1")["records"][0]["fact"]["text"] == "over TLS"


def test_tls_client_without_the_ca_fails(tls_target: str, pki: Pki) -> None:
    # The system's roots, a CA that did not sign the server, and a plain channel.
    for credentials in (tls_credentials(), tls_credentials(ca=str(pki.stranger_ca)), None):
        with Client(tls_target, tenant="acme", credentials=credentials, timeout=5) as mw:
            _unreachable(mw)


def test_mutual_tls(mtls_target: str, pki: Pki) -> None:
    with Client(mtls_target, tenant="acme", credentials=tls_credentials(ca=pki.ca),
                timeout=5) as anonymous:
        _unreachable(anonymous)
    # A certificate the client CA did not sign: the server's own.
    with Client(mtls_target, tenant="acme", timeout=5, credentials=tls_credentials(
            ca=pki.ca, cert=pki.server_cert, key=pki.server_key)) as stranger:
        _unreachable(stranger)
    with Client(mtls_target, tenant="acme", timeout=10, credentials=tls_credentials(
            ca=pki.ca, cert=pki.client_cert, key=pki.client_key)) as mw:
        mw.put(fact("f1", "over mutual TLS"))
        assert mw.get("f1")["records"][0]["fact"]["text"] == "over mutual TLS"


def test_tls_credentials_arguments(pki: Pki, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="needs its private key"):
        tls_credentials(ca=pki.ca, cert=pki.client_cert)
    with pytest.raises(ValueError, match="certificate"):
        tls_credentials(key=pki.client_key)
    with pytest.raises(ValueError, match="cannot read the CA certificates"):
        tls_credentials(ca=tmp_path / "missing.pem")
    import memorywire

    assert memorywire.tls_credentials is tls_credentials


# -- bearer tokens ----------------------------------------------------------------------------


def test_tokens_over_tls(token_target: str, pki: Pki) -> None:
    def client(tenant: str, token: str | None) -> Client:
        return Client(token_target, tenant=tenant, token=token, timeout=10,
                      credentials=tls_credentials(ca=pki.ca))

    with client("acme", "tok-acme.1") as mw:
        mw.put(fact("f1", "acme's"))
        assert mw.get("f1")["records"][0]["fact"]["text"] == "acme's"
    with client("globex", "tok-acme.1") as mw:
        e = fails("TENANT_MISMATCH", lambda: mw.get("f1"))
        assert e.code == "PERMISSION_DENIED" and e.pointer == ""
        assert mw.capabilities()["implementation"] == "memorywire-reference"
    with client("globex", "tok-two~3") as mw:
        assert mw.get("f1")["missing_ids"] == ["f1"]
    with client("anyone-at-all", "tok-all_2") as mw:
        assert mw.get("f1")["missing_ids"] == ["f1"]
    for token in (None, "tok-unknown", "tok-acme.1x", "Tok-acme.1"):
        with client("acme", token) as mw:
            e = fails("CREDENTIALS_INVALID", lambda: mw.get("f1"))  # noqa: B023
            assert e.code == "UNAUTHENTICATED" and e.pointer == ""
            fails("CREDENTIALS_INVALID", lambda: mw.capabilities())  # noqa: B023


def test_tokens_file(tokens_file: Path) -> None:
    assert load_tokens(tokens_file) == {"tok-acme.1": frozenset({"acme"}), "tok-all_2": None,
                                        "tok-two~3": frozenset({"acme", "globex"})}


SECRET = "s3cret-Token"


@pytest.mark.parametrize(("content", "problem"), [
    ("{not json", "is not JSON: "),
    ('["' + SECRET + '"]', "holds list, not an object that maps each bearer token"),
    ("null", "holds null, not an object"),
    ("{}", "holds no token"),
    ('{"": ["acme"]}', "entry 1: the token is empty"),
    ('{"a": "*", "' + SECRET + ' x": ["acme"]}', "entry 2: a token is made of the characters"),
    ('{"' + SECRET + '": "acme"}', 'entry 1: a token maps to a list of tenant names or to "*"'),
    ('{"' + SECRET + '": [1]}', "entry 1: a token maps to a list of tenant names"),
    ('{"' + SECRET + '": []}', "entry 1: the token covers no tenant"),
    ('{"' + SECRET + '": [""]}', "entry 1: a tenant name has 1 to 256 code points"),
    # Written the wrong way round, the value is the token: it is never quoted.
    ('{"acme": "' + SECRET + '"}', 'entry 1: a token maps to a list of tenant names or to "*", not another string'),
    ('{"acme": {"token": "' + SECRET + '"}}', "not an object"),
    ('{"' + SECRET + '": ["a"], "' + SECRET + '": "*"}', "gives a token twice"),
])
def test_bad_tokens_files(tmp_path: Path, content: str, problem: str) -> None:
    path = tmp_path / "tokens.json"
    path.write_text(content, "utf-8")
    with pytest.raises(ValueError) as info:
        load_tokens(path)
    assert problem in str(info.value) and str(path) in str(info.value)
    assert SECRET not in str(info.value)


# -- serve --------------------------------------------------------------------------------------


def _start_failure(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(["--listen", "127.0.0.1:0", "--store", ":memory:", *argv]) == 1
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1, lines
    entry = json.loads(lines[0])
    assert entry["level"] == "error" and entry["event"] == "start_failed"
    return str(entry["error"])


def test_serve_start_failures(capsys: pytest.CaptureFixture[str], pki: Pki, tokens_file: Path,
                              tmp_path: Path) -> None:
    bad_json = tmp_path / "bad.json"
    bad_json.write_text('{"' + SECRET + '": ["acme"],}', "utf-8")
    shape = tmp_path / "shape.json"
    shape.write_text('{"' + SECRET + '": "acme"}', "utf-8")
    empty = tmp_path / "empty.json"
    empty.write_text('{"": "*"}', "utf-8")
    not_pem = tmp_path / "not.pem"
    not_pem.write_text("hello", "utf-8")
    missing = tmp_path / "missing.json"
    cert, key = str(pki.server_cert), str(pki.server_key)
    cases = [
        (["--tokens", str(bad_json)], f"the tokens file {bad_json} is not JSON"),
        (["--tokens", str(shape)], "entry 1: a token maps to a list of tenant names"),
        (["--tokens", str(empty)], "entry 1: the token is empty"),
        (["--tokens", str(missing)], f"cannot read the tokens file {missing}: No such file"),
        (["--tokens", str(tmp_path)], f"cannot read the tokens file {tmp_path}: Is a directory"),
        (["--tls-cert", cert], "--tls-cert needs --tls-key"),
        (["--tls-key", key], "--tls-key needs --tls-cert"),
        (["--tls-client-ca", str(pki.client_ca)], "--tls-client-ca (mutual TLS) needs --tls-cert"),
        (["--tls-cert", str(missing), "--tls-key", key],
         f"cannot read the TLS certificate {missing}: No such file"),
        (["--tls-cert", cert, "--tls-key", str(missing)], f"cannot read the TLS private key {missing}"),
        (["--tls-cert", str(not_pem), "--tls-key", key],
         f"the TLS certificate {not_pem} holds no PEM certificate"),
        (["--tls-cert", cert, "--tls-key", str(pki.server_cert)],
         f"the TLS private key {pki.server_cert} holds no PEM private key"),
        (["--tls-cert", cert, "--tls-key", str(pki.client_key)], "cannot be used together"),
        (["--tls-cert", cert, "--tls-key", key, "--tls-client-ca", str(not_pem)],
         f"the TLS client CA {not_pem} holds no PEM certificate"),
        (["--listen", "0.0.0.0:0", "--tokens", str(tokens_file)],
         "bearer tokens without TLS on 0.0.0.0:0, which is not a loopback address"),
        (["--listen", "[::]:0", "--tokens", str(tokens_file)], "--allow-insecure-credentials"),
    ]
    for argv, message in cases:
        error = _start_failure(capsys, *argv)
        assert message in error, (argv, error)
        assert all(token not in error for token in (SECRET, *TOKENS))


def test_serve_with_tls_and_tokens(pki: Pki, tokens_file: Path) -> None:
    """memorywire serve with mutual TLS and tokens: the start is logged, the
    tokens are not, and a client with its certificate and a token works."""
    argv = [sys.executable, "-m", "memorywire.service.server", "--listen", "127.0.0.1:0",
            "--store", ":memory:", "--tls-cert", str(pki.server_cert), "--tls-key",
            str(pki.server_key), "--tls-client-ca", str(pki.client_ca), "--tokens", str(tokens_file)]
    proc = subprocess.Popen(argv, stderr=subprocess.PIPE, text=True, env=dict(os.environ))
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()
        while line and not line.startswith('{"time"'):  # lines of the gRPC runtime, if any
            line = proc.stderr.readline()
        entry = json.loads(line)
        assert entry["event"] == "listening", line
        assert (entry["tls"], entry["mutual_tls"], entry["credentials"]) == (True, True, "bearer tokens")
        assert entry["page_cursor_ttl_s"] == 86400
        port = re.fullmatch(r"127\.0\.0\.1:(\d+)", entry["address"])
        assert port is not None
        with Client(f"127.0.0.1:{port.group(1)}", tenant="acme", token="tok-acme.1", timeout=10,
                    credentials=tls_credentials(pki.ca, pki.client_cert, pki.client_key)) as mw:
            assert mw.get("x")["missing_ids"] == ["x"]
    finally:
        proc.terminate()
        _, rest = proc.communicate(timeout=15)
    log = line + rest
    assert proc.returncode == 0, log
    assert all(token not in log for token in TOKENS)
    assert '"event":"stopped"' in log


def test_insecure_credentials_need_consent() -> None:
    with pytest.raises(ValueError, match="not a loopback address"):
        MemoryServer(":memory:", "192.0.2.1:50051", tokens={"t": None}, log=None)
    server = MemoryServer(":memory:", "192.0.2.1:50051", tokens={"t": None}, log=None,
                          allow_insecure_credentials=True)
    server.store.close()
    server = MemoryServer(":memory:", "192.0.2.1:50051", tokens={"t": None}, log=None,
                          tls=Tls(b"chain", b"key"))
    server.store.close()
    for listen in ("127.0.0.1:0", "localhost:0", "[::1]:0", "unix:/tmp/memorywire.sock"):
        server = MemoryServer(":memory:", listen, tokens={"t": None}, log=None)
        server.store.close()


# -- the client -------------------------------------------------------------------------------


@pytest.mark.parametrize("target", ["10.1.2.3:50051", "memory.example.com:443", "0.0.0.0:50051",
                                    "[2001:db8::1]:50051", "dns:///memory.example.com:443",
                                    "ipv4:127.0.0.1:1,10.0.0.1:1", "localhost.example.com:1"])
def test_client_sends_no_token_in_the_clear(target: str) -> None:
    with pytest.raises(ValueError, match="a token is sent only over TLS"):
        Client(target, tenant="acme", token="t")
    Client(target, tenant="acme").close()  # without a token, a plain channel is the caller's choice
    Client(target, tenant="acme", token="t", credentials=tls_credentials()).close()


@pytest.mark.parametrize("target", ["127.0.0.1:50051", "127.1.2.3:1", "localhost:50051", "[::1]:50051",
                                    "::1", "localhost", "dns:///localhost:50051", "dns://8.8.8.8/localhost:1",
                                    "ipv4:127.0.0.1:1,127.0.0.2:1", "ipv6:[::1]:1", "unix:/tmp/mw.sock",
                                    "unix:///tmp/mw.sock", "unix-abstract:mw", "[::ffff:127.0.0.1]:1"])
def test_local_targets(target: str) -> None:
    assert is_local(target)
    Client(target, tenant="acme", token="t").close()


@pytest.mark.parametrize("target", ["", ":50051", "[::]:1", "http://127.0.0.1:1", "10.0.0.1",
                                    "dns:///", "ipv4:127.0.0.1:1,10.0.0.1:1", "127.0.0.1.example.com:1"])
def test_not_local_targets(target: str) -> None:
    assert not is_local(target)


def test_server_tokens_from_python() -> None:
    """MemoryServer(tokens=...) reads "*" and None as every tenant, refuses
    one string for a collection of tenants (it would match substrings) and
    keeps digests of the tokens, not the tokens."""
    server = MemoryServer(":memory:", "127.0.0.1:0", tokens={"tok-a.1": "*", "tok-b.2": None,
                                                               "tok-c.3": ["acme"]}, log=None)
    try:
        assert server.tokens is not None and len(server.tokens) == 3
        assert all(isinstance(k, bytes) and len(k) == 32 for k in server.tokens)
        assert sorted(v is None for v in server.tokens.values()) == [False, True, True]
        assert "tok-a.1" not in repr(server.tokens)
    finally:
        server.store.close()
    for tokens, problem in (({"tok": "acme-corp"}, "not one string"), ({"tok": []}, "at least one tenant"),
                            ({"": ["acme"]}, "non-empty string"), ({"tok x": "*"}, "RFC 6750")):
        with pytest.raises(ValueError, match=problem):
            MemoryServer(":memory:", "127.0.0.1:0", tokens=tokens, log=None)  # type: ignore[arg-type]


def test_the_scheme_of_authorization(token_target: str, pki: Pki) -> None:
    """The scheme is read without regard to case; the rest is the token to
    the letter: another case, a second space or another scheme is not."""

    channel = grpc.secure_channel(token_target, tls_credentials(ca=pki.ca))
    try:
        for value in ("Bearer tok-acme.1", "bearer tok-acme.1", "BEARER tok-acme.1"):
            send(channel, "Get", {"ids": ["x"]}, "acme", (("authorization", value),))
        for value in ("Bearer  tok-acme.1", "Bearer tok-acme.1 ", "Basic tok-acme.1", "Bearer Tok-acme.1",
                      "Bearertok-acme.1"):
            fails("CREDENTIALS_INVALID", lambda v=value: send(  # type: ignore[misc]
                channel, "Get", {"ids": ["x"]}, "acme", (("authorization", v),)))
    finally:
        channel.close()
