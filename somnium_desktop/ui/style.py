"""The app's look: Fusion with a night-blue palette, and the table's widget styles."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication, QStyleFactory, QWidget

WINDOW = "#17152e"
PANEL = "#1f1c3d"
BASE = "#141229"
TEXT = "#ece7ff"
MUTED = "#a9a3cc"
ACCENT = "#f4c95d"
ACCENT_TEXT = "#231a05"
FOCUS = "#7fd0ff"  # the keyboard focus: sky blue, never the gold of whose turn it is
ERROR = "#ff8f8f"

STYLE_SHEET = f"""
QWidget {{ font-size: 10pt; }}
#tableHeader {{ background: {PANEL}; border-bottom: 1px solid #2e2a57; }}
#gameName {{ font-size: 12pt; font-weight: 600; color: {TEXT}; }}
#gameId {{ color: {MUTED}; }}
#watchingBadge {{ color: {ACCENT_TEXT}; background: {ACCENT}; border-radius: 8px;
                  padding: 1px 8px; font-weight: 600; }}
#playerStrip {{ background: {WINDOW}; border-left: 4px solid transparent; }}
#playerStrip[active="true"] {{ background: #262151; border-left: 4px solid {ACCENT}; }}
#turnMarker {{ color: {ACCENT}; }}
#playerName {{ font-size: 11pt; font-weight: 600; color: {TEXT}; }}
#playerScore {{ font-size: 11pt; color: {ACCENT}; font-weight: 600; }}
#playerNote {{ color: {MUTED}; }}
#playerRating {{ font-size: 10pt; color: {MUTED}; }}
#playerClock {{ font-size: 11pt; color: {TEXT}; border: 1px solid #4a4385; border-radius: 6px;
                padding: 0 6px; }}
#playerClock[warning="true"] {{ color: {ACCENT_TEXT}; background: {ERROR}; border-color: {ERROR};
                                font-weight: 600; }}
#controls {{ background: {PANEL}; border-top: 1px solid #2e2a57; }}
#status {{ color: {MUTED}; padding-left: 8px; }}
#status[error="true"] {{ color: {ERROR}; }}
QToolButton#tableButton, QToolButton#primaryButton, QPushButton#primaryButton {{
    border: 1px solid #4a4385; border-radius: 6px; padding: 5px 14px;
    background: #2b2659; color: {TEXT}; }}
QToolButton#tableButton, QToolButton#primaryButton {{ min-width: 64px; }}
QToolButton#tableButton[brief="true"] {{ min-width: 24px; padding: 5px 10px; }}
QToolButton#tableButton:hover, QToolButton#primaryButton:hover {{ background: #39327a; }}
QToolButton#primaryButton, QPushButton#primaryButton {{
    background: {ACCENT}; color: {ACCENT_TEXT}; border-color: #c99d2c; font-weight: 600; }}
QToolButton#primaryButton:hover, QPushButton#primaryButton:hover {{ background: #ffd877; }}
QToolButton:disabled#tableButton, QToolButton:disabled#primaryButton,
QPushButton:disabled#primaryButton {{
    background: #221f44; color: #5f5a88; border-color: #2f2b58; }}
QToolButton:focus {{ outline: none; border: 2px solid #ffffff; }}
QGraphicsView#cardTable {{ border: 2px solid transparent; }}
QGraphicsView#cardTable:focus {{ border: 2px solid {FOCUS}; }}
#gameList:focus {{ border: 1px solid {FOCUS}; }}
QDialogButtonBox {{ dialogbuttonbox-buttons-have-icons: 0; }}
#gameList::item:focus {{ border: 1px solid #ffffff; }}
#gameOver {{ background: rgba(20, 18, 41, 225); border: 1px solid {ACCENT}; border-radius: 14px; }}
#gameOverTitle {{ font-size: 20pt; font-weight: 700; color: {ACCENT}; }}
#gameOverDetail {{ font-size: 11pt; color: {TEXT}; }}
#gameOverRatings {{ font-size: 11pt; color: {ACCENT}; }}
QToolButton#closeButton {{ border: none; background: transparent; color: {MUTED};
                          padding: 2px 6px; }}
QToolButton#closeButton:hover {{ color: {TEXT}; }}
#sidePanel {{ background: {PANEL}; border-left: 1px solid #2e2a57; }}
#panelTitle {{ font-size: 11pt; font-weight: 600; color: {TEXT}; }}
#panelHint {{ color: {MUTED}; }}
#gameLog {{ background: {BASE}; border: 1px solid #2e2a57; border-radius: 6px; color: {TEXT};
            padding: 4px; }}
"""




def check_box_sheet() -> str:
    """Check boxes drawn by the style sheet: Fusion's own box is drawn in the palette's base
    colour on the window's, about 1.1:1 here, and an unchecked one was all but invisible."""
    from ..assets import resource_path

    tick = resource_path("ui", "check.svg").as_posix()
    return f"""
QCheckBox::indicator {{ width: 14px; height: 14px; border: 2px solid {MUTED};
                       border-radius: 4px; background: {BASE}; }}
QCheckBox::indicator:hover {{ border-color: {TEXT}; }}
QCheckBox::indicator:checked {{ background: {ACCENT}; border-color: {ACCENT};
                               image: url("{tick}"); }}
QCheckBox::indicator:disabled {{ border-color: #6a6594; }}
"""


STYLE = "Fusion"


def apply_style(app: QApplication, set_style: bool = True) -> None:
    """Give the app its night-table look on every platform.

    Without `set_style` the style is left alone: the app passes `-style Fusion` to its
    QApplication instead, which spares start-up Qt's QStyle type (and its enums) in Python."""
    if set_style:
        style = QStyleFactory.create(STYLE)
        if style is not None:
            app.setStyle(style)
    palette = QPalette()
    roles = {
        QPalette.ColorRole.Window: WINDOW,
        QPalette.ColorRole.WindowText: TEXT,
        QPalette.ColorRole.Base: BASE,
        QPalette.ColorRole.AlternateBase: PANEL,
        QPalette.ColorRole.Text: TEXT,
        QPalette.ColorRole.Button: "#2b2659",
        QPalette.ColorRole.ButtonText: TEXT,
        QPalette.ColorRole.Highlight: "#5a4fb3",
        QPalette.ColorRole.HighlightedText: "#ffffff",
        QPalette.ColorRole.ToolTipBase: PANEL,
        QPalette.ColorRole.ToolTipText: TEXT,
        QPalette.ColorRole.PlaceholderText: MUTED,
        QPalette.ColorRole.Link: ACCENT,
    }
    for role, colour in roles.items():
        palette.setColor(role, QColor(colour))
    for role in (QPalette.ColorRole.WindowText, QPalette.ColorRole.Text,
                 QPalette.ColorRole.ButtonText):
        palette.setColor(QPalette.ColorGroup.Disabled, role, QColor("#6a6594"))
    app.setPalette(palette)
    app.setStyleSheet(STYLE_SHEET + check_box_sheet())


def repolish(widget: QWidget) -> None:
    """Restyle `widget` after a change of a property its style sheet selects on. Before its
    first show there is nothing to redo (it is polished then), nor any QStyle to load."""
    if widget.testAttribute(Qt.WidgetAttribute.WA_WState_Polished):
        style = widget.style()
        style.unpolish(widget)
        style.polish(widget)
