"""Sign-in's app side: the token endpoint (/auth/token) and revoking a sign-in (/auth/revoke)."""

from __future__ import annotations

import logging
import time
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, Field

from somnium_server.api.errors import ErrorBody, responses
from somnium_server.api.models import Strict
from somnium_server.signin import pages
from somnium_server.signin.native_client import CLIENT_ID, pkce_matches
from somnium_server.signin.sessions import hash_token, issue_session
from somnium_server.signin.shared import Ctx, OAuthError, Signin, read_form
from somnium_server.signin.store import new_secret
from somnium_server.storage import Refresh

log = logging.getLogger("somnium_server.signin.routes")  # (one logger for sign-in's routes)

router = APIRouter(tags=["sign-in"])


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
        form = await read_form(request, frozenset(TokenForm.model_fields))
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
    """New tokens of the family. A revoke of the family (a reuse of its code or refresh
    token at the same moment) either finds the new session linked, or is found here after
    the link: the family's revoke writes before it lists, these write before they look."""
    access = await issue_session(signin.storage, user_id, signin.config.access_token_seconds)
    await signin.store.add_family_session(family_id, hash_token(access))
    refresh = new_secret()
    await signin.store.add_refresh_token(
        refresh, family_id, time.time() + signin.config.refresh_token_days * 86400
    )
    if await signin.store.family_revoked(family_id):
        await signin.storage.delete_session(hash_token(access))
        raise OAuthError("invalid_grant", "this sign-in was revoked meanwhile; sign in again")
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
        form = await read_form(request, frozenset(RevokeForm.model_fields))
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
