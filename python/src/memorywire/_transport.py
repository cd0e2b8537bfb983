"""Which gRPC addresses stay on this machine.

grpc-binding.md section 3.2: credentials travel only over a channel with
transport security (TLS), or over a local channel: loopback or a Unix domain
socket. Both the client (for its target) and the service (for its listen
address) ask the same question.
"""

from __future__ import annotations

import ipaddress

__all__ = ["is_local"]


def _host(address: str) -> str | None:
    """The host of ``HOST:PORT``, ``[IPV6]:PORT``, ``HOST`` or a bare IPv6
    address; None when there is none."""
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


def is_local(address: str) -> bool:
    """Whether a gRPC target or listen address names this machine only: a
    Unix domain socket (``unix:``, ``unix-abstract:``), ``localhost``, or a
    loopback address (127.0.0.0/8, ``::1``), also in the ``dns:``, ``ipv4:``
    and ``ipv6:`` forms of gRPC names. Anything else, an address of every
    interface (``0.0.0.0``, ``[::]``) included, is not local."""
    text = address.strip()
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
            return False  # a scheme this check does not know
    parts = [part.strip() for part in text.split(",")] if lowered.startswith(("ipv4:", "ipv6:")) \
        else [text]
    hosts = [_host(part) for part in parts]
    return bool(hosts) and all(h is not None and _local_host(h) for h in hosts)
