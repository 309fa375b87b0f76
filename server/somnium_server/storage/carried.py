"""An action's change written into the notice of its commit, and read back from it.

Every instance sharing a PostgreSQL database hears each commit of a game (NOTIFY). A notice
that only named the game and its version made each other instance holding the game read it
back: the game's row, its new events and its new action, three queries per action and
instance. The notice of an action carries the change instead, after the line naming the game:

    <instance> <game id> <version>
    {"status": ..., "seq": ..., "deadline": ..., "action_id": ..., "user_id": ..., "seat": ...,
     "action": {...}}
    <seq> <the event's stored JSON>      (one line per event)

Between snapshots only status, version, seq and deadline change (see GameUpdate). An action
whose commit stored a snapshot (every few actions, and the one that ends the game) may also
set the seats and meta: its first JSON line then holds them too ("seats": [...], "meta":
{...}); the state itself is not sent, since the instance hearing it plays the action on its
own copy. JSON as orjson writes it holds no line break, so lines split it. A notice must stay
under PostgreSQL's 8,000 bytes: a change that would not fit and a change without an action
(a join, a rematch, a seat left) are announced by name only, and read from the database.
"""

from __future__ import annotations

from typing import Any

import orjson

from somnium_server.storage import CarriedChange, GameUpdate, StoredAction, StoredEvent

LIMIT = 7_000  # bytes of the carried part; PostgreSQL refuses a payload of 8,000 or more


def carried(update: GameUpdate) -> str:
    """The change to append to the notice of `update` ("" if it is announced by name only)."""
    record, action = update.record, update.action
    if action is None:
        return ""
    told: dict[str, Any] = {
        "status": record.status, "seq": record.seq, "deadline": record.deadline,
        "action_id": action.action_id, "user_id": action.user_id, "seat": action.seat,
        "action": action.action,
    }
    if record.snapshot_version == record.version:
        told |= {"seats": record.seats, "meta": record.meta}
    head = orjson.dumps(told)
    parts = [b"", head, *(b"%d %s" % (event.seq, event.json()) for event in update.events)]
    text = b"\n".join(parts)
    return text.decode() if len(text) <= LIMIT else ""


def read_carried(text: str, version: int) -> CarriedChange | None:
    """The change a notice of `version` carried after its first line (None if it carried
    none or cannot be read: the game is then read from the database)."""
    if not text:
        return None
    try:
        head_line, *event_lines = text.split("\n")
        head = orjson.loads(head_line)
        events = []
        for line in event_lines:
            seq, _, raw = line.partition(" ")
            events.append(StoredEvent(int(seq), orjson.loads(raw), raw.encode()))
        action = StoredAction(
            str(head["action_id"]), str(head["user_id"]), int(head["seat"]), version,
            dict(head["action"]), b"",
        )
        deadline = head["deadline"]
        seats, meta = head.get("seats"), head.get("meta")
        if (seats is None) != (meta is None):
            return None
        return CarriedChange(
            str(head["status"]), int(head["seq"]),
            None if deadline is None else float(deadline), action, events,
            None if seats is None else [dict(seat) for seat in seats],
            None if meta is None else dict(meta),
        )
    except (ValueError, KeyError, TypeError):
        return None
