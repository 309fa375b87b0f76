"""The benchmarks' percentiles: one nearest-rank definition, which every script imports."""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable
from pathlib import Path

import pytest

from benchmarks import ranks
from benchmarks.loadgen.figures import spread

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"

Percentile = Callable[[list[float], float], float]


def load_table(samples: list[float], q: float) -> float:
    """benchmarks/server_load.py's table cell for one quantile, back in seconds."""
    return float(spread(samples, (q,))) / 1000


HELPERS: dict[str, Percentile] = {"ranks": ranks.percentile, "server_load": load_table}


def by_definition(samples: list[float], q: float) -> float:
    """The least sample with at least a share q of the samples at or below it."""
    ordered = sorted(samples)
    return next(x for x in ordered if sum(y <= x for y in ordered) >= q * len(ordered) - 1e-9)


@pytest.mark.parametrize("name", HELPERS)
def test_a_p99_of_a_hundred_samples_is_the_99th_not_the_greatest(name: str) -> None:
    percentile = HELPERS[name]
    hundred = [n / 1000 for n in range(100, 0, -1)]  # 0.001 .. 0.1 s, unsorted
    assert percentile(hundred, 0.99) == pytest.approx(0.099)
    assert percentile(hundred, 0.5) == pytest.approx(0.050)
    assert percentile(hundred, 1.0) == pytest.approx(0.100)
    assert percentile([n / 1000 for n in range(1, 201)], 0.95) == pytest.approx(0.190)
    assert percentile([0.004, 0.001], 0.5) == pytest.approx(0.001)  # the lower of two
    assert percentile([0.003], 0.99) == pytest.approx(0.003)


@pytest.mark.parametrize("name", HELPERS)
def test_every_quantile_of_small_samples_follows_the_definition(name: str) -> None:
    percentile = HELPERS[name]
    for count in range(1, 41):
        samples = [((n * 37) % 101) / 1000 for n in range(count)]
        for q in (0.0, 0.07, 0.1, 0.25, 0.5, 0.9, 0.95, 0.99, 1.0):
            want = by_definition(samples, q)
            assert math.isclose(percentile(samples, q), want, abs_tol=1e-6), (count, q)


def test_no_samples_give_nothing_rather_than_an_error() -> None:
    assert ranks.percentile([], 0.99) == 0.0
    assert spread([], (0.5, 0.99)) == "-"


@pytest.mark.parametrize("path", sorted(BENCHMARKS.glob("*.py")), ids=lambda path: path.stem)
def test_a_script_with_percentiles_takes_the_one_definition(path: Path) -> None:
    module = importlib.import_module(f"benchmarks.{path.stem}")
    found = getattr(module, "percentile", ranks.percentile)
    assert found is ranks.percentile, f"{path.name} keeps a percentile of its own"
