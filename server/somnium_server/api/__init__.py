"""The HTTP API: routes, request and answer models, errors, rate limits and /docs."""
