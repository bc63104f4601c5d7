"""Benchmarks (not tests): scale data, import speed, page and queue latency. See README.md."""
