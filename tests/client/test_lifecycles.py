"""Every transition of online play's lifecycles, and what each ignores."""

from __future__ import annotations

from typing import Any

import pytest

from somnium_desktop.client.lifecycles import (
    CHANGE,
    CONNECTION,
    GOING_BACK,
    LOOKUP,
    SIGN_IN,
    STORE_ACCESS,
    SYNC,
    TABLE_LINK,
    TABLE_PHASE,
    Change,
    ChangeEvent,
    Connection,
    ConnectionEvent,
    GoingBack,
    GoingBackEvent,
    Lookup,
    LookupEvent,
    Machine,
    SignIn,
    SignInEvent,
    StoreAccess,
    StoreEvent,
    Sync,
    SyncEvent,
    TableEvent,
    TableLink,
    TablePhase,
    TablePhaseEvent,
)

C, CE, SI, IE = Connection, ConnectionEvent, SignIn, SignInEvent
T, TE = TableLink, TableEvent
A, AE = StoreAccess, StoreEvent
L, LE, B, BE = Lookup, LookupEvent, GoingBack, GoingBackEvent
Y, YE, G, GE = Sync, SyncEvent, Change, ChangeEvent
P, PE = TablePhase, TablePhaseEvent

# What a player goes through, written out by hand (not read from the tables).
CONNECTION_STEPS: list[tuple[Any, Any, Any]] = [
    (C.NONE, CE.START_BUILT_IN, C.STARTING),
    (C.STARTING, CE.STARTED, C.CONNECTING),
    (C.STARTING, CE.START_FAILED, C.NOT_STARTED),
    (C.NOT_STARTED, CE.START_BUILT_IN, C.STARTING),
    (C.NOT_STARTED, CE.SET_SERVER, C.CONNECTING),
    (C.NOT_STARTED, CE.CLOSE, C.CLOSED),
    (C.NONE, CE.SET_SERVER, C.CONNECTING),
    (C.NONE, CE.REFUSE_ADDRESS, C.BAD_ADDRESS),
    (C.BAD_ADDRESS, CE.SET_SERVER, C.CONNECTING),
    (C.CONNECTING, CE.LISTED, C.ONLINE),
    (C.CONNECTING, CE.LOST, C.DOWN),
    (C.ONLINE, CE.LOST, C.DOWN),
    (C.ONLINE, CE.LISTED, C.ONLINE),
    (C.DOWN, CE.LOST, C.DOWN),
    (C.DOWN, CE.LISTED, C.ONLINE),
    (C.ONLINE, CE.SET_SERVER, C.CONNECTING),
    (C.ONLINE, CE.START_BUILT_IN, C.STARTING),
    (C.DOWN, CE.REFUSE_ADDRESS, C.BAD_ADDRESS),
    (C.ONLINE, CE.CLOSE, C.CLOSED),
    (C.STARTING, CE.CLOSE, C.CLOSED),
    (C.DOWN, CE.REVIVE, C.REVIVING),
    (C.REVIVING, CE.STARTED, C.DOWN),
    (C.REVIVING, CE.START_FAILED, C.DOWN),
    (C.REVIVING, CE.LOST, C.REVIVING),
    (C.REVIVING, CE.LISTED, C.ONLINE),
    (C.REVIVING, CE.SET_SERVER, C.CONNECTING),
]
SIGN_IN_STEPS: list[tuple[Any, Any, Any]] = [
    (SI.SIGNED_OUT, IE.RESTORE, SI.RESTORING),
    (SI.RESTORING, IE.RESTORED, SI.SIGNED_IN),
    (SI.RESTORING, IE.NONE_KEPT, SI.SIGNED_OUT),
    (SI.RESTORING, IE.OPEN_DIALOG, SI.IN_BROWSER),
    (SI.SIGNED_OUT, IE.OPEN_DIALOG, SI.IN_BROWSER),
    (SI.SIGNED_IN, IE.OPEN_DIALOG, SI.IN_BROWSER),
    (SI.IN_BROWSER, IE.CANCELLED, SI.SIGNED_OUT),
    (SI.IN_BROWSER, IE.TOKENS, SI.CONFIRMING),
    (SI.SIGNED_IN, IE.TOKENS, SI.CONFIRMING),
    (SI.SIGNED_OUT, IE.TOKENS, SI.CONFIRMING),
    (SI.CONFIRMING, IE.CONFIRMED, SI.SIGNED_IN),
    (SI.SIGNED_IN, IE.CONFIRMED, SI.SIGNED_IN),
    (SI.CONFIRMING, IE.FAILED, SI.SIGNED_OUT),
    (SI.SIGNED_IN, IE.SIGNED_OUT, SI.SIGNED_OUT),
    (SI.CONFIRMING, IE.SIGNED_OUT, SI.SIGNED_OUT),
    (SI.RESTORING, IE.SIGNED_OUT, SI.SIGNED_OUT),
    (SI.IN_BROWSER, IE.SIGNED_OUT, SI.SIGNED_OUT),
]

