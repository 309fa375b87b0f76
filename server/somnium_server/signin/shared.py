"""What the sign-in routes share: their state (Signin), the name and form rules, OAuth errors."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated
from urllib.parse import parse_qs

from fastapi import Depends, Request
from fastapi.responses import JSONResponse

from somnium_server.api.ratelimit import RateLimiter, client_key
from somnium_server.play import names
from somnium_server.signin import pages
from somnium_server.signin.config import (
    LOCAL_PROVIDER,
    SigninConfig,
    is_loopback_host,
    is_loopback_url,
)
from somnium_server.signin.store import SigninStore
from somnium_server.storage import Storage

if TYPE_CHECKING:
    # Imported when a provider is configured (Authlib and joserfc cost a quarter of the
    # server's start-up, which the app's built-in server, local accounts only, waits for).
    from somnium_server.signin.relying_party import RelyingParty


BROWSER_COOKIE = "somnium_signin"
MAX_NAME = 40
MAX_FORM = 4096
LOCAL_ISSUER = "local"
# Headers a proxy adds to say who it forwards for: their presence refuses local accounts.
FORWARDING_HEADERS = (
    "forwarded", "x-forwarded-for", "x-forwarded-host", "x-forwarded-proto", "x-real-ip",
    "x-client-ip", "x-cluster-client-ip", "true-client-ip", "cf-connecting-ip", "via",
)


@dataclass
class Signin:
    """Everything the sign-in routes share."""

    config: SigninConfig
    local_accounts: bool
    storage: Storage
    store: SigninStore
    parties: dict[str, RelyingParty]
    public_url: str
    listen_host: str
    limiter: RateLimiter

    async def wait(self, request: Request) -> int:
        """Spend one of this client address's sign-in requests: 0, or seconds to wait."""
        return await self.limiter.wait(client_key(request))

    def local_enabled(self, request: Request) -> bool:
        """Local accounts: only when enabled, on a loopback listener and connection, with a
        loopback public URL (or none), and never through a proxy: a request carrying any
        forwarding header may come from anywhere."""
        if (
            not self.local_accounts or not is_loopback_host(self.listen_host)
            or not is_loopback_url(self.public_url)
            or any(name in request.headers for name in FORWARDING_HEADERS)
        ):
            return False
        server = request.scope.get("server") or ("", 0)
        return is_loopback_host(str(server[0]))

    def providers(self, request: Request) -> list[tuple[str, str]]:
        offered = [(p.key, p.display_name) for p in self.config.providers]
        if self.local_enabled(request):
            offered.append((LOCAL_PROVIDER, "Local account"))
        return offered

    def callback_uri(self, request: Request, provider: str) -> str:
        base = self.public_url or str(request.base_url).rstrip("/")
        return f"{base}/auth/callback/{provider}"


def signin_of(request: Request) -> Signin:
    signin: Signin = request.app.state.signin
    return signin


Ctx = Annotated[Signin, Depends(signin_of)]

def clean_name(raw: str) -> str | None:
    """A display name (see names.clean_name): 1-40 characters; None if unusable."""
    return names.clean_name(raw, MAX_NAME)


class OAuthError(Exception):
    """An RFC 6749 section 5.2 error answer."""

    def __init__(
        self, error: str, description: str, status: int = 400, retry_after: int = 0
    ) -> None:
        super().__init__(description)
        self.error = error
        self.description = description
        self.status = status
        self.retry_after = retry_after

    def response(self) -> JSONResponse:
        # RFC 6749's members, plus `message` so that it is the server's ErrorBody too.
        return JSONResponse(
            {"error": self.error, "error_description": self.description,
             "message": self.description},
            status_code=self.status,
            headers={**pages.NO_STORE, "Retry-After": str(self.retry_after)}
            if self.retry_after else pages.NO_STORE,
        )

    @classmethod
    async def unless_allowed(cls, signin: Signin, request: Request) -> None:
        """429 when this client address has used up its sign-in requests."""
        if wait := await signin.wait(request):
            raise cls("rate_limited", f"too many sign-in requests: retry in {wait} s", 429,
                      retry_after=wait)


async def read_form(request: Request, known: frozenset[str]) -> dict[str, str]:
    """A small application/x-www-form-urlencoded body; a known parameter given twice is refused
    (RFC 6749 section 3.2), unknown ones are ignored."""
    if not request.headers.get("content-type", "").startswith(
        "application/x-www-form-urlencoded"
    ):
        raise OAuthError("invalid_request", "send application/x-www-form-urlencoded")
    body = await request.body()
    if len(body) > MAX_FORM:
        raise OAuthError("invalid_request", "the request body is too large")
    try:
        fields = parse_qs(body.decode("utf-8"), keep_blank_values=True, strict_parsing=False)
    except (UnicodeDecodeError, ValueError):
        raise OAuthError("invalid_request", "the body is not a valid form") from None
    repeated = sorted(key for key in known if len(fields.get(key, ())) > 1)
    if repeated:
        raise OAuthError("invalid_request", f"repeated: {', '.join(repeated)}")
    return {key: fields[key][0] for key in known if key in fields}

