"""The games served: rooms and seats, computer players, the lobby, chat and ratings."""
