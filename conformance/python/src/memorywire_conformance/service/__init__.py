"""The service level of the conformance suite: scenarios run against a running
``memorywire.v1.MemoryService`` over gRPC (spec/v1/operations.md and
spec/v1/grpc-binding.md).

- :mod:`.descriptors`: the message types, from the committed descriptor set;
- :mod:`.wire`: messages from and to plain Python data;
- :mod:`.client`: calls by method path, the Error of the status details,
  Watch streams read with timeouts;
- :mod:`.transport`: TLS, mutual TLS and the bearer token of the calls;
- :mod:`.framework`: scenarios, their context and the suite;
- :mod:`.scenarios`: the scenarios, one module per area.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence
from typing import Any

import grpc

from memorywire_conformance.service.client import Client, RpcFailure
from memorywire_conformance.service.framework import SCENARIOS, Scenario, ServiceSuite
from memorywire_conformance.service.transport import Security, secure_channel

__all__ = ["MAX_MESSAGE_BYTES", "MAX_SEND_BYTES", "RpcFailure", "Scenario", "Security",
           "ServiceSuite",
           "all_scenarios", "capabilities", "open_channel", "select"]

#: The greatest message the runner receives: the default max_document_bytes.
MAX_MESSAGE_BYTES = 16 * 1024 * 1024
#: The greatest message the runner sends: room for a message larger than the
#: default max_document_bytes, which the service must refuse.
MAX_SEND_BYTES = 4 * MAX_MESSAGE_BYTES


def all_scenarios() -> list[Scenario]:
    """Every scenario, in report order."""
    from memorywire_conformance.service import scenarios  # noqa: F401 - registers them

    return list(SCENARIOS)


def open_channel(target: str, security: Security | None = None,
                 options: Sequence[tuple[str, Any]] = ()) -> grpc.Channel:
    """A channel to ``HOST:PORT``: plain, or with the TLS and the token of
    ``security``; ``options``: further channel options."""
    return secure_channel(target, security or Security(), [
        ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
        ("grpc.max_send_message_length", MAX_SEND_BYTES),
        ("grpc.enable_retries", 0),
        *options,
    ])


def capabilities(channel: grpc.Channel, timeout: float) -> dict[str, Any]:
    """The service's GetCapabilities answer; waits up to ``timeout`` seconds
    for the channel to connect. Raises RpcFailure."""
    try:
        grpc.channel_ready_future(channel).result(timeout=timeout)
    except grpc.FutureTimeoutError:
        raise RpcFailure("GetCapabilities", grpc.StatusCode.UNAVAILABLE,
                         f"no connection within {timeout:g} s") from None
    return Client(channel, None, timeout).call("GetCapabilities", {})


def select(scenarios: Sequence[Scenario], globs: Sequence[str] | None) -> list[Scenario]:
    """The scenarios whose id matches one of the globs (all of them without globs)."""
    if not globs:
        return list(scenarios)
    return [s for s in scenarios if any(fnmatch.fnmatchcase(s.id, g) for g in globs)]
