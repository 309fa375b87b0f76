"""Fit an outcome-trained correction to the strong bot's value model (model.outlook) and print it.

    python -m benchmarks.correction record --pair expert:classic-8-50 --games 2000 --out /tmp/e.pkl
    python -m benchmarks.correction record --pair classic-8-50:classic-8-50 \
        --games 4000 --out /tmp/c.pkl
    python -m benchmarks.correction fit /tmp/e.pkl /tmp/c.pkl

`record` plays a pairing on deals from seed 50,000 on (away from benchmarks/bots.py's deals) and
keeps every turn end (the other player about to move, cards left in the deck) with how the game
ended for the player whose turn just ended; for expert:X only the expert's turn ends (the
positions its leaves judge), for classic self-play both players'. `fit` fits, by logistic
regression (Newton's method, pure Python), P(win) = sigmoid(a * z + sum w_i * f_i) with z the
model's margin over SPREAD and f_i the features model.outlook leaves out: the Fools left times
the best steal against each side (the victim's top minus its next card in the suit, plus what the
card adds to the stealer's top), Death still in the deck, and the mover's tempo (the intercept).
It prints the weights per band of cards left and the log loss against the model's own erf, on
the fitted positions and on a held-out fifth; --steals-only keeps a at the erf's own scale and fits
the two steal terms alone; --out writes the weights as JSON. The bot never used them in the end:
model.py's docstring has the paired match figures, and commit 418bb1e the bot-side code
(StrongBot(correction=band_table(...))) to play them again.
"""

from __future__ import annotations

import argparse
import json
import math
import pickle
from collections.abc import Sequence
from dataclasses import replace

from benchmarks.bots import bot_named, share_of
from somnium_desktop.game.bots.model import (
    SPREAD,
    SUITS,
    Stack,
    Stacks,
    suit_outlook,
    top,
    win_chance,
)
from somnium_desktop.game.state import apply, new_game
from somnium_desktop.game.view import view_of

FIRST_DEAL = 50_000
# (ender's bank, mover's bank, unseen masks, fools, death, left, ender's result 1/0.5/0)
Sample = tuple[Stacks, Stacks, tuple[int, ...], int, int, int, float]


def record(pair: tuple[str, str], games: int, first_deal: int) -> list[Sample]:
    """Turn ends of `games` games; for a pairing with expert only the expert's turn ends."""
    from somnium_desktop.game.bots.model import Position

    keep = {0, 1} if "expert" not in pair else {pair.index("expert")}
    samples: list[Sample] = []
    for number in range(games):
        first = number % 2
        state = replace(new_game(first_deal + number), turn=first, first=first)
        bots = (bot_named(pair[0], number), bot_named(pair[1], number + 1))
        seen: list[tuple[int, Position]] = []
        while not state.over:
            seat = state.turn
            state, _ = apply(state, seat, bots[seat].choose(view_of(state), seat))
            if not state.over and state.turn != seat and seat in keep:
                seen.append((seat, Position.of(view_of(state), seat)))
        end = view_of(state)
        for seat, pos in seen:
            result = share_of(end.winner, seat)
            samples.append(
                (pos.mine, pos.theirs, pos.masks, pos.fools, pos.death, pos.left, result)
            )
    return samples


def suit_exposure(victim: Stack, stealer_top: int) -> int:
    """What a steal of this suit swings against `victim`: its top minus its next card, plus what
    the card adds to the stealer's top."""
    if not victim:
        return 0
    first, second = victim[0], victim[1] if len(victim) > 1 else 0
    return first - second + max(0, first - stealer_top)


def steal_exposure(victim: Stacks, stealer: Stacks) -> int:
    """The best steal against `victim`, over the suits."""
    return max(suit_exposure(victim[s], top(stealer[s])) for s in range(SUITS))


def margin_of(sample: Sample) -> float:
    mine, theirs, masks, _, _, left, _ = sample
    return sum(suit_outlook(top(mine[s]), top(theirs[s]), masks[s], left) for s in range(SUITS))


def features(sample: Sample) -> list[float]:
    """[z, fools * my exposure, fools * their exposure, death, 1], exposures over SPREAD."""
    mine, theirs, _, fools, death, left, _ = sample
    spread = SPREAD[left]
    return [
        margin_of(sample) / spread,
        fools * steal_exposure(mine, theirs) / spread,
        fools * steal_exposure(theirs, mine) / spread,
        float(death),
        1.0,
    ]


NAMES = ("z", "fools*exp_mine", "fools*exp_theirs", "death", "bias")


def sigmoid(x: float) -> float:
    if x < -40:
        return 0.0
    return 1.0 / (1.0 + math.exp(-x))


def solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """Gaussian elimination with partial pivoting."""
    n = len(vector)
    a = [[*row, vector[i]] for i, row in enumerate(matrix)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(a[r][col]))
        a[col], a[pivot] = a[pivot], a[col]
        for r in range(n):
            if r != col and a[col][col]:
                f = a[r][col] / a[col][col]
                for c in range(col, n + 1):
                    a[r][c] -= f * a[col][c]
    return [a[i][n] / a[i][i] for i in range(n)]


PROBIT = 1.702  # the logit scale of the model's own erf: Phi(x) ~ sigmoid(1.702 x)


