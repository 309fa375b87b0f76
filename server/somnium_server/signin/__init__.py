"""Sign-in: the server as OpenID relying party toward providers and OAuth server to the app."""
