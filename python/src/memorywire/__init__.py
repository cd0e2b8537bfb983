"""memorywire: the reference codec of the vendor-neutral wire format for AI-agent memory.

A plain install brings the codec and the command line; ``Client``,
``AsyncClient``, ``ServiceError`` and ``tls_credentials`` need the ``service`` extra
(``pip install 'memorywire[service]'``) and are loaded on first use.
"""

from typing import TYPE_CHECKING

from memorywire._codec import Float32Bytes
from memorywire._version import SPECVERSION, __version__
from memorywire.convert import convert, detect_encoding
from memorywire.errors import (
    DecodeError,
    LimitError,
    MemorywireError,
    UnrepresentableError,
    ValidationError,
    Violation,
)
from memorywire.limits import Limits
from memorywire.validation import iter_errors, validate

if TYPE_CHECKING:
    from memorywire.client import AsyncClient, Client, ServiceError, tls_credentials

__all__ = [
    "SPECVERSION",
    "AsyncClient",
    "Client",
    "DecodeError",
    "Float32Bytes",
    "LimitError",
    "Limits",
    "MemorywireError",
    "ServiceError",
    "UnrepresentableError",
    "ValidationError",
    "Violation",
    "__version__",
    "convert",
    "detect_encoding",
    "iter_errors",
    "tls_credentials",
    "validate",
]

_SERVICE_NAMES = ("AsyncClient", "Client", "ServiceError", "tls_credentials")


def __getattr__(name: str) -> object:
    # The client needs grpc, which users of the codec alone need not install.
    if name in _SERVICE_NAMES:
        from memorywire import client

        return getattr(client, name)
    raise AttributeError(f"module 'memorywire' has no attribute {name!r}")
