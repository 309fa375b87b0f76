"""The card table, played through its real widgets: clicks, keys, steals, resizing, game over."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

from somnium_desktop.client.describe import Speaker
from somnium_desktop.client.offline import OfflineGame
from somnium_desktop.client.replay import ReplayStep
from somnium_desktop.game import FOOL, Card, Draw, EndTurn, Event, GameState, Suit, new_game
from somnium_desktop.game.events import CardDrawn, CardStolen, GameEnded
from somnium_desktop.ui.table import TableWidget
from tests.client.helpers import PlainBot
from tests.game_helpers import c, position, stacked
from tests.ui.driver import activate, click_suit, play_to_the_end, wait_for_input


def start(table: TableWidget, state: GameState | None = None, keep: int = 2, seed: int = 11,
          pace_ms: int = 0) -> OfflineGame:
    deal = (lambda s: state) if state is not None else new_game
    game = OfflineGame(lambda s: PlainBot(keep), seed=seed, deal=deal, pace_ms=pace_ms)
    table.set_source(game)
    game.start()
    return game


def record(game: OfflineGame) -> list[Event]:
    events: list[Event] = []
    game.events.connect(events.extend)
    return events


def test_a_whole_game_by_clicks_and_keys(qtbot: QtBot, table: TableWidget) -> None:
    game = start(table)
    events = record(game)
    actions = play_to_the_end(qtbot, table)
    assert actions > 10
    view = table.shown
    assert view is not None and view.over
    assert isinstance(events[-1], GameEnded)
    # The piles always matched the engine's view: no surprise rebuilds.
    assert table.scene.resyncs == 0
    assert table.scene.matches(view)
    assert table.game_over.isVisible()
    assert table.game_over.title.text() in ("You won!", "Computer won", "A draw")
    assert not table.draw_action.isEnabled() and not table.end_turn_action.isEnabled()
    assert not table.concede_action.isEnabled()
    assert table.rematch_action.isEnabled()


def test_the_log_has_one_sentence_per_event_and_each_is_announced(
    qtbot: QtBot, table: TableWidget
) -> None:
    game = start(table)
    events = record(game)
    spoken: list[str] = []
    table.scene.event_played.connect(lambda _e: spoken.append(table.last_announcement))
    play_to_the_end(qtbot, table)
    speaker = Speaker(game.names, game.my_seat)
    assert table.log.lines() == [speaker.describe(e) for e in events]
    assert spoken == table.log.lines()
    assert table.log.count() == len(events)


def test_stealing_by_click(qtbot: QtBot, table: TableWidget) -> None:
    # You bank Angels 5; the computer banks Suns 4 and Cups 5; you draw a Fool and steal.
    state = stacked([c(Suit.ANGELS, 5), c(Suit.SUNS, 4), c(Suit.CUPS, 5), FOOL], first=0)
    game = start(table, state)
    events = record(game)
    wait_for_input(qtbot, table)
    QTest.mouseClick(table.draw_button, Qt.MouseButton.LeftButton)
    QTest.mouseClick(table.end_turn_button, Qt.MouseButton.LeftButton)
    wait_for_input(qtbot, table)
    QTest.mouseClick(table.draw_button, Qt.MouseButton.LeftButton)
    wait_for_input(qtbot, table)
    assert table.stealing()
    assert table.scene.stealable == (Suit.SUNS, Suit.CUPS)
    assert not table.draw_action.isEnabled()  # a steal must come first
    # A click on a suit the opponent does not hold does nothing.
    click_suit(table, Suit.MOONS)
    assert table.stealing()
    click_suit(table, Suit.CUPS)
    wait_for_input(qtbot, table)
    stolen = [e for e in events if isinstance(e, CardStolen)]
    assert stolen == [CardStolen(0, 1, c(Suit.CUPS, 5))]
    assert [item.card for item in table.scene.table_pile] == [c(Suit.CUPS, 5)]
    assert table.log.lines()[-1] == "You stole Cups 5 from Computer."


def steal_ready(qtbot: QtBot, table: TableWidget) -> OfflineGame:
    state = stacked([c(Suit.ANGELS, 5), c(Suit.SUNS, 4), c(Suit.CUPS, 5), FOOL], first=0)
    game = start(table, state)
    wait_for_input(qtbot, table)
    QTest.keyClick(table, Qt.Key.Key_D)
    QTest.keyClick(table, Qt.Key.Key_E)
    wait_for_input(qtbot, table)
    QTest.keyClick(table, Qt.Key.Key_D)
    wait_for_input(qtbot, table)
    assert table.stealing()
    return game


def test_stealing_by_number_key(qtbot: QtBot, table: TableWidget) -> None:
    game = steal_ready(qtbot, table)
    QTest.keyClick(table, Qt.Key.Key_9)  # Moons: not held, nothing happens
    assert table.stealing()
    QTest.keyClick(table, Qt.Key.Key_2)  # Suns
    wait_for_input(qtbot, table)
    assert game.view.table == (c(Suit.SUNS, 4),)


def focus(table: TableWidget) -> Suit | None:
    return table.scene.focus_suit


def test_stealing_by_arrows_and_enter(qtbot: QtBot, table: TableWidget) -> None:
    game = steal_ready(qtbot, table)
    assert focus(table) == Suit.SUNS
    QTest.keyClick(table, Qt.Key.Key_Right)
    assert focus(table) == Suit.CUPS
    assert "Cups" in table.last_announcement
    QTest.keyClick(table, Qt.Key.Key_Right)
    assert focus(table) == Suit.SUNS  # it wraps around
    QTest.keyClick(table, Qt.Key.Key_Left)
    QTest.keyClick(table, Qt.Key.Key_Return)
    wait_for_input(qtbot, table)
    assert game.view.table == (c(Suit.CUPS, 5),)


def cards_inside(table: TableWidget) -> None:
    viewport = QRectF(table.view.viewport().rect())
    for item in table.scene.card_items:
        rect = item.mapRectToScene(item.rect())
        shown = QRectF(table.view.mapFromScene(rect).boundingRect())
        assert viewport.contains(shown), f"{item.label} at {shown} is outside {viewport}"


def test_resizing_keeps_every_card_inside_and_the_proportions(
    qtbot: QtBot, table: TableWidget
) -> None:
    start(table)
    play = 0
    wait_for_input(qtbot, table)
    while play < 6 and table.draw_action.isEnabled():
        QTest.keyClick(table, Qt.Key.Key_D)
        wait_for_input(qtbot, table)
        play += 1
    aspect = table.deck.aspect()
    widths = []
    for size in (QSize(1100, 720), QSize(760, 520), QSize(1500, 600), QSize(800, 1000)):
        table.resize(size)
        qtbot.waitUntil(lambda size=size: table.size() == size)  # type: ignore[misc]
        QGuiApplication.processEvents()
        cards_inside(table)
        geometry = table.scene.geometry
        assert abs(geometry.card_w / geometry.card_h - aspect) < 0.02
        content = geometry.content
        viewport = table.view.viewport().rect()
        # Centred on at least one axis, and filling the other.
        slack_x = viewport.width() - content.width()
        slack_y = viewport.height() - content.height()
        assert min(slack_x, slack_y) < geometry.card_w
        left, right = content.left(), viewport.width() - content.right()
        assert abs(left - right) <= 2 + geometry.card_w * 0.5
        widths.append(geometry.card_w)
        assert table.scene.matches(game_view(table))
    assert widths[1] < widths[0]  # a smaller window shows smaller cards


def game_view(table: TableWidget):  # type: ignore[no-untyped-def]
    assert table.shown is not None
    return table.shown


def test_cards_are_rendered_for_the_screen_they_are_on(qtbot: QtBot, table: TableWidget) -> None:
    start(table)
    ratio = table.view.devicePixelRatioF()
    geometry = table.scene.geometry
    item = table.scene.deck_pile[-1]
    face = item.childItems()[-1]
    pixmap = face.pixmap()  # type: ignore[attr-defined]
    assert pixmap.devicePixelRatio() == ratio
    assert pixmap.width() == round(geometry.card_w * ratio)
    table.scene.relayout(table.view.viewport().size(), 2.0)
    pixmap = face.pixmap()  # type: ignore[attr-defined]
    assert pixmap.devicePixelRatio() == 2.0
    assert pixmap.width() == round(geometry.card_w * 2)
    assert pixmap.deviceIndependentSize().width() == geometry.card_w


def test_animations_run_and_input_waits_for_them(qtbot: QtBot, table: TableWidget) -> None:
    table.scene.set_motion(False, 2.0)
    game = start(table, stacked([c(Suit.ANGELS, 5), c(Suit.SUNS, 4)], first=0))
    wait_for_input(qtbot, table)
    QTest.keyClick(table, Qt.Key.Key_D)
    assert table.scene.busy
    assert not table.draw_action.isEnabled() and not table.end_turn_action.isEnabled()
    drawn = table.scene.table_pile[0]
    target = table.scene.geometry.table_pos(0)
    assert drawn.pos() != target  # still on its way
    QTest.keyClick(table, Qt.Key.Key_D)  # kept while the card flies, played once it lands
    assert len(game.view.table) == 1
    qtbot.waitUntil(lambda: len(game.view.table) == 2)
    assert drawn.pos() == target and drawn.face_up and drawn.card == c(Suit.ANGELS, 5)
    wait_for_input(qtbot, table)
    assert [item.card for item in table.scene.table_pile] == [c(Suit.ANGELS, 5),
                                                              c(Suit.SUNS, 4)]
    assert table.draw_action.isEnabled() and table.end_turn_action.isEnabled()


def test_a_resize_during_a_move_lands_every_card_and_play_goes_on(
    qtbot: QtBot, table: TableWidget
) -> None:
    table.scene.set_motion(False, 0.5)  # slow: the resize surely comes mid-flight
    game = start(table, stacked([c(Suit.ANGELS, 5), c(Suit.SUNS, 4)], first=0))
    wait_for_input(qtbot, table)
    QTest.keyClick(table, Qt.Key.Key_D)
    qtbot.wait(60)
    assert table.scene.busy
    table.resize(900, 640)
    qtbot.waitUntil(lambda: table.view.viewport().width() < 900)
    wait_for_input(qtbot, table)
    cards_inside(table)
    drawn = table.scene.table_pile[0]
    assert drawn.pos() == table.scene.geometry.table_pos(0) and drawn.face_up
    assert drawn.flip.angle() == 0.0
    assert table.scene.matches(game.view) and table.scene.resyncs == 0


def test_reduced_motion_puts_cards_in_place_at_once(qtbot: QtBot, table: TableWidget) -> None:
    table.scene.set_motion(True, 1.0)
    start(table, stacked([c(Suit.ANGELS, 5), c(Suit.SUNS, 4)], first=0))
    wait_for_input(qtbot, table)
    busy: list[bool] = []
    table.scene.busy_changed.connect(busy.append)
    QTest.keyClick(table, Qt.Key.Key_D)
    assert not table.scene.busy
    assert table.scene.table_pile[0].pos() == table.scene.geometry.table_pos(0)
    assert table.draw_action.isEnabled()
    QTest.keyClick(table, Qt.Key.Key_E)
    assert busy == []  # nothing ever moved over time
    bank = table.scene.bank_piles[0]
    assert [item.card for item in bank] == [c(Suit.ANGELS, 5)]
    slot = table.scene.bank_slot_rect(0, Suit.ANGELS)
    assert slot.contains(bank[0].pos() + QPointF(1, 1))


def test_game_over_and_rematch(qtbot: QtBot, table: TableWidget) -> None:
    game = start(table)
    wait_for_input(qtbot, table)
    old_id = game.game_id
    QTest.mouseClick(table.concede_button, Qt.MouseButton.LeftButton)
    box = table.findChild(QMessageBox)
    assert box is not None and box.isVisible()
    box.button(QMessageBox.StandardButton.Yes).click()
    qtbot.waitUntil(lambda: table.shown is not None and table.shown.over)
    assert table.game_over.isVisible()
    assert table.game_over.title.text() == "Computer won"
    assert "(you conceded)" in table.game_over.detail.text()
    assert table.log.lines()[-2:] == ["You conceded.",
                                      "Game over: Computer won by concession, "
                                      f"{game.view.scores[1]} to {game.view.scores[0]}."]
    QTest.mouseClick(table.game_over.rematch, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: table.shown is not None and not table.shown.over)
    assert game.game_id != old_id
    assert not table.game_over.isVisible()
    assert table.game_id.text() == f"Deal {game.game_id}"
    assert not table.copy_button.isVisible()  # a deal on this computer: nothing to share
    assert all(not line.startswith("Game over") for line in table.log.lines())
    assert len(table.scene.deck_pile) == 54


def test_concede_can_be_called_off(qtbot: QtBot, table: TableWidget) -> None:
    game = start(table)
    wait_for_input(qtbot, table)
    table.concede_action.trigger()
    box = table.findChild(QMessageBox)
    assert box is not None
    box.button(QMessageBox.StandardButton.No).click()
    qtbot.wait(10)
    assert not game.view.over


def test_header_and_accessible_names(qtbot: QtBot, table: TableWidget) -> None:
    game = start(table)
    assert table.game_name.text() == game.game_name
    assert table.game_id.text() == f"Deal {game.game_id}"
    assert not table.copy_button.isVisible()  # nobody can join an offline game by its deal
    assert table.view.accessibleName() == "Card table"
    assert "cards in the deck" in table.view.accessibleDescription()
    for widget in (table.draw_button, table.end_turn_button, table.concede_button,
                   table.copy_button, table.log, table.game_over.rematch,
                   table.game_over.close_button):
        assert widget.accessibleName(), widget
    assert not table.watching.isVisible()


def test_the_tables_description_counts_in_words(qtbot: QtBot, table: TableWidget) -> None:
    """One card and one Fool left are said as such to a screen reader (not "1 cards")."""
    start(table, position([FOOL], table=[c(Suit.ANGELS, 3)], turn=0))
    wait_for_input(qtbot, table)
    described = table.view.accessibleDescription()
    assert "On the table: Angels 3. 1 card in the deck, 1 Fool, Death gone." in described


def test_the_first_draw_is_logged_with_its_card(qtbot: QtBot, table: TableWidget) -> None:
    game = start(table, stacked([c(Suit.MOONS, 7)], first=0))
    events = record(game)
    wait_for_input(qtbot, table)
    QTest.keyClick(table, Qt.Key.Key_D)
    assert events == [CardDrawn(0, c(Suit.MOONS, 7))]
    assert table.log.lines() == ["You drew Moons 7."]
    assert table.last_announcement == "You drew Moons 7."


def test_errors_from_the_source_are_shown_in_words(qtbot: QtBot, table: TableWidget) -> None:
    game = start(table)
    game.error.emit("Not allowed: it is not your turn.")
    assert table.status.text() == "Not allowed: it is not your turn."
    assert table.last_announcement == "Not allowed: it is not your turn."


def test_an_empty_table_invites_to_play(qtbot: QtBot, table: TableWidget) -> None:
    assert table.source is None
    hint = table.status.text()  # what one can do: online (create, join, watch) or offline
    assert all(word in hint.lower() for word in ("create", "join", "watch", "offline", "play"))
    assert not table.draw_action.isEnabled()
    buttons = (table.draw_button, table.end_turn_button, table.concede_button)
    assert not any(button.isVisible() for button in buttons)  # the hint gets their room
    assert len(table.scene.deck_pile) == 54
    game = start(table)
    assert all(button.isVisible() for button in buttons)
    table.set_source(None)
    game.close()
    assert not any(button.isVisible() for button in buttons)
    assert table.game_name.text() == "No game yet"


def test_alt_c_asks_to_concede(qtbot: QtBot, table: TableWidget) -> None:
    game = start(table)
    wait_for_input(qtbot, table)
    activate(qtbot, table)
    assert table.concede_action.shortcut().toString() == "Alt+C"
    QTest.keyClick(table, Qt.Key.Key_C, Qt.KeyboardModifier.AltModifier)
    box = table.findChild(QMessageBox)
    assert box is not None and box.isVisible()
    box.button(QMessageBox.StandardButton.No).click()
    assert not game.view.over


def test_a_click_on_draw_leaves_the_focus_off_concede(qtbot: QtBot, table: TableWidget) -> None:
    start(table)
    wait_for_input(qtbot, table)
    table.view.setFocus()
    QTest.mouseClick(table.draw_button, Qt.MouseButton.LeftButton)
    assert table.focusWidget() is not table.concede_button
    table.draw_button.setFocus()  # reached by Tab, then pressed with Space
    QTest.keyClick(table.draw_button, Qt.Key.Key_Space)
    wait_for_input(qtbot, table)
    assert table.focusWidget() is not table.concede_button


def test_the_result_can_be_put_away_to_see_the_table(qtbot: QtBot, table: TableWidget) -> None:
    game = start(table)
    wait_for_input(qtbot, table)
    game.concede()
    qtbot.waitUntil(lambda: table.shown is not None and table.shown.over)
    assert table.game_over.isVisible()
    assert table.status.text() == "Game over: Computer won. Press R for a rematch."
    activate(qtbot, table)
    QTest.keyClick(table, Qt.Key.Key_Escape)
    assert not table.game_over.isVisible()
    assert "Computer won" in table.status.text()  # the result stays in the status line
    table.set_source(game)  # settles on the same finished view again
    qtbot.waitUntil(lambda: table.shown is not None and table.shown.over)
    assert table.game_over.isVisible()  # a new showing of the game: its result again
    QTest.mouseClick(table.game_over.close_button, Qt.MouseButton.LeftButton)
    assert not table.game_over.isVisible()
    QTest.keyClick(table, Qt.Key.Key_R)
    qtbot.waitUntil(lambda: table.shown is not None and not table.shown.over)
    game.concede()
    qtbot.waitUntil(lambda: table.shown is not None and table.shown.over)
    assert table.game_over.isVisible()  # the next game's result shows again


def test_deck_and_discard_tell_what_they_hold(qtbot: QtBot, table: TableWidget) -> None:
    deck = [c(Suit.MOONS, 7), c(Suit.MOONS, 3), c(Suit.CUPS, 4), c(Suit.CUPS, 5)]
    start(table, stacked(deck, first=0))
    wait_for_input(qtbot, table)
    table.draw()
    wait_for_input(qtbot, table)
    table.draw()  # Moons 3 on Moons 7: bust
    qtbot.waitUntil(lambda: table.shown is not None and len(table.shown.discard) >= 2)
    wait_for_input(qtbot, table)  # the computer's turn played out
    shown = table.shown
    assert shown is not None

    def tip(prefix: str) -> list[str]:
        tips = [item.toolTip() for item in table.scene.items()]
        return next(t for t in tips if t.startswith(prefix)).splitlines()

    def labelled(pile: Iterable[Card]) -> Counter[tuple[str, int]]:
        return Counter((k.suit.label, k.value) for k in pile if k.suit is not None)

    def cards(lines: list[str]) -> Counter[tuple[str, int]]:
        return Counter((name, int(v)) for line in lines[1:] if ": " in line
                       for name, values in [line.split(": ")] for v in values.split())

    discard = tip("Discarded")
    assert discard[0] == f"Discarded: {len(shown.discard)} cards"
    assert cards(discard) == labelled(shown.discard)
    assert "Moons: 3 7" in discard or len(shown.discard) > 2
    in_deck = tip("Still in the deck")
    assert in_deck[0].endswith(f": {shown.deck_count} cards")
    assert cards(in_deck) == labelled(shown.unseen().elements())
    assert f"{shown.fools_left} Fools" in in_deck and "Death" in in_deck
    table.set_source(None)
    assert not any(item.toolTip() for item in table.scene.items())


def test_a_long_game_name_does_not_widen_the_table(qtbot: QtBot, table: TableWidget) -> None:
    start(table)
    narrow = table.minimumSizeHint().width()
    name = "A <b>game</b> with a name far longer than any header could hold " * 4
    table.game_name.setText(name)
    assert table.minimumSizeHint().width() == narrow
    assert table.game_name.text() == name  # the whole name, in the tooltip
    assert table.game_name.toolTip() == name and table.game_name.accessibleName() == name
    assert table.game_name.textFormat() == Qt.TextFormat.PlainText  # not markup


def test_a_concede_answered_after_the_game_changed_concedes_nothing(
    qtbot: QtBot, table: TableWidget
) -> None:
    first = start(table)
    wait_for_input(qtbot, table)
    table.ask_concede()
    box = table.findChild(QMessageBox)
    assert box is not None and box.isVisible()
    first.close()
    second = start(table, seed=12)  # e.g. a game joined from the lobby meanwhile
    wait_for_input(qtbot, table)
    box.button(QMessageBox.StandardButton.Yes).click()
    qtbot.wait(50)
    assert second.view is not None and not second.view.over


def test_take_acts_as_the_players_input_would(qtbot: QtBot, table: TableWidget) -> None:
    game = start(table, stacked([c(Suit.MOONS, 7), FOOL], first=0))
    events = record(game)
    wait_for_input(qtbot, table)
    table.take(EndTurn())  # an empty table: End turn is off, so nothing happens
    table.take(Draw())
    qtbot.waitUntil(lambda: bool(events))
    assert events == [CardDrawn(0, c(Suit.MOONS, 7))]


def hold_key(qtbot: QtBot, table: TableWidget, key: Qt.Key, text: str, repeats: int) -> None:
    """Press `key` and keep it down: the system's auto-repeats come after a while, then the
    key is let go (as the keyboard sends them, to the widget with the focus)."""
    target = table.view
    none = Qt.KeyboardModifier.NoModifier
    QTest.simulateEvent(target, True, key, none, text, False)
    wait_for_input(qtbot, table)  # the card drawn has landed: the next key would draw again
    for _ in range(repeats):
        QTest.simulateEvent(target, True, key, none, text, True)
        qtbot.wait(30)
    QTest.simulateEvent(target, False, key, none, text, False)


def test_holding_a_key_down_plays_its_action_once(qtbot: QtBot, table: TableWidget) -> None:
    table.scene.set_motion(False, 1.0)  # cards move, as by default
    game = start(table, stacked([c(Suit.ANGELS, 5), c(Suit.SUNS, 4), c(Suit.CUPS, 6)], first=0))
    events = record(game)
    wait_for_input(qtbot, table)
    activate(qtbot, table)
    hold_key(qtbot, table, Qt.Key.Key_D, "d", repeats=8)
    qtbot.wait(100)
    assert events == [CardDrawn(0, c(Suit.ANGELS, 5))]
    assert table.my_turn() and len(game.view.table) == 1
    # Only a replay's steps (Left, Right) repeat while held: every game action does not.
    stepping = {table.replaying.back_action, table.replaying.forward_action}
    assert all(action.autoRepeat() == (action in stepping) for action in table.actions())


def computer_first() -> int:
    """A seed whose coin toss gives the computer (seat 1) the first turn."""
    return next(seed for seed in range(100) if new_game(seed).turn == 1)


def steps_of(game: OfflineGame) -> tuple[ReplayStep, ...]:
    """What the finished game's replay holds: one step per action, after the deal."""
    replay = game.local_replay()
    assert replay is not None
    return replay.steps


