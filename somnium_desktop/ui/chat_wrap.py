"""Chat lines as the list and its tooltips show them: a long run without a space may wrap
anywhere."""

from __future__ import annotations

import html
import itertools
import re
import unicodedata

BREAK = "\u200b"  # a zero-width space: Qt may wrap a line there, and draws nothing
JOINER = "\u200d"  # (keeps emoji sequences whole)
LONG_RUN = 16  # characters without a space beyond which a run may break anywhere
_LONG = re.compile(rf"\S{{{LONG_RUN + 1},}}")


def _breakable(run: str) -> str:
    """`run` with a break before each character that starts a new one on screen (not
    before an accent or other mark, nor around a joiner)."""
    out = [run[0]]
    for before, char in itertools.pairwise(run):
        if char != JOINER and before != JOINER and not unicodedata.category(char).startswith("M"):
            out.append(BREAK)
        out.append(char)
    return "".join(out)


def wrappable(text: str) -> str:
    """`text` for display in a word-wrapped list: each run of more than LONG_RUN characters
    without a space (a link, "aaaa…") may break between any two of its characters, so the
    line wraps inside the panel instead of widening it. Words of ordinary length are kept
    whole; only the display changes (the breaks are invisible)."""
    return _LONG.sub(lambda run: _breakable(run.group(0)), text)


def wrapped_tip(text: str) -> str:
    """`text` as a tooltip that wraps: Qt wraps a rich-text tooltip to a readable width (a
    plain one is a single line, 2,000 pixels wide for a 300-letter word), the breaks of
    `wrappable` let a long run wrap too, and the text is escaped, so a message's "<b>" is
    shown as written, never as markup."""
    return f'<p style="white-space:pre-wrap">{html.escape(wrappable(text))}</p>'
