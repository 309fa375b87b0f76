"""Sign-in endpoints: the browser flow (/auth/authorize, provider choice, provider callback) and
the app's token endpoints (/auth/token, /auth/revoke), plus renaming oneself (PATCH /me)."""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any
from urllib.parse import parse_qs, urlencode

from fastapi import APIRouter, Depends, FastAPI, Path, Query, Request
from fastapi.responses import JSONResponse, RedirectResponse, Response
from pydantic import BaseModel, Field, StringConstraints

from somnium_server.api.errors import ApiError, ErrorBody, responses
from somnium_server.api.models import Strict, UserInfo
from somnium_server.api.ratelimit import RateLimiter, buckets_for
from somnium_server.config import Settings
from somnium_server.context import current_user
from somnium_server.play import names
from somnium_server.signin import pages
from somnium_server.signin.config import (
    LOCAL_PROVIDER,
    SigninConfig,
    check_local_accounts,
    is_loopback_host,
    is_loopback_url,
)
from somnium_server.signin.native_client import (
    CLIENT_ID,
    pkce_matches,
    redirect_uri_problem,
    valid_challenge,
)
from somnium_server.signin.sessions import hash_token, issue_session
from somnium_server.signin.store import SigninStore, digest, new_secret
from somnium_server.storage import (
    AuthRequest,
    CodeGrant,
    Identity,
    PendingLogin,
    Refresh,
    Storage,
    User,
)

if TYPE_CHECKING:
    # Imported when a provider is configured (Authlib and joserfc cost a quarter of the
    # server's start-up, which the app's built-in server, local accounts only, waits for).
    from somnium_server.signin.relying_party import RelyingParty

log = logging.getLogger(__name__)

BROWSER_COOKIE = "somnium_signin"
MAX_NAME = 40
MAX_FORM = 4096
LOCAL_ISSUER = "local"
# Headers a proxy adds to say who it forwards for: their presence refuses local accounts.
FORWARDING_HEADERS = (
    "forwarded", "x-forwarded-for", "x-forwarded-host", "x-forwarded-proto", "x-real-ip",
    "x-client-ip", "x-cluster-client-ip", "true-client-ip", "cf-connecting-ip", "via",
)

router = APIRouter(tags=["sign-in"])


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
        return await self.limiter.wait(request.client.host if request.client else "unknown")

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


def install(app: FastAPI, settings: Settings, storage: Storage) -> Signin:
    """Add the sign-in routes to an app; refuses local accounts on a non-loopback listener.

    What sign-in keeps goes to `storage`, the server's one storage.
    """
    check_local_accounts(settings.local_accounts, settings.host, settings.public_url)
    parties: dict[str, RelyingParty] = {}
    if settings.signin.providers:
        from somnium_server.signin.relying_party import RelyingParty

        parties = {p.key: RelyingParty(p) for p in settings.signin.providers}
    signin = Signin(
        config=settings.signin, local_accounts=settings.local_accounts, storage=storage,
        store=SigninStore(storage),
        parties=parties,
        public_url=settings.public_url.rstrip("/"), listen_host=settings.host,
        limiter=RateLimiter("sign-in", settings.rate_signin, buckets_for(storage)),
    )
    app.state.signin = signin
    # the routes themselves, as the lobby's are (app.py): an included router is one opaque
    # entry, which the 405 handler's Allow header cannot see into
    app.router.routes.extend(router.routes)
    return signin


def _signin(request: Request) -> Signin:
    signin: Signin = request.app.state.signin
    return signin


Ctx = Annotated[Signin, Depends(_signin)]

# ---------------------------------------------------------------------------------------------
# The browser side.

# The browser routes are pages and redirects for a person, not part of the JSON API: they are
# left out of the OpenAPI description and documented in docs/providers.md.
BROWSER_ROUTE: dict[str, Any] = {"response_class": Response, "include_in_schema": False}



def _to_app(req: AuthRequest, **params: str) -> RedirectResponse:
    """Back to the app's loopback listener with its state."""
    query = urlencode({**params, "state": req.app_state})
    return RedirectResponse(f"{req.redirect_uri}?{query}", status_code=302, headers=pages.NO_STORE)


