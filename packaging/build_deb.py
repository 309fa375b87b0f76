#!/usr/bin/env python3
"""Builds the Debian package `somnium` (Debian 12 and newer, amd64) with dpkg-deb.

    .venv/bin/python packaging/build_deb.py [--bundle dist/somnium] [--out dist]

Why the one-folder bundle and not a virtual environment or Debian's own Python modules: the
bundle brings its own Python and Qt, so one package installs alike on Debian 12 (Python 3.11)
and on newer releases whose python3 differs, where a venv built against one interpreter would
break at the next python3 upgrade; and PySide6 6.8+, FastAPI and the rest are not all in
Debian 12 at the versions the app needs. The bundle goes under /usr/lib/somnium (not /opt,
which Debian policy leaves to the local administrator), as packaging/build_bundle.py made it
(its shared objects already stripped, not executable, without search paths into the build
machine: dh_strip's and lintian's rules); `somnium` and `somnium-server` go into /usr/games,
on every user's PATH, as Debian policy wants for a game; the desktop entry, icons and
metainfo go where the desktop looks for them (/usr/share/applications, icons/hicolor,
metainfo). Its dependencies are the system libraries the bundle declares
(packaging/bundle/system-libraries.txt), with libc6 at least as new as the glibc the bundle's
files ask for (the build machine's, as dpkg-shlibdeps would find). Without --bundle it builds
the bundle first (packaging/build_bundle.py); a --bundle folder that is not a bundle, or
whose `somnium --version` is not this checkout's release (the package's version), is refused.
tests/packaging/test_deb.py installs it with apt, runs it, checks it with lintian and removes
it.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile
from datetime import UTC, datetime
from email.utils import format_datetime
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from somnium_desktop import __version__  # noqa: E402
from somnium_desktop.desktop_entry import install  # noqa: E402
from somnium_desktop.project import HOMEPAGE  # noqa: E402

PACKAGE = "somnium"
REVISION = "1"  # the Debian revision of this packaging
MAINTAINER = "The Somnium Desktop developers <somnium-desktop@users.noreply.github.com>"
LIBRARY_DIR = Path("usr/lib") / PACKAGE
# system-libraries.txt's packages: those the app cannot start without, those of one display
# system (recommended: apt installs them unless told not to); the rest (GTK and what its theme
# plugin links, for Qt's GTK theme) are suggested only.
REQUIRED = ("libc6", "libgl1", "libglx0", "libglvnd0", "libegl1", "libdrm2")
RECOMMENDED = ("libxcb1", "libwayland-client0", "libwayland-cursor0", "libwayland-egl1")
# Not libraries, needed all the same: fontconfig's settings and a font (blank text without).
ALSO_REQUIRED = ("fontconfig-config",)
DESCRIPTION = """\
push-your-luck card game for two players, online or against the computer
 Somnium is a two-player card game for a deck of 54 cards: ten suits valued
 3 to 7, three Fools and Death. Draw cards onto the table and bank them before
 two cards of one suit meet or Death takes the lot; a Fool lets you steal your
 opponent's best card of a suit.
 .
 Play offline against computer players at several levels, or on a lobby server
 with people and observers, signed in with an OpenID account. The package also
 holds the lobby server, somnium-server, which the app runs on this computer
 when no other server is set."""
SERVER_COMMAND = f"""\
#!/bin/sh
# The lobby server, from the app's bundle (which runs it as `somnium -m somnium_server`).
exec /{LIBRARY_DIR}/somnium -m somnium_server "$@"
"""
# What lintian still flags, and why each is so here (installed for lintian to read).
LINTIAN_OVERRIDES = f"""\
# The bundle carries its own Python, Qt and the libraries they need, by design (one package
# for Debian 12 and newer, see packaging/build_deb.py): copies of libraries Debian also has.
{PACKAGE}: embedded-library * [usr/lib/somnium/_internal/*]
# Python's own extension modules that need nothing from libc (_statistics, _uuid).
{PACKAGE}: library-not-linked-against-libc [usr/lib/somnium/_internal/python3*/lib-dynload/*]
# libblkid and libmount name sensible-pager for their command-line tools, never run here.
{PACKAGE}: missing-depends-on-sensible-utils sensible-pager [usr/lib/somnium/_internal/*]
"""
COPYRIGHT = f"""\
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: Somnium Desktop
Upstream-Contact: {MAINTAINER}
Source: {HOMEPAGE}

Files: *
Copyright: 2026 The Somnium Desktop developers
License: GPL-3+

Files: usr/lib/somnium/_internal/*
Copyright: 2001-2026 the Python Software Foundation, The Qt Company and the other
 authors of the libraries and Python packages the bundle carries (each Python
 package's licence is in its *.dist-info folder there)
License: various
 The bundle holds Python, Qt for Python (PySide6, LGPL-3), the shared libraries
 they need, and the Python packages listed in the app's pyproject.toml, each
 under its own licence.

License: GPL-3+
 This program is free software: you can redistribute it and/or modify it under
 the terms of the GNU General Public License as published by the Free Software
 Foundation, either version 3 of the License, or (at your option) any later
 version.
 .
 This program is distributed in the hope that it will be useful, but WITHOUT
 ANY WARRANTY; without even the implied warranty of MERCHANTABILITY or FITNESS
 FOR A PARTICULAR PURPOSE. See the GNU General Public License for more details.
 .
 On Debian systems, the complete text of the GNU General Public License
 version 3 is in "/usr/share/common-licenses/GPL-3"; it is also in
 /usr/lib/somnium/LICENSE.
"""


def system_packages() -> tuple[list[str], list[str], list[str]]:
    """(Depends, Recommends, Suggests) from the bundle's declared system libraries."""
    listing = ROOT / "packaging" / "bundle" / "system-libraries.txt"
    packages = []
    for line in listing.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            packages.append(line.partition(":")[0].strip())
    depends = [p for p in packages if p in REQUIRED] + list(ALSO_REQUIRED)
    recommends = [p for p in packages if p in RECOMMENDED]
    return depends, recommends, [p for p in packages if p not in REQUIRED + RECOMMENDED]


def _bundle_libraries() -> ModuleType:
    """packaging/bundle/libraries.py, the bundle's own reading of its libraries (by path:
    packaging/ is a folder, not a package)."""
    path = ROOT / "packaging" / "bundle" / "libraries.py"
    spec = importlib.util.spec_from_file_location("_bundle_libraries", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def glibc_needed(files: list[Path]) -> str | None:
    """The newest GLIBC_x.y symbol version any of the ELF `files` asks libc6's libraries for
    (readelf's version needs), as dpkg-shlibdeps would find it; None when none asks."""
    declared = _bundle_libraries().system_libraries()
    libc = {soname for soname, package in declared.items() if package == "libc6"}
    newest: tuple[int, ...] | None = None
    for path in files:
        listing = subprocess.run(["readelf", "--version-info", "--wide", str(path)],
                                 capture_output=True, text=True, check=True, timeout=60).stdout
        from_libc = False
        for line in listing.splitlines():
            if (needs := re.search(r"\bFile: (\S+)", line)) is not None:
                from_libc = needs[1] in libc
            elif from_libc and (name := re.search(r"\bName: GLIBC_(\d+(?:\.\d+)+)\s",
                                                  line + " ")) is not None:
                version = tuple(int(part) for part in name[1].split("."))
                newest = version if newest is None else max(newest, version)
    return None if newest is None else ".".join(map(str, newest))


def changelog_entry(version: str, when: datetime) -> str:
    """The Debian changelog (one entry: the packaged upstream release)."""
    return (
        f"{PACKAGE} ({version}) unstable; urgency=medium\n\n"
        f"  * Somnium Desktop {__version__}; see /usr/share/doc/{PACKAGE}/changelog.gz.\n\n"
        f" -- {MAINTAINER}  {format_datetime(when)}\n"
    )


def _gzip(text: bytes, target: Path) -> None:
    """gzip -9n: no name, no time stamp, so the package is the same at every build."""
    with open(target, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=9,
                                                   mtime=0, filename="") as packed:
        packed.write(text)


def stage(bundle: Path, tree: Path, when: datetime) -> str:
    """Lay the package's files out under `tree`; returns the package's version."""
    version = f"{__version__}-{REVISION}"
    shutil.copytree(bundle, tree / LIBRARY_DIR, symlinks=True)
    games = tree / "usr" / "games"
    games.mkdir(parents=True)
    (games / "somnium").symlink_to(Path("..") / "lib" / PACKAGE / "somnium")
    (games / "somnium-server").write_text(SERVER_COMMAND, encoding="utf-8")
    (games / "somnium-server").chmod(0o755)
    install(tree / "usr" / "share", command=["somnium"])  # the menu entry, icons, metainfo

    doc = tree / "usr" / "share" / "doc" / PACKAGE
    doc.mkdir(parents=True)
    (doc / "copyright").write_text(COPYRIGHT, encoding="utf-8")
    _gzip(changelog_entry(version, when).encode(), doc / "changelog.Debian.gz")
    _gzip((ROOT / "CHANGELOG.md").read_bytes(), doc / "changelog.gz")
    overrides = tree / "usr" / "share" / "lintian" / "overrides"
    overrides.mkdir(parents=True)
    (overrides / PACKAGE).write_text(LINTIAN_OVERRIDES, encoding="utf-8")

    for path in tree.rglob("*"):  # what dpkg expects: 755 for folders and programs, else 644
        if path.is_symlink():
            continue
        executable = path.is_dir() or os.access(path, os.X_OK)
        path.chmod(0o755 if executable else 0o644)
    return version


def control(tree: Path, version: str) -> str:
    """The package's control file, with its installed size."""
    size = sum(path.lstat().st_size for path in tree.rglob("*") if not path.is_dir())
    depends, recommends, suggests = system_packages()
    # The bundle starts only on a glibc as new as the build machine's: say so, or apt installs
    # it on an older system where it cannot start ("version `GLIBC_2.3x' not found").
    library = tree / LIBRARY_DIR
    elf = [library / PACKAGE, *_bundle_libraries().shared_objects(library / "_internal")]
    glibc = glibc_needed(elf)
    if glibc is not None:
        depends = [f"libc6 (>= {glibc})" if name == "libc6" else name for name in depends]
    return (
        f"Package: {PACKAGE}\n"
        f"Version: {version}\n"
        "Architecture: amd64\n"
        f"Maintainer: {MAINTAINER}\n"
        f"Installed-Size: {(size + 1023) // 1024}\n"
        f"Depends: {', '.join(depends)}\n"
        f"Recommends: {', '.join(recommends)}\n"
        f"Suggests: {', '.join(suggests)}\n"
        "Section: games\n"
        "Priority: optional\n"
        f"Homepage: {HOMEPAGE}\n"
        f"Description: {DESCRIPTION}\n"
    )


def bundle_release(bundle: Path) -> str:
    """The release the bundle folder holds, as its executable says (`somnium --version`).

    Exits with the reason when `bundle` is not a bundle folder (e.g. dist/ rather than
    dist/somnium/), whose package would install a /usr/games/somnium that cannot start.
    """
    executable = bundle / PACKAGE
    if not (executable.is_file() and os.access(executable, os.X_OK)
            and (bundle / "_internal").is_dir()):
        raise SystemExit(f"{bundle} is not a bundle folder: it needs the executable {PACKAGE} "
                         "beside _internal/ (packaging/build_bundle.py writes dist/somnium/)")
    said = subprocess.run([str(executable), "--version"], capture_output=True, text=True,
                          timeout=120, check=False)
    words = said.stdout.split()
    if said.returncode != 0 or len(words) != 2 or words[0] != PACKAGE:
        raise SystemExit(f"{executable} --version failed (status {said.returncode}): "
                         f"{(said.stdout + said.stderr).strip()[-500:]}")
    return words[1]


def build(bundle: Path, out: Path) -> Path:
    """Build the package from the bundle folder; returns the .deb's path."""
    if shutil.which("dpkg-deb") is None:
        raise SystemExit("dpkg-deb is missing: apt-get install dpkg")
    # The package's version is this checkout's: the bundle must hold that very release.
    release = bundle_release(bundle)
    if release != __version__:
        raise SystemExit(f"{bundle} holds somnium {release}, but this checkout is "
                         f"{__version__}: build the bundle again (packaging/build_bundle.py)")
    when = datetime.fromtimestamp(int(os.environ.get("SOURCE_DATE_EPOCH", "0")) or
                                  (ROOT / "CHANGELOG.md").stat().st_mtime, UTC)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as temporary:
        tree = Path(temporary) / PACKAGE
        version = stage(bundle, tree, when)
        sums = []
        for path in sorted(tree.rglob("*")):
            if path.is_file() and not path.is_symlink():
                digest = hashlib.md5(path.read_bytes()).hexdigest()  # dpkg's own check sums
                sums.append(f"{digest}  {path.relative_to(tree)}\n")
        debian = tree / "DEBIAN"
        debian.mkdir(mode=0o755)
        (debian / "control").write_text(control(tree, version), encoding="utf-8")
        (debian / "md5sums").write_text("".join(sums), encoding="utf-8")
        for name in ("control", "md5sums"):
            (debian / name).chmod(0o644)
        package = out / f"{PACKAGE}_{version}_amd64.deb"
        # gzip: xz took five minutes here for 60 MB less.
        subprocess.run(["dpkg-deb", "--root-owner-group", "-Zgzip", "--build", str(tree),
                        str(package)], check=True, capture_output=True)
    return package


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bundle", type=Path,
                        help="a built bundle folder (default: build one into dist/)")
    parser.add_argument("--out", type=Path, default=ROOT / "dist", help="output folder")
    args = parser.parse_args()
    bundle = args.bundle
    if bundle is None:
        subprocess.run([sys.executable, str(ROOT / "packaging" / "build_bundle.py")], check=True)
        bundle = ROOT / "dist" / "somnium"
    print(f"Built {build(bundle.resolve(), args.out.resolve())}")


if __name__ == "__main__":
    main()
