"""Regenerates docs/screenshots/*.png from the real app, on a private Xvfb display.

    .venv/bin/python scripts/screenshots.py            # needs Xvfb (apt-get install -y xvfb)
    .venv/bin/python scripts/screenshots.py --offscreen

Runs the built-in lobby server (in a scratch data folder) with a few games on it, made by
players who sign in with local accounts: one in play between two people, one against the
computer, one finished and one waiting for a player; someone watches the game in play, whose
players (rated after a few games between them) and a watcher write in its chat. The window
signs in too and opens a table of its own. Then it plays offline games against the computer
with fixed seeds, stops at moments worth showing (a table mid-game, a steal after a Fool, the
end of a game, its Analysis window and its replay), watches the game in play with its chat,
opens a player's page and a game with a clock, and saves what the X server shows of the
window (1280x800) each time: the lobby on the right lists the server's games throughout. The
table mid-game, the Analysis window, the replay, the game watched, the player page and the
clock are also taken at 1024x640 (the table at the window's minimum size, at 1920x1080 and at
2560x1440 too; docs/screenshots/sizes/), to look at how the table and the column give way or
grow; the X server's screen is the largest of these, the window in its top-left corner. With the
odds shown (the offline setting), a table at a decision asks the coach, at 1280x800 and
1024x640 (coach.png, sizes/coach-1024x640.png); `--odds` takes only those two.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from somnium_desktop.game import Action, Concede, Draw, EndTurn, Steal, View

if TYPE_CHECKING:
    from somnium_desktop.client.lobby_client import LobbyClient

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "screenshots"
SIZE = (1280, 800)
OTHER_SIZES = {"1024x640": (1024, 640), "1920x1080": (1920, 1080), "2560x1440": (2560, 1440)}
SCREEN = "2560x1440"  # Xvfb's screen: room for the largest window whole


class Lobby:
    """The built-in server in a scratch folder, and people playing on it over HTTP."""

    def __init__(self) -> None:
        from somnium_desktop.client.local_server import LocalServer

        self.server = LocalServer(Path(tempfile.mkdtemp()) / "local-server", idle=0.5)
        self.base = self.server.ensure()
        self.streams: list[Any] = []

    def person(self, name: str) -> LobbyClient:
        """Someone signed in with a local account of `name` (the sign-in pages, walked), whose
        app is open: its signed lobby stream keeps them at their tables (not "away")."""
        from somnium_desktop.client.sse import EventStream
        from tests.signin.helpers import local_client

        client = local_client(self.base, name)
        stream = EventStream(client.lobby_events_url, lambda event: None,
                             lambda status, detail: None, headers=client.stream_headers,
                             name=f"{name}-lobby")
        stream.start()
        self.streams.append(stream)
        return client

    def fill(self) -> str:
        """A few games as a lobby has them; returns the id of the one in play between people."""
        ada, bea, cy, dee = (self.person(name) for name in ("Ada", "Bea", "Cy", "Dee"))
        for number, loser in enumerate((bea, ada, bea, bea, bea)):  # rated games: ratings
            rated = ada.create(f"Rated game {number + 1}")
            bea.join(rated.id)
            loser.act(rated.id, loser.game(rated.id).version, Concede(), "concede")
        friday = ada.create("Friday night")
        bea.join(friday.id)
        self.play({0: ada, 1: bea}, friday.id, moves=9)
        for who, text in ((ada, "Good luck!"), (bea, "You too. Banking at three tonight?"),
                          (dee, "That Fool was brutal"), (ada, "Only when it is mine :)")):
            who.say(friday.id, text)
        against = dee.create("Dee against the computer", "normal")
        self.play({0: dee}, against.id, moves=5)
        done = cy.create("Quick one", "easy")
        self.play({0: cy}, done.id, moves=3)
        cy.act(done.id, cy.game(done.id).version, Concede(), "concede")
        cy.create("Cy's open table")
        self.watch(friday.id)
        return friday.id

    def play(self, seats: dict[int, LobbyClient], game_id: str, moves: int) -> None:
        """`moves` moves of the people seated (the computer answers by itself)."""
        for number in range(moves * 20):
            detail = seats[0].game(game_id)
            view = detail.view
            if moves <= 0 or view is None or view.over:
                return
            if view.turn not in seats:
                time.sleep(0.05)  # the computer is thinking
                continue
            seats[view.turn].act(game_id, detail.version, policy(view, view.turn), f"m{number}")
            moves -= 1

    def watch(self, game_id: str) -> None:
        """Someone (not the window) watches the game, as the lobby's Watching column shows."""
        from somnium_desktop.client.sse import EventStream

        url = f"{self.base}/games/{game_id}/events"
        stream = EventStream(lambda: url, lambda event: None,
                             lambda status, detail: None, name="watcher")
        stream.start()
        self.streams.append(stream)

    def close(self) -> None:
        for stream in self.streams:
            stream.close()
        self.server.stop()


