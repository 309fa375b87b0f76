"""Somnium Desktop: the Somnium card game as a desktop app, with its pure rules core in `game`."""

__version__ = "0.1.0"
