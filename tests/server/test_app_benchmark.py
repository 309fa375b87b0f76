"""benchmarks/server_app.py: actions posted through the app's ASGI entry play every round."""

from __future__ import annotations

import asyncio

from benchmarks import server_app


def test_every_round_is_played() -> None:
    per_action = asyncio.run(server_app.run(3, 4))
    assert len(per_action) == 4 and all(cpu > 0 for cpu in per_action)
