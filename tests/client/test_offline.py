"""The offline game: the engine and a bot in process, the human's actions and the bot's pace."""

from __future__ import annotations

import threading
import time

from PySide6.QtCore import QTimer
from pytestqt.qtbot import QtBot

from somnium_desktop.client.offline import OfflineGame
from somnium_desktop.game import (
    FOOL,
    Action,
    Card,
    Draw,
    EndTurn,
    Event,
    Steal,
    Suit,
    View,
    apply,
    new_game,
    view_of,
)
from somnium_desktop.game.events import CardDrawn, GameEnded, TurnPassed
from tests.client.helpers import PlainBot
from tests.game_helpers import c, stacked


class Recorder:
    """Collects what a source emits, in order."""

    def __init__(self, game: OfflineGame) -> None:
        self.log: list[tuple[str, object]] = []
        game.started.connect(lambda: self.log.append(("started", None)))
        game.events.connect(lambda events: self.log.append(("events", list(events))))
        game.view_changed.connect(lambda view: self.log.append(("view", view)))
        game.error.connect(lambda message: self.log.append(("error", message)))

    def events(self) -> list[Event]:
        return [e for kind, batch in self.log if kind == "events" for e in batch]  # type: ignore[attr-defined]

    def views(self) -> list[View]:
        return [v for kind, v in self.log if kind == "view"]  # type: ignore[misc]


def dealt(top: list[Card], first: int, pace_ms: int = 0, keep: int = 2
          ) -> tuple[OfflineGame, Recorder]:
    """A started game whose deck begins with `top`, and what it emits from the start."""
    state = stacked(top, first=first)
    game = OfflineGame(lambda s: PlainBot(keep), deal=lambda s: state, pace_ms=pace_ms)
    seen = Recorder(game)
    game.start()
    return game, seen


def human_first(seed_from: int = 0) -> int:
    """A seed whose coin toss gives seat 0 the first turn."""
    seed = seed_from
    while new_game(seed).turn != 0:
        seed += 1
    return seed


def test_start_shows_the_first_view_and_the_same_game_as_the_engine(qtbot: QtBot) -> None:
    seed = human_first()
    game = OfflineGame(lambda s: PlainBot(), seed=seed, pace_ms=0)
    seen = Recorder(game)
    game.start()
    assert seen.log[0] == ("started", None)
    assert seen.views()[0] == view_of(new_game(seed))
    assert game.game_id == f"{seed:08x}"
    assert game.my_seat == 0 and not game.read_only
    assert game.names == ("You", "Computer")
    game.close()


def test_human_actions_apply_at_once_and_the_bot_answers_on_its_turn(qtbot: QtBot) -> None:
    seed = human_first()
    bot = PlainBot(keep=1)
    game = OfflineGame(lambda s: bot, seed=seed, pace_ms=0)
    seen = Recorder(game)
    game.start()
    game.draw()
    first = seen.events()[0]
    assert isinstance(first, CardDrawn) and first.seat == 0
    expected, _ = apply(new_game(seed), 0, Draw())
    assert seen.views()[-1] == view_of(expected)
    if not expected.over and expected.turn == 0:
        game.end_turn()
    qtbot.waitUntil(lambda: game.view.turn == 0 or game.view.over, timeout=3000)
    assert bot.calls >= 1
    # Every batch of events is followed by the view it leads to.
    kinds = [kind for kind, _ in seen.log]
    for i, kind in enumerate(kinds):
        if kind == "events":
            assert kinds[i + 1] == "view"
    game.close()


def test_the_bot_is_paced(qtbot: QtBot) -> None:
    started = time.monotonic()
    game, seen = dealt([c(Suit.ANGELS, 3), c(Suit.SUNS, 4), c(Suit.CUPS, 5)], 1, pace_ms=300)
    qtbot.waitUntil(lambda: len(seen.events()) > 0, timeout=3000)
    waited = time.monotonic() - started
    assert waited >= 0.28, f"the computer moved after {waited:.3f} s, before its pace"
    game.close()


def test_an_illegal_action_is_refused_in_words_and_changes_nothing(qtbot: QtBot) -> None:
    game, seen = dealt([c(Suit.ANGELS, 3)], 0)
    before = game.view
    game.end_turn()  # the table is empty
    assert seen.log[-1][0] == "error"
    assert "draw at least one card" in str(seen.log[-1][1])
    assert game.view == before
    game.steal(Suit.MOONS)
    assert seen.log[-1][0] == "error"
    game.close()


def test_a_steal_goes_through_the_engine(qtbot: QtBot) -> None:
    # Seat 0 banks Angels 5; seat 1 (the bot) banks Suns 4; seat 0 draws a Fool and steals.
    game, _ = dealt([c(Suit.ANGELS, 5), c(Suit.SUNS, 4), FOOL], 0, keep=1)
    game.draw()
    game.end_turn()
    qtbot.waitUntil(lambda: game.view.turn == 0, timeout=3000)
    game.draw()
    assert game.view.steal_pending and game.view.stealable == (Suit.SUNS,)
    game.steal(Suit.SUNS)
    assert game.view.table == (c(Suit.SUNS, 4),)
    game.close()


