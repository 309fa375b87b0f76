"""Analyses asked for beside the load: finished games' GET /games/{id}/analysis at a steady
rate, each a game not analysed before (a stored one costs the server nothing)."""

from __future__ import annotations

import asyncio
import contextlib
import time
from dataclasses import dataclass, field

from .client import session
from .figures import spread
from .players import Run


@dataclass
class Asked:
    """What the analyses asked for in a phase came to."""

    sent: int = 0
    answered: dict[int, int] = field(default_factory=dict)  # status -> count
    seconds: list[float] = field(default_factory=list)  # request to answer, 200s
    decisions: int = 0

    def line(self, per_second: float) -> str:
        statuses = ", ".join(f"{n} x {status}" for status, n in sorted(self.answered.items()))
        return (f"analyses beside the paced load: {self.sent} asked for ({per_second:g}/s), "
                f"answered {statuses or 'none'}; request to answer ms p50 / p95 / max "
                f"{spread(self.seconds, (0.5, 0.95, 1.0))}; "
                f"{self.decisions / max(1, len(self.seconds)):.0f} decisions a game")


async def ask_analyses(bases: list[str], run: Run, per_second: float,
                       stop: asyncio.Event) -> Asked:
    """Ask for the analysis of a game ended in the run, `per_second`, until `stop`."""
    asked = Asked()
    done: set[str] = set()
    pending: list[asyncio.Task[None]] = []
    async with session() as http:

        async def one(base: str, game_id: str) -> None:
            began = time.perf_counter()
            async with http.get(f"{base}/games/{game_id}/analysis") as answer:
                body = await answer.json() if answer.status == 200 else None
            asked.answered[answer.status] = asked.answered.get(answer.status, 0) + 1
            if body is not None:
                asked.seconds.append(time.perf_counter() - began)
                asked.decisions += len(body["decisions"])

        next_at = time.perf_counter()
        while not stop.is_set():
            fresh = [g for g in run.ended_games if g not in done]
            if fresh:
                done.add(fresh[0])
                base = bases[asked.sent % len(bases)]
                pending.append(asyncio.create_task(one(base, fresh[0])))
                asked.sent += 1
            next_at += 1 / per_second
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), max(0.0, next_at - time.perf_counter()))
        await asyncio.wait_for(asyncio.gather(*pending, return_exceptions=True), 120)
    return asked
