"""The keyboard help: every shortcut of the window, written from the actions' own keys (so the
help follows them), and how signing in is shared."""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtGui import QAction, QKeySequence

if TYPE_CHECKING:
    from .main_window import MainWindow

NAMES = {"Left": "←", "Right": "→", "Return": "Enter"}  # keys as the help writes them

SIGNING_IN = """<b>Signing in</b><br>
One sign-in per lobby server for your user of the computer (kept in your keyring): every
Somnium window you open on that server follows it. Signing out in one window signs them all
out; signing in as someone else signs them all in as that account."""

HelpRow = tuple[Sequence[QAction], str, str]  # the actions, their keys, what they do


def keys(action: QAction) -> str:
    """The action's keys as the help writes them: "H or ?", "←", "Ctrl+,"."""
    names: list[str] = []
    for sequence in action.shortcuts():
        name = sequence.toString(QKeySequence.SequenceFormat.NativeText)
        name = NAMES.get(name, name)
        if name not in names:  # (Return and Enter are both "Enter")
            names.append(name)
    return " or ".join(names)


def help_rows(window: MainWindow) -> list[HelpRow]:
    """The help's lines, in the order a game goes: the actions each is about, their keys and
    what they do."""
    table, replay = window.table, window.table.replaying
    steal = table.steal_actions
    marks = (table.steal_prev_action, table.steal_next_action, table.steal_pick_action)
    steps = (replay.back_action, replay.forward_action, replay.start_action, replay.end_action)

    def row(action: QAction, does: str) -> HelpRow:
        return [action], keys(action), does

    return [
        row(table.draw_action, "draw a card"),
        row(table.end_turn_action, "end your turn and bank the table"),
        (steal, f"{keys(steal[0])} … {keys(steal[-2])}, {keys(steal[-1])}",
         "after a Fool, steal Angels … Demons"),
        (marks, "{} {} then {}".format(*map(keys, marks)),
         "after a Fool, pick a suit to steal and steal it"),
        row(table.rematch_action, "rematch, once the game is over"),
        row(table.hide_result_action, "put the result away, to look over the final table"),
        row(table.concede_action, "concede (asks first)"),
        row(table.claim_action,
            "claim the win from an opponent who left the table (online, after two minutes)"),
        row(table.coach.action, "offline, on your turn: what would the expert do?"),
        row(replay.open_action, "replay a finished game"),
        (steps, "{} {} / {}, {}".format(*map(keys, steps)),
         "in a replay: one action back or on / the deal, the end"),
        row(replay.analysis_action,
            "in a replay: the analysis of the game (a click on its graph moves the replay)"),
        row(window.new_game_action,
            "new offline game at the level picked on the right (asks first if one is in play)"),
        row(window.lobby_action,
            "the lobby's list of games: arrows move, Enter on a game's name watches, on an "
            "open seat joins, on a player opens their page, on a finished game's result "
            "replays it"),
        row(window.join_action, "join a game by its id"),
        row(window.chat_view.copy_action,
            "in the chat: copy the chosen message, as it was written"),
        row(window.settings_action,
            "settings: reduced motion, animation speed, the odds offline, the lobby "
            "server's address"),
        row(window.keys_action, "this list of keys"),
        row(window.quit_action, "quit"),
        ([], "Tab", "move between the buttons, the lobby, the level picker and the log"),
    ]


def shortcuts_help(window: MainWindow) -> str:
    """The help's text (rich text): every shortcut of `window`, then signing in."""
    lines = "".join(f"{html.escape(shown, quote=False)} — {html.escape(does, quote=False)}"
                    "<br>\n" for _actions, shown, does in help_rows(window))
    return f"<b>Keyboard</b><br>\n{lines}<br>\n{SIGNING_IN}"
