"""benchmarks/bots.py: the sweep plays every grid setting and reports each one's tally."""

from __future__ import annotations

import pytest

from benchmarks import bots, regret
from somnium_desktop.game.bots.strong import ENDGAME, StrongBot
from somnium_desktop.game.state import apply, new_game
from somnium_desktop.game.view import view_of


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


def test_a_split_bot_plays_each_part_where_it_says() -> None:
    """expert/classic-8-50@20 answers as the expert above 20 cards left, as classic from 20 on;
    expert/classic-8-50@steals answers as classic only when a steal is pending. (The expert's
    endgame solver remembers positions between calls, so its copies are compared only above
    the cards where it solves: there they keep nothing from one decision to the next.)"""
    by_cards = bots.bot_named("expert/classic-8-50@20", 3)
    by_steals = bots.bot_named("expert/classic-8-50@steals", 3)
    expert, classic = bots.bot_named("expert", 3), bots.bot_named("classic-8-50", 3)
    state = new_game(11)
    seen = {"expert": 0, "classic": 0, "steal": 0}
    while not state.over:
        view, seat = view_of(state), state.turn
        mine, theirs = expert.choose(view, seat), classic.choose(view, seat)
        want = mine if view.deck_count > 20 else theirs
        assert by_cards.choose(view, seat) == want
        if view.deck_count > ENDGAME:
            assert by_steals.choose(view, seat) == (theirs if view.steal_pending else mine)
        if mine != theirs:
            seen["expert" if view.deck_count > 20 else "classic"] += 1
        seen["steal"] += view.steal_pending
        state, _ = apply(state, seat, mine)
    assert seen["expert"] and seen["classic"]  # the two really differ on both sides of the cut
    assert seen["steal"]  # and a steal came up


def test_a_split_bot_name_must_say_where_it_splits() -> None:
    with pytest.raises(ValueError, match="A/B@N"):
        bots.bot_named("expert/hard@soon", 0)


def test_regret_is_nil_where_the_expert_solves_and_shows_where_classic_errs() -> None:
    """At 3-5 cards left the expert solves the game exactly, so it gives nothing away; the
    original AI at its weakest does, on the same deals."""
    lefts = frozenset({3, 4, 5})
    expert = regret.measure(("expert", "classic-8-50"), range(20), 0, lefts, 300_000)
    weakest = regret.measure(("classic-0-0", "classic-8-50"), range(20), 0, lefts, 300_000)
    judged = sum(line.decisions for line in expert.lines.values())
    assert expert.games == weakest.games == 20 and judged >= 10
    assert all(line.unsolved == 0 for line in expert.lines.values())
    assert sum(line.regret for line in expert.lines.values()) == pytest.approx(0.0, abs=1e-9)
    assert sum(line.wrong for line in weakest.lines.values()) > 0
    assert sum(line.regret for line in weakest.lines.values()) > 0.01
    assert "bank-or-draw" in regret.report(("classic-0-0", "classic-8-50"), weakest, 1.0)


def test_judged_against_classics_rules_the_expert_gives_nothing_away_where_it_solves() -> None:
    """The expert solves the last cards against classic-8-50's own rules, so judged by that
    solve it loses nothing there; classic at its weakest still does."""
    lefts = frozenset({3, 4, 5})
    expert = regret.measure(("expert", "classic-8-50"), range(20), 0, lefts, 300_000, "classic")
    weakest = regret.measure(
        ("classic-0-0", "classic-8-50"), range(20), 0, lefts, 300_000, "classic"
    )
    assert sum(line.decisions for line in expert.lines.values()) >= 10
    assert all(line.unsolved == 0 for line in expert.lines.values())
    assert sum(line.regret for line in expert.lines.values()) == pytest.approx(0.0, abs=1e-9)
    assert sum(line.regret for line in weakest.lines.values()) > 0.01
    assert "classic-8-50's rules" in regret.report(("expert", "hard"), expert, 1.0, "classic")


def test_judging_against_classic_needs_classic_as_the_opponent(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as stopped:
        regret.main(["--against", "classic", "--opponent", "easy", "--games", "1"])
    assert stopped.value.code == 2
    assert "--opponent is easy" in capsys.readouterr().err


def test_an_expert_variant_takes_the_settings_it_names() -> None:
    bot = bots.bot_named("expert(depth=1, budget=7, best_play=true)", 3)
    assert isinstance(bot, StrongBot)
    assert (bot.depth, bot.endgame, bot.budget, bot.best_play) == (1, ENDGAME, 7, True)
    for wrong in ("expert(budget=x)", "expert(speed=2)", "expert(best_play=yes)"):
        with pytest.raises(ValueError, match="an expert variant sets"):
            bots.bot_named(wrong, 3)


def test_a_paired_variant_counts_the_games_whose_result_changed() -> None:
    base = bots.run_pair(("expert", "classic-8-50"), 6, 0, 1)
    same = bots.run_pair(("expert(budget=3000)", "classic-8-50"), 6, 0, 1)  # the default
    weak = bots.run_pair(("classic-0-0", "classic-8-50"), 6, 0, 1)
    assert bots.compared("expert", "expert(budget=3000)", base, same).startswith(
        "  expert(budget=3000) in expert's seat, same deals: 0 games changed"
    )
    better = sum(weak.results[n] > base.results[n] for n in range(6))
    worse = sum(weak.results[n] < base.results[n] for n in range(6))
    assert better != worse  # so a count of one taken for the other would show
    line = bots.compared("expert", "classic-0-0", base, weak)
    assert f"{better + worse} games changed, {better} better, {worse} worse" in line
