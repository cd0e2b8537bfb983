"""``Client``: the operations of the service on a blocking gRPC channel."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import grpc

from memorywire.client._shared import (
    Doc,
    ExportReader,
    Operations,
    Settings,
    Streamed,
    Unary,
    Upload,
    service_error,
    watch_event,
)


class WatchStream:
    """The events of a Watch as they arrive: iterate it for ChangeEvent
    documents (``cursor``, ``type``, ``record``); ``cursor`` is the cursor of
    the last event received, to resume from; ``cancel()`` ends the stream."""

    def __init__(self, call: Any) -> None:
        self._call = call
        self.cursor: str | None = None
        self._cancelled = False

    def __iter__(self) -> Iterator[Doc]:
        return self

    def __next__(self) -> Doc:
        try:
            data = next(self._call)
        except grpc.RpcError as e:
            if self._cancelled and e.code() == grpc.StatusCode.CANCELLED:
                raise StopIteration from None
            raise service_error(e) from None
        event = watch_event(data)
        self.cursor = event["cursor"]
        return event

    def cancel(self) -> None:
        self._cancelled = True
        self._call.cancel()

    def __enter__(self) -> WatchStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.cancel()


class Client(Operations[Doc, WatchStream, Iterator[Doc]]):
    """A client of a memorywire service at ``target`` (``"host:port"``),
    acting for ``tenant``. ``credentials`` are gRPC channel credentials,
    such as :func:`tls_credentials`; without them the channel is plain, for
    loopback. ``token`` is sent as ``authorization: Bearer <token>``, and
    only over TLS or to a target on this machine (loopback or a Unix domain
    socket): a token with a plain channel to any other target is a
    ValueError (grpc-binding.md section 3.2). ``timeout`` is the deadline of
    every call but Watch, in seconds."""

    def __init__(self, target: str, *, tenant: str | None = None,
                 credentials: grpc.ChannelCredentials | None = None, token: str | None = None,
                 timeout: float | None = 60.0, options: Sequence[tuple[str, Any]] = ()) -> None:
        settings = Settings.of(target, tenant, credentials, token, options)
        opts = list(settings.options)
        if credentials is not None:
            self.channel = grpc.secure_channel(target, credentials, opts)
        else:
            self.channel = grpc.insecure_channel(target, opts)
        self.tenant = tenant
        self.timeout = timeout
        self.metadata = settings.metadata
        self._stubs: dict[str, Any] = {}

    def close(self) -> None:
        self.channel.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the transport ------------------------------------------------------------------

    def _unary(self, call: Unary) -> Doc:
        data = call.encode()
        stub = self._stubs.get(call.path)
        if stub is None:
            stub = self._stubs[call.path] = self.channel.unary_unary(call.path)
        try:
            out = stub(data, metadata=self.metadata, timeout=call.timeout)
        except grpc.RpcError as e:
            raise service_error(e) from None
        return call.decode(out)

    def _watch(self, call: Streamed) -> WatchStream:
        rpc = self.channel.unary_stream(call.path)(call.data, metadata=self.metadata, timeout=call.timeout)
        # The service sends its headers once the start is fixed: waiting for
        # them makes "from now" include every change made after this returns.
        rpc.initial_metadata()
        return WatchStream(rpc)

    def _export(self, call: Streamed) -> Iterator[Doc]:
        stream = self.channel.unary_stream(call.path)(call.data, metadata=self.metadata, timeout=call.timeout)

        reader = call.reader or ExportReader()

        def records() -> Iterator[Doc]:
            try:
                for message in stream:
                    yield from reader.records(message)
            except grpc.RpcError as e:
                raise service_error(e) from None
            reader.finish()

        return records()

    def _import(self, call: Upload) -> Doc:
        try:
            out = self.channel.stream_unary(call.path)(iter(call.messages), metadata=self.metadata,
                                                       timeout=call.timeout)
        except grpc.RpcError as e:
            raise service_error(e) from None
        return call.decode(out)
