# memorywire: `make demo` runs the main job, `make test` runs every test.
# Both create what they need: a virtual environment in .venv and buf in
# node_modules.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
NODE_STAMP := node_modules/.installed

.PHONY: demo test lint proto schemas clean

$(STAMP): python/pyproject.toml conformance/python/pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e 'python[test]' -e conformance/python
	touch $@

$(NODE_STAMP): package.json package-lock.json conformance/testees/javascript/package-lock.json
	npm ci --no-audit --no-fund --silent
	npm ci --no-audit --no-fund --silent --prefix conformance/testees/javascript
	touch $@

# Regenerate the Python protobuf modules and the JSON Schemas from proto/.
proto: $(STAMP)
	$(BIN)/python -m grpc_tools.protoc -Iproto --python_out=python/src --pyi_out=python/src \
		proto/memorywire/v1/*.proto
	$(BIN)/python -m grpc_tools.protoc -Iproto --grpc_python_out=python/src \
		proto/memorywire/v1/memory_service.proto
	$(BIN)/python tools/gen_schemas.py

lint: $(STAMP) $(NODE_STAMP)
	npx --no-install buf lint
	$(BIN)/python tools/gen_schemas.py --check
	$(BIN)/python tools/schema_sync.py
	$(BIN)/python conformance/tools/build_vectors.py --check
	$(BIN)/memorywire-conformance check-vectors
	$(BIN)/ruff check python/src python/tests python/fuzz conformance/python tools
	cd python && ../$(BIN)/python -m mypy src/memorywire fuzz

test: lint $(NODE_STAMP)
	$(BIN)/python -m pytest python/tests conformance/python/tests -q -p no:cacheprovider

demo: $(STAMP) $(NODE_STAMP)
	$(BIN)/python tools/demo.py
	@echo
	@echo "== conformance: the reference codec (memorywire testee), every level =="
	$(BIN)/memorywire-conformance codec --testee "$(abspath $(BIN))/memorywire testee" --level recommended
	@echo
	@echo "== conformance: the independent JavaScript testee (Node.js), every level =="
	$(BIN)/memorywire-conformance codec --testee "node $(abspath conformance/testees/javascript/testee.js)" --level recommended
	@echo
	@echo "== the reference service (memorywire serve) on an embedded store =="
	$(BIN)/python tools/demo_service.py

clean:
	rm -rf $(VENV) node_modules
