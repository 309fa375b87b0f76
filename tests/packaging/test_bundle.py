"""The one-folder bundle: packaging/build_bundle.py builds it, and it runs on its own, offscreen."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
import requests

from somnium_desktop import __version__
from somnium_desktop.assets import APP_ID, shipped_files
from tests.server.helpers import analyse_a_game, free_port, parent_of

from .scripts import packaging_module
from .test_smoke import isolated_env
from .validators import validate_desktop_entry

ROOT = Path(__file__).resolve().parents[2]
LIBRARIES = packaging_module("bundle/libraries.py")
needed = LIBRARIES.needed


def _elf_files(bundle: Path) -> list[Path]:
    return [bundle / "somnium", *LIBRARIES.shared_objects(bundle / "_internal")]


def libraries_from_outside(bundle: Path) -> set[str]:
    """Sonames a file of the bundle asks for that the bundle does not hold."""
    inside = {path.name for path in (bundle / "_internal").rglob("*.so*")}
    return {soname for path in _elf_files(bundle) for soname in needed(path)} - inside


def _processes_of(executable: Path) -> list[int]:
    """The ids of the running processes whose program is `executable`."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isascii() and entry.name.isdigit():
            try:
                if Path(os.readlink(entry / "exe")) == executable:
                    found.append(int(entry.name))
            except OSError:  # gone meanwhile, or not ours to see
                continue
    return found


def _serve_from(executable: Path, tmp_path: Path, env: dict[str, str]) -> None:
    """The bundled server answers /health (uvicorn, uvloop and FastAPI work frozen) and
    judges a finished game in its analysis worker (a second run of the executable)."""
    port = free_port()
    database = tmp_path / "bundle.sqlite3"
    server = subprocess.Popen(
        [str(executable), "-m", "somnium_server", "--port", str(port),
         "--database", str(database), "--access-log", "false",
         "--rate-act", "1000/1"],  # (the game below is played as fast as it answers)
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            assert server.poll() is None, server.stderr.read() if server.stderr else ""
            try:
                health = requests.get(f"http://127.0.0.1:{port}/health", timeout=5)
                break
            except requests.ConnectionError:
                assert time.monotonic() < deadline, "the bundled server did not start"
                time.sleep(0.1)
        assert health.json() == {"status": "ok", "version": __version__}
        analyse_a_game(f"http://127.0.0.1:{port}", database)
        # judged in the worker: a process of the same executable that multiprocessing's
        # spawn started as the server's child (beside its resource tracker)
        children = {pid: Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
                    for pid in _processes_of(executable.resolve()) if pid != server.pid}
        forked = [pid for pid, args in children.items() if b"--multiprocessing-fork" in args]
        assert len(forked) == 1 and parent_of(forked[0]) == server.pid
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            _, errors = server.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.communicate(timeout=10)
            raise
    # A clean shutdown (uvicorn then dies of the signal it caught, as systemd expects).
    assert "Finished server process" in errors, errors[-2000:]


@pytest.mark.slow
def test_the_bundle_starts_offscreen_and_carries_its_art(bundle: Path, tmp_path: Path) -> None:
    executable = bundle / "somnium"
    package = bundle / "_internal" / "somnium_desktop"
    for source, shipped in shipped_files(ROOT):
        assert package.joinpath(*shipped.parts).read_bytes() == source.read_bytes()
    assert (bundle / "LICENSE").read_bytes() == (ROOT / "LICENSE").read_bytes()

    env = isolated_env(tmp_path)
    elsewhere = tmp_path / "elsewhere"  # not the checkout
    elsewhere.mkdir()

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(executable), *args], capture_output=True, text=True,
                              timeout=120, env=env, cwd=elsewhere)

    version = run("--version")
    assert version.stdout.strip() == f"somnium {__version__}", version.stderr
    smoke = run("--smoke-test", "--no-log-file")
    assert smoke.returncode == 0, smoke.stdout + smoke.stderr
    assert f"card art {package / 'resources' / 'cards' / 'deck.svg'}" in smoke.stdout

    # The app can run the lobby server as a child: `sys.executable -m somnium_server...`.
    assert run("-m", "somnium_server", "--version").stdout.strip() == (
        f"somnium-server {__version__}"
    )
    refused = run("-m", "os")
    assert refused.returncode != 0 and "only somnium_server modules" in refused.stderr
    _serve_from(executable, tmp_path, env)

    installed = run("--install-desktop")
    assert installed.returncode == 0, installed.stderr
    entry = Path(env["XDG_DATA_HOME"]) / "applications" / f"{APP_ID}.desktop"
    validate_desktop_entry(entry)
    assert f"\nExec={executable}\n" in entry.read_text(encoding="utf-8")


@pytest.mark.slow
def test_the_bundle_holds_what_it_declares(bundle: Path) -> None:
    # Whatever the build machine has installed: no library the system is declared to provide
    # (GTK, pango, cairo...) is inside, and every other one a file of the bundle asks for is.
    system = LIBRARIES.system_libraries()
    inside = {path.name for path in (bundle / "_internal").rglob("*.so*")}
    assert not inside & system.keys(), sorted(inside & system.keys())
    for left_out in ("libgtk-3.so.0", "libpango-1.0.so.0", "libcairo.so.2", "libpixman-1.so.0"):
        assert left_out not in inside
    for path in LIBRARIES.shared_objects(bundle / "_internal"):  # tidied, as Debian wants
        assert not path.stat().st_mode & 0o111, path
        search = subprocess.run(["patchelf", "--print-rpath", str(path)], capture_output=True,
                                text=True, check=True, timeout=60).stdout.strip()
        assert all(part.startswith("$ORIGIN") for part in search.split(":") if part), path
    undocumented = libraries_from_outside(bundle) - system.keys()
    assert not undocumented, (
        f"the bundle asks the system for {sorted(undocumented)}: name their Debian packages "
        f"in {LIBRARIES.SYSTEM_LIBRARIES.relative_to(ROOT)} and README.md"
    )


@pytest.mark.slow
def test_a_signal_to_the_bundle_ends_the_app_and_its_server(bundle: Path, tmp_path: Path) -> None:
    # One process tree, the app at its top: its built-in server is its child (a second run of
    # the same executable), and a signal to the app leaves no process of the bundle behind.
    executable = bundle / "somnium"
    app = subprocess.Popen([str(executable), "--no-log-file"], env=isolated_env(tmp_path),
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while len(running := _processes_of(executable)) < 2:
            assert app.poll() is None, f"the app ended by itself ({app.returncode})"
            assert time.monotonic() < deadline, "the built-in server did not start"
            time.sleep(0.1)
        assert app.pid in running
        children = [pid for pid in running if pid != app.pid]
        for pid in children:
            assert parent_of(pid) == app.pid, "a process of the bundle is not the app's child"
            # The app's own children keep the bundle's libraries first (only programs outside
            # the bundle, such as the browser, get the player's environment back).
            environ = dict(entry.split(b"=", 1) for entry in
                           Path(f"/proc/{pid}/environ").read_bytes().split(b"\0") if entry)
            assert environ[b"LD_LIBRARY_PATH"].startswith(bytes(bundle / "_internal"))
        app.send_signal(signal.SIGTERM)
        app.wait(timeout=30)
        deadline = time.monotonic() + 30
        while left := _processes_of(executable):
            assert time.monotonic() < deadline, f"still running after the signal: {left}"
            time.sleep(0.2)
    finally:
        if app.poll() is None:
            app.kill()
            app.wait(timeout=30)
