"""Stand-ins for the system commands the README's hosting steps call, under a temporary prefix.

tests/packaging/test_readme.py runs those steps with the system's folders (/etc, /opt,
/var/lib) moved under $SOMNIUM_PREFIX and these commands first on PATH (`python -m
tests.packaging.readme_shims NAME ARGS...`). Each records its call in $SOMNIUM_PREFIX/calls.log
and does what the real command would leave behind, as far as the steps after it rely on it:

- apt: checks that every package named is a Debian package (`apt-cache show`); installing
  nginx makes its sites-available and sites-enabled folders;
- dnf, pacman: only recorded (no such package index here);
- certbot certonly -d NAME: a self-signed certificate where Let's Encrypt's would go;
- nginx -t: the real nginx checks the enabled sites, their /etc paths moved under the prefix;
- systemctl: enable checks that each unit (an instance's template) and the credentials it
  loads are in place.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

PREFIX = Path(os.environ.get("SOMNIUM_PREFIX", "/nonexistent"))


def apt(args: list[str]) -> int:
    packages = [arg for arg in args[1:] if not arg.startswith("-")]
    assert args[0] == "install" and packages, args
    for package in packages:
        found = subprocess.run(["apt-cache", "show", package], capture_output=True, timeout=60)
        if found.returncode != 0 or not found.stdout:
            print(f"apt: no Debian package {package}", file=sys.stderr)
            return 100
    if "nginx" in packages:
        for folder in ("sites-available", "sites-enabled"):
            (PREFIX / "etc" / "nginx" / folder).mkdir(parents=True, exist_ok=True)
    return 0


def certbot(args: list[str]) -> int:
    from tests.packaging.nginx import make_certificate  # here: it imports the server's tests

    assert args[0] == "certonly" and "--nginx" in args, args
    if not (PREFIX / "etc" / "nginx").is_dir():
        print("certbot: its nginx plugin needs nginx installed", file=sys.stderr)
        return 1
    name = args[args.index("-d") + 1]
    live = PREFIX / "etc" / "letsencrypt" / "live" / name
    live.mkdir(parents=True)
    cert, key = make_certificate(live)
    cert.rename(live / "fullchain.pem")
    key.rename(live / "privkey.pem")
    return 0


def nginx(args: list[str]) -> int:
    from tests.packaging.nginx import main_config

    assert args == ["-t"], args
    real = shutil.which("nginx", path="/usr/sbin:/sbin:/usr/bin:/bin")
    assert real is not None, "nginx is not installed: `apt-get install nginx` (.ci/run does)"
    run = PREFIX / "nginx-check"
    (run / "temp").mkdir(parents=True, exist_ok=True)
    sites = [
        path.read_text(encoding="utf-8").replace(" /etc/", f" {PREFIX}/etc/")
        for path in sorted((PREFIX / "etc" / "nginx" / "sites-enabled").iterdir())
    ]
    config = run / "nginx.conf"
    config.write_text(main_config(run, "\n".join(sites)), encoding="utf-8")
    return subprocess.run(
        [real, "-t", "-p", str(run), "-c", str(config), "-e", str(run / "error.log")],
        timeout=60,
    ).returncode


def systemctl(args: list[str]) -> int:
    if args[:2] == ["enable", "--now"]:
        for name in args[2:]:
            # an instance (somnium-server@8001) comes from its template (somnium-server@.service)
            file = name.split("@", 1)[0] + "@" if "@" in name else name
            unit = PREFIX / "etc" / "systemd" / "system" / f"{file}.service"
            if not unit.is_file():
                print(f"systemctl: {unit} is missing", file=sys.stderr)
                return 1
            credentials = [line.split(":", 1)[1] for line in unit.read_text().splitlines()
                           if line.startswith("LoadCredential=")]
            for source in credentials:
                needed = PREFIX / source.lstrip("/")
                if not needed.is_file():
                    print(f"systemctl: {needed} is missing", file=sys.stderr)
                    return 1
    return 0


COMMANDS = {
    "apt": apt,
    "dnf": lambda args: 0,
    "pacman": lambda args: 0,
    "certbot": certbot,
    "nginx": nginx,
    "systemctl": systemctl,
}


def main() -> int:
    name, args = sys.argv[1], sys.argv[2:]
    with open(PREFIX / "calls.log", "a", encoding="utf-8") as log:
        log.write(" ".join([name, *args]) + "\n")
    return COMMANDS[name](args)


if __name__ == "__main__":
    sys.exit(main())
