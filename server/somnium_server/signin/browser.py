"""Sign-in's browser side: /auth/authorize, the provider choice and callback, local accounts."""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from typing import Annotated, Any
from urllib.parse import urlencode

from fastapi import APIRouter, Path, Query, Request
from fastapi.responses import RedirectResponse, Response

from somnium_server.signin import pages
from somnium_server.signin.config import LOCAL_PROVIDER
from somnium_server.signin.native_client import CLIENT_ID, redirect_uri_problem, valid_challenge
from somnium_server.signin.shared import (
    BROWSER_COOKIE,
    LOCAL_ISSUER,
    MAX_NAME,
    Ctx,
    OAuthError,
    Signin,
    clean_name,
    read_form,
)
from somnium_server.signin.store import digest, new_secret
from somnium_server.storage import AuthRequest, CodeGrant, Identity, PendingLogin, Storage, User

log = logging.getLogger("somnium_server.signin.routes")  # (one logger for sign-in's routes)

router = APIRouter(tags=["sign-in"])

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
    keys = [key for key, _ in offered]
    if provider is not None and provider not in keys:
        return _to_app_raw(redirect_uri, state, "invalid_request",
                           f"this server offers no sign-in provider {provider!r}")
    browser = new_secret()
    req = AuthRequest(
        id=new_secret(), browser_hash=digest(browser), client_id=client_id,
        redirect_uri=redirect_uri, app_state=state, code_challenge=code_challenge,
        expires_at=time.time() + signin.config.login_seconds,
    )
    await signin.store.add_request(req)
    if provider is not None or len(keys) == 1:
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
        form = await read_form(request, frozenset({"request", "name"}))
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
