"""Lets `python -m somnium_server` start the server."""

from .cli import main

if __name__ == "__main__":
    main()
