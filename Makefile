# Ignite 3 wire-value conformance suite.
#   make verify   set up what is missing, build every runner, run it over the corpus (reports in out/)
#   make test     the project's own tests (pytest), make verify (and the reject-agreement lint), verify-node,
#                 verify-official (when Ignite sources are there), fuzz, each
#                 runner's checks, the hostile-input benchmark
#   make fuzz     cross-runner property-based fuzzing (20,000 values)
#   make bench    codec speed per language (IEP-75 and Ignite.NET cases); make bench-verify: verify speed
#   make verify-official  the official Ignite clients' own code over the corpus (IGNITE_REF, reports in out/official/)
#   make verify-node  the node drivers over the node cases, the protocol over time (reports in out/node/)
#   make vectors  regenerate vectors/ from generator/sources/ (and node/cases.json from generator/node/)
#   make report   out/dashboard.html, out/summary.md and out/badges/ from the last run
#   make packages the corpus with a loader for npm, NuGet, Python, Go, Rust and Java in dist/packages/ (offline)
#   make mutation corpus strength: the mutant catalogue and StrykerJS (mutation/README.md; not in make test)
# RUNNERS=python,java selects runners (default: every runners/<name>/runner.json); ARGS='...' goes to the harness.

# Debian's own interpreter: the python3-* packages below belong to it, not to whatever python3 is first on PATH.
PY      := /usr/bin/python3
OUT     ?= out
# The reference runners (ours, on each ecosystem's MessagePack library); runners/ignite-* are adapters over the
# official Ignite clients' own code, run by `make verify-official` instead.
OFFICIAL_RUNNERS := $(patsubst runners/%/runner.json,%,$(wildcard runners/ignite-*/runner.json))
ALL_RUNNERS := $(filter-out $(OFFICIAL_RUNNERS),$(patsubst runners/%/runner.json,%,$(wildcard runners/*/runner.json)))
RUNNERS ?= $(shell echo $(ALL_RUNNERS) | tr ' ' ',')
comma   := ,
space   := $(subst ,, )
RUNNER_LIST := $(subst $(comma), ,$(RUNNERS))
# make verify-official: every official runner, or those RUNNERS names when given (RUNNERS=ignite-cpp).
OFFICIAL_LIST := $(if $(filter file,$(origin RUNNERS)),$(OFFICIAL_RUNNERS),$(RUNNER_LIST))
IGNITE_REF ?= 3.1.0
IGNITE_REFS := 3.0.0 3.1.0 main
ARGS    ?=

.PHONY: setup setup-fuzz setup-test setup-all vectors build verify verify-node report test pytest checks bench-hostile fuzz bench bench-verify

# What the harness and the generator need (make verify installs nothing more); the fuzzer adds hypothesis; the
# tests add pytest (+ xdist: the tests run on every core), chromium + selenium for the dashboard's browser test,
# lxml + junitparser for the JUnit XML.
SETUP_DEBS := python3-jsonschema python3-yaml
FUZZ_DEBS  := python3-hypothesis
TEST_DEBS  := python3-pytest python3-pytest-xdist chromium chromium-driver python3-selenium python3-lxml python3-junitparser
# make packages (and the package tests, tests/test_packages_*.py, which make pytest runs): the Python wheel/sdist
# builder and a venv with pip for its consumer, the JDK and jackson-databind for the jar.
PACKAGES_DEBS := python3-build python3-setuptools python3-wheel python3-venv python3-pip openjdk-17-jdk-headless \
                 libjackson2-databind-java
# The Go module's vet and consumer, the Rust crate's serde_json and sha2 from Debian's crate registry.
PACKAGES_DEBS += golang-go librust-serde-json-dev librust-sha2-dev
TEST_DEBS  += $(PACKAGES_DEBS)
setup:
	@tools/need-deb $(SETUP_DEBS)
setup-fuzz: setup
	@tools/need-deb $(FUZZ_DEBS)
setup-test: setup-fuzz
	@tools/need-deb $(TEST_DEBS)

# Everything `make test` installs, in one apt round (each round pays an `apt-get update`): the tests' packages and
# what each selected runner's `setup` would install (the optional `debs` target of runners/<name>/Makefile prints it).
# The runners' own setups then find their packages there and install nothing. (Plain `make`, not $(MAKE): `make -n`
# prints this line instead of running it.)
setup-all:
	@tools/need-deb $(SETUP_DEBS) $(FUZZ_DEBS) $(TEST_DEBS) $$(for r in $(RUNNER_LIST) $(OFFICIAL_RUNNERS); do \
	  if grep -q '^debs:' runners/$$r/Makefile; then env -u MAKEFLAGS make -s --no-print-directory -C runners/$$r debs; fi; \
	  done)

vectors: setup
	$(PY) -m generator

# Each runner builds itself: runners/<name>/Makefile has `setup` (installs what is missing) and `build`.
# (runner-<name> is deliberately not .PHONY: make does not search pattern rules for phony targets.)
runner-%:
	@test -f runners/$*/runner.json || { echo "no runner '$*' (have: $(ALL_RUNNERS))" >&2; exit 2; }
	$(MAKE) --no-print-directory -C runners/$* setup build

build: $(addprefix runner-,$(RUNNER_LIST))

# Every format of the protocol schema is required of the in-repo runners (format=*: the harness reads the list from
# the schema): a new format fails verify until each runner claims it (a third-party runner's gate may leave
# formats unclaimed; ci/README.md).
verify: setup build harness-bytecode
	$(PY) -m harness verify --runners $(RUNNERS) --require 'format=*' --out $(OUT) $(ARGS)

# The protocol over time (spec.md 11.9): every driver of drivers/drivers.json over every node case (node/cases.json),
# and the broken copies of the reference driver over the cases written for their bugs; reports in $(OUT)/node.
# The reference needs the Python runner's codec (python3-msgpack). The official .NET client's driver is built first
# when it can be (a .NET 10 SDK and ../shared/upstream, through runners/ignite-dotnet's one client build), else it
# is skipped with a note. Measured: reference + broken ~24 s; the .NET driver ~15-22 s (+ its build: ~26 s cold, ~6 s
# up to date).
# Where there are sources a failed build fails the target; without them (exit 3) the driver is skipped, said so.
verify-node: setup runner-python
	@if ! command -v dotnet >/dev/null 2>&1; then echo "verify-node: no .NET SDK: the .NET driver is skipped" >&2; \
	elif $(PY) tools/ignite_upstream.py ignite --ref $(IGNITE_REF) >/dev/null; then \
	  $(MAKE) --no-print-directory -C drivers/dotnet build || exit 1; \
	elif [ $$? -eq 3 ]; then echo "verify-node: no Ignite sources: the .NET driver is skipped" >&2; \
	else exit 1; fi
	$(PY) -m harness node --broken all --out $(OUT)/node $(ARGS)

# The harness's bytecode, written when a source changed: each run then loads it instead of compiling ~4,700 lines
# (0.02 s of a verify run's start, before any runner can), also where PYTHONDONTWRITEBYTECODE keeps Python from
# writing it. Python ignores a .pyc older than its source, so a stale one is never used.
.PHONY: harness-bytecode
harness-bytecode: harness/__pycache__/.compiled
harness/__pycache__/.compiled: $(wildcard harness/*.py)
	@$(PY) -m compileall -q harness
	@touch $@

# The official clients' own wire code (apache/ignite-3 at IGNITE_REF=3.0.0|3.1.0|main, default 3.1.0), each behind a
# thin adapter in runners/ignite-<client>/, over the whole corpus; their deviations are listed per ref in
# runners/ignite-<client>/expected-failures-<ref>.txt. Sources: $$IGNITE3_SRC, or ../shared/upstream's archives
# (tools/ignite_upstream.py says how when there are none). Reports in $(OUT)/official/<ref>/.
.PHONY: verify-official verify-official-all official-sources
official-sources:
	@$(PY) tools/ignite_upstream.py ignite --ref $(IGNITE_REF) >/dev/null
verify-official: setup harness-bytecode official-sources
	@test -n "$(OFFICIAL_LIST)" || { echo "no official runner (runners/ignite-*/runner.json)" >&2; exit 2; }
	@for r in $(OFFICIAL_LIST); do \
	  $(MAKE) --no-print-directory -C runners/$$r setup build IGNITE_REF=$(IGNITE_REF) || exit 1; done
	IGNITE_REF=$(IGNITE_REF) $(PY) -m harness verify --runners $(subst $(space),$(comma),$(strip $(OFFICIAL_LIST))) \
	  $(foreach r,$(OFFICIAL_LIST),--expected-failures $(r)=runners/$(r)/expected-failures-$(IGNITE_REF).txt) \
	  --out $(OUT)/official/$(IGNITE_REF) $(ARGS)
# What make test runs: verify-official at IGNITE_REF when there are sources; without any (tools/ignite_upstream.py
# exit 3: no IGNITE3_SRC and no ../shared/upstream) one line says it was skipped and how to point at a checkout.
.PHONY: verify-official-if-sources
verify-official-if-sources:
	@if $(PY) tools/ignite_upstream.py ignite --ref $(IGNITE_REF) >/dev/null; then \
	  $(MAKE) --no-print-directory verify-official; \
	elif [ $$? -eq 3 ]; then echo "verify-official: skipped, no Ignite sources (set IGNITE3_SRC, see above)" >&2; \
	else exit 1; fi
# Every ref in turn (what the README's table of the official clients is made from).
verify-official-all:
	@for ref in $(IGNITE_REFS); do $(MAKE) --no-print-directory verify-official IGNITE_REF=$$ref || exit 1; done
# The official runners' expected-failures files, regenerated from their causes.yaml (docs/official-clients.md): each
# ref run WITHOUT a listing into $(OUT)/official-raw/<ref> (the harness exits 1 there: its failing verdicts are the
# input), then tools/official_causes.py writes runners/<r>/expected-failures-<ref>.txt (exit 1: a verdict no cause takes).
.PHONY: official-lists
official-lists: setup harness-bytecode
	@for ref in $(IGNITE_REFS); do \
	  $(MAKE) --no-print-directory official-sources IGNITE_REF=$$ref || exit 1; \
	  for r in $(OFFICIAL_LIST); do $(MAKE) --no-print-directory -C runners/$$r setup build IGNITE_REF=$$ref || exit 1; done; \
	  rm -f $(OUT)/official-raw/$$ref/report.json; \
	  IGNITE_REF=$$ref $(PY) -m harness verify --runners $(subst $(space),$(comma),$(strip $(OFFICIAL_LIST))) --no-matrix \
	    --out $(OUT)/official-raw/$$ref $(ARGS); rc=$$?; [ $$rc -le 1 ] || exit $$rc; done
	$(PY) tools/official_causes.py --runners $(subst $(space),$(comma),$(strip $(OFFICIAL_LIST))) --raw $(OUT)/official-raw
# README's table "The official clients" from those runs and the cause headers (docs/official-clients.md).
.PHONY: official-table
official-table:
	$(PY) tools/official_table.py --official $(OUT)/official --readme README.md

# The dashboard, Markdown summary and badges from the last run's report (with the official clients' section when
# their per-ref runs are in $(OUT)/official: docs/official-clients.md).
report: setup
	$(PY) -m dashboard --report $(OUT)/report.json --corpus vectors --out $(OUT) \
	    $(if $(wildcard $(OUT)/official/*/report.json),--official $(OUT)/official)

# The tests run the Python runner (runners/python; tests/test_add_a_type.py in a scratch copy of the repository):
# its setup installs python3-msgpack. -n: pytest-xdist workers, one per core (PYTEST_WORKERS=0: one process).
# runner-js: its pinned typescript compiles a typed consumer of the npm package (tests/test_packages_npm.py).
PYTEST_WORKERS ?= auto
pytest: setup-test runner-python runner-js
	$(PY) -m pytest -q -n $(PYTEST_WORKERS) tests

# A runner may add its own checks (sanitizers, type checks) as a `check` target in its Makefile.
checks: build
	@for r in $(RUNNER_LIST); do \
	  if grep -q '^check:' runners/$$r/Makefile; then $(MAKE) --no-print-directory -C runners/$$r check || exit 1; fi; \
	done

# Peak RSS and slowest vector of each runner over the must-reject corpus; fails when a runner misses a goal
# (peak RSS 256 MiB, 1 s per vector). Table on stdout, figures in $(OUT)/bench-hostile.json.
bench-hostile: setup build
	$(PY) tools/bench_hostile.py --runners $(RUNNERS) --out $(OUT)

FUZZ_VALUES ?= 20000
FUZZ_SEED   ?= 1
# Hypothesis cross-runner fuzzing; a disagreement is shrunk and written to $(OUT)/fuzz/regressions/<hash>.yaml.
# Fails when it finds one, or when --seconds runs out before FUZZ_VALUES values were checked.
fuzz: setup-fuzz build
	$(PY) -m fuzz --runners $(RUNNERS) --values $(FUZZ_VALUES) --seed $(FUZZ_SEED) --seconds 300 --out $(OUT)/fuzz

# After verify: every must-reject vector got one class from every runner (tools/reject_agreement.py).
test: setup-all
	$(MAKE) --no-print-directory pytest
	$(MAKE) --no-print-directory verify
	$(PY) tools/reject_agreement.py $(OUT)/report.json
	$(MAKE) --no-print-directory verify-node
	$(MAKE) --no-print-directory verify-official-if-sources
	$(MAKE) --no-print-directory fuzz
	$(MAKE) --no-print-directory checks
	$(MAKE) --no-print-directory bench-hostile

# Codec speed in every language (bench/README.md); the typed paths call the runners' codecs, so build them all.
bench: setup $(addprefix runner-,$(ALL_RUNNERS))
	$(MAKE) --no-print-directory -C bench bench

# Warm `make verify` against its floor, runner throughput on 1x/3x/10x corpora, a harness profile (~15 min).
bench-verify: setup $(addprefix runner-,$(ALL_RUNNERS))
	$(MAKE) --no-print-directory -C bench verify

# The corpus packages of every ecosystem in dist/packages/<eco>/, built offline from the release tarball below
# (packages/README.md; ONLY=npm builds one). Node/npm come as the js runner's setup has them.
.PHONY: packages
packages: release
	@tools/need-deb $(PACKAGES_DEBS)
	@command -v npm >/dev/null 2>&1 || tools/need-deb nodejs npm
	$(PY) packages/build.py --out dist/packages $(if $(ONLY),$(foreach e,$(subst $(comma), ,$(ONLY)),--only $(e)))

# Corpus strength, a bench-like target (not in make test, which runs only the historical and community-client
# mutants: tests/test_mutation_catalogue.py): every mutant of mutation/catalogue.yaml (the Python and Go runners)
# over the whole corpus -> out/mutation/catalogue.{json,md} and the committed mutation/score.json (README "Corpus
# strength", the dashboard's Versions); then StrykerJS over the JS runner's codec files. mutation/README.md.
.PHONY: mutation mutation-catalogue
mutation: mutation-catalogue mutation-stryker
mutation-catalogue: setup runner-python runner-go
	$(PY) -m mutation.run --score mutation/score.json

# dist/ignite-wire-corpus-<corpus_version>.tar.gz + dist/SHA256SUMS (spec.md 8.3). Refuses a corpus that differs
# from its sources or its manifest, and a CHANGELOG.md without an entry for the version.
.PHONY: release
release: setup
	$(PY) tools/release.py --out dist

# StrykerJS over the js runner's codec files, the harness over the corpus as its test (mutation/stryker/README.md):
# 71 min in full on a loaded 2-core machine, 12 min incrementally after a corpus change. Reports in
# out/mutation/stryker/; the score and the corpus state it was measured on are committed (mutation/stryker-score.json,
# mutation/stryker/stryker-*.json). Not part of make test. STRYKER_ARGS='--force' tests every mutant again.
.PHONY: mutation-stryker
STRYKER_ARGS ?=
mutation-stryker: setup runner-js harness-bytecode mutation/stryker/node_modules/.package-lock.json
	$(PY) mutation/stryker/incremental.py prepare
	STRYKER_CORPUS_CACHE=$(abspath $(OUT))/.corpus-cache mutation/stryker/node_modules/.bin/stryker run \
	  mutation/stryker/stryker.config.mjs $(STRYKER_ARGS)
	$(PY) mutation/stryker/incremental.py record

# npm ci writes node_modules/.package-lock.json; it is older than package-lock.json after a lock change.
mutation/stryker/node_modules/.package-lock.json: mutation/stryker/package-lock.json mutation/stryker/package.json
	cd mutation/stryker && npm ci --no-audit --no-fund
	@touch $@
