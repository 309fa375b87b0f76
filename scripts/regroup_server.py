#!/usr/bin/env python3
"""Regroup the lobby server's modules by part: moves the files and rewrites every reference.

Run it from a checkout, on a clean work tree, after merging the branches that change the server:

    python scripts/regroup_server.py            # move, rewrite, sort imports (ruff), report
    python scripts/regroup_server.py --check    # what it would do; exit 1 if anything is left
    python scripts/regroup_server.py --map replays.py=play/replays.py   # place a new module too

The layout it makes (paths under server/somnium_server/, MAPPING below):

    app.py cli.py config.py context.py logs.py embedded.py embedded_server.py __main__.py
            stay: the process (entry points, settings, the wiring of the parts)
    api/      the HTTP API: routes, models, errors, rate limits, /docs (and its docs_assets/)
    play/     the games served: games, rooms, computer players, the lobby, chat, ratings, names
    live/     live events: the event streams, what instances tell each other, presence
    storage/  the storage interface (storage.py becomes storage/__init__.py) and both backends
    signin/   sign-in (already a package) and the users' session tokens

What it does, each step skipped where already done (a second run changes nothing):
1. `git mv` of each mapped file or folder still at its old place (a new sub-package first gets
   an __init__.py with a one-line docstring, PACKAGES below).
2. Every import of a server module inside server/somnium_server/ becomes absolute
   (`from .storage import X` -> `from somnium_server.storage import X`, `from .. import names` ->
   `from somnium_server.play import names`), so one style holds whatever the folder. A relative
   import merged in after the move, still written for the flat layout (`from .storage import X`
   in play/games.py), is read as the flat layout meant it.
3. In every text file git tracks (tests, benchmarks, packaging, docs, pyproject.toml; not
   CHANGELOG.md, which tells history): dotted names (`somnium_server.routes`, logger names,
   `from somnium_server import games`), paths (`somnium_server/docs.py`), the package-data
   patterns of both pyproject.toml files, and, in the server's own files and docs/server.md,
   bare file names (`storage_backend.py` -> `storage/backend.py`; in a sub-package a sibling's
   name stays, and outside the package a name two folders hold, `routes.py`, stays).
4. Comment and docstring lines made longer than 100 columns are wrapped; `ruff check --select I
   --fix` sorts the imports of the Python files it changed; lines still too long are listed.

A module at the package's top level that neither MAPPING nor KEPT names (a module added on
another branch) stays where it is (its imports are still rewritten) and is reported with a
suggested place: run again with `--map name.py=part/name.py` to move it.
"""

from __future__ import annotations

import argparse
import ast
import re
import shutil
import subprocess
import sys
import tokenize
from dataclasses import dataclass, field
from io import StringIO
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "somnium_server"
PACKAGE_DIR = ROOT / "server" / PACKAGE
LINE_LENGTH = 100

# old path -> new path, both relative to server/somnium_server/
MAPPING: dict[str, str] = {
    # the HTTP API
    "routes.py": "api/routes.py",
    "chat_routes.py": "api/chat_routes.py",
    "players.py": "api/players.py",
    "models.py": "api/models.py",
    "errors.py": "api/errors.py",
    "apierror.py": "api/apierror.py",
    "bodylimit.py": "api/bodylimit.py",
    "ratelimit.py": "api/ratelimit.py",
    "docs.py": "api/docs.py",
    "docs_assets": "api/docs_assets",  # docs.py finds it beside itself
    # the games served
    "games.py": "play/games.py",
    "rooms.py": "play/rooms.py",
    "computer.py": "play/computer.py",
    "lobby.py": "play/lobby.py",
    "chat.py": "play/chat.py",
    "ratings.py": "play/ratings.py",
    "names.py": "play/names.py",
    # live events
    "events.py": "live/events.py",
    "peers.py": "live/peers.py",
    "presence.py": "live/presence.py",
    # storage: the interface and both backends
    "storage.py": "storage/__init__.py",
    "storage_backend.py": "storage/backend.py",
    "sqlite_storage.py": "storage/sqlite.py",
    "postgres_storage.py": "storage/postgres.py",
    "postgres_pool.py": "storage/postgres_pool.py",
    "postgres_limits.py": "storage/postgres_limits.py",
    "game_rows.py": "storage/game_rows.py",
    "chat_rows.py": "storage/chat_rows.py",
    "rating_rows.py": "storage/rating_rows.py",
    "sqlite_signin.py": "storage/sqlite_signin.py",
    "postgres_signin.py": "storage/postgres_signin.py",
    "signin_statements.py": "storage/signin_statements.py",
    # sign-in
    "sessions.py": "signin/sessions.py",
}

