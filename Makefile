# svc: the trust directory service. `make run` serves on the embedded SQLite default;
# `make test` runs everything the project checks.

SHELL        := bash
.SHELLFLAGS  := -eu -o pipefail -c
GO           ?= go
SHARED       ?= ../shared
CACHE        := .cache
CONFORMANCE  := $(CACHE)/conformance
BIN          := bin/svc
export SVC_TEST_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/test?sslmode=disable
export SVC_CONFORMANCE_DIR   ?= $(abspath $(CONFORMANCE))

.PHONY: all build docs-assets run test gotest generate check-generate lint lint-spec contract bench conformance node-tools fuzz clean

all: build

DOCS_ASSETS  := server/docs/swagger-ui-bundle.js server/docs/swagger-ui.css

build: docs-assets
	$(GO) build -o $(BIN) ./cmd/svc

## docs-assets: Swagger UI from the swagger-ui-dist npm package, embedded in the binary at /docs
docs-assets: $(DOCS_ASSETS)
server/docs/swagger-ui-bundle.js server/docs/swagger-ui.css: node_modules/.package-lock.json
	cp node_modules/swagger-ui-dist/$(notdir $@) $@

## run: build and serve on the embedded SQLite file (sqlite://svc.db) at :8080
run: build
	./$(BIN) serve

## test: everything the project checks
test: check-generate lint lint-spec gotest contract

gotest: conformance docs-assets
	$(GO) test -race -count=1 ./...

## generate: regenerate gen/ from openapi.yaml
generate:
	$(GO) generate ./gen/...

## check-generate: fail when gen/ is not what openapi.yaml gives
check-generate:
	@tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	for pair in gen/config.yaml:gen/api.gen.go gen/client/config.yaml:gen/client/client.gen.go; do \
		cfg=$${pair%%:*}; out=$${pair#*:}; \
		sed "s|^output: .*|output: $$tmp/out.go|" $$cfg > "$$tmp/config.yaml"; \
		$(GO) tool oapi-codegen -config "$$tmp/config.yaml" openapi.yaml; \
		if ! diff -u $$out "$$tmp/out.go" >/dev/null; then \
			echo "$$out is stale: run 'make generate' and commit"; diff -u $$out "$$tmp/out.go" | head -40; exit 1; fi; \
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

## lint-spec: Redocly's recommended rules and Spectral's spectral:oas ruleset over openapi.yaml (0 problems)
lint-spec: node-tools
	npx --no-install redocly lint --format=stylish openapi.yaml
	npx --no-install spectral lint --ruleset .spectral.yaml --fail-severity=hint --display-only-failures openapi.yaml

## contract: Stoplight Prism validates every response of a real `svc serve` (temporary SQLite)
## while the request corpus of scripts/contract runs through it; 0 response violations or it fails
contract: node-tools
	bash scripts/contract/run.sh

## conformance: a writable copy of the JavaScript reference digest with its dependencies
conformance: $(CONFORMANCE)/node_modules/.package-lock.json
$(CONFORMANCE)/node_modules/.package-lock.json: $(SHARED)/conformance/package-lock.json
	rm -rf $(CONFORMANCE) && mkdir -p $(CACHE)
	cp -r $(SHARED)/conformance $(CONFORMANCE) && chmod -R u+w $(CONFORMANCE)
	cd $(CONFORMANCE) && npm ci --no-audit --no-fund --loglevel=error
	@touch $@

## bench: the benchmarks (figures for the issues' performance targets)
bench: conformance
	$(GO) test -run='^$$' -bench=. -benchmem -count=1 -timeout=60m ./...

## fuzz: a short run of every fuzz target
fuzz:
	@for pkg in $$($(GO) list ./...); do \
	  for f in $$($(GO) test -list='^Fuzz' $$pkg 2>/dev/null | grep '^Fuzz' || true); do \
	    echo "== $$pkg $$f"; $(GO) test -run='^$$' -fuzz="^$$f$$" -fuzztime=20s $$pkg; done; done

clean:
	rm -rf bin $(CACHE) node_modules svc.db svc.db-wal svc.db-shm
