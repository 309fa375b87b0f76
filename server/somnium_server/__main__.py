"""Lets `python -m somnium_server` start the server."""

from somnium_server.cli import main

if __name__ == "__main__":
    main()
