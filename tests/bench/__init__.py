"""Benchmark harness for `make bench` (see docs/benchmarks.md)."""
