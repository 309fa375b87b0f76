"""The README works as written: its links and paths exist, and every command block runs.

The slow test clones this repository into a temporary folder and runs the README's command
blocks there, in order, each as run_block() says: the app with --smoke-test (it would run
until closed), `./scripts/test` on one test file (the whole suite would run this test again),
pipx with a home of its own, the quick-try server until it answers HTTP, and the hosting steps
with /etc, /opt and /var/lib moved under a temporary prefix, sudo dropped and the system's
services shimmed (readme_shims.py). A block it does not know how to run fails it.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import stat
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from somnium_desktop.project import RAW_BASE
from tests.postgres import SUPERUSER, Cluster

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _anchor(heading: str) -> str:
    """GitHub's anchor for a heading."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_every_link_leads_somewhere() -> None:
    anchors = {_anchor(h) for h in re.findall(r"^#+ (.+)$", README, re.M)}
    links = re.findall(r"\]\(([^)\s]+)\)", README)
    assert links
    for link in links:
        if link.startswith("https://"):
            continue
        if link.startswith("#"):
            assert link[1:] in anchors, link
        else:
            assert (ROOT / link).exists(), link


def test_the_paths_it_names_exist() -> None:
    named = set(re.findall(r"`((?:packaging|docs|scripts|benchmarks|resources)/[^`\s]*)`", README))
    assert "packaging/server/" in named
    for path in named:
        assert (ROOT / path).exists(), path


def test_packaging_readme_names_the_sections_and_the_operators_files() -> None:
    text = (ROOT / "packaging" / "README.md").read_text(encoding="utf-8")
    headings = set(re.findall(r"^#+ (.+)$", README, re.M))
    sections = re.findall(r'"([^"]+)"', " ".join(text.split("\n\n", 2)[1].split()))
    assert sections and set(sections) <= headings, sections
    listed = set(re.findall(r"^\| `([^`]+)`", text, re.M))
    server = {f"server/{path.name}" for path in (ROOT / "packaging" / "server").iterdir()}
    assert server <= listed, sorted(server - listed)


def test_the_set_up_commands_are_there() -> None:
    assert "\n    ./scripts/run\n" in README
    assert "\n    ./scripts/test\n" in README


# -- every command block, run in a clean clone ---------------------------------------------------

PYTHON = Path(sys.executable)
DESKTOP_FILE = "io.github.somnium_desktop.somnium.desktop"


@dataclass(frozen=True)
class Block:
    """A command block of the README: its text (dedented) and the heading it is under."""

    text: str
    heading: str

    @property
    def first(self) -> str:
        return self.text.splitlines()[0]


def command_blocks(readme: str = README) -> list[Block]:
    """The README's indented code blocks, in order (inside list items too)."""
    blocks: list[Block] = []
    heading = ""
    lines = readme.splitlines()
    index = 0
    while index < len(lines):
        line = lines[index]
        if line.startswith("#"):
            heading = line.lstrip("# ")
        starts = index == 0 or not lines[index - 1].strip()
        if line.startswith("    ") and line.strip() and starts:
            indent = len(line) - len(line.lstrip())
            body = []
            while index < len(lines) and lines[index].startswith(" " * indent):
                body.append(lines[index][indent:])
                index += 1
            blocks.append(Block("\n".join(body), heading))
            continue
        index += 1
    return blocks


