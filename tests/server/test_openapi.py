"""The OpenAPI description: every answer declared, and schemathesis finds no 5xx (or worse)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

from .helpers import LiveServer


def test_every_operation_declares_its_answers(server: LiveServer) -> None:
    spec = server.get("/openapi.json").json()
    operations = {
        (method.upper(), path): operation
        for path, item in spec["paths"].items()
        for method, operation in item.items()
    }
    assert ("POST", "/games/{game_id}/actions") in operations
    for (method, path), operation in operations.items():
        declared = set(operation["responses"])
        if path.endswith("/events"):
            assert "text/event-stream" in operation["responses"]["200"]["content"]
            assert "429" in declared
        if "{game_id}" in path:
            assert "404" in declared, (method, path)
        if method == "POST" and path.startswith("/auth/"):
            # Sign-in's OAuth endpoints (RFC 6749, 7009): their own errors, limited per address.
            assert {"400", "413", "429"} <= declared, (method, path)
            assert "Retry-After" in operation["responses"]["429"]["headers"], path
        elif method in ("POST", "PATCH", "PUT"):
            assert {"401", "413", "422", "429"} <= declared, (method, path)
        for status, answer in operation["responses"].items():
            if status.startswith("4"):
                schema = answer["content"]["application/json"]["schema"]
                assert schema == {"$ref": "#/components/schemas/ErrorBody"}, (method, path)
    level = spec["components"]["schemas"]["ComputerOpponent"]["properties"]["level"]
    assert level["enum"] == ["test"]  # the levels on offer


def test_schemathesis_finds_no_server_errors(server: LiveServer, tmp_path: Path) -> None:
    player = server.player("Fuzz")
    player.create()  # something to find
    command = shutil.which("st", path=str(Path(sys.executable).parent)) or "st"
    run = subprocess.run(
        [command, "run", f"{server.base}/openapi.json",
         "-H", f"Authorization: Bearer {player.token}",
         "--exclude-path-regex", "/events$",
         "--checks", "all", "--max-examples", "25", "--seed", "7", "--workers", "1",
         "--request-timeout", "10"],
        cwd=tmp_path, capture_output=True, text=True, timeout=170,
    )
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]
    # (a bare "500" would also match the server's port, as in 127.0.0.1:50059)
    assert "passed" in run.stdout and not re.search(r"\b500\b", run.stdout)
