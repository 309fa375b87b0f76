"""Somnium's lobby server: games, lobby, observers, live events, persistence, computer players."""

from somnium_desktop import __version__ as __version__  # one distribution, one version
