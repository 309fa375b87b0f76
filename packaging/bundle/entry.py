"""The bundle's entry point: PyInstaller freezes this script, which starts the desktop app.

A frozen app has no Python to run modules with, so `somnium -m MODULE ARGS...` runs one of the
lobby server's modules instead: wherever the app starts a server as `sys.executable -m
somnium_server...`, in the bundle that executable is this one; so are the server's worker
processes.
"""

import multiprocessing
import runpy
import sys


def main() -> None:
    # The server judges finished games in a worker process started with "spawn"
    # (somnium_server/play/analyses.py): in the bundle that worker is this executable, and this
    # call (patched by PyInstaller's multiprocessing hook) runs it and exits.
    multiprocessing.freeze_support()
    if len(sys.argv) > 2 and sys.argv[1] == "-m":
        module = sys.argv[2]
        if module != "somnium_server" and not module.startswith("somnium_server."):
            sys.exit(f"somnium: the bundle runs only somnium_server modules, not {module}")
        sys.argv = [sys.argv[0], *sys.argv[3:]]
        runpy.run_module(module, run_name="__main__", alter_sys=True)
        return
    from somnium_desktop.__main__ import main as app

    sys.exit(app())


main()