TABLE_STEPS: list[tuple[Any, Any, Any]] = [
    (T.OPENING, TE.CONNECTED, T.LIVE),
    (T.OPENING, TE.DROPPED, T.RECONNECTING),
    (T.LIVE, TE.DROPPED, T.RECONNECTING),
    (T.RECONNECTING, TE.DROPPED, T.RECONNECTING),
    (T.RECONNECTING, TE.CONNECTED, T.LIVE),
    (T.LIVE, TE.REOPEN, T.OPENING),
    (T.GIVEN_UP, TE.REOPEN, T.OPENING),
    (T.OPENING, TE.REOPEN, T.OPENING),
    (T.RECONNECTING, TE.REOPEN, T.RECONNECTING),
    (T.OPENING, TE.FAILED, T.GIVEN_UP),
    (T.LIVE, TE.FAILED, T.GIVEN_UP),
    (T.RECONNECTING, TE.FAILED, T.GIVEN_UP),
    (T.LIVE, TE.CLOSE, T.CLOSED),
    (T.GIVEN_UP, TE.CLOSE, T.CLOSED),
]
STORE_STEPS: list[tuple[Any, Any, Any]] = [
    (A.IDLE, AE.LOOK, A.LOOKING),
    (A.LOOKING, AE.LOOK, A.LOOKING_THEN_AGAIN),
    (A.LOOKING_THEN_AGAIN, AE.LOOK, A.LOOKING_THEN_AGAIN),
    (A.LOOKING, AE.LOOKED, A.IDLE),
    (A.LOOKING_THEN_AGAIN, AE.LOOKED, A.IDLE),
    (A.IDLE, AE.WRITE, A.WRITING),
    (A.LOOKING, AE.WRITE, A.WRITING_THEN_LOOK),
    (A.LOOKING_THEN_AGAIN, AE.WRITE, A.WRITING_THEN_LOOK),
    (A.WRITING, AE.WRITE, A.WRITING),
    (A.WRITING_THEN_LOOK, AE.WRITE, A.WRITING_THEN_LOOK),
    (A.WRITING, AE.LOOK, A.WRITING_THEN_LOOK),
    (A.WRITING_THEN_LOOK, AE.LOOK, A.WRITING_THEN_LOOK),
    (A.WRITING, AE.WRITTEN, A.IDLE),
    (A.WRITING_THEN_LOOK, AE.WRITTEN, A.IDLE),
]
LOOKUP_STEPS: list[tuple[Any, Any, Any]] = [
    (L.IDLE, LE.ASK, L.ASKING),
    (L.ASKING, LE.ASK, L.ASKING),  # (asked again while on its way)
    (L.MISSED, LE.ASK, L.ASKING),  # (the lobby is listed again)
    (L.ASKING, LE.ANSWERED, L.IDLE),
    (L.ASKING, LE.UNREACHABLE, L.MISSED),
    (L.IDLE, LE.UNREACHABLE, L.MISSED),  # (an earlier ask, missed after a later one answered)
    (L.MISSED, LE.UNREACHABLE, L.MISSED),
]
GOING_BACK_STEPS: list[tuple[Any, Any, Any]] = [
    (B.MAY, BE.RESTORED, B.NO),
]
CHANGE_STEPS: list[tuple[Any, Any, Any]] = [
    (G.PLAIN, GE.OPPONENT_SEATED, G.SEATED),
    (G.SEATED, GE.OPPONENT_SEATED, G.SEATED),
    (G.BEGUN, GE.OPPONENT_SEATED, G.SEATED_BEGUN),
    (G.SEATED_BEGUN, GE.OPPONENT_SEATED, G.SEATED_BEGUN),
    (G.PLAIN, GE.GAME_STARTED, G.BEGUN),
    (G.BEGUN, GE.GAME_STARTED, G.BEGUN),
    (G.SEATED, GE.GAME_STARTED, G.SEATED_BEGUN),  # (the usual: a second player starts it)
    (G.SEATED_BEGUN, GE.GAME_STARTED, G.SEATED_BEGUN),
    (G.BEGUN, GE.VIEW_SHOWN, G.PLAIN),
    (G.SEATED_BEGUN, GE.VIEW_SHOWN, G.SEATED),  # (your turn may be told: with the opponent)
    (G.SEATED, GE.CHANGE_END, G.PLAIN),
    (G.SEATED_BEGUN, GE.CHANGE_END, G.BEGUN),
    (G.BEGUN, GE.SNAPSHOT, G.PLAIN),
    (G.SEATED_BEGUN, GE.SNAPSHOT, G.SEATED),
]
PHASE_STEPS: list[tuple[Any, Any, Any]] = [
    (P.WAITING, PE.PLAYED, P.PLAYING),
    (P.PLAYING, PE.PLAYED, P.PLAYING),
    (P.WAITING, PE.WATCHED, P.WATCHING),
    (P.WATCHING, PE.WATCHED, P.WATCHING),
    (P.WAITING, PE.ENDED, P.OVER),  # (a finished game opened)
    (P.PLAYING, PE.ENDED, P.OVER),
    (P.WATCHING, PE.ENDED, P.OVER),
    (P.OVER, PE.ENDED, P.OVER),
]
STEPS = (CONNECTION_STEPS + SIGN_IN_STEPS + TABLE_STEPS + STORE_STEPS + LOOKUP_STEPS
         + GOING_BACK_STEPS + CHANGE_STEPS + PHASE_STEPS)