def _browser_matches(request: Request, req: AuthRequest) -> bool:
    cookie = request.cookies.get(BROWSER_COOKIE, "")
    return bool(cookie) and secrets.compare_digest(digest(cookie), req.browser_hash)


async def _request_of_this_browser(
    request: Request, signin: Signin, request_id: str
) -> AuthRequest | None:
    """A sign-in under way, if it is still open and this browser started it."""
    req = await signin.store.get_request(request_id)
    return req if req is not None and _browser_matches(request, req) else None


def _slow_down_page(wait: int) -> Response:
    page = pages.error_page(
        f"Too many sign-in requests from this address: try again in {wait} s.", 429
    )
    page.headers["Retry-After"] = str(wait)
    return page


EXPIRED_PAGE_TEXT = (
    "This sign-in has expired or belongs to another browser: start again from Somnium."
)


@router.get(
    "/auth/authorize",
    summary="Start a sign-in in the browser (OAuth 2.0 authorization endpoint, RFC 8252 + 7636)",
    **BROWSER_ROUTE,
)
async def authorize(
    request: Request,
    signin: Ctx,
    client_id: Annotated[str, Query(max_length=64)] = "",
    redirect_uri: Annotated[str, Query(max_length=256)] = "",
    state: Annotated[str, Query(max_length=512)] = "",
    response_type: Annotated[str, Query(max_length=32)] = "",
    code_challenge: Annotated[str, Query(max_length=128)] = "",
    code_challenge_method: Annotated[str, Query(max_length=16)] = "",
    provider: Annotated[str | None, Query(max_length=32)] = None,
) -> Response:
    if wait := await signin.wait(request):
        return _slow_down_page(wait)
    # Until client and redirect_uri are known good, nothing is ever redirected anywhere.
    if client_id != CLIENT_ID:
        return pages.error_page(f"Unknown client {client_id!r}: only the Somnium app signs in.")
    problem = redirect_uri_problem(redirect_uri)
    if problem:
        return pages.error_page(f"Refused: {problem}.")
    if not state:
        return pages.error_page("Refused: the request has no state.")
    if response_type != "code":
        return _to_app_raw(redirect_uri, state, "unsupported_response_type",
                           "only response_type=code is supported")
    if code_challenge_method != "S256" or not valid_challenge(code_challenge):
        return _to_app_raw(redirect_uri, state, "invalid_request",
                           "a PKCE code_challenge with code_challenge_method=S256 is required")
    offered = signin.providers(request)
    if not offered:
        return _to_app_raw(redirect_uri, state, "temporarily_unavailable",
                           "this server has no sign-in provider configured")
    browser = new_secret()
    req = AuthRequest(
        id=new_secret(), browser_hash=digest(browser), client_id=client_id,
        redirect_uri=redirect_uri, app_state=state, code_challenge=code_challenge,
        expires_at=time.time() + signin.config.login_seconds,
    )
    await signin.store.add_request(req)
    keys = [key for key, _ in offered]
    if provider in keys or len(keys) == 1:
        response = await _start_login(request, signin, req, provider or keys[0])
    else:
        response = pages.choice_page(req.id, offered)
    response.set_cookie(
        BROWSER_COOKIE, browser, max_age=signin.config.login_seconds, path="/auth",
        httponly=True, samesite="lax", secure=request.url.scheme == "https",
    )
    return response


def _to_app_raw(redirect_uri: str, state: str, error: str, description: str) -> RedirectResponse:
    query = urlencode({"error": error, "error_description": description, "state": state})
    return RedirectResponse(f"{redirect_uri}?{query}", status_code=302, headers=pages.NO_STORE)


async def _start_login(
    request: Request, signin: Signin, req: AuthRequest, provider: str
) -> Response:
    if provider == LOCAL_PROVIDER:
        return pages.local_name_page(req.id)
    from somnium_server.signin.relying_party import ProviderError

    party = signin.parties[provider]
    try:
        login = await asyncio.to_thread(party.begin, signin.callback_uri(request, provider))
    except ProviderError as error:
        log.warning("sign-in: %s", error)
        await signin.store.drop_request(req.id)
        return _to_app(req, error="temporarily_unavailable",
                       error_description=f"{party.config.display_name} cannot be reached")
    await signin.store.send_to_provider(
        req.id, provider, login.state, login.nonce, login.code_verifier
    )
    return RedirectResponse(login.url, status_code=302, headers=pages.NO_STORE)


