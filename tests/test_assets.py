"""The app finds its card art in a checkout (tests/packaging/test_wheel.py: in a wheel)."""

from __future__ import annotations

from pathlib import Path

from somnium_desktop.assets import deck_svg, resource_path

ROOT = Path(__file__).resolve().parent.parent


def test_the_checkout_finds_the_deck() -> None:
    assert deck_svg() == ROOT / "resources" / "cards" / "deck.svg"
    assert deck_svg().is_file()
    assert resource_path("icons", "somnium.svg").is_file()
