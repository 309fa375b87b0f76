"""The data folder is the server's user's alone: 0700, and every file in it 0600, whatever
the umask (022 here) of the process that started the server."""

from __future__ import annotations

import os
import random
import stat
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from somnium_desktop.client.local_server import LocalServer
from somnium_server.storage.sqlite_file import connect

from .helpers import (
    TIMEOUT,
    Player,
    analyse_a_game,
    free_port,
    make_user,
    wait_until_serving,
)

SHARING_UMASK = 0o022  # the usual one: files readable by every user
# what a built-in server of an older release (before 0600) left, as its umask made them
OLDER_FILES = ("somnium.sqlite3", "somnium.sqlite3-wal", "somnium.sqlite3-shm", "server.lock",
               "server.log")


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def modes(folder: Path) -> dict[str, int]:
    """The mode of `folder` ("." ) and of everything in it."""
    return {".": mode(folder),
            **{str(path.relative_to(folder)): mode(path) for path in folder.rglob("*")}}


def private(found: dict[str, int]) -> dict[str, int]:
    """What `modes` should have found: the folder 0700, each file 0600."""
    return {name: 0o700 if name == "." else 0o600 for name in found}


def play_a_game(base: str, database: Path) -> None:
    """Two people sit down, draw and bank a few times, and one concedes (within the built-in
    server's own rate limits)."""
    ann, bob = (Player(base, *make_user(database, name), name) for name in ("Ann", "Bob"))
    game_id = str(ann.create()["id"])
    assert bob.post(f"/games/{game_id}/join").status_code == 200
    detail = ann.get(f"/games/{game_id}").json()
    seats = {p["user_id"]: i for i, p in enumerate(detail["players"])}
    players = {seats[ann.user_id]: ann, seats[bob.user_id]: bob}
    rng = random.Random(5)
    for _ in range(6):
        view = detail["view"]
        answer = players[view["turn"]].act(game_id, detail["version"], rng.choice(view["legal"]))
        assert answer.status_code == 200, answer.text
        detail = {**detail, **answer.json()}
    view = detail["view"]
    conceded = players[view["turn"]].act(game_id, detail["version"], {"type": "concede"})
    assert conceded.status_code == 200 and conceded.json()["view"]["over"], conceded.text


@contextmanager
def sharing_umask() -> Iterator[None]:
    """This process (and the children it starts) under umask 022 for a while."""
    before = os.umask(SHARING_UMASK)
    try:
        yield
    finally:
        os.umask(before)


@contextmanager
def standalone(database: Path) -> Iterator[tuple[str, list[str]]]:
    """`somnium-server` on a free port with its SQLite file at `database`, under umask 022;
    the list gets what it wrote on standard error once it stopped."""
    port = free_port()
    child = subprocess.Popen(
        [sys.executable, "-m", "somnium_server", "--host", "127.0.0.1", "--port", str(port),
         "--database", str(database), "--rate-act", "1000/1", "--access-log", "false"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, umask=SHARING_UMASK,
    )
    base, said = f"http://127.0.0.1:{port}", list[str]()
    try:
        wait_until_serving(base, child)
        yield base, said
    finally:
        child.terminate()
        said.append(child.communicate(timeout=TIMEOUT)[1])  # (its warnings fit the pipe)


def test_the_standalone_server_keeps_its_folder_and_files_private(tmp_path: Path) -> None:
    folder = tmp_path / "somnium-server"
    database = folder / "somnium.sqlite3"
    with standalone(database) as (base, _), sharing_umask():
        analyse_a_game(base, database)  # a game played to its end, and its analysis
        found = modes(folder)
    assert {"somnium.sqlite3", "somnium.sqlite3-wal", "somnium.sqlite3-shm"} <= set(found)
    assert found == private(found)
    assert modes(folder) == private(modes(folder))  # after it stopped too


def test_the_standalone_server_warns_of_a_folder_others_can_read(tmp_path: Path) -> None:
    """A folder it is given is the host's: named, not changed (it may be shared on purpose)."""
    folder = tmp_path / "shared"
    folder.mkdir()
    folder.chmod(0o755)
    with standalone(folder / "somnium.sqlite3") as (_, said):
        pass
    assert f"the data folder {folder} can be read by other users (mode 755)" in said[0]
    assert mode(folder) == 0o755
    assert mode(folder / "somnium.sqlite3") == 0o600


def test_the_built_in_server_keeps_its_folder_and_files_private(tmp_path: Path) -> None:
    folder = tmp_path / "Somnium Desktop" / "local-server"
    with sharing_umask():
        server = LocalServer(folder, idle=0.5)
        try:
            play_a_game(server.ensure(), folder / "somnium.sqlite3")
            found = modes(folder)
        finally:
            server.stop()
    assert {"somnium.sqlite3", "somnium.sqlite3-wal", "somnium.sqlite3-shm", "server.log",
            "server.lock", "server.json"} <= set(found)
    assert found == private(found)
    assert modes(folder) == private(modes(folder))


def test_the_built_in_server_tightens_a_folder_an_older_one_left_open(tmp_path: Path) -> None:
    """Made by an older release under umask 022: the server makes the folder 0700 again and
    its own files in it 0600 (the database, the -wal and -shm a crash left, the lock), and
    the app its log."""
    folder = tmp_path / "local-server"
    folder.mkdir(mode=0o755)
    for name in OLDER_FILES:
        (folder / name).write_bytes(b"")  # (an empty file is an empty SQLite database)
        (folder / name).chmod(0o644)
    server = LocalServer(folder, idle=0.5)
    try:
        play_a_game(server.ensure(), folder / "somnium.sqlite3")
        found = modes(folder)  # (while it runs: a clean stop removes the -wal and -shm)
    finally:
        server.stop()
    assert set(OLDER_FILES) <= set(found)
    assert found == private(found)


def test_the_standalone_server_makes_an_older_database_private(tmp_path: Path) -> None:
    """Its folder is the host's, but the database file (and a crash's -wal and -shm) is the
    server's own: made 0600, and said so."""
    folder = tmp_path / "somnium-server"
    folder.mkdir(mode=0o700)
    for name in OLDER_FILES[:3]:
        (folder / name).write_bytes(b"")
        (folder / name).chmod(0o644)
    with standalone(folder / "somnium.sqlite3") as (base, said):
        analyse_a_game(base, folder / "somnium.sqlite3")
        found = modes(folder)
    assert set(OLDER_FILES[:3]) <= set(found)
    assert found == private(found)
    assert f"made {folder / 'somnium.sqlite3'} 0600 (it was 644)" in said[0]


def test_a_database_opened_in_this_process_is_private_whatever_its_umask(tmp_path: Path) -> None:
    """As a server embedded in another program opens it: the file is made 0600 before SQLite
    opens it, and SQLite gives its -wal and -shm the file's mode."""
    folder = tmp_path / "games"
    with sharing_umask():
        conn = connect(folder / "somnium.sqlite3")
        try:
            conn.execute("INSERT INTO last_seen VALUES ('ann', 1.0)")
            found = modes(folder)
        finally:
            conn.close()
    assert {"somnium.sqlite3-wal", "somnium.sqlite3-shm"} <= set(found)
    assert found == private(found)