def logistic(
    rows: list[tuple[list[float], float]], ridge: float = 1e-3, pinned: bool = False
) -> list[float]:
    """Weights maximising the likelihood of the results (fractional targets allowed). Pinned,
    z keeps the model's own scale (PROBIT) and only the other weights are fitted."""
    if pinned:
        fitted = logistic_offset([(x[1:], y, PROBIT * x[0]) for x, y in rows], ridge)
        return [PROBIT, *fitted]
    return logistic_offset([(x, y, 0.0) for x, y in rows], ridge, start=PROBIT)


def logistic_offset(
    rows: list[tuple[list[float], float, float]], ridge: float, start: float = 0.0
) -> list[float]:
    """Logistic regression with a fixed offset per row (Newton's method)."""
    k = len(rows[0][0])
    w = [0.0] * k
    w[0] = start
    for _ in range(12):
        grad = [-ridge * wi for wi in w]
        hess = [[ridge if i == j else 0.0 for j in range(k)] for i in range(k)]
        for x, y, offset in rows:
            p = sigmoid(offset + sum(wi * xi for wi, xi in zip(w, x, strict=True)))
            g = y - p
            h = p * (1 - p)
            for i in range(k):
                grad[i] += g * x[i]
                hi = h * x[i]
                row = hess[i]
                for j in range(i, k):
                    row[j] += hi * x[j]
        for i in range(k):
            for j in range(i):
                hess[i][j] = hess[j][i]
        step = solve(hess, grad)
        w = [wi + si for wi, si in zip(w, step, strict=True)]
        if max(abs(s) for s in step) < 1e-6:
            break
    return w


def loss(p: float, y: float) -> float:
    p = min(max(p, 1e-9), 1 - 1e-9)
    return -(y * math.log(p) + (1 - y) * math.log(1 - p))


def fit(
    samples: list[Sample], bands: list[tuple[int, int]], steals_only: bool = False
) -> list[tuple[int, list[float]]]:
    """Fit each band of cards left; print the log losses; return (band's highest left, weights)."""
    fitted_bands: list[tuple[int, list[float]]] = []
    print(f"{len(samples)} positions")
    print("band    n       model_ll  fit_ll  held_model held_fit  " + "  ".join(NAMES))
    for low, high in bands:
        chosen = [s for s in samples if low <= s[5] <= high]
        if len(chosen) < 100:
            continue
        rows = [(features(s), s[6]) for s in chosen]
        if steals_only:  # z at the model's own scale, and only the two steal exposures
            rows = [(x[:3], y) for x, y in rows]
        train = [r for i, r in enumerate(rows) if i % 5]
        held = [r for i, r in enumerate(rows) if not i % 5]
        held_samples = [s for i, s in enumerate(chosen) if not i % 5]
        train_samples = [s for i, s in enumerate(chosen) if i % 5]
        w = logistic(train, pinned=steals_only)
        if steals_only:
            w += [0.0, 0.0]
        fitted_bands.append((high, w))

        def fitted(x: list[float], w: list[float] = w) -> float:
            return sigmoid(sum(wi * xi for wi, xi in zip(w, x, strict=False)))

        def model_ll(part: list[Sample]) -> float:
            return sum(loss(win_chance(margin_of(s), s[5]), s[6]) for s in part) / len(part)

        fit_ll = sum(loss(fitted(x), y) for x, y in train) / len(train)
        held_ll = sum(loss(fitted(x), y) for x, y in held) / len(held)
        weights = "  ".join(f"{wi:+.3f}" for wi in w)
        print(
            f"{low:2d}-{high:2d}  {len(chosen):6d}  {model_ll(train_samples):.4f}    "
            f"{fit_ll:.4f}  {model_ll(held_samples):.4f}     {held_ll:.4f}    {weights}"
        )
    return fitted_bands


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    rec = sub.add_parser("record")
    rec.add_argument("--pair", default="expert:classic-8-50")
    rec.add_argument("--games", type=int, default=2000)
    rec.add_argument("--first-deal", type=int, default=FIRST_DEAL)
    rec.add_argument("--out", required=True)
    fitp = sub.add_parser("fit")
    fitp.add_argument("files", nargs="+")
    fitp.add_argument("--bands", default="1-4,5-8,9-12,13-16,17-22,23-30,31-54")
    fitp.add_argument("--out", help="write the bands' weights here as JSON")
    fitp.add_argument(
        "--steals-only",
        action="store_true",
        help="keep z at the model's own scale and fit only the steal exposures",
    )
    args = parser.parse_args(argv)
    if args.command == "record":
        a, b = args.pair.split(":", 1)
        samples = record((a, b), args.games, args.first_deal)
        with open(args.out, "wb") as out:
            pickle.dump(samples, out)
        print(f"{len(samples)} positions -> {args.out}")
    else:
        samples = []
        for name in args.files:
            with open(name, "rb") as f:
                samples.extend(pickle.load(f))
        bands = [tuple(int(x) for x in b.split("-")) for b in args.bands.split(",")]
        fitted = fit(samples, [(lo, hi) for lo, hi in bands], args.steals_only)
        if args.out:
            with open(args.out, "w") as out:
                json.dump(fitted, out)


if __name__ == "__main__":
    main()
