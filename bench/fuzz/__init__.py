"""Fuzz campaign benchmarks: throughput, parallel efficiency, client campaign costs."""
