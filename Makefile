# Thin wrapper over CMake. `make demo` and `make test` each install what is
# missing, build, and run. BUILD and JOBS may be overridden.
BUILD ?= build
JOBS  ?= $(shell nproc)
UTILSIM_TRACES ?= $(CURDIR)/../shared/traces
export UTILSIM_TRACES

.PHONY: all deps configure build demo test bench clean format

all: build

deps:
	@bash tools/install-deps.sh

configure: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release > $(BUILD).configure.log 2>&1 || \
	  (cat $(BUILD).configure.log; exit 1)

build: configure
	@cmake --build $(BUILD) -j $(JOBS) -- --no-print-directory

demo: build
	@mkdir -p out
	@./$(BUILD)/tools/utilsim demo --out out/demo.db

# FUZZ_SECONDS: time per reader for the bounded fuzz run (0 skips it).
FUZZ_SECONDS ?= 10

test: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)
	@if [ "$(FUZZ_SECONDS)" != "0" ]; then bash tests/fuzz/run.sh $(FUZZ_SECONDS); fi

bench: build
	@bash tests/bench/run.sh $(BUILD)

format:
	@clang-format -i $$(git ls-files '*.cc' '*.h')

clean:
	@rm -rf $(BUILD) $(BUILD).configure.log
