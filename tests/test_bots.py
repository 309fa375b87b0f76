"""The computer players: legal, deterministic, the classic AI by docs/rules.md (15-18), strong."""

from __future__ import annotations

from dataclasses import replace

import pytest

from somnium_desktop.game import (
    DEATH,
    FOOL,
    Action,
    Card,
    Draw,
    EndTurn,
    GameState,
    Steal,
    View,
    apply,
    full_deck,
    legal_actions,
    new_game,
    view_of,
)
from somnium_desktop.game.bots import Bot, levels, make_bot
from somnium_desktop.game.bots.classic import ClassicBot
from somnium_desktop.game.bots.endgame import BANK, DRAW, Endgame
from somnium_desktop.game.bots.match import play
from somnium_desktop.game.bots.model import Position
from somnium_desktop.game.bots.strong import DEPTH, ENDGAME, TurnSearch, sure_win_banking

from .game_helpers import S, c, position

LEVEL_KEYS = ("easy", "normal", "hard", "expert")


def must_steal(state: GameState) -> GameState:
    """The same position, but the player to move has just drawn a Fool and must steal."""
    return replace(state, steal_pending=True)


# -- every level ------------------------------------------------------------------------------


def test_levels_are_the_fixed_keys_weakest_first() -> None:
    assert [level.key for level in levels()] == list(LEVEL_KEYS)
    assert [level.label for level in levels()] == ["Easy", "Normal", "Hard", "Expert"]


def test_an_unknown_level_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown computer level"):
        make_bot("grandmaster")


@pytest.mark.parametrize("key", LEVEL_KEYS)
def test_every_level_plays_only_legal_actions_to_the_end(key: str) -> None:
    for seed in range(12):
        bots = (make_bot(key, seed), make_bot("easy" if seed % 2 else key, seed + 1))
        state = new_game(seed)
        actions = 0
        while not state.over:
            seat = state.turn
            action = bots[seat].choose(view_of(state), seat)
            assert action in legal_actions(state, seat)
            state, _ = apply(state, seat, action)
            actions += 1
        assert actions >= 54  # every card was drawn or stolen


@pytest.mark.parametrize("key", LEVEL_KEYS)
def test_the_same_seed_makes_the_same_choices(key: str) -> None:
    def moves(seed: int) -> list[object]:
        bots: list[Bot] = [make_bot(key, seed), make_bot(key, seed)]
        chosen: list[object] = []

        def ask(bot: Bot, view: View, seat: int) -> Action:
            action = bot.choose(view, seat)
            chosen.append(action)
            return action

        play(new_game(seed + 100), bots, ask)
        return chosen

    for seed in range(3):
        assert moves(seed) == moves(seed)


# -- the classic AI, counted by hand from docs/rules.md, rules 15 to 18 -----------------------


# Rule 17.
def test_classic_banks_a_full_table() -> None:
    table = [c(suit, 3) for suit in S]
    state = position([c(S.ANGELS, 4), c(S.SUNS, 4)], table=table)
    for intelligence in (0, 8):
        assert ClassicBot(intelligence, 100).choose(view_of(state), 0) == EndTurn()


# Rules 3 and 17.
def test_classic_draws_on_an_empty_table() -> None:
    state = position([c(S.ANGELS, 4), DEATH])
    assert ClassicBot(8, 0).choose(view_of(state), 0) == Draw()


# Rule 15.
def test_classic_chance_counts_remembered_cards_by_suit_and_the_rest_by_table_size() -> None:
    # Table of 2. Fool: 10 good; Death: 10 bad; a card not remembered: 2 bad, 8 good.
    state = position(
        [FOOL, DEATH, c(S.WANDS, 3), c(S.CUPS, 7)], table=[c(S.ANGELS, 3), c(S.SUNS, 4)]
    )
    view = view_of(state)
    assert ClassicBot(0, 50).chance(view) == (10 + 8 + 8) * 100 // 40  # 65
    # At intelligence 3 the 7s are remembered: the Cups 7 is off the table, 10 good.
    assert ClassicBot(3, 50).chance(view) == (10 + 8 + 10) * 100 // 40  # 70
    # A remembered card of a suit on the table counts 10 bad.
    on_table = position([c(S.ANGELS, 7), c(S.WANDS, 7)], table=[c(S.ANGELS, 3)])
    assert ClassicBot(3, 50).chance(view_of(on_table)) == 50
    assert ClassicBot(2, 50).chance(view_of(on_table)) == 90  # 9 good, 1 bad each


