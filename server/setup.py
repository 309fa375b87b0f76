"""Build hook of the server's distribution: of the package `somnium_desktop` only the rules.

pyproject.toml maps the checkout's `somnium_desktop` and `somnium_desktop.game*` into this
distribution; setuptools would take every module of `somnium_desktop` itself (the app's entry
point, its desktop-entry installer, ...). This keeps that package to its `__init__.py`, which
holds the version, so the server's installation carries no module that needs Qt.
"""

from __future__ import annotations

from setuptools import setup
from setuptools.command.build_py import build_py

KEPT = {("somnium_desktop", "__init__")}


class RulesOnly(build_py):
    """build_py, keeping of `somnium_desktop`'s own modules only `__init__`."""

    def find_package_modules(self, package: str, package_dir: str) -> list[tuple[str, str, str]]:
        modules: list[tuple[str, str, str]] = super().find_package_modules(package, package_dir)
        if package != "somnium_desktop":
            return modules
        return [module for module in modules if (module[0], module[1]) in KEPT]


setup(cmdclass={"build_py": RulesOnly})
