"""A finished game's analysis as plain JSON data: what the server sends and the app shows."""

from __future__ import annotations

from typing import Any

from .actions import action_to_dict
from .analysis import BLUNDER, INACCURACY, MISTAKE, Analysis, PublicGame, analyse
from .coach import label

THRESHOLDS = {"inaccuracy": INACCURACY, "mistake": MISTAKE, "blunder": BLUNDER}


def analysis_to_dict(game: PublicGame, analysis: Analysis) -> dict[str, Any]:
    """The analysis of `game` as JSON data.

    Decision i is the game's action i (a concession or a time-out, which is never judged, can
    only be the last action), so its `step` (actions applied before it; 0 is the deal) is i.
    `curve` holds seat 0's chance before each decision, then the result at `end_step`.
    """
    decisions = [
        {
            "step": step,
            "seat": judged.seat,
            "action": action_to_dict(judged.action),
            "action_label": label(judged.action),
            "best": action_to_dict(judged.best),
            "best_label": label(judged.best),
            "before": judged.before,
            "after": judged.after,
            "lost": judged.lost,
            "mark": judged.mark,
            "forced": judged.forced,
            "exact": judged.advice.exact,
        }
        for step, judged in enumerate(analysis.decisions)
    ]
    # a concession or a time-out is the game's last action, never judged
    ended_by_one = game.end.conceded_by is not None or game.end.timed_out is not None
    return {
        "decisions": decisions,
        "curve": list(analysis.curve),
        "end_step": len(decisions) + (1 if ended_by_one else 0),
        "accuracy": list(analysis.accuracy),
        "winner": game.end.winner,
        "thresholds": THRESHOLDS,
    }


def analysed(game: PublicGame) -> dict[str, Any]:
    """Analyse `game` and return the JSON data (one call: what a worker process runs)."""
    return analysis_to_dict(game, analyse(game))
