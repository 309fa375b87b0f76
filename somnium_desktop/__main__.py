"""Starts the desktop app: `python -m somnium_desktop` (or the `somnium` command)."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from . import __version__

_STARTED = time.monotonic()

# Qt's own command-line options (QApplication's and QGuiApplication's documented ones), which go
# on to Qt; any other argument the app does not know is an error.
QT_OPTIONS_WITH_VALUE = frozenset(
    {
        "-style", "-stylesheet", "-platform", "-platformpluginpath", "-platformtheme", "-plugin",
        "-qwindowgeometry", "-qwindowicon", "-qwindowtitle", "-session", "-display", "-geometry",
    }
)
QT_OPTIONS_WITH_EQUALS = frozenset({"-qmljsdebugger", "-dialogs", "-fontengine"})
QT_FLAGS = frozenset({"-widgetcount", "-reverse", "-nograb", "-dograb", "-sync"})


def qt_arguments(parser: argparse.ArgumentParser, rest: list[str]) -> list[str]:
    """The arguments the app did not take, checked to be Qt's options (else a usage error)."""
    index = 0
    while index < len(rest):
        argument = rest[index]
        name, equals, _ = argument.partition("=")
        if (name in QT_OPTIONS_WITH_VALUE or name in QT_OPTIONS_WITH_EQUALS) and equals:
            index += 1
        elif name in QT_OPTIONS_WITH_VALUE and index + 1 < len(rest):
            index += 2
        elif argument in QT_FLAGS:
            index += 1
        else:
            parser.error(f"unrecognized arguments: {' '.join(rest[index:])}")
    return rest


def _parse(argv: list[str]) -> tuple[argparse.Namespace, list[str]]:
    parser = argparse.ArgumentParser(
        prog="somnium",
        description="Somnium, the card game.",
        epilog="Qt's own options (-platform NAME, -style NAME, -reverse ...) go on to Qt.",
    )
    parser.add_argument(
        "--benchmark-startup",
        action="store_true",
        help="print start-up figures once the window is first painted, then quit",
    )
    parser.add_argument(
        "--benchmark-lobby",
        action="store_true",
        help="print start-up figures once the lobby lists its server's games, then quit",
    )
    parser.add_argument(
        "--benchmark-memory",
        action="store_true",
        help="start as usual; mark when the lobby lists its server's games and after a whole "
        "game against the computer (for a reader of this process's memory), then quit",
    )
    parser.add_argument("--no-log-file", action="store_true", help="do not write a log file")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument(
        "--smoke-test",
        action="store_true",
        help="show the window, check the card art and icon once it is painted, then quit "
        "(status 0 when all is well)",
    )
    desktop = parser.add_mutually_exclusive_group()
    desktop.add_argument(
        "--install-desktop",
        action="store_true",
        help="add Somnium to your application menu (desktop entry, icons, metainfo under "
        "$XDG_DATA_HOME, by default ~/.local/share), then quit",
    )
    desktop.add_argument(
        "--uninstall-desktop", action="store_true", help="take it out of the menu again"
    )
    args, rest = parser.parse_known_args(argv)
    return args, qt_arguments(parser, rest)


def main(argv: list[str] | None = None) -> int:
    """Run the app until its window closes; returns the exit status."""
    args, qt_args = _parse(sys.argv[1:] if argv is None else argv)
    if args.install_desktop or args.uninstall_desktop:
        from .desktop_entry import main as desktop_main

        return desktop_main(remove=args.uninstall_desktop)
    from PySide6.QtWidgets import QApplication

    from .app_names import APPLICATION, ORGANIZATION
    from .ui.style import STYLE

    # Fusion everywhere (a -style among the arguments still wins: it comes later).
    existing = QApplication.instance()
    app = existing or QApplication([sys.argv[0], "-style", STYLE, *qt_args])
    assert isinstance(app, QApplication)
    app.setOrganizationName(ORGANIZATION)
    app.setApplicationName(APPLICATION)
    app.setApplicationDisplayName("Somnium")

    from PySide6.QtCore import QStandardPaths, QTimer

    from .assets import APP_ID

    app.setDesktopFileName(APP_ID)  # Wayland's app id: the desktop entry's name

    from .ui.cards import CardDeck
    from .ui.errors import ExceptionHandler, log, setup_logging
    from .ui.first_paint import after_first_paint
    from .ui.main_window import MainWindow
    from .ui.source_lines import forget_source_lines
    from .ui.style import apply_style

    handler = ExceptionHandler()
    handler.install()
    apply_style(app, set_style=existing is not None)
    cache = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.CacheLocation)
    deck = CardDeck(disk_cache=Path(cache) / "cards")  # the first paint parses no art
    # The first frame is the table; the lobby and offline column fills in right after it, and
    # online play then begins the built-in server (when no other is set). Nothing before the
    # first paint starts that server: its boot (most of a second of CPU) would share the
    # machine's cores with the window's start.
    window = MainWindow(deck=deck, column_after_paint=True)
    viewport = window.table.view.viewport()

    def set_icon() -> None:
        """The window icon (on X11, rendering the SVG icon for the window manager took ~10% of
        the CPU to the first paint)."""
        from PySide6.QtGui import QIcon

        from .assets import icon_svg

        app.setWindowIcon(QIcon(str(icon_svg())))

    def after_paint() -> None:
        """Right after the first paint: the column; the icon once online play has begun (it
        is queued after the paint's other work, which starts the lobby's connection)."""
        window.complete_column()
        forget_source_lines()  # of the column's and online play's modules
        QTimer.singleShot(0, set_icon)

    after_first_paint(viewport, after_paint)
    if args.benchmark_startup or args.benchmark_lobby:
        from .ui.startup_probe import StartupProbe

        StartupProbe(window, _STARTED, lobby=args.benchmark_lobby).install()
    else:  # online play (the lobby, the built-in server) starts once the table is on screen
        after_first_paint(viewport, window.start_online)
        if args.benchmark_memory:
            from .ui.memory_probe import MemoryProbe

            after_first_paint(viewport, MemoryProbe(window).install)
    forget_source_lines()  # of the window's modules, before the column's are read
    window.show()
    if args.smoke_test:  # it watches for the first paint, which comes from the event loop
        from .ui.smoke import SmokeTest

        SmokeTest(window, deck, _STARTED).install()

    def once_shown() -> None:
        """What can wait until the window is up: the log file, then parsing the art."""
        written = None if args.no_log_file else setup_logging()
        if written is not None:  # (None: the log folder cannot be written, as stderr says)
            handler.log_path = Path(written.baseFilename)
        log.info("Somnium Desktop started")
        deck.warm_up()

    QTimer.singleShot(100, once_shown)
    status = app.exec()
    handler.uninstall()
    return status


if __name__ == "__main__":
    sys.exit(main())
