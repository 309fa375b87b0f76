"""Finds the app's resources (card art) in a source checkout or in an installed wheel."""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent
# An installed wheel carries the checkout's top-level resources/ as somnium_desktop/resources/
# (setup.py copies it at build time); a checkout or an editable install reads it in place.
_CANDIDATES = (_PACKAGE / "resources", _PACKAGE.parent / "resources")


def resources_dir() -> Path:
    """The folder holding the resources; the checkout's path if none exists yet."""
    for candidate in _CANDIDATES:
        if candidate.is_dir():
            return candidate
    return _CANDIDATES[-1]


def resource_path(*parts: str) -> Path:
    """The path of a resource, e.g. resource_path("cards", "deck.svg"); it may not exist."""
    for candidate in _CANDIDATES:
        path = candidate.joinpath(*parts)
        if path.exists():
            return path
    return resources_dir().joinpath(*parts)


def deck_svg() -> Path:
    """The card deck art."""
    return resource_path("cards", "deck.svg")
