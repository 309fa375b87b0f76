"""Render every element of resources/cards/deck.svg onto one PNG contact sheet for review."""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from PySide6.QtCore import QRectF  # noqa: E402
from PySide6.QtGui import QColor, QGuiApplication, QImage, QPainter  # noqa: E402
from PySide6.QtSvg import QSvgRenderer  # noqa: E402

from somnium_desktop import card_ids  # noqa: E402


def render_sheet(renderer: QSvgRenderer, card_width: int, background: QColor) -> QImage:
    """Suits in rows (values 3..7), then Fool, Death, back, then the ten emblems."""
    card_height = round(card_width * card_ids.CARD_HEIGHT / card_ids.CARD_WIDTH)
    pad = max(4, card_width // 12)
    emblem = card_width // 2
    rows: list[list[tuple[str, int, int]]] = [
        [(card_ids.card_id(s, v), card_width, card_height) for v in card_ids.VALUES]
        for s in card_ids.SUITS
    ]
    rows.append(
        [
            (cid, card_width, card_height)
            for cid in (card_ids.FOOL_ID, card_ids.DEATH_ID, card_ids.BACK_ID)
        ]
    )
    rows.append([(eid, emblem, emblem) for eid in card_ids.EMBLEM_IDS])
    width = pad + max(sum(w + pad for _, w, _ in row) for row in rows)
    height = pad + sum(max(h for _, _, h in row) + pad for row in rows)
    image = QImage(width, height, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(background)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    y = pad
    for row in rows:
        x = pad
        for element_id, w, h in row:
            renderer.render(painter, element_id, QRectF(x, y, w, h))
            x += w + pad
        y += max(h for _, _, h in row) + pad
    painter.end()
    return image


def side_by_side(images: list[QImage], background: QColor) -> QImage:
    gap = 16
    width = sum(i.width() for i in images) + gap * (len(images) - 1)
    height = max(i.height() for i in images)
    out = QImage(width, height, QImage.Format.Format_ARGB32_Premultiplied)
    out.fill(background)
    painter = QPainter(out)
    x = 0
    for image in images:
        painter.drawImage(x, 0, image)
        x += image.width() + gap
    painter.end()
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("output", type=Path, help="PNG file to write")
    parser.add_argument(
        "--widths",
        default="140,70",
        help="comma-separated card widths in pixels, one sheet each, side by side",
    )
    parser.add_argument("--svg", type=Path, default=card_ids.deck_svg_path())
    parser.add_argument("--background", default="#2f6b45", help="table colour behind the cards")
    args = parser.parse_args(argv)
    _app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])
    renderer = QSvgRenderer(str(args.svg))
    if not renderer.isValid():
        print(f"cannot load {args.svg}", file=sys.stderr)
        return 1
    background = QColor(args.background)
    start = time.perf_counter()
    sheets = [render_sheet(renderer, int(w), background) for w in args.widths.split(",")]
    elapsed = time.perf_counter() - start
    sheet = side_by_side(sheets, background) if len(sheets) > 1 else sheets[0]
    if not sheet.save(str(args.output)):
        print(f"cannot write {args.output}", file=sys.stderr)
        return 1
    print(f"wrote {args.output} ({sheet.width()}x{sheet.height()}) in {elapsed * 1000:.0f} ms")
    del _app
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
