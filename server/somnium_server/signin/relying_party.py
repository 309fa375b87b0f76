"""The server as OpenID Connect relying party (confidential client) toward a provider, via Authlib.

Discovery, the authorization URL with our own state, nonce and PKCE (S256), the code exchange, and
the full ID token check: signature against the provider's JWKS, issuer, audience, expiry, nonce.
Blocking HTTP (requests): call from a worker thread.
"""

from __future__ import annotations

import secrets
import threading
import time
from dataclasses import dataclass
from typing import Any

import requests
from authlib.integrations.requests_client import OAuth2Session
from authlib.oidc.core import CodeIDToken
from joserfc import jwt
from joserfc.errors import JoseError
from joserfc.jwk import KeySet

from somnium_server.signin.config import ProviderConfig

HTTP_TIMEOUT = 10.0
METADATA_TTL = 3600.0
# Clock skew allowed on exp and iat, in seconds.
LEEWAY = 60
# Signatures only: no "none", no HMAC keyed with the client secret.
ASYMMETRIC = ("RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512",
              "EdDSA")
NAME_CLAIMS = ("name", "preferred_username", "nickname", "given_name")


class ProviderError(Exception):
    """The provider could not be used or its answer failed a check; the message says which."""


@dataclass(frozen=True, slots=True)
class ProviderLogin:
    """What we keep while the person is at the provider: our state, nonce and PKCE verifier."""

    url: str
    state: str
    nonce: str
    code_verifier: str


@dataclass(frozen=True, slots=True)
class ProviderIdentity:
    """Who the provider says signed in, after every check passed."""

    issuer: str
    subject: str
    name: str | None


