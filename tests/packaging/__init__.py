"""Tests of what ships: versions, the desktop entry, the wheel, the bundle, the hosted server."""
