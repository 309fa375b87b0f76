"""Bot against bot: each pairing's win share of decisive games (95% Wilson interval), draws, and
each bot's decision times (p50/p95/p99/max). The second line below measures the computer players'
targets (docs/targets.md): expert against hard >= 60% of decisive games, p99 <= 100 ms.

    python -m benchmarks.bots                          # expert vs hard, 400 games
    python -m benchmarks.bots --games 4000 --pair expert:classic-8-50 --processes 2
    python -m benchmarks.bots --pair expert:classic-0-0 --pair hard:easy
    python -m benchmarks.bots --sweep --games 300 --processes 2   # expert vs classic, 25 settings
    python -m benchmarks.bots --pair expert/classic-8-50@20:classic-8-50  # edge before 20 left
    python -m benchmarks.bots --games 3000 --seed 140000 --pair expert:classic-8-50 \
        --paired "expert(budget=5000)" --processes 2   # a variant on the same deals

A bot is a level key (easy, normal, hard, expert) or classic-<intelligence>-<aggression>, or two
of those split: A/B@N plays A while more than N cards are left and B from then on; A/B@steals
plays A but lets B choose its steals. expert(key=value,...) is the expert with StrongBot's
keyword arguments changed (depth, endgame, budget, best_play).
Game g of a pairing deals from seed g (plus --seed) and lets the first bot start when g is even:
the first player alternates and every pairing sees the same deals. --paired V plays V in the
first bot's place on the same deals and counts the games whose result changed, better and worse:
a change worth nothing moves the net count by about the square root of the games changed.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from typing import TypeVar

from benchmarks.ranks import percentile
from somnium_desktop.game.actions import Action
from somnium_desktop.game.bots import Bot, make_bot
from somnium_desktop.game.bots.classic import ClassicBot
from somnium_desktop.game.bots.match import play
from somnium_desktop.game.bots.strong import BUDGET, DEPTH, ENDGAME, StrongBot
from somnium_desktop.game.state import new_game
from somnium_desktop.game.view import View

R = TypeVar("R")


class Split:
    """Two bots sharing a seat: `later` plays once `cut` cards or fewer are left (or, with
    cut None, takes only the steals)."""

    def __init__(self, sooner: Bot, later: Bot, cut: int | None) -> None:
        self.sooner, self.later, self.cut = sooner, later, cut

    def choose(self, view: View, seat: int) -> Action:
        later = view.steal_pending if self.cut is None else view.deck_count <= self.cut
        return (self.later if later else self.sooner).choose(view, seat)


def bot_named(name: str, seed: int) -> Bot:
    """A level key, classic-<intelligence>-<aggression>, expert(key=value,...), or a split
    A/B@N or A/B@steals."""
    if "/" in name:
        sooner, _, rest = name.partition("/")
        later, _, when = rest.partition("@")
        if when != "steals" and not when.isdigit():
            raise ValueError(f"a split bot is A/B@N or A/B@steals, not {name!r}")
        cut = None if when == "steals" else int(when)
        return Split(bot_named(sooner, seed), bot_named(later, seed), cut)
    if name.startswith("classic-"):
        _, intelligence, aggression = name.split("-")
        return ClassicBot(int(intelligence), int(aggression), seed)
    if name.startswith("expert(") and name.endswith(")"):
        return expert_variant(name[len("expert(") : -1], seed)
    return make_bot(name, seed)


def expert_variant(spec: str, seed: int) -> StrongBot:
    """The expert with some of its settings changed, as in "depth=3,budget=5000,best_play=true"."""
    numbers = {"depth": DEPTH, "endgame": ENDGAME, "budget": BUDGET}
    best_play = False
    for item in filter(None, (part.strip() for part in spec.split(","))):
        key, equals, value = item.partition("=")
        if key == "best_play" and value in ("true", "false"):
            best_play = value == "true"
        elif equals and key in numbers and value.isdigit():
            numbers[key] = int(value)
        else:
            raise ValueError(
                "an expert variant sets depth, endgame or budget to a whole number, or best_play "
                f"to true or false, not {item!r}"
            )
    return StrongBot(seed, numbers["depth"], numbers["endgame"], numbers["budget"], best_play)


@dataclass
class Tally:
    """One pairing's results, from the first bot's side."""

    wins: int = 0
    losses: int = 0
    draws: int = 0
    times: tuple[list[float], list[float]] = field(default_factory=lambda: ([], []))
    results: dict[int, float] = field(default_factory=dict)  # game number -> 1, 0.5 or 0

    def add(self, other: Tally) -> None:
        self.wins += other.wins
        self.losses += other.losses
        self.draws += other.draws
        self.results.update(other.results)
        for mine, theirs in zip(self.times, other.times, strict=True):
            mine.extend(theirs)


def play_games(pair: tuple[str, str], games: Sequence[int], seed: int) -> Tally:
    """Play the given game numbers of a pairing; bot 0 is pair[0]."""
    tally = Tally()
    for number in games:
        first = number % 2  # seat 0 is pair[0]; it starts the even games
        state = new_game(seed + number)
        state = replace(state, turn=first, first=first)
        bots = (bot_named(pair[0], seed + number), bot_named(pair[1], seed + number + 1))

        def ask(bot: Bot, view: View, seat: int) -> Action:
            start = time.perf_counter()
            action = bot.choose(view, seat)
            tally.times[seat].append(time.perf_counter() - start)
            return action

        end = play(state, bots, ask)
        if end.winner is None:
            tally.draws += 1
        elif end.winner == 0:
            tally.wins += 1
        else:
            tally.losses += 1
        tally.results[number] = share_of(end.winner)
    return tally


def share_of(winner: int | None, seat: int = 0) -> float:
    """A game's result for `seat`: 1 for a win, 0.5 for a draw, 0 for a loss."""
    return 0.5 if winner is None else float(winner == seat)


