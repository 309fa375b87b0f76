"""The browsable docs at /docs work offline: every URL the page loads is the server's own."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from urllib.parse import urljoin

from .helpers import LiveServer


class _Links(HTMLParser):
    """Every src and href of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.urls += [value for name, value in attrs if name in ("src", "href") and value]


def test_docs_load_only_local_assets_which_answer(server: LiveServer) -> None:
    page = server.get("/docs")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "http://" not in page.text and "https://" not in page.text  # no CDN, no validator
    links = _Links()
    links.feed(page.text)
    spec_urls = re.findall(r"url: '([^']+)'", page.text)
    assert spec_urls == ["/openapi.json"]
    urls = links.urls + spec_urls
    assert any(u.endswith(".js") for u in urls) and any(u.endswith(".css") for u in urls)
    kinds = {".js": "javascript", ".css": "text/css", ".png": "image/png", ".json": "json"}
    for url in urls:
        assert url.startswith("/") and not url.startswith("//"), url
        answer = server.get(urljoin("/docs", url))
        assert answer.status_code == 200, url
        kind = next(v for k, v in kinds.items() if url.endswith(k))
        assert kind in answer.headers["content-type"], (url, answer.headers["content-type"])
        assert len(answer.content) > 500, url
    script = server.get("/docs/assets/swagger-ui-bundle.js").text
    assert "SwaggerUIBundle" in script and "sourceMappingURL" not in script
    assert "sourceMappingURL" not in server.get("/docs/assets/swagger-ui.css").text


def test_the_cdn_pages_are_gone_and_assets_are_not_in_the_api(server: LiveServer) -> None:
    assert server.get("/redoc").status_code == 404
    assert server.get("/docs/assets/no-such-file.js").status_code == 404
    paths = server.get("/openapi.json").json()["paths"]
    assert not [path for path in paths if path.startswith("/docs")]
