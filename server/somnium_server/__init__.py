"""The Somnium lobby server: games, lobby, observers, live events, persistence, computer players."""
