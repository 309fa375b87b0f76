"""Tokens lately found to sign in as nobody, kept a while: a flood of one costs no lookups.

Only the token's hash is kept. Refusing a kept one again without asking the storage never
refuses a good token: a session token is 32 random bytes minted by `issue_session` and handed
out only once its session is stored, so one unknown now is never minted later; and a token
that has expired or was signed out stays refused for good. Signing out does not wait for this:
it is the storage that forgets a token at once.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable

KEEP_SECONDS = 60.0  # how long a refused token is refused without a lookup
KEEP_LIMIT = 10_000  # refused tokens kept at most; past it the oldest are forgotten


class RefusedTokens:
    """A bounded set of token hashes that found no session, each forgotten after `keep`
    seconds (or sooner, when `limit` newer ones came after it)."""

    def __init__(self, keep: float = KEEP_SECONDS, limit: int = KEEP_LIMIT,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.keep = keep
        self.limit = limit
        self.clock = clock
        self._until: OrderedDict[str, float] = OrderedDict()  # token hash -> forgotten at

    def __len__(self) -> int:
        return len(self._until)

    def refused(self, token_hash: str) -> bool:
        """True if `token_hash` was refused less than `keep` seconds ago."""
        until = self._until.get(token_hash)
        if until is None:
            return False
        if until > self.clock():
            return True
        del self._until[token_hash]
        return False

    def add(self, token_hash: str) -> None:
        """Keep `token_hash` as refused for `keep` seconds from now."""
        self._until[token_hash] = self.clock() + self.keep
        self._until.move_to_end(token_hash)
        while len(self._until) > self.limit:
            self._until.popitem(last=False)
