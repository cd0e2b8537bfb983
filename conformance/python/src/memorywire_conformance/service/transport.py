"""How the runner reaches a service: a plain channel or TLS (mutual TLS with
a client certificate), and a bearer token sent on every call
(grpc-binding.md section 3.2).

The token is added to every call of the channel, the scenarios' own
metadata included, so that a scenario about the tenant metadata gets past
the credentials (the first check of grpc-binding.md section 3.4) and tests
what it means to. A call whose metadata holds ``authorization`` already is
sent as it is. A token is never sent over a plain channel to a target that
is not on this machine.
"""

from __future__ import annotations

import collections
import ipaddress
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import grpc

__all__ = ["NO_TOKEN", "Security", "SecurityError", "is_local", "read_security", "secure_channel"]

#: Metadata that a scenario gives to send a call without the token; the
#: channel removes it before the call leaves (outside the memorywire-
#: prefix, which the specification keeps for itself).
NO_TOKEN = "x-conformance-no-token"

#: A bearer token (RFC 6750 section 2.1, b64token).
_TOKEN = re.compile(r"[A-Za-z0-9\-._~+/]+=*")


class SecurityError(Exception):
    """A TLS or token option that cannot be used; the message names it."""


@dataclass(frozen=True)
class Security:
    """TLS (``tls``; ``root_certificates`` None for the system's roots; a
    client certificate for mutual TLS) and the bearer token of the calls."""

    tls: bool = False
    root_certificates: bytes | None = None
    certificate_chain: bytes | None = None
    private_key: bytes | None = field(default=None, repr=False)
    token: str | None = field(default=None, repr=False)
    #: A token the service accepts that covers none of the runner's tenants.
    narrow_token: str | None = field(default=None, repr=False)

    def describe(self) -> str:
        """How the channel is secured, for the report (never the token)."""
        if not self.tls:
            text = "plain channel"
        elif self.certificate_chain is not None:
            text = "mutual TLS"
        else:
            text = "TLS"
        return text + ("; bearer token" if self.token is not None else "")


