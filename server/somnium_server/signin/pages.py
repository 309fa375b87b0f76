"""The few HTML pages of the browser sign-in: provider choice, local account name, errors."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from urllib.parse import quote

from fastapi.responses import HTMLResponse

NO_STORE = {"Cache-Control": "no-store", "Pragma": "no-cache"}


def _page(title: str, body: str, status: int = 200) -> HTMLResponse:
    return HTMLResponse(
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>{escape(title)} — Somnium</title></head>"
        "<body style='font-family: sans-serif; max-width: 32em; margin: 3em auto'>"
        f"<h1>{escape(title)}</h1>{body}</body></html>",
        status_code=status,
        headers=NO_STORE,
    )


def error_page(message: str, status: int = 400) -> HTMLResponse:
    """A refusal shown in the browser; nothing is sent back to the app."""
    return _page("Sign-in failed", f"<p>{escape(message)}</p>", status)


def choice_page(request_id: str, providers: Sequence[tuple[str, str]]) -> HTMLResponse:
    """One link per provider: (key, display name)."""
    items = "".join(
        f"<li><a href='/auth/login/{quote(key)}?request={quote(request_id)}'>"
        f"{escape(name)}</a></li>"
        for key, name in providers
    )
    return _page("Sign in to Somnium", f"<p>Sign in with:</p><ul>{items}</ul>")


def local_name_page(request_id: str, problem: str | None = None, status: int = 200) -> HTMLResponse:
    """The local account form: a name only."""
    note = f"<p style='color: #b71c1c'>{escape(problem)}</p>" if problem else ""
    return _page(
        "Local account",
        f"{note}<form method='post' action='/auth/local'>"
        f"<input type='hidden' name='request' value='{escape(request_id)}'>"
        "<label>Your name: <input name='name' maxlength='40' required autofocus></label> "
        "<button type='submit'>Sign in</button></form>",
        status,
    )