def shoot(offscreen: bool, odds_only: bool = False) -> None:
    """In the child: drive the app and save the pictures."""
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication, QWidget

    from somnium_desktop.client.analysis import AnalysisState
    from somnium_desktop.client.online import OnlineGame
    from somnium_desktop.game.bots import Level, levels
    from somnium_desktop.ui.main_window import MainWindow
    from somnium_desktop.ui.online_options import OnlineOptions
    from somnium_desktop.ui.settings import Settings
    from somnium_desktop.ui.style import apply_style
    from tests.online.helpers import SessionStores
    from tests.signin.helpers import Person

    lobby = Lobby()
    try:
        watched = lobby.fill()
    except BaseException:
        lobby.close()
        raise

    app = QApplication(sys.argv[:1])
    app.setApplicationDisplayName("Somnium")
    apply_style(app)
    settings = Settings(QSettings(str(Path(tempfile.mkdtemp()) / "shots.ini"),
                                  QSettings.Format.IniFormat))
    settings.reduced_motion = True

    class Steady:
        """Banks at three cards; steals the opponent's best card. Used if no levels exist."""

        def choose(self, view: View, seat: int) -> Action:
            return policy(view, seat)

    bot_levels = levels() or [Level("normal", "Normal", lambda seed: Steady())]
    browser = Person(local_name="Robin")
    online = OnlineOptions(token_stores=SessionStores(), open_browser=browser,
                           local_server=lobby.server)
    window = MainWindow(settings, bot_levels, online=online)
    window.resize(*SIZE)
    window.move(window.screen().availableGeometry().topLeft())  # room to grow, on screen
    window.show()
    level = "normal" if any(lv.key == "normal" for lv in bot_levels) else bot_levels[0].key

    def settle(ms: int = 30) -> None:
        deadline = ms
        while deadline > 0:
            app.processEvents()
            QApplication.instance().thread().msleep(10)  # type: ignore[union-attr]
            deadline -= 10

    def play_until(wanted: Callable[[View], bool], seeds: range) -> bool:
        for seed in seeds:
            game = window.start_offline(level, seed=seed)
            assert game is not None
            game.set_pace(0)
            for _ in range(2000):
                settle(10)
                view, table = window.table.shown, window.table
                if view is None:
                    continue
                if view.over:
                    break
                if not table.my_turn():
                    continue
                if wanted(view):
                    settle(200)
                    return True
                act(view)
        return False

    def act(view: View) -> None:
        window.table.take(policy(view, view.turn))

    def save(name: str, shown: QWidget | None = None, with_dialogs: bool = False) -> None:
        settle(150)
        shown = shown or window
        screen = shown.screen()
        frame = shown.geometry()  # (a dialog over the window: what the screen shows there)
        if not offscreen and not screen.geometry().contains(frame):
            raise RuntimeError(f"{name}: the window {frame} is not all on the screen "
                               f"{screen.geometry()}")
        picture = shown.grab() if offscreen else screen.grabWindow(
            0, frame.x(), frame.y(), frame.width(), frame.height()) if with_dialogs \
            else screen.grabWindow(shown.winId())
        path = OUT / name
        picture.save(str(path), "PNG", 0)
        print(f"{path.relative_to(ROOT)}: {picture.width()}x{picture.height()}, "
              f"{path.stat().st_size // 1024} KB")

    def wait(until: Callable[[], bool], what: str, seconds: float = 20.0) -> None:
        deadline = time.monotonic() + seconds
        while not until():
            if time.monotonic() > deadline:
                raise RuntimeError(f"gave up waiting for {what}")
            settle(20)

    # Online: the lobby lists the server's games; the window signs in and opens a table.
    play_online = window.start_online()
    wait(lambda: window.lobby_panel.games.rowCount() >= 4, "the lobby's games")
    play_online.sign_in()
    wait(lambda: play_online.account is not None, "the sign-in")
    browser.join()
    window.lobby_panel.name_field.setText("Robin's table")
    window.lobby_panel.create_button.click()
    wait(lambda: isinstance(window.source, OnlineGame), "Robin's new table")
    wait(lambda: window.lobby_panel.games.rowCount() >= 5, "Robin's table in the lobby")
    window.lobby_panel.name_field.clear()
    window.lobby_panel.show_message("")
    OUT.mkdir(parents=True, exist_ok=True)

    def deciding(view: View) -> bool:
        """Bank or draw, with cards on the table and in both banks: the coach has options."""
        return (len(view.table) >= 2 and Draw() in view.legal and EndTurn() in view.legal
                and min(len(bank) for bank in view.banks) >= 4 and view.death_left
                and window.table.scene.bottom_seat == 0)

    settings.practice_odds = True  # the odds over the deck, and the coach's answer
    window.apply_settings()
    if play_until(deciding, range(1, 200)):
        window.table.coach.ask()
        wait(lambda: window.table.coach.answer.text().startswith("The expert would"),
             "the coach's answer")
        save("coach.png")
        window.resize(*OTHER_SIZES["1024x640"])
        settle(300)
        save("sizes/coach-1024x640.png")
        window.resize(*SIZE)
        settle(300)
    settings.practice_odds = False
    window.apply_settings()
    if odds_only:
        window.close()
        settle(100)
        lobby.close()
        return

    def mid_game(view: View) -> bool:
        me = window.table.scene.bottom_seat
        return (len(view.table) >= 3 and view.deck_count <= 26 and not view.steal_pending
                and min(len(bank) for bank in view.banks) >= 7
                and any(len(bank) > len({c.suit for c in bank}) for bank in view.banks)
                and me == 0)

    if play_until(mid_game, range(1, 200)):
        save("table.png")
        (OUT / "sizes").mkdir(exist_ok=True)
        minimum = window.minimumSize()
        for label, (width, height) in [*OTHER_SIZES.items(),
                                       ("minimum", (minimum.width(), minimum.height()))]:
            window.resize(width, height)
            settle(300)
            save(f"sizes/table-{label}.png")
        window.resize(*SIZE)
        settle(300)

    def stealing(view: View) -> bool:
        return view.steal_pending and len(view.stealable) >= 4 and len(view.table) >= 1

    if play_until(stealing, range(1, 400)):
        window.table.view.setFocus()
        window.table.steal_next_action.trigger()  # the keyboard's mark on the second suit
        save("steal.png")

    game = window.start_offline(level, seed=3)
    assert game is not None
    game.set_pace(0)
    for _ in range(4000):
        settle(10)
        view = window.table.shown
        if view is not None and view.over:
            break
        if view is not None and window.table.my_turn():
            act(view)
    settle(300)
    save("game-over.png")

    # The analysis of that game, opened from the result (1280x800, then 1024x640).
    block = window.table.result_analysis
    wait(lambda: block.state is AnalysisState.READY, "the game's analysis", 60.0)
    block.button.click()
    dialog = block.dialog
    assert dialog is not None and block.data is not None
    marked = [d["step"] for d in block.data["decisions"] if d["mark"]]
    if marked:  # a moment chosen, as a click on the graph leaves it
        dialog.view.graph.moment_chosen.emit(marked[0])
        dialog.view.graph.choose(marked[0])
    for label, (width, height) in (("", SIZE), ("sizes/", OTHER_SIZES["1024x640"])):
        dialog.resize(width, height)
        dialog.move(window.pos())
        settle(300)
        save(f"{label}analysis{'-1024x640' if label else ''}.png", dialog)
    dialog.close()

    # That game again, as a replay (its Replay button), at a move in its middle.
    window.table.replaying.open_action.trigger()
    replay = window.table.replay
    assert replay is not None
    middle = min(range(replay.length + 1), key=lambda step: (
        len(replay.steps[step].view.table) < 2, abs(step - replay.length // 2)))
    window.table.replay_go_to(middle)
    settle(300)
    save("replay.png")
    window.resize(*OTHER_SIZES["1024x640"])
    settle(300)
    save("sizes/replay-1024x640.png")
    window.resize(*SIZE)
    settle(300)
    window.table.replaying.leave_action.trigger()

    # Watching the game in play between Ada and Bea, from its line in the lobby.
    row = window.lobby_panel.games.row_of(watched)
    window.lobby_panel.games.setCurrentCell(row, 0)
    window.lobby_panel.open_clicked.emit(watched)
    wait(lambda: isinstance(window.source, OnlineGame) and window.table.shown is not None
         and window.source.game_id == watched, "the game watched")
    settle(600)
    save("watching.png")
    window.resize(*OTHER_SIZES["1024x640"])
    settle(300)
    save("sizes/watching-1024x640.png")

    # Ada's page, opened as a click on her name on the table opens it.
    from somnium_desktop.ui.players_hooks import open_player

    ada_id = window.source.user_ids[0] if window.source is not None else None
    page = open_player(window, play_online, ada_id or "")
    assert page is not None
    wait(lambda: page.games.count() > 0, "Ada's page")
    save("sizes/player-page-1024x640.png", with_dialogs=True)
    window.resize(*SIZE)
    settle(300)
    save("player-page.png", with_dialogs=True)
    page.close()

    # A game with a clock (30 s a move, picked beside the name): Eve takes the open seat and
    # the clock of the player to move runs beside their name.
    panel = window.lobby_panel
    panel.clock_choice.setCurrentIndex(panel.clock_choice.findData(30))
    panel.name_field.setText("Robin's quick game")
    panel.create_button.click()
    wait(lambda: isinstance(window.source, OnlineGame)
         and window.source.game_name == "Robin's quick game", "the table with a clock")
    assert isinstance(window.source, OnlineGame)
    lobby.person("Eve").join(window.source.game_id)
    wait(lambda: window.table.clock_show.left is not None, "the running clock")
    settle(2300)
    save("clock.png")
    window.resize(*OTHER_SIZES["1024x640"])
    settle(600)
    save("sizes/clock-1024x640.png")
    window.close()
    settle(100)
    lobby.close()


def policy(view: View, seat: int) -> Action:
    """A steady player: banks at three cards, steals the opponent's best card."""
    if view.steal_pending:
        bank = view.banks[1 - seat]
        best = max(view.stealable,
                   key=lambda suit: max(c.value for c in bank if c.suit == suit))
        return Steal(best)
    if EndTurn() in view.legal and (len(view.table) >= 3 or view.deck_count <= 3):
        return EndTurn()
    return Draw()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--offscreen", action="store_true", help="no X server: render offscreen")
    parser.add_argument("--odds", action="store_true",
                        help="only the table with the odds and the coach's answer")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        sys.path.insert(0, str(ROOT))  # (the simulated browser of the tests signs people in)
        shoot(os.environ.get("QT_QPA_PLATFORM") == "offscreen", args.odds)
        return 0
    env = dict(os.environ)
    command = [sys.executable, str(Path(__file__).resolve()), "--child",
               *(["--odds"] if args.odds else [])]
    if args.offscreen:
        env["QT_QPA_PLATFORM"] = "offscreen"
        return subprocess.run(command, env=env, cwd=ROOT, check=False).returncode
    sys.path.insert(0, str(ROOT))
    from benchmarks.desktop import xvfb

    with xvfb(SCREEN) as display:
        env.update(DISPLAY=display, QT_QPA_PLATFORM="xcb")
        return subprocess.run(command, env=env, cwd=ROOT, check=False).returncode


if __name__ == "__main__":
    sys.exit(main())