def _read(path: str, what: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as e:
        raise SecurityError(f"cannot read the {what} {path}: {e.strerror or e}") from None


def read_security(target: str, *, tls: bool = False, ca: str | None = None,
                  cert: str | None = None, key: str | None = None,
                  token_file: str | None = None,
                  narrow_token_file: str | None = None) -> Security:
    """The Security of the command-line options: ``--tls``, ``--tls-ca``,
    ``--tls-cert``/``--tls-key``, ``--token-file`` and
    ``--narrow-token-file``. SecurityError for a file that cannot be read or
    holds no PEM certificate or key, a certificate without its key, a token
    file that holds no single token, a narrow token without the token, and a
    token over a plain channel to a target that is not on this machine."""
    if (cert is None) != (key is None):
        given, missing = ("--tls-cert", "--tls-key") if key is None else ("--tls-key", "--tls-cert")
        raise SecurityError(f"{given} needs {missing}: a client certificate and its key")
    roots = chain = private = None
    if ca is not None:
        roots = _read(ca, "CA certificates (--tls-ca)")
        if b"-----BEGIN CERTIFICATE-----" not in roots:
            raise SecurityError(f"the CA file {ca} (--tls-ca) holds no PEM certificate")
    if cert is not None and key is not None:
        chain = _read(cert, "client certificate (--tls-cert)")
        if b"-----BEGIN CERTIFICATE-----" not in chain:
            raise SecurityError(f"the client certificate {cert} (--tls-cert) holds no PEM "
                                "certificate")
        private = _read(key, "client key (--tls-key)")
        if not re.search(rb"-----BEGIN (?:[A-Z0-9]+ )?PRIVATE KEY-----", private):
            raise SecurityError(f"the client key {key} (--tls-key) holds no PEM private key")
    token = _read_token(token_file) if token_file is not None else None
    narrow = _read_token(narrow_token_file) if narrow_token_file is not None else None
    if narrow is not None and token is None:
        raise SecurityError("--narrow-token-file needs --token-file: the scenarios write with the "
                            "token that covers every tenant")
    secure = tls or ca is not None or cert is not None
    if target.lower().startswith(("http://", "https://")):
        # The HTTP binding: the scheme says whether TLS is used.
        https = target.lower().startswith("https://")
        if secure and not https:
            raise SecurityError(f"--tls, --tls-ca and --tls-cert are options of https:// "
                                f"targets; {target} is plain HTTP")
        secure = https
        target = urlsplit(target).hostname or ""
    if token is not None and not secure and not is_local(target):
        raise SecurityError(f"a token is sent only over TLS: {target} is not on this machine; "
                            "give --tls-ca FILE (or --tls for the system's root certificates)")
    return Security(secure, roots, chain, private, token, narrow)


def _read_token(path: str) -> str:
    try:
        text = Path(path).read_text("utf-8")
    except (OSError, UnicodeDecodeError) as e:
        why = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
        raise SecurityError(f"cannot read the token file {path}: {why}") from None
    token = text.strip()
    if not token:
        raise SecurityError(f"the token file {path} is empty")
    if not _TOKEN.fullmatch(token):
        raise SecurityError(f"the token file {path} does not hold one bearer token: a "
                            "token is made of the characters A-Z a-z 0-9 - . _ ~ + / and may "
                            "end in = (RFC 6750 section 2.1)")
    return token


def secure_channel(target: str, security: Security,
                   options: list[tuple[str, Any]]) -> grpc.Channel:
    """A channel to ``target`` as ``security`` says."""
    if security.tls:
        credentials = grpc.ssl_channel_credentials(
            root_certificates=security.root_certificates, private_key=security.private_key,
            certificate_chain=security.certificate_chain)
        channel = grpc.secure_channel(target, credentials, options=options)
    else:
        channel = grpc.insecure_channel(target, options=options)
    if security.token is not None and not security.tls and not is_local(target):
        channel.close()
        raise SecurityError(f"a token is sent only over TLS: {target} is not on this machine")
    return grpc.intercept_channel(channel, _Bearer(security.token))


_Fields = collections.namedtuple(
    "_Fields", ("method", "timeout", "metadata", "credentials", "wait_for_ready", "compression"))


class _Details(_Fields, grpc.ClientCallDetails):  # type: ignore[misc]
    """The details of a call, with other metadata."""


class _Bearer(grpc.UnaryUnaryClientInterceptor,  # type: ignore[misc]
              grpc.UnaryStreamClientInterceptor,  # type: ignore[misc]
              grpc.StreamUnaryClientInterceptor,  # type: ignore[misc]
              grpc.StreamStreamClientInterceptor):  # type: ignore[misc]
    """Adds ``authorization: Bearer TOKEN`` to every call that has none,
    except a call that asks for none with the metadata ``NO_TOKEN``, which
    never leaves the runner."""

    def __init__(self, token: str | None) -> None:
        self._header = ("authorization", f"Bearer {token}") if token is not None else None

    def _with_token(self, details: Any) -> Any:
        metadata = list(details.metadata or ())
        if any(key == NO_TOKEN for key, _ in metadata):
            metadata = [(k, v) for k, v in metadata if k != NO_TOKEN]
        elif self._header is None or any(key == "authorization" for key, _ in metadata):
            return details
        else:
            metadata.append(self._header)
        return _Details(details.method, details.timeout, tuple(metadata), details.credentials,
                        getattr(details, "wait_for_ready", None),
                        getattr(details, "compression", None))

    def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
        return continuation(self._with_token(details), request)

    def intercept_unary_stream(self, continuation: Any, details: Any, request: Any) -> Any:
        return continuation(self._with_token(details), request)

    def intercept_stream_unary(self, continuation: Any, details: Any, requests: Any) -> Any:
        return continuation(self._with_token(details), requests)

    def intercept_stream_stream(self, continuation: Any, details: Any, requests: Any) -> Any:
        return continuation(self._with_token(details), requests)


# -- which targets stay on this machine -------------------------------------------------


def _host(address: str) -> str | None:
    if address.startswith("["):
        end = address.find("]")
        return address[1:end] if end > 1 else None
    if address.count(":") > 1:
        return address  # a bare IPv6 address, without a port
    host = address.rsplit(":", 1)[0] if ":" in address else address
    return host or None


def _local_host(host: str) -> bool:
    if host.lower().rstrip(".") == "localhost":
        return True
    try:
        ip = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped.is_loopback
    return ip.is_loopback


def is_local(target: str) -> bool:
    """Whether a gRPC target names this machine only: a Unix domain socket
    (``unix:``, ``unix-abstract:``), ``localhost``, or a loopback address
    (127.0.0.0/8, ``::1``), also in the ``dns:``, ``ipv4:`` and ``ipv6:``
    forms of gRPC names."""
    text = target.strip()
    lowered = text.lower()
    if lowered.startswith(("unix:", "unix-abstract:")):
        return True
    for scheme in ("dns:", "ipv4:", "ipv6:"):
        if lowered.startswith(scheme):
            text = text[len(scheme):]
            if text.startswith("//"):  # dns://AUTHORITY/HOST:PORT, dns:///HOST:PORT
                slash = text.find("/", 2)
                text = text[slash + 1:] if slash >= 0 else ""
            break
    else:
        if "://" in text:
            return False
    parts = [p.strip() for p in text.split(",")] if lowered.startswith(("ipv4:", "ipv6:")) \
        else [text]
    hosts = [_host(part) for part in parts]
    return bool(hosts) and all(h is not None and _local_host(h) for h in hosts)
