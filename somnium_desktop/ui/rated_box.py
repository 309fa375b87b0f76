"""The Create game's Rated box: rated or casual, for games between two people only."""

from __future__ import annotations

from PySide6.QtWidgets import QCheckBox, QComboBox, QWidget

COMPUTER_TIP = "Games against the computer are never rated"
PERSON_TIP = "Rated: the game counts for both players' ratings; unticked, it is casual"


class RatedBox(QCheckBox):
    """Ticked (rated) by default. Greyed out and unticked while the opponent chosen is a
    computer (the combo's data is a level key then); the person's choice comes back with a
    person opponent."""

    def __init__(self, opponent: QComboBox, parent: QWidget | None = None) -> None:
        super().__init__("Rated", parent)
        self.setAccessibleName("Rated game")
        self.opponent = opponent
        self.wanted = True  # the person's choice, kept while a computer is chosen
        self.setChecked(True)
        self.toggled.connect(self._toggled)
        opponent.currentIndexChanged.connect(lambda _: self.offer())
        self.offer()

    def rated(self) -> bool:
        """Whether the game to create is rated."""
        return self.isEnabled() and self.isChecked()

    def offer(self) -> None:
        person = self.opponent.currentData() is None
        self.setEnabled(person)
        self.blockSignals(True)
        self.setChecked(person and self.wanted)
        self.blockSignals(False)
        self.setToolTip(PERSON_TIP if person else COMPUTER_TIP)

    def _toggled(self, checked: bool) -> None:
        if self.isEnabled():
            self.wanted = checked
