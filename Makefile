# svc: the trust directory service. `make run` serves on the embedded SQLite default;
# `make test` runs everything the project checks.

SHELL        := bash
.SHELLFLAGS  := -eu -o pipefail -c
GO           ?= go
CACHE        := .cache
CONFORMANCE  := conformance
BIN          := bin/svc
VERSION      ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo devel)
export SVC_TEST_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/test?sslmode=disable
export SVC_CONFORMANCE_DIR   ?= $(abspath $(CONFORMANCE))

.PHONY: all build docs-assets check-docs-assets run test gotest generate check-generate lint lint-spec contract bench conformance vectors walkthrough node-tools fuzz clean cluster-test cluster-bench

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

## run: build and serve on the embedded SQLite file (sqlite://svc.db) at :8080
run: build
	./$(BIN) serve

## test: everything the project checks
test: check-generate check-docs-assets lint lint-spec gotest contract

gotest: conformance sdk-ts node-tools
	$(GO) test -race -count=1 ./...

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

node-tools: node_modules/.package-lock.json
node_modules/.package-lock.json: package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	@touch $@

## sdk-ts: the TypeScript SDK (sdk/typescript): install, build and run its offline tests; its
## live test runs from the Go test TestTypeScriptSDK, which needs this first
.PHONY: sdk-ts
sdk-ts: sdk/typescript/node_modules/.package-lock.json
	cd sdk/typescript && npm run build && npm test
sdk/typescript/node_modules/.package-lock.json: sdk/typescript/package.json sdk/typescript/package-lock.json
	cd sdk/typescript && npm ci --no-audit --no-fund --loglevel=error
	@touch $@

## lint-spec: Redocly's recommended rules and Spectral's spectral:oas ruleset over openapi.yaml (0 problems)
lint-spec: node-tools
	npx --no-install redocly lint --format=stylish openapi.yaml
	npx --no-install spectral lint --ruleset .spectral.yaml --fail-severity=hint --display-only-failures openapi.yaml

## contract: Stoplight Prism validates every response of a real `svc serve` (temporary SQLite)
## while the request corpus of scripts/contract runs through it; 0 response violations or it fails
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
cluster-test:
	@dir=$$(mktemp -d /tmp/svc-cluster.XXXXXX); trap 'scripts/cluster.sh down "$$dir"' EXIT; \
	scripts/cluster.sh up "$$dir"; \
	SVC_CLUSTER_DIR="$$dir" $(GO) test -count=1 -v -timeout=10m ./clustertest/ \
	  || { echo "cluster-test failed; the instances' last log lines:"; tail -n 20 "$$dir"/logs/svc*.log; exit 1; }

## cluster-bench: the cluster's figures (read throughput with 0, 1 and 2 replicas, where the
## reads went, CPU per request of each process, token waits under writes) on a fresh cluster
cluster-bench:
	@dir=$$(mktemp -d /tmp/svc-cluster.XXXXXX); trap 'scripts/cluster.sh down "$$dir"' EXIT; \
	scripts/cluster.sh up "$$dir"; \
	SVC_CLUSTER_DIR="$$dir" $(GO) test -count=1 -run='^$$' -bench=. -benchtime=1x -v -timeout=30m ./clustertest/

## bench: the benchmarks (figures for the issues' performance targets)
bench: conformance
	$(GO) test -run='^$$' -bench=. -benchmem -count=1 -timeout=60m ./...

## fuzz: a short run of every fuzz target
fuzz:
	@for pkg in $$($(GO) list ./...); do \
	  for f in $$($(GO) test -list='^Fuzz' $$pkg 2>/dev/null | grep '^Fuzz' || true); do \
	    echo "== $$pkg $$f"; $(GO) test -run='^$$' -fuzz="^$$f$$" -fuzztime=20s $$pkg; done; done

clean:
	rm -rf bin $(CACHE) node_modules $(CONFORMANCE)/node_modules svc.db svc.db-wal svc.db-shm
