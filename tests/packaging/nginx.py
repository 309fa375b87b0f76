"""A real nginx in front of a test server: packaging/server/nginx-somnium.conf on loopback ports.

The packaged site is used as it is, save for what a test machine must change: the server's
address, the ports (high ones on 127.0.0.1, so no root is needed), no IPv6 listeners, and a
self-signed certificate made for the test. Around it goes what Debian's nginx.conf sets.
"""

from __future__ import annotations

import datetime
import ipaddress
import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from tests.server.helpers import free_port

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "packaging" / "server" / "nginx-somnium.conf"
HOST_NAME = "somnium.example.org"


def nginx_binary() -> str:
    """Debian's nginx (in /usr/sbin, which a user's PATH may lack); .ci/run installs it."""
    found = shutil.which("nginx") or shutil.which("nginx", path="/usr/sbin:/sbin")
    assert found is not None, "nginx is not installed: `apt-get install nginx` (.ci/run does)"
    return found


def make_certificate(folder: Path) -> tuple[Path, Path]:
    """A self-signed certificate for HOST_NAME and 127.0.0.1; returns (certificate, key)."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, HOST_NAME)])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.DNSName(HOST_NAME), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
            ),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = folder / "cert.pem", folder / "key.pem"
    cert_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_path, key_path


def site_for_test(
    site: str, upstreams: Sequence[str], http_port: int, https_port: int, cert: Path, key: Path
) -> str:
    """The packaged site with only the addresses, ports and certificate changed."""
    servers = "".join(f"    server {upstream};\n" for upstream in upstreams)
    changes = [
        (r"(^\s*server 127\.0\.0\.1:\d+;\n)+", servers.replace("\\", "\\\\")),
        (r"^(\s*)listen 80;", rf"\1listen 127.0.0.1:{http_port};"),
        (r"^(\s*)listen 443 ssl http2;", rf"\1listen 127.0.0.1:{https_port} ssl http2;"),
        (r"^\s*listen \[::\]:\d+.*\n", ""),  # a test machine may have no IPv6
        (r"^(\s*)ssl_certificate [^;]+;", rf"\1ssl_certificate {cert};"),
        (r"^(\s*)ssl_certificate_key [^;]+;", rf"\1ssl_certificate_key {key};"),
    ]
    for pattern, replacement in changes:
        site, count = re.subn(pattern, replacement, site, flags=re.M)
        assert count, f"{SITE.name} no longer matches {pattern!r}: update tests/packaging/nginx.py"
    return site


def main_config(prefix: Path, site: str) -> str:
    """nginx.conf around the site: Debian's http settings, everything kept under `prefix`."""
    # As root, nginx's workers would become `nobody`, who cannot enter pytest's private
    # folders; as anyone else the directive is ignored.
    user = pwd.getpwuid(os.geteuid()).pw_name
    temp = prefix / "temp"
    return f"""
daemon off;
worker_processes 1;
user {user};
pid {prefix}/nginx.pid;
error_log {prefix}/error.log info;
events {{ worker_connections 512; }}
http {{
    sendfile on;
    tcp_nopush on;
    types_hash_max_size 2048;
    default_type application/octet-stream;
    ssl_protocols TLSv1.2 TLSv1.3;
    ssl_prefer_server_ciphers on;
    # which server of the upstream answered each request
    log_format upstreams '$upstream_addr "$request" $status';
    access_log {prefix}/access.log upstreams;
    # Debian turns gzip on; compressing event streams too would hold events back unless the
    # site turns it off for them.
    gzip on;
    gzip_types application/json text/event-stream;
    client_body_temp_path {temp}/body;
    proxy_temp_path {temp}/proxy;
    fastcgi_temp_path {temp}/fastcgi;
    uwsgi_temp_path {temp}/uwsgi;
    scgi_temp_path {temp}/scgi;
{site}
}}
"""


class Nginx:
    """nginx in the foreground (`daemon off;`) with its prefix, logs and temp files in `prefix`."""

    def __init__(
        self, prefix: Path, upstream: str | Sequence[str], site: str | None = None
    ) -> None:
        self.prefix = prefix
        (prefix / "temp").mkdir(parents=True)
        self.cert, key = make_certificate(prefix)
        self.http_port, self.https_port = free_port(), free_port()
        text = SITE.read_text(encoding="utf-8") if site is None else site
        config = prefix / "nginx.conf"
        config.write_text(
            main_config(
                prefix,
                site_for_test(text, [upstream] if isinstance(upstream, str) else upstream,
                              self.http_port, self.https_port, self.cert, key),
            ),
            encoding="utf-8",
        )
        command = [nginx_binary(), "-p", str(prefix), "-c", str(config), "-e", str(self.log)]
        checked = subprocess.run([*command, "-t"], capture_output=True, text=True, timeout=30)
        assert checked.returncode == 0, checked.stderr
        self.process = subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
        )
        self._wait_until_listening()
        self.base = f"https://127.0.0.1:{self.https_port}"
        self.plain = f"http://127.0.0.1:{self.http_port}"

    @property
    def log(self) -> Path:
        return self.prefix / "error.log"

    def answered_by(self) -> list[tuple[str, str]]:
        """(upstream server, request line) of every proxied request so far, oldest first."""
        lines = (self.prefix / "access.log").read_text(encoding="utf-8").splitlines()
        found = (re.match(r'(\S+) "([^"]*)"', line) for line in lines)
        return [(m[1], m[2]) for m in found if m and m[1] != "-"]

    def _wait_until_listening(self) -> None:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                errors = self.process.stderr.read() if self.process.stderr else ""
                raise AssertionError(f"nginx stopped: {errors}")
            try:
                with socket.create_connection(("127.0.0.1", self.https_port), timeout=1):
                    return
            except OSError:
                time.sleep(0.02)
        self.stop()
        raise AssertionError("nginx did not listen within 10 s")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)  # fast shutdown: streams are cut
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        if self.process.stderr is not None:
            self.process.stderr.close()