class Clone:
    """A fresh clone of this repository (with the working tree's changes to tracked files
    applied), a home of its own, and a temporary prefix standing for the system's folders."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.dir = tmp / "clone"
        # Through a bare copy whose branch is this checkout's commit, so that the clone is on
        # a branch that tracks its origin (for `git pull`) even if this checkout is not.
        origin = tmp / "origin.git"
        head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True,
                              text=True, check=True, timeout=60).stdout.strip()
        for command in (
            ["git", "clone", "--quiet", "--bare", str(ROOT), str(origin)],
            ["git", "-C", str(origin), "update-ref", "refs/heads/readme-test", head],
            ["git", "clone", "--quiet", "--branch", "readme-test", str(origin), str(self.dir)],
        ):
            subprocess.run(command, check=True, timeout=300)
        changes = subprocess.run(["git", "-C", str(ROOT), "diff", "HEAD", "--binary"],
                                 capture_output=True, check=True, timeout=60).stdout
        if changes:
            subprocess.run(["git", "-C", str(self.dir), "apply"], input=changes, check=True,
                           timeout=60)
        self.home = tmp / "home"
        self.bin = self.home / ".local" / "bin"
        self.prefix = tmp / "prefix"
        for folder in ("etc/systemd/system", "opt", "var/lib"):
            (self.prefix / folder).mkdir(parents=True)
        self.shims = tmp / "shims"
        self.shims.mkdir()
        (self.shims / "sudo").write_text('#!/bin/sh\nexec "$@"\n', encoding="utf-8")
        for name in ("apt", "dnf", "pacman", "certbot", "nginx", "systemctl"):
            (self.shims / name).write_text(
                f'#!/bin/sh\nPYTHONPATH="{ROOT}:{ROOT / "server"}" '
                f'exec "{PYTHON}" -m tests.packaging.readme_shims {name} "$@"\n',
                encoding="utf-8",
            )
        for shim in self.shims.iterdir():
            shim.chmod(0o755)
        self.cluster: Cluster | None = None

    def env(self, pipx_home: str = "pipx") -> dict[str, str]:
        """A user's environment: its own home, pip's cache kept, nothing from this checkout."""
        keep = ("LANG", "LC_ALL", "TERM", "PIP_FIND_LINKS", "PIP_CERT", "PIP_DEFAULT_TIMEOUT",
                "PIP_DISABLE_PIP_VERSION_CHECK", "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL",
                "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy")
        env = {name: os.environ[name] for name in keep if name in os.environ}
        bin_dir = self.tmp / pipx_home / "bin" if pipx_home != "pipx" else self.bin
        env.update(
            HOME=str(self.home),
            PATH=f"{bin_dir}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
            PIP_CACHE_DIR=str(Path.home() / ".cache" / "pip"),
            PIPX_HOME=str(self.tmp / pipx_home),
            PIPX_BIN_DIR=str(bin_dir),
            QT_QPA_PLATFORM="offscreen",
        )
        return env

    def run(self, script: str, env: dict[str, str] | None = None, timeout: float = 1200) -> str:
        """Run a block with bash (stopping at the first failing command) in the clone."""
        run = subprocess.run(
            ["bash", "-e", "-o", "pipefail", "-c", script], cwd=self.dir,
            env=env or self.env(), capture_output=True, text=True, timeout=timeout,
        )
        assert run.returncode == 0, f"{script}\n--\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}"
        return run.stdout

    def hosting(self, block: Block, database: dict[str, str] | None = None) -> None:
        """A hosting step: the system's folders under the prefix, sudo and the system's
        services shimmed (readme_shims.py); `database`: where PostgreSQL is (postgres_env)."""
        script = re.sub(r"(?<![\w./~])/(opt|etc|var/lib)/", rf"{self.prefix}/\1/", block.text)
        env = self.env()
        env.update(PATH=f"{self.shims}:{env['PATH']}", SOMNIUM_PREFIX=str(self.prefix),
                   **(database or {}))
        self.run(script, env)

    def postgres_env(self) -> dict[str, str]:
        """For postgresql-setup.sh: a throw-away cluster (started on first use) reached as its
        superuser, and the URL file under the prefix."""
        if self.cluster is None:
            self.cluster = Cluster()
        return {"SOMNIUM_PSQL_AS": "", "PGHOST": "127.0.0.1", "PGPORT": str(self.cluster.port),
                "PGUSER": SUPERUSER, "SOMNIUM_DATABASE_URL_FILE":
                str(self.prefix / "etc" / "somnium-server" / "database-url")}

    def close(self) -> None:
        if self.cluster is not None:
            self.cluster.stop()

    def calls(self) -> list[str]:
        log = self.prefix / "calls.log"
        return log.read_text(encoding="utf-8").splitlines() if log.exists() else []

    def serve_briefly(self, block: Block) -> None:
        """The quick-try server, on a free port: it must answer HTTP, then stop when signalled."""
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        command = block.text.replace("--port 8000", f"--port {port}")
        assert command != block.text
        server = subprocess.Popen(["bash", "-c", f"exec {command}"], cwd=self.dir,
                                  env=self.env(), stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True)
        try:
            deadline = time.monotonic() + 60
            while True:
                assert server.poll() is None, server.communicate()[0]
                try:
                    with socket.create_connection(("127.0.0.1", port), timeout=2) as s:
                        s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                        assert s.recv(64).startswith(b"HTTP/1.1 ")
                    break
                except ConnectionRefusedError:
                    assert time.monotonic() < deadline, "the server never listened"
                    time.sleep(0.2)
        finally:
            server.send_signal(signal.SIGTERM)
            server.communicate(timeout=30)
        # uvicorn shuts down and then ends by the signal it was sent
        assert server.returncode in (0, -signal.SIGTERM), server.returncode


def _smoke_passed(output: str) -> None:
    assert any(line.startswith("smoke test:") for line in output.splitlines()), output


def run_block(clone: Clone, block: Block) -> str:
    """Run one block as the README means it; returns how (for the test's report). A block this
    does not know fails the test: say here how a new one is to be run."""
    first = block.first
    if first == "./scripts/run":  # the app would run until closed
        _smoke_passed(clone.run("./scripts/run --smoke-test --no-log-file"))
        return "with --smoke-test"
    if first == "./scripts/test":  # the whole suite would run this test again
        clone.run("./scripts/test -q tests/test_rules.py")
        return "ruff and mypy whole, pytest on tests/test_rules.py"
    if first == "pipx install .":
        clone.run(block.text)
        assert clone.run("somnium --version").startswith("somnium ")
        return "as written"
    if first.startswith(".venv/bin/python -m build"):
        # the wheel is the alternative to `pipx install .`: a pipx home of its own
        clone.run(block.text, clone.env("pipx-wheel"))
        version = clone.run("somnium --version", clone.env("pipx-wheel"))
        assert version.startswith("somnium "), version
        return "as written, into a second pipx home"
    if first.startswith("pipx run "):
        _smoke_passed(clone.run(f"{block.text} --smoke-test --no-log-file"))
        return "with --smoke-test"
    if first == "somnium --install-desktop":
        clone.run(block.text)
        assert (clone.home / ".local" / "share" / "applications" / DESKTOP_FILE).is_file()
        return "as written"
    if first == "git pull":
        clone.run(block.text)
        return "as written"
    if first == "somnium --uninstall-desktop":
        clone.run(block.text)
        assert not (clone.home / ".local" / "share" / "applications" / DESKTOP_FILE).exists()
        assert not (clone.bin / "somnium").exists()
        return "as written"
    if first.startswith("rm -rf ~/.config/Somnium"):
        for made in (".config/Somnium/Somnium Desktop.conf",
                     ".config/somnium-desktop/credentials.json",
                     ".cache/somnium-desktop/signin.changed", ".cache/somnium-desktop/signin.lock"):
            (clone.home / made).parent.mkdir(parents=True, exist_ok=True)
            (clone.home / made).write_text("", encoding="utf-8")
        clone.run(block.text)
        left = [p for p in clone.home.rglob("*") if "omnium" in p.name and ".local/bin" not in
                str(p) and "pipx" not in str(p)]
        assert not left, left
        return "as written"
    if first.startswith(".venv/bin/python packaging/build_bundle.py"):
        clone.run(block.text)
        assert (clone.dir / "somnium-0.1.0-linux-x86_64.tar.gz").is_file()
        return "as written"
    if first.startswith(".venv/bin/python packaging/build_deb.py"):
        # built from the bundle of the block before, installed for real (sudo shimmed: the
        # tests run as root), checked, and purged again
        # (apt asks before it installs libraries the package needs that the machine lacks:
        # the test answers yes, as the player would)
        answer = clone.dir.parent / "apt-yes.conf"
        answer.write_text('APT::Get::Assume-Yes "true";\n', encoding="utf-8")
        env = clone.env()
        env.update(PATH=f"{clone.shims}:{env['PATH']}", APT_CONFIG=str(answer))
        try:
            clone.run(block.text, env)
            version = clone.run("/usr/games/somnium --version", env)
            assert version.startswith("somnium "), version
        finally:
            subprocess.run(["apt-get", "purge", "-y", "-qq", "somnium"], capture_output=True,
                           timeout=300)
        assert not Path("/usr/games/somnium").exists()
        return "as written (sudo shimmed), then purged"
    if first.startswith(".venv/bin/somnium-server "):
        clone.serve_briefly(block)
        return "on a free port until it answers HTTP, then SIGTERM"
    if re.match(r"sudo (apt|dnf|pacman) ", first) and block.heading == "Troubleshooting":
        clone.hosting(block)
        return "package managers shimmed (Debian names checked with apt-cache)"
    if first.startswith("sudo ") and block.heading == "Hosting a lobby server":
        clone.hosting(block)
        return "under a temporary prefix, sudo and system services shimmed"
    if first.startswith("sudo ") and block.heading == "Several instances on PostgreSQL":
        clone.hosting(block, clone.postgres_env() if "postgresql-setup.sh" in block.text else None)
        return "as above, postgresql-setup.sh against a throw-away PostgreSQL"
    raise AssertionError(f"tests/packaging/test_readme.py does not know how to run:\n{block.text}")


@pytest.mark.slow
def test_every_command_block_works_as_written_in_a_clean_clone(tmp_path: Path) -> None:
    if not (ROOT / ".git").exists():
        pytest.skip("needs a git checkout to clone (an sdist is none)")
    clone = Clone(tmp_path)
    blocks = command_blocks((clone.dir / "README.md").read_text(encoding="utf-8"))
    assert len(blocks) >= 15
    try:
        for block in blocks:
            run_block(clone, block)
    finally:
        clone.close()
    # The hosting steps left what the service and nginx need, in a working order.
    settings = clone.prefix / "etc" / "somnium-server" / "server.toml"
    assert stat.S_IMODE(settings.stat().st_mode) == 0o600
    assert stat.S_IMODE(settings.parent.stat().st_mode) == 0o700
    assert (clone.prefix / "opt" / "somnium-server" / "bin" / "somnium-server").is_file()
    calls = clone.calls()
    order = ["systemctl enable --now somnium-server", "apt install nginx",
             "certbot certonly", "nginx -t", "systemctl reload nginx"]
    found = [next(i for i, call in enumerate(calls) if call.startswith(step)) for step in order]
    assert found == sorted(found), calls
    # ... and those for several instances: the database's URL, root's alone, before they start
    url = clone.prefix / "etc" / "somnium-server" / "database-url"
    assert stat.S_IMODE(url.stat().st_mode) == 0o600
    assert url.read_text(encoding="utf-8").startswith("postgresql://somnium:")
    assert "systemctl enable --now somnium-server@8001 somnium-server@8002" in calls


def test_the_blocks_are_found_and_each_has_a_way_to_run() -> None:
    blocks = command_blocks()
    firsts = [block.first for block in blocks]
    assert firsts[:2] == ["./scripts/run", "./scripts/test"]
    assert "somnium --uninstall-desktop" in firsts
    uninstall = next(b for b in blocks if b.first == "somnium --uninstall-desktop")
    assert uninstall.text.splitlines() == [
        "somnium --uninstall-desktop", "pipx uninstall somnium-desktop",
    ]  # the menu files go while the command that removes them still exists
    hosting = [b.text for b in blocks if b.heading == "Hosting a lobby server"]
    joined = "\n".join(hosting)
    assert joined.index("certbot certonly") < joined.index("nginx -t")  # certificate first
    assert "install -m 600 " in joined  # really mode 600, whatever the umask


def test_the_pictures_render_on_a_package_index_too() -> None:
    # PyPI shows this README as the wheel's description: its pictures need absolute addresses,
    # the repository's raw files from the one configured base.
    pictures = re.findall(r"!\[[^\]]+\]\(([^)\s]+)\)", README)
    assert len(pictures) >= 4
    for address in pictures:
        assert address.startswith(RAW_BASE), address
        assert (ROOT / address.removeprefix(RAW_BASE)).is_file(), address
