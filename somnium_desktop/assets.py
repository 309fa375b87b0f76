"""Finds the app's resources (card art, icon, desktop entry) in a checkout, a wheel or a bundle."""

from __future__ import annotations

from pathlib import Path, PurePosixPath

_PACKAGE = Path(__file__).resolve().parent
_CHECKOUT = _PACKAGE.parent

#: Checkout folders that travel inside the installed package, and where they land under
#: somnium_desktop/. setup.py (wheels) and packaging/build_bundle.py (PyInstaller) both copy
#: by this table; a checkout or an editable install reads the folders in place.
SHIPPED_FOLDERS: dict[str, str] = {
    "resources": "resources",
    "packaging/desktop": "resources/desktop",
}
#: The kinds of file those folders ship (their READMEs stay behind).
SHIPPED_SUFFIXES = (".svg", ".ttf", ".otf", ".png", ".txt", ".desktop", ".xml")

APP_ID = "io.github.somnium_desktop.somnium"
"""The reverse-DNS application id: the desktop entry's, the icon's and the metainfo's name."""


def shipped_files(checkout: Path) -> list[tuple[Path, PurePosixPath]]:
    """Every (file in the checkout, its path under somnium_desktop/) that an install carries."""
    files = []
    for source, target in SHIPPED_FOLDERS.items():
        folder = checkout / source
        for path in sorted(folder.rglob("*")):
            if path.is_file() and path.suffix in SHIPPED_SUFFIXES:
                files.append((path, PurePosixPath(target, path.relative_to(folder).as_posix())))
    return files


def _candidates(parts: tuple[str, ...]) -> list[Path]:
    """Where resources/<parts> may be: installed in the package first, then in the checkout."""
    wanted = PurePosixPath("resources", *parts)
    found = [_PACKAGE.joinpath(*wanted.parts)]
    # The most specific folder first: resources/desktop/... comes from packaging/desktop/.
    for source, target in sorted(SHIPPED_FOLDERS.items(), key=lambda item: -len(item[1])):
        if wanted.is_relative_to(target):
            found.append(_CHECKOUT / source / wanted.relative_to(target))
            break
    return found


def resource_path(*parts: str) -> Path:
    """The path of a resource, e.g. resource_path("cards", "deck.svg"); it may not exist."""
    candidates = _candidates(parts)
    for path in candidates:
        if path.exists():
            return path
    return candidates[-1]


def deck_svg() -> Path:
    """The card deck art."""
    return resource_path("cards", "deck.svg")


def icon_svg() -> Path:
    """The application icon."""
    return resource_path("icons", "somnium.svg")


def desktop_file(suffix: str) -> Path:
    """The desktop entry (".desktop") or the AppStream metainfo (".metainfo.xml") template."""
    return resource_path("desktop", APP_ID + suffix)
