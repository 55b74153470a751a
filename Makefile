# The test command of the README: installs what the tests need, then vets and tests.
.PHONY: test deps vet fuzz bench

GO ?= go
FUZZTIME ?= 30000x

# The longest package (scache) takes about 5 min under -race on CI's
# machine: the default 10 min per package would leave a slower one no room.
test: deps vet fuzz
	$(GO) test -race -count=1 -timeout 20m ./...

deps:
	bash scripts/install-deps.sh

vet:
	$(GO) vet ./...
	@test -z "$$(gofmt -l .)" || { echo "gofmt: these files are not formatted:"; gofmt -l .; exit 1; }

# A short run of every fuzz target; each must find nothing.
fuzz:
	bash scripts/fuzz-all.sh $(FUZZTIME)

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...
