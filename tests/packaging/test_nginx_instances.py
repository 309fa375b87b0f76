"""N instances as a host runs them: the PostgreSQL set-up script, two instances started with the
template unit's own command line and credentials, and the real nginx with the upstream site."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path

import psycopg
import pytest
import requests

from somnium_server.config import database_url
from tests.postgres import SUPERUSER, Cluster
from tests.server.helpers import TIMEOUT, EventReader, Player, free_port, make_user

from .nginx import Nginx

SERVER = Path(__file__).resolve().parents[2] / "packaging" / "server"
SETUP = SERVER / "postgresql-setup.sh"
TEMPLATE = SERVER / "somnium-server@.service"
SITE = SERVER / "nginx-somnium-instances.conf"
INSTALLED_COMMAND = "/opt/somnium-server/bin/somnium-server"
SETTINGS = """\
host = "127.0.0.1"
port = 8000
public_url = "https://somnium.example.org"
keepalive = 0.5
rate_create = "4/60"
"""


def _set_up_database(
    cluster: Cluster, url_file: Path, host: str = "127.0.0.1"
) -> subprocess.CompletedProcess[str]:
    """postgresql-setup.sh against the test cluster, as its superuser (no runuser needed)."""
    environ = {**os.environ, "SOMNIUM_PSQL_AS": "", "PGHOST": host,
               "PGPORT": str(cluster.port), "PGUSER": SUPERUSER,
               "SOMNIUM_DATABASE_URL_FILE": str(url_file)}
    done = subprocess.run(["sh", str(SETUP)], env=environ, capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def test_the_set_up_script_names_a_socket_folder_in_the_query(tmp_path: Path) -> None:
    # PGHOST a path: the server's socket folder, which a URL's host part cannot hold.
    cluster = Cluster()  # a cluster of its own: the database somnium of pg_cluster is taken
    try:
        url_file = tmp_path / "database-url"
        _set_up_database(cluster, url_file, host=str(cluster.dir))
        url = url_file.read_text(encoding="utf-8").strip()
        assert re.fullmatch(rf"postgresql://somnium:[A-Za-z0-9]{{32}}@/somnium\?"
                            rf"host={re.escape(str(cluster.dir))}&port={cluster.port}", url)
        assert database_url(url) == url  # the server takes it
        with psycopg.connect(url) as connection:
            assert connection.info.host == str(cluster.dir)
            assert connection.execute("SELECT current_user, current_database()").fetchone() == (
                "somnium", "somnium"
            )
    finally:
        cluster.stop()


class Instance:
    """One `somnium-server@PORT` as systemd would start it: the unit's ExecStart, with %d the
    credentials folder and %i the port."""

    def __init__(self, credentials: Path, port: int, log: Path) -> None:
        (line,) = re.findall(r"^ExecStart=(.*)$", TEMPLATE.read_text(encoding="utf-8"), re.M)
        command = Path(sys.executable).parent / "somnium-server"
        line = line.replace(INSTALLED_COMMAND, str(command))
        argv = shlex.split(line.replace("%d", str(credentials)).replace("%i", str(port)))
        self.log = log.open("w")
        self.process = subprocess.Popen(argv, stdout=self.log, stderr=subprocess.STDOUT)
        self.address = f"127.0.0.1:{port}"
        deadline = time.monotonic() + 20
        while True:
            assert self.process.poll() is None, log.read_text()
            try:
                if requests.get(f"http://{self.address}/games", timeout=2).status_code == 200:
                    return
            except requests.ConnectionError:
                pass
            assert time.monotonic() < deadline, "the instance did not answer within 20 s"
            time.sleep(0.1)

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)
        self.log.close()


def test_two_instances_on_one_database_behind_the_upstream_site(
    tmp_path: Path, pg_cluster: Cluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    cluster = pg_cluster  # its database somnium is this test's alone
    credentials = tmp_path / "credentials"
    url_file = credentials / "database-url"
    made = _set_up_database(cluster, url_file)
    assert "made the role and database somnium" in made.stdout
    assert url_file.stat().st_mode & 0o777 == 0o600  # the password is root's alone
    url = url_file.read_text(encoding="utf-8").strip()
    assert re.fullmatch(rf"postgresql://somnium:[A-Za-z0-9]{{32}}@127\.0\.0\.1:{cluster.port}"
                        r"/somnium", url)
    assert "exists" in _set_up_database(cluster, url_file).stdout  # a second run changes nothing
    assert url_file.read_text(encoding="utf-8").strip() == url
    (credentials / "server.toml").write_text(SETTINGS, encoding="utf-8")

    instances: list[Instance] = []
    proxy: Nginx | None = None
    try:
        for n in range(2):
            instances.append(Instance(credentials, free_port(), tmp_path / f"instance{n}.log"))
        proxy = Nginx(tmp_path / "nginx", [i.address for i in instances], SITE.read_text())
        monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(proxy.cert))  # trust the test certificate
        _play_through(proxy, url, {i.address for i in instances})
    finally:
        if proxy is not None:
            proxy.stop()
        for instance in instances:
            instance.stop()


def _logged(proxy: Nginx, request_line: str, count: int) -> list[str]:
    """The servers that answered the `count` requests starting with `request_line`, once nginx
    has logged them all (it logs a request just after its answer has gone)."""
    deadline = time.monotonic() + TIMEOUT
    while True:
        servers = [server for server, request in proxy.answered_by()
                   if request.startswith(request_line)]
        if len(servers) >= count:
            assert len(servers) == count, servers
            return servers
        assert time.monotonic() < deadline, f"nginx logged {len(servers)} of {count}"
        time.sleep(0.05)


def _play_through(proxy: Nginx, url: str, addresses: set[str]) -> None:
    # A stream through the upstream site: unbuffered, not gzipped, kept alive.
    lobby = EventReader(proxy.base + "/lobby/events")
    assert lobby.status == 200 and lobby.response.headers["X-Accel-Buffering"] == "no"
    assert "Content-Encoding" not in lobby.response.headers
    assert lobby.next().event == "snapshot"
    while lobby.next(skip_comments=False, timeout=5).event != "comment":
        pass
    lobby.close()
    # nginx logs a request when it is over: from then on its stream's connection counts for
    # no instance in least_conn's choice
    _logged(proxy, "GET /lobby/events ", 1)

    # A session made in the database is good on every instance; the user's rate limit
    # (4 creates a minute) is counted once for both.
    ann = Player(proxy.base, *make_user(url, "Ann"), "Ann")
    statuses = [ann.post("/games", {"name": f"Table {n}", "opponent": "person"}).status_code
                for n in range(6)]
    assert statuses == [201, 201, 201, 201, 429, 429]
    creates = _logged(proxy, "POST /games ", 6)
    assert set(creates) == addresses  # least_conn used both instances
    assert requests.get(proxy.plain + "/games", allow_redirects=False,
                        timeout=TIMEOUT).status_code == 301
