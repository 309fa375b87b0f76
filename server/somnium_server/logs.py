"""Log lines without sign-in secrets: the query of a sign-in callback (its `code` and `state`),
or of any URL carrying either, is replaced by `?[redacted]` in every line the server logs."""

from __future__ import annotations

import logging
import re
from typing import Any

URL_QUERY = re.compile(r"(?P<path>/[^\s?\"'<>]*)\?(?P<query>[^\s\"'<>]*)")
SECRET_PARAMETER = re.compile(r"(?:^|[&;])(?:code|state)=", re.IGNORECASE)
SIGN_IN_CALLBACK = "/auth/callback"
REDACTED = "?[redacted]"


def redact(text: str) -> str:
    """`text` with the query of each sign-in callback URL, or of any URL with a `code` or
    `state` parameter, replaced by ?[redacted]."""
    if "?" not in text:
        return text

    def replace(match: re.Match[str]) -> str:
        path, query = match.group("path"), match.group("query")
        if SIGN_IN_CALLBACK in path or SECRET_PARAMETER.search(query):
            return path + REDACTED
        return match.group(0)

    return URL_QUERY.sub(replace, text)


def _redacted(value: Any) -> Any:
    return redact(value) if isinstance(value, str) else value


class RedactSecrets(logging.Filter):
    """A logging filter (for handlers) that redacts a record's message and its arguments in
    place, so that every handler after it sees the redacted record too; it drops nothing."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str):
            record.msg = redact(record.msg)
        args = record.args
        if isinstance(args, tuple):
            record.args = tuple(_redacted(value) for value in args)
        elif isinstance(args, dict):
            record.args = {key: _redacted(value) for key, value in args.items()}
        return True


def uvicorn_log_config() -> dict[str, Any]:
    """uvicorn's loggers as `logging.config.dictConfig` sets them up (uvicorn's `log_config`):
    messages to standard error, the access log to standard output, both through RedactSecrets.
    Levels and whether the access log is on are uvicorn's own settings."""
    handler = {"class": "logging.StreamHandler", "formatter": "plain", "filters": ["redact"]}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"redact": {"()": RedactSecrets}},
        "formatters": {"plain": {"format": "%(levelname)s:     %(message)s"}},
        "handlers": {
            "default": {**handler, "stream": "ext://sys.stderr"},
            "access": {**handler, "stream": "ext://sys.stdout"},
        },
        "loggers": {
            "uvicorn": {"handlers": ["default"], "level": "INFO", "propagate": False},
            "uvicorn.error": {"level": "INFO"},
            "uvicorn.access": {"handlers": ["access"], "level": "INFO", "propagate": False},
        },
    }


def log_to_stderr(level: str) -> None:
    """The server's own loggers (and its libraries') to standard error at `level`, redacted."""
    logging.basicConfig(level=level.upper())
    for handler in logging.getLogger().handlers:
        handler.addFilter(RedactSecrets())
