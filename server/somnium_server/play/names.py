"""Names people type (display names, table names), cleaned one way: format characters such as
bidi overrides dropped, runs of spaces made one, control characters refused."""

from __future__ import annotations

import sys
import unicodedata


def _format_ranges() -> str:
    """Every format character (Cf) as a regular-expression class body of ranges."""
    points = [n for n in range(sys.maxunicode + 1) if unicodedata.category(chr(n)) == "Cf"]
    ranges: list[tuple[int, int]] = []
    for n in points:
        if ranges and ranges[-1][1] == n - 1:
            ranges[-1] = (ranges[-1][0], n)
        else:
            ranges.append((n, n))
    return "".join(_escape(a) if a == b else f"{_escape(a)}-{_escape(b)}" for a, b in ranges)


def _escape(point: int) -> str:
    """A code point as Python's and Rust's regular expressions both read it (and ECMAScript's,
    in the Basic Multilingual Plane)."""
    return f"\\u{point:04x}" if point <= 0xFFFF else f"\\U{point:08x}"


CONTROL = r"\x00-\x1f\x7f-\x9f"  # Unicode category Cc
# Letters and symbols that show nothing: the Hangul fillers and the blank Braille pattern.
BLANK = "\u115f\u1160\u3164\uffa0\u2800"
# What the OpenAPI description says of a name (clean_name decides): no control character, and
# one character at least that is neither a space, a format character nor a blank one.
VISIBLE_NAME = (
    f"^[^{CONTROL}]*[^\\s{CONTROL}{_format_ranges()}{''.join(_escape(ord(c)) for c in BLANK)}]"
    f"[^{CONTROL}]*$"
)


def clean_name(raw: str, longest: int) -> str | None:
    """`raw` with format characters (Unicode category Cf: bidi overrides, zero-width joiners)
    dropped and white space collapsed; None if that leaves no character, more than `longest`,
    any control character (Cc, e.g. NUL) or lone surrogate, or nothing that shows (only
    combining marks or blank letters)."""
    kept = "".join(ch for ch in raw if unicodedata.category(ch) != "Cf")
    name = " ".join(kept.split()).strip(BLANK).strip()
    if not 0 < len(name) <= longest:
        return None
    if any(unicodedata.category(ch) in ("Cc", "Cs") for ch in name):
        return None
    if not any(shows(ch) for ch in name):
        return None
    return name


def shows(ch: str) -> bool:
    """True for a character that draws something of its own."""
    return ch not in BLANK and unicodedata.category(ch) not in ("Mn", "Me", "Zs")
