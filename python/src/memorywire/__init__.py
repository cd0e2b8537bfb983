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
