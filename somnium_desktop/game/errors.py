"""Why an action was refused: one exception per broken rule, each with a plain message."""

from __future__ import annotations


class IllegalAction(Exception):
    """An action the rules do not allow now; the game is left untouched."""

    code = "illegal_action"


class GameOver(IllegalAction):
    code = "game_over"

    def __init__(self) -> None:
        super().__init__("the game is over")


class NotYourTurn(IllegalAction):
    code = "not_your_turn"

    def __init__(self) -> None:
        super().__init__("it is not your turn")


class MustSteal(IllegalAction):
    code = "must_steal"

    def __init__(self) -> None:
        super().__init__("you drew a Fool: you must steal a card first")


class NoStealPending(IllegalAction):
    code = "no_steal_pending"

    def __init__(self) -> None:
        super().__init__("you may only steal right after drawing a Fool")


class SuitNotHeld(IllegalAction):
    code = "suit_not_held"

    def __init__(self, suit_label: str) -> None:
        super().__init__(f"your opponent holds no {suit_label} card to steal")


class EmptyTable(IllegalAction):
    code = "empty_table"

    def __init__(self) -> None:
        super().__init__("the table is empty: draw at least one card before ending your turn")


class TableFull(IllegalAction):
    code = "table_full"

    def __init__(self) -> None:
        super().__init__("the table holds ten cards: you must end your turn")


class NotAPlayer(IllegalAction):
    code = "not_a_player"

    def __init__(self) -> None:
        super().__init__("only the two seated players can act")


class UnknownAction(IllegalAction):
    code = "unknown_action"

    def __init__(self) -> None:
        super().__init__("that is no action of the game")
