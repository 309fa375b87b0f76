"""The desktop app's widgets: the card table, the main window, settings and dialogs."""
