"""The parts of the lobby server's load benchmark (`python -m benchmarks.server_load`)."""
