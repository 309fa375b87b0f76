"""The README's links and the paths it names exist, and its two set-up commands are there."""

from __future__ import annotations

import re
from pathlib import Path

from somnium_desktop.project import RAW_BASE

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _anchor(heading: str) -> str:
    """GitHub's anchor for a heading."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_every_link_leads_somewhere() -> None:
    anchors = {_anchor(h) for h in re.findall(r"^#+ (.+)$", README, re.M)}
    links = re.findall(r"\]\(([^)\s]+)\)", README)
    assert links
    for link in links:
        if link.startswith("https://"):
            continue
        if link.startswith("#"):
            assert link[1:] in anchors, link
        else:
            assert (ROOT / link).exists(), link


def test_the_paths_it_names_exist() -> None:
    named = set(re.findall(r"`((?:packaging|docs|scripts|benchmarks|resources)/[^`\s]*)`", README))
    assert "packaging/server/" in named
    for path in named:
        assert (ROOT / path).exists(), path


def test_the_set_up_commands_are_there() -> None:
    assert "\n    ./scripts/run\n" in README
    assert "\n    ./scripts/test\n" in README


def test_the_pictures_render_on_a_package_index_too() -> None:
    # PyPI shows this README as the wheel's description: its pictures need absolute addresses,
    # the repository's raw files from the one configured base.
    pictures = re.findall(r"!\[[^\]]+\]\(([^)\s]+)\)", README)
    assert len(pictures) >= 4
    for address in pictures:
        assert address.startswith(RAW_BASE), address
        assert (ROOT / address.removeprefix(RAW_BASE)).is_file(), address