@router.get(
    "/auth/login/{provider}",
    summary="The person chose a provider on the choice page",
    **BROWSER_ROUTE,
)
async def choose_provider(
    request: Request,
    signin: Ctx,
    provider: Annotated[str, Path(max_length=32)],
    request_id: Annotated[str, Query(alias="request", max_length=64)] = "",
) -> Response:
    if wait := await signin.wait(request):
        return _slow_down_page(wait)
    req = await _request_of_this_browser(request, signin, request_id)
    if req is None:
        return pages.error_page(EXPIRED_PAGE_TEXT)
    if provider not in {key for key, _ in signin.providers(request)}:
        return pages.error_page(f"No sign-in provider {provider!r} here.", 404)
    return await _start_login(request, signin, req, provider)


@router.get(
    "/auth/callback/{provider}",
    summary="Where the OpenID provider sends the person back (our redirect URI there)",
    **BROWSER_ROUTE,
)
async def provider_callback(
    request: Request,
    signin: Ctx,
    provider: Annotated[str, Path(max_length=32)],
    state: Annotated[str, Query(max_length=512)] = "",
    code: Annotated[str, Query(max_length=2048)] = "",
    error: Annotated[str, Query(max_length=128)] = "",
    error_description: Annotated[str, Query(max_length=512)] = "",
) -> Response:
    if wait := await signin.wait(request):
        return _slow_down_page(wait)
    # Our own state toward the provider: single use, and it must come back to the same browser.
    pending = await signin.store.take_login(state) if state else None
    if pending is None or pending.provider != provider or provider not in signin.parties:
        return pages.error_page("This sign-in is unknown, expired or already used (state "
                                "mismatch): start again from Somnium.")
    req = pending.request
    if not _browser_matches(request, req):
        return pages.error_page("This sign-in was started in another browser.")
    if error or not code:
        return _to_app(req, error="access_denied",
                       error_description=f"the provider said: {error_description or error}"
                       if error else "the provider sent no code")
    from somnium_server.signin.relying_party import ProviderError, ProviderLogin

    party = signin.parties[provider]
    login = ProviderLogin(url="", state=state, nonce=pending.nonce,
                          code_verifier=pending.code_verifier)
    try:
        identity = await asyncio.to_thread(
            party.finish, signin.callback_uri(request, provider), code, login
        )
    except ProviderError as refused:
        log.warning("sign-in refused: %s", refused)
        return _to_app(req, error="access_denied", error_description=str(refused))
    user = await _user_for(signin.storage, identity.issuer, identity.subject,
                           identity.name or "Player")
    return await _issue_code(signin, pending, user)


@router.post(
    "/auth/local",
    summary="Sign in with a local account: a name only (loopback servers that enable it)",
    **BROWSER_ROUTE,
)
async def local_account(request: Request, signin: Ctx) -> Response:
    if wait := await signin.wait(request):
        return _slow_down_page(wait)
    if not signin.local_enabled(request):
        return pages.error_page("Local accounts are not offered by this server.", 404)
    try:
        form = await _form(request, frozenset({"request", "name"}))
    except OAuthError as error:
        return pages.error_page(error.description)
    req = await _request_of_this_browser(request, signin, form.get("request", ""))
    if req is None:
        return pages.error_page(EXPIRED_PAGE_TEXT)
    name = clean_name(form.get("name", ""))
    if name is None:
        return pages.local_name_page(req.id, f"A name is 1 to {MAX_NAME} printable characters.",
                                     400)
    await signin.store.drop_request(req.id)
    user = await _user_for(signin.storage, LOCAL_ISSUER, name.casefold(), name)
    return await _issue_code(signin, PendingLogin(req, LOCAL_PROVIDER, "", ""), user)


def clean_name(raw: str) -> str | None:
    """A display name (see names.clean_name): 1-40 characters; None if unusable."""
    return names.clean_name(raw, MAX_NAME)


