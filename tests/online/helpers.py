"""Online test helpers: app windows on a real lobby server, each with its own sign-in."""

from __future__ import annotations

import random
from pathlib import Path

from PySide6.QtCore import QSettings, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from somnium_desktop.client.credentials import KeyringVerdict, MemoryStore, TokenStore
from somnium_desktop.game import FOOL, GameState, Suit
from somnium_desktop.game.bots import Level
from somnium_desktop.ui.main_window import MainWindow
from somnium_desktop.ui.online_options import OnlineOptions
from somnium_desktop.ui.settings import Settings
from tests.client.helpers import PlainBot
from tests.game_helpers import c, position
from tests.server.helpers import LiveServer, Player
from tests.signin.helpers import Person
from tests.ui.driver import activate, close, play_one

LEVELS = [Level("careful", "Careful", lambda seed: PlainBot(keep=1))]


class SessionStores:
    """Each window's own sign-ins, in memory (the store the app uses for "this session only")."""

    def __init__(self) -> None:
        self.stores: dict[str, MemoryStore] = {}
        self.asked = 0

    def existing(self, key: str) -> TokenStore | None:
        return self.stores.get(key)

    def for_new(self, key: str) -> TokenStore | KeyringVerdict:
        self.asked += 1
        return self.stores.setdefault(key, MemoryStore())

    def ask(self, key: str, why: KeyringVerdict, parent: QWidget) -> TokenStore | None:
        self.asked += 1
        return self.stores.setdefault(key, MemoryStore())


class Browser:
    """The system browser of one person: signs in with a local account of `name`."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.people: list[Person] = []

    def __call__(self, url: str) -> bool:
        person = Person(local_name=self.name)
        self.people.append(person)
        return person(url)

    def join(self) -> None:
        for person in self.people:
            person.join()


def open_window(
    qtbot: QtBot, folder: Path, name: str, server_url: str, **options: object
) -> MainWindow:
    """A main window of its own (settings, sign-in, browser) on `server_url`, online."""
    store = QSettings(str(folder / f"{name}.ini"), QSettings.Format.IniFormat)
    settings = Settings(store)
    settings.reduced_motion = True
    settings.server_url = server_url
    browser = Browser(name)
    chosen = OnlineOptions(token_stores=SessionStores(), open_browser=browser, read_timeout=5.0)
    for key, value in options.items():
        setattr(chosen, key, value)
    window = MainWindow(settings, LEVELS, online=chosen)
    window.browser = browser  # type: ignore[attr-defined]
    qtbot.addWidget(window)
    window.resize(1200, 760)
    window.show()
    qtbot.waitExposed(window)
    window.start_online()
    return window


def close_windows(qtbot: QtBot, *windows: MainWindow) -> None:
    for window in windows:
        online = window.online
        close(qtbot, window)
        if online is not None:
            online.ops.wait_idle(10)


def lobby_row(window: MainWindow, game_id: str) -> int:
    return window.lobby_panel.games.row_of(game_id)


def cell_text(window: MainWindow, row: int, column: int) -> str:
    item = window.lobby_panel.games.item(row, column)
    return item.text() if item is not None else ""


def click_cell(window: MainWindow, row: int, column: int) -> None:
    """Click a cell of the lobby's list of games."""
    games = window.lobby_panel.games
    rect = games.visualRect(games.model().index(row, column))
    QTest.mouseClick(games.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


def short_game() -> GameState:
    """Eight cards: Ada banks two, Bea's Fool steals one of them, the deck runs out."""
    deck = [c(Suit.ANGELS, 5), c(Suit.SUNS, 4), FOOL, c(Suit.CUPS, 6), c(Suit.WANDS, 3),
            c(Suit.TOWERS, 7), c(Suit.MOONS, 5), c(Suit.DRAGONS, 6)]
    return position(deck, turn=0)


def play_online(qtbot: QtBot, players: list[MainWindow], limit: int = 60) -> int:
    """Both players play by clicks and keys until the game is over on both tables."""
    tables = [window.table for window in players]

    def over() -> bool:
        return all(t.shown is not None and t.shown.over and not t.scene.busy for t in tables)

    actions = 0
    while True:
        qtbot.waitUntil(lambda: over() or any(t.my_turn() for t in tables), timeout=10000)
        if over():
            return actions
        assert actions < limit, "the game should have ended"
        table = next(t for t in tables if t.my_turn())
        activate(qtbot, table)
        before = table.shown
        play_one(qtbot, table, actions)
        actions += 1
        qtbot.waitUntil(lambda t=table, b=before: t.shown is not b, timeout=10000)  # type: ignore[misc]


def seated_game(server: LiveServer) -> tuple[str, dict[int, Player]]:
    ada, bea = server.player("Ada"), server.player("Bea")
    game = ada.create()
    assert bea.post(f"/games/{game['id']}/join").status_code == 200
    return game["id"], {0: ada, 1: bea}


def finished_game(server: LiveServer) -> tuple[str, dict[int, Player]]:
    """A game of Ada's and Bea's that Ada conceded at once: a finished one, to replay."""
    game_id, players = seated_game(server)
    version = players[0].get(f"/games/{game_id}").json()["version"]
    assert players[0].act(game_id, version, {"type": "concede"}).status_code == 200
    return game_id, players


def play(players: dict[int, Player], game_id: str, moves: int, rng: random.Random) -> int:
    """Random legal actions by whoever is to move; returns the game's last sequence number."""
    detail = players[0].get(f"/games/{game_id}").json()
    for _ in range(moves):
        view = detail["view"]
        if view["over"]:
            break
        answer = players[view["turn"]].act(game_id, detail["version"], rng.choice(view["legal"]))
        assert answer.status_code == 200, answer.text
        detail = players[0].get(f"/games/{game_id}").json()
    return int(detail["seq"])
