"""A small real OpenID issuer over HTTP that can mint bad ID tokens on purpose (negative tests).

oidc-provider never signs a wrong token, so this one does: wrong audience, nonce, issuer or key,
expired, HMAC-signed with the client secret, or a token answer that is an error in disguise. It
still checks client authentication and PKCE like a real provider, and answers immediately at its
authorization endpoint (the person is always "rogue-user").
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

from joserfc import jwt
from joserfc.jwk import OctKey, RSAKey

MODES = ("good", "wrong_audience", "wrong_nonce", "no_nonce", "wrong_signature", "expired",
         "wrong_issuer", "hmac_with_secret", "hmac_only", "error_without_error_key",
         "no_id_token")


class RogueIssuer:
    """An OpenID issuer on 127.0.0.1; set `mode` to choose what its token endpoint answers."""

    def __init__(self, client_id: str, client_secret: str) -> None:
        self.client_id = client_id
        self.client_secret = client_secret
        self.mode = "good"
        self.key = RSAKey.generate_key(2048, parameters={"kid": "rogue-1"})
        # Same kid, another key pair: its signatures cannot verify against the published key.
        self.other_key = RSAKey.generate_key(2048, parameters={"kid": "rogue-1"})
        self.codes: dict[str, dict[str, str]] = {}
        self.token_requests = 0
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self.issuer = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever,
                                        kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(5)

    def metadata(self) -> dict[str, Any]:
        return {
            "issuer": self.issuer,
            "authorization_endpoint": f"{self.issuer}/authorize",
            "token_endpoint": f"{self.issuer}/token",
            "jwks_uri": f"{self.issuer}/jwks",
            "response_types_supported": ["code"],
            "subject_types_supported": ["public"],
            # hmac_only: a provider that says it signs with HMAC only, its key in its JWKS
            "id_token_signing_alg_values_supported":
                ["HS256"] if self.mode == "hmac_only" else ["RS256", "HS256"],
            "token_endpoint_auth_methods_supported": ["client_secret_basic"],
            "code_challenge_methods_supported": ["S256"],
        }

    def secret_key(self) -> OctKey:
        """The client secret as an HMAC key."""
        return OctKey.import_key(self.client_secret.encode(), {"kid": "rogue-secret"})

    def authorize(self, query: dict[str, str]) -> str:
        """Sign 'rogue-user' in at once; the redirect back with a code."""
        code = secrets.token_urlsafe(16)
        self.codes[code] = query
        return f"{query['redirect_uri']}?{urlencode({'code': code, 'state': query['state']})}"

    def token(self, form: dict[str, str], authorization: str) -> tuple[int, dict[str, Any]]:
        self.token_requests += 1
        expected = base64.b64encode(f"{self.client_id}:{self.client_secret}".encode()).decode()
        if authorization != f"Basic {expected}":
            return 401, {"error": "invalid_client"}
        asked = self.codes.pop(form.get("code", ""), None)
        if asked is None or asked["redirect_uri"] != form.get("redirect_uri"):
            return 400, {"error": "invalid_grant"}
        digest = hashlib.sha256(form.get("code_verifier", "").encode()).digest()
        if base64.urlsafe_b64encode(digest).rstrip(b"=").decode() != asked["code_challenge"]:
            return 400, {"error": "invalid_grant", "error_description": "PKCE mismatch"}
        if self.mode == "error_without_error_key":
            return 400, {"message": "something went wrong"}
        now = int(time.time())
        claims: dict[str, Any] = {
            "iss": self.issuer, "sub": "rogue-user", "aud": self.client_id,
            "iat": now, "exp": now + 300, "nonce": asked.get("nonce", ""),
            "name": "Rogue Player",
        }
        key: RSAKey | OctKey = self.key
        header = {"alg": "RS256", "kid": "rogue-1"}
        if self.mode == "wrong_audience":
            claims["aud"] = "somebody-else"
        elif self.mode == "wrong_nonce":
            claims["nonce"] = "not-the-nonce-we-were-given"
        elif self.mode == "no_nonce":
            del claims["nonce"]
        elif self.mode == "wrong_signature":
            key = self.other_key
        elif self.mode == "expired":
            claims.update(iat=now - 900, exp=now - 600)
        elif self.mode == "wrong_issuer":
            claims["iss"] = "http://127.0.0.1:1"
        elif self.mode in ("hmac_with_secret", "hmac_only"):
            key = self.secret_key()
            header = {"alg": "HS256", "kid": "rogue-secret"}
        answer: dict[str, Any] = {"access_token": secrets.token_urlsafe(16),
                                  "token_type": "Bearer", "expires_in": 300}
        if self.mode != "no_id_token":
            answer["id_token"] = jwt.encode(header, claims, key,
                                            algorithms=["RS256", "HS256"])
        return 200, answer

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        issuer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                url = urlsplit(self.path)
                query = {k: v[0] for k, v in parse_qs(url.query).items()}
                if url.path == "/.well-known/openid-configuration":
                    self._json(200, issuer.metadata())
                elif url.path == "/jwks":
                    keys = [issuer.key.as_dict(private=False)]
                    if issuer.mode == "hmac_only":
                        keys.append(issuer.secret_key().as_dict())
                    self._json(200, {"keys": keys})
                elif url.path == "/authorize":
                    self.send_response(302)
                    self.send_header("Location", issuer.authorize(query))
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                else:
                    self._json(404, {"error": "not_found"})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                form = {k: v[0] for k, v in parse_qs(self.rfile.read(length).decode()).items()}
                if urlsplit(self.path).path != "/token":
                    self._json(404, {"error": "not_found"})
                    return
                self._json(*issuer.token(form, self.headers.get("Authorization", "")))

            def _json(self, status: int, body: dict[str, Any]) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: object) -> None:
                pass

        return Handler