class RelyingParty:
    """One configured provider: its discovered metadata, keys, and the two halves of a login."""

    def __init__(self, config: ProviderConfig, http: requests.Session | None = None) -> None:
        self.config = config
        self._http = http or requests.Session()
        self._lock = threading.Lock()
        self._metadata: dict[str, Any] | None = None
        self._metadata_at = 0.0
        self._jwks: dict[str, Any] | None = None

    def _get_json(self, url: str, what: str) -> dict[str, Any]:
        try:
            response = self._http.get(url, timeout=HTTP_TIMEOUT)
            response.raise_for_status()
            body = response.json()
        except (requests.RequestException, ValueError) as error:
            raise ProviderError(f"{self.config.display_name}: cannot read its {what}: {error}") \
                from error
        if not isinstance(body, dict):
            raise ProviderError(f"{self.config.display_name}: its {what} is not a JSON object")
        return body

    def metadata(self) -> dict[str, Any]:
        """The provider's discovery document, checked to name our configured issuer."""
        with self._lock:
            if self._metadata is None or time.monotonic() - self._metadata_at > METADATA_TTL:
                url = f"{self.config.issuer}/.well-known/openid-configuration"
                metadata = self._get_json(url, "discovery document")
                if metadata.get("issuer") != self.config.issuer:
                    raise ProviderError(
                        f"{self.config.display_name}: discovery names issuer "
                        f"{metadata.get('issuer')!r}, not the configured {self.config.issuer!r}"
                    )
                for needed in ("authorization_endpoint", "token_endpoint", "jwks_uri"):
                    if not isinstance(metadata.get(needed), str):
                        raise ProviderError(
                            f"{self.config.display_name}: discovery lacks {needed}"
                        )
                self._metadata, self._metadata_at, self._jwks = metadata, time.monotonic(), None
            return self._metadata

    def _client(self, redirect_uri: str) -> OAuth2Session:
        metadata = self.metadata()
        methods = metadata.get("token_endpoint_auth_methods_supported") or ["client_secret_basic"]
        auth_method = (
            "client_secret_basic" if "client_secret_basic" in methods else "client_secret_post"
        )
        return OAuth2Session(
            client_id=self.config.client_id,
            client_secret=self.config.client_secret,
            scope=self.config.scopes,
            redirect_uri=redirect_uri,
            code_challenge_method="S256",
            token_endpoint_auth_method=auth_method,
        )

    def begin(self, redirect_uri: str) -> ProviderLogin:
        """The provider's authorization URL, with fresh state, nonce and PKCE verifier."""
        state = secrets.token_urlsafe(32)
        nonce = secrets.token_urlsafe(32)
        verifier = secrets.token_urlsafe(64)
        with self._client(redirect_uri) as client:
            url, _ = client.create_authorization_url(
                self.metadata()["authorization_endpoint"],
                state=state,
                nonce=nonce,
                code_verifier=verifier,
            )
        return ProviderLogin(url=url, state=state, nonce=nonce, code_verifier=verifier)

    def finish(self, redirect_uri: str, code: str, login: ProviderLogin) -> ProviderIdentity:
        """Exchange the code and check the ID token; ProviderError when anything is off."""
        name = self.config.display_name
        metadata = self.metadata()
        try:
            with self._client(redirect_uri) as client:
                token = client.fetch_token(
                    metadata["token_endpoint"],
                    code=code,
                    code_verifier=login.code_verifier,
                    timeout=HTTP_TIMEOUT,
                )
        except Exception as error:  # Authlib raises OAuthError, requests and JSON errors.
            raise ProviderError(f"{name}: the code exchange failed: {error}") from error
        # Authlib does not check the HTTP status: make sure this really is a token answer.
        if not isinstance(token.get("access_token"), str) or not isinstance(
            token.get("id_token"), str
        ):
            raise ProviderError(f"{name}: the token answer has no access token or ID token")
        claims = self._check_id_token(token["id_token"], token["access_token"], login.nonce)
        subject = claims["sub"]
        display = next(
            (str(claims[c]) for c in NAME_CLAIMS if isinstance(claims.get(c), str) and claims[c]),
            None,
        )
        if display is None:
            display = self._userinfo_name(token["access_token"], subject)
        return ProviderIdentity(issuer=self.config.issuer, subject=subject, name=display)

    def _keys(self, refresh: bool) -> KeySet:
        if self._jwks is None or refresh:
            self._jwks = self._get_json(self.metadata()["jwks_uri"], "keys (JWKS)")
        try:
            return KeySet.import_key_set(self._jwks)  # type: ignore[arg-type]
        except (JoseError, ValueError, KeyError, TypeError) as error:
            raise ProviderError(f"{self.config.display_name}: unusable JWKS: {error}") from error

    def _check_id_token(self, id_token: str, access_token: str, nonce: str) -> dict[str, Any]:
        name = self.config.display_name
        metadata = self.metadata()
        algorithms = [
            a for a in metadata.get("id_token_signing_alg_values_supported", ["RS256"])
            if a in ASYMMETRIC
        ]
        if not algorithms:  # (an empty list would let the library take its own defaults)
            raise ProviderError(f"{name} signs its ID tokens with no public-key algorithm")
        try:
            try:
                decoded = jwt.decode(id_token, self._keys(refresh=False), algorithms=algorithms)
            except JoseError:
                # The provider may have rotated its keys since we fetched them: fetch once more.
                decoded = jwt.decode(id_token, self._keys(refresh=True), algorithms=algorithms)
            claims = CodeIDToken(
                decoded.claims,
                decoded.header,
                {
                    "iss": {"essential": True, "value": self.config.issuer},
                    "aud": {"essential": True, "value": self.config.client_id},
                    "sub": {"essential": True},
                    "exp": {"essential": True},
                    "nonce": {"essential": True},
                },
                {"nonce": nonce, "client_id": self.config.client_id,
                 "access_token": access_token},
            )
            claims.validate(leeway=LEEWAY)
        except (JoseError, ValueError) as error:
            raise ProviderError(f"{name}: the ID token was refused: {error}") from error
        return dict(claims)

    def _userinfo_name(self, access_token: str, subject: str) -> str | None:
        endpoint = self.metadata().get("userinfo_endpoint")
        if not isinstance(endpoint, str):
            return None
        try:
            response = self._http.get(
                endpoint, headers={"Authorization": f"Bearer {access_token}"},
                timeout=HTTP_TIMEOUT,
            )
            info = response.json() if response.status_code == 200 else {}
        except (requests.RequestException, ValueError):
            return None
        # The UserInfo sub must be the ID token's (OIDC Core 5.3.2), or the answer is ignored.
        if not isinstance(info, dict) or info.get("sub") != subject:
            return None
        return next((str(info[c]) for c in NAME_CLAIMS if isinstance(info.get(c), str)
                     and info[c]), None)
