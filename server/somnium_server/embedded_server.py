"""uvicorn for the built-in server: says where it listens, leaves once nobody needs it."""

from __future__ import annotations

import json
import os
import socket
import threading
from pathlib import Path
from typing import Any

from somnium_server.cli import Server
from somnium_server.context import context_of
from somnium_server.embedded import write_state


class EmbeddedServer(Server):
    """uvicorn that announces where it listens, and leaves once its app and streams are gone."""

    def __init__(self, config: Any, data_dir: Path, idle: float) -> None:
        super().__init__(config)
        self.data_dir = data_dir
        self.idle = idle
        self.owner_gone = threading.Event()
        self._quiet_ticks = 0

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if self.should_exit or not self.servers:
            return
        port = self.servers[0].sockets[0].getsockname()[1]
        write_state(self.data_dir, {"port": port, "pid": os.getpid()})
        print(json.dumps({"port": port}), flush=True)

    async def on_tick(self, counter: int) -> bool:
        if self.owner_gone.is_set():
            ctx = context_of(self.config.app)
            streams = ctx.hub.subscribers if ctx is not None else set()
            self._quiet_ticks = 0 if streams else self._quiet_ticks + 1
            if self._quiet_ticks * 0.1 >= self.idle:  # uvicorn ticks every 0.1 s
                return True
        return await super().on_tick(counter)
