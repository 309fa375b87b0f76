"""Strict parsing: a malformed Last-Event-ID is a snapshot or a 4xx and keeps no stream slot,
integers are integers, table names are cleaned as display names are."""

from __future__ import annotations

import socket
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .helpers import TIMEOUT, EventReader, LiveServer, server_settings

# bytes a client may put in a header value (visible ASCII, space, tab, and obs-text)
HEADER_BYTES = st.binary(max_size=80).map(
    lambda raw: bytes(b for b in raw if b == 9 or 32 <= b < 127 or b >= 128)
)
TRICKY = [b"\xb2", "\u00b2".encode("latin-1"), b"-1", b" 5", b"5 ", b"+5", b"0x10", b"1e3",
          b"99999999999999999999999999", b"\xd9\xa3", b"", b"12-", b"-", b"abc-\xb2"]


def _open_stream(
    port: int, path: str, last_event_id: bytes, authorization: bytes | None = None
) -> tuple[int, bytes]:
    """A raw GET of an event stream with this Last-Event-ID (and Authorization): its status,
    and for a stream its first message; the connection is closed after."""
    signed = b"" if authorization is None else b"Authorization: " + authorization + b"\r\n"
    with socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT) as connection:
        connection.sendall(b"GET " + path.encode() + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                           + signed + b"Last-Event-ID: " + last_event_id + b"\r\n\r\n")
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = connection.recv(65536)
            if not chunk:
                break
            data += chunk
        status = int(data[9:12]) if data.startswith(b"HTTP/1.1 ") else 0
        if status == 200:
            while b"\n\n" not in data.partition(b"\r\n\r\n")[2]:
                chunk = connection.recv(65536)
                assert chunk, "the stream closed before its first message"
                data += chunk
        return status, data.partition(b"\r\n\r\n")[2]


def _held(server: LiveServer) -> dict[str, int]:
    return dict(server.app.state.ctx.hub.per_client)


def _until_released(server: LiveServer) -> dict[str, int]:
    deadline = time.monotonic() + TIMEOUT
    while _held(server) and time.monotonic() < deadline:
        time.sleep(0.02)
    return _held(server)


def _game(server: LiveServer) -> tuple[Any, dict[str, Any]]:
    ann, bob = server.player("Ann"), server.player("Bob")
    game = ann.create()
    return ann, bob.post(f"/games/{game['id']}/join").json()


def test_malformed_last_event_ids_get_a_snapshot_and_give_back_their_slot(
    server: LiveServer,
) -> None:
    _, game = _game(server)
    port = int(server.base.rsplit(":", 1)[1])
    assert _held(server) == {}
    for path in (f"/games/{game['id']}/events", "/lobby/events"):
        for value in TRICKY:
            status, body = _open_stream(port, path, value)
            assert status == 200, (path, value, body)
            assert b"event: snapshot\n" in body, (path, value)
    # longer than any id the server gives: refused, and says why
    status, body = _open_stream(port, "/lobby/events", b"7" * 65)
    assert status == 422 and b"Last-Event-ID" in body
    assert _until_released(server) == {}


def test_fuzzed_last_event_ids_never_fail_the_server_nor_keep_a_slot(tmp_path: Path) -> None:
    server = LiveServer(server_settings(tmp_path / "db.sqlite3", max_streams=4))
    try:
        _, game = _game(server)
        port = int(server.base.rsplit(":", 1)[1])
        paths = [f"/games/{game['id']}/events", "/lobby/events"]

        @settings(max_examples=150, deadline=None,
                  suppress_health_check=[HealthCheck.too_slow])
        @given(value=HEADER_BYTES, which=st.integers(0, 1),
               authorization=st.one_of(st.none(), HEADER_BYTES.map(lambda b: b"Bearer " + b)))
        def check(value: bytes, which: int, authorization: bytes | None) -> None:
            status, _ = _open_stream(port, paths[which], value, authorization)
            assert status == 200 or 400 <= status < 500, (value, authorization, status)

        check()
        assert _until_released(server) == {}
        # every slot of the address is still there: max_streams streams open at once
        readers = [EventReader(server.base + "/lobby/events") for _ in range(4)]
        try:
            assert [reader.status for reader in readers] == [200] * 4
            assert server.get("/lobby/events").status_code == 429
        finally:
            for reader in readers:
                reader.close()
    finally:
        server.stop()


