"""Which shared libraries the bundle carries: what its code needs, less what the system provides.

packaging/bundle/system-libraries.txt declares, by Debian package, the libraries that come from
the system. PyInstaller collects every library the bundle's binaries need, from whatever the
build machine has installed, GTK's dependencies included (Qt's GTK theme plugin links them).
`carried` keeps only the libraries that the bundle's own binaries (Python's extension modules,
Qt and its plugins) need other than through a declared system library, so the bundle holds the
same set on any build machine and the declared ones, with all that only they need, stay out.
`tidy` then makes the collected shared objects what a distribution expects: stripped, not
executable, with no library search path into the build machine.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterable
from pathlib import Path

SYSTEM_LIBRARIES = Path(__file__).resolve().parent / "system-libraries.txt"
# PyInstaller's TOC entries: (name in the bundle, source path, type code).
Entry = tuple[str, str, str]


def system_libraries(path: Path = SYSTEM_LIBRARIES) -> dict[str, str]:
    """soname -> the Debian package that provides it, as declared in `path`."""
    found = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            package, _, sonames = line.partition(":")
            found.update(dict.fromkeys(sonames.split(), package.strip()))
    return found


def needed(path: Path) -> list[str]:
    """The sonames an ELF file asks the dynamic loader for (its DT_NEEDED entries)."""
    listing = subprocess.run(
        ["readelf", "--dynamic", "--wide", str(path)],
        capture_output=True, text=True, check=True, timeout=60,
    ).stdout
    return re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", listing)


def _is_root(entry: Entry) -> bool:
    """A binary of the bundle's own code: an extension module or a file of a package (Qt's
    libraries and plugins), not a library collected from the system as a dependency."""
    name, _, kind = entry
    return kind == "EXTENSION" or "/" in name or name.startswith("libpython")


def carried(binaries: Iterable[Entry], system: Iterable[str]) -> list[Entry]:
    """The entries of `binaries` to put into the bundle, in their order."""
    entries = list(binaries)
    declared = set(system)
    by_soname: dict[str, list[Entry]] = {}
    for entry in entries:
        by_soname.setdefault(Path(entry[0]).name, []).append(entry)
    kept: set[Entry] = set()
    todo = [entry for entry in entries if _is_root(entry)]
    while todo:
        entry = todo.pop()
        if entry in kept or Path(entry[0]).name in declared:
            continue
        kept.add(entry)
        if entry[2] == "SYMLINK" or not Path(entry[1]).is_file():
            continue
        for soname in needed(Path(entry[1])):
            if soname not in declared:
                todo.extend(by_soname.get(soname, []))
    return [entry for entry in entries if entry in kept]


def shared_objects(folder: Path) -> list[Path]:
    """The ELF shared objects under `folder` (the bundle's libraries and extension modules)."""
    return [path for path in folder.rglob("*.so*")
            if path.is_file() and not path.is_symlink() and path.read_bytes()[:4] == b"\x7fELF"]


def tidy(folder: Path) -> None:
    """What dh_strip and lintian ask of the bundle's shared objects: no debugging symbols, no
    executable bit, no library search path outside the bundle. The bundle's executable stays
    as PyInstaller made it (its archive is appended to it)."""
    for path in shared_objects(folder):
        subprocess.run(["strip", "--strip-unneeded", "--remove-section=.comment",
                        "--remove-section=.note", str(path)], check=True, timeout=120)
        search = subprocess.run(["patchelf", "--print-rpath", str(path)], capture_output=True,
                                text=True, check=True, timeout=60).stdout.strip()
        if search and not all(re.match(r"\$ORIGIN\b", part) for part in search.split(":")):
            subprocess.run(["patchelf", "--remove-rpath", str(path)], check=True, timeout=60)
        path.chmod(0o644)
