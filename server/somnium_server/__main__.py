"""Starts the server: `python -m somnium_server` and the `somnium-server` command.

The analyses' worker processes are started with "spawn", which imports the main module again
in each: so this module imports the server (uvicorn, FastAPI, the storage) only when it runs
it, and a worker loads no more than the judging needs.
"""

from __future__ import annotations


def main() -> None:
    from somnium_server.cli import main as serve

    serve()


if __name__ == "__main__":
    main()