async def _user_for(storage: Storage, issuer: str, subject: str, name: str) -> User:
    """The user an identity signs in as, created on first sign-in with the name from the claims."""
    found = await storage.find_identity(issuer, subject)
    if found is not None:
        user = await storage.get_user(found.user_id)
        if user is not None:
            return user
    user = await storage.create_user(clean_name(name) or "Player")
    try:
        await storage.add_identity(Identity(provider=issuer, subject=subject, user_id=user.id))
    except Exception:
        # A concurrent first sign-in of the same identity won: use its user.
        found = await storage.find_identity(issuer, subject)
        winner = await storage.get_user(found.user_id) if found else None
        if winner is None:
            raise
        return winner
    return user


async def _issue_code(signin: Signin, pending: PendingLogin, user: User) -> Response:
    req = pending.request
    code = new_secret()
    grant = CodeGrant(
        user_id=user.id, client_id=req.client_id, redirect_uri=req.redirect_uri,
        code_challenge=req.code_challenge, expires_at=time.time() + signin.config.code_seconds,
    )
    await signin.store.add_code(code, grant)
    return _to_app(req, code=code)


# ---------------------------------------------------------------------------------------------
# The app side: tokens.


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


async def _form(request: Request, known: frozenset[str]) -> dict[str, str]:
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


class TokenAnswer(Strict):
    access_token: str = Field(description="the session token: send as Authorization: Bearer")
    token_type: str = Field(description="always Bearer")
    expires_in: int = Field(description="seconds the access token lasts")
    refresh_token: str = Field(description="single use: each refresh answers a new one")


class TokenForm(BaseModel):
    """Other parameters are ignored (RFC 6749 section 3.2)."""

    grant_type: str = Field(description="authorization_code or refresh_token")
    client_id: str = Field(description=f"always {CLIENT_ID}")
    code: str | None = None
    redirect_uri: str | None = None
    code_verifier: str | None = None
    refresh_token: str | None = None


def oauth_errors(status: int, description: str) -> dict[int | str, dict[str, Any]]:
    """An RFC 6749 error answer, which is also an ErrorBody (see OAuthError.response)."""
    return {status: {"model": ErrorBody,
                     "description": f"{description} (RFC 6749 `error`, `error_description`)"}}


@router.post(
    "/auth/token",
    summary="Trade a code (with its PKCE verifier) or a refresh token for tokens (RFC 6749)",
    response_model=TokenAnswer,
    responses={**oauth_errors(400, "invalid_grant, invalid_request, unsupported_grant_type"),
               **oauth_errors(401, "invalid_client: not the Somnium app"),
               **responses(413, 429)},
    openapi_extra={"requestBody": {"required": True, "content": {
        "application/x-www-form-urlencoded": {"schema": TokenForm.model_json_schema()}}}},
)
async def token(request: Request, signin: Ctx) -> Response:
    try:
        await OAuthError.unless_allowed(signin, request)
        form = await _form(request, frozenset(TokenForm.model_fields))
        if form.get("client_id") != CLIENT_ID:
            raise OAuthError("invalid_client", f"unknown client: only {CLIENT_ID}", 401)
        grant_type = form.get("grant_type", "")
        if grant_type == "authorization_code":
            answer = await _code_grant(signin, form)
        elif grant_type == "refresh_token":
            answer = await _refresh_grant(signin, form)
        else:
            raise OAuthError("unsupported_grant_type",
                             "grant_type is authorization_code or refresh_token")
    except OAuthError as error:
        return error.response()
    return JSONResponse(answer.model_dump(), headers=pages.NO_STORE)


async def _code_grant(signin: Signin, form: dict[str, str]) -> TokenAnswer:
    code = form.get("code", "")
    if not code:
        raise OAuthError("invalid_request", "code is missing")
    family_id = new_secret()
    grant, redeemed_for = await signin.store.take_code(code, family_id)
    if redeemed_for is not None:
        # RFC 6749 4.1.2: a code used twice revokes what it was first traded for.
        await _revoke_family(signin, redeemed_for)
        raise OAuthError("invalid_grant", "this code was already used")
    if grant is None:
        raise OAuthError("invalid_grant", "unknown code")
    if grant.expires_at <= time.time():
        raise OAuthError("invalid_grant", "the code has expired")
    if grant.client_id != form.get("client_id") or grant.redirect_uri != form.get("redirect_uri"):
        raise OAuthError("invalid_grant", "the code was issued to another client or redirect_uri")
    if not pkce_matches(form.get("code_verifier", ""), grant.code_challenge):
        raise OAuthError("invalid_grant", "the PKCE code_verifier does not match the challenge")
    await signin.store.add_family(family_id, grant.user_id, grant.client_id)
    return await _tokens(signin, family_id, grant.user_id)


