"""The operation runner: a late answer is dropped once its generation has moved on."""

from __future__ import annotations

import threading

from pytestqt.qtbot import QtBot

from somnium_desktop.client.errors import ServerUnreachable
from somnium_desktop.client.tasks import Generation, Operations


def test_a_stamp_is_current_until_its_generation_or_an_outer_one_moves_on() -> None:
    server = Generation()
    signin = Generation(within=server)
    stamp = signin.stamp()
    assert stamp.current
    signin.move_on()
    assert not stamp.current
    again = signin.stamp()
    assert again.current
    server.move_on()  # (leaving the server ends its sign-in too)
    assert not again.current
    assert signin.stamp().current


def test_an_answer_whose_owner_moved_on_is_dropped_in_one_place(qtbot: QtBot) -> None:
    ops = Operations()
    generation = Generation()
    release = threading.Event()
    answers: list[object] = []
    try:
        def slow() -> str:
            release.wait(5)
            return "late"

        def failing() -> str:
            release.wait(5)
            raise ServerUnreachable("down")

        ops.run(slow, answers.append, answers.append, owner=generation.stamp())
        ops.run(failing, answers.append, answers.append, owner=generation.stamp())
        generation.move_on()  # (the server was left while they were on their way)
        ops.run(lambda: "fresh", answers.append, answers.append, owner=generation.stamp())
        qtbot.waitUntil(lambda: answers == ["fresh"], timeout=5000)
        release.set()
        assert ops.wait_idle(5)
        qtbot.waitUntil(lambda: not ops.busy, timeout=5000)  # (the late ones came back too)
        assert answers == ["fresh"]
        assert ops.label == ""
    finally:
        release.set()
        ops.close()
        ops.deleteLater()


def test_expected_failures_go_to_on_failure_and_others_are_raised(qtbot: QtBot) -> None:
    ops = Operations()
    failures: list[Exception] = []

    def refuse() -> None:
        raise KeyError("expected here")

    try:
        ops.run(refuse, None, failures.append, expected=(KeyError,))
        qtbot.waitUntil(lambda: len(failures) == 1, timeout=5000)
        assert isinstance(failures[0], KeyError)
        with qtbot.captureExceptions() as raised:
            ops.run(refuse, None, failures.append)  # (only LobbyErrors are expected)
            qtbot.waitUntil(lambda: bool(raised), timeout=5000)
        assert isinstance(raised[0][1], KeyError) and len(failures) == 1
    finally:
        ops.close()
        ops.deleteLater()


def test_an_unexpected_failure_is_told_to_on_unexpected_before_it_is_raised(
    qtbot: QtBot,
) -> None:
    ops = Operations()
    told: list[BaseException] = []

    def broken() -> None:
        raise KeyError("a bug")

    try:
        with qtbot.captureExceptions() as raised:
            ops.run(broken, None, told.append, on_unexpected=told.append)
            qtbot.waitUntil(lambda: bool(raised), timeout=5000)
        assert len(told) == 1 and told[0] is raised[0][1]  # (told once, not as a failure)
    finally:
        ops.close()
        ops.deleteLater()


def test_an_exclusive_operation_runs_one_at_a_time(qtbot: QtBot) -> None:
    ops = Operations()
    release = threading.Event()
    answers: list[str] = []
    def first() -> str:
        release.wait(5)
        return "first"

    try:
        assert ops.run(first, answers.append, exclusive="resync")
        assert ops.running("resync") and not ops.running("claim")
        assert not ops.run(lambda: "second", answers.append, exclusive="resync")
        assert ops.run(lambda: "other", answers.append, exclusive="claim")
        release.set()
        qtbot.waitUntil(lambda: sorted(answers) == ["first", "other"], timeout=5000)
        assert not ops.running("resync")
        assert ops.run(lambda: "again", answers.append, exclusive="resync")
        qtbot.waitUntil(lambda: "again" in answers, timeout=5000)
    finally:
        release.set()
        ops.close()
        ops.deleteLater()
