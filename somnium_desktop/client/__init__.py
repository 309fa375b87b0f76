"""The app's network side: the lobby server's HTTP API, sign-in and credentials (no Qt here)."""
