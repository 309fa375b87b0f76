"""Chat lines as the list and its tooltips show them: a long run without a space may wrap
anywhere."""

from __future__ import annotations

import html
import itertools
import re

from PySide6.QtCore import QTextBoundaryFinder

BREAK = "\u200b"  # a zero-width space: Qt may wrap a line there, and draws nothing
LONG_RUN = 16  # characters without a space beyond which a run may break anywhere
_LONG = re.compile(rf"\S{{{LONG_RUN + 1},}}")


def _breakable(run: str) -> str:
    """`run` with a break between each two of the characters it shows (Unicode's grapheme
    clusters: a letter with its accents, an emoji with its skin tone or the ones joined to
    it, a flag's two letters, a Hangul syllable in jamo), never inside one."""
    finder = QTextBoundaryFinder(QTextBoundaryFinder.BoundaryType.Grapheme, run)
    # (the finder counts UTF-16 units: a character beyond the first 65,536, an emoji, is two)
    ends = {unit: n + 1 for n, unit in enumerate(
        itertools.accumulate(2 if ord(char) > 0xFFFF else 1 for char in run))}
    shown, start = [], 0
    while (boundary := finder.toNextBoundary()) > 0:
        end = ends[boundary]
        shown.append(run[start:end])
        start = end
    return BREAK.join(shown)


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