@pytest.mark.parametrize("version", [True, "2", 2.5, None, [2], "²"])
def test_an_action_version_must_be_an_integer(server: LiveServer, version: Any) -> None:
    ann, game = _game(server)
    body = {"action_id": "a1", "version": version, "action": {"type": "draw"}}
    answer = ann.post(f"/games/{game['id']}/actions", body)
    assert answer.status_code == 422, answer.text
    assert answer.json()["error"] == "invalid_request" and "version" in answer.json()["message"]
    assert ann.get(f"/games/{game['id']}").json()["version"] == game["version"]


@pytest.mark.parametrize(("raw", "content_type", "status", "code"), [
    (b'{"action_id": "a1", "version": 1, "action": {"type": "draw"}}', "text/plain", 422,
     "invalid_request"),  # JSON only with a JSON content type
    (b"", "application/json", 422, "invalid_request"),
    (b"[]", "application/json", 422, "invalid_request"),
    (b"\xff\xfe{", "application/json", 400, "invalid_body"),
])
def test_an_action_body_is_json_of_the_right_shape(
    server: LiveServer, raw: bytes, content_type: str, status: int, code: str
) -> None:
    ann, game = _game(server)
    answer = ann.http.post(
        f"{server.base}/games/{game['id']}/actions", data=raw, timeout=10,
        headers={**ann.headers, "Content-Type": content_type},
    )
    assert answer.status_code == status, answer.text
    assert answer.json()["error"] == code
    assert ann.get(f"/games/{game['id']}").json()["version"] == game["version"]


@pytest.mark.parametrize("body", [
    {"name": 5, "opponent": "person"},
    {"name": True, "opponent": "person"},
    {"name": "x", "opponent": "computer", "level": 1},
])
def test_other_fields_are_not_converted_either(server: LiveServer, body: Any) -> None:
    answer = server.player("Ann").post("/games", body)
    assert answer.status_code == 422, answer.text


def test_table_names_lose_format_characters_and_refuse_control_characters(
    server: LiveServer,
) -> None:
    ann = server.player("Ann")
    refused = ann.post("/games", {"name": "ok\u0000\u202egnp.exe", "opponent": "person"})
    assert refused.status_code == 422
    assert "control characters" in refused.json()["message"]
    assert ann.post("/games", {"name": "\u202e\u200b", "opponent": "person"}).status_code == 422
    made = ann.create(name="  ok\u202egnp.exe \t  table ")
    assert made["name"] == "okgnp.exe table"
    listed = server.get("/games").json()
    assert [game["name"] for game in listed] == ["okgnp.exe table"]


@pytest.mark.parametrize(("blank", "before_ann"), [
    ("\u3164", ""), ("\u115f\u1160", ""), ("\uffa0", ""), ("\u2800", ""),
    ("\u0301", "\u0301"), (" \u3164 \u0301 ", "\u0301 "),
])
def test_a_name_that_shows_nothing_is_refused(
    server: LiveServer, blank: str, before_ann: str
) -> None:
    """Hangul fillers, the blank Braille pattern and lone combining marks show nothing: no
    display name, table name or chat message is made of them alone, and blank letters at
    either end of a name are dropped."""
    ann, game = _game(server)
    answers = [
        ann.http.patch(f"{server.base}/me", json={"display_name": blank}, headers=ann.headers,
                       timeout=10),
        ann.post("/games", {"name": blank, "opponent": "person"}),
        ann.post(f"/games/{game['id']}/chat", {"text": blank}),
    ]
    # (422 where the field's pattern refuses it, a renaming's own check says 400 invalid_name)
    assert [answer.status_code in (400, 422) for answer in answers] == [True] * 3, \
        [answer.text for answer in answers]
    assert ann.get("/me").json()["display_name"] == "Ann"
    named = ann.http.patch(f"{server.base}/me", json={"display_name": f"{blank}Ann\u3164"},
                           headers=ann.headers, timeout=10)
    assert named.status_code == 200 and named.json()["display_name"] == f"{before_ann}Ann"


@pytest.mark.parametrize("limit", ["+5", " 5", "5_0", "\u00b2", "1e2", "true", "0", "201"])
def test_a_query_number_is_plain_digits_in_bounds(server: LiveServer, limit: str) -> None:
    answer = server.get("/games", params={"limit": limit})
    assert answer.status_code == 422, answer.text
    assert answer.json()["error"] == "invalid_request"
    assert server.get("/games", params={"limit": "5"}).status_code == 200
