"""The app's names for QSettings and its folders, and the server setting's key (no Qt here)."""

from __future__ import annotations

ORGANIZATION = "Somnium"
APPLICATION = "Somnium Desktop"
SERVER_KEY = "online/server"  # the setting naming a lobby server (ui.settings)
