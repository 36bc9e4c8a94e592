# svc: the trust directory service. `make run` serves on the embedded SQLite default;
# `make test` runs everything the project checks.

SHELL        := bash
.SHELLFLAGS  := -eu -o pipefail -c
GO           ?= go
# Debian's python3 (the Python SDK uses the standard library only; pyenv or other interpreters on
# PATH come after it)
PYTHON       ?= $(shell test -x /usr/bin/python3 && echo /usr/bin/python3 || echo python3)
CACHE        := .cache
CONFORMANCE  := conformance
BIN          := bin/svc
VERSION      ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo devel)
export SVC_TEST_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/test?sslmode=disable
export SVC_CONFORMANCE_DIR   ?= $(abspath $(CONFORMANCE))

.PHONY: all build docs-assets check-docs-assets explorer-assets check-explorer-assets run test gotest go-floor sdk-py sdk-py-generate generate check-generate lint lint-spec contract bench bench-http conformance vectors walkthrough node-tools fuzz clean cluster-test cluster-bench

all: build

DOCS_ASSETS  := server/docs/swagger-ui-bundle.js server/docs/swagger-ui.css

build:
	$(GO) build -ldflags "-X main.version=$(VERSION)" -o $(BIN) ./cmd/svc

## docs-assets: refresh the committed Swagger UI files (served at /docs) from the swagger-ui-dist
## npm package at package.json's version; build and run use the committed copy and need no npm
docs-assets: node-tools
	cp $(addprefix node_modules/swagger-ui-dist/,$(notdir $(DOCS_ASSETS))) server/docs/

## check-docs-assets: fail when the committed Swagger UI files are not package.json's version
check-docs-assets: node-tools
	@for f in $(notdir $(DOCS_ASSETS)); do \
		cmp -s node_modules/swagger-ui-dist/$$f server/docs/$$f || { echo "server/docs/$$f is not swagger-ui-dist $$(node -p 'require("./node_modules/swagger-ui-dist/package.json").version'): run 'make docs-assets' and commit"; exit 1; }; \
	done; echo "server/docs has swagger-ui-dist $$(node -p 'require("./node_modules/swagger-ui-dist/package.json").version')"

## explorer-assets: rebuild the explorer's verify button (explorer/assets/verify.js: the TypeScript
## SDK's verifiers bundled for the browser by esbuild from explorer/verify/main.ts); build and run
## use the committed bundle and need no npm
EXPLORER_BUNDLE := explorer/assets/verify.js
ESBUILD_FLAGS   := --bundle --format=iife --target=es2020 --minify --legal-comments=none --charset=utf8
explorer-assets: node-tools sdk/typescript/node_modules/.package-lock.json
	npx --no-install esbuild explorer/verify/main.ts $(ESBUILD_FLAGS) --outfile=$(EXPLORER_BUNDLE) --log-level=warning

## check-explorer-assets: fail when the committed bundle is not what its sources give
check-explorer-assets: node-tools sdk/typescript/node_modules/.package-lock.json
	@tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	npx --no-install esbuild explorer/verify/main.ts $(ESBUILD_FLAGS) --outfile="$$tmp/verify.js" --log-level=warning; \
	cmp -s "$$tmp/verify.js" $(EXPLORER_BUNDLE) || { echo "$(EXPLORER_BUNDLE) is stale: run 'make explorer-assets' and commit"; exit 1; }; \
	echo "$(EXPLORER_BUNDLE) is up to date"

## run: build and serve on the embedded SQLite file (sqlite://svc.db) at :8080
run: build
	./$(BIN) serve

## test: everything the project checks; the Go tests come last, so that their summary (counts,
## and each skipped test with its reason) ends the output
test: check-generate check-docs-assets check-explorer-assets lint go-floor lint-spec sdk-py contract gotest

## gotest: go test -race over every package through gotestsum, which ends with a summary: the
## number of tests run, failed and skipped, and each skipped test with its reason (-timeout 30m:
## on two busy cores the race-enabled server package alone can pass go test's default 10m)
gotest: conformance sdk-ts node-tools
	$(GO) tool gotestsum --format pkgname --format-hide-empty-pkg -- -race -count=1 -timeout=30m ./...

## generate: regenerate gen/ from openapi.yaml
generate:
	$(GO) generate ./gen/...

