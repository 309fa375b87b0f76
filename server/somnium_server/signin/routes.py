"""Sign-in endpoints: the browser flow (/auth/authorize, provider choice, provider callback) and
the app's token endpoints (/auth/token, /auth/revoke), plus renaming oneself (PATCH /me)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from fastapi import APIRouter, Depends, FastAPI
from pydantic import Field, StringConstraints

from somnium_server.api.errors import ApiError, responses
from somnium_server.api.models import Strict, UserInfo
from somnium_server.api.ratelimit import RateLimiter, buckets_for
from somnium_server.config import Settings
from somnium_server.context import current_user
from somnium_server.play import names
from somnium_server.signin import browser, tokens
from somnium_server.signin.config import check_local_accounts
from somnium_server.signin.shared import MAX_NAME, Ctx, Signin, clean_name
from somnium_server.signin.store import SigninStore
from somnium_server.storage import Storage, User

if TYPE_CHECKING:
    # Imported when a provider is configured (Authlib and joserfc cost a quarter of the
    # server's start-up, which the app's built-in server, local accounts only, waits for).
    from somnium_server.signin.relying_party import RelyingParty

router = APIRouter(tags=["sign-in"])


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
    for part in (browser.router, tokens.router, router):
        app.router.routes.extend(part.routes)
    return signin


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