# what stays at the top: the process's entry points, its settings and the parts' wiring
KEPT = {"__init__.py", "__main__.py", "app.py", "cli.py", "config.py", "context.py", "logs.py",
        "embedded.py", "embedded_server.py", "py.typed", "__pycache__"}

# each sub-package's __init__.py, where the script makes it (storage's is storage.py)
PACKAGES: dict[str, str] = {
    "api": "The HTTP API: routes, request and answer models, errors, rate limits and /docs.",
    "play": "The games served: rooms and seats, computer players, the lobby, chat and ratings.",
    "live": "Live events: the event streams, what instances tell each other, and presence.",
    "storage": "The storage interface and its backends, SQLite and PostgreSQL.",
    "signin": "Sign-in: the server as OpenID relying party toward providers and OAuth server "
              "to the app.",
}

# a new module's suggested part, from words in its name (the first that matches)
HINTS = [
    ("storage", ("sqlite", "postgres", "_rows", "storage", "migration", "statements", "sql")),
    ("signin", ("signin", "auth", "session", "token", "oidc", "oauth")),
    ("live", ("event", "stream", "peer", "presence", "notify", "fanout", "listen")),
    ("api", ("route", "api", "model", "http", "middleware", "error", "limit", "docs")),
]

UNTOUCHED = {"CHANGELOG.md", "scripts/regroup_server.py"}  # history, and this script


@dataclass
class Plan:
    """What a run does: files moved, files rewritten, and what to tell whoever runs it."""

    moves: list[tuple[str, str]] = field(default_factory=list)
    inits: list[str] = field(default_factory=list)
    rewrites: dict[Path, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


def git(*args: str) -> str:
    done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True)
    return done.stdout


def dotted(relative: str) -> str:
    """A path's module under the package: 'storage/__init__.py' -> 'somnium_server.storage'."""
    parts = relative.removesuffix(".py").split("/")
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join([PACKAGE, *parts])


def suggestion(name: str) -> str:
    for part, words in HINTS:
        if any(word in name for word in words):
            return part
    return "play"


def unmapped(mapping: dict[str, str]) -> list[str]:
    """Top-level entries of the package that nothing places, new modules from other branches."""
    known = KEPT | set(mapping) | set(PACKAGES) | {path.split("/")[0] for path in mapping.values()}
    return sorted(entry.name for entry in PACKAGE_DIR.iterdir() if entry.name not in known
                  and not entry.name.endswith(".egg-info"))


# -- the rewriting of Python imports --------------------------------------------------------------


class Names:
    """The old module names and their new ones, and which file was where before the move."""

    def __init__(self, mapping: dict[str, str], moved: dict[str, str]) -> None:
        self.modules = {dotted(old): dotted(new) for old, new in mapping.items()
                        if old.endswith(".py") and dotted(old) != dotted(new)}
        self.old = {dotted(old) for old in mapping if old.endswith(".py")}  # the flat layout's
        self.moved = moved  # new path -> old path, for files moved by this run

    def new(self, module: str) -> str:
        return self.modules.get(module, module)

    def package_of(self, path: Path) -> list[str]:
        """The package a file's relative imports were written for: its place before this run."""
        relative = path.relative_to(PACKAGE_DIR).as_posix()
        relative = self.moved.get(relative, relative)
        return [PACKAGE, *relative.split("/")[:-1]]


