"""The Debian package: built from the bundle, installed with apt, run, checked, removed whole."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from somnium_desktop import __version__
from somnium_desktop.assets import APP_ID
from somnium_desktop.project import HOMEPAGE

from .test_smoke import isolated_env
from .validators import validate_desktop_entry, validate_metainfo

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = "somnium"
# Where the package puts its files (the bundle, the commands, what the desktop reads).
PLACES = ("/usr/lib/somnium", "/usr/games/somnium", "/usr/games/somnium-server",
          f"/usr/share/applications/{APP_ID}.desktop", f"/usr/share/metainfo/{APP_ID}.metainfo.xml",
          f"/usr/share/icons/hicolor/scalable/apps/{APP_ID}.svg", "/usr/share/doc/somnium")


def _run(*command: str | Path, env: dict[str, str] | None = None,
         cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(part) for part in command], capture_output=True, text=True,
                          timeout=900, env=env, cwd=cwd)


def _installed() -> bool:
    status = _run("dpkg-query", "--show", "--showformat=${db:Status-Status}", PACKAGE)
    return status.returncode == 0 and status.stdout.strip() == "installed"


def _apt(*args: str) -> None:
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    done = _run("apt-get", "-y", "-q", *args, env=env)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]


@pytest.mark.slow
def test_the_debian_package_installs_runs_and_leaves_nothing_behind(
    bundle: Path, tmp_path: Path
) -> None:
    assert os.geteuid() == 0, "installs a package: run as root (CI does)"
    for tool in ("dpkg-deb", "apt-get", "lintian", "patchelf"):
        assert shutil.which(tool), f"{tool} is missing (.ci/run installs lintian, patchelf...)"
    assert not _installed(), f"{PACKAGE} is installed already: apt-get purge {PACKAGE} first"
    assert not [place for place in PLACES if os.path.lexists(place)]

    built = _run(sys.executable, ROOT / "packaging" / "build_deb.py", "--bundle", bundle,
                 "--out", tmp_path)
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    (deb,) = tmp_path.glob(f"{PACKAGE}_{__version__}-*_amd64.deb")
    assert built.stdout.strip() == f"Built {deb}"

    control = _run("dpkg-deb", "--field", deb).stdout
    assert f"\nHomepage: {HOMEPAGE}\n" in control and "\nSection: games\n" in control
    assert re.search(r"^Depends: .*\blibgl1\b.*\bfontconfig-config\b", control, re.M)
    assert re.search(r"^Depends: libc6 \(>= 2\.\d+\), ", control, re.M)  # not older glibc
    # GTK only for Qt's GTK theme: suggested, so apt does not pull it in by default.
    assert re.search(r"^Suggests: libgtk-3-0\b", control, re.M)
    assert not re.search(r"^(Depends|Recommends): .*gtk", control, re.M)
    # lintian: warnings and notes may stay (a prebuilt bundle is not built with Debian's
    # flags, and so on), errors may not.
    checked = _run("lintian", "--fail-on", "error", deb)
    assert checked.returncode == 0 and not re.search(r"^E: ", checked.stdout, re.M), (
        checked.stdout[-5000:] + checked.stderr[-2000:]
    )

    try:
        _apt("install", str(deb))  # the path makes apt take the file (./somnium_*.deb)
        assert _installed()
        files = _run("dpkg-query", "--listfiles", PACKAGE).stdout.split("\n")
        assert "/usr/lib/somnium/somnium" in files and "/usr/lib/somnium/LICENSE" in files
        assert (Path("/usr/lib/somnium/LICENSE").read_bytes() ==
                (ROOT / "LICENSE").read_bytes())
        copyright_file = Path("/usr/share/doc/somnium/copyright").read_text(encoding="utf-8")
        assert "License: GPL-3+" in copyright_file and "common-licenses/GPL-3" in copyright_file
        assert Path("/usr/share/doc/somnium/changelog.Debian.gz").is_file()
        validate_desktop_entry(Path(f"/usr/share/applications/{APP_ID}.desktop"))
        validate_metainfo(Path(f"/usr/share/metainfo/{APP_ID}.metainfo.xml"))
        for size in (16, 48, 256):
            assert Path(f"/usr/share/icons/hicolor/{size}x{size}/apps/{APP_ID}.png").is_file()

        # The commands on PATH, run from elsewhere, as a user would.
        env = isolated_env(tmp_path)
        env["PATH"] = "/usr/local/bin:/usr/bin:/bin:/usr/local/games:/usr/games"  # a user's
        env.pop("PYTHONPATH", None)
        elsewhere = tmp_path / "elsewhere"
        elsewhere.mkdir()
        assert shutil.which("somnium", path=env["PATH"]) == "/usr/games/somnium"
        smoke = _run("somnium", "--smoke-test", "--no-log-file", env=env, cwd=elsewhere)
        assert smoke.returncode == 0, smoke.stdout + smoke.stderr
        assert "card art /usr/lib/somnium/_internal/" in smoke.stdout
        usage = _run("somnium-server", "--help", env=env, cwd=elsewhere)
        assert usage.returncode == 0 and usage.stdout.startswith("usage: somnium-server"), (
            usage.stdout + usage.stderr
        )
        assert _run("somnium-server", "--version", env=env).stdout.strip() == (
            f"somnium-server {__version__}"
        )
    finally:
        if _installed():
            _apt("purge", PACKAGE)

    assert not _installed()
    left = [path for path in files if path and path != "/." and os.path.lexists(path)
            and not (os.path.isdir(path) and not os.path.islink(path)
                     and not path.startswith("/usr/lib/somnium")
                     and path not in {"/usr/share/doc/somnium"})]
    assert not left, f"left behind: {left[:20]}"
    assert not [place for place in PLACES if os.path.lexists(place)]
