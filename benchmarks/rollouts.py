"""Rollout checks: the expert's mid-game choices against the runner-up, both played on by it.

    python -m benchmarks.rollouts --kind steal --games 50 --rollouts 300 --processes 2
    python -m benchmarks.rollouts --kind bank --games 200 --rollouts 200 --limit 160 \
        --seed 600000 --processes 2

Plays the expert (seat 0) against classic-8-50 on deals from --seed (the first player
alternating) and keeps its decisions with more cards left than the endgame solver takes:
- `steal`: every steal with two or more suits open that would not bust the table; the other
  action is the runner-up by the expert's own values;
- `bank`: bank-or-draw calls from 11 to 30 cards left where drawing and banking are within 0.03
  by the expert's values (the close calls, where a mistake is likely), the other action being
  the one it did not take.
For each decision it deals the unseen cards in --rollouts random orders and plays the game out
from each, once after the expert's action and once after the other, with the expert and
classic-8-50 choosing everything after it: the same deck orders for both, so the luck of the
deal cancels as far as it can. A positive difference (expert's action minus the other, in
shares of a game) means the expert chose well by the standard of its own later play: this is
one step of policy improvement, the only judge that reaches the middle of the game (the exact
solver stops at about 10 cards). It prints the mean difference with its standard error, overall,
by cards left and by who leads, how many decisions came out worse by two standard errors (about
one in 40 would by chance alone), and how far the expert's own values miss the played-out
differences once the rollouts' noise is taken out, with what a judge free of that miss would gain.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import partial

from benchmarks.bots import share_of
from somnium_desktop.game.actions import Action, Draw, EndTurn, Steal
from somnium_desktop.game.bots.classic import ClassicBot
from somnium_desktop.game.bots.match import play
from somnium_desktop.game.bots.model import SUITS, Position, bits_of
from somnium_desktop.game.bots.strong import (
    DEPTH,
    ENDGAME,
    StrongBot,
    TurnSearch,
    sure_win_banking,
)
from somnium_desktop.game.cards import Suit
from somnium_desktop.game.state import GameState, apply, new_game
from somnium_desktop.game.view import view_of

CLOSE = 0.03  # a bank-or-draw call is close when its two values are this near
BANK_LEFT = (11, 30)  # the cards left where bank-or-draw calls are checked


@dataclass(frozen=True)
class Decision:
    """One of the expert's decisions, the action it took and the one it is compared with."""

    deal: int
    state: GameState
    chosen: Action
    other: Action
    gap: float  # the chosen action's value minus the other's, by the expert's own search
    lead: int  # the expert's score minus classic's, as the banks stand


def decision_at(state: GameState, kind: str, deal: int) -> Decision | None:
    """The expert's decision at `state` (its turn, seat 0), if it is one of the `kind` checked."""
    pos = Position.of(view_of(state), 0)
    lead = state.scores[0] - state.scores[1]
    if kind == "steal":
        if not state.steal_pending or pos.left <= ENDGAME:
            return None
        on_table = bits_of(pos.table)
        options = TurnSearch(pos, DEPTH).steal_options()
        safe = {s: v for s, v in options.items() if not on_table >> s & 1}
        if len(safe) < 2:
            return None
        best, second = sorted(safe, key=lambda s: (-safe[s], s))[:2]
        gap = safe[best] - safe[second]
        return Decision(deal, state, Steal(Suit(best)), Steal(Suit(second)), gap, lead)
    low, high = BANK_LEFT
    if state.steal_pending or not state.table or not low <= pos.left <= high:
        return None
    if len(pos.table) >= SUITS or sure_win_banking(pos):
        return None
    stay, go = TurnSearch(pos, DEPTH).bank_or_draw()
    if abs(go - stay) >= CLOSE:
        return None
    if go > stay:
        return Decision(deal, state, Draw(), EndTurn(), go - stay, lead)
    return Decision(deal, state, EndTurn(), Draw(), stay - go, lead)


def decisions(kind: str, deals: Sequence[int]) -> list[Decision]:
    """The expert's decisions of `kind` in games on `deals` against classic-8-50 (the expert in
    seat 0, starting the games on even deals)."""
    found: list[Decision] = []
    for deal in deals:
        first = deal % 2
        state = replace(new_game(deal), turn=first, first=first)
        bots = (StrongBot(), ClassicBot(8, 50, deal + 1))
        while not state.over:
            seat = state.turn
            if seat == 0:
                decision = decision_at(state, kind, deal)
                if decision is not None:
                    found.append(decision)
            state, _ = apply(state, seat, bots[seat].choose(view_of(state), seat))
    return found


