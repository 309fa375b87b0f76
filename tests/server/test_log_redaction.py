"""Sign-in secrets stay out of the logs: the real server's output, access log included."""

from __future__ import annotations

import logging
import subprocess
import sys
from pathlib import Path

import requests

from somnium_server.logs import RedactSecrets, redact

from .helpers import TIMEOUT, free_port, wait_until_serving

SECRETS = ("CODE-5ecret", "STATE-5ecret", "APPSTATE-5ecret")


def test_the_server_logs_no_callback_code_or_state(tmp_path: Path) -> None:
    port = free_port()
    child = subprocess.Popen(
        [sys.executable, "-m", "somnium_server", "--host", "127.0.0.1", "--port", str(port),
         "--database", str(tmp_path / "db.sqlite3"), "--access-log", "true",
         "--log-level", "debug"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_serving(base, child)
        asked = [
            f"/auth/callback/test?code={SECRETS[0]}&state={SECRETS[1]}",
            f"/auth/callback/other?error=access_denied&state={SECRETS[1]}",
            f"/auth/authorize?client_id=somnium-desktop&state={SECRETS[2]}",
            "/games?status=playing",
        ]
        for path in asked:
            requests.get(base + path, timeout=TIMEOUT, allow_redirects=False)
    finally:
        child.terminate()
        out, err = child.communicate(timeout=TIMEOUT)
    logged = out + err
    assert "GET /auth/callback/test?[redacted] HTTP/1.1" in logged, logged
    assert "GET /auth/callback/other?[redacted] HTTP/1.1" in logged
    assert "GET /auth/authorize?[redacted] HTTP/1.1" in logged
    assert "GET /games?status=playing HTTP/1.1" in logged  # other queries are kept
    assert not [secret for secret in SECRETS if secret in logged], logged


def test_every_argument_and_message_is_redacted() -> None:
    record = logging.LogRecord(
        "somnium_server", logging.WARNING, __file__, 1,
        "callback at %s failed for https://lobby.example.org/auth/callback/x?code=abc",
        ("/auth/callback/x?code=abc&state=def",), None,
    )
    assert RedactSecrets().filter(record)
    assert record.getMessage() == (
        "callback at /auth/callback/x?[redacted] failed for "
        "https://lobby.example.org/auth/callback/x?[redacted]"
    )
    assert redact("/levels?x=1 and /me?Code=2") == "/levels?x=1 and /me?[redacted]"