# Rule 17.
def test_classic_banks_at_chance_15_or_less_even_for_nothing() -> None:
    deck = [
        c(S.ANGELS, 4),
        c(S.ANGELS, 5),
        c(S.ANGELS, 6),
        c(S.SUNS, 4),
        c(S.SUNS, 5),
        c(S.SUNS, 6),
        DEATH,
        c(S.WANDS, 3),
    ]
    state = position(
        deck, banks=([c(S.ANGELS, 7), c(S.SUNS, 7)], []), table=[c(S.ANGELS, 3), c(S.SUNS, 3)]
    )
    bot = ClassicBot(8, 100)
    view = view_of(state)
    assert bot.chance(view) == 10 * 100 // 80  # 12
    assert bot.extra(view, 0) == 0
    assert bot.choose(view, 0) == EndTurn()


# Rule 17.
def test_classic_draws_when_banking_gains_at_most_1() -> None:
    state = position(
        [c(S.ANGELS, 4), c(S.WANDS, 3)], banks=([c(S.ANGELS, 7)], []), table=[c(S.ANGELS, 3)]
    )
    bot = ClassicBot(8, 0)
    view = view_of(state)
    assert (bot.chance(view), bot.extra(view, 0)) == (50, 0)
    assert bot.choose(view, 0) == Draw()


# Rule 16.
def test_classic_extra_adds_steals_from_intelligence_3_and_lone_cards_below_aggression_50() -> None:
    # We hold Angels 5; the table has Angels 7 and the Suns 4 we stole (they keep a Suns 3).
    state = position(
        [FOOL, c(S.WANDS, 3)],
        banks=([c(S.ANGELS, 5)], [c(S.SUNS, 3)]),
        table=[c(S.ANGELS, 7), c(S.SUNS, 4)],
    )
    view = view_of(replace(state, stolen=(c(S.SUNS, 4),)))
    gain = (7 - 5) + 4
    assert ClassicBot(2, 50).extra(view, 0) == gain
    assert ClassicBot(3, 50).extra(view, 0) == gain + (4 - 3)
    # Below aggression 50 with Fools left: +1 for the Angels, held exactly once in the bank.
    assert ClassicBot(3, 40).extra(view, 0) == gain + 1 + 1
    assert ClassicBot(1, 40).extra(view, 0) == gain


# Rule 17.
@pytest.mark.parametrize(
    ("chance", "extra", "aggression", "banks"),
    [
        (15, 0, 100, True),  # too risky whatever the gain
        (94, 1, 0, False),  # nothing to lose
        (95, 30, 0, False),  # too safe to stop
        (94, 19, 100, True),
        (80, 13, 50, True),  # (180 - 50) * 2 // 3 = 86
        (87, 13, 50, False),
        (66, 7, 50, True),  # (150 - 50) * 2 // 3 = 66
        (67, 7, 50, False),
        (53, 3, 50, True),  # (130 - 50) * 2 // 3 = 53
        (54, 3, 50, False),
        (32, 2, 50, True),  # 83 - 50 = 33
        (33, 2, 50, False),
    ],
)
def test_classic_ladder(chance: int, extra: int, aggression: int, banks: bool) -> None:
    assert ClassicBot.ladder(chance, extra, aggression) is banks


