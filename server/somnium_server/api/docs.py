"""Browsable API docs at /docs, with Swagger UI served from the package itself (no CDN)."""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.openapi.docs import get_swagger_ui_html
from starlette.responses import HTMLResponse
from starlette.staticfiles import StaticFiles

ASSETS = Path(__file__).with_name("docs_assets") / "swagger-ui"
DOCS_URL = "/docs"
ASSETS_URL = "/docs/assets"


def install(app: FastAPI) -> None:
    """Serve /docs and its assets; the app must be made with docs_url=None and redoc_url=None
    (FastAPI's own pages load their scripts from a CDN, which offline machines cannot reach)."""

    async def swagger_ui(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "").rstrip("/")
        return get_swagger_ui_html(
            openapi_url=root + (app.openapi_url or "/openapi.json"),
            title=f"{app.title} - API",
            swagger_js_url=f"{root}{ASSETS_URL}/swagger-ui-bundle.js",
            swagger_css_url=f"{root}{ASSETS_URL}/swagger-ui.css",
            swagger_favicon_url=f"{root}{ASSETS_URL}/favicon-32x32.png",
            # no validator badge: it would send the description to validator.swagger.io
            swagger_ui_parameters={"validatorUrl": None},
        )

    app.add_route(DOCS_URL, swagger_ui, methods=["GET"], include_in_schema=False)
    app.mount(ASSETS_URL, StaticFiles(directory=ASSETS), name="docs-assets")
