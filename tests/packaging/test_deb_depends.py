"""The Debian package's libc6 dependency: as new as the glibc its bundle's files ask for."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

from .scripts import packaging_module

BUILD_DEB = packaging_module("build_deb.py")


def _glibc_versions(path: Path) -> set[tuple[int, ...]]:
    """The GLIBC_x.y versions of the symbols `path` takes from glibc, as objdump lists them."""
    listing = subprocess.run(["objdump", "--dynamic-syms", str(path)], capture_output=True,
                             text=True, check=True, timeout=60).stdout
    return {tuple(map(int, found.split(".")))
            for found in re.findall(r"\bGLIBC_(\d+(?:\.\d+)+)\b", listing)}


def test_the_package_depends_on_a_libc6_as_new_as_its_files_need(tmp_path: Path) -> None:
    # A package tree whose "bundle" holds real ELF files of this machine: the interpreter as
    # the executable, libpython as a library. Without a versioned dependency apt installs the
    # package on an older glibc, where the bundle fails to start.
    assert shutil.which("objdump") and shutil.which("readelf"), "apt-get install binutils"
    library = tmp_path / "usr" / "lib" / "somnium"
    (library / "_internal").mkdir(parents=True)
    executable = library / "somnium"
    shutil.copyfile(Path(sys.executable).resolve(), executable)
    libpython = Path(sysconfig.get_config_var("LIBDIR")) / sysconfig.get_config_var("LDLIBRARY")
    shared = library / "_internal" / "libpython3.so.1.0"
    shutil.copyfile(libpython.resolve() if libpython.is_file() else executable, shared)

    newest = max(_glibc_versions(executable) | _glibc_versions(shared))
    control = BUILD_DEB.control(tmp_path, "1.2.3-1")
    (depends,) = re.findall(r"^Depends: (.*)$", control, re.M)
    assert f"libc6 (>= {'.'.join(map(str, newest))})" in depends.split(", ")
    assert "libgl1" in depends.split(", ")  # the others as they were
