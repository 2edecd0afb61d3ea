# The README's two commands: `make demo` and `make test`.
BUILD_DIR := build
BIN := $(BUILD_DIR)/bin

.PHONY: deps configure build demo test clean

deps:
	./scripts/install-deps

configure: deps
	@test -f $(BUILD_DIR)/build.ninja || cmake --preset default

build: configure
	cmake --build --preset default

demo: build
	$(BIN)/iofleet run workloads/quickstart.yaml

test: build
	ctest --preset default

clean:
	rm -rf $(BUILD_DIR)
