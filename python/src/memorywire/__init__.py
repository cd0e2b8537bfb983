"""memorywire: the reference codec of the vendor-neutral wire format for AI-agent memory."""

from memorywire.errors import (
    DecodeError,
    LimitError,
    MemorywireError,
    UnrepresentableError,
    ValidationError,
    Violation,
)

__version__ = "0.1.0.dev0"
SPECVERSION = "1.0"

__all__ = [
    "SPECVERSION",
    "DecodeError",
    "LimitError",
    "MemorywireError",
    "UnrepresentableError",
    "ValidationError",
    "Violation",
    "__version__",
]

from memorywire.convert import convert, detect_encoding  # noqa: E402
from memorywire.limits import Limits  # noqa: E402
from memorywire.validation import iter_errors, validate  # noqa: E402

__all__ += ["Client", "Limits", "ServiceError", "convert", "detect_encoding", "iter_errors", "tls_credentials",
            "validate"]


def __getattr__(name: str) -> object:
    # The client needs grpc, which users of the codec alone need not load.
    if name in ("Client", "ServiceError", "tls_credentials"):
        from memorywire import client

        return getattr(client, name)
    raise AttributeError(f"module 'memorywire' has no attribute {name!r}")
