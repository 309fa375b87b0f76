"""benchmarks/server_app.py: each way in (ASGI, the direct protocol, uvicorn's) plays its rounds."""

from __future__ import annotations

import asyncio

import pytest

from benchmarks import server_app


@pytest.mark.parametrize("through", ["app", "direct", "uvicorn"])
def test_each_way_in_plays_every_round(through: str) -> None:
    per_action = asyncio.run(server_app.run(3, 4, through))
    assert len(per_action) == 4 and all(cpu > 0 for cpu in per_action)
