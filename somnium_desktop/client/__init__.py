"""What a card table plays: game sources (offline now, online later) and words for events."""
