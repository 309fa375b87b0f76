"""benchmarks/bots.py: the sweep plays every grid setting and reports each one's tally."""

from __future__ import annotations

import pytest

from benchmarks import bots


def test_the_sweep_reports_every_setting_with_all_its_games(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(bots, "SWEEP_INTELLIGENCE", (0, 8))
    monkeypatch.setattr(bots, "SWEEP_AGGRESSION", (0, 100))
    weakest = bots.sweep("expert", 4, 0, 1)
    rows = [line.split() for line in capsys.readouterr().out.splitlines()[2:]]
    assert [(int(r[0]), int(r[1])) for r in rows] == [(0, 0), (0, 100), (8, 0), (8, 100)]
    for row in rows:
        assert sum(int(n) for n in row[-3:]) == 4  # won + lost + drawn
    shares = [float(r[2].rstrip("%")) / 100 for r in rows if int(r[-3]) + int(r[-2])]
    assert weakest == pytest.approx(min(shares), abs=0.001)


def test_wilson_interval_holds_the_share_and_narrows_with_more_games() -> None:
    low, high = bots.wilson(60, 100)
    assert low < 0.6 < high
    wide, narrow = high - low, bots.wilson(600, 1000)[1] - bots.wilson(600, 1000)[0]
    assert narrow < wide