async def _refresh_grant(signin: Signin, form: dict[str, str]) -> TokenAnswer:
    presented = form.get("refresh_token", "")
    if not presented:
        raise OAuthError("invalid_request", "refresh_token is missing")
    use = await signin.store.use_refresh_token(presented)
    if use.outcome is Refresh.REUSED and use.family_id is not None:
        # A refresh token is good once: a second use means it leaked. End the whole family.
        log.warning("sign-in: a refresh token was used twice; family revoked")
        await _revoke_family(signin, use.family_id)
        raise OAuthError("invalid_grant", "this refresh token was already used; sign in again")
    if use.outcome is not Refresh.OK or use.family_id is None or use.user_id is None:
        raise OAuthError("invalid_grant", f"the refresh token is {use.outcome.value}")
    if use.client_id != form.get("client_id"):
        raise OAuthError("invalid_grant", "the refresh token belongs to another client")
    if await signin.storage.get_user(use.user_id) is None:
        raise OAuthError("invalid_grant", "the user no longer exists")
    return await _tokens(signin, use.family_id, use.user_id)


async def _tokens(signin: Signin, family_id: str, user_id: str) -> TokenAnswer:
    access = await issue_session(signin.storage, user_id, signin.config.access_token_seconds)
    await signin.store.add_family_session(family_id, hash_token(access))
    refresh = new_secret()
    await signin.store.add_refresh_token(
        refresh, family_id, time.time() + signin.config.refresh_token_days * 86400
    )
    return TokenAnswer(access_token=access, token_type="Bearer",
                       expires_in=signin.config.access_token_seconds, refresh_token=refresh)


async def _revoke_family(signin: Signin, family_id: str) -> None:
    for session_hash in await signin.store.revoke_family(family_id):
        await signin.storage.delete_session(session_hash)


class RevokeForm(BaseModel):
    token: str = Field(min_length=1)
    token_type_hint: str | None = None
    client_id: str | None = None


@router.post(
    "/auth/revoke",
    summary="Sign out: revoke a refresh or access token and everything issued with it (RFC 7009)",
    responses={200: {"description": "revoked, or was not valid anyway: an empty object"},
               **oauth_errors(400, "invalid_request: no token given"),
               **responses(413, 429)},
    openapi_extra={"requestBody": {"required": True, "content": {
        "application/x-www-form-urlencoded": {"schema": RevokeForm.model_json_schema()}}}},
)
async def revoke(request: Request, signin: Ctx) -> Response:
    try:
        await OAuthError.unless_allowed(signin, request)
        form = await _form(request, frozenset(RevokeForm.model_fields))
        presented = form.get("token", "")
        if not presented:
            raise OAuthError("invalid_request", "token is missing")
    except OAuthError as error:
        return error.response()
    family = await signin.store.family_of_refresh_token(presented)
    if family is None:
        family = await signin.store.family_of_session(hash_token(presented))
        await signin.storage.delete_session(hash_token(presented))
    if family is not None:
        await _revoke_family(signin, family)
    return JSONResponse({}, headers=pages.NO_STORE)


# ---------------------------------------------------------------------------------------------
# The display name.


class Rename(Strict):
    display_name: Annotated[
        str, StringConstraints(min_length=1, max_length=MAX_NAME, pattern=names.VISIBLE_NAME)
    ] = Field(description="the name other players see")


@router.patch(
    "/me",
    tags=["users"],
    summary="Change the name other players see",
    responses=responses(400, 401, 413, 422, 429),
)
async def rename_me(
    body: Rename, signin: Ctx, user: Annotated[User, Depends(current_user)]
) -> UserInfo:
    await signin.limiter.check(f"user:{user.id}")
    name = clean_name(body.display_name)
    if name is None:
        raise ApiError(400, "invalid_name",
                       f"a name is 1 to {MAX_NAME} printable characters")
    await signin.storage.rename_user(user.id, name)
    return UserInfo(id=user.id, display_name=name)