# Rule 18.
def test_classic_steal_values_and_from_intelligence_4_a_bust_to_strip_a_high_card() -> None:
    # Angels are on our table: stealing them busts it, worth 0 at
    # intelligence 0-3. Suns: the table's gain 3, and the Suns 3 adds nothing to our Suns 7.
    # From intelligence 4, each suit also gets what the steal takes off the opponent's top:
    # the Angels 7 leaves them no Angels (7 - 0), the Suns 3 none either (3 - 0).
    state = must_steal(
        position(
            [c(S.WANDS, 3)],
            banks=([c(S.SUNS, 7)], [c(S.ANGELS, 7), c(S.SUNS, 3)]),
            table=[c(S.ANGELS, 3)],
        )
    )
    view = view_of(state)
    assert ClassicBot(8, 50).steal_values(view, 0) == {S.ANGELS: 0 + 7, S.SUNS: 3 + 0 + 3}
    assert ClassicBot(4, 50).steal_values(view, 0) == {S.ANGELS: 0 + 7, S.SUNS: 3 + 0 + 3}
    assert ClassicBot(3, 50).steal_values(view, 0) == {S.ANGELS: 0, S.SUNS: 3}
    for seed in range(20):
        # As the original: from intelligence 4 it busts its own table to strip the Angels 7.
        assert ClassicBot(4, 50, seed).choose(view, 0) == Steal(S.ANGELS)
        assert ClassicBot(8, 50, seed).choose(view, 0) == Steal(S.ANGELS)
        assert ClassicBot(3, 50, seed).choose(view, 0) == Steal(S.SUNS)
    after, _ = apply(state, 0, Steal(S.ANGELS))
    assert not after.table and c(S.ANGELS, 7) not in after.banks[1]  # the table went bust


# Rule 18.
def test_classic_prefers_a_steal_that_keeps_its_table_among_equals() -> None:
    # Nothing to gain for us anywhere. At intelligence 8 the Angels take 6 - 4 off the
    # opponent's top and the Suns 5 - 3: equal, and the Suns keep the table.
    state = must_steal(
        position(
            [c(S.WANDS, 3)],
            banks=(
                [c(S.ANGELS, 7), c(S.SUNS, 7)],
                [c(S.ANGELS, 6), c(S.ANGELS, 4), c(S.SUNS, 5), c(S.SUNS, 3)],
            ),
            table=[c(S.ANGELS, 3)],
        )
    )
    view = view_of(state)
    assert ClassicBot(8, 50).steal_values(view, 0) == {S.ANGELS: 2, S.SUNS: 2}
    assert ClassicBot(0, 50).steal_values(view, 0) == {S.ANGELS: 0, S.SUNS: 0}
    for seed in range(20):
        for intelligence in (0, 8):
            assert ClassicBot(intelligence, 50, seed).choose(view, 0) == Steal(S.SUNS)


# Rule 18.
def test_classic_steals_the_best_at_random_among_equals() -> None:
    state = must_steal(
        position([c(S.WANDS, 3)], banks=([], [c(S.ANGELS, 5), c(S.SUNS, 5), c(S.CUPS, 3)]))
    )
    picks = {ClassicBot(8, 50, seed).choose(view_of(state), 0) for seed in range(40)}
    assert picks == {Steal(S.ANGELS), Steal(S.SUNS)}