def test_conceding_while_the_computer_waits_out_its_pace_ends_the_game_there(
    qtbot: QtBot, table: TableWidget
) -> None:
    bots: list[PlainBot] = []

    def bot(_seed: int) -> PlainBot:
        bots.append(PlainBot(3))
        return bots[-1]

    game = OfflineGame(bot, seed=computer_first(), pace_ms=800)
    events = record(game)
    table.set_source(game)
    game.start()
    # The computer's answer is back within milliseconds, then waits for its pace to be over.
    qtbot.waitUntil(lambda: bots[0].calls == 1)
    qtbot.waitUntil(table.concede_action.isEnabled)
    qtbot.wait(100)
    assert events == []  # (the pace still runs)
    table.concede_action.trigger()
    box = table.findChild(QMessageBox)
    assert box is not None
    box.button(QMessageBox.StandardButton.Yes).click()
    assert game.view.over and game.view.conceded_by == 0
    played = len(steps_of(game))
    qtbot.wait(900)  # past the pace: its answer is not played into the finished game
    assert len(steps_of(game)) == played
    qtbot.waitUntil(lambda: table.shown is not None and table.shown.over)
    assert table.game_over.title.text() == "Computer won"
    # A rematch: the computer plays each of its answers once, and the game goes to its end.
    game.set_pace(10)
    QTest.mouseClick(table.game_over.rematch, Qt.MouseButton.LeftButton)
    play_to_the_end(qtbot, table)
    assert len(bots) == 2 and game.view.over
    assert bots[1].calls == sum(1 for step in steps_of(game) if step.seat == game.bot_seat)


def test_yes_to_concede_while_a_card_moves_concedes_at_once(
    qtbot: QtBot, table: TableWidget
) -> None:
    game = OfflineGame(lambda s: PlainBot(6), seed=computer_first(), pace_ms=600)
    table.scene.set_motion(False, 1.0)  # cards move, as by default
    table.set_source(game)
    game.start()
    activate(qtbot, table)
    qtbot.waitUntil(lambda: table.scene.busy, timeout=3000)  # the computer's card flies
    assert table.concede_action.isEnabled()  # (a player may concede at any time)
    QTest.keyClick(table, Qt.Key.Key_C, Qt.KeyboardModifier.AltModifier)
    box = table.findChild(QMessageBox)
    assert box is not None and box.isVisible()
    box.button(QMessageBox.StandardButton.Yes).click()
    assert game.view.over and game.view.conceded_by == 0  # no second click needed
    qtbot.waitUntil(lambda: table.shown is not None and table.shown.over, timeout=5000)
    assert "(you conceded)" in table.game_over.detail.text()
