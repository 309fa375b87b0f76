"""Live events: the event streams, what instances tell each other, and presence."""
