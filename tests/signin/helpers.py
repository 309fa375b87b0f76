"""Sign-in test helpers: a lobby on uvicorn, a browser made of requests, the provider process."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import threading
from dataclasses import dataclass, field, replace
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urljoin, urlsplit

import keyring.backend
import requests
from keyring.backends import fail
from keyrings.alt.file import PlaintextKeyring

from somnium_desktop.client.auth_session import AuthSession
from somnium_desktop.client.credentials import MemoryStore
from somnium_desktop.client.lobby_client import LobbyClient
from somnium_desktop.client.signin import SigninFlow
from somnium_server.config import Settings
from somnium_server.signin.config import ProviderConfig, SigninConfig

from ..conftest import Database
from ..server.helpers import LiveServer, on

# The lobby server's own test server: real uvicorn on 127.0.0.1 and a free port.
LiveLobby = LiveServer

OIDC_DIR = Path(__file__).resolve().parent.parent / "oidc"
CLIENT_ID = "somnium-lobby"
CLIENT_SECRET = "lobby-secret-for-the-sign-in-tests-0123456789"
TIMEOUT = 10.0


def lobby_settings(database: Database, *providers: ProviderConfig, **changes: Any) -> Settings:
    signin_changes = {k: changes.pop(k) for k in list(changes) if k.endswith("_seconds")}
    base = on(database, Settings(
        host="127.0.0.1", port=0, access_log=False, log_level="warning",
        signin=SigninConfig(providers=tuple(providers), **signin_changes),
    ))
    return replace(base, **changes)


def provider_config(issuer: str, key: str = "test", name: str = "Test OP") -> ProviderConfig:
    return ProviderConfig(key=key, display_name=name, issuer=issuer, client_id=CLIENT_ID,
                          client_secret=CLIENT_SECRET)


# --- A browser made of requests ----------------------------------------------------------------


@dataclass
class Form:
    action: str
    method: str
    fields: dict[str, str] = field(default_factory=dict)


class _Forms(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.forms: list[Form] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "form":
            self.forms.append(Form(a.get("action", ""), a.get("method", "get").lower()))
        elif tag == "input" and self.forms and a.get("name"):
            self.forms[-1].fields[a["name"]] = a.get("value", "")


def forms(page: requests.Response) -> list[Form]:
    parser = _Forms()
    parser.feed(page.text)
    for form in parser.forms:
        form.action = urljoin(page.url, form.action)
    return parser.forms


class Person:
    """Plays the system browser: follows redirects, fills the provider's login and consent forms.

    `choose` picks a provider on the lobby's choice page; `local_name` fills the local account
    form. `stop_at_app` keeps the final redirect to the app's loopback address instead of
    following it (for tests that exchange the code themselves); `tamper` may rewrite a URL
    before the browser follows it.
    """

    def __init__(
        self,
        login: str = "alice",
        choose: str | None = None,
        local_name: str | None = None,
        stop_at_app: bool = False,
        tamper: Any = None,
    ) -> None:
        self.login = login
        self.choose = choose
        self.local_name = local_name
        self.stop_at_app = stop_at_app
        self.tamper = tamper
        self.http = requests.Session()
        self.pages: list[requests.Response] = []
        self.app_redirect: str | None = None
        self.final: requests.Response | None = None
        self.error: BaseException | None = None
        self.thread: threading.Thread | None = None

    # As SigninFlow's open_browser hook: like a real browser, it returns at once.
    def __call__(self, url: str) -> bool:
        self.thread = threading.Thread(target=self._walk_safely, args=(url,), daemon=True)
        self.thread.start()
        return True

    def join(self) -> None:
        if self.thread is not None:
            self.thread.join(TIMEOUT * 2)
        if self.error is not None:
            raise self.error

    def _walk_safely(self, url: str) -> None:
        try:
            self.walk(url)
        except BaseException as exc:
            self.error = exc

    def _follow(
        self, method: str, url: str, data: dict[str, str] | None = None
    ) -> requests.Response | None:
        """A request and its redirects; the app's loopback address ends the walk."""
        for _ in range(20):
            if self.tamper is not None:
                url = self.tamper(url)
            if urlsplit(url).path == "/callback":
                self.app_redirect = url
                if self.stop_at_app:
                    return None
                # Like a browser: this waits until the app has finished the exchange.
                self.final = self.http.get(url, timeout=TIMEOUT * 2)
                return None
            response = self.http.request(method, url, data=data, allow_redirects=False,
                                         timeout=TIMEOUT * 2)
            self.pages.append(response)
            if response.status_code not in (301, 302, 303, 307, 308):
                return response
            url = urljoin(url, response.headers["Location"])
            method, data = "GET", None
        raise RuntimeError("too many redirects")

    def walk(self, url: str) -> requests.Response | None:
        """Go through the pages from `url`; the last page seen, None once at the app."""
        page = self._follow("GET", url)
        for _ in range(6):
            if page is None:
                return None
            if self.choose is not None and "Sign in with:" in page.text:
                link = re.search(rf"href='([^']*/auth/login/{self.choose}\?[^']*)'", page.text)
                assert link, page.text
                page = self._follow("GET", urljoin(page.url, link.group(1).replace("&amp;", "&")))
                continue
            found = forms(page) if page.status_code == 200 else []
            if not found:
                return page
            form = found[0]
            if "login" in form.fields:
                form.fields.update(login=self.login, password="any-password")
            if form.action.endswith("/auth/local"):
                form.fields["name"] = self.local_name or self.login
            page = self._follow("POST", form.action, form.fields)
        raise RuntimeError("the sign-in pages went on and on")


