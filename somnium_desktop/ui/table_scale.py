"""The table's words and result panel grow with the window, as its cards do, and the window's
menus and dialogs with them; the right-hand column's words (lobby, offline panel, log) grow
too, more modestly, on a wide window."""

from __future__ import annotations

# The table's size (pixels) in a 1280x800 window, where its text has the style sheet's sizes.
BASE_WIDTH, BASE_HEIGHT = 840, 740
FOLLOW = 0.6  # how much of the cards' growth the text follows (all of it would shout)
MOST = 1.8
STEP = 0.1  # the scale moves in steps, so a resize restyles the table rarely

# Object name -> the style sheet's point size at scale 1 (see style.STYLE_SHEET).
POINTS = {
    "gameName": 12, "gameId": 10, "watchingBadge": 10, "playerName": 11, "playerScore": 11,
    "playerNote": 10, "status": 10, "gameOverTitle": 20, "gameOverDetail": 11,
    "playerRating": 10, "gameOverRatings": 11, "coachAnswer": 10,
    "playerClock": 11, "replayMove": 10, "turnMarker": 10,
}


def scale_for(width: int, height: int) -> float:
    """The text's scale for a table of this size: 1 up to the base size, then more."""
    grown = min(width / BASE_WIDTH, height / BASE_HEIGHT)
    scale = 1 + max(0.0, grown - 1) * FOLLOW
    return round(min(MOST, scale) / STEP) * STEP


def scaled_sheet(scale: float) -> str:
    """The table's own style sheet at `scale` (it wins over the app's for the same rules)."""
    if scale <= 1:
        return ""
    rules = [f"#{name} {{ font-size: {points * scale:.1f}pt; }}" for name, points in POINTS.items()]
    buttons = round(5 * scale), round(14 * scale), f"{10 * scale:.1f}pt"
    rules.append("QToolButton#tableButton, QToolButton#primaryButton {{ padding: {}px {}px; "
                 "font-size: {}; }}".format(*buttons))
    close = round(2 * scale), round(6 * scale), f"{10 * scale:.1f}pt"
    rules.append("QToolButton#closeButton {{ padding: {}px {}px; font-size: {}; }}".format(*close))
    return "\n".join(rules)


# Room around a menu bar's item's words at scale 1 (pixels: top and bottom, left and right), as
# the Fusion style gives it; a style sheet's padding replaces it.
MENU_ITEM_PADDING = (3, 4)


def chrome_sheet(scale: float) -> str:
    """The style sheet of the window's menu bar (its menus inherit it) and of the questions
    the window and the table ask (message boxes), at `scale`: the table's text size."""
    if scale <= 1:
        return ""
    size = f"{10 * scale:.1f}pt"
    vertical, horizontal = (round(pixels * scale) for pixels in MENU_ITEM_PADDING)
    return (f"QMenuBar, QMenu {{ font-size: {size}; }}\n"
            f"QMenuBar::item {{ padding: {vertical}px {horizontal}px; }}\n"
            f"QMessageBox QWidget {{ font-size: {size}; }}")


# The right-hand column: its text has the style sheet's sizes up to this window width.
COLUMN_FROM = 1600
COLUMN_MOST = 1.4
# Selector -> the style sheet's size at scale 1 of plain words and panel titles.
WORDS_POINTS = {"QWidget": 10, "#panelTitle": 11}


def column_scale(window_width: int) -> float:
    """The column's text scale: 1 up to COLUMN_FROM pixels wide, then as the width grows."""
    scale = max(1.0, window_width / COLUMN_FROM)
    return round(min(COLUMN_MOST, scale) / STEP) * STEP


def words_sheet(scale: float) -> str:
    """Plain words and panel titles at `scale`: the style sheet of the column and of the
    dialogs (a widget's own sheet wins over the app's for the same rules)."""
    if scale <= 1:
        return ""
    return "\n".join(f"{selector} {{ font-size: {points * scale:.1f}pt; }}"
                     for selector, points in WORDS_POINTS.items())
