"""The typed fast path, in C (_speedups.c): its scans, counts and whole path; the canonical
pass of the writers and the canonical Protobuf writer; and the reading of float32 vectors and the
sums of their squares."""

from collections.abc import Callable
from typing import Any

def json_scan(data: bytes, /) -> tuple[int, bool] | None:
    """The object members of a JSON text (its colons outside strings) and
    whether it holds neither an escape nor the byte DEL, or None when it
    holds the integer token -0 or a member name with an escape."""

def decimal_powers(table: bytes, /) -> None:
    """Set the powers of five with which JSON numbers are read (the
    Eisel-Lemire algorithm): 5^q for q from -342 to 308, 128 bits each, the
    high word first, both little-endian. Until set, every number but an
    integer token is read by PyOS_string_to_double."""

def json_numbers(text: bytes, /) -> list[float | int] | None:
    """The numbers of a JSON array of numbers, read as the scan reads a
    float32 vector ahead of the typed decoder: each as json.loads reads it;
    None for any other text, an integer token of more than 18 digits or -0,
    or a value beyond the float32 range."""

#: What the typed decoder of a JSON text reads in place of a float32 vector
#: the scan read ahead: the text of the JSON string "\u0001".
VECTOR_PLACEHOLDER: str

def msgpack_scan(data: bytes, /) -> tuple[int, int, bool] | None:
    """The map entries and timestamp extensions of the MessagePack object at
    the start of data and whether none of its strings holds a control
    character, or None when it is malformed, nests too deeply, has a key
    that is not a string, another extension, or a timestamp that is not
    whole microseconds."""

def tree_counts(tree: Any, texts: bool = False, /) -> tuple[int, int]:
    """The members of every dict of a tree of dicts and lists, and its
    datetimes; with texts, each datetime in a dict or list becomes its
    canonical spelling (whole microseconds: no fraction, 3 or 6 digits)."""

def value_ok(v: Any, depth: int, max_depth: int, max_items: int, max_chars: int, /) -> bool:
    """Whether a Value at the given depth is certainly within the rules: JSON
    types only, 64-bit integers, no float that might be a long integer token,
    within the depth, count and string limits."""

def pb_packed_field(data: bytes, number: int, /) -> bytes | None:
    """The bytes of the first length-delimited field ``number`` at the top
    level of a message's bytes, or None where there is none or the bytes
    before it are not readable."""

def pb_reader_tables(messages: tuple[tuple[tuple[Any, ...], ...], ...], /) -> Any:
    """The field tables of the compiled Protobuf reader, as a capsule: for
    each message, its fields (number, name, kind, repeated, is_map,
    presence, oneof, sub, wide, enum) in field-number order."""

def pb_read(tables: Any, data: bytes, root: int, max_depth: int, make_vector: Any, timestamp: Any,
            b64: Any, /) -> dict[str, Any] | None:
    """The JSON form of a message's bytes as ``_codec.from_proto`` gives it
    of the message upb parses, or None for that path to decide."""

def float32_le(values: Any, /) -> bytes | None:
    """The little-endian binary32 bytes of a list or tuple of floats and
    ints, each rounded to nearest; None when an item is of another type, an
    integer has no binary64 value, or a value is not finite once rounded."""
class FastPath:
    """The typed fast path of one message type in one encoding: called with
    a document's bytes (or, in JSON, its text), the scan, the typed decoder
    and the walk of the tree in one call; the document, or None when the
    walkers are to judge it.

    fields: (kind, message, least, most, oneof) of each field the walk has a
    job for; messages: (member name -> field index, whether exactly one
    member of each oneof is set, the name of the test of rules that span
    fields or None, the members it reads) of each message; top: the index
    of the document's message; limits: (max_document_bytes, max_depth,
    max_items, max_chars, max_dimensions); helpers: (vector, b64) for
    MessagePack values (a vector's bytes are checked finite in C), and the
    member names of float32 vector fields, whose numeric arrays the scan of
    a JSON text reads ahead of the typed decoder."""

    decode: Callable[[bytes], Any]
    decode_clean: Callable[[bytes], Any]

    def __new__(cls, msgpack: bool, decode: Callable[[bytes], Any], decode_clean: Callable[[bytes], Any],
                errors: tuple[type[BaseException], ...], fields: list[tuple[int, int, int, int, int]],
                messages: list[tuple[dict[str, int], tuple[bool, ...], str | None, tuple[str, ...]]], top: int,
                limits: tuple[int, int, int, int, int],
                helpers: tuple[Callable[[bytes], Any], Callable[[bytes], str], tuple[str, ...]]) -> FastPath: ...
    def __call__(self, data: bytes | str, /) -> dict[str, Any] | None: ...

