"""The loopback listener and the flow's endings: stray hits, success, error, cancel, timeout."""

from __future__ import annotations

import socket
import threading
from urllib.parse import parse_qs, urlsplit

import pytest
import requests

from somnium_desktop.client.loopback import SIGNED_IN, LoopbackListener, Page
from somnium_desktop.client.signin import (
    SigninCancelled,
    SigninFlow,
    SigninRejected,
    SigninTimedOut,
)


def is_listening(port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(1)
        return probe.connect_ex(("127.0.0.1", port)) == 0


def test_listens_on_loopback_only_with_an_ephemeral_port() -> None:
    with LoopbackListener("s") as listener:
        assert listener.redirect_uri == f"http://127.0.0.1:{listener.port}/callback"
        assert listener.port > 0
        assert listener._server.server_address[0] == "127.0.0.1"


def test_stray_hits_do_not_end_the_wait_and_the_right_one_does() -> None:
    with LoopbackListener("right-state") as listener:
        base = f"http://127.0.0.1:{listener.port}"
        assert requests.get(f"{base}/favicon.ico", timeout=5).status_code == 404
        assert requests.get(f"{base}/", timeout=5).status_code == 404
        assert requests.get(f"{base}/callback/x?state=right-state", timeout=5).status_code == 404
        wrong = requests.get(f"{base}/callback?code=c&state=wrong-state", timeout=5)
        assert wrong.status_code == 400
        assert "not the sign-in" in wrong.text
        assert requests.get(f"{base}/callback?code=c", timeout=5).status_code == 400
        with pytest.raises(TimeoutError):
            listener.wait(0.2)

        answers: list[requests.Response] = []
        browser = threading.Thread(
            target=lambda: answers.append(
                requests.get(f"{base}/callback?code=the-code&state=right-state", timeout=10)
            )
        )
        browser.start()
        callback = listener.wait(5)
        assert callback.code == "the-code" and callback.error is None
        # The browser's page waits until the app says how the exchange went.
        browser.join(0.3)
        assert browser.is_alive()
        listener.finish(SIGNED_IN)
        browser.join(5)
        assert answers[0].status_code == 200
        assert "Signed in — return to Somnium" in answers[0].text
        # A second hit with the same state is not taken.
        again = requests.get(f"{base}/callback?code=other&state=right-state", timeout=5)
        assert again.status_code == 400


def test_close_releases_a_held_browser_request_and_stops_listening() -> None:
    listener = LoopbackListener("s")
    answers: list[requests.Response] = []
    url = f"{listener.redirect_uri}?code=c&state=s"
    browser = threading.Thread(target=lambda: answers.append(requests.get(url, timeout=10)))
    browser.start()
    assert listener.wait(5).code == "c"
    listener.close()
    browser.join(5)
    assert "cancelled" in answers[0].text
    assert not is_listening(listener.port)


class Browser:
    """A stand-in for the system browser: records the URL and visits the loopback in a thread."""

    def __init__(self, query: str | None) -> None:
        self.query = query
        self.urls: list[str] = []
        self.pages: list[requests.Response] = []
        self.thread: threading.Thread | None = None

    def __call__(self, url: str) -> bool:
        self.urls.append(url)
        if self.query is not None:
            params = parse_qs(urlsplit(url).query)
            target = f"{params['redirect_uri'][0]}?{self.query}&state={params['state'][0]}"
            self.thread = threading.Thread(
                target=lambda: self.pages.append(requests.get(target, timeout=10))
            )
            self.thread.start()
        return True


def test_the_authorize_url_carries_state_pkce_s256_and_the_loopback_redirect() -> None:
    flow = SigninFlow("http://127.0.0.1:9", open_browser=Browser(None), timeout=0.1)
    url = urlsplit(flow.start())
    params = {k: v[0] for k, v in parse_qs(url.query).items()}
    assert url.path == "/auth/authorize"
    assert params["response_type"] == "code"
    assert params["code_challenge_method"] == "S256"
    assert len(params["code_challenge"]) == 43
    assert len(params["state"]) >= 32
    assert params["redirect_uri"].startswith("http://127.0.0.1:")
    with pytest.raises(SigninTimedOut):
        flow.run()


def test_an_error_from_the_server_ends_the_flow_shows_it_and_closes() -> None:
    browser = Browser("error=access_denied&error_description=The+player+said+no")
    flow = SigninFlow("http://127.0.0.1:9", open_browser=browser, timeout=10)
    with pytest.raises(SigninRejected) as raised:
        flow.run()
    assert raised.value.error == "access_denied"
    assert browser.thread is not None
    browser.thread.join(5)
    assert browser.pages[0].status_code == 400
    assert "The player said no" in browser.pages[0].text
    assert flow.listener is not None and not is_listening(flow.listener.port)


def test_cancel_ends_the_flow_and_closes_the_listener() -> None:
    flow = SigninFlow("http://127.0.0.1:9", open_browser=Browser(None), timeout=30)
    flow.start()
    outcome: list[BaseException] = []

    def run() -> None:
        try:
            flow.run()
        except BaseException as exc:
            outcome.append(exc)

    worker = threading.Thread(target=run)
    worker.start()
    assert flow.listener is not None
    port = flow.listener.port
    assert is_listening(port)
    flow.cancel()
    worker.join(5)
    assert not worker.is_alive()
    assert isinstance(outcome[0], SigninCancelled)
    assert not is_listening(port)


def test_timeout_ends_the_flow_and_closes_the_listener() -> None:
    flow = SigninFlow("http://127.0.0.1:9", open_browser=Browser(None), timeout=0.3)
    flow.start()
    assert flow.listener is not None
    port = flow.listener.port
    with pytest.raises(SigninTimedOut):
        flow.run()
    assert not is_listening(port)


def test_a_failed_exchange_shows_the_error_page_not_signed_in() -> None:
    # Nothing listens on port 9 (discard): the exchange fails and the browser is told so.
    browser = Browser("code=some-code")
    flow = SigninFlow("http://127.0.0.1:9", open_browser=browser, timeout=10)
    with pytest.raises(Exception, match="could not be reached"):
        flow.run()
    assert browser.thread is not None
    browser.thread.join(5)
    assert "Sign-in failed" in browser.pages[0].text
    assert "Signed in" not in browser.pages[0].text


def test_page_escapes_what_it_shows() -> None:
    assert b"<script>" not in Page("<script>", "<b>", ok=False).render()
