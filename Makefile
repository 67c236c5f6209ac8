# Athar's everyday commands. `make test` is what CI runs.

GO ?= go

.PHONY: test serve build generate check-generated lint fuzz

## test: every test, with the race detector
test:
	$(GO) test -race -count=1 ./...

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

## lint: gofmt and go vet
lint:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (gofmt -l $$(git ls-files '*.go'); echo "gofmt needed" >&2; exit 1)
	$(GO) vet ./...

## fuzz: run every fuzz target for FUZZTIME each (CI: 10s); failing inputs land in testdata/fuzz
FUZZTIME ?= 10s
fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME) ./internal/narration
	$(GO) test -run '^$$' -fuzz '^FuzzParseVerseRange$$' -fuzztime $(FUZZTIME) ./internal/athar
	$(GO) test -run '^$$' -fuzz '^FuzzNormalize$$' -fuzztime $(FUZZTIME) ./internal/search
	$(GO) test -run '^$$' -fuzz '^FuzzVariables$$' -fuzztime $(FUZZTIME) ./graph
