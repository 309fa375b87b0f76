"""The load benchmark's scenarios: players seated at tables, the phases timed, observers.

`benchmarks/server_load.py` parses the command line, starts or finds the servers and prints
the rows these return.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import secrets
import time
from collections.abc import Sequence

from .analyses import Asked, ask_analyses
from .client import session, sign_in
from .figures import Row, own_and_other
from .observers import ObserverProcess, Watched
from .players import STOP, Phase, Player, Run, Table, seat_tables
from .servers import BenchError, CpuSource, own_cpu_seconds

SIGN_INS_AT_ONCE = 16
LAG_TICK = 0.002  # seconds between the load generator's looks at its own event loop


async def note_lags(phase: Phase) -> None:
    """Until cancelled, how much later than asked a short sleep ends: the time a reply waits
    in the load generator before it is timed."""
    loop = asyncio.get_running_loop()
    while True:
        asked = loop.time() + LAG_TICK
        await asyncio.sleep(LAG_TICK)
        phase.lags.append(max(0.0, loop.time() - asked))


class Bench:
    """The scenarios, run against the servers at `bases`, with the CPU of `sources` measured."""

    def __init__(self, bases: list[str], sources: list[CpuSource],
                 args: argparse.Namespace) -> None:
        self.bases = bases
        self.sources = sources
        self.args = args
        self.tag = secrets.token_hex(3)  # names of this run's players
        self.signed = 0
        self.gate = asyncio.Semaphore(SIGN_INS_AT_ONCE)
        self.everyone: list[Player] = []
        self.asked: Asked | None = None  # the analyses asked for beside the paced load

    async def player(self, base: str, seat: int) -> Player:
        name = f"bench-{self.tag}-{self.signed}"
        self.signed += 1
        http = session()
        try:
            async with self.gate:
                token = await sign_in(http, base, name)
        except BaseException:
            await http.close()
            raise
        player = Player(base, token, name, seat, http)
        self.everyone.append(player)
        return player

    async def pairs(self, count: int) -> list[tuple[Player, Player]]:
        """Players for `count` tables: A on one instance, B on the next (or the same one)."""
        spread = len(self.bases)
        other = 0 if self.args.placement == "together" else 1
        made = await asyncio.gather(*(
            asyncio.gather(self.player(self.bases[n % spread], 0),
                           self.player(self.bases[(n + other) % spread], 1))
            for n in range(count)
        ))
        return [(a, b) for a, b in made]

    async def lobby_streams(self, pairs: list[tuple[Player, Player]]) -> None:
        """With --lobby-streams, each player opens the lobby's stream first, as the app does."""
        if not self.args.lobby_streams:
            return
        players = [p for pair in pairs for p in pair]
        for start in range(0, len(players), 100):
            await asyncio.gather(*(p.watch_lobby() for p in players[start:start + 100]))

    async def measure(self, run: Run, phase: Phase, seconds: float,
                      extra: Sequence[CpuSource] = ()) -> None:
        """Run `phase` for `seconds`, noting the CPU each part used meanwhile.

        The load generator's garbage collector waits until the phase is over: its pauses (up
        to 120 ms with the heap of a run) would be counted as the servers' delays. How late
        the generator's own event loop runs meanwhile is noted (`phase.lags`).
        """
        sources = [*self.sources, *extra]
        gc.collect()
        gc.disable()
        lateness = asyncio.create_task(note_lags(phase))
        before = {s.name: s.seconds() for s in sources}
        own = own_cpu_seconds()
        run.begin(phase)
        try:
            await asyncio.wait_for(run.failed.wait(), seconds)
            raise BenchError(run.error or "a player failed")
        except TimeoutError:
            pass
        finally:
            lateness.cancel()
            gc.enable()
        phase.cpu = {s.name: s.seconds() - before[s.name] for s in sources}
        phase.cpu["generator"] = own_cpu_seconds() - own

    async def finish(self, run: Run, tasks: list[asyncio.Task[None]]) -> None:
        run.begin(STOP)
        await asyncio.sleep(1.0)  # the last events on their way to the streams
        await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), 60)
        await self.close(run.tables)
        lobbies = [p.lobby for t in run.tables for p in t.players if p.lobby is not None]
        if lobbies:
            print(f"{len(lobbies)} lobby streams received "
                  f"{sum(lobby.events for lobby in lobbies)} events", flush=True)
        if run.actions_left <= 0:
            print(f"the players stopped at --max-actions {self.args.max_actions}: the later "
                  "figures cover fewer actions than their window allowed", flush=True)

    async def close(self, tables: Sequence[Table] | None = None) -> None:
        """Close the players' streams and clients: those of `tables`, or everyone's."""
        players = self.everyone if tables is None else [p for t in tables for p in t.players]
        for player in players:
            if player.stream is not None:
                player.stream.close()
            if player.lobby is not None:
                player.lobby.close()
            await player.http.close()

    async def games(self) -> list[Row]:
        """The paced and the saturation scenarios on the same tables."""
        args = self.args
        run = Run(args.max_actions)
        started = time.perf_counter()
        pairs = await self.pairs(args.games)
        await self.lobby_streams(pairs)
        await seat_tables(run, pairs, args.spread, args.seed)
        print(f"{args.games} tables seated (players signed in, streams open) in "
              f"{time.perf_counter() - started:.1f} s", flush=True)
        tasks = [asyncio.create_task(t.play(p)) for t in run.tables for p in t.players]
        try:
            warm_up = Phase("warm-up", warm_up=True)
            run.begin(warm_up)
            waits = [asyncio.create_task(run.warmed.wait()),
                     asyncio.create_task(run.failed.wait())]
            await asyncio.wait(waits, timeout=300, return_when=asyncio.FIRST_COMPLETED)
            for waiting in waits:
                waiting.cancel()
            if run.error is not None or not run.warmed.is_set():
                raise BenchError(run.error or "the warm-up did not end within 300 s")
            print(f"warm-up: {len(warm_up.round_trips)} actions in "
                  f"{time.perf_counter() - warm_up.start:.1f} s", flush=True)
            paced = Phase("paced", period=args.games / args.rate)
            await self.measure(run, paced, args.paced_seconds)
            with_analyses = await self.with_analyses(run)
            saturation = Phase("saturation")
            if args.saturation_seconds:
                await self.measure(run, saturation, args.saturation_seconds)
        finally:
            await self.finish(run, tasks)
        beside = [] if with_analyses is None else [Row(
            f"paced, {args.analyses_per_second:g} analyses/s beside", with_analyses,
            *own_and_other(with_analyses, run))]
        return [
            Row(f"paced: {args.games} games at {args.rate:g}/s", paced,
                *own_and_other(paced, run)),
            *beside,
            *([Row(f"saturation: {args.games} games", saturation,
                   *own_and_other(saturation, run))] if args.saturation_seconds else []),
        ]

    async def with_analyses(self, run: Run) -> Phase | None:
        """With --analyses-per-second: the paced load again, while finished games' analyses
        are asked for beside it."""
        args = self.args
        if not args.analyses_per_second:
            return None
        phase = Phase("paced + analyses", period=args.games / args.rate)
        stop = asyncio.Event()
        asking = asyncio.create_task(
            ask_analyses(self.bases, run, args.analyses_per_second, stop))
        try:
            await self.measure(run, phase, args.paced_seconds)
        finally:
            stop.set()
        self.asked = await asking
        return phase

    async def observers(self) -> Row:
        """Observers on a few games while their players move at a steady pace."""
        args = self.args
        run = Run(args.max_actions)
        pairs = await self.pairs(args.observed_games)
        await self.lobby_streams(pairs)
        await seat_tables(run, pairs, 0, args.seed)
        targets = [(self.bases[n % len(self.bases)],
                    run.tables[n % args.observed_games].game_id)
                   for n in range(args.observers)]
        watchers = ObserverProcess(targets)
        tasks = [asyncio.create_task(t.play(p)) for t in run.tables for p in t.players]
        watched = Watched()
        try:
            started = time.perf_counter()
            connected = await watchers.connected()
            print(f"{connected} observers connected in {time.perf_counter() - started:.1f} s",
                  flush=True)
            await asyncio.sleep(1.0)  # the observer-count announcements settle
            phase = Phase("observers", period=args.observer_interval)
            await self.measure(run, phase, args.observer_seconds,
                               [CpuSource("observers", [watchers.pid])])
            run.begin(STOP)
            await asyncio.sleep(1.0)
            watched = await watchers.stop()
        finally:
            await self.finish(run, tasks)
            watchers.kill()
        own, _, lost = own_and_other(phase, run)  # lost: on the players' streams
        other: list[float] = []
        for game_id, seq, _seat, sent in phase.sends:
            seen = watched.arrivals.get((game_id, seq), [])
            other.extend(t - sent for t in seen)
            lost += max(0, watched.expected(game_id, seq) - len(seen))
        every = f"a move every {1000 * args.observer_interval:.0f} ms"
        name = f"{args.observers} observers on {args.observed_games} game(s), {every}"
        return Row(name, phase, own, other, lost)
