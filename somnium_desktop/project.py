"""Where the project lives on the web: the one base every published address is built from.

The metainfo's screenshots and links (packaging/metainfo.py), the wheels' Project-URLs and the
README's pictures all start with these; tests/packaging/test_metadata.py and test_readme.py
check that they do.
"""

from __future__ import annotations

REPOSITORY = "https://github.com/somnium-desktop/somnium-desktop"
BRANCH = "main"
# The repository's files as served raw (pictures a package index or software centre can show).
RAW_BASE = f"https://raw.githubusercontent.com/somnium-desktop/somnium-desktop/{BRANCH}/"
HOMEPAGE = REPOSITORY
BUG_TRACKER = f"{REPOSITORY}/issues"


def raw_url(path: str) -> str:
    """The address of the repository file at `path` (relative, with forward slashes)."""
    if path.startswith("/") or "\\" in path:
        raise ValueError(f"not a relative repository path: {path!r}")
    return RAW_BASE + path
