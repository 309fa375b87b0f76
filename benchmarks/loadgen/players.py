"""Players as the app plays: each follows its game's stream and acts on what the stream shows.

A table's two players each keep their game's event stream open for the game's whole life. The
one to move acts only once its own stream shows the previous action, against the version it
shows; its round trip (request to answer) is timed, and every stream notes when each action's
event arrived. When a game ends both ask for a rematch and follow the table to the new game
(new streams open before the old ones close). Phases (warm-up, paced, saturation) change how
often tables may act; each action counts in the phase it was sent in.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import random
import time
from dataclasses import dataclass, field
from typing import Any

import aiohttp

from .client import GameStream, LobbyStream, call
from .servers import BenchError

MAX_ERRORS = 50  # refused actions before the run gives up


def choose(view: dict[str, Any]) -> dict[str, Any]:
    """A plausible move from the view's legal list (no rules here: the list is the engine's)."""
    legal: list[dict[str, Any]] = view["legal"]
    steals = [a for a in legal if a["type"] == "steal"]
    if steals:
        return steals[0]
    if len(view["table"]) >= 2 and {"type": "end_turn"} in legal:
        return {"type": "end_turn"}
    return legal[0]


@dataclass(eq=False)
class Phase:
    """A stretch of the run: how often each table may act, and what was sent in it."""

    name: str
    period: float = 0.0  # seconds between one table's actions; 0: as soon as it can
    warm_up: bool = False
    start: float = 0.0
    end: float = 0.0
    ended: asyncio.Event = field(default_factory=asyncio.Event)
    round_trips: list[float] = field(default_factory=list)
    sends: list[tuple[str, int, int, float]] = field(default_factory=list)  # game, seq, seat, t
    games_ended: int = 0
    rematches: int = 0
    errors: int = 0
    lags: list[float] = field(default_factory=list)  # how late the generator's loop ran, s
    cpu: dict[str, float] = field(default_factory=dict)  # CPU seconds used in the phase


STOP = Phase("stop")


class Run:
    """The tables in play and the phase they are in."""

    def __init__(self, max_actions: int) -> None:
        self.actions_left = max_actions  # a bound on the requests, whatever the windows
        self.phase = Phase("setting up", warm_up=True)
        self.tables: list[Table] = []
        self.board: dict[tuple[str, int], list[float]] = {}  # see GameStream
        self.opened: dict[tuple[str, int], int] = {}  # (game, seat) -> its snapshot's seq
        self.warming = 0
        self.warmed = asyncio.Event()
        self.error: str | None = None
        self.failed = asyncio.Event()
        self.ended_games: list[str] = []  # games that ended, in order (analyses.py)

    def begin(self, phase: Phase) -> None:
        old = self.phase
        phase.start = time.perf_counter()
        old.end = phase.start
        self.phase = phase
        old.ended.set()
        for table in self.tables:
            for player in table.players:
                player.wake.set()

    def table_warmed(self) -> None:
        self.warming -= 1
        if self.warming <= 0:
            self.warmed.set()

    def fail(self, message: str) -> None:
        if self.error is None:
            self.error = message
        self.failed.set()


@dataclass(eq=False)
class Player:
    """One seat of a table: a signed-in person on one server instance, with a client (and so
    connections) of their own."""

    base: str
    token: str
    name: str
    seat: int
    http: aiohttp.ClientSession
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    stream: GameStream | None = None
    lobby: LobbyStream | None = None
    ids: itertools.count[int] = field(default_factory=itertools.count)

    async def watch_lobby(self) -> None:
        self.lobby = LobbyStream()
        await self.lobby.open(self.http, self.base, self.token)

    async def follow(self, run: Run, game_id: str) -> None:
        """Open the game's stream (and its snapshot) before letting go of the last one."""
        stream = GameStream(game_id, self.seat, run.board, self.wake)
        await stream.open(self.http, self.base, self.token)
        run.opened[(game_id, self.seat)] = stream.snapshot_seq
        if self.stream is not None:
            self.stream.close()
        self.stream = stream


