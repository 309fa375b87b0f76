"""The bundle's entry point: PyInstaller freezes this script, which starts the desktop app."""

import sys

from somnium_desktop.__main__ import main

sys.exit(main())
