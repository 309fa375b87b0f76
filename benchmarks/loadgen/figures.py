"""The benchmark's figures: percentiles of what a phase measured, printed as one table."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ..ranks import percentile
from .players import Phase, Run

COLUMNS = ("scenario", "actions/s", "round trip ms p50 / p95 / p99 / max",
           "own stream ms p50 / p99", "move -> other streams ms p50 / p99 / max", "lost",
           "ended / rematches", "errors", "generator late ms p99",
           "CPU us per action: server / database = both",
           "CPU % of a core: server / load generator")  # players + observers


def spread(samples: Iterable[float], quantiles: tuple[float, ...]) -> str:
    """Quantiles (nearest rank; 1.0 is the maximum) in ms, joined with ' / '; '-' without
    samples."""
    ordered = sorted(samples)
    if not ordered:
        return "-"
    return " / ".join(f"{percentile(ordered, q) * 1000:.1f}" for q in quantiles)


@dataclass
class Row:
    """One scenario's line of the table."""

    scenario: str
    phase: Phase
    own: list[float]  # move -> the mover's own stream, seconds
    other: list[float]  # move -> the opponent's or the observers' streams, seconds
    lost: int

    def cells(self) -> list[str]:
        phase = self.phase
        actions = len(phase.round_trips)
        wall = phase.end - phase.start
        cpu = phase.cpu
        per_action = "-"
        if actions and "server" in cpu:
            server = 1e6 * cpu["server"] / actions
            per_action = f"{server:.0f} / -"
            if "database" in cpu:
                database = 1e6 * cpu["database"] / actions
                per_action = f"{server:.0f} / {database:.0f} = {server + database:.0f}"
        return [
            self.scenario, f"{actions / wall:.0f}" if wall > 0 else "-",
            spread(phase.round_trips, (0.5, 0.95, 0.99, 1.0)), spread(self.own, (0.5, 0.99)),
            spread(self.other, (0.5, 0.99, 1.0)), str(self.lost),
            f"{phase.games_ended} / {phase.rematches}", str(phase.errors),
            spread(phase.lags, (0.99,)), per_action,
            " / ".join(f"{100 * used / wall:.0f}" if used is not None and wall > 0 else "-"
                       for used in (cpu.get("server"),
                                    cpu.get("generator", 0) + cpu.get("observers", 0))),
        ]


def own_and_other(phase: Phase, run: Run) -> tuple[list[float], list[float], int]:
    """Delays from each send to the mover's stream and to the opponent's; events not seen.

    An action made before the opponent's stream of a new game was open (the first move
    after a rematch) reaches it in the snapshot: neither a delay nor lost.
    """
    own: list[float] = []
    other: list[float] = []
    lost = 0
    for game_id, seq, seat, sent in phase.sends:
        seen = run.board.get((game_id, seq), [0.0, 0.0])
        for who, delays in ((seat, own), (1 - seat, other)):
            if seen[who]:
                delays.append(seen[who] - sent)
            elif seq > run.opened.get((game_id, who), seq):
                lost += 1
    return own, other, lost


def table(rows: list[Row]) -> str:
    """The rows as a Markdown table, columns padded."""
    lines = [list(COLUMNS), *(row.cells() for row in rows)]
    widths = [max(len(line[n]) for line in lines) for n in range(len(COLUMNS))]

    def show(cells: list[str]) -> str:
        return "| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)) + " |"

    rule = "| " + " | ".join("-" * w for w in widths) + " |"
    return "\n".join([show(lines[0]), rule, *(show(line) for line in lines[1:])])
