# One venv, created on demand; every target below installs what it needs.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: test lint typecheck unit crosshair docs docs-browser clean

# swarmconf and swarmconf-vectors (the conformance vectors, a distribution of their own whose
# project is vectors/), both editable: the runner reads vectors/v1 where `make vectors` writes
# it. The vectors carry swarmconf's version, so a new version reinstalls both.
$(STAMP): pyproject.toml vectors/pyproject.toml vectors/setup.py src/swarmconf/__init__.py
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]' -e ./vectors
	touch $@

# The modules setup.py compiles with mypyc (listed in swarmconf/compiled.py), built in place and
# rebuilt when a source changes (a stale one runs from its source, saying so);
# SWARMCONF_PURE_PYTHON=1 runs their sources instead. The link tree build/tree lays the package
# out as installed, for mypy; it is made anew each time, so a new module is never missed.
COMPILED_SOURCES := setup.py src/swarmconf/compiled.py $(wildcard reference/configmerge/*.py)
READY := $(VENV)/.compiled
$(READY): $(STAMP) $(COMPILED_SOURCES)
	$(BIN)/python setup.py --quiet build_ext --inplace --force
	touch $@

.PHONY: tree
tree: $(STAMP)
	$(BIN)/python setup.py --quiet tree

test: lint typecheck unit unit-interpreted crosshair

lint: $(READY)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(READY) tree
	$(BIN)/mypy

unit: $(READY) tree debian-packages
	$(BIN)/pytest

# The config-merge reference's tests again on its sources, as a wheel built without a compiler
# runs them (the whole suite above runs the compiled modules).
.PHONY: unit-interpreted
unit-interpreted: $(READY)
	SWARMCONF_PURE_PYTHON=1 $(BIN)/pytest -p no:cacheprovider tests/reference/configmerge

# Debian packages the tests run for real: `serf` (the K/V Gossip node's integration tests),
# `faketime` (clock skew in its fault tests), `zstd` (whose libzstd the compressed payloads are
# compared against) and, for `make docs-browser`, `chromium`. Installed with apt-get (as root, or
# through sudo) if missing.
DEBIAN_PACKAGES ?= serf faketime zstd
APT := $(if $(filter 0,$(shell id -u)),,sudo )apt-get
.PHONY: debian-packages
debian-packages:
	@missing=""; for p in $(DEBIAN_PACKAGES); do command -v $$p >/dev/null || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then $(APT) update -qq && $(APT) install -y -qq $$missing; fi

# Symbolic checks of the contracts (pre:/post: lines) in the spec's small pure functions.
CONTRACT_MODULES := swarmconf.spec.configmerge.bt swarmconf.spec.configmerge.data swarmconf.spec.configmerge.diff swarmconf.spec.configmerge.encryption
crosshair: $(READY)
	timeout 240 $(BIN)/crosshair check --analysis_kind=PEP316 \
		--per_condition_timeout=8 --per_path_timeout=2 $(CONTRACT_MODULES)

# The docs site (mkdocs.yml at the root, so a bare `mkdocs serve` works too): the generated blocks
# of the Markdown (docs/pages, conformance/*.md) rewritten from the code, then the site built with
# --strict (warnings are errors) into site/.
docs: $(READY) tree
	$(BIN)/python docs/hooks/generate.py
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

# Every page of the built site in headless Chromium, failing on console errors (.ci/run).
docs-browser: DEBIAN_PACKAGES += chromium
docs-browser: docs debian-packages
	$(BIN)/python docs/checks/browser.py site

clean:
	rm -rf $(VENV) build dist site *.egg-info vectors/build vectors/*.egg-info .pytest_cache \
		.mypy_cache .ruff_cache .hypothesis
	find src/ reference/ -name "*.so" -delete

# Every conformance vector file of every registered design under vectors/v1, its schema and
# COVERAGE.md (byte-for-byte reproducible).
.PHONY: vectors
vectors: $(READY)
	$(BIN)/swarmconf vectors generate -o vectors/v1

# Both wheels of one version in dist/: swarmconf's (without the vectors) and swarmconf-vectors'.
.PHONY: wheels
wheels: $(STAMP)
	$(BIN)/python -m pip wheel --quiet --no-deps -w dist . ./vectors

# K/V Gossip: what sealing the sync wire costs in one process; then the node on real Serf agents:
# write propagation to two peers at 0, 2,000 and 100,000 keys, the backup path alone, a fresh node
# pulling 100,000 keys, reconciliation traffic; then the same writes while 200 hostile connections
# of each kind hit one node. A benchmark, not a test: it prints what it measures. Serf agents run
# under the shared lock.
.PHONY: bench-kv
bench-kv: $(READY)
	nice $(BIN)/python -m bench.kvgossip.wire
	flock /tmp/serf.lock nice $(BIN)/python -m bench.kvgossip.propagation
	flock /tmp/serf.lock nice $(BIN)/python -m bench.kvgossip.attack

# K/V Gossip under real faults (root): 50 fault schedules on five nodes in network namespaces
# (partitions, pauses, crashes, clock skew), then a 30 s majority/minority partition with writes
# on both sides, three times; Markdown reports with the timelines in kv-faults-out/.
.PHONY: bench-kv-faults
bench-kv-faults: $(READY) debian-packages
	nice $(BIN)/python -m bench.kvgossip.faults --schedules 50
	nice $(BIN)/python -m bench.kvgossip.faults --schedules 3 --partition 30 --out kv-faults-out/partition

# K/V Gossip at 32 real nodes in namespaces (root): start-up, memory, write propagation against
# Serf's own event propagation and bytes per node at 3/8/16/32 nodes, fresh nodes joining 31
# holding 100,000 keys, fault schedules and a 16/16 partition at 32 nodes (about 20 minutes;
# KV_SCALE='--only curve' or another part runs less, see python -m bench.kvgossip.scale -h).
KV_SCALE ?=
.PHONY: bench-kv-scale
bench-kv-scale: $(READY) debian-packages
	nice $(BIN)/python -m bench.kvgossip.scale $(KV_SCALE)

# K/V Gossip simulation throughput on one core: 500 schedules of campaign 1.
.PHONY: bench-kvsim
bench-kvsim: $(READY)
	$(BIN)/python -m swarmconf.fuzz.kvgossip --campaign 1 --cases 500

# K/V Gossip simulated at size (docs/pages/kvgossip/simulation.md): one write through 100, 300
# and 1,000 nodes under each rule set with the growth fits, then the real cluster's workload
# (bench-kv-scale) at 3 to 32 nodes holding 0 and 100,000 keys. About ten CPU minutes.
.PHONY: bench-kvsim-scale
bench-kvsim-scale: $(READY)
	nice $(BIN)/python -m swarmconf.fuzz.kvgossip.scale_report --nodes 100,300,1000 --fit
	nice $(BIN)/python -m swarmconf.fuzz.kvgossip.scale_report --nodes 3,8,16,32 \
		--preload 0,100000 --profiles node,tree --writes 10

# The fuzz campaign (README): FUZZ_INTERLEAVINGS interleavings on local Spark, then the report's
# path. Needs Java 17 for Spark.
FUZZ_INTERLEAVINGS ?= 200000
.PHONY: fuzz fuzz-cluster bench-fuzz bench-fuzz-hangs bench-check
fuzz: $(READY)
	$(BIN)/swarmconf fuzz --interleavings $(FUZZ_INTERLEAVINGS) -o fuzz-out

# A Spark standalone master and two workers on 127.0.0.1, a small campaign submitted, stopped.
fuzz-cluster: $(READY)
	$(BIN)/python -m swarmconf.fuzz.cluster --interleavings 2000 --out fuzz-cluster-out

# Campaign throughput on local[2] and how the core's rate scales with clients and edits; what
# an interleaving computes and the rate the reference's cost of it bounds; and the message-layer
# campaign of FUZZ_AGAINST beside today's in one process.
FUZZ_AGAINST ?= 3a32d16
bench-fuzz: $(READY)
	$(BIN)/python -m bench.fuzz.campaign --interleavings $(FUZZ_INTERLEAVINGS) \
		$(if $(FUZZ_AGAINST),--against $(FUZZ_AGAINST))

# The hostile campaign through a client hanging where it declared no hang, against the same
# campaign through the emulation of the deployed client (docs/pages/fuzz-clients.md).
bench-fuzz-hangs: $(READY)
	$(BIN)/python -m bench.fuzz.hangs

# The bounded check's distinct states a second in one process (medians, wall and CPU time).
bench-check: $(READY)
	nice $(BIN)/python -m bench.fuzz.check --runs 3

# spec, the reference at commit 067bc65 (read from the git history) and the reference now (as
# installed, from its sources, and on the pure-Python fallback), timed in one run (medians,
# speed-up per shape); the Markdown table goes to bench/configmerge/results.md for the docs.
.PHONY: bench
bench: $(READY)
	nice $(BIN)/python -m bench.configmerge.run --output bench/configmerge/results.md

# The command line's latency: `swarmconf --version`, `--help` and `kv get` against a running node,
# median wall time of 10 runs each (CLI_AGAINST=OLD/src also times an older checkout, alternating).
.PHONY: bench-cli
bench-cli: $(READY) debian-packages
	$(BIN)/python -m bench.cli --runs 10 $(if $(CLI_AGAINST),--against $(CLI_AGAINST))

# How strong the config-merge vectors are: cosmic-ray mutates every module of spec/configmerge/ in
# place, one mutant at a time, each run through builtin:spec over the vector files that reach the
# module, then the survivors over every file (3,010 mutants, 773 of them listed and skipped: about
# 17 minutes on two shared cores). An interrupted run resumes; MUTATION_FRESH=1 starts anew.
# Prints the score and every survivor.
.PHONY: mutation
mutation: $(READY)
	nice $(BIN)/python -m swarmconf.conformance.configmerge.mutation run \
		$(if $(MUTATION_FRESH),--fresh)
	nice $(BIN)/python -m swarmconf.conformance.configmerge.mutation run --survivors