TABLES: dict[type, Any] = {Connection: CONNECTION, SignIn: SIGN_IN, TableLink: TABLE_LINK,
                           StoreAccess: STORE_ACCESS, Lookup: LOOKUP, GoingBack: GOING_BACK,
                           Sync: SYNC, Change: CHANGE, TablePhase: TABLE_PHASE}


@pytest.mark.parametrize(("before", "event", "after"), STEPS)
def test_each_transition(before: Connection | SignIn, event: ConnectionEvent | SignInEvent,
                         after: Connection | SignIn) -> None:
    table = TABLES[type(before)]
    changes: list[tuple[object, object]] = []
    machine: Machine[Any, Any] = Machine(
        "test", table, before, on_change=lambda was, now: changes.append((was, now)))
    assert machine.allows(event)
    assert machine.fire(event)
    assert machine.state is after
    assert changes == ([] if before is after else [(before, after)])


def test_late_or_doubled_events_change_nothing() -> None:
    """What the tables leave out is ignored: a restore's answer after the dialog opened, a
    /me answer after signing out, the lobby listed after the app closed, a second start."""
    cases: list[tuple[Any, Any, Any]] = [
        (SIGN_IN, SI.IN_BROWSER, IE.RESTORED),
        (SIGN_IN, SI.IN_BROWSER, IE.NONE_KEPT),
        (SIGN_IN, SI.SIGNED_OUT, IE.CONFIRMED),
        (SIGN_IN, SI.SIGNED_OUT, IE.RESTORED),
        (SIGN_IN, SI.RESTORING, IE.RESTORE),
        (CONNECTION, C.CLOSED, CE.LISTED),
        (CONNECTION, C.CLOSED, CE.SET_SERVER),
        (CONNECTION, C.CONNECTING, CE.STARTED),
        (CONNECTION, C.BAD_ADDRESS, CE.LISTED),
        (CONNECTION, C.REVIVING, CE.REVIVE),  # (one revival at a time)
        (CONNECTION, C.ONLINE, CE.REVIVE),
        (CONNECTION, C.NOT_STARTED, CE.REVIVE),  # (it is started again on its own delay)
        (CONNECTION, C.NOT_STARTED, CE.STARTED),  # (a start of a server set before)
        (TABLE_LINK, T.CLOSED, TE.CONNECTED),
        (TABLE_LINK, T.CLOSED, TE.REOPEN),
        (TABLE_LINK, T.GIVEN_UP, TE.CONNECTED),
        (STORE_ACCESS, A.WRITING_THEN_LOOK, AE.LOOKED),  # (a look of the sign-in before)
        (STORE_ACCESS, A.WRITING, AE.LOOKED),
        (STORE_ACCESS, A.IDLE, AE.WRITTEN),
        (LOOKUP, L.IDLE, LE.ANSWERED),  # (an answer of before the server was set again)
        (LOOKUP, L.MISSED, LE.ANSWERED),
        (GOING_BACK, B.NO, BE.RESTORED),  # (only the first restore on a server goes back)
        (GOING_BACK, B.WHEN_LISTED, BE.RESTORED),
        (CHANGE, G.PLAIN, GE.VIEW_SHOWN),  # (a view of moves: animated, not a first one)
        (CHANGE, G.SEATED, GE.VIEW_SHOWN),
        (CHANGE, G.PLAIN, GE.CHANGE_END),
        (CHANGE, G.BEGUN, GE.CHANGE_END),  # (begun waits for its view)
        (CHANGE, G.SEATED, GE.SNAPSHOT),  # (a resync within the change keeps who came)
        (TABLE_PHASE, P.EMPTY, PE.PLAYED),  # (a view settling after the table was emptied)
        (TABLE_PHASE, P.EMPTY, PE.ENDED),
        (TABLE_PHASE, P.OVER, PE.PLAYED),  # (a game begins again only by being opened)
        (TABLE_PHASE, P.PLAYING, PE.WATCHED),
        (TABLE_PHASE, P.WATCHING, PE.PLAYED),
    ]
    for table, state, event in cases:
        machine: Machine[Any, Any] = Machine("test", table, state)
        assert not machine.fire(event)
        assert machine.state is state


