"""``AsyncClient``: the operations of the service on an asyncio gRPC
channel (``grpc.aio``), with the requests, responses and errors of
``Client``."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Sequence
from typing import Any

import grpc
import grpc.aio

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


class AsyncWatchStream:
    """The events of a Watch as they arrive: ``async for`` over it gives
    ChangeEvent documents (``cursor``, ``type``, ``record``); ``cursor`` is
    the cursor of the last event received, to resume from; ``cancel()``
    ends the stream, as leaving ``async with`` does."""

    def __init__(self, call: Any) -> None:
        self._call = call
        self.cursor: str | None = None
        self._cancelled = False

    def __aiter__(self) -> AsyncWatchStream:
        return self

    async def __anext__(self) -> Doc:
        try:
            data = await self._call.read()
        except asyncio.CancelledError:
            if self._cancelled:  # the call, not the task, was cancelled
                raise StopAsyncIteration from None
            raise
        except grpc.RpcError as e:
            if self._cancelled and e.code() == grpc.StatusCode.CANCELLED:
                raise StopAsyncIteration from None
            raise service_error(e) from None
        if data is grpc.aio.EOF:
            raise StopAsyncIteration
        event = watch_event(data)
        self.cursor = event["cursor"]
        return event

    def cancel(self) -> None:
        self._cancelled = True
        self._call.cancel()

    async def __aenter__(self) -> AsyncWatchStream:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.cancel()


class AsyncClient(Operations[Awaitable[Doc], Awaitable[AsyncWatchStream], AsyncIterator[Doc]]):
    """The asyncio client of a memorywire service at ``target``: the
    methods, arguments, results and errors of :class:`Client`, each
    awaited; ``await watch(...)`` gives an :class:`AsyncWatchStream` and
    ``export(...)`` an async iterator of records. Made inside a running
    event loop, and closed with ``await close()`` or ``async with``."""

    def __init__(self, target: str, *, tenant: str | None = None,
                 credentials: grpc.ChannelCredentials | None = None, token: str | None = None,
                 timeout: float | None = 60.0, options: Sequence[tuple[str, Any]] = ()) -> None:
        settings = Settings.of(target, tenant, credentials, token, options)
        opts = list(settings.options)
        if credentials is not None:
            self.channel = grpc.aio.secure_channel(target, credentials, opts)
        else:
            self.channel = grpc.aio.insecure_channel(target, opts)
        self.tenant = tenant
        self.timeout = timeout
        self.metadata = settings.metadata
        self._stubs: dict[str, Any] = {}

    async def close(self) -> None:
        await self.channel.close()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # -- the transport ------------------------------------------------------------------

    async def _unary(self, call: Unary) -> Doc:
        data = call.encode()
        stub = self._stubs.get(call.path)
        if stub is None:
            stub = self._stubs[call.path] = self.channel.unary_unary(call.path)
        try:
            out = await stub(data, metadata=self.metadata, timeout=call.timeout)
        except grpc.RpcError as e:
            raise service_error(e) from None
        return call.decode(out)

    async def _watch(self, call: Streamed) -> AsyncWatchStream:
        rpc = self.channel.unary_stream(call.path)(call.data, metadata=self.metadata, timeout=call.timeout)
        # The service sends its headers once the start is fixed: waiting for
        # them makes "from now" include every change made after this returns.
        try:
            await rpc.initial_metadata()
        except grpc.RpcError as e:
            raise service_error(e) from None
        return AsyncWatchStream(rpc)

    def _export(self, call: Streamed) -> AsyncIterator[Doc]:
        reader = call.reader or ExportReader()

        async def records() -> AsyncIterator[Doc]:
            rpc = self.channel.unary_stream(call.path)(call.data, metadata=self.metadata, timeout=call.timeout)
            try:
                async for message in rpc:
                    for record in reader.records(message):
                        yield record
            except grpc.RpcError as e:
                raise service_error(e) from None
            finally:
                rpc.cancel()
            reader.finish()

        return records()

    async def _import(self, call: Upload) -> Doc:
        try:
            out = await self.channel.stream_unary(call.path)(iter(call.messages), metadata=self.metadata,
                                                             timeout=call.timeout)
        except grpc.RpcError as e:
            raise service_error(e) from None
        return call.decode(out)