@dataclass(eq=False)
class Table:
    """Two players and the game between them; after a rematch, the new game."""

    run: Run
    index: int
    players: tuple[Player, Player]
    game_id: str = ""
    skip: int = 0  # warm-up actions still to make
    next_at: float = 0.0
    paced_in: Phase | None = None

    async def open(self) -> None:
        host, guest = self.players
        status, game = await call(host.http, "POST", f"{host.base}/games", host.token,
                                  {"name": f"bench {self.index}", "opponent": "person"})
        if status != 201:
            raise BenchError(f"creating a game: status {status}: {game}")
        self.game_id = game["id"]
        await host.follow(self.run, self.game_id)
        status, game = await call(guest.http, "POST",
                                  f"{guest.base}/games/{self.game_id}/join", guest.token)
        if status != 200:
            where = "" if guest.base == host.base else f" on {guest.base}, made on {host.base}"
            raise BenchError(f"joining game {self.game_id}{where}: status {status}: {game}")
        await guest.follow(self.run, self.game_id)

    async def slot(self) -> Phase | None:
        """Wait until this table may act; the phase to count the action in, None at the end
        (or once the run's actions are spent)."""
        phase = await self._turn()
        if phase is None or self.run.actions_left <= 0:
            return None
        self.run.actions_left -= 1
        return phase

    async def _turn(self) -> Phase | None:
        while True:
            phase = self.run.phase
            if phase is STOP:
                return None
            if phase.warm_up:
                if self.skip > 0:
                    self.skip -= 1
                    if self.skip == 0:
                        self.run.table_warmed()
                    return phase
                await phase.ended.wait()
                continue
            if phase.period:
                if self.paced_in is not phase:  # tables spread evenly over the period
                    self.paced_in = phase
                    self.next_at = phase.start + phase.period * self.index / len(self.run.tables)
                delay = self.next_at - time.perf_counter()
                if delay > 0:
                    try:
                        await asyncio.wait_for(phase.ended.wait(), delay)
                        continue  # the phase ended meanwhile
                    except TimeoutError:
                        pass
                # no bursts to catch up: a table that fell behind starts again from now
                self.next_at = max(self.next_at + phase.period,
                                   time.perf_counter() - phase.period)
            return phase

    async def play(self, player: Player) -> None:
        """One player's part until the run stops."""
        try:
            await self._play(player)
        except BenchError as error:
            self.run.fail(str(error))
        except (aiohttp.ClientError, TimeoutError) as error:
            self.run.fail(f"table {self.index}, {player.name}: {error!r}")

    async def _play(self, player: Player) -> None:
        asked_rematch = ""
        while self.run.phase is not STOP:
            player.wake.clear()  # before looking: whatever changes from here on wakes the wait
            stream = player.stream
            assert stream is not None
            if stream.ended:
                raise BenchError(f"{player.name}'s stream of {stream.game_id} ended")
            view = stream.view
            if view.get("over"):
                if stream.rematch is not None:
                    await self._switch(player, stream.rematch)
                    continue
                if asked_rematch != stream.game_id:
                    asked_rematch = stream.game_id
                    await self._rematch(player, stream.game_id)
                    continue
            elif view.get("turn") == player.seat and await self._act(player, stream):
                continue
            await player.wake.wait()

    async def _act(self, player: Player, stream: GameStream) -> bool:
        """Act on what the stream shows, once the table may; False if there was nothing to do."""
        version = stream.version
        phase = await self.slot()
        if phase is None or stream.version != version or stream.ended:
            return phase is not None
        body = {"action_id": f"{player.name}-{next(player.ids)}", "version": version,
                "action": choose(stream.view)}
        url = f"{player.base}/games/{stream.game_id}/actions"
        start = time.perf_counter()
        status, answer = await call(player.http, "POST", url, player.token, body)
        elapsed = time.perf_counter() - start
        if status != 200:
            phase.errors += 1
            if phase.errors > MAX_ERRORS:
                raise BenchError(f"{phase.errors} actions refused; the last: {status} {answer}")
            # the stream will show where the game really is; else try again in a moment
            player.wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(player.wake.wait(), 1)
            return True
        phase.round_trips.append(elapsed)
        phase.sends.append((stream.game_id, answer["seq"], player.seat, start))
        if answer["view"]["over"]:
            phase.games_ended += 1
            self.run.ended_games.append(stream.game_id)
        # act again only once the own stream has shown this action
        while stream.version < answer["version"] and not stream.ended:
            player.wake.clear()
            try:
                await asyncio.wait_for(player.wake.wait(), 30)
            except TimeoutError:
                raise BenchError(f"{player.name}'s stream of {stream.game_id} did not show "
                                 f"version {answer['version']} within 30 s") from None
        return True

    async def _rematch(self, player: Player, game_id: str) -> None:
        url = f"{player.base}/games/{game_id}/rematch"
        status, answer = await call(player.http, "POST", url, player.token)
        if status != 200:
            raise BenchError(f"a rematch was refused: {status} {answer}")
        new = answer["rematch"]["game_id"]
        if new:
            await self._switch(player, new)

    async def _switch(self, player: Player, game_id: str) -> None:
        if self.game_id != game_id:
            self.game_id = game_id
            self.run.phase.rematches += 1
        await player.follow(self.run, game_id)


async def seat_tables(run: Run, players: list[tuple[Player, Player]], spread: int,
                      seed: int) -> None:
    """Open a table per pair of players; `spread` > 0 gives each a random number of warm-up
    actions below it, so that the games are at every stage when the measuring starts."""
    rng = random.Random(seed)
    tables = [Table(run, n, pair) for n, pair in enumerate(players)]
    for start in range(0, len(tables), 50):
        opened = await asyncio.gather(*(t.open() for t in tables[start:start + 50]),
                                      return_exceptions=True)
        for outcome in opened:
            if isinstance(outcome, BaseException):
                raise outcome
    for table in tables:
        table.skip = rng.randrange(spread) if spread > 0 else 0
    run.tables.extend(tables)
    run.warming = sum(1 for t in tables if t.skip > 0)
    if run.warming == 0:
        run.warmed.set()
