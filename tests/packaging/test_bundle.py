"""The one-folder bundle: packaging/build_bundle.py builds it, and it runs on its own, offscreen."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests

from somnium_desktop import __version__
from somnium_desktop.assets import APP_ID, shipped_files
from tests.server.helpers import free_port

from .test_smoke import isolated_env
from .validators import validate_desktop_entry

ROOT = Path(__file__).resolve().parents[2]
SYSTEM_LIBRARIES = ROOT / "packaging" / "bundle" / "system-libraries.txt"


def documented_libraries() -> dict[str, str]:
    """soname -> Debian package, from packaging/bundle/system-libraries.txt."""
    found = {}
    for line in SYSTEM_LIBRARIES.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            package, _, sonames = line.partition(":")
            found.update(dict.fromkeys(sonames.split(), package.strip()))
    return found


def libraries_from_outside(bundle: Path) -> set[str]:
    """Sonames the bundle's ELF files load from the system, or find nowhere (per ldd)."""
    internal = bundle / "_internal"
    env = dict(os.environ, LD_LIBRARY_PATH=str(internal))  # as the bootloader sets it
    outside = set()
    for path in [bundle / "somnium", *internal.rglob("*.so*")]:
        if path.is_symlink() or not path.is_file() or path.read_bytes()[:4] != b"\x7fELF":
            continue
        listing = subprocess.run(
            ["ldd", str(path)], capture_output=True, text=True, env=env, timeout=60
        ).stdout
        for soname, target in re.findall(r"^\s*(\S+) => (.+?)(?: \(0x[0-9a-f]+\))?$",
                                         listing, re.M):
            if target == "not found" or not Path(target).resolve().is_relative_to(bundle):
                outside.add(soname)
    return outside


def _serve_from(executable: Path, tmp_path: Path, env: dict[str, str]) -> None:
    """The bundled server answers /health (uvicorn, uvloop and FastAPI work frozen)."""
    port = free_port()
    server = subprocess.Popen(
        [str(executable), "-m", "somnium_server", "--port", str(port),
         "--database", str(tmp_path / "bundle.sqlite3"), "--access-log", "false"],
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
def test_the_bundle_builds_starts_offscreen_and_carries_its_art(tmp_path: Path) -> None:
    build = subprocess.run(
        [sys.executable, str(ROOT / "packaging" / "build_bundle.py"),
         "--dist", str(tmp_path / "dist"), "--work", str(tmp_path / "work")],
        capture_output=True, text=True, timeout=600,
    )
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
    bundle = tmp_path / "dist" / "somnium"
    executable = bundle / "somnium"
    assert build.stdout.strip().endswith(f"run {executable}")
    package = bundle / "_internal" / "somnium_desktop"
    for source, shipped in shipped_files(ROOT):
        assert package.joinpath(*shipped.parts).read_bytes() == source.read_bytes()

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

    undocumented = libraries_from_outside(bundle) - documented_libraries().keys()
    assert not undocumented, (
        f"the bundle loads {sorted(undocumented)} from the system: name their Debian packages "
        f"in {SYSTEM_LIBRARIES.relative_to(ROOT)} and README.md"
    )
