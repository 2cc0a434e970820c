"""Config-merge benchmarks: spec, reference and an older reference timed in one run."""
