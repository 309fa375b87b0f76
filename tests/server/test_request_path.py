"""Every request takes the framework's one path: public imports only, keep-alive and pipelined
requests answered in order, and the built-in server's process serving the whole API."""

from __future__ import annotations

import ast
import json
import socket
import subprocess
import sys
import time
from pathlib import Path

import requests

import somnium_server

from .helpers import TIMEOUT, LiveServer

SERVER_SOURCE = Path(somnium_server.__file__).parent
PRIVATE = ("uvicorn.protocols", "uvicorn.lifespan", "uvicorn.loops", "uvicorn.supervisors")


def _imported(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
            names |= {f"{node.module}.{alias.name}" for alias in node.names}
    return names


def test_the_server_imports_no_private_module_of_a_dependency() -> None:
    sources = sorted(SERVER_SOURCE.rglob("*.py"))
    assert len(sources) > 20
    found = []
    for path in sources:
        for name in _imported(path):
            parts = name.split(".")
            if parts[0] in ("uvicorn", "starlette", "fastapi", "pydantic") and (
                any(part.startswith("_") for part in parts[1:]) or name.startswith(PRIVATE)
            ):
                found.append(f"{path.name}: {name}")
    assert found == []


def _request(method: str, path: str, body: bytes = b"", token: str = "") -> bytes:
    head = f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
    if token:
        head += f"Authorization: Bearer {token}\r\n"
    if body:
        head += f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
    return head.encode() + b"\r\n" + body


def _answers(connection: socket.socket, count: int) -> list[tuple[int, object]]:
    """`count` answers with a Content-Length read off one connection: (status, JSON body)."""
    data = b""
    got: list[tuple[int, object]] = []
    while len(got) < count:
        while b"\r\n\r\n" not in data:
            chunk = connection.recv(65536)
            assert chunk, "the connection closed early"
            data += chunk
        head, _, rest = data.partition(b"\r\n\r\n")
        length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n")
                      if line.lower().startswith(b"content-length:"))
        while len(rest) < length:
            rest += connection.recv(65536)
        got.append((int(head[9:12]), json.loads(rest[:length])))
        data = rest[length:]
    return got


def test_pipelined_requests_on_one_connection_are_answered_in_order(server: LiveServer) -> None:
    ann, bob = server.player("Ann"), server.player("Bob")
    game = ann.create()
    game = bob.post(f"/games/{game['id']}/join").json()
    gid, mover = game["id"], (ann, bob)[game["view"]["turn"]]
    action = json.dumps({"action_id": "p1", "version": game["version"],
                         "action": {"type": "draw"}}).encode()
    port = int(server.base.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT) as connection:
        connection.sendall(
            _request("GET", f"/games/{gid}")
            + _request("POST", f"/games/{gid}/actions", action, mover.token)
            + _request("POST", f"/games/{gid}/actions", b"[]", mover.token)
            + _request("GET", f"/games/{gid}")
            + _request("GET", "/games/NOSUCH1")
        )
        answers = _answers(connection, 5)
    statuses = [status for status, _ in answers]
    assert statuses == [200, 200, 422, 200, 404]
    bodies = [body for _, body in answers]
    assert isinstance(bodies[0], dict) and isinstance(bodies[1], dict)
    assert isinstance(bodies[3], dict) and isinstance(bodies[4], dict)
    assert bodies[1]["version"] == bodies[3]["version"] == game["version"] + 1
    assert bodies[4]["error"] == "unknown_game"


def test_the_built_in_process_serves_the_lobby_and_the_whole_api(tmp_path: Path) -> None:
    child = subprocess.Popen(
        [sys.executable, "-m", "somnium_server.embedded", "--data-dir", str(tmp_path),
         "--idle", "0.2"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE,
    )
    assert child.stdin is not None and child.stdout is not None
    try:
        port = int(child.stdout.readline().split(b":")[1].strip(b" }\r\n"))
        base = f"http://127.0.0.1:{port}"
        with requests.get(f"{base}/lobby/events", stream=True, timeout=TIMEOUT) as stream:
            first = next(stream.iter_content(chunk_size=None))
        assert b"\nevent: snapshot\n" in first and b'{"type":"snapshot","games":[]}' in first
        answer = requests.get(f"{base}/levels", timeout=TIMEOUT)
        assert answer.status_code == 200 and answer.json()
        assert requests.get(f"{base}/nowhere", timeout=TIMEOUT).json()["error"] == "not_found"
    finally:
        child.stdin.close()
        deadline = time.monotonic() + TIMEOUT
        while child.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        if child.poll() is None:
            child.kill()
        child.wait()
        child.stdout.close()
    assert child.returncode == 0
