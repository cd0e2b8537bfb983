"""RFC 3339 timestamps <-> (seconds, nanoseconds) since the Unix epoch."""

from __future__ import annotations

from datetime import date, datetime, timedelta

_EPOCH_ORDINAL = date(1970, 1, 1).toordinal()
_EPOCH = datetime(1970, 1, 1)
MIN_SECONDS = (date(1, 1, 1).toordinal() - _EPOCH_ORDINAL) * 86400
MAX_SECONDS = (date(9999, 12, 31).toordinal() - _EPOCH_ORDINAL) * 86400 + 86399


def _days_from_civil(y: int, m: int, d: int) -> int:
    # Days since 1970-01-01 of a proleptic Gregorian date, in integers only.
    y -= m <= 2
    era = (y if y >= 0 else y - 399) // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


_fromisoformat = datetime.fromisoformat
_SECOND = timedelta(seconds=1)
#: The nanoseconds of one unit of a fraction of each number of digits.
_FRACTION_UNIT = {n: 10 ** (9 - n) for n in range(1, 10)}


def parse(text: str) -> tuple[int, int]:
    """Seconds and nanoseconds of a timestamp the validator has accepted."""
    if len(text) < 20:
        return _parse(text)
    try:
        # The date and time of day in C; the year 0000 and other dates
        # datetime refuses take the arithmetic below.
        seconds = (_fromisoformat(text[:19]) - _EPOCH) // _SECOND
    except ValueError:
        return _parse(text)
    if text[19] == ".":
        digits = text[20:-1]
        return seconds, int(digits) * _FRACTION_UNIT[len(digits)]
    return seconds, 0


def _parse(text: str) -> tuple[int, int]:
    days = _days_from_civil(int(text[0:4]), int(text[5:7]), int(text[8:10]))
    seconds = days * 86400 + int(text[11:13]) * 3600 + int(text[14:16]) * 60 + int(text[17:19])
    nanos = 0
    if text[19] == ".":
        digits = text[20:-1]
        nanos = int(digits) * 10 ** (9 - len(digits))
    return seconds, nanos


def format(seconds: int, nanos: int) -> str:
    """The canonical form: no fraction when it is zero, else 3, 6 or 9 digits."""
    # The date and time of day in C: isoformat pads the year to four digits.
    try:
        head = (_EPOCH + timedelta(seconds=seconds)).isoformat()
    except OverflowError:
        raise ValueError(f"{seconds} s from the epoch is outside 0001..9999") from None
    if nanos == 0:
        return head + "Z"
    if nanos % 1_000_000 == 0:
        return f"{head}.{nanos // 1_000_000:03d}Z"
    if nanos % 1000 == 0:
        return f"{head}.{nanos // 1000:06d}Z"
    return f"{head}.{nanos:09d}Z"


def canonical(text: str) -> str:
    """The canonical spelling of a valid timestamp."""
    if len(text) == 20 or (len(text) in (24, 27, 30) and text[-4:-1] != "000"):
        return text
    return format(*parse(text))


def in_range(seconds: int, nanos: int) -> bool:
    return MIN_SECONDS <= seconds <= MAX_SECONDS and 0 <= nanos < 1_000_000_000