def difference(decision: Decision, rollouts: int) -> tuple[float, float]:
    """The mean of (result after the chosen action - result after the other) over `rollouts`
    orders of the unseen cards, each order used for both, and its standard error."""
    state = decision.state
    rng = random.Random(decision.deal * 7919 + state.deck_count * 31 + len(state.table))
    deck = list(state.deck)
    # One expert for all the rollouts: its endgame solver's memory carries over from one to the
    # next, as it does from one decision to the next in a game. That can only let a solve finish
    # that would otherwise have run out of budget, and it makes the rollouts much faster.
    expert = StrongBot()
    found: list[float] = []
    for number in range(rollouts):
        rng.shuffle(deck)
        dealt = replace(state, deck=tuple(deck))
        classic = ClassicBot(8, 50, decision.deal + 1 + 1000 * number)
        chosen = share_of(play(apply(dealt, 0, decision.chosen)[0], (expert, classic)).winner)
        other = share_of(play(apply(dealt, 0, decision.other)[0], (expert, classic)).winner)
        found.append(chosen - other)
    mean = sum(found) / len(found)
    if len(found) < 2:
        return mean, 0.0
    variance = sum((d - mean) ** 2 for d in found) / (len(found) - 1)
    return mean, math.sqrt(variance / len(found))


Checked = tuple[Decision, float, float]  # the decision, the mean difference, its standard error


def check(rollouts: int, decision: Decision) -> Checked:
    return (decision, *difference(decision, rollouts))


def summary(label: str, rows: Sequence[Checked]) -> str:
    if not rows:
        return f"  {label}: none"
    mean = sum(r[1] for r in rows) / len(rows)
    error = math.sqrt(sum(r[2] ** 2 for r in rows)) / len(rows)
    worse = sum(1 for r in rows if r[1] < -2 * r[2])
    gap = sum(r[0].gap for r in rows) / len(rows)
    return (
        f"  {label}: {len(rows)} decisions, chosen minus other {mean:+.4f} (se {error:.4f}; "
        f"the expert's own values say {gap:+.4f}), {worse} worse by 2 se"
    )


def model_error(rows: Sequence[Checked]) -> tuple[float, float]:
    """How far the expert's own value gaps stray from the played-out ones, net of the rollouts'
    noise (a standard deviation), and what a judge free of that error would gain a decision: the
    mean of E[max(0, -true gap)] with the true gap normal around the expert's own."""
    if len(rows) < 2:
        return 0.0, 0.0
    misses = [r[1] - r[0].gap for r in rows]
    mean = sum(misses) / len(misses)
    spread = sum((m - mean) ** 2 for m in misses) / (len(misses) - 1)
    noise = sum(r[2] ** 2 for r in rows) / len(rows)
    sigma = math.sqrt(max(0.0, spread - noise))
    if sigma == 0.0:
        return 0.0, 0.0
    gain = 0.0
    for decision, _, _ in rows:
        z = decision.gap / sigma
        density = math.exp(-z * z / 2) / math.sqrt(2 * math.pi)
        gain += sigma * density - decision.gap * 0.5 * math.erfc(z / math.sqrt(2))
    return sigma, gain / len(rows)


def report(kind: str, rows: Sequence[Checked]) -> str:
    lines = [f"{kind} decisions of the expert against classic-8-50, played out both ways:"]
    lines.append(summary("all", rows))
    sigma, gain = model_error(rows)
    lines.append(
        f"  the expert's values miss the played-out gap by {sigma:.4f} (sd, net of the "
        f"rollouts' noise); a judge without that miss would gain about {gain:.4f} a decision"
    )
    for low, high in ((9, 15), (16, 22), (23, 30), (31, 54)):
        band = [r for r in rows if low <= r[0].state.deck_count <= high]
        if band:
            lines.append(summary(f"{low}-{high} cards left", band))
    lines.append(summary("expert ahead", [r for r in rows if r[0].lead > 0]))
    lines.append(summary("level", [r for r in rows if r[0].lead == 0]))
    lines.append(summary("expert behind", [r for r in rows if r[0].lead < 0]))
    if kind == "bank":
        lines.append(summary("the expert drew", [r for r in rows if r[0].chosen == Draw()]))
        lines.append(summary("the expert banked", [r for r in rows if r[0].chosen == EndTurn()]))
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kind", choices=("steal", "bank"), default="steal")
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--rollouts", type=int, default=300, help="deck orders per decision")
    parser.add_argument("--limit", type=int, default=0, help="check at most this many (0: all)")
    parser.add_argument("--seed", type=int, default=500_000, help="the first deal's seed")
    parser.add_argument("--processes", type=int, default=1, choices=(1, 2))
    args = parser.parse_args(argv)
    start = time.perf_counter()
    deals = list(range(args.seed, args.seed + args.games))
    size = -(-len(deals) // args.processes)
    parts = [deals[i : i + size] for i in range(0, len(deals), size)]
    with multiprocessing.Pool(args.processes) as pool:
        found = [d for part in pool.map(partial(decisions, args.kind), parts) for d in part]
        if args.limit:
            random.Random(1).shuffle(found)
            found = found[: args.limit]
        print(f"{len(found)} decisions from {args.games} games", flush=True)
        rows = list(pool.imap_unordered(partial(check, args.rollouts), found))
    print(report(args.kind, rows))
    print(f"{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
