"""Sign-in tests: the desktop flow, the credentials store, the lobby server as OIDC broker."""
