"""One card on the table: a pixmap Qt paints in C++, inside an animatable graphics object."""

from __future__ import annotations

from PySide6.QtCore import QSize, QSizeF, Qt
from PySide6.QtGui import QPixmap, QVector3D
from PySide6.QtWidgets import QGraphicsItem, QGraphicsPixmapItem, QGraphicsRotation, QGraphicsWidget

from ..game.cards import Card
from .cards import CardDeck


class CardItem(QGraphicsWidget):
    """A dumb card: it shows a face or its back and knows nothing of the rules.

    QGraphicsWidget is a concrete QGraphicsObject that paints nothing itself, so its `pos` can be
    animated by QPropertyAnimation while the child pixmap item does all the drawing; no Python
    paint method runs per frame. A flip is a rotation about the vertical axis (see `flip`).
    """

    def __init__(self, deck: CardDeck, parent: QGraphicsItem | None = None) -> None:
        super().__init__(parent)
        self._deck = deck
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemHasNoContents)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self._shadow = QGraphicsPixmapItem(self)
        self._shadow.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        self._face = QGraphicsPixmapItem(self)
        self._face.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        self.flip = QGraphicsRotation(self)
        self.flip.setAxis(Qt.Axis.YAxis)
        self.setTransformations([self.flip])
        self.card: Card | None = None
        self.face_up = False
        self._size = QSize(0, 0)
        self._ratio = 1.0

    def set_card(self, card: Card | None, face_up: bool) -> None:
        if card != self.card or face_up != self.face_up:
            self.card = card
            self.face_up = face_up and card is not None
            self._refresh()

    def show_face(self) -> None:
        """Turn the card face up (the second half of a flip)."""
        if not self.face_up and self.card is not None:
            self.face_up = True
            self._refresh()

    def set_size(self, size: QSize, ratio: float, shadow: QPixmap | None = None) -> None:
        self._size = size
        self._ratio = ratio
        self.resize(QSizeF(size))
        self.flip.setOrigin(QVector3D(size.width() / 2, size.height() / 2, 0))
        if shadow is not None:
            self._shadow.setPixmap(shadow)
            offset = (shadow.deviceIndependentSize().width() - size.width()) / 2
            self._shadow.setPos(-offset, -offset + size.height() * 0.02)
        self._refresh()

    @property
    def label(self) -> str:
        return self.card.label if self.card is not None and self.face_up else "face down"

    def _refresh(self) -> None:
        if self._size.isEmpty():
            return
        card = self.card if self.face_up else None
        self._face.setPixmap(self._deck.card_pixmap(card, self._size, self._ratio))
