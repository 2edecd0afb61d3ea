# The README's two commands: `make demo` and `make test`. The guards (docs/ARCHITECTURE.md,
# "Sanitizers and fuzzing"): `make test-sanitize` (test-asan, test-tsan) and `make fuzz`.
BUILD_DIR := build
BIN := $(BUILD_DIR)/bin

.PHONY: deps deps-demo configure configure-demo build demo test package test-sanitize test-asan test-tsan fuzz clean

# Everything the suite uses; the demo only what building and running needs (scripts/install-deps).
deps:
	./scripts/install-deps test

deps-demo:
	./scripts/install-deps demo

configure: deps
	@test -f $(BUILD_DIR)/build.ninja || cmake --preset default

configure-demo: deps-demo
	@test -f $(BUILD_DIR)/build.ninja || cmake --preset default

build: configure
	cmake --build --preset default

# The demo needs the two binaries only, not the test targets (most of a cold build), and none of
# the test tools (Chromium, Prometheus, clang, podman ...).
demo: configure-demo
	cmake --build --preset default --target iofleet iofleet-agent
	$(BIN)/iofleet run workloads/quickstart.yaml

# As many tests at once as there are cores: the suite marks the ones that must run alone
# (RUN_SERIAL: those whose verdicts read the host: its CPU, the device queue, the page cache);
# serially the suite takes twice as long.
TEST_JOBS ?= $(shell nproc)
test: build
	ctest --preset default -j$(TEST_JOBS)

# Two Debian packages, iofleet and iofleet-agent, in build/ (CPack; cmake/packaging.cmake).
package: build
	cd $(BUILD_DIR) && cpack -G DEB

# The unit and integration suite built with ASan+UBSan (build-asan/).
test-asan: deps
	@test -f build-asan/build.ninja || cmake --preset asan
	cmake --build --preset asan
	ctest --preset asan

# The tests labelled tsan (the agent's own concurrency, serve's HTTP server) built with TSan (build-tsan/).
test-tsan: deps
	@test -f build-tsan/build.ninja || cmake --preset tsan
	cmake --build --preset tsan
	ctest --preset tsan

test-sanitize: test-asan test-tsan

# Each libFuzzer target for FUZZ_SECONDS (clang, build-fuzz/); a finding fails.
FUZZ_SECONDS ?= 60
FUZZ_SEED ?= 0
fuzz: deps
	@test -f build-fuzz/build.ninja || cmake --preset fuzz
	cmake --build --preset fuzz
	FUZZ_SEED=$(FUZZ_SEED) tests/fuzz/run $(FUZZ_SECONDS)

clean:
	rm -rf $(BUILD_DIR) build-asan build-tsan build-fuzz
