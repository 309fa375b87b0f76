"""Glicko-2 ratings of players: one update per finished rated game (the `glicko2` library)."""

from __future__ import annotations

from dataclasses import dataclass

import glicko2

START_RATING = 1500.0
START_DEVIATION = 350.0
START_VOLATILITY = 0.06
# A deviation above this shows the rating as provisional ("1500?"): a new player's 350 needs
# a few games to come under it.
PROVISIONAL_DEVIATION = 110.0
# The leaderboard lists players with at least this many rated games.
LEADERBOARD_GAMES = 5


@dataclass(frozen=True, slots=True)
class Rating:
    """A player's Glicko-2 rating, deviation and volatility, and their rated record."""

    rating: float = START_RATING
    deviation: float = START_DEVIATION
    volatility: float = START_VOLATILITY
    games: int = 0
    won: int = 0
    lost: int = 0
    drawn: int = 0

    @property
    def provisional(self) -> bool:
        return self.deviation > PROVISIONAL_DEVIATION

    def public(self) -> dict[str, object]:
        """What the API shows of it: rounded figures and whether it is provisional."""
        return {"rating": round(self.rating), "deviation": round(self.deviation),
                "provisional": self.provisional}


@dataclass(frozen=True, slots=True)
class RatedGame:
    """A finished rated game to count: its two players (by seat) and seat 0's score
    (1 a win, 0.5 a draw, 0 a loss)."""

    game_id: str
    players: tuple[str, str]
    score: float


def updated(
    player: Rating, opponents: list[tuple[Rating, float]]
) -> Rating:
    """`player`'s rating after one rating period against `opponents` (rating, own score)."""
    glicko = glicko2.Player(player.rating, player.deviation, player.volatility)
    glicko.update_player(
        [o.rating for o, _ in opponents], [o.deviation for o, _ in opponents],
        [score for _, score in opponents],
    )
    won = sum(1 for _, score in opponents if score == 1)
    lost = sum(1 for _, score in opponents if score == 0)
    return Rating(
        rating=float(glicko.rating), deviation=float(glicko.rd),
        volatility=float(glicko.vol), games=player.games + len(opponents),
        won=player.won + won, lost=player.lost + lost,
        drawn=player.drawn + len(opponents) - won - lost,
    )


def after_game(first: Rating, second: Rating, score: float) -> tuple[Rating, Rating]:
    """Both players' ratings after one game between them (`score` is the first's); each
    is updated from the other's rating before the game."""
    return updated(first, [(second, score)]), updated(second, [(first, 1 - score)])


def score_of_first(winner: int | None) -> float:
    """Seat 0's score from the engine's winner (None: a draw)."""
    return 0.5 if winner is None else 1.0 if winner == 0 else 0.0
