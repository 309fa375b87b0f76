"""Online play's sign-in: kept, through the browser, shared with the other windows, out."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, QTimer

from ..client.errors import LobbyError, ServerUnreachable, SignedOut, keyring_answers
from ..client.lifecycles import (
    GoingBackEvent,
    LookupEvent,
    SignIn,
    SignInEvent,
    StoreAccess,
    StoreEvent,
)
from ..client.lobby_client import LobbyClient
from ..client.lobby_records import Account
from ..client.signin_changes import last_change
from .online_base import OnlineBase

if TYPE_CHECKING:
    from ..client.auth_session import AuthSession
    from ..client.credentials import KeyringVerdict, Stored, TokenStore
    from ..client.signin import TokenSet


def _who(client: LobbyClient, auth: AuthSession) -> Account:
    """On a worker: whose sign-in this is; noted beside it for the other windows."""
    account = client.me()
    auth.claim(account.id)
    return account


class SignInPart(OnlineBase):
    """Signing in and out, and following the sign-in that every window shares."""

    def _set_account(self, account: Account | None) -> None:
        before, self.account = self.account, account
        self.panel.set_account(account.display_name if account else None)
        self._show_games()
        if (before.id if before else None) == (account.id if account else None):
            return
        stream = self._stream
        if stream is not None and self.client is not None:  # signed now as someone else
            stream.close()
            self._open_lobby_stream(self._lobby_seen)
        current = self.current
        if current is None or current.closed:
            return
        listed = self.lobby.games.get(current.game_id)
        if account is not None and current.my_seat is None and listed is not None \
                and listed.seat_of(account.id) is not None:
            self._open(current.game_id, listed)  # our own game, opened before: play it
        else:
            current.sign_again()  # (signed out: no longer at the table by this stream)

    def sign_in(self, then: Callable[[], None] | None = None, why: str = "") -> None:
        """Sign in through the browser; then carry on with `then` (what the player asked for)."""
        client = self.client
        if client is None:
            self.panel.show_message("Not connected to a server yet.", error=True)
            return
        if self._waiting():
            return
        if self.signin_dialog is not None and self.signin_dialog.isVisible():
            self.signin_dialog.raise_()
            return
        auth, stores, key = client.auth, self.stores, self.key

        def look() -> tuple[bool, TokenStore | KeyringVerdict]:
            """On a worker (a keyring may take its time, even to say whether it is a secure
            one): is a sign-in kept already (another window's), and the store a new one goes
            in, or why the player must choose one."""
            if auth is not None:
                return False, auth.store
            with keyring_answers("read"):
                kept = stores.existing(key)
                if kept is not None and kept.load() is not None:
                    return True, kept
                return False, kept if kept is not None else stores.for_new(key)

        def seen(found: tuple[bool, TokenStore | KeyringVerdict]) -> None:
            kept, store = found
            if kept:  # signed in meanwhile in another window: that sign-in it is
                self._restore_sign_in(client, key, then)
            else:
                self._sign_in_with(client, store, then, why)

        self.ops.run(look, seen, self._show_error, label="Signing in…",
                     owner=self._server.stamp())

    def _sign_in_with(self, client: LobbyClient, found: TokenStore | KeyringVerdict,
                      then: Callable[[], None] | None, why: str) -> None:
        """Open the sign-in dialog; the tokens it gets go to the store `found`, or, when the
        keyring was found not secure, to the one the player chooses."""
        if self.signin_dialog is not None and self.signin_dialog.isVisible():
            self.signin_dialog.raise_()  # (a second click while the first looked)
            return
        from ..client.credentials import KeyringVerdict

        store = (self.stores.ask(self.key, found, self.window)
                 if isinstance(found, KeyringVerdict) else found)
        if store is None:
            self.panel.show_message(f"Not signed in{why}.")
            return
        from .signin_dialog import SigninDialog

        if self.open_browser is not None:
            dialog = SigninDialog(client.base_url, self.window, open_browser=self.open_browser)
        else:
            dialog = SigninDialog(client.base_url, self.window)
        self._forget_dialog()
        self.signin_dialog = dialog
        self.signing.fire(SignInEvent.OPEN_DIALOG)
        dialog.signed_in.connect(lambda tokens: self._signed_in(client, store, tokens, then))
        dialog.rejected.connect(lambda: self._cancelled(why))
        dialog.open()

    def _sign_in_ended(self) -> None:
        """Signed out (here, in another window, or refused): what was on its way for the
        sign-in is dropped when it answers."""
        self._signin.move_on()
        self.signing.fire(SignInEvent.SIGNED_OUT)

    def _cancelled(self, why: str) -> None:
        self.signing.fire(SignInEvent.CANCELLED)
        self.panel.show_message(f"Sign-in cancelled{why}.")

    def _forget_dialog(self) -> None:
        old, self.signin_dialog = self.signin_dialog, None
        if old is not None:
            old.dispose()  # (once its worker is done: nothing here waits for it)

    def _signed_in(
        self,
        client: LobbyClient,
        store: TokenStore,
        tokens: TokenSet,
        then: Callable[[], None] | None,
    ) -> None:
        if client is not self.client:
            return
        self._signin.move_on()  # (what was on its way for an earlier sign-in is dropped)
        from ..client.auth_session import AuthSession

        auth = client.auth if client.auth is not None else AuthSession(
            client.base_url, store, client.http
        )
        client.auth = auth
        self.signing.fire(SignInEvent.TOKENS)
        owner = self._signin.stamp()

        def known(account: Account) -> None:
            self.signing.fire(SignInEvent.CONFIRMED)
            self._set_account(account)
            self.panel.show_message(f"Signed in as {account.display_name}.")
            if then is not None:
                then()

        def failed(error: LobbyError) -> None:
            self.signing.fire(SignInEvent.FAILED)
            self._show_error(error)

        def kept(_: None) -> None:
            # Dropped if this sign-in ends before /me answers (signed out here or elsewhere).
            self.ops.run(lambda: _who(client, auth), known, failed, label="Signing in…",
                         owner=owner)

        # The tokens go into the store (the keyring) on a worker; a look at the store waits
        # for that (it would find it empty and sign out).
        self.store_access.fire(StoreEvent.WRITE)
        self.ops.run(lambda: auth.adopt(tokens), kept, failed, label="Signing in…",
                     owner=owner, on_done=self._written)

    def _written(self) -> None:
        self._then_look_if(StoreAccess.WRITING_THEN_LOOK, StoreEvent.WRITTEN)

    def sign_out(self) -> None:
        client = self.client
        if client is None or client.auth is None:
            return
        auth, client.auth = client.auth, None
        self._sign_in_ended()
        self._set_account(None)
        self.ops.run(auth.sign_out, lambda _: self.panel.show_message("Signed out."),
                     self._show_error, label="Signing out…")

    # ----- the sign-in shared with the other windows -----
    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.WindowActivate:
            self.check_sign_in()
        return False

    def _check_if_changed(self) -> None:
        """On the timer: look at the sign-in only if some window wrote or cleared one since the
        last look (a marker file; the keyring itself is not asked on a timer)."""
        change = last_change()
        if change != self._seen_change:
            self._seen_change = change
            self.check_sign_in()

    def check_sign_in(self) -> None:
        """Follow the sign-in kept for this server, which every Somnium window of this user
        shares: signed out in another window signs out here; signed in there (as anyone)
        signs in here as the same account."""
        client = self.client
        if client is None or self._closed:
            return
        if self.store_access.state is not StoreAccess.IDLE:
            self.store_access.fire(StoreEvent.LOOK)  # one at a time: another once it is done
            return
        auth, stores, key = client.auth, self.stores, self.key
        if auth is None and self.account is None and not self._after_lobby_done:
            return  # (the kept sign-in is being restored)

        def look() -> Stored | None:
            """On a worker: what the store holds now."""
            from ..client.credentials import Stored

            with keyring_answers("read"):
                store = auth.store if auth is not None else stores.existing(key)
                return Stored.read(store) if store is not None else None

        def seen(stored: Stored | None) -> None:
            if client.auth is not auth:
                return
            if auth is not None and stored is None:
                client.auth = None
                self._sign_in_ended()
                self._set_account(None)
                self.panel.show_message("Signed out (in another Somnium window).")
            elif auth is not None and stored is not None and stored.user_id is not None \
                    and self.account is not None and stored.user_id != self.account.id:
                auth.forget_access()  # its access token is the old account's
                self.ops.run(lambda: _who(client, auth), self._now_signed_in_as,
                             self._show_error, label="Signing in…",
                             owner=self._signin.stamp())
            elif auth is None and stored is not None and self.account is None:
                self._restore_sign_in(client, key)

        self.store_access.fire(StoreEvent.LOOK)
        self.ops.run(look, seen, lambda error: None, quiet=True, owner=self._server.stamp(),
                     on_done=self._looked)

    def _looked(self) -> None:
        self._then_look_if(StoreAccess.LOOKING_THEN_AGAIN, StoreEvent.LOOKED)

    def _then_look_if(self, waiting: StoreAccess, event: StoreEvent) -> None:
        """Take `event`; if a look was waiting (`waiting`), it starts now."""
        again = self.store_access.state is waiting
        if self.store_access.fire(event) and again:
            QTimer.singleShot(0, self, self.check_sign_in)  # (after this look is acted on)

    def _now_signed_in_as(self, account: Account) -> None:
        self._set_account(account)
        self.panel.show_message(
            f"Signed in as {account.display_name} (signed in in another Somnium window).")

    def _signed_in_then(self, action: Callable[[], None], why: str) -> None:
        """Run `action` now if signed in, else after signing in."""
        if self.account is not None and self.client is not None and self.client.auth:
            action()
        else:
            self.sign_in(then=action, why=why)

    def _restore_sign_in(
        self, client: LobbyClient, key: str, then: Callable[[], None] | None = None,
        again: bool = False,
    ) -> None:
        """A sign-in kept from before (in the keyring, say), and who it is."""
        if self.signing.state is SignIn.RESTORING:  # (what was asked waits for the one going)
            if then is not None:
                self._then_restored.append(then)
            return
        self.signing.fire(SignInEvent.RESTORE)
        stores, signin = self.stores, self._signin.stamp()
        base, http = client.base_url, client.http

        def restore() -> tuple[AuthSession | None, Account | None]:
            """On a worker: a sign-in kept from before, and who it is."""
            from ..client.auth_session import AuthSession

            with keyring_answers("read"):
                store = stores.existing(key)
                if store is None or store.load() is None:
                    return None, None
            auth = AuthSession(base, store, http)
            try:
                return auth, _who(LobbyClient(base, auth, http), auth)
            except SignedOut:
                return None, None

        def restored(found: tuple[AuthSession | None, Account | None]) -> None:
            self.signing.fire(SignInEvent.NONE_KEPT if found[1] is None else
                              SignInEvent.RESTORED)
            waiting = [then] if then is not None else []
            waiting += self._then_restored
            self._then_restored = []
            self.restore_lookup.fire(LookupEvent.ANSWERED)
            back = self.going_back.fire(GoingBackEvent.RESTORED)
            if signin.current and client.auth is None and not self.account:
                client.auth, account = found
                if client.auth is not None:
                    self._signin.move_on()
                self._set_account(account)
                if account is not None and waiting:
                    self.panel.show_message(f"Signed in as {account.display_name} "
                                            "(the sign-in of your other Somnium window).")
                elif account is not None and back:
                    self._back_to_game()
            if waiting and self.account is not None:
                for asked in waiting:
                    asked()
            elif waiting:
                self.panel.show_message("Not signed in: sign in, then try again.", error=True)

        def failed(error: LobbyError) -> None:
            self.signing.fire(SignInEvent.NONE_KEPT)
            if not isinstance(error, ServerUnreachable):
                self.restore_lookup.fire(LookupEvent.ANSWERED)
            else:  # (what was asked waits for the retry)
                self.restore_lookup.fire(LookupEvent.UNREACHABLE)  # (again once listed)
                if not self._online:  # (the lobby's line says the server cannot be reached)
                    if then is not None:
                        self._then_restored.append(then)
                    return
                if not again:  # it came back while this was on its way
                    self._lookup_again(
                        lambda: self._restore_sign_in(client, key, then, again=True))
                    return
            self._then_restored = []
            self._show_error(error)

        def broke(error: BaseException) -> None:
            """The restore failed in a way the app did not foresee (the error dialog shows
            it): it is over all the same, so that Sign in can start another."""
            failed(LobbyError("The kept sign-in could not be restored "
                              f"({type(error).__name__}): sign in again."))

        self.restore_lookup.fire(LookupEvent.ASK)
        self.ops.run(restore, restored, failed, label="Signing in…", owner=self._server.stamp(),
                     on_unexpected=broke)

    def _lost_sign_in(self) -> None:
        client = self.client
        if client is not None:
            client.auth = None
        self._sign_in_ended()
        self._set_account(None)
        self.panel.show_message("You are signed out: sign in again to play on.", error=True)
