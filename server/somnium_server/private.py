"""The server's files kept from other users: its data folder 0700, its files 0600."""

from __future__ import annotations

import logging
import os
import stat
import sys
from pathlib import Path

FOLDER_MODE = 0o700
FILE_MODE = 0o600
PRIVATE_UMASK = 0o077  # what a process that keeps its files private creates with
OTHERS = 0o077  # the group's and everyone's bits

log = logging.getLogger("somnium_server.private")


def keep_files_private() -> None:
    """Everything this process creates from now on is for its user alone (umask 077): the
    SQLite file and its -wal and -shm, the built-in server's lock and address files."""
    os.umask(PRIVATE_UMASK)


def private_folder(folder: Path, *, tighten: bool) -> None:
    """Make `folder` (0700, its missing parents as the umask says) unless it is there.

    A folder already there that this user owns and that others may read or enter is made
    0700 when `tighten` (the built-in server's folder, which nothing else uses), or named in a
    warning (a folder given to the standalone server: its host may share it on purpose)."""
    existed = folder.is_dir()
    folder.mkdir(mode=FOLDER_MODE, parents=True, exist_ok=True)
    if not existed or sys.platform == "win32":
        return
    found = folder.stat()
    if found.st_uid != os.getuid() or not found.st_mode & OTHERS:
        return
    if tighten:
        os.chmod(folder, FOLDER_MODE)
        return
    log.warning("the data folder %s can be read by other users (mode %03o): they can read "
                "every game and the decks' order; chmod 700 %s", folder,
                stat.S_IMODE(found.st_mode), folder)


def private_file(path: Path) -> None:
    """Create `path` empty with mode 0600 if it is missing (whatever the umask); one already
    there is made 0600 (see tighten_file)."""
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE))
    except FileExistsError:
        tighten_file(path)


def tighten_file(path: Path) -> None:
    """Make `path`, if it is there, this user's and others may read or write it, 0600: the
    server's own files made by an older release (umask 022: 0644) or left by a crash (a
    -wal and -shm keep the mode they were made with). Nobody else's file is touched."""
    if sys.platform == "win32":
        return
    try:
        found = path.lstat()
    except FileNotFoundError:
        return
    if (not stat.S_ISREG(found.st_mode) or found.st_uid != os.getuid()
            or not found.st_mode & OTHERS):
        return
    os.chmod(path, FILE_MODE)
    log.warning("made %s 0600 (it was %03o): only this user reads the games", path,
                stat.S_IMODE(found.st_mode))
