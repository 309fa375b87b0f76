"""The generated card art loads in QtSvg, has every element, and draws something."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

from somnium_desktop import card_ids

ROOT = Path(__file__).resolve().parent.parent
DECK = ROOT / card_ids.DECK_SVG_RELPATH
ICON = ROOT / card_ids.ICON_SVG_RELPATH


@pytest.fixture(scope="module")
def renderer(qapp: QGuiApplication) -> QSvgRenderer:
    r = QSvgRenderer(str(DECK))
    assert r.isValid()
    return r


def render(renderer: QSvgRenderer, element_id: str, width: int, height: int) -> QImage:
    image = QImage(width, height, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter, element_id, QRectF(0, 0, width, height))
    painter.end()
    return image


def colours(image: QImage, step: int = 2) -> set[int]:
    return {
        image.pixel(x, y)
        for y in range(0, image.height(), step)
        for x in range(0, image.width(), step)
    }


def test_module_ids() -> None:
    assert len(card_ids.SUIT_CARD_IDS) == 50
    assert card_ids.SUIT_CARD_IDS[0] == "angels_3"
    assert card_ids.SUIT_CARD_IDS[-1] == "demons_7"
    assert card_ids.card_id("Pentacles", 5) == "pentacles_5"
    assert card_ids.emblem_id("Moons") == "emblem_moons"
    assert len(set(card_ids.ALL_IDS)) == len(card_ids.ALL_IDS) == 63
    with pytest.raises(ValueError):
        card_ids.card_id("Hearts", 3)
    with pytest.raises(ValueError):
        card_ids.card_id("Angels", 8)


def test_every_element_exists(renderer: QSvgRenderer) -> None:
    missing = [eid for eid in card_ids.ALL_IDS if not renderer.elementExists(eid)]
    assert missing == []


def test_card_bounds_have_card_proportions_and_do_not_overlap(renderer: QSvgRenderer) -> None:
    bounds: dict[str, QRectF] = {}
    for eid in card_ids.CARD_IDS:
        b = renderer.boundsOnElement(eid)
        assert b.width() == pytest.approx(card_ids.CARD_WIDTH), eid
        assert b.height() == pytest.approx(card_ids.CARD_HEIGHT), eid
        assert b.width() / b.height() == pytest.approx(2.5 / 3.5), eid
        bounds[eid] = b
    for eid in card_ids.EMBLEM_IDS:
        b = renderer.boundsOnElement(eid)
        assert b.width() == pytest.approx(card_ids.EMBLEM_SIZE), eid
        assert b.height() == pytest.approx(card_ids.EMBLEM_SIZE), eid
        bounds[eid] = b
    ids = list(bounds)
    for i, first in enumerate(ids):
        for second in ids[i + 1 :]:
            assert not bounds[first].intersects(bounds[second]), (first, second)


def test_only_qt_friendly_svg() -> None:
    text = DECK.read_text(encoding="utf-8")
    for forbidden in ("<text", "<use", "<filter", "<mask", "<clipPath", "<style", "<image"):
        assert forbidden not in text, forbidden
    assert "href" not in text
    assert len(text.encode()) < 400_000
    # every card is one top-level group with its own id
    top_level = re.findall(r'^<g id="([a-z0-9_]+)"', text, flags=re.MULTILINE)
    assert sorted(top_level) == sorted(card_ids.ALL_IDS)


@pytest.mark.parametrize(
    "element_id", ["angels_3", "dragons_7", "moons_5", "fool", "death", "back", "emblem_cups"]
)
def test_elements_draw_something(renderer: QSvgRenderer, element_id: str) -> None:
    b = renderer.boundsOnElement(element_id)
    width = 70
    height = round(width * b.height() / b.width())
    image = render(renderer, element_id, width, height)
    seen = colours(image, step=1)
    assert len(seen) >= 8, f"{element_id} looks blank: {len(seen)} colours"
    centre = QColor(image.pixel(width // 2, height // 2))
    if element_id.startswith("emblem_"):
        assert image.pixelColor(0, 0).alpha() == 0  # the box itself is transparent
    else:
        assert centre.alpha() == 255  # a card face is opaque


def test_faces_are_all_different(renderer: QSvgRenderer) -> None:
    images = {eid: render(renderer, eid, 50, 70) for eid in card_ids.CARD_IDS}
    digests = {bytes(img.constBits()) for img in images.values()}
    assert len(digests) == len(images)


def test_icon_is_square_and_valid(qapp: QGuiApplication) -> None:
    r = QSvgRenderer(str(ICON))
    assert r.isValid()
    assert r.defaultSize().width() == r.defaultSize().height()
    assert "<text" not in ICON.read_text(encoding="utf-8")


def test_generator_reproduces_the_committed_files(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "make_deck.py"), "--root", str(tmp_path)],
        check=True,
        capture_output=True,
    )
    assert (tmp_path / card_ids.DECK_SVG_RELPATH).read_bytes() == DECK.read_bytes()
    assert (tmp_path / card_ids.ICON_SVG_RELPATH).read_bytes() == ICON.read_bytes()
