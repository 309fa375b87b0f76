"""What the instances sharing a database tell each other of their streams: who is here, who
watches which game (sent as NOTIFY payloads of ids and counts; see docs/server.md)."""

from __future__ import annotations

from dataclasses import dataclass, field

HEARTBEAT = 2.0  # seconds between an instance's "alive" notices
EXPIRY = 3 * HEARTBEAT  # an instance not heard of for this long is gone, and its streams too

# The notices, each "<instance> <kind> <argument>":
HERE = "here"  # the user opened their first signed stream on the instance
GONE = "gone"  # ... closed their last one there
WATCH = "watch"  # "<game id>:<observers>": the instance's own observer count of a game
ALIVE = "alive"  # the instance still runs ("-")
HELLO = "hello"  # the instance just started: the others tell it what they hold ("-")
CHAT = "chat"  # "<game id>:<message id>": a chat message was stored (play/chat.py)
BLOCK = "block"  # "<user id>:<blocked user id>": a user blocked another (play/chat.py)
UNBLOCK = "unblock"  # "<user id>:<unblocked user id>"
CHAT_KINDS = frozenset({CHAT, BLOCK, UNBLOCK})  # handed to play/chat.py
KINDS = frozenset({HERE, GONE, WATCH, ALIVE, HELLO, *CHAT_KINDS})


@dataclass
class Peers:
    """This instance's picture of the other instances' streams."""

    users: dict[str, set[str]] = field(default_factory=dict)  # user -> instances they are on
    watching: dict[str, dict[str, int]] = field(default_factory=dict)  # game -> instance -> n
    seen: dict[str, float] = field(default_factory=dict)  # instance -> last heard of

    def here(self, user_id: str) -> bool:
        return user_id in self.users

    def arrived(self, instance: str, user_id: str) -> bool:
        """The user has a stream on `instance`; True if no other instance had one."""
        held = self.users.setdefault(user_id, set())
        held.add(instance)
        return len(held) == 1

    def left(self, instance: str, user_id: str) -> bool:
        """The user closed their last stream on `instance`; True if none is left elsewhere."""
        held = self.users.get(user_id)
        if held is None:
            return False
        held.discard(instance)
        if held:
            return False
        del self.users[user_id]
        return True

    def watch(self, instance: str, game_id: str, count: int) -> None:
        counts = self.watching.setdefault(game_id, {})
        if count:
            counts[instance] = count
        else:
            counts.pop(instance, None)
            if not counts:
                del self.watching[game_id]

    def observers(self, game_id: str) -> int:
        """How many watch the game on the other instances."""
        return sum(self.watching.get(game_id, {}).values())

    def expire(self, now: float) -> tuple[set[str], list[str], list[str]]:
        """Forget the instances not heard of since `now - EXPIRY`: those instances, the users
        no longer here anywhere else, and the games whose counts changed."""
        dead = {instance for instance, at in self.seen.items() if at < now - EXPIRY}
        if not dead:
            return dead, [], []
        for instance in dead:
            del self.seen[instance]
        users = []
        for user, held in list(self.users.items()):
            if held & dead:
                held -= dead
                if not held:
                    del self.users[user]
                    users.append(user)
        games = [game for game, counts in list(self.watching.items()) if counts.keys() & dead]
        for game in games:
            for instance in dead:
                self.watch(instance, game, 0)
        return dead, users, games
