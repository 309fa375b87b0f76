"""The licence: the GNU GPL version 3 text in LICENSE, "or later" in the metadata."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_licence_is_the_whole_gpl_3() -> None:
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.lstrip().startswith("GNU GENERAL PUBLIC LICENSE\n                       Version 3")
    assert "TERMS AND CONDITIONS" in text and "END OF TERMS AND CONDITIONS" in text
    assert "How to Apply These Terms to Your New Programs" in text
    assert len(text.splitlines()) == 674  # the FSF's text, as Debian ships it (GPL-3)


def test_both_distributions_declare_it() -> None:
    for pyproject in (ROOT / "pyproject.toml", ROOT / "server" / "pyproject.toml"):
        project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
        assert project["license"] == "GPL-3.0-or-later"
        assert project["license-files"] == ["LICENSE"]
    # The server's distribution is built from server/: its LICENSE is a link to the one file
    # (which an sdist stores as a copy).
    assert (ROOT / "server" / "LICENSE").read_bytes() == (ROOT / "LICENSE").read_bytes()
