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

__all__ += ["Limits", "convert", "detect_encoding", "iter_errors", "validate"]
