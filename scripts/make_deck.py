"""Generate the Somnium card deck (resources/cards/deck.svg) and app icon from plain SVG shapes."""

from __future__ import annotations

import argparse
import itertools
import math
import random
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from somnium_desktop import card_ids  # noqa: E402

W = card_ids.CARD_WIDTH
H = card_ids.CARD_HEIGHT
EMBLEM_BOX = card_ids.EMBLEM_SIZE
GAP = 20  # space between elements in the document, so no two bounds touch
CORNER = 16  # corner radius of a card
BORDER = 3  # width of the thin card border

INK = "#2b2530"  # outlines and borders
FACE = "#fbf7ee"  # card face


def fmt(x: float) -> str:
    """A short, deterministic number: at most two decimals, no trailing zeros."""
    s = f"{x:.2f}".rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


def pts(points: Iterable[tuple[float, float]]) -> str:
    return " ".join(f"{fmt(x)},{fmt(y)}" for x, y in points)


def mix(a: str, b: str, t: float) -> str:
    """Colour a blended toward b by t (0..1)."""
    ca = [int(a[i : i + 2], 16) for i in (1, 3, 5)]
    cb = [int(b[i : i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{round(x + (y - x) * t):02x}" for x, y in zip(ca, cb, strict=True))


@dataclass(frozen=True)
class Palette:
    """The colours of one suit: main fill, light detail, dark outline and numeral ink."""

    main: str
    light: str
    dark: str
    ink: str


def luminance(colour: str) -> float:
    """WCAG relative luminance of an #rrggbb colour."""

    def channel(c: int) -> float:
        v = c / 255
        return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(int(colour[i : i + 2], 16)) for i in (1, 3, 5))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def palette(main: str) -> Palette:
    # numerals: the suit colour darkened just enough for 7:1 contrast on the face (WCAG AAA)
    t = 0.0
    while contrast(mix(main, "#000000", t), FACE) < 7.0:
        t += 0.05
    return Palette(
        main=main,
        light=mix(main, "#ffffff", 0.6),
        dark=mix(main, INK, 0.8),
        ink=mix(main, "#000000", t),
    )


# Each suit has a thematic hue; within those ranges the colours were picked (by a small search
# over simulated deuteranopia, protanopia and tritanopia, Machado et al. 2009) so that every
# pair stays at least 20 CIELAB units apart for those viewers and 34 for everyone else. The
# shapes alone identify the suits; the colours are a second cue.
SUIT_COLOURS: dict[str, Palette] = {
    "Angels": palette("#69ccf5"),
    "Suns": palette("#db8f03"),
    "Wands": palette("#59a34c"),
    "Cups": palette("#255dce"),
    "Towers": palette("#875843"),
    "Swords": palette("#72808e"),
    "Dragons": palette("#bc2d12"),
    "Pentacles": palette("#dbce62"),
    "Moons": palette("#66367e"),
    "Demons": palette("#6f0a37"),
}


# ---------------------------------------------------------------------------------------------
# Emblems. Each is drawn in a box from -50 to 50 around the origin, filled with the suit colour
# and outlined in a dark shade (inherited from the wrapping group).
# ---------------------------------------------------------------------------------------------


def circle_points(
    cx: float, cy: float, radii: Sequence[float], n: int, start: float
) -> Iterator[tuple[float, float]]:
    for i in range(n):
        a = math.radians(start + 360 * i / n)
        r = radii[i % len(radii)]
        yield cx + r * math.cos(a), cy + r * math.sin(a)


def star(cx: float, cy: float, outer: float, inner: float, n: int, start: float = -90) -> str:
    return pts(circle_points(cx, cy, [outer, inner], 2 * n, start))


def scallops(points: Sequence[tuple[float, float]], bulge: float) -> str:
    """Quadratic segments through points, each bulging to the left of its direction of travel."""
    out = []
    for (x0, y0), (x1, y1) in itertools.pairwise(points):
        dx, dy = x1 - x0, y1 - y0
        length = math.hypot(dx, dy)
        nx, ny = dy / length, -dx / length
        cx, cy = (x0 + x1) / 2 + nx * bulge, (y0 + y1) / 2 + ny * bulge
        out.append(f"Q{fmt(cx)} {fmt(cy)} {fmt(x1)} {fmt(y1)}")
    return " ".join(out)


def emblem_angels(p: Palette) -> str:
    wing_edge = [(46, -24), (44, -10), (37, 2), (27, 12), (15, 20), (5, 22)]
    wing = f"M4 10 C8 -10 24 -24 46 -24 {scallops(wing_edge, 3.5)} Z"
    halo = (
        "M-22 -36 A22 8 0 1 0 22 -36 A22 8 0 1 0 -22 -36 Z "
        "M-13 -36 A13 3.5 0 1 0 13 -36 A13 3.5 0 1 0 -13 -36 Z"
    )
    return (
        f'<path d="{wing}"/><path transform="scale(-1,1)" d="{wing}"/>'
        f'<path d="M-7 4 Q0 -6 7 4 L4 40 Q0 44 -4 40 Z" fill="{p.light}"/>'
        f'<circle cx="0" cy="-14" r="9" fill="{p.light}"/>'
        f'<path fill-rule="evenodd" fill="{p.light}" d="{halo}"/>'
    )


def emblem_suns(p: Palette) -> str:
    rays = []
    for i in range(24):
        r = 25.0 if i % 2 else (46.0 if i % 4 == 0 else 37.0)
        a = math.radians(-90 + 15 * i)
        rays.append((r * math.cos(a), r * math.sin(a)))
    return (
        f'<polygon points="{pts(rays)}"/>'
        f'<circle cx="0" cy="0" r="21" fill="{p.light}"/>'
        f'<circle cx="0" cy="0" r="11" fill="{p.main}" stroke="none"/>'
    )


def capsule(x0: float, y0: float, x1: float, y1: float, r: float) -> str:
    """A stick with round ends from (x0, y0) to (x1, y1), r thick on each side, as a path."""
    length = math.hypot(x1 - x0, y1 - y0)
    nx, ny = (y1 - y0) / length * r, -(x1 - x0) / length * r
    return (
        f"M{fmt(x0 + nx)} {fmt(y0 + ny)} L{fmt(x1 + nx)} {fmt(y1 + ny)} "
        f"A{fmt(r)} {fmt(r)} 0 0 1 {fmt(x1 - nx)} {fmt(y1 - ny)} L{fmt(x0 - nx)} {fmt(y0 - ny)} "
        f"A{fmt(r)} {fmt(r)} 0 0 1 {fmt(x0 + nx)} {fmt(y0 + ny)} Z"
    )


def emblem_wands(p: Palette) -> str:
    leaf = "M0 0 Q10 -14 24 -12 Q14 3 0 0 Z"
    return (
        f'<path d="{capsule(-32, 40, 6, -10, 6)}"/>'
        f'<path d="M-29 24 L-20 31 M-23 16 L-14 23" fill="none" stroke="{p.light}" '
        'stroke-width="4"/>'
        f'<path transform="translate(-12,16) rotate(12)" d="{leaf}"/>'
        f'<polygon fill="{p.light}" points="{star(16, -20, 27, 8, 4)}"/>'
        f'<polygon fill="{p.light}" stroke-width="3" points="{star(16, -20, 14, 5, 4, -45)}"/>'
        f'<circle cx="16" cy="-20" r="4" fill="{p.main}" stroke="none"/>'
    )


def emblem_cups(p: Palette) -> str:
    body = (
        "M-30 -30 C-30 -2 -17 10 -6 12 L-5 27 C-5 31 -18 35 -23 44 L23 44 "
        "C18 35 5 31 5 27 L6 12 C17 10 30 -2 30 -30 Z"
    )
    return (
        f'<path d="{body}"/>'
        f'<ellipse cx="0" cy="-30" rx="30" ry="8" fill="{p.light}"/>'
        f'<ellipse cx="0" cy="22" rx="9" ry="3.5"/>'
        f'<path d="M-22 -12 Q0 -4 22 -12" fill="none" stroke="{p.light}" stroke-width="3"/>'
    )


def emblem_towers(p: Palette) -> str:
    body = "M-21 46 L-16 -16 H-25 V-40 H-15 V-31 H-5 V-40 H5 V-31 H15 V-40 H25 V-16 H16 L21 46 Z"
    return (
        f'<path d="{body}"/>'
        f'<path d="M-17 -16 H17" fill="none"/>'
        f'<path d="M-9 46 V31 A9 9 0 0 1 9 31 V46 Z" fill="{p.dark}"/>'
        f'<path d="M-4 10 V0 A4 4 0 0 1 4 0 V10 Z" fill="{p.light}"/>'
    )


def emblem_swords(p: Palette) -> str:
    return (
        f'<path d="M0 -47 L9 -34 V14 H-9 V-34 Z" fill="{p.light}"/>'
        f'<path d="M0 -34 V10" fill="none" stroke-width="3"/>'
        '<path d="M-27 12 Q-22 22 -14 22 H14 Q22 22 27 12 Q14 16 0 16 Q-14 16 -27 12 Z"/>'
        '<rect x="-5" y="22" width="10" height="16" rx="2"/>'
        '<circle cx="0" cy="42" r="5.5"/>'
    )


def emblem_dragons(p: Palette) -> str:
    head = (
        "M-40 48 C-44 22 -38 2 -24 -12 C-12 -22 0 -24 12 -20 L40 -12 Q46 -12 48 -6 L47 0 "
        "L12 6 L42 14 L40 21 L10 25 C-2 30 -8 38 -8 48 Z"
    )
    horn = "M-22 -12 Q-34 -30 -46 -42 Q-26 -36 -8 -21 Z"
    horn2 = "M-10 -20 Q-14 -34 -26 -47 Q-4 -38 4 -23 Z"
    spikes = "M-40 34 L-47 28 L-41 20 L-47 10 L-37 6 L-43 -6 L-29 -6 Z"
    fangs = "M18 5 L21 12 L24 4.5 Z M30 3 L33 10 L36 2.5 Z M22 23 L25 16 L28 22.5 Z"
    return (
        f'<path d="{spikes}" fill="{p.dark}"/>'
        f'<path d="{horn2}" fill="{p.dark}"/>'
        f'<path d="{head}"/>'
        f'<path d="{horn}" fill="{p.light}"/>'
        f'<path d="M-4 -14 Q4 -18 12 -12 Q4 -6 -4 -14 Z" fill="#f6e27a"/>'
        f'<path d="M4 -16 V-9" fill="none" stroke-width="2.5"/>'
        f'<path d="M40 -7 L44 -5" fill="none" stroke-width="3"/>'
        f'<path d="{fangs}" fill="#ffffff" stroke-width="2"/>'
    )


def emblem_pentacles(p: Palette) -> str:
    return (
        '<circle cx="0" cy="0" r="45"/>'
        f'<circle cx="0" cy="0" r="38" fill="none" stroke="{p.light}" stroke-width="3"/>'
        f'<polygon fill="{p.light}" points="{star(0, 2, 34, 13.5, 5)}"/>'
    )


def crescent(cx: float, cy: float, r: float, dx: float, dy: float, r2: float) -> str:
    """A crescent: the circle (cx, cy, r) minus the circle (cx+dx, cy+dy, r2)."""
    d = math.hypot(dx, dy)
    a = (r * r - r2 * r2 + d * d) / (2 * d)
    h = math.sqrt(r * r - a * a)
    ux, uy = dx / d, dy / d
    mx, my = cx + ux * a, cy + uy * a
    p1 = (mx - uy * h, my + ux * h)
    p2 = (mx + uy * h, my - ux * h)
    return (
        f"M{fmt(p1[0])} {fmt(p1[1])} A{fmt(r)} {fmt(r)} 0 1 1 {fmt(p2[0])} {fmt(p2[1])} "
        f"A{fmt(r2)} {fmt(r2)} 0 1 0 {fmt(p1[0])} {fmt(p1[1])} Z"
    )


def emblem_moons(p: Palette) -> str:
    return (
        f'<path d="{crescent(-2, 0, 44, 22, -12, 36)}"/>'
        f'<polygon fill="{p.light}" points="{star(24, -16, 12, 3.5, 4)}"/>'
    )


def emblem_demons(p: Palette) -> str:
    face = (
        "M0 -26 C18 -26 30 -18 30 -2 C30 18 16 36 0 46 C-16 36 -30 18 -30 -2 "
        "C-30 -18 -18 -26 0 -26 Z"
    )
    horn = "M-18 -20 C-34 -24 -42 -34 -38 -47 C-32 -37 -22 -33 -6 -27 Z"
    eye = "M-22 -6 L-6 1 L-8 7 L-20 5 Z"
    mouth = "M-16 18 L16 18 L11 28 L6 23 L0 31 L-6 23 L-11 28 Z"
    return (
        f'<path d="{horn}"/><path transform="scale(-1,1)" d="{horn}"/>'
        f'<path d="{face}"/>'
        f'<path d="{eye}" fill="{p.light}"/><path transform="scale(-1,1)" d="{eye}" '
        f'fill="{p.light}"/>'
        f'<path d="{mouth}" fill="{p.light}"/>'
    )


EMBLEMS: dict[str, Callable[[Palette], str]] = {
    "Angels": emblem_angels,
    "Suns": emblem_suns,
    "Wands": emblem_wands,
    "Cups": emblem_cups,
    "Towers": emblem_towers,
    "Swords": emblem_swords,
    "Dragons": emblem_dragons,
    "Pentacles": emblem_pentacles,
    "Moons": emblem_moons,
    "Demons": emblem_demons,
}


def emblem(suit: str, cx: float, cy: float, size: float, stroke: float = 4.0) -> str:
    """The suit's emblem centred on (cx, cy), size units across."""
    p = SUIT_COLOURS[suit]
    s = size / 100
    return (
        f'<g transform="translate({fmt(cx)},{fmt(cy)}) scale({fmt(s)})" fill="{p.main}" '
        f'stroke="{p.dark}" stroke-width="{fmt(stroke)}" stroke-linejoin="round" '
        f'stroke-linecap="round">{EMBLEMS[suit](p)}</g>'
    )


# ---------------------------------------------------------------------------------------------
# Numerals, drawn as stroked paths in a 36 x 56 box (Qt renders SVG text as boxes).
# ---------------------------------------------------------------------------------------------

DIGITS: dict[int, str] = {
    3: "M4 9 C9 1 29 0 30 13 C31 22 23 26 15 26 C25 26 33 31 33 42 C33 55 10 58 3 47",
    4: "M26 54 V3 L3 38 H35",
    5: "M31 3 H9 L6 26 C12 22 19 21 25 23 C33 27 35 38 32 46 C27 56 10 57 3 48",
    6: "M30 6 C25 1 13 1 9 11 C5 20 4 32 5 41 C6 51 13 55 19 55 C28 55 33 48 33 40 "
    "C33 31 27 26 19 26 C12 26 7 30 5 37",
    7: "M3 4 H33 C24 18 17 34 14 54",
}


def numeral(value: int, x: float, y: float, scale: float, colour: str, width: float = 8) -> str:
    return (
        f'<path transform="translate({fmt(x)},{fmt(y)}) scale({fmt(scale)})" d="{DIGITS[value]}" '
        f'fill="none" stroke="{colour}" stroke-width="{fmt(width)}" stroke-linecap="round" '
        'stroke-linejoin="round"/>'
    )


# ---------------------------------------------------------------------------------------------
# Cards. Every card is drawn in its own 0..W x 0..H box; the outer shape is an unstroked
# rounded rectangle so the element's bounds are exactly W x H.
# ---------------------------------------------------------------------------------------------


def frame(border: str, face: str, inset: float = BORDER) -> str:
    return (
        f'<rect width="{W}" height="{H}" rx="{CORNER}" fill="{border}"/>'
        f'<rect x="{fmt(inset)}" y="{fmt(inset)}" width="{fmt(W - 2 * inset)}" '
        f'height="{fmt(H - 2 * inset)}" rx="{fmt(CORNER - inset)}" fill="{face}"/>'
    )


def rotated(content: str) -> str:
    """Content turned half way round the card's centre (for the bottom-right index)."""
    return f'<g transform="rotate(180,{fmt(W / 2)},{fmt(H / 2)})">{content}</g>'


# Pip centres and sizes. Rows at these heights hold 1-3 pips each; all pips stand upright
# (Dragons and Demons read badly upside down, and on screen a card is never turned).
PIP_LAYOUT: dict[int, tuple[tuple[float, int], ...]] = {
    3: ((96, 1), (175, 1), (254, 1)),
    4: ((114, 2), (236, 2)),
    5: ((108, 2), (175, 1), (242, 2)),
    6: ((106, 2), (175, 2), (244, 2)),
    7: ((106, 2), (175, 3), (244, 2)),
}
PIP_SIZE: dict[int, float] = {3: 70, 4: 62, 5: 58, 6: 58, 7: 54}
PIP_COLUMNS: dict[int, tuple[float, ...]] = {1: (125,), 2: (96, 154), 3: (67, 125, 183)}


def pip_centres(value: int) -> list[tuple[float, float]]:
    return [(x, y) for y, count in PIP_LAYOUT[value] for x in PIP_COLUMNS[count]]


def suit_card(suit: str, value: int) -> str:
    p = SUIT_COLOURS[suit]
    face = mix(FACE, p.main, 0.06)
    parts = [frame(INK, face)]
    parts.append(
        f'<rect x="11" y="11" width="{W - 22}" height="{H - 22}" rx="9" fill="none" '
        f'stroke="{mix(p.main, face, 0.45)}" stroke-width="2"/>'
    )
    # corner indices: the numeral turned for the far corner, the emblem upright in both
    parts.append(numeral(value, 13, 15, 1.1, p.ink, 9.5))
    parts.append(emblem(suit, 33, 106, 36, 5))
    parts.append(rotated(numeral(value, 13, 15, 1.1, p.ink, 9.5)))
    parts.append(emblem(suit, W - 33, H - 106, 36, 5))
    size = PIP_SIZE[value]
    parts.extend(emblem(suit, x, y, size, 4.5) for x, y in pip_centres(value))
    return "".join(parts)


def fool_card() -> str:
    gold, purple, teal, red = "#d8a93b", "#5b3a8c", "#1f8a80", "#c0392b"
    face = "#fdf3dc"
    parts = [frame(mix(gold, INK, 0.5), gold, 3)]
    parts.append(f'<rect x="9" y="9" width="{W - 18}" height="{H - 18}" rx="10" fill="{face}"/>')
    # harlequin diamonds, clipped by hand to a box inside the rounded face (no clipPath in
    # SVG Tiny), so nothing leaves the card and its bounds stay exact
    diamonds = []
    box = (14.0, 14.0, W - 14.0, H - 14.0)
    for row in range(9):
        for col in range(7):
            if (row + col) % 2:
                continue
            cx, cy = 9 + col * 38.67, 9 + row * 41.5
            shape = [(cx, cy - 20.75), (cx + 19.33, cy), (cx, cy + 20.75), (cx - 19.33, cy)]
            clipped = clip_to_box(shape, box)
            if len(clipped) >= 3:
                diamonds.append("M" + " L".join(f"{fmt(x)} {fmt(y)}" for x, y in clipped) + " Z")
    parts.append(f'<path d="{" ".join(diamonds)}" fill="{gold}" opacity="0.16"/>')
    parts.append(
        f'<rect x="9" y="9" width="{W - 18}" height="{H - 18}" rx="10" fill="none" '
        f'stroke="{mix(gold, INK, 0.3)}" stroke-width="2"/>'
    )
    parts.append(fool_figure(125, 180, 1.0, gold, purple, teal, red))
    parts.append(fool_cap(40, 44, 0.34, gold, purple, teal, red))
    parts.append(fool_cap(W - 40, H - 24, 0.34, gold, purple, teal, red))
    return "".join(parts)


def clip_to_box(
    polygon: list[tuple[float, float]], box: tuple[float, float, float, float]
) -> list[tuple[float, float]]:
    """Sutherland-Hodgman clip of a convex polygon to the box (x0, y0, x1, y1)."""
    x0, y0, x1, y1 = box
    edges: list[tuple[Callable[[tuple[float, float]], bool], int, float]] = [
        (lambda q: q[0] >= x0, 0, x0),
        (lambda q: q[0] <= x1, 0, x1),
        (lambda q: q[1] >= y0, 1, y0),
        (lambda q: q[1] <= y1, 1, y1),
    ]
    out = polygon
    for inside, axis, limit in edges:
        src, out = out, []
        for i, cur in enumerate(src):
            prev = src[i - 1]
            if inside(cur) != inside(prev):
                t = (limit - prev[axis]) / (cur[axis] - prev[axis])
                out.append((prev[0] + (cur[0] - prev[0]) * t, prev[1] + (cur[1] - prev[1]) * t))
            if inside(cur):
                out.append(cur)
        if not out:
            break
    return out


def fool_cap(cx: float, cy: float, s: float, gold: str, purple: str, teal: str, red: str) -> str:
    """A three-pointed jester's cap with bells, its band centred on (cx, cy)."""
    left = "M-30 0 C-40 -20 -56 -34 -74 -30 C-60 -46 -36 -44 -20 -28 Z"
    mid = "M-20 -2 C-24 -30 -14 -56 0 -68 C14 -56 24 -30 20 -2 Z"
    right = "M30 0 C40 -20 56 -34 74 -30 C60 -46 36 -44 20 -28 Z"
    band = "M-36 -6 Q0 -16 36 -6 L38 10 Q0 0 -38 10 Z"
    bell = []
    for bx, by, col in ((-76, -28, gold), (0, -72, gold), (76, -28, gold)):
        bell.append(f'<circle cx="{bx}" cy="{by}" r="9" fill="{col}"/>')
        bell.append(f'<path d="M{bx - 4} {by + 2} H{bx + 4}" fill="none" stroke-width="2.5"/>')
    return (
        f'<g transform="translate({fmt(cx)},{fmt(cy)}) scale({fmt(s)})" stroke="{INK}" '
        'stroke-width="4" stroke-linejoin="round" stroke-linecap="round">'
        f'<path d="{left}" fill="{purple}"/><path d="{right}" fill="{teal}"/>'
        f'<path d="{mid}" fill="{red}"/>'
        f'<path d="{band}" fill="{gold}"/>' + "".join(bell) + "</g>"
    )


def fool_figure(cx: float, cy: float, s: float, gold: str, purple: str, teal: str, red: str) -> str:
    """The Fool: a grinning half-moon mask under a jester's cap."""
    skin = "#f6dcc0"
    face = "M-34 -22 C-34 18 -18 46 0 46 C18 46 34 18 34 -22 Z"
    collar = []
    for i in range(7):
        x0 = -56 + i * 16
        colour = purple if i % 2 else teal
        collar.append(f'<path d="M{x0} 52 L{x0 + 16} 52 L{x0 + 8} 76 Z" fill="{colour}"/>')
    for i in range(7):
        collar.append(f'<circle cx="{-48 + i * 16}" cy="79" r="3.5" fill="{gold}"/>')
    return (
        f'<g transform="translate({fmt(cx)},{fmt(cy)}) scale({fmt(s)})" stroke="{INK}" '
        'stroke-width="4" stroke-linejoin="round" stroke-linecap="round">'
        + "".join(collar)
        + f'<path d="{face}" fill="{skin}"/>'
        # cheeks, eyes, grin
        + f'<circle cx="-20" cy="10" r="6" fill="{red}" opacity="0.35" stroke="none"/>'
        + f'<circle cx="20" cy="10" r="6" fill="{red}" opacity="0.35" stroke="none"/>'
        + '<path d="M-22 -4 Q-14 -12 -6 -4 M6 -4 Q14 -12 22 -4" fill="none" stroke-width="4"/>'
        + f'<path d="M-18 16 Q0 36 18 16 Q0 24 -18 16 Z" fill="{red}"/>'
        + '<path d="M-7 -14 L-14 -20 M7 -14 L14 -20" fill="none" stroke-width="2.5"/>'
        + "</g>"
        + fool_cap(cx, cy - 22 * s, 1.05 * s, gold, purple, teal, red)
    )


def skull(cx: float, cy: float, s: float, bone: str, hollow: str) -> str:
    head = (
        "M0 -44 C26 -44 40 -26 40 -4 C40 12 32 18 26 22 L24 36 C24 42 18 46 12 46 H-12 "
        "C-18 46 -24 42 -24 36 L-26 22 C-32 18 -40 12 -40 -4 C-40 -26 -26 -44 0 -44 Z"
    )
    eye = "M-24 -8 C-24 -18 -8 -18 -6 -8 C-5 2 -12 8 -18 8 C-22 8 -24 2 -24 -8 Z"
    nose = "M0 10 L-6 20 H6 Z"
    teeth = "M-14 30 V44 M-5 31 V46 M5 31 V46 M14 30 V44"
    return (
        f'<g transform="translate({fmt(cx)},{fmt(cy)}) scale({fmt(s)})" stroke="{INK}" '
        'stroke-width="4" stroke-linejoin="round" stroke-linecap="round">'
        f'<path d="{head}" fill="{bone}"/>'
        f'<path d="{eye}" fill="{hollow}"/><path transform="scale(-1,1)" d="{eye}" '
        f'fill="{hollow}"/>'
        f'<path d="{nose}" fill="{hollow}"/>'
        f'<path d="{teeth}" fill="none" stroke-width="3"/>'
        "</g>"
    )


def death_card() -> str:
    bone, hollow = "#ece3cf", "#0e0c12"
    parts = [frame("#0b0a0d", "#6b6170", 3)]
    parts.append(
        f'<rect x="7" y="7" width="{W - 14}" height="{H - 14}" rx="11" fill="url(#deathSky)"/>'
    )
    parts.append(
        f'<rect x="12" y="12" width="{W - 24}" height="{H - 24}" rx="8" fill="none" '
        f'stroke="{bone}" stroke-width="1.5" opacity="0.5"/>'
    )
    # a hooded cloak, then the scythe, then the skull in the hood
    parts.append(
        '<path d="M125 86 C172 86 198 132 200 190 C202 232 214 290 226 338 H24 C36 290 48 232 '
        f'50 190 C52 132 78 86 125 86 Z" fill="{hollow}" stroke="#5a4f63" stroke-width="3"/>'
    )
    parts.append(
        '<path d="M125 104 C160 104 180 140 180 184 C180 214 160 236 125 236 C90 236 70 214 70 '
        '184 C70 140 90 104 125 104 Z" fill="#050407"/>'
    )
    # scythe behind the skull: a long snath and a curved blade at the top
    parts.append(
        '<g stroke-linecap="round" stroke-linejoin="round">'
        f'<line x1="62" y1="312" x2="186" y2="54" stroke="{hollow}" stroke-width="13"/>'
        '<line x1="62" y1="312" x2="186" y2="54" stroke="#8a6a48" stroke-width="7"/>'
        f'<path d="M186 54 C150 30 96 34 56 70 C100 52 146 54 180 72 Z" fill="{bone}" '
        f'stroke="{hollow}" stroke-width="4"/>'
        f'<line x1="96" y1="254" x2="118" y2="266" stroke="{hollow}" stroke-width="11"/>'
        '<line x1="96" y1="254" x2="118" y2="266" stroke="#8a6a48" stroke-width="5"/>'
        "</g>"
    )
    parts.append(skull(125, 172, 1.05, bone, hollow))
    parts.append(skull(34, 40, 0.36, bone, hollow))
    parts.append(skull(W - 34, H - 40, 0.36, bone, hollow))
    return "".join(parts)


def back_card() -> str:
    gold = "#e2c46f"
    parts = [frame("#121028", "#121028", 0)]
    parts.append(
        f'<rect x="6" y="6" width="{W - 12}" height="{H - 12}" rx="11" fill="url(#backSky)"/>'
    )
    parts.append(
        f'<rect x="13" y="13" width="{W - 26}" height="{H - 26}" rx="7" fill="none" '
        f'stroke="{gold}" stroke-width="2"/>'
    )
    parts.append(
        f'<rect x="18" y="18" width="{W - 36}" height="{H - 36}" rx="5" fill="none" '
        f'stroke="{gold}" stroke-width="1" opacity="0.6"/>'
    )
    # stars, scattered deterministically and repeated half way round for a symmetric back
    rng = random.Random(1989)
    dots = []
    sparkles = []
    for _ in range(34):
        x, y = rng.uniform(26, W - 26), rng.uniform(26, H / 2)
        r = rng.choice((1.0, 1.3, 1.6, 2.0))
        for sx, sy in ((x, y), (W - x, H - y)):
            dots.append(
                f"M{fmt(sx - r)} {fmt(sy)} a{fmt(r)} {fmt(r)} 0 1 0 {fmt(2 * r)} 0 "
                f"a{fmt(r)} {fmt(r)} 0 1 0 {fmt(-2 * r)} 0 Z"
            )
    for _ in range(5):
        x, y = rng.uniform(34, W - 34), rng.uniform(34, H / 2 - 70)
        size = rng.uniform(6, 10)
        for sx, sy in ((x, y), (W - x, H - y)):
            sparkles.append(f'<polygon points="{star(sx, sy, size, size / 4, 4)}"/>')
    parts.append(f'<path d="{" ".join(dots)}" fill="#fff7dc" opacity="0.85"/>')
    parts.append(f'<g fill="{gold}">{"".join(sparkles)}</g>')
    # the dreaming moon: a halo, a ring and a crescent at the centre
    parts.append('<circle cx="125" cy="175" r="70" fill="url(#moonGlow)"/>')
    parts.append(
        f'<circle cx="125" cy="175" r="56" fill="none" stroke="{gold}" stroke-width="2" '
        'stroke-dasharray="2 6" stroke-linecap="round"/>'
    )
    parts.append(
        f'<path d="{crescent(125, 175, 40, 16, -10, 33)}" fill="{gold}" stroke="#6b5420" '
        'stroke-width="2"/>'
    )
    parts.append(f'<polygon fill="#fff7dc" points="{star(146, 188, 9, 2.5, 4)}"/>')
    return "".join(parts)


DEFS = (
    "<defs>"
    '<linearGradient id="backSky" x1="0" y1="0" x2="0" y2="1">'
    '<stop offset="0" stop-color="#1b1846"/><stop offset="0.5" stop-color="#3a2a6e"/>'
    '<stop offset="1" stop-color="#1b1846"/></linearGradient>'
    '<radialGradient id="moonGlow" cx="0.5" cy="0.5" r="0.5">'
    '<stop offset="0" stop-color="#f6e7b0" stop-opacity="0.45"/>'
    '<stop offset="1" stop-color="#f6e7b0" stop-opacity="0"/></radialGradient>'
    '<radialGradient id="deathSky" cx="0.5" cy="0.45" r="0.7">'
    '<stop offset="0" stop-color="#3b3342"/><stop offset="1" stop-color="#121016"/>'
    "</radialGradient>"
    "</defs>"
)


def emblem_element(suit: str) -> str:
    """A square box holding only the emblem (unstroked transparent box sets the bounds)."""
    half = EMBLEM_BOX / 2
    return f'<rect width="{EMBLEM_BOX}" height="{EMBLEM_BOX}" fill="none"/>' + emblem(
        suit, half, half, EMBLEM_BOX * 0.9, 3.5
    )


def build_deck() -> str:
    cols = len(card_ids.VALUES)
    elements: list[tuple[str, float, float, str]] = []
    for row, suit in enumerate(card_ids.SUITS):
        for col, value in enumerate(card_ids.VALUES):
            x, y = GAP + col * (W + GAP), GAP + row * (H + GAP)
            elements.append((card_ids.card_id(suit, value), x, y, suit_card(suit, value)))
    special_y = GAP + len(card_ids.SUITS) * (H + GAP)
    for col, (cid, content) in enumerate(
        (
            (card_ids.FOOL_ID, fool_card()),
            (card_ids.DEATH_ID, death_card()),
            (card_ids.BACK_ID, back_card()),
        )
    ):
        elements.append((cid, GAP + col * (W + GAP), special_y, content))
    emblem_y = special_y + H + GAP
    emblem_gap = (cols * (W + GAP) - GAP - len(card_ids.SUITS) * EMBLEM_BOX) / (
        len(card_ids.SUITS) - 1
    )
    for i, suit in enumerate(card_ids.SUITS):
        ex = GAP + i * (EMBLEM_BOX + emblem_gap)
        elements.append((card_ids.emblem_id(suit), ex, emblem_y, emblem_element(suit)))
    width = GAP + cols * (W + GAP)
    height = emblem_y + EMBLEM_BOX + GAP
    body = "\n".join(
        f'<g id="{eid}" transform="translate({fmt(x)},{fmt(y)})">{content}</g>'
        for eid, x, y, content in elements
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<svg xmlns="http://www.w3.org/2000/svg" version="1.2" baseProfile="tiny" '
        f'width="{fmt(width)}" height="{fmt(height)}" viewBox="0 0 {fmt(width)} {fmt(height)}">\n'
        "<title>Somnium deck</title>\n"
        "<!-- Original art for Somnium Desktop, generated by scripts/make_deck.py; "
        "do not edit by hand. -->\n"
        f"{DEFS}\n{body}\n</svg>\n"
    )


def build_icon() -> str:
    """The application icon: a dream-sky card with a crescent moon, leaning on a second card."""
    gold = "#e2c46f"
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<svg xmlns="http://www.w3.org/2000/svg" version="1.2" baseProfile="tiny" '
        'width="256" height="256" viewBox="0 0 256 256">\n'
        "<title>Somnium</title>\n"
        "<defs>"
        '<linearGradient id="sky" x1="0" y1="0" x2="0" y2="1">'
        '<stop offset="0" stop-color="#26205a"/><stop offset="1" stop-color="#4a3488"/>'
        "</linearGradient></defs>\n"
        # a face card leaning left, showing a sun in its corner
        '<g transform="rotate(-16,96,132)">'
        f'<rect x="36" y="46" width="120" height="168" rx="12" fill="{FACE}" stroke="{INK}" '
        'stroke-width="6"/>'
        + numeral(7, 50, 60, 0.62, SUIT_COLOURS["Suns"].ink, 9)
        + emblem("Suns", 68, 120, 42, 6)
        + "</g>\n"
        # the dream-sky back in front, leaning right
        '<g transform="rotate(12,160,128)">'
        f'<rect x="100" y="44" width="120" height="168" rx="12" fill="url(#sky)" stroke="{INK}" '
        'stroke-width="6"/>'
        f'<rect x="110" y="54" width="100" height="148" rx="6" fill="none" stroke="{gold}" '
        'stroke-width="3"/>'
        f'<path d="{crescent(160, 128, 38, 16, -10, 31)}" fill="{gold}" stroke="#6b5420" '
        'stroke-width="3"/>'
        f'<polygon fill="#fff7dc" points="{star(182, 142, 11, 3, 4)}"/>'
        f'<polygon fill="#fff7dc" points="{star(128, 78, 8, 2.2, 4)}"/>'
        f'<polygon fill="#fff7dc" points="{star(190, 184, 7, 2, 4)}"/>'
        "</g>\n</svg>\n"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--root", type=Path, default=ROOT, help="checkout to write into")
    args = parser.parse_args(argv)
    outputs = {
        args.root / card_ids.DECK_SVG_RELPATH: build_deck(),
        args.root / card_ids.ICON_SVG_RELPATH: build_icon(),
    }
    for path, text in outputs.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", newline="\n")
        print(f"wrote {path} ({len(text.encode()):,} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
