"""A plain action's change written into the notice of its commit, and read back from it.

Every instance sharing a PostgreSQL database hears each commit of a game (NOTIFY). A notice
that only named the game and its version made each other instance holding the game read it
back: the game's row, its new events and its new action, three queries per action and
instance. The notice of an action between snapshots (only status, version, seq and deadline
change, see GameUpdate) carries the change instead, after the line naming the game:

    <instance> <game id> <version>
    {"status": ..., "seq": ..., "deadline": ..., "action_id": ..., "user_id": ..., "seat": ...,
     "action": {...}}
    <seq> <the event's stored JSON>      (one line per event)

JSON as orjson writes it holds no line break, so lines split it. A notice must stay under
PostgreSQL's 8,000 bytes: a change that would not fit, a snapshot and a change without an
action are announced by name only, and the others read them from the database as before.
"""

from __future__ import annotations

import orjson

from somnium_server.storage import CarriedChange, GameUpdate, StoredAction, StoredEvent

LIMIT = 7_000  # bytes of the carried part; PostgreSQL refuses a payload of 8,000 or more


def carried(update: GameUpdate) -> str:
    """The change to append to the notice of `update` ("" if it is announced by name only)."""
    record, action = update.record, update.action
    if action is None or record.snapshot_version == record.version:
        return ""
    head = orjson.dumps({
        "status": record.status, "seq": record.seq, "deadline": record.deadline,
        "action_id": action.action_id, "user_id": action.user_id, "seat": action.seat,
        "action": action.action,
    })
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
        return CarriedChange(
            str(head["status"]), int(head["seq"]),
            None if deadline is None else float(deadline), action, events,
        )
    except (ValueError, KeyError, TypeError):
        return None
