"""The odds a table shows, and the same counted card by card, for the odds' tests."""

from __future__ import annotations

from fractions import Fraction

from somnium_desktop.game import View
from somnium_desktop.game.cards import Kind, full_deck
from somnium_desktop.ui.table import TableWidget


def counted(view: View) -> tuple[str, str, str]:
    """The bust and Death chances and the Fools left, counted card by card from what is out."""
    out = [*view.table, *view.discard, *view.banks[0], *view.banks[1]]
    unseen = [card for card in set(full_deck()) if card not in out]  # (each card once)
    suits = {card.suit for card in view.table}
    bust = sum(1 for card in unseen if card.suit is not None and card.suit in suits)
    death = sum(1 for card in unseen if card.kind is Kind.DEATH)
    fools = 3 - sum(1 for card in out if card.kind is Kind.FOOL)

    def shown(count: int) -> str:
        value = Fraction(count, view.deck_count)
        return "<1%" if 0 < value < Fraction(1, 200) else f"{round(float(value) * 100)}%"

    return f"Bust {shown(bust)}", f"Death {shown(death)}", f"Fools left {fools}"


def odds_shown(table: TableWidget) -> list[str]:
    return [label.text() for label in table.scene.odds_labels if label.isVisible()]
