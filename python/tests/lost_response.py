"""A response lost on the way back: a gRPC proxy on loopback in front of a
service that forwards every call, but answers the first Puts with
UNAVAILABLE after the service has done them. A client that retries such a
write with a new request writes twice; with the same operation id, once."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent import futures
from contextlib import contextmanager
from typing import Any

import grpc


class LosingProxy(grpc.GenericRpcHandler):
    """Forwards to ``target``; the first ``lose`` Puts lose their response.
    ``lost`` counts the responses lost so far; ``front`` is the proxy's own
    address once it runs."""

    def __init__(self, target: str, lose: int = 1) -> None:
        self.channel = grpc.insecure_channel(target)
        self.lose = lose
        self.lost = 0
        self.front = ""

    def service(self, details: Any) -> grpc.RpcMethodHandler:
        method = details.method

        def forward(request: bytes, context: grpc.ServicerContext) -> bytes:
            metadata = [(k, v) for k, v in context.invocation_metadata() if not k.startswith((":", "grpc-"))]
            out: bytes = self.channel.unary_unary(method)(request, metadata=metadata, timeout=10)
            if method.endswith("/Put") and self.lost < self.lose:
                self.lost += 1
                context.abort(grpc.StatusCode.UNAVAILABLE, "the response was lost")
            return out

        return grpc.unary_unary_rpc_method_handler(forward)


@contextmanager
def losing_proxy(target: str, lose: int = 1) -> Iterator[LosingProxy]:
    """A :class:`LosingProxy` in front of ``target``, serving at ``.front``."""
    proxy = LosingProxy(target, lose)
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4), handlers=[proxy])
    proxy.front = f"127.0.0.1:{server.add_insecure_port('127.0.0.1:0')}"
    server.start()
    try:
        yield proxy
    finally:
        server.stop(grace=None)
        proxy.channel.close()