def test_a_whole_game_ends_and_a_rematch_starts_a_new_one(qtbot: QtBot) -> None:
    game = OfflineGame(lambda s: PlainBot(), seed=human_first(5), pace_ms=0)
    seen = Recorder(game)
    game.start()
    for _ in range(500):
        if game.view.over:
            break
        if game.view.turn == game.my_seat:
            view = game.view
            if view.steal_pending:
                game.act(Steal(view.stealable[-1]))
            elif EndTurn() in view.legal and len(view.table) >= 3:
                game.end_turn()
            else:
                game.draw()
        else:
            qtbot.waitUntil(lambda: game.view.turn == game.my_seat or game.view.over, timeout=3000)
    assert game.view.over
    assert isinstance(seen.events()[-1], GameEnded)
    assert any(isinstance(e, TurnPassed) for e in seen.events())
    old_id = game.game_id
    seen.log.clear()
    game.rematch()
    assert seen.log[0] == ("started", None)
    assert not game.view.over and game.game_id != old_id
    game.close()


def test_close_stops_the_computer(qtbot: QtBot) -> None:
    game, seen = dealt([c(Suit.ANGELS, 3)], 1, pace_ms=50)
    game.close()
    qtbot.wait(150)
    assert seen.events() == []
    game.draw()
    assert seen.events() == []


class SlowBot(PlainBot):
    """Thinks for a while (like a strong bot deep in a search)."""

    def __init__(self, seconds: float) -> None:
        super().__init__()
        self.seconds = seconds

    def choose(self, view: View, seat: int) -> Action:
        time.sleep(self.seconds)
        return super().choose(view, seat)


def test_the_computer_thinks_without_blocking_the_ui(qtbot: QtBot) -> None:
    state = stacked([c(Suit.ANGELS, 3)], first=1)
    game = OfflineGame(lambda s: SlowBot(0.3), deal=lambda s: state, pace_ms=0)
    seen = Recorder(game)
    ticks: list[float] = []
    timer = QTimer()
    timer.timeout.connect(lambda: ticks.append(time.monotonic()))
    timer.start(10)
    game.start()
    qtbot.waitUntil(lambda: len(seen.events()) > 0, timeout=3000)
    timer.stop()
    assert len(ticks) >= 15, "the event loop stood still while the computer thought"
    assert isinstance(seen.events()[0], CardDrawn)
    game.close()


def test_an_answer_for_a_game_that_moved_on_is_dropped(qtbot: QtBot) -> None:
    state = stacked([c(Suit.ANGELS, 3)], first=1)
    game = OfflineGame(lambda s: SlowBot(0.2), deal=lambda s: state, pace_ms=0)
    seen = Recorder(game)
    game.start()
    game.concede()  # while the computer is still thinking
    assert game.view.over
    qtbot.wait(400)
    assert [type(e).__name__ for e in seen.events()] == ["Conceded", "GameEnded"]
    game.close()


class BrokenBot:
    def choose(self, view: View, seat: int) -> Action:
        raise ValueError("the bot lost its marbles")


def test_a_broken_bot_is_reported_not_swallowed(qtbot: QtBot) -> None:
    state = stacked([c(Suit.ANGELS, 3)], first=1)
    game = OfflineGame(lambda s: BrokenBot(), deal=lambda s: state, pace_ms=0)
    with qtbot.captureExceptions() as raised:
        game.start()
        qtbot.waitUntil(lambda: bool(raised), timeout=3000)
    assert "lost its marbles" in str(raised[0][1])
    game.close()


class HeldBot(PlainBot):
    """Thinks until the test lets it answer."""

    def __init__(self) -> None:
        super().__init__()
        self.thinking = threading.Event()
        self.go = threading.Event()
        self.answered = threading.Event()

    def choose(self, view: View, seat: int) -> Action:
        self.thinking.set()
        self.go.wait(5)
        answer = super().choose(view, seat)
        self.answered.set()
        return answer


def test_closing_does_not_wait_for_the_computer_and_drops_its_late_answer(
    qtbot: QtBot,
) -> None:
    bot = HeldBot()
    state = stacked([c(Suit.ANGELS, 3), c(Suit.SUNS, 4)], first=1)
    game = OfflineGame(lambda s: bot, deal=lambda s: state, pace_ms=0)
    seen = Recorder(game)
    try:
        game.start()
        qtbot.waitUntil(bot.thinking.is_set, timeout=3000)
        before = list(seen.log)
        game.close()  # while the computer still thinks: the UI thread does not wait for it
        assert not bot.answered.is_set()
        bot.go.set()
        qtbot.waitUntil(bot.answered.is_set, timeout=3000)
        qtbot.wait(100)  # (its answer would be delivered on the UI thread by now)
        assert seen.log == before  # nothing is emitted to a closed game
        assert game.view == view_of(state)
    finally:
        bot.go.set()