def float32_sum_squares(raw: bytes, /) -> float | None:
    """The sum of the squares of little-endian binary32 values, each widened
    to binary64, added one after the other in binary64; None when the length
    is not a multiple of 4, or where C evaluates doubles in a wider format."""

# The canonical pass of the writers (memorywire._encode).

def canonical_tables(tables: list[tuple[list[tuple[str, str, bool, int, Any]], Any, Any]],
                     timestamp: type | None = None, /) -> Any:
    """The tables of the canonical pass, checked: for each message type, its
    fields (name, how a member changes, whether each element changes, the
    index of a message type, the function of one value), its walker and its
    generated function; and the type of the timestamps of the walkers of
    MessagePack (attributes seconds and nanoseconds)."""

def canonical(tables: Any, index: int, doc: Any, /) -> Any:
    """The canonical form of a valid document of the message type of index:
    what the generated function of the tables gives, the document itself
    where no member changes."""

def canonical_msgpack(tables: Any, index: int, fallback: Any, doc: Any, /) -> bytes:
    """The canonical MessagePack bytes of a valid document of the message
    type of index, as msgspec writes the canonical form of the tables'
    functions; fallback(doc) where anything is not certain."""

# The canonical Protobuf writer (memorywire._encode).

def pb_tables(tables: list[tuple[tuple[Any, ...], ...]], vector_type: type, bytes_type: type[bytes], /) -> None:
    """The field tables of pb_write: per message type, (name, tag, kind,
    presence, index of the message type, enum values by name) per field;
    the type of float32 vectors that keep their bytes (in raw), and that of
    vectors held as their bytes alone."""

def pb_write(index: int, d: Any, /) -> bytes | None:
    """The canonical Protobuf bytes of a validated document of the message
    type of table number index, or None where the writers in Python are to
    write it."""

def ordered_record(doc: dict[str, Any], /) -> dict[str, Any] | None:
    """A new dict of a record's members in the order of their names,
    ``embeddings`` last (left out when None), with the members of its
    lifecycle, provenance and scope in that order too; None where the
    record, one of those three or a name is not of the exact type."""

def record_row(
    doc: dict[str, Any],
    rid: int,
    tenant: int,
    seq: int,
    pos: int,
    words: int,
    terms: str | None,
    vector_type: type,
    dumps: Callable[[Any], bytes],
    counted_dumps: Callable[[Any], bytes],
    namespace_key: Callable[[Any], str],
    /,
) -> tuple[tuple[Any, ...], list[tuple[Any, ...]], list[tuple[Any, ...]]] | None:
    """The row of ``records`` of a new record as the store binds it, the
    rows of ``embeddings`` and the entries of the vector indexes; None where
    a value is not of the exact type the Python path takes for granted."""

def term_columns(
    split: list[list[str]], terms_of: dict[str, tuple[str, ...]], digits: int, /
) -> list[tuple[int, str | None]] | None:
    """For each text, given as its whitespace-separated chunks, its number
    of terms and its distinct terms in code point order with their counts
    (``"\\tterm:count"`` pieces and a closing tab), or ``(0, None)``; a
    chunk of 1 to ``digits`` ASCII digits missing from ``terms_of`` is its
    own term. None where another chunk is not in ``terms_of`` or a chunk,
    term or tuple is not of its exact type."""