# Rule 17.
@pytest.mark.parametrize(
    ("chance", "extra", "lead", "left", "banks"),
    [
        (15, 0, 20, 3, True),  # the first rungs hold in the endgame too
        (94, 1, -20, 10, False),
        (95, 30, 0, 5, False),
        # Far ahead (a lead over 15): 7 points, or a risky draw.
        (90, 7, 16, 5, True),
        (31, 6, 16, 5, False),
        (30, 2, 16, 5, True),
        (31, 6, 15, 5, True),  # a lead of 15 is not far ahead: 31 - 5 <= (130 - 50) * 2 // 3
        # Far behind (a lead under -13): 10 points; 7 unless the draw is safe enough; or a
        # risky draw while more than 5 cards remain.
        (94, 10, -14, 3, True),
        (70, 7, -14, 4, True),  # 70 - 4 <= (150 - 50) * 2 // 3 = 66
        (71, 7, -14, 4, False),
        (35, 6, -14, 6, True),
        (35, 6, -14, 5, False),
        (36, 6, -14, 6, False),
        (35, 6, -13, 5, True),  # -13 is not far behind: 35 - 5 <= 53
        # In between: 10 points, else the usual rungs with the cards left added to the bar.
        (94, 10, 0, 3, True),
        (70, 7, 0, 4, True),
        (71, 7, 0, 4, False),
        (57, 3, 0, 4, True),  # 57 - 4 <= (130 - 50) * 2 // 3 = 53
        (58, 3, 0, 4, False),
        (40, 2, 0, 12, True),  # 40 < 79 + 12 - 50
        (41, 2, 0, 12, False),
    ],
)
def test_classic_endgame_ladder_is_the_originals(
    chance: int, extra: int, lead: int, left: int, banks: bool
) -> None:
    assert ClassicBot.endgame_ladder(chance, extra, 50, lead, left) is banks


# Rule 17.
@pytest.mark.parametrize(
    ("intelligence", "left", "banks"), [(4, 10, False), (5, 13, False), (5, 10, True)]
)
def test_classic_plays_the_endgame_variant_from_intelligence_5_with_under_13_cards_left(
    intelligence: int, left: int, banks: bool
) -> None:
    # Angels 7 and Suns 3 on the table (10 points), the scores level otherwise; every card left
    # is a 6 or a 7 (remembered from intelligence 4), one of them an Angels: chance 90 at 10
    # cards, 92 at 13. The plain ladder draws at 10 points with chance over 66; the endgame
    # variant banks 10 points in a close game.
    others = [c(suit, value) for suit in list(S)[2:] for value in (6, 7)]
    deck = [c(S.ANGELS, 6), *others[: left - 1]]
    state = position(deck, table=[c(S.ANGELS, 7), c(S.SUNS, 3)])
    expected = EndTurn() if banks else Draw()
    assert ClassicBot(intelligence, 50).choose(view_of(state), 0) == expected


# -- the strong bot -----------------------------------------------------------------------------


def strong_bot() -> Bot:
    return make_bot("expert", 0)


@pytest.mark.parametrize("left", [30, 6, 2])
def test_strong_draws_on_an_empty_table(left: int) -> None:
    deck = [card for card in sorted(set(full_deck()) - {FOOL, DEATH})][:left]
    state = position(deck, banks=([c(S.MOONS, 7)], [c(S.DEMONS, 6)]))
    assert strong_bot().choose(view_of(state), 0) == Draw()


@pytest.mark.parametrize("extra", [[DEATH, c(S.ANGELS, 7), c(S.SUNS, 7)], [c(S.SUNS, 4)]])
def test_strong_banks_when_the_next_draw_surely_busts_and_banking_is_worth_more(
    extra: list[Card],
) -> None:
    # Every card left is of a suit on the table (or Death): 9 cards (the search), or 3 (exact).
    # A sure bust is not always the worse choice (it burns a card), so the exact solver says
    # first that here banking is worth more.
    deck = [c(S.ANGELS, 4), c(S.SUNS, 5), *extra]
    if len(extra) == 3:
        deck += [c(S.ANGELS, 5), c(S.ANGELS, 6), c(S.SUNS, 4), c(S.SUNS, 6)]
    state = position(
        deck,
        banks=([c(S.MOONS, 7)], [c(S.DEMONS, 7)]),
        table=[c(S.ANGELS, 3), c(S.SUNS, 3)],
    )
    view = view_of(state)
    pos = Position.of(view, 0)
    table = dict(pos.table)
    suits = [(pos.mine[s], pos.theirs[s], pos.masks[s], table.get(s, 0)) for s in range(10)]
    exact = Endgame().options(suits, pos.fools, pos.death, pos.left, False, 10**7)
    assert exact[BANK] > exact[DRAW]
    assert strong_bot().choose(view, 0) == EndTurn()