## check-generate: fail when gen/ is not what openapi.yaml gives
check-generate:
	@tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	for pair in gen/models/config.yaml:models.gen.go gen/config.yaml:api.gen.go gen/client/config.yaml:client.gen.go; do \
		cfg=$${pair%%:*}; dir=$$(dirname $$cfg); out=$${pair#*:}; \
		sed "s|^output: .*|output: $$tmp/out.go|" $$cfg > "$$tmp/config.yaml"; \
		(cd $$dir && $(GO) tool oapi-codegen -config "$$tmp/config.yaml" $(CURDIR)/openapi.yaml); \
		if ! diff -u $$dir/$$out "$$tmp/out.go" >/dev/null; then \
			echo "$$dir/$$out is stale: run 'make generate' and commit"; diff -u $$dir/$$out "$$tmp/out.go" | head -40; exit 1; fi; \
	done; \
	echo "gen/ is up to date"

lint:
	$(GO) vet ./...
	$(GO) tool staticcheck ./...
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt wants changes in:"; echo "$$out"; exit 1; fi

## go-floor: the module builds, vets and passes its pure packages' tests with the oldest Go its
## go.mod allows (the `go` line, the lowest the dependencies allow), fetched by the go command
## through the module proxy (GOTOOLCHAIN), so that the line a consumer is held to is tested
GO_FLOOR := $(shell sed -n 's/^go \([0-9.]*\)$$/\1/p' go.mod)
go-floor: conformance
	GOTOOLCHAIN=go$(GO_FLOOR) $(GO) version
	GOTOOLCHAIN=go$(GO_FLOOR) $(GO) vet ./...
	GOTOOLCHAIN=go$(GO_FLOOR) $(GO) test -count=1 ./proof/... ./translog/leaf ./directory ./dedi ./recordschema ./client

node-tools: node_modules/.package-lock.json
node_modules/.package-lock.json: package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	@touch $@

## sdk-ts: the TypeScript SDK (sdk/typescript): install, build and run its offline tests (a
## CommonJS and an ES module consumer of the packed SDK included), and leave the package in
## dist/ (ignored); its live test runs from the Go test TestTypeScriptSDK, which needs this first
.PHONY: sdk-ts
sdk-ts: sdk/typescript/node_modules/.package-lock.json
	mkdir -p dist
	cd sdk/typescript && npm run build && npm pack --silent --pack-destination ../../dist >/dev/null
	cd sdk/typescript && SVC_SDK_TARBALL=$(abspath dist)/svc-directory-sdk-$$(node -p 'require("./package.json").version').tgz npm test
	@echo "dist/svc-directory-sdk-$$(node -p 'require("./sdk/typescript/package.json").version').tgz"
sdk/typescript/node_modules/.package-lock.json: sdk/typescript/package.json sdk/typescript/package-lock.json
	cd sdk/typescript && npm ci --no-audit --no-fund --loglevel=error
	@touch $@

## sdk-py: the Python SDK (sdk/python, standard library only, Debian's python3): the generated
## client is current, the offline tests (shared vectors, the JavaScript reference), the package
## builds with `python3 -m build --no-isolation` (Debian's python3-build; its wheel is left in
## dist/), and the live test against bin/svc serve. A missing python3-build skips the build
## check with a message, except under CI=true, where it fails.
sdk-py: build conformance node-tools
	cd sdk/python && $(PYTHON) tools/generate.py --check
	cd sdk/python/tests && $(PYTHON) -m unittest discover -v -s . -p 'test_*.py' 2>&1 | grep -v ' ... ok$$'
	@if ! $(PYTHON) -c 'import build, setuptools, wheel' 2>/dev/null; then \
		if [ "$${CI:-}" = true ]; then echo "python3-build, python3-setuptools and python3-wheel are required in CI"; exit 1; fi; \
		echo "SKIPPING the package build: python3-build, python3-setuptools or python3-wheel is missing (apt install python3-build)"; \
	else \
		tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; mkdir -p dist; \
		cp -r sdk/python/. "$$tmp/"; find "$$tmp" -name __pycache__ -prune -exec rm -rf {} +; \
		(cd "$$tmp" && $(PYTHON) -m build --no-isolation --outdir "$$tmp/out" >"$$tmp/build.log" 2>&1) || { cat "$$tmp/build.log"; exit 1; }; \
		cp "$$tmp"/out/* dist/; whl=$$(ls "$$tmp"/out/*.whl); \
		PYTHONPATH="$$whl" $(PYTHON) -c 'import svc_sdk, sys; assert svc_sdk.__file__.startswith(sys.argv[1]), svc_sdk.__file__; print("built", sys.argv[1].rsplit("/", 1)[-1], "and its package imports")' "$$whl"; \
	fi
	$(PYTHON) sdk/python/tests/run_live.py --svc $(BIN)

## sdk-py-generate: regenerate sdk/python/src/svc_sdk/_generated.py from openapi.yaml
sdk-py-generate:
	$(PYTHON) sdk/python/tools/generate.py

## lint-spec: Redocly's recommended rules and Spectral's spectral:oas ruleset over openapi.yaml (0 problems)
lint-spec: node-tools
	npx --no-install redocly lint --format=stylish openapi.yaml
	npx --no-install spectral lint --ruleset .spectral.yaml --fail-severity=hint --display-only-failures openapi.yaml

## contract: Stoplight Prism validates every response of a real `svc serve` (temporary SQLite)
## while the request corpus of scripts/contract runs through it, then every operation of a
## `svc serve` on Postgres whose primary was cut away (its declared 503 primary_unavailable with
## Retry-After); 0 response violations or it fails
contract: node-tools
	bash scripts/contract/run.sh

## conformance: install the dependencies of the JavaScript reference digest (conformance/)
conformance: $(CONFORMANCE)/node_modules/.package-lock.json
$(CONFORMANCE)/node_modules/.package-lock.json: $(CONFORMANCE)/package.json $(CONFORMANCE)/package-lock.json
	cd $(CONFORMANCE) && npm ci --no-audit --no-fund --loglevel=error
	@touch $@

## vectors: regenerate proof/testdata/vectors.ndjson from conformance/inputs.ndjson
vectors: conformance
	scripts/conformance-vectors.sh

## walkthrough: the README's curl walkthrough (scripts/walkthrough.sh) against a fresh server
## on a temporary SQLite database (PORT=... for another port than 8080)
walkthrough:
	scripts/walkthrough.sh

## cluster-test: start a local cluster (scripts/cluster.sh: a Postgres primary, 2 streaming
## replicas, 3 instances, HAProxy) in a temporary directory, run clustertest/ on it, stop it
## (needs haproxy and the Postgres server binaries; run as root or as postgres)
## Then TestFailover (losing the primary) on it, and again on a fresh cluster with SYNC=1.
cluster-test:
	@dir=$$(mktemp -d /tmp/svc-cluster.XXXXXX); sdir=$$(mktemp -d /tmp/svc-cluster.XXXXXX); \
	trap 'scripts/cluster.sh down "$$dir"; scripts/cluster.sh down "$$sdir"' EXIT; \
	failed() { echo "cluster-test failed; the instances' last log lines:"; tail -n 20 "$$1"/logs/svc*.log; \
		echo "the requests that failed for another reason than a lost primary:"; \
		grep -h '"request failed"' "$$1"/logs/svc*.log | grep -v 'no primary database is reachable' | tail -n 20; exit 1; }; \
	scripts/cluster.sh up "$$dir"; \
	SVC_CLUSTER_DIR="$$dir" $(GO) test -count=1 -v -timeout=10m -skip='^TestFailover$$' ./clustertest/ || failed "$$dir"; \
	SVC_CLUSTER_DIR="$$dir" $(GO) test -count=1 -v -timeout=5m -run='^TestFailover$$' ./clustertest/ || failed "$$dir"; \
	scripts/cluster.sh down "$$dir"; \
	SYNC=1 scripts/cluster.sh up "$$sdir"; \
	SVC_CLUSTER_DIR="$$sdir" $(GO) test -count=1 -v -timeout=5m -run='^TestFailover$$' ./clustertest/ || failed "$$sdir"

## cluster-bench: the cluster's figures (read throughput with 0, 1 and 2 replicas, where the
## reads went, CPU per request of each process, token waits under writes) on a fresh cluster
cluster-bench:
	@dir=$$(mktemp -d /tmp/svc-cluster.XXXXXX); trap 'scripts/cluster.sh down "$$dir"' EXIT; \
	scripts/cluster.sh up "$$dir"; \
	SVC_CLUSTER_DIR="$$dir" $(GO) test -count=1 -run='^$$' -bench=. -benchtime=1x -v -timeout=30m ./clustertest/

## bench: the benchmarks (figures for the issues' performance targets)
bench: conformance
	$(GO) test -run='^$$' -bench=. -benchmem -count=1 -timeout=60m ./...

## bench-http: the service's HTTP throughput side by side with its ceilings, in one run, three
## times (bench/httpbench): an echo instance serving the same body from memory, pgbench -S, and
## svc serve on Postgres and SQLite with 100,000 records (seeded once), under wrk -t2 -c16;
## needs wrk and pgbench (BENCH_HTTP_RUNS, BENCH_HTTP_DURATION change the runs and phase length)
bench-http:
	$(GO) test -tags benchhttp -run '^TestBenchHTTP$$' -count=1 -v -timeout=60m ./bench/httpbench

## fuzz: a short run of every fuzz target
fuzz:
	@for pkg in $$($(GO) list ./...); do \
	  for f in $$($(GO) test -list='^Fuzz' $$pkg 2>/dev/null | grep '^Fuzz' || true); do \
	    echo "== $$pkg $$f"; $(GO) test -run='^$$' -fuzz="^$$f$$" -fuzztime=20s $$pkg; done; done

clean:
	rm -rf bin dist $(CACHE) node_modules $(CONFORMANCE)/node_modules svc.db svc.db-wal svc.db-shm svc.db.migrate-lock
