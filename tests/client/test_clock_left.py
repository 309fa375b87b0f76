"""The seconds a clock shows, from the server's deadline and time."""

from __future__ import annotations

from somnium_desktop.client.lobby_records import clock_left


def test_the_seconds_left_are_the_servers_deadline_less_its_time() -> None:
    assert clock_left({"deadline": 1000.5, "now": 990.0, "move_seconds": 30}) == 10.5
    assert clock_left({"deadline": 1000.0, "now": 1003.0, "move_seconds": 30}) == 0.0
    assert clock_left({"deadline": None, "now": 1003.0}) is None


def test_never_more_than_the_time_control() -> None:
    """`now` comes rounded to the millisecond: a clock just set could show a second more."""
    assert clock_left({"deadline": 1008.0004, "now": 1000.0, "move_seconds": 8}) == 8.0
    assert clock_left({"deadline": 1008.5, "now": 1000.0}) == 8.5  # (no time control known)
