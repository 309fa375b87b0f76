"""The card renderer: the real art, a pixmap cache per size and ratio, a plain fallback."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSize
from PySide6.QtGui import QImage
from pytestqt.qtbot import QtBot

from somnium_desktop.game import DEATH, FOOL, Suit, full_deck
from somnium_desktop.ui.cards import BACK, CardDeck, element_id, emblem_id, shadow_pixmap

SIZE = QSize(70, 98)


def opaque_share(image: QImage) -> float:
    """How much of the image is covered (alpha > 0)."""
    covered = sum(
        1
        for y in range(0, image.height(), 3)
        for x in range(0, image.width(), 3)
        if image.pixelColor(x, y).alpha() > 0
    )
    return covered / len(range(0, image.height(), 3)) / len(range(0, image.width(), 3))


def test_every_card_face_comes_from_the_art(qtbot: QtBot) -> None:
    deck = CardDeck()
    assert deck.path.name == "deck.svg" and deck.renderer().isValid()
    for card in set(full_deck()):
        assert deck.has(element_id(card)), card
    assert deck.has(BACK)
    for suit in Suit:
        assert deck.has(emblem_id(suit))
    bounds = deck.renderer().boundsOnElement(BACK)
    assert deck.aspect() == bounds.width() / bounds.height()  # known before parsing, and right


def test_the_art_differs_from_the_fallback(qtbot: QtBot, tmp_path: Path) -> None:
    art = CardDeck().card_pixmap(FOOL, SIZE).toImage()
    plain = CardDeck(tmp_path / "missing.svg").card_pixmap(FOOL, SIZE).toImage()
    assert opaque_share(art) > 0.9 and opaque_share(plain) > 0.9
    assert art != plain


def test_a_missing_element_is_drawn_plain(qtbot: QtBot) -> None:
    deck = CardDeck()
    assert not deck.has("no_such_card")
    image = deck.pixmap("no_such_card", SIZE).toImage()
    assert opaque_share(image) > 0.9  # a card, not a hole in the table


def test_pixmaps_are_cached_per_size_and_ratio(qtbot: QtBot) -> None:
    deck = CardDeck()
    first = deck.card_pixmap(DEATH, SIZE, 1.0)
    again = deck.card_pixmap(DEATH, SIZE, 1.0)
    assert first.cacheKey() == again.cacheKey() and deck.renders == 1
    sharp = deck.card_pixmap(DEATH, SIZE, 2.0)
    assert deck.renders == 2
    assert sharp.devicePixelRatio() == 2.0
    assert (sharp.width(), sharp.height()) == (140, 196)
    assert sharp.deviceIndependentSize().toSize() == SIZE
    deck.card_pixmap(None, SIZE, 2.0)
    deck.pixmap(emblem_id(Suit.MOONS), QSize(40, 40), 2.0)
    deck.pixmap(emblem_id(Suit.MOONS), QSize(44, 44), 2.0)
    deck.keep_only([SIZE, QSize(40, 40)], 2.0)
    assert deck.cached() == 3  # the 2x death, the 2x back and the 40 px emblem
    deck.card_pixmap(DEATH, SIZE, 1.0)
    assert deck.renders == 6  # the 1x death was forgotten and rendered again


def test_start_up_pixmaps_come_from_disk_without_parsing_the_art(
    qtbot: QtBot, tmp_path: Path
) -> None:
    first = CardDeck(disk_cache=tmp_path)
    back = first.card_pixmap(None, SIZE, 1.0).toImage()
    first.pixmap(emblem_id(Suit.CUPS), QSize(40, 40), 1.0)
    first.card_pixmap(FOOL, SIZE, 1.0)
    first.save_start_up_pixmaps()
    saved = sorted(path.name for path in tmp_path.rglob("*.png"))
    assert saved == ["back-70x98@1.png", "emblem_cups-40x40@1.png"]  # faces stay in memory
    second = CardDeck(disk_cache=tmp_path)
    again = second.card_pixmap(None, SIZE, 1.0)
    second.pixmap(emblem_id(Suit.CUPS), QSize(40, 40), 1.0)
    assert not second.parsed and second.renders == 0
    assert again.toImage().convertToFormat(back.format()) == back
    second.card_pixmap(DEATH, SIZE, 1.0)  # a face: now the art is parsed
    assert second.parsed and second.renders == 1
    # Saving again keeps only the latest sizes.
    second.keep_only([QSize(60, 84)], 1.0)
    second.card_pixmap(None, QSize(60, 84), 1.0)
    second.save_start_up_pixmaps()
    assert [path.name for path in tmp_path.rglob("*.png")] == ["back-60x84@1.png"]


def test_changed_art_is_not_taken_from_an_old_cache(qtbot: QtBot, tmp_path: Path) -> None:
    art = tmp_path / "deck.svg"
    art.write_bytes(CardDeck().path.read_bytes())
    deck = CardDeck(art, disk_cache=tmp_path / "cache")
    deck.card_pixmap(None, SIZE, 1.0)
    deck.save_start_up_pixmaps()
    art.write_bytes(art.read_bytes() + b"\n")
    fresh = CardDeck(art, disk_cache=tmp_path / "cache")
    fresh.card_pixmap(None, SIZE, 1.0)
    assert fresh.renders == 1


def test_the_shadow_is_larger_than_the_card(qtbot: QtBot) -> None:
    shadow = shadow_pixmap(SIZE, 2.0)
    assert shadow.devicePixelRatio() == 2.0
    assert shadow.deviceIndependentSize().width() > SIZE.width()
