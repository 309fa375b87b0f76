"""Lobby list figures: the cost of one lobby event with many games listed (docs/targets.md).

Run from a checkout:  QT_QPA_PLATFORM=offscreen .venv/bin/python -m benchmarks.lobby_list

The real lobby panel (offscreen) lists `--games` games from a snapshot event; then lobby events
(turns passing, people watching, games coming and closing) arrive at `--rate` a second for
`--seconds`, each taken through the same path as in the app (LobbyList.apply, then the panel's
set_games with the list newest first) and painted. It prints the time one event takes
(p50/p99/max, the paint included) and the share of one core the stream costs, then the same for
a list rebuilt on every event (every row's cells made anew, as before this was measured) for
comparison.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

from PySide6.QtWidgets import QApplication, QTableWidget

from benchmarks.ranks import percentile
from somnium_desktop.client.lobby_list import LobbyList
from somnium_desktop.client.lobby_records import GameSummary
from somnium_desktop.client.sse import ServerEvent
from somnium_desktop.ui.lobby_panel import LobbyPanel
from somnium_desktop.ui.style import apply_style


def game(n: int, status: str = "playing", observers: int = 0, turn: int = 0) -> dict[str, Any]:
    second = ({"seat": 1, "kind": "open"} if status == "waiting" else
              {"seat": 1, "kind": "person", "user_id": f"u{n}b", "name": f"Player {n}b"})
    return {"id": f"G{n:05d}", "name": f"Table number {n}", "status": status,
            "players": [{"seat": 0, "kind": "person", "user_id": f"u{n}a", "name": f"Player {n}a"},
                        second],
            "turn": turn if status == "playing" else None, "observers": observers,
            "created_at": float(n)}


def events(count: int, games: int, seed: int = 7) -> list[ServerEvent]:
    """A plausible stream: mostly turns passing and watchers, some new and closed games."""
    rng = random.Random(seed)
    listed = list(range(1, games + 1))
    made = games
    out: list[ServerEvent] = []
    for _ in range(count):
        roll = rng.random()
        if roll < 0.1:
            made += 1
            listed.append(made)
            out.append(ServerEvent("game_created", json.dumps({"game": game(made, "waiting")}),
                                   None))
        elif roll < 0.15 and len(listed) > 1:
            gone = listed.pop(rng.randrange(len(listed)))
            out.append(ServerEvent("game_closed", json.dumps({"game": game(gone, "waiting")}),
                                   None))
        elif roll < 0.55:
            n = rng.choice(listed)
            out.append(ServerEvent("turn_passed", json.dumps(
                {"game": game(n, turn=rng.randrange(2))}), None))
        else:
            n = rng.choice(listed)
            out.append(ServerEvent("observers", json.dumps(
                {"game_id": f"G{n:05d}", "observers": rng.randrange(9)}), None))
    return out


def rebuild(table: QTableWidget, games: list[GameSummary], me: str | None) -> None:
    """The list as it was shown before: every row made anew on every event."""
    table.setRowCount(0)
    panel_list: Any = table
    panel_list.games = []
    panel_list._me = "(someone else)"  # every line is filled again, every column measured
    panel_list.show_games(games, me)


def run(app: QApplication, games: int, rate: float, seconds: float,
        show: Callable[[LobbyPanel, list[GameSummary]], None]) -> dict[str, float]:
    panel = LobbyPanel()
    panel.resize(440, 700)
    panel.show()
    lobby = LobbyList()
    lobby.apply(ServerEvent("snapshot", json.dumps(
        {"games": [game(n) for n in range(1, games + 1)]}), None))
    panel.set_games(lobby.newest_first(), None)
    panel.games.setCurrentCell(20, 0)
    app.processEvents()
    stream = events(int(rate * seconds), games)
    costs: list[float] = []
    cpu = time.process_time()
    started = time.perf_counter()
    for number, event in enumerate(stream):
        due = started + number / rate
        while time.perf_counter() < due:
            app.processEvents()
            time.sleep(0.001)
        begun = time.perf_counter()
        if lobby.apply(event) is not None:
            show(panel, lobby.newest_first())
        panel.games.viewport().repaint()
        costs.append((time.perf_counter() - begun) * 1000)
    wall = time.perf_counter() - started
    busy = time.process_time() - cpu
    panel.close()
    costs.sort()
    return {"events": len(costs), "p50_ms": statistics.median(costs),
            "p99_ms": percentile(costs, 0.99), "max_ms": costs[-1],
            "core_share": busy / wall}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=500)
    parser.add_argument("--rate", type=float, default=50.0, help="events a second")
    parser.add_argument("--seconds", type=float, default=6.0)
    args = parser.parse_args()
    app = QApplication(sys.argv[:1])
    apply_style(app)
    load = os.getloadavg()
    print(f"{os.cpu_count()} cores, load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; "
          f"{args.games} games listed, {args.rate:.0f} events/s for {args.seconds:.0f} s")
    ways: dict[str, Callable[[LobbyPanel, list[GameSummary]], None]] = {
        "lines changed in place": lambda panel, games: panel.set_games(games, None),
        "list rebuilt on every event": lambda panel, games: rebuild(panel.games, games, None),
    }
    for name, show in ways.items():
        figures = run(app, args.games, args.rate, args.seconds, show)
        print(f"{name}: one event p50 {figures['p50_ms']:.2f} ms, p99 {figures['p99_ms']:.2f} ms, "
              f"max {figures['max_ms']:.2f} ms ({figures['events']} events, paint included); "
              f"{figures['core_share'] * 100:.0f}% of a core")
    return 0


if __name__ == "__main__":
    sys.exit(main())
