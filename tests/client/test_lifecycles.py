"""Every transition of online play's connection and sign-in, and what each ignores."""

from __future__ import annotations

from typing import Any

import pytest

from somnium_desktop.client.lifecycles import (
    CONNECTION,
    SIGN_IN,
    Connection,
    ConnectionEvent,
    Machine,
    SignIn,
    SignInEvent,
)

C, CE, SI, IE = Connection, ConnectionEvent, SignIn, SignInEvent

# What a player goes through, written out by hand (not read from the tables).
CONNECTION_STEPS: list[tuple[Any, Any, Any]] = [
    (C.NONE, CE.START_BUILT_IN, C.STARTING),
    (C.STARTING, CE.STARTED, C.CONNECTING),
    (C.STARTING, CE.START_FAILED, C.DOWN),
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


@pytest.mark.parametrize(("before", "event", "after"), CONNECTION_STEPS + SIGN_IN_STEPS)
def test_each_transition(before: Connection | SignIn, event: ConnectionEvent | SignInEvent,
                         after: Connection | SignIn) -> None:
    table: Any = CONNECTION if isinstance(before, Connection) else SIGN_IN
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
    ]
    for table, state, event in cases:
        machine: Machine[Any, Any] = Machine("test", table, state)
        assert not machine.fire(event)
        assert machine.state is state


def test_the_steps_above_are_the_whole_tables() -> None:
    """Every transition a table has is one of the steps tested above, besides the ones that
    every state has alike (closing, setting a server, signing out)."""
    tested = {(b, e): a for b, e, a in CONNECTION_STEPS + SIGN_IN_STEPS}
    alike = {CE.CLOSE, CE.SET_SERVER, CE.REFUSE_ADDRESS, CE.START_BUILT_IN, IE.SIGNED_OUT}
    tables: list[dict[Any, Any]] = [CONNECTION, SIGN_IN]
    for table in tables:
        for (before, event), after in table.items():
            if event in alike:
                continue
            assert tested.get((before, event)) is after, (before, event)
