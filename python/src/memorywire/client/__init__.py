"""A client of ``memorywire.v1.MemoryService`` (spec/v1/grpc-binding.md).

Every method takes and returns documents in their JSON form (dicts, as
:mod:`memorywire.json` reads them; each list and map of a response itself is
there, empty where the service sent none), fills in ``specversion`` and a fresh
``operation_id`` (a UUID) unless one is given, checks the request with the
codec before it is sent, and raises a :class:`memorywire.MemorywireError`:
the codec's ValidationError for a request that breaks a rule, and
:class:`ServiceError` (``.code``, ``.reason``, ``.pointer``, ``.violations``)
for every failure the service reports, built from the ``Error`` in the
status details.

Example::

    from memorywire.client import Client

    with Client("127.0.0.1:50051", tenant="acme") as mw:
        mw.put([
            {"id": "f1", "kind": "fact", "fact": {"text": "The user prefers window seats."},
             "embeddings": [{"model": "demo", "dimensions": 3, "values": [0.9, 0.1, 0.0]}]},
            {"id": "f2", "kind": "fact", "fact": {"text": "The user is vegetarian."},
             "embeddings": [{"model": "demo", "dimensions": 3, "values": [0.0, 0.2, 0.9]}]},
        ], scope={"user": "u-42"})

        by_text = mw.search("window seat", scope={"user": "u-42"})["hits"]
        by_vector = mw.search(vector={"model": "demo", "values": [0.0, 0.1, 1.0]}, limit=1)["hits"]

        stream = mw.watch(from_start=True)          # every change, as it happens
        first = next(stream)
        stream.cancel()                             # a disconnect ...
        for event in mw.watch(cursor=first["cursor"], max_events=1):
            print(event["type"], event["record"]["id"])   # ... resumed: f2, nothing repeated

Over TLS, with a bearer token (grpc-binding.md section 3.2)::

    from memorywire.client import Client, tls_credentials

    with Client("memory.example.com:443", tenant="acme", token=token,
                credentials=tls_credentials(ca="ca.pem")) as mw:
        ...

With asyncio, ``AsyncClient`` takes the same arguments and has the same
methods, each awaited; ``await mw.watch(...)`` gives a stream for ``async
for``, and ``mw.export()`` an async iterator::

    from memorywire.client import AsyncClient

    async with AsyncClient("127.0.0.1:50051", tenant="acme") as mw:
        await mw.put({"id": "f1", "kind": "fact", "fact": {"text": "The user prefers window seats."}})
        async with await mw.watch(from_start=True, max_events=1) as stream:
            async for event in stream:
                print(event["type"], event["record"]["id"])

``tls_credentials(ca, cert, key)`` trusts the CA certificates of ``ca``
(the system's roots without it) and, for mutual TLS, presents the client
certificate ``cert`` with its key ``key``. A token is sent only over TLS,
or over a plain channel to loopback or a Unix domain socket.
"""

from __future__ import annotations

import memorywire._extras

try:
    import grpc  # noqa: F401
except ImportError as _missing:  # a plain install: the codec and the CLI only
    raise ImportError(memorywire._extras.install_hint("memorywire.client", "service"),
                      name=_missing.name) from _missing

from memorywire.client._aio import AsyncClient, AsyncWatchStream
from memorywire.client._shared import MAX_MESSAGE_BYTES as MAX_MESSAGE_BYTES
from memorywire.client._shared import SERVICE as SERVICE
from memorywire.client._shared import Doc as Doc
from memorywire.client._shared import service_error as service_error
from memorywire.client._shared import tls_credentials
from memorywire.client._sync import Client, WatchStream
from memorywire.service.errors import ServiceError

__all__ = ["AsyncClient", "AsyncWatchStream", "Client", "ServiceError", "WatchStream", "tls_credentials"]