def test_strong_steals_the_card_that_does_not_bust_its_table() -> None:
    # Their Angels 7 would bust our table (Angels 3); their Suns 3 is a poor prize but safe.
    deck = [c(S.WANDS, 3), c(S.WANDS, 4), c(S.CUPS, 5), c(S.CUPS, 6), c(S.TOWERS, 7)]
    deck += [card for card in full_deck() if card.suit in (S.SWORDS, S.DRAGONS, S.PENTACLES)]
    state = must_steal(
        position(deck, banks=([], [c(S.ANGELS, 7), c(S.SUNS, 3)]), table=[c(S.ANGELS, 3)])
    )
    assert strong_bot().choose(view_of(state), 0) == Steal(S.SUNS)


def test_strong_never_steals_a_suit_on_its_table_when_another_is_open() -> None:
    steals = 0
    for seed in range(30):
        bots: list[Bot] = [strong_bot(), ClassicBot(8, 50, seed)]

        def ask(bot: Bot, view: View, seat: int) -> Action:
            nonlocal steals
            action = bot.choose(view, seat)
            if seat == 0 and isinstance(action, Steal):
                steals += 1
                others = set(view.stealable) - view.table_suits
                assert not others or action.suit in others
            return action

        play(new_game(seed), bots, ask)
    assert steals >= 20  # the games did test it


def test_strong_beats_classic_hard_more_often_than_not() -> None:
    wins = losses = 0
    for game in range(200):
        first = game % 2
        state = replace(new_game(5000 + game), turn=first, first=first)
        end = play(state, [strong_bot(), make_bot("hard", game)])
        wins += end.winner == 0
        losses += end.winner == 1
    assert wins > losses


def test_strong_banks_a_sure_win_even_where_its_search_would_draw_on() -> None:
    """Where banking is judged a sure win but the model alone would gamble on, the expert banks,
    and every such game ends in its win (the judgement holds whatever came after)."""
    locked = []
    for seed in range(120):  # the spread model itself rarely gambles on a sure win
        state = replace(new_game(seed), turn=seed % 2, first=seed % 2)
        bots = (strong_bot(), ClassicBot(8, 50, seed))
        sure = False
        while not state.over:
            view, seat = view_of(state), state.turn
            action = bots[seat].choose(view, seat)
            if seat == 0 and view.table and not view.steal_pending and view.deck_count > ENDGAME:
                pos = Position.of(view, 0)
                if sure_win_banking(pos) and not sure:
                    stay, go = TurnSearch(pos, DEPTH).bank_or_draw()
                    sure = go > stay
                    assert action == EndTurn()
            state, _ = apply(state, seat, action)
        if sure:
            locked.append(state.winner)
    assert len(locked) >= 5, locked
    assert locked == [0] * len(locked)


def test_a_win_is_sure_only_out_of_the_opponents_reach() -> None:
    # I lead 25-3 once my Suns 6 is banked; the 4 cards left (every other card is discarded)
    # could add at most 4 + 3 + 4 + 5 = 16 to their 3.
    deck = [c(S.CUPS, 7), c(S.ANGELS, 3), c(S.WANDS, 4), c(S.TOWERS, 5)]
    banks = ([c(S.MOONS, 7), c(S.DEMONS, 7), c(S.SWORDS, 5)], [c(S.CUPS, 3)])
    sure = position(deck, banks=banks, table=[c(S.SUNS, 6)])
    assert sure_win_banking(Position.of(view_of(sure), 0))
    # With a Fool left too, one steal could take a 7 of mine and add it to theirs.
    risky = position([*deck, FOOL], banks=banks, table=[c(S.SUNS, 6)])
    assert not sure_win_banking(Position.of(view_of(risky), 0))
    # Without the table banked the lead is 19-3: those 16 points could still tie it.
    assert not sure_win_banking(Position.of(view_of(position(deck, banks=banks)), 0))
