# memorywire: `make demo` runs the main job, `make test` runs every test,
# `make check` the quick ones (lint, types and the tests not marked slow).
# They create what they need: a virtual environment in .venv and buf in
# node_modules.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
NODE_STAMP := node_modules/.installed
JS_TESTEE  := conformance/testees/javascript
PYTEST := $(BIN)/python -m pytest python/tests conformance/python/tests -q -p no:cacheprovider
# Every Python source that mypy --strict checks, each with its own configuration.
MYPY_CONFORMANCE := conformance/python/src/memorywire_conformance
MYPY_TOOLS := tools conformance/tools python/benchmarks

.PHONY: demo test check lint typecheck js-test frameworks proto proto-baseline schemas clean

# The package versions are read from VERSION and memorywire/_version.py at
# install time, and the compiled extension is built then, so a change to
# any of them reinstalls.
$(STAMP): python/pyproject.toml conformance/python/pyproject.toml VERSION python/src/memorywire/_version.py \
		python/setup.py python/src/memorywire/_speedups.c
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e 'python[test]' -e conformance/python
	touch $@

$(NODE_STAMP): package.json package-lock.json $(JS_TESTEE)/package.json $(JS_TESTEE)/package-lock.json
	npm ci --no-audit --no-fund --silent
	npm ci --no-audit --no-fund --silent --prefix $(JS_TESTEE)
	touch $@

# Regenerate every file made from proto/: the Python protobuf modules, the
# JSON Schemas, the descriptor sets of the conformance runner and of the
# JavaScript testee (tools/regen.py).
proto: $(STAMP) $(NODE_STAMP)
	$(BIN)/python tools/regen.py

schemas: proto

# The image of the released protos that buf breaking holds proto/ to (in
# lint and in python/tests/test_proto_interop.py). proto-baseline rewrites
# it when a release is cut, never to silence the check.
PROTO_BASELINE := proto/baseline/memorywire-v1.0.binpb
proto-baseline: $(NODE_STAMP)
	npx --no-install buf build --exclude-source-info -o $(PROTO_BASELINE)

lint: $(STAMP) $(NODE_STAMP)
	npx --no-install buf lint
	npx --no-install buf breaking --against $(PROTO_BASELINE)
	$(BIN)/python tools/regen.py --check
	$(BIN)/python tools/schema_sync.py
	$(BIN)/python conformance/tools/build_vectors.py --check
	$(BIN)/memorywire-conformance check-vectors
	$(BIN)/ruff check python/src python/tests python/benchmarks python/fuzz conformance/python tools

typecheck: $(STAMP)
	cd python && ../$(BIN)/python -m mypy src/memorywire fuzz
	cd conformance/python && ../../$(BIN)/python -m mypy src/memorywire_conformance
	$(BIN)/python -m mypy --config-file python/pyproject.toml $(MYPY_TOOLS)

# The JavaScript testee's own unit tests.
js-test: $(NODE_STAMP)
	npm test --silent --prefix $(JS_TESTEE)

# The quick lane, a few minutes: everything but the tests marked slow.
check: lint typecheck js-test
	$(PYTEST) -m "not slow"

test: lint typecheck js-test
	$(PYTEST)
	$(BIN)/python tools/framework_tests.py

# The adapter tests against the real framework packages, each in a virtual
# environment of its own (.venv-fw/), as python/tests/adapters/frameworks/envs.toml lists.
frameworks: $(STAMP)
	$(BIN)/python tools/framework_tests.py

demo: $(STAMP) $(NODE_STAMP)
	$(BIN)/python tools/demo.py
	@echo
	@echo "== frameworks: one conversation through memorywire, from one framework to others =="
	$(BIN)/python tools/demo_frameworks.py
	@echo
	@echo "== one memory in memorywire serve, through the frameworks' own interfaces (real packages) =="
	$(BIN)/python tools/framework_tests.py --build crossframework agency_swarm
	.venv-fw/crossframework/bin/python tools/demo_crossframework.py --agency-swarm .venv-fw/agency_swarm/bin/python
	@echo
	@echo "== conformance: the reference codec (memorywire testee), every level =="
	$(BIN)/memorywire-conformance codec --testee "$(abspath $(BIN))/memorywire testee" --level recommended
	@echo
	@echo "== conformance: the independent JavaScript testee (Node.js), every level =="
	$(BIN)/memorywire-conformance codec --testee "node $(abspath $(JS_TESTEE))/testee.js" --level recommended
	@echo
	@echo "== the reference service (memorywire serve) on an embedded store =="
	$(BIN)/python tools/demo_service.py

clean:
	rm -rf $(VENV) .venv-fw node_modules $(JS_TESTEE)/node_modules
