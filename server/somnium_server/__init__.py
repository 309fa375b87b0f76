"""Somnium's lobby server: games, lobby, observers, live events, persistence, computer players."""

__version__ = "0.1.0"
