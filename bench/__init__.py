"""Benchmarks, one folder per design and one for the fuzz campaigns; run with `python -m`
from the repository root (the `make bench*` targets). Not installed with the package."""
