"""The deck order and the seed never leave the server: many random games, every payload searched."""

from __future__ import annotations

import asyncio
import logging
import random
import re
from collections import defaultdict
from typing import Any

import requests

from somnium_desktop.game import Suit, state_to_dict
from somnium_server.play.games import stored_state

from ..conftest import Database
from .helpers import EventReader, LiveServer, Player, open_test_storage, server_settings

SUITS = [suit.code for suit in Suit]
GAME_PATH = re.compile(r"/games/([A-Za-z0-9]+)")


class Collector(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


def _stored_games(database: Database) -> dict[str, dict[str, Any]]:
    async def load() -> dict[str, dict[str, Any]]:
        storage = open_test_storage(database)
        try:
            return {
                record.id: state_to_dict(await stored_state(storage, record))
                for record in await storage.list_games()
            }
        finally:
            await storage.close()

    return asyncio.run(load())


def test_no_payload_holds_the_deck_order_or_the_seed(database: Database) -> None:
    server = LiveServer(server_settings(database, access_log=True, log_level="info"))
    collector = Collector()
    loggers = [logging.getLogger(n) for n in ("", "uvicorn", "uvicorn.error", "uvicorn.access",
                                               "somnium_server")]
    for logger in loggers:
        logger.addHandler(collector)
    by_game: dict[str, list[bytes]] = defaultdict(list)
    general: list[bytes] = []
    sources: dict[int, str] = {}

    def keep(response: requests.Response, *args: Any, **kwargs: Any) -> None:
        sources[id(response.content)] = f"{response.request.method} {response.url}"
        match = GAME_PATH.search(response.url)
        if match:
            by_game[match.group(1).upper()].append(response.content)
        elif response.headers.get("content-type", "").startswith("application/json"):
            body = response.json()
            if isinstance(body, dict) and "id" in body:
                by_game[body["id"]].append(response.content)
            else:
                general.append(response.content)

    rng = random.Random(2024)
    streams: dict[str, EventReader] = {}
    try:
        lobby = EventReader(server.base + "/lobby/events")
        people = [server.player(f"P{n}") for n in range(4)]
        for person in people:
            person.http.hooks["response"].append(keep)
        watcher = requests.Session()
        watcher.hooks["response"].append(keep)
        for round_number in range(36):
            ann, bob = rng.sample(people, 2)
            versus_computer = round_number % 6 == 5
            if versus_computer:
                game = ann.create(opponent="computer", level="test")
            else:
                game = ann.create()
                bob.post(f"/games/{game['id']}/join")
            game_id = game["id"]
            if round_number % 4 == 0:
                streams[game_id] = EventReader(f"{server.base}/games/{game_id}/events")
            seats: dict[int, Player] = {0: ann, 1: bob}
            stop_after = rng.choice([3, 8, 15, 30, 1000])
            for _ in range(stop_after):
                detail = watcher.get(f"{server.base}/games/{game_id}", timeout=10).json()
                view = detail["view"]
                if view["over"]:
                    break
                if versus_computer and view["turn"] == 1:
                    continue
                mover = seats[view["turn"]]
                if rng.random() < 0.15:  # now and then something illegal, for the error messages
                    action: dict[str, Any] = rng.choice(
                        [{"type": "end_turn"}, {"type": "draw"},
                         {"type": "steal", "suit": rng.choice(SUITS)}]
                    )
                    mover.act(game_id, detail["version"] - rng.randrange(2), action)
                elif rng.random() < 0.02:
                    seats[rng.randrange(2)].act(game_id, detail["version"], {"type": "concede"})
                else:
                    mover.act(game_id, detail["version"], rng.choice(view["legal"]))
            ann.post(f"/games/{game_id}/chat", {"text": f"well played, round {round_number}"})
            watcher.get(f"{server.base}/games/{game_id}/chat", timeout=10)
            watcher.get(f"{server.base}/games/{game_id}/log", timeout=10)
            watcher.get(f"{server.base}/games/{game_id}/replay", timeout=10)
            watcher.get(f"{server.base}/games", timeout=10)
        for stream in [*streams.values(), lobby]:
            stream.drain(quiet=0.2)
    finally:
        for stream in streams.values():
            stream.close()
        lobby.close()
        server.stop()
        for logger in loggers:
            logger.removeHandler(collector)

    for game_id, stream in streams.items():
        by_game[game_id].extend(stream.raw)
    general.extend(lobby.raw)
    states = _stored_games(database)
    assert len(states) == 36
    unfinished = [s for s in states.values() if s["deck"]]
    assert len(unfinished) >= 10, "the test should leave many decks undealt"
    everything = b"".join(general) + b"".join(b"".join(v) for v in by_game.values())
    logs = "\n".join(collector.lines)
    assert "/actions" in logs  # the access log was captured
    assert b'"deck":' not in everything and b'"seed":' not in everything  # as keys
    for game_id, state in states.items():
        seed = str(state["seed"]).encode()
        assert seed not in everything, f"the seed of {game_id} left the server"
        assert seed.decode() not in logs
        payload = b"".join(by_game[game_id])
        assert payload, game_id
        for card in state["deck"]:
            if card in ("fool", "death"):
                continue
            quoted = b'"%s"' % card.encode()
            for body in by_game[game_id]:
                if quoted in body:
                    raise AssertionError(
                        f"{card} of {game_id}'s deck leaked in {sources.get(id(body))}: "
                        f"{body[:3000]!r} deck={state['deck']} over={state['over']}"
                    )
            assert card not in logs
        if len(state["deck"]) >= 3:  # a shorter run may be a Fool seen earlier, by chance
            order = ",".join(f'"{card}"' for card in state["deck"][:3]).encode()
            assert order not in payload
    # every card code seen on the wire for a game is one already dealt there
    assert any(b"card_drawn" in body for bodies in by_game.values() for body in bodies)
    assert any(b"event: chat" in body for bodies in by_game.values() for body in bodies)