def _resolve(node: ast.ImportFrom, package: list[str]) -> str:
    if node.level == 0:
        return node.module or ""
    base = package[: len(package) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _exists(module: str) -> bool:
    """Whether the package holds this module now (a file, or a folder with __init__.py)."""
    place = PACKAGE_DIR.joinpath(*module.split(".")[1:])
    return place.with_suffix(".py").is_file() or (place / "__init__.py").is_file()


def _alias(name: str, asname: str | None) -> str:
    return f"{name} as {asname}" if asname else name


def _import_from(node: ast.ImportFrom, text: str, names: Names, package: list[str] | None) -> str:
    """The new text of one `from ... import ...` statement (its old text if nothing changes)."""
    if node.level and package is None:
        return text  # a relative import outside the package (tests' helpers): not ours
    module = _resolve(node, package or [])
    if module != PACKAGE and not module.startswith(PACKAGE + "."):
        return text
    if node.level and node.module and not _exists(module):
        # written for the flat layout, merged in after the move (`.storage` in play/games.py)
        module = f"{PACKAGE}.{node.module}" if f"{PACKAGE}.{node.module}" in names.old \
            else module
    target = names.new(module)
    # `from package import module, ...`: each imported module may have moved elsewhere
    groups: dict[str, list[str]] = {}
    renamed = False
    for alias in node.names:
        full = names.new(f"{module}.{alias.name}")
        flat = f"{PACKAGE}.{alias.name}"
        if node.level and not node.module and full == f"{module}.{alias.name}" and \
                flat in names.old and not _exists(full):
            full = names.new(flat)  # `from . import peers` in play/games.py, as above
        if full != f"{module}.{alias.name}":
            parent, _, leaf = full.rpartition(".")
            renamed |= leaf != alias.name
            groups.setdefault(parent, []).append(_alias(leaf, alias.asname or (
                alias.name if leaf != alias.name else None)))
        else:
            groups.setdefault(target, []).append(_alias(alias.name, alias.asname))
    if len(groups) == 1 and not renamed:
        # one target: keep the names' text (parentheses, comments) and change the module only
        (single,) = groups
        return re.sub(r"^from\s+[.\w]+\s+import\b", f"from {single} import", text, count=1)
    indent = " " * node.col_offset
    return f"\n{indent}".join(f"from {parent} import {', '.join(group)}"
                              for parent, group in groups.items())


def rewrite_imports(source: str, names: Names, package: list[str] | None) -> tuple[str, bool]:
    """The source with its imports of server modules rewritten; True if a comment was lost."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return source, False
    data = source.encode()
    starts = [0]
    for line in data.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    edits: list[tuple[int, int, bytes]] = []
    lost = False
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom) or node.end_lineno is None:
            continue
        begin = starts[node.lineno - 1] + node.col_offset
        end = starts[node.end_lineno - 1] + (node.end_col_offset or 0)
        text = data[begin:end].decode()
        new = _import_from(node, text, names, package)
        if new != text:
            lost |= "#" in text and "#" not in new
            edits.append((begin, end, new.encode()))
    for begin, end, replacement in sorted(edits, reverse=True):
        data = data[:begin] + replacement + data[end:]
    return data.decode(), lost


# -- the rewriting of names and paths in any text ---------------------------------------------


def _alternatives(words: list[str]) -> str:
    return "|".join(re.escape(word) for word in sorted(words, key=len, reverse=True))


def rewrite_text(text: str, path: Path, mapping: dict[str, str], names: Names) -> str:
    """Dotted module names, package paths, package-data patterns and bare file names."""
    moved = {old: new for old, new in mapping.items() if old != new}
    olds = {module.removeprefix(PACKAGE + "."): new for module, new in names.modules.items()}
    if olds:
        text = re.sub(rf"(?<![\w.]){PACKAGE}\.({_alternatives(list(olds))})(?!\w)",
                      lambda match: olds[match.group(1)], text)
    if moved:
        text = re.sub(rf"(?<![\w.]){PACKAGE}/({_alternatives(list(moved))})(?![\w.])",
                      lambda match: f"{PACKAGE}/{moved[match.group(1)]}", text)
    if path.name == "pyproject.toml":
        text = _package_data(text, moved)
    relative = path.relative_to(ROOT).as_posix()
    if relative.startswith(f"server/{PACKAGE}/") or relative == "docs/server.md":
        text = _bare_names(text, path, moved, names)
    return text


def _package_data(text: str, moved: dict[str, str]) -> str:
    """`somnium_server = ["py.typed", "docs_assets/swagger-ui/*"]`: patterns follow their folder."""

    def line(match: re.Match[str]) -> str:
        return re.sub(r'"([^"]+)"', lambda pattern: '"' + _moved_pattern(pattern.group(1), moved)
                      + '"', match.group(0))

    return re.sub(rf"^{PACKAGE}\s*=\s*\[.*\]$", line, text, flags=re.MULTILINE)


def _moved_pattern(pattern: str, moved: dict[str, str]) -> str:
    for old, new in moved.items():
        if pattern == old or pattern.startswith(old + "/"):
            return new + pattern[len(old):]
    return pattern


def _bare_names(text: str, path: Path, moved: dict[str, str], names: Names) -> str:
    """`storage_backend.py` -> `storage/backend.py`; a sibling's name in a sub-package is kept."""
    files = {old: new for old, new in moved.items() if old.endswith(".py")}
    if path.is_relative_to(PACKAGE_DIR):
        package = names.package_of(path)[1:]  # the folder the text was written in
        here: str | None = "/".join(path.relative_to(PACKAGE_DIR).parts[:-1])  # and is in now
    else:
        package, here = [], None
        # outside the package a name two folders hold (routes.py) says too little: left as is
        seen = [place.name for place in PACKAGE_DIR.rglob("*.py")]
        files = {old: new for old, new in files.items() if seen.count(old) < 2}

    def replace(match: re.Match[str]) -> str:
        name = match.group(1)
        if package and (PACKAGE_DIR.joinpath(*package) / name).exists():
            return name  # a sibling in the folder the text was written in (signin/routes.py)
        new = files[name]
        folder, _, leaf = new.rpartition("/")
        return leaf if folder == here and leaf != "__init__.py" else new

    if not files:
        return text
    return re.sub(rf"(?<![\w/.\-])({_alternatives(list(files))})(?![\w/])", replace, text)


def wrap_prose(text: str, before: set[str]) -> str:
    """Lines of comments and docstrings the rewriting made too long, wrapped: a ruler's dashes
    shortened, else the last words carried to the next line of the same text (or a new one)."""
    try:
        tokens = list(tokenize.generate_tokens(StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return text
    prose: set[int] = set()  # 0-based lines inside a triple-quoted string, or a lone comment
    for token in tokens:
        if token.type == tokenize.STRING and token.string.endswith(('"""', "'''")):
            prose.update(range(token.start[0] - 1, token.end[0]))
        elif token.type == tokenize.COMMENT and not token.line[: token.start[1]].strip():
            prose.add(token.start[0] - 1)
    lines = text.split("\n")
    number = 0
    while number < len(lines):
        line = lines[number]
        if len(line) <= LINE_LENGTH or line in before or number not in prose:
            number += 1
            continue
        ruler = re.search(r" -{4,}$", line)
        if ruler and len(line) - LINE_LENGTH <= len(ruler.group(0)) - 3:
            lines[number] = line[:LINE_LENGTH]
            continue
        cut = line.rfind(" ", 0, LINE_LENGTH + 1)
        indent = re.match(r"\s*(# )?", line).group(0)  # type: ignore[union-attr]
        if cut <= len(indent):
            number += 1
            continue
        head, tail = line[:cut].rstrip(), line[cut + 1:]
        following = lines[number + 1] if number + 1 < len(lines) else ""
        joined = f"{following[: len(indent)]}{tail} {following[len(indent):]}"
        same = (number + 1 in prose and following.startswith(indent) and
                following[len(indent):].strip() and not following.strip().startswith('"""')
                and len(joined) <= LINE_LENGTH)
        lines[number] = head
        if same:
            lines[number + 1] = joined
        else:
            lines.insert(number + 1, indent + tail)
            prose = {n + 1 if n > number else n for n in prose} | {number + 1}
        number += 1
    return "\n".join(lines)


# -- the run ------------------------------------------------------------------------------------


def plan_moves(mapping: dict[str, str], plan: Plan) -> dict[str, str]:
    moved: dict[str, str] = {}
    for old, new in mapping.items():
        if old == new:
            continue
        there, target = (PACKAGE_DIR / old).exists(), (PACKAGE_DIR / new).exists()
        if there and target:
            plan.warnings.append(f"both {old} and {new} exist: merge them by hand, then run again")
        elif there:
            plan.moves.append((old, new))
            moved[new] = old
    made = {new.split("/")[0] for _, new in plan.moves if "/" in new}
    for folder in sorted(made):
        init = f"{folder}/__init__.py"
        if not (PACKAGE_DIR / init).exists() and init not in moved:
            plan.inits.append(folder)
    return moved


def tracked_texts() -> list[Path]:
    paths = []
    for name in git("ls-files", "-z").split("\0"):
        vendored = "/docs_assets/swagger-ui/" in name and not name.endswith(".md")
        if not name or name in UNTOUCHED or vendored:
            continue
        paths.append(ROOT / name)
    return paths


def plan_rewrites(mapping: dict[str, str], moved: dict[str, str], plan: Plan) -> None:
    names = Names(mapping, moved)
    for path in tracked_texts():
        # before the moves, a file is read at its old place and written at its new one
        relative = path.relative_to(PACKAGE_DIR).as_posix() if path.is_relative_to(
            PACKAGE_DIR) else None
        destination = path
        for old, new in plan.moves:
            if relative == old or (relative or "").startswith(old + "/"):
                destination = PACKAGE_DIR / (new + relative[len(old):])  # type: ignore[index]
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, FileNotFoundError, IsADirectoryError):
            continue
        new_text = text
        if path.suffix == ".py":
            inside = destination.is_relative_to(PACKAGE_DIR)
            package = names.package_of(destination) if inside else None
            new_text, lost = rewrite_imports(new_text, names, package)
            if lost:
                plan.warnings.append(f"{destination.relative_to(ROOT)}: an import's comment was "
                                     "dropped; put it back")
        new_text = rewrite_text(new_text, destination, mapping, names)
        if path.suffix == ".py" and new_text != text:
            new_text = wrap_prose(new_text, set(text.splitlines()))
        if new_text != text:
            plan.rewrites[destination] = new_text


def carry_out(plan: Plan) -> None:
    for old, new in sorted(plan.moves, key=lambda move: not move[1].endswith("__init__.py")):
        (PACKAGE_DIR / new).parent.mkdir(parents=True, exist_ok=True)
        git("mv", str(PACKAGE_DIR / old), str(PACKAGE_DIR / new))
    for folder in plan.inits:
        init = PACKAGE_DIR / folder / "__init__.py"
        init.write_text(f'"""{PACKAGES.get(folder, folder.capitalize() + ".")}"""\n',
                        encoding="utf-8")
        git("add", str(init))
    for path, text in plan.rewrites.items():
        path.write_text(text, encoding="utf-8")


def tidy(paths: list[Path], plan: Plan) -> None:
    """Sort the rewritten imports with ruff, then report lines the rewriting made too long."""
    python = [str(path) for path in paths if path.suffix == ".py"]
    ruff = shutil.which("ruff")
    if python and ruff:
        subprocess.run([ruff, "check", "--select", "I", "--fix", "--quiet", *python], cwd=ROOT,
                       check=False)
    elif python:
        plan.warnings.append("ruff not found: run `ruff check --select I --fix` on the changed "
                             "files")
    for path in paths:
        if path.suffix != ".py":
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if len(line) > LINE_LENGTH:
                plan.warnings.append(f"{path.relative_to(ROOT)}:{number}: over {LINE_LENGTH} "
                                     "columns now; wrap it")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--map", action="append", default=[], metavar="OLD=NEW",
                        help="place one more module (paths under server/somnium_server/), "
                             "e.g. replays.py=play/replays.py; NEW=OLD keeps it at the top")
    parser.add_argument("--check", action="store_true",
                        help="change nothing; list what a run would do, exit 1 if anything")
    args = parser.parse_args(argv)
    mapping = dict(MAPPING)
    for item in args.map:
        old, sep, new = item.partition("=")
        if not sep or not old.strip() or not new.strip():
            parser.error(f"--map takes OLD=NEW, not {item!r}")
        mapping[old.strip()] = new.strip()
    clash = {dotted(old) for old in mapping if old.endswith(".py")} & {
        dotted(new.rsplit("/", 1)[0] + "/__init__.py") for new in mapping.values() if "/" in new}
    clash -= {dotted(new) for new in mapping.values()}  # storage.py -> storage/__init__.py
    if clash:
        parser.error(f"a new folder takes the name of a module: {sorted(clash)}")
    if not PACKAGE_DIR.is_dir():
        parser.error(f"no {PACKAGE_DIR}: run this from a checkout of the project")

    plan = Plan()
    for name in unmapped(mapping):
        part = suggestion(name)
        plan.warnings.append(f"{name} is in no part; it stays at the top (imports rewritten). "
                             f"To move it: --map {name}={part}/{name}")
    moved = plan_moves(mapping, plan)
    plan_rewrites(mapping, moved, plan)

    for old, new in plan.moves:
        print(f"move     {old} -> {new}")
    for folder in plan.inits:
        print(f"create   {folder}/__init__.py")
    for path in sorted(plan.rewrites):
        print(f"rewrite  {path.relative_to(ROOT)}")
    if args.check:
        for warning in plan.warnings:
            print(f"warning: {warning}", file=sys.stderr)
        busy = bool(plan.moves or plan.inits or plan.rewrites)
        print("something to do" if busy else "nothing to do")
        return 1 if busy else 0
    carry_out(plan)
    tidy(sorted(plan.rewrites), plan)
    for warning in plan.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    print(f"{len(plan.moves)} moved, {len(plan.inits)} packages made, "
          f"{len(plan.rewrites)} files rewritten")
    return 0


if __name__ == "__main__":
    sys.exit(main())