def local_client(base: str, name: str) -> LobbyClient:
    """A lobby client signed in with a local account of `name`, the way the app signs in."""
    person = Person(local_name=name)
    tokens = SigninFlow(base, open_browser=person, timeout=20).run()
    person.join()
    auth = AuthSession(base, MemoryStore())
    auth.adopt(tokens)
    return LobbyClient(base, auth)


AUTHORIZE = {
    "client_id": "somnium-desktop", "redirect_uri": "http://127.0.0.1:5999/callback",
    "state": "s1", "response_type": "code", "code_challenge": "c" * 43,
    "code_challenge_method": "S256",
}


def local_offered(base: str, headers: dict[str, str] | None = None) -> bool:
    """Whether this server offers local accounts to a browser sending `headers`: the one
    provider's name page, rather than a redirect back (no provider left) or a 404."""
    started = requests.get(f"{base}/auth/authorize", params=AUTHORIZE, headers=headers,
                           allow_redirects=False, timeout=10)
    posted = requests.post(f"{base}/auth/local", data={"request": "x", "name": "Eve"},
                           headers=headers, timeout=10)
    if started.status_code == 200 and "name='name'" in started.text:
        assert posted.status_code != 404  # (an unknown request: the expired page)
        return True
    assert started.status_code == 302 and "temporarily_unavailable" in started.headers["location"]
    assert posted.status_code == 404 and "not offered" in posted.text
    return False


def query_of(url: str) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(url).query).items()}


# --- The OpenID provider process -----------------------------------------------------------------


def ensure_node_modules() -> None:
    """Install the provider's npm packages (as .ci/run does) when they are missing."""
    if (OIDC_DIR / "node_modules" / "oidc-provider").is_dir():
        return
    npm = shutil.which("npm")
    if npm is None:
        raise RuntimeError("npm is needed for the sign-in tests (.ci/run installs it)")
    subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--prefix", str(OIDC_DIR)],
                   check=True, capture_output=True, timeout=300)


class OidcProvider:
    """panva's oidc-provider on 127.0.0.1, our lobby registered as a confidential client."""

    def __init__(self) -> None:
        ensure_node_modules()
        env = {
            **os.environ,
            "OIDC_CLIENT_ID": CLIENT_ID,
            "OIDC_CLIENT_SECRET": CLIENT_SECRET,
            # Loopback redirect URIs registered without a port match any port (RFC 8252).
            "OIDC_REDIRECT_URIS": "http://127.0.0.1/auth/callback/test",
        }
        self.process = subprocess.Popen(
            ["node", str(OIDC_DIR / "provider.mjs")], cwd=OIDC_DIR, env=env,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        )
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            self.stop()
            raise RuntimeError("the OpenID provider did not start")
        self.issuer: str = json.loads(line)["issuer"]

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(TIMEOUT)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(TIMEOUT)
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None:
                stream.close()


def fail_keyring() -> keyring.backend.KeyringBackend:
    """What keyring picks with no Secret Service and nothing else installed."""
    return fail.Keyring()  # type: ignore[no-untyped-call]


class TrustedFileKeyring(PlaintextKeyring):  # type: ignore[misc]
    """The same file backend ranked as an OS keyring is (priority >= 1)."""

    priority = 5


def file_keyring(directory: Path, trusted: bool = False) -> keyring.backend.KeyringBackend:
    """keyrings.alt's file backend writing into a temporary directory."""
    backend = TrustedFileKeyring() if trusted else PlaintextKeyring()
    backend.file_path = str(directory / "keyring.cfg")
    return backend
