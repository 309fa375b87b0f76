"""What the parts of the game service share: its state, constants and stored-game helpers."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import orjson

from somnium_desktop.game import GameState, action_from_dict, replay, state_from_dict
from somnium_server.api.apierror import ApiError
from somnium_server.live.events import StreamHub
from somnium_server.live.presence import Attendance, Timing, on_clock
from somnium_server.play.computer import ComputerRunner, Computers
from somnium_server.play.lobby import Lobby
from somnium_server.play.outbox import Outbox
from somnium_server.play.ratings import RatedGame, score_of_first
from somnium_server.play.rooms import GameRoom
from somnium_server.storage import GameRecord, Storage, StoredEvent, User

log = logging.getLogger("somnium_server.play.games")

COMPUTER_USER = "computer"
# The server's own actions (a computer's, a claimed win's) are stored under ids with a "/",
# which a player's action id may not hold (models.ActRequest): the two never clash.

# The full state is stored every this many actions (and when a game ends); in between an
# action writes only its own row, and loading replays the actions after the snapshot.
SNAPSHOT_EVERY = 32
# With several instances, one drives a game's computers: it holds a lease this many seconds,
# renewed at each move; the others, woken too, take over once it has run out.
COMPUTER_LEASE = 3.0
HISTORY_GRACE = 600.0  # seconds a finished game's events and answers stay in memory
REPLAYS_KEPT = 32  # finished games' replays kept built (the latest asked for)
SEEN_EVERY = 5.0  # seconds between two notes in storage of the players whose streams are open


class ServiceBase:
    """The game service's state: the rooms, the players' attendance and the computers."""

    def __init__(
        self,
        storage: Storage,
        lobby: Lobby,
        hub: StreamHub,
        computers: Computers,
        *,
        event_window: int,
        computer_pause: float,
        observer_flush: float,
        timing: Timing | None = None,
        clock_min: int = 10,
    ) -> None:
        self.storage = storage
        self.lobby = lobby
        self.hub = hub
        self.computers = computers
        self.event_window = event_window
        self.observer_flush = observer_flush
        self.timing = timing or Timing()
        self.clock_min = clock_min  # the shortest per-move clock offered (seconds)
        self.attendance = Attendance()
        self.tables: dict[str, set[str]] = {}  # user id -> the unfinished games they sit at
        self.rooms: dict[str, GameRoom] = {}
        self.history_grace = HISTORY_GRACE
        self.read_back = 0  # finished games' states read back from storage (ensure_whole)
        self.runner = ComputerRunner(computer_pause, self._computer_move)
        self._notices: set[asyncio.Task[None]] = set()
        self.outbox = Outbox()  # what the other instances are to hear of the streams here
        self._reading_again: dict[str, int] = {}  # game -> the version a failed notice named
        # (game id, version) -> its replay as JSON, the latest asked for last
        self.replays: OrderedDict[tuple[str, int], bytes] = OrderedDict()
        # set by chat.py's ChatService: hears the chat notices (peers.CHAT_KINDS)
        self.chat_heard: Callable[[str, str], None] | None = None
        self.chat_missed: Callable[[], None] | None = None  # (notices may have been lost)

    async def _computer_move(self, game_id: str) -> bool:
        """The computer to move takes one action (the write path's: games_commit.py)."""
        raise NotImplementedError

    async def stop(self) -> None:
        await self.runner.stop()
        if self._notices:  # (notes of streams just closed among them)
            await asyncio.wait(set(self._notices), timeout=2.0)
        leftover = set(self._notices)  # (a notice still read again: the database away)
        for task in leftover:
            task.cancel()
        if leftover:
            await asyncio.wait(leftover)
        if self.outbox.pending:  # (the others forget this instance's streams in seconds)
            log.warning("stopped before telling the other instances %d changes of its "
                        "streams", len(self.outbox.pending))
        if self.attendance.streams:  # those here until the server stopped
            with contextlib.suppress(Exception):
                await self.storage.mark_seen(list(self.attendance.streams), time.time())


def stored_times(room: GameRoom) -> None:
    """A game read from storage: its players count as seen when it began (when it was
    created, while it waits), on this instance's clock."""
    began = room.meta.get("started_at", room.created_at) if room.status != "waiting" else None
    room.presence.since = on_clock(room.created_at if began is None else float(began))
    room.presence.started = room.presence.since


def answer_given(room: GameRoom, user: User, action_id: str) -> bytes | None:
    """The answer given to an action id already applied, if any (409 if another's)."""
    seen = room.actions.get(action_id)
    if seen is None:
        return None
    if seen[0] != user.id:
        raise ApiError(409, "action_id_taken", "that action id was used by another player")
    return seen[1]


def check_version(room: GameRoom, version: int) -> None:
    """409 unless an action is made against the version the game is at."""
    if version != room.version:
        raise ApiError(
            409, "stale_version", f"the game is at version {room.version}, not {version}",
            version=room.version,
        )


def seated_people(room: GameRoom) -> set[str]:
    """The people seated at a game still to be played out."""
    if room.status == "finished":
        return set()
    return {seat.user_id for seat in room.seats if seat.kind == "person" and seat.user_id}


async def stored_state(storage: Storage, record: GameRecord) -> GameState:
    """The state a stored game is at: its snapshot, then the actions after it replayed, up
    to the record's version (another instance may have stored more since it was read)."""
    state = state_from_dict(record.state)
    if record.snapshot_version == record.version:
        return state
    actions = await storage.get_actions(record.id, after=record.snapshot_version)
    return replay(state, (
        (a.seat, action_from_dict(a.action)) for a in actions if a.version <= record.version
    ))


def spliced_answer(version: int, events: list[StoredEvent], view_json: bytes) -> bytes:
    """An action's answer, spliced from its events' and the view's JSON (encoded once)."""
    return b'{"version":%d,"seq":%d,"events":[%s],"view":%s}' % (
        version, events[-1].seq, b",".join(e.json() for e in events), view_json
    )


def rebuilt_answers(events: list[StoredEvent]) -> dict[int, bytes]:
    """Each version's answer rebuilt from the stored events, byte for byte as first given."""
    by_version: dict[int, list[StoredEvent]] = {}
    for event in events:
        by_version.setdefault(event.data["version"], []).append(event)
    return {
        version: spliced_answer(version, made, orjson.dumps(made[-1].data.get("view")))
        for version, made in by_version.items()
    }


def numbered_events(
    table_events: list[dict[str, Any]], last_seq: int, version: int,
    view: dict[str, Any] | None = None, view_json: bytes | None = None,
) -> list[StoredEvent]:
    """Give events their sequence numbers; the last one carries the view after the change.

    Each is encoded to JSON here, once; `view_json`, if given, is `view` already encoded.
    """
    numbered = []
    for n, event in enumerate(table_events, start=1):
        data: dict[str, Any] = {"seq": last_seq + n, "version": version, "event": event}
        if n == len(table_events) and view is not None:
            raw = orjson.dumps(data)
            data["view"] = view
            if view_json is None:
                view_json = orjson.dumps(view)
            raw = raw[:-1] + b',"view":' + view_json + b"}"
        else:
            raw = orjson.dumps(data)
        numbered.append(StoredEvent(last_seq + n, data, raw))
    return numbered


def rated_game(room: GameRoom, state: GameState) -> RatedGame | None:
    """The rated game that `state` finishes, if it does (two people, chosen rated)."""
    players = [seat.user_id for seat in room.seats if seat.kind == "person" and seat.user_id]
    if not state.over or not room.meta.get("rated") or len(players) != 2:
        return None
    return RatedGame(room.id, (players[0], players[1]), score_of_first(state.winner))
