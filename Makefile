# Athar's everyday commands. `make test` is what CI runs.

GO ?= go

.PHONY: test test-bench serve build build-bench generate check-generated lint fuzz fuzz-keep web check-web bench bench-100k bench-corpus-import

## test: every test, with the race detector, against the real components (.ci/test.sh
## installs Node.js, Chromium and PostgreSQL where missing and starts a throwaway cluster)
test:
	bash .ci/test.sh
	$(MAKE) test-bench

## test-bench: the tests of the benchmark harness, which only a build with the bench tag has
## (internal/bench, raw Cayley and the other KV engines in internal/cayleystore, athar bench)
test-bench:
	$(GO) test -race -count=1 -tags bench ./internal/bench
	$(GO) test -race -count=1 -tags bench -run '^TestBackend' ./internal/cayleystore
	$(GO) test -race -count=1 -tags bench -run '^TestBench' ./cmd/athar

## serve: the server with the seed on the embedded store (./data/athar) at :8080
serve:
	$(GO) run ./cmd/athar serve

## build: the athar binary in ./bin
build:
	$(GO) build -o bin/athar ./cmd/athar

## generate: regenerate generated code and docs (gqlgen, docs/vocabulary.md)
generate:
	$(GO) generate ./...

## check-generated: fail if regenerating changes anything
check-generated: generate
	@git diff --exit-code -- . || (echo "generated files are stale: run 'make generate' and commit" >&2; exit 1)
	@test -z "$$(git status --porcelain --untracked-files=all -- graph schema docs)" || (git status --porcelain -- graph schema docs; echo "generate left untracked files" >&2; exit 1)

## lint: gofmt and go vet, of the product and of the benchmark harness (-tags bench)
lint:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (gofmt -l $$(git ls-files '*.go'); echo "gofmt needed" >&2; exit 1)
	$(GO) vet ./...
	$(GO) vet -tags bench ./...

## fuzz: run every fuzz target for FUZZTIME each (CI: 20000x, a count: with a duration, Go
## 1.26's fuzzing coordinator can report a spurious "context deadline exceeded" as the time
## runs out, golang/go#75804, fixed in Go 1.27). The corpus is kept in each
## package's testdata/fuzz (failing inputs land there too); `make fuzz-keep` adds what a local
## run found interesting to it.
FUZZTIME ?= 20000x
fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME) ./internal/narration
	$(GO) test -run '^$$' -fuzz '^FuzzParseVerseRange$$' -fuzztime $(FUZZTIME) ./internal/athar
	$(GO) test -run '^$$' -fuzz '^FuzzNormalize$$' -fuzztime $(FUZZTIME) ./internal/search
	$(GO) test -run '^$$' -fuzz '^FuzzVariables$$' -fuzztime $(FUZZTIME) ./graph
	$(GO) test -run '^$$' -fuzz '^FuzzDocument$$' -fuzztime $(FUZZTIME) ./graph
	$(GO) test -run '^$$' -fuzz '^FuzzRead$$' -fuzztime $(FUZZTIME) ./internal/hadithapi

## web: rebuild the explorer and GraphiQL pages (web/explorer/dist, committed and embedded in
## the binary) from their sources and package-lock.json; the same lockfile builds the same bytes
web:
	npm ci --prefix web/explorer --no-audit --no-fund
	npm run --prefix web/explorer build

## check-web: fail if rebuilding the pages changes web/explorer/dist (CI runs this)
check-web: web
	@git diff --exit-code -- web/explorer/dist || (echo "web/explorer/dist is stale: run 'make web' and commit it" >&2; exit 1)
	@test -z "$$(git status --porcelain --untracked-files=all -- web/explorer/dist)" || (git status --porcelain --untracked-files=all -- web/explorer/dist; echo "make web left untracked files in web/explorer/dist: commit them" >&2; exit 1)

## build-bench: the athar binary with the benchmark harness (athar bench) in ./bin; the
## product build leaves it out
build-bench:
	$(GO) build -tags bench -o bin/athar ./cmd/athar

## bench: measure Athar against raw Cayley and rewrite docs/BENCHMARKS.md (~35 min; not in CI)
BENCH_SIZES ?= 1000,10000
# Timed requests per query kind: with 1,000 the p99 is the tenth slowest request (with 200,
# the second, which moves by 2x from one pass to the next on a 2-core machine).
BENCH_QUERIES ?= 1000
# Pairs of loads the import is timed in: one pair's ratio moves by 0.05-0.1x from run to
# run on a 2-core machine, so the report also gives every pair and the median ratio.
BENCH_IMPORT_ROUNDS ?= 3
bench: build-bench
	bin/athar bench --sizes $(BENCH_SIZES) --queries $(BENCH_QUERIES) --import-rounds $(BENCH_IMPORT_ROUNDS) --out docs/BENCHMARKS.md

## bench-100k: import, memory, every query kind and the writes at 100,000 narrations (3 h or more on 2 cores; 20 GB of disk)
bench-100k: build-bench
	bin/athar bench --sizes 100000 --out docs/BENCHMARKS-100k.md

## bench-corpus-import: 'athar corpus import' of the collections in CORPUS (hadith-api edition
## files, plain or gzip) against raw Cayley loading the same store's N-Quads export, into
## docs/BENCHMARKS.md (~15 min for the ten collections; 10 GB of disk)
CORPUS ?= ../shared/corpus
bench-corpus-import: build-bench
	bin/athar bench --corpus-import --out docs/BENCHMARKS.md $(wildcard $(CORPUS)/*.json $(CORPUS)/*.json.gz)

## fuzz-keep: copy the inputs local fuzzing found interesting into the kept corpus
fuzz-keep:
	@for t in internal/narration:FuzzParse internal/athar:FuzzParseVerseRange internal/search:FuzzNormalize graph:FuzzVariables graph:FuzzDocument; do \
	  pkg=$${t%%:*}; f=$${t##*:}; src="$$($(GO) env GOCACHE)/fuzz/github.com/athar-hadith/athar/$$pkg/$$f"; \
	  [ -d "$$src" ] && mkdir -p "$$pkg/testdata/fuzz/$$f" && cp -n "$$src"/* "$$pkg/testdata/fuzz/$$f/" || true; done