def compared(base: str, other: str, before: Tally, after: Tally) -> str:
    """How `other` did in `base`'s seat on the same deals: the games whose result changed."""
    better = sum(1 for n, r in after.results.items() if r > before.results[n])
    worse = sum(1 for n, r in after.results.items() if r < before.results[n])
    changed = better + worse
    return (
        f"  {other} in {base}'s seat, same deals: {changed} games changed, {better} better, "
        f"{worse} worse (net {better - worse:+d}; luck alone strays by about "
        f"{math.sqrt(changed):.0f})"
    )


def in_parts(work: Callable[[list[int]], R], games: int, processes: int) -> Iterator[R]:
    """`work` done on interleaved parts of the game numbers 0..games-1 (each once), in
    `processes` worker processes (in this one for 1); results as the parts finish."""
    parts = [list(range(i, games, processes * 4)) for i in range(processes * 4)]
    parts = [part for part in parts if part]
    if processes == 1:
        yield from map(work, parts)
        return
    with multiprocessing.Pool(processes) as pool:
        yield from pool.imap_unordered(work, parts)


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (centre - half, centre + half)


def report(pair: tuple[str, str], tally: Tally, seconds: float) -> str:
    decisive = tally.wins + tally.losses
    share = tally.wins / decisive if decisive else 0.0
    low, high = wilson(tally.wins, decisive)
    lines = [
        f"{pair[0]} vs {pair[1]}: {decisive + tally.draws} games in {seconds:.1f} s",
        f"  {pair[0]} wins {share:.1%} of decisive games (95% CI {low:.1%}-{high:.1%}): "
        f"{tally.wins} won, {tally.losses} lost, {tally.draws} drawn",
    ]
    for name, times in zip(pair, tally.times, strict=True):
        ms = [t * 1000 for t in times]
        lines.append(
            f"  {name} decisions: {len(ms)}, p50 {percentile(ms, 0.5):.2f} ms, "
            f"p95 {percentile(ms, 0.95):.2f} ms, p99 {percentile(ms, 0.99):.2f} ms, "
            f"max {max(ms, default=0.0):.2f} ms"
        )
    return "\n".join(lines)


SWEEP_INTELLIGENCE = (0, 2, 4, 6, 8)
SWEEP_AGGRESSION = (0, 25, 50, 75, 100)


def run_pair(pair: tuple[str, str], games: int, seed: int, processes: int) -> Tally:
    """Play `games` games of a pairing, split over `processes` worker processes."""
    tally = Tally()
    for part in in_parts(partial(play_games, pair, seed=seed), games, processes):
        tally.add(part)
    return tally


def sweep(bot: str, games: int, seed: int, processes: int) -> float:
    """Print `bot`'s win share of decisive games (95% CI) against classic at every grid
    setting, one line per setting as it finishes; return the lowest share."""
    print(f"{bot} vs classic-<intelligence>-<aggression>, {games} games each", flush=True)
    print("intelligence  aggression  share   95% CI         won  lost  drawn", flush=True)
    weakest = 1.0
    for intelligence in SWEEP_INTELLIGENCE:
        for aggression in SWEEP_AGGRESSION:
            pair = (bot, f"classic-{intelligence}-{aggression}")
            tally = run_pair(pair, games, seed, processes)
            decisive = tally.wins + tally.losses
            share = tally.wins / decisive if decisive else 0.0
            low, high = wilson(tally.wins, decisive)
            weakest = min(weakest, share)
            print(
                f"{intelligence:12d}  {aggression:10d}  {share:5.1%}  {low:5.1%}-{high:5.1%}  "
                f"{tally.wins:5d}  {tally.losses:4d}  {tally.draws:5d}",
                flush=True,
            )
    return weakest


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=400, help="games per pairing")
    parser.add_argument(
        "--pair",
        action="append",
        metavar="A:B",
        help="a pairing to play (repeatable); default expert:hard",
    )
    parser.add_argument("--seed", type=int, default=0, help="the first deal's seed")
    parser.add_argument(
        "--processes",
        type=int,
        default=1,
        choices=(1, 2),
        help="worker processes (at most 2: the machine is shared)",
    )
    parser.add_argument(
        "--paired",
        metavar="V",
        help="also play V in each pairing's first seat on the same deals, and compare",
    )
    parser.add_argument(
        "--sweep",
        action="store_true",
        help="expert against classic at intelligence 0-8 x aggression 0-100 (--games each)",
    )
    args = parser.parse_args(argv)
    if args.sweep:
        start = time.perf_counter()
        weakest = sweep("expert", args.games, args.seed, args.processes)
        print(f"lowest share {weakest:.1%}; {time.perf_counter() - start:.0f} s")
        return
    pairs = [tuple(p.split(":", 1)) for p in (args.pair or ["expert:hard"])]
    for pair in pairs:
        if len(pair) != 2:
            parser.error(f"a pairing is A:B, not {':'.join(pair)!r}")
        a, b = pair
        start = time.perf_counter()
        tally = run_pair((a, b), args.games, args.seed, args.processes)
        print(report((a, b), tally, time.perf_counter() - start), flush=True)
        if args.paired:
            start = time.perf_counter()
            other = run_pair((args.paired, b), args.games, args.seed, args.processes)
            print(report((args.paired, b), other, time.perf_counter() - start), flush=True)
            print(compared(a, args.paired, tally, other), flush=True)


if __name__ == "__main__":
    main()
