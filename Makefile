# culprit: explain failing regression tests in Go pull requests.
GO ?= go
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: demo test bench deps build vet

# deps installs what the build needs and is missing: libz3 for the solver,
# a C compiler for cgo (without one the go command turns cgo off and the
# build fails with "undefined: z3.Value"), and git for the trials.
deps:
	@if ! { [ -f /usr/include/z3.h ] && command -v gcc >/dev/null && command -v git >/dev/null; }; then \
		$(SUDO) apt-get update -q && $(SUDO) apt-get install -y -q libz3-dev gcc libc6-dev git; \
	fi
	@command -v $(GO) >/dev/null || { echo "Go 1.26 or newer is required: https://go.dev/dl"; exit 1; }
	@[ "$$($(GO) env CGO_ENABLED)" = 1 ] || { echo "cgo is off (CGO_ENABLED=0, or no C compiler): culprit links Z3 through cgo"; exit 1; }

build: deps
	$(GO) build -o bin/culprit ./cmd/culprit

# demo explains the bundled regression (the AFTER paper's running example)
# and prints the report.
demo: build
	./bin/culprit demo

test: deps
	$(GO) vet $$($(GO) list ./... )
	# Each test binary keeps its heap under a soft 3 GiB limit, and the
	# analyzer's explanations start only while its resident memory leaves
	# room for another (CULPRIT_TEST_MEMORY, MiB): the suite fits a laptop.
	GOMEMLIMIT=3GiB CULPRIT_TEST_MEMORY=3072 $(GO) test -count=1 -timeout 25m ./...

bench: build
	./bin/culprit bench
