"""Where a chat line may wrap: anywhere in a long run without a space, never inside a word
of ordinary length, nor between a letter and its accent."""

from __future__ import annotations

from somnium_desktop.ui.chat_wrap import BREAK, LONG_RUN, wrappable


def test_only_long_runs_get_breaks_and_the_text_stays_the_same() -> None:
    short = "congratulations, well played"
    assert wrappable(short) == short
    line = "Ada: see https://example.invalid/a/very/long/path ok"
    shown = wrappable(line)
    assert shown.replace(BREAK, "") == line
    assert shown.startswith("Ada: see h" + BREAK + "t" + BREAK) and shown.endswith("h ok")
    assert wrappable("a" * (LONG_RUN + 1)).count(BREAK) == LONG_RUN


def test_a_letter_keeps_its_accent_and_an_emoji_sequence_stays_whole() -> None:
    accented = "e\u0301" * 20  # é as a letter and a combining accent
    assert BREAK + "\u0301" not in wrappable(accented)
    family = "\U0001f469\u200d\U0001f467" * 10
    shown = wrappable(family)
    assert BREAK + "\u200d" not in shown and "\u200d" + BREAK not in shown
    assert shown.replace(BREAK, "") == family


def test_a_skin_tone_or_a_flag_stays_with_its_emoji() -> None:
    """A break between an emoji and its skin tone, or between a flag's two letters, showed
    them apart: a thumb and a colour swatch, the letters F and R."""
    for emoji in ("\U0001f44d\U0001f3fd", "\U0001f1eb\U0001f1f7", "\u1100\u1161\u11a8"):
        run = emoji * 9  # (a thumb of a skin tone, the French flag, a syllable in jamo)
        shown = wrappable(run)
        assert shown.split(BREAK) == [emoji] * 9, emoji
