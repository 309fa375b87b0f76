"""Regenerates docs/screenshots/*.png from the real app, on a private Xvfb display.

    .venv/bin/python scripts/screenshots.py            # needs Xvfb (apt-get install -y xvfb)
    .venv/bin/python scripts/screenshots.py --offscreen

Plays offline games against the computer with fixed seeds, stops at moments worth showing (a
table mid-game, a steal after a Fool, the end of a game) and saves what the X server shows of
the window (1280x800).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from somnium_desktop.game import Action, Draw, EndTurn, Steal, View

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "screenshots"
SIZE = (1280, 800)


def shoot(offscreen: bool) -> None:
    """In the child: drive the app and save the pictures."""
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from somnium_desktop.game.bots import Level, levels
    from somnium_desktop.ui.main_window import MainWindow
    from somnium_desktop.ui.settings import Settings
    from somnium_desktop.ui.style import apply_style

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
    window = MainWindow(settings, bot_levels)
    window.resize(*SIZE)
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
        table = window.table
        action = policy(view, view.turn)
        if isinstance(action, Steal):
            table.steal(action.suit)
        elif isinstance(action, EndTurn):
            table.end_turn()
        else:
            table.draw()

    def save(name: str) -> None:
        settle(150)
        screen = window.screen()
        picture = window.grab() if offscreen else screen.grabWindow(window.winId())
        path = OUT / name
        picture.save(str(path), "PNG", 0)
        print(f"{path.relative_to(ROOT)}: {picture.width()}x{picture.height()}, "
              f"{path.stat().st_size // 1024} KB")

    OUT.mkdir(parents=True, exist_ok=True)

    def mid_game(view: View) -> bool:
        me = window.table.scene.bottom_seat
        return (len(view.table) >= 3 and view.deck_count <= 26 and not view.steal_pending
                and min(len(bank) for bank in view.banks) >= 7
                and any(len(bank) > len({c.suit for c in bank}) for bank in view.banks)
                and me == 0)

    if play_until(mid_game, range(1, 200)):
        save("table.png")

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
    window.close()


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
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        shoot(os.environ.get("QT_QPA_PLATFORM") == "offscreen")
        return 0
    env = dict(os.environ)
    command = [sys.executable, str(Path(__file__).resolve()), "--child"]
    if args.offscreen:
        env["QT_QPA_PLATFORM"] = "offscreen"
        return subprocess.run(command, env=env, cwd=ROOT, check=False).returncode
    sys.path.insert(0, str(ROOT))
    from benchmarks.desktop import xvfb

    with xvfb() as display:
        env.update(DISPLAY=display, QT_QPA_PLATFORM="xcb")
        return subprocess.run(command, env=env, cwd=ROOT, check=False).returncode


if __name__ == "__main__":
    sys.exit(main())
