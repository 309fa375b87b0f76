"""Chat at the table: who may write, what is kept, how it streams, resumes and is blocked."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import requests

from somnium_server.api.chat_routes import MOST_CHAT, PAGE_CHAT
from somnium_server.api.models import PersonOpponent
from somnium_server.config import RateLimit
from somnium_server.context import build_context, serving
from somnium_server.live.events import SLICE
from somnium_server.play.chat import CATCH_UP
from somnium_server.storage import ChatMessage

from ..conftest import Database
from ..postgres import Cluster
from .helpers import SSE, EventReader, LiveServer, Player, query, server_settings
from .test_instances import on, started, together
from .test_instances import pair as pair  # the fixture: two instances on one database


def chats(reader: EventReader, quiet: float = 0.3) -> list[SSE]:
    """The chat events a stream brings until it is quiet."""
    return [event for event in reader.drain(quiet) if event.event == "chat"]


def texts(events: list[SSE]) -> list[str]:
    return [event.json()["message"]["text"] for event in events]


def stream(server: LiveServer, game_id: str, player: Player | None = None,
           last: str | None = None) -> EventReader:
    headers = dict(player.headers) if player is not None else {}
    if last is not None:
        headers["Last-Event-ID"] = last
    return EventReader(f"{server.base}/games/{game_id}/events", headers)


def test_players_and_watchers_chat_without_moving_the_game(server: LiveServer) -> None:
    ann, bob, game_id = started(server)
    carol = server.player("Carol")
    before = server.get(f"/games/{game_id}").json()
    readers = [stream(server, game_id), stream(server, game_id, bob)]
    try:
        for reader in readers:
            reader.until(lambda e: e.event == "presence")
        written = ann.post(f"/games/{game_id}/chat", {"text": "good  luck\u202e"})
        assert written.status_code == 201, written.text
        assert written.json()["text"] == "good luck"  # cleaned as names are
        assert carol.post(f"/games/{game_id}/chat", {"text": "<b>x</b> &lt;"}).status_code == 201
        for reader in readers:
            seen = [e.json()["message"] for e in chats(reader)]
            assert [(m["name"], m["role"], m["text"]) for m in seen] == [
                ("Ann", "player", "good luck"), ("Carol", "watcher", "<b>x</b> &lt;")]
            assert all(e.id is not None and e.id.startswith(f"{before['seq']}.")
                       for e in reader.seen if e.event == "chat")
    finally:
        for reader in readers:
            reader.close()
    after = server.get(f"/games/{game_id}").json()
    assert (after["version"], after["seq"]) == (before["version"], before["seq"])
    mover = {0: ann, 1: bob}[before["view"]["turn"]]
    moved = mover.act(game_id, before["version"], {"type": "draw"})
    assert moved.status_code == 200, moved.text  # the version chat left alone still holds
    history = server.get(f"/games/{game_id}/chat").json()
    assert [(m["user_id"], m["role"]) for m in history] == [
        (ann.user_id, "player"), (carol.user_id, "watcher")]


def test_bad_messages_are_refused_with_reasons(server: LiveServer) -> None:
    ann, _, game_id = started(server)
    path = f"/games/{game_id}/chat"
    assert server.get(path).json() == []
    assert requests.post(server.base + path, json={"text": "hi"}, timeout=10).status_code == 401
    for text in ("", " \u200b ", "x" * 501, "a\x00b", "a\nb"):
        answer = ann.post(path, {"text": text})
        assert answer.status_code == 422, text
        assert "text" in str(answer.json()["details"]), answer.text
    assert ann.post(path, {"text": "x" * 500}).status_code == 201
    assert ann.post("/games/NOSUCH7/chat", {"text": "hi"}).status_code == 404
    assert len(server.get(path).json()) == 1  # nothing refused was kept


def test_chat_has_its_own_rate_limit(database: Database) -> None:
    server = LiveServer(server_settings(database, rate_chat=RateLimit(2, 60)))
    try:
        ann, bob, game_id = started(server)
        path = f"/games/{game_id}/chat"
        assert [ann.post(path, {"text": "hi"}).status_code for _ in range(2)] == [201, 201]
        refused = ann.post(path, {"text": "hi"})
        assert refused.status_code == 429 and int(refused.headers["Retry-After"]) >= 1
        assert bob.post(path, {"text": "hi"}).status_code == 201  # per user
    finally:
        server.stop()


def test_a_stream_resumes_the_chat_after_the_last_event_seen(server: LiveServer) -> None:
    ann, _, game_id = started(server)
    path = f"/games/{game_id}/chat"
    ann.post(path, {"text": "one"})
    first = stream(server, game_id)
    try:
        assert texts(chats(first)) == ["one"]  # a fresh stream starts with the recent chat
        last = [e for e in first.seen if e.id is not None][-1].id
    finally:
        first.close()
    assert last is not None and "." in last
    ann.post(path, {"text": "two"})
    again = stream(server, game_id, last=last)
    try:
        assert texts(chats(again)) == ["two"]
        assert not any(e.event == "snapshot" for e in again.seen)
    finally:
        again.close()
    seq = last.partition(".")[0]
    plain = stream(server, game_id, last=seq)  # after a game event: the chat since it
    try:
        assert texts(chats(plain)) == ["one", "two"]
    finally:
        plain.close()


def test_a_stream_resuming_after_a_long_chat_gets_its_newest_part(
    database: Database,
) -> None:
    """A stream that missed more than CATCH_UP messages gets the newest CATCH_UP, not so much
    that it is closed for being behind before it starts; the history pages back."""
    server = LiveServer(server_settings(database, rate_chat=RateLimit(100000, 1)))
    try:
        ann, _, game_id = started(server)
        path = f"/games/{game_id}/chat"
        first = ann.post(path, {"text": "0"}).json()["id"]
        written = [ann.post(path, {"text": str(n)}).json()["id"] for n in range(CATCH_UP + 50)]
        seq = server.get(f"/games/{game_id}").json()["seq"]
        resumed = stream(server, game_id, last=f"{seq}.{first}")
        try:
            got = [int(e.json()["message"]["id"]) for e in chats(resumed, 0.5)]
            assert got == written[-CATCH_UP:]
        finally:
            resumed.close()
        page = ann.get(f"{path}?limit=3").json()
        assert [m["id"] for m in page] == written[-3:]
        back = ann.get(f"{path}?limit=2&before={written[-3]}").json()
        assert [m["id"] for m in back] == written[-5:-3]
        assert len(ann.get(path).json()) == PAGE_CHAT
        for query in ("limit=0", f"limit={MOST_CHAT + 1}", "before=0", "limit=+5"):
            assert ann.get(f"{path}?{query}").status_code == 422, query
    finally:
        server.stop()


def test_blocking_hides_a_user_everywhere(server: LiveServer) -> None:
    ann, bob, game_id = started(server)
    carol = server.player("Carol")
    assert bob.post(f"/me/blocks/{carol.user_id}").status_code == 204
    assert bob.post(f"/me/blocks/{carol.user_id}").status_code == 204  # twice is once
    assert [u["id"] for u in bob.get("/me/blocks").json()] == [carol.user_id]
    assert bob.post(f"/me/blocks/{bob.user_id}").status_code == 403
    assert bob.post(f"/me/blocks/{'0' * 32}").status_code == 404
    path = f"/games/{game_id}/chat"
    bobs, anns = stream(server, game_id, bob), stream(server, game_id, ann)
    try:
        for reader in (bobs, anns):
            reader.until(lambda e: e.event == "presence")
        carol.post(path, {"text": "from carol"})
        ann.post(path, {"text": "from ann"})
        assert texts(chats(bobs)) == ["from ann"]
        assert texts(chats(anns)) == ["from carol", "from ann"]
        assert [m["text"] for m in bob.get(path).json()] == ["from ann"]
        assert len(ann.get(path).json()) == 2
        assert bob.http.delete(bob.base + f"/me/blocks/{carol.user_id}",
                               headers=bob.headers, timeout=10).status_code == 204
        assert bob.get("/me/blocks").json() == []
        carol.post(path, {"text": "again"})
        assert texts(chats(bobs)) == ["again"]
        assert len(bob.get(path).json()) == 3
    finally:
        bobs.close()
        anns.close()


def test_a_message_written_on_one_instance_reaches_streams_on_the_other(
    pair: tuple[LiveServer, LiveServer],
) -> None:
    a, b = pair
    ann, bob, game_id = started(a)
    carol = a.player("Carol")
    readers = [stream(b, game_id), stream(b, game_id, on(b, bob))]
    try:
        for reader in readers:
            reader.until(lambda e: e.event == "presence")
        ann.post(f"/games/{game_id}/chat", {"text": "hello from A"})
        assert texts(chats(readers[1], 0.5)) == ["hello from A"]
        # Bob blocks Carol through A: his stream open on B follows at once
        assert bob.post(f"/me/blocks/{carol.user_id}").status_code == 204
        carol.post(f"/games/{game_id}/chat", {"text": "carol on A"})
        ann.post(f"/games/{game_id}/chat", {"text": "ann again"})
        assert texts(chats(readers[0], 0.5)) == ["hello from A", "carol on A", "ann again"]
        assert texts(chats(readers[1], 0.5)) == ["ann again"]
    finally:
        for reader in readers:
            reader.close()
    assert [m["text"] for m in b.get(f"/games/{game_id}/chat").json()] == [
        "hello from A", "carol on A", "ann again"]
    assert [m["text"] for m in on(b, bob).get(f"/games/{game_id}/chat").json()] == [
        "hello from A", "ann again"]


def test_messages_raced_on_two_instances_stream_and_resume_exactly(pg_cluster: Cluster) -> None:
    """Messages written at once through both instances: every stream, on either instance,
    gets each once in id order, and resuming after any of them gets exactly the later ones."""
    url = pg_cluster.new_database()
    servers = [LiveServer(server_settings(url, rate_chat=RateLimit(1000, 1))) for _ in range(2)]
    try:
        ann, bob, game_id = started(servers[0])
        writers = [ann, bob, servers[0].player("Carol")]
        live = [stream(server, game_id) for server in servers]
        for reader in live:
            reader.until(lambda e: e.event == "presence")
        for round_ in range(6):
            together([
                (f"{servers[n % 2].base}/games/{game_id}/chat", {"text": f"{round_}-{n}"},
                 writers[n % 3].headers)
                for n in range(6)
            ])
        history = [m["id"] for m in servers[1].get(f"/games/{game_id}/chat").json()]
        assert len(history) == 36 and history == sorted(history)
        for reader in live:
            assert ids(chats(reader, 0.5)) == history
            reader.close()
        seq = servers[0].get(f"/games/{game_id}").json()["seq"]
        resumed = [stream(servers[n % 2], game_id, last=f"{seq}.{after}")
                   for n, after in enumerate(history)]
        try:
            for n, reader in enumerate(resumed):
                assert ids(chats(reader, 0.1)) == history[n + 1:], n
        finally:
            for reader in resumed:
                reader.response.close()
            for reader in resumed:
                reader.close()
    finally:
        for server in servers:
            server.stop()


def ids(events: list[SSE]) -> list[int]:
    return [int(event.json()["message"]["id"]) for event in events]


def test_a_message_reaches_a_crowd_after_the_move_handed_out_before_it(tmp_path: Path) -> None:
    """A game with more listeners than one slice gets each move slice by slice, a turn of the
    event loop apart; a message published while a move is on its way reaches every listener
    after that move (its id `<seq>.<message>` says it comes after event `seq`)."""

    async def scene() -> list[list[bytes]]:
        ctx = build_context(server_settings(tmp_path / "db.sqlite3"))
        async with serving(ctx):
            ann = await ctx.storage.create_user("Ann")
            room = await ctx.games.create(ann, PersonOpponent(name="Ann's table",
                                                              opponent="person"))
            crowd = [ctx.games.watch(room, None, None) for _ in range(SLICE * 2)]
            for listener in crowd:
                ctx.chat.join(room, listener, None, [], ctx.chat.published)
            room.channel.publish(b"id: 7\nevent: card_drawn\ndata: {}\n\n")  # (a move's)
            await asyncio.sleep(0)  # the move's hand-out begins: one slice has it
            ctx.chat.publish(ChatMessage(
                id=1, game_id=room.id, user_id=ann.id, name="Ann", role="player",
                text="good luck", at=time.time(), at_seq=7,
            ))
            heard = [[frame.split(b"\n", 1)[0] for frame in listener.buffer
                      if frame.startswith(b"id: ")] for listener in crowd]
            for listener in crowd:
                ctx.games.unwatch(room, listener, None)
            return heard

    for heard in asyncio.run(scene()):  # (the message's id: the room's seq, then its own)
        assert heard[-2] == b"id: 7" and heard[-1].endswith(b".1"), heard


def test_a_message_whose_notice_was_lost_reaches_the_streams(pg_cluster: Cluster) -> None:
    """Streams hear of a message by its notice; the instance's listening connection is cut
    as the message is written, and the notice is lost. Listening again, it reads what its
    streams may have missed."""
    server = LiveServer(server_settings(pg_cluster.new_database()))
    reader = None
    try:
        ann, bob, game_id = started(server)
        reader = stream(server, game_id, bob)
        reader.until(lambda e: e.event == "presence")
        listening = ("SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                     " WHERE datname = current_database() AND left(query, 7) = 'LISTEN '")
        assert len(query(server.settings.database_url or "", listening)) == 1
        posted = ann.post(f"/games/{game_id}/chat", {"text": "still there?"})
        assert posted.status_code == 201, posted.text
        heard = reader.until(lambda e: e.event == "chat")
        assert heard.json()["message"]["text"] == "still there?"
    finally:
        if reader is not None:
            reader.close()
        server.stop()
