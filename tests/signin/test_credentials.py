"""The refresh token's store: a real file keyring backend, and the no-secure-keyring path."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from somnium_desktop.client.credentials import (
    SERVICE,
    KeyringStore,
    MemoryStore,
    NeedsChoice,
    Persistence,
    PlaintextFileStore,
    assess_keyring,
    store_for,
)

from .helpers import fail_keyring, file_keyring

SERVER = "http://127.0.0.1:8765"


def test_the_keyring_store_keeps_one_token_per_server(tmp_path: Path) -> None:
    backend = file_keyring(tmp_path)
    one = KeyringStore(SERVER, backend)
    other = KeyringStore("http://127.0.0.1:9999", backend)
    assert one.load() is None
    one.save("refresh-1")
    other.save("refresh-2")
    # A new store over the same backend (an app restart) finds it again.
    assert KeyringStore(SERVER, file_keyring(tmp_path)).load() == "refresh-1"
    assert backend.get_password(SERVICE, SERVER) == "refresh-1"
    one.save("refresh-1b")
    assert one.load() == "refresh-1b"
    one.clear()
    one.clear()  # Clearing twice is fine.
    assert one.load() is None
    assert other.load() == "refresh-2"


def test_a_secure_backend_is_used_directly(tmp_path: Path) -> None:
    backend = file_keyring(tmp_path, trusted=True)
    assert assess_keyring(backend).secure
    store = store_for(SERVER, backend)
    assert isinstance(store, KeyringStore)
    store.save("tok")
    assert (tmp_path / "keyring.cfg").exists()


def test_the_fail_backend_needs_a_choice_and_writes_nothing(tmp_path: Path) -> None:
    backend = fail_keyring()
    verdict = assess_keyring(backend)
    assert not verdict.secure
    assert "No system keyring" in verdict.reason
    with pytest.raises(NeedsChoice) as needs:
        store_for(SERVER, backend, plaintext_path=tmp_path / "creds.json")
    assert needs.value.verdict == verdict
    session = store_for(SERVER, backend, Persistence.SESSION_ONLY, tmp_path / "creds.json")
    assert isinstance(session, MemoryStore)
    session.save("tok")
    assert session.load() == "tok"
    assert list(tmp_path.iterdir()) == []


def test_a_plaintext_backend_is_not_secure_and_is_not_used(tmp_path: Path) -> None:
    backend = file_keyring(tmp_path)
    verdict = assess_keyring(backend)
    assert not verdict.secure
    assert "plain text" in verdict.reason and "PlaintextKeyring" in verdict.reason
    with pytest.raises(NeedsChoice):
        store_for(SERVER, backend)
    session = store_for(SERVER, backend, Persistence.SESSION_ONLY)
    session.save("tok")
    assert list(tmp_path.iterdir()) == []


def test_the_plaintext_file_is_an_explicit_opt_in_readable_by_the_user_only(
    tmp_path: Path,
) -> None:
    path = tmp_path / "config" / "credentials.json"
    store = store_for(SERVER, fail_keyring(), Persistence.PLAINTEXT_FILE, path)
    assert isinstance(store, PlaintextFileStore)
    assert not path.exists()
    store.save("tok-1")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    other = PlaintextFileStore("http://other", path)
    other.save("tok-2")
    assert PlaintextFileStore(SERVER, path).load() == "tok-1"
    store.clear()
    assert store.load() is None
    assert other.load() == "tok-2"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
