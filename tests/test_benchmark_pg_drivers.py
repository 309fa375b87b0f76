"""benchmarks/pg_drivers.py, tiny, on a throw-away cluster: commits a second count commits only."""

from __future__ import annotations

import re

import pytest

from benchmarks import pg_drivers

from .postgres import Cluster

LINE = re.compile(r"^(\w+) +one statement games= *64  p50 +[\d.]+ ms  p99 +([\d.]+) ms +(\d+) "
                  r"commits/s", re.MULTILINE)


def test_the_rate_leaves_out_opening_the_pools_connections(
    pg_cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    """64 games commit once each, all at once: they are done as soon as the slowest is, so the
    rate is 64 over about the slowest commit (the p99 of 64 is the greatest). Counting the
    opening of the pool's 64 connections too made it several times lower."""
    pg_drivers.main(["--database-url", pg_cluster.new_database(), "--games", "64",
                     "--commits", "64", "--rounds", "1", "--shapes", "one statement"])
    found = LINE.findall(capsys.readouterr().out)
    assert sorted(name for name, _, _ in found) == ["asyncpg", "psycopg"]
    for name, slowest_ms, rate in found:
        all_done = 64 / int(rate)
        assert float(slowest_ms) / 1000 <= all_done * 1.05, name  # never faster than the commits
        assert all_done <= float(slowest_ms) / 1000 * 1.5 + 0.005, name