def test_the_steps_above_are_the_whole_tables() -> None:
    """Every transition a table has is one of the steps tested above, besides the ones that
    every state has alike (closing, setting a server, signing out)."""
    tested = {(b, e): a for b, e, a in STEPS}
    alike = {CE.CLOSE, CE.SET_SERVER, CE.REFUSE_ADDRESS, CE.START_BUILT_IN, IE.SIGNED_OUT,
             TE.CLOSE, LE.RESET, BE.SERVER_SET, BE.NOT_LISTED, BE.DONE, YE.OPENED_BLIND,
             YE.OPENED_AFTER, YE.SNAPSHOT, PE.CLEARED, PE.OPENED}
    for table in TABLES.values():
        for (before, event), after in table.items():
            if event in alike:
                continue
            assert tested.get((before, event)) is after, (before, event)


def test_what_every_state_of_lookups_and_going_back_does_alike() -> None:
    """Another server clears a lookup and may put a game back; the lobby's listing decides."""
    for state in Lookup:
        assert LOOKUP[(state, LE.RESET)] is L.IDLE
    for back in GoingBack:
        assert GOING_BACK[(back, BE.SERVER_SET)] is B.MAY
        assert GOING_BACK[(back, BE.NOT_LISTED)] is B.WHEN_LISTED
        assert GOING_BACK[(back, BE.DONE)] is B.NO


def test_a_game_stream_applies_numbered_events_only_after_a_snapshot() -> None:
    """Opened from the start, it waits for the snapshot; resumed after an event, or once a
    snapshot is applied, it applies the numbered events after it."""
    for state in Sync:
        assert SYNC[(state, YE.OPENED_BLIND)] is Y.BLIND
        assert SYNC[(state, YE.OPENED_AFTER)] is Y.SYNCED
        assert SYNC[(state, YE.SNAPSHOT)] is Y.SYNCED


def test_the_table_is_emptied_or_opened_from_any_phase() -> None:
    for phase in TablePhase:
        assert TABLE_PHASE[(phase, PE.CLEARED)] is P.EMPTY
        assert TABLE_PHASE[(phase, PE.OPENED)] is P.WAITING
