# Thin wrapper over CMake. `make demo` and `make test` each install what is
# missing, build, and run. BUILD and JOBS may be overridden.
#
# `make demo` installs only the build set of tools/install-deps.sh and builds
# only the utilsim binary, configured with the tests off (so GoogleTest is not
# needed). `make test` (and `build`, `bench`) installs the test set too and
# configures the same build folder with the tests on: switching costs one
# CMake re-run, nothing already compiled is rebuilt.
BUILD ?= build
JOBS  ?= $(shell nproc)
UTILSIM_TRACES ?= $(CURDIR)/../shared/traces
export UTILSIM_TRACES
CMAKE_CONFIGURE = cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release

.PHONY: all deps deps-build configure configure-demo build demo test bench tsan clean format format-check live-demo

all: build

deps-build:
	@bash tools/install-deps.sh build

deps:
	@bash tools/install-deps.sh test

configure-demo: deps-build
	@$(CMAKE_CONFIGURE) -DUTILSIM_TESTS=OFF > $(BUILD).configure.log 2>&1 || \
	  (cat $(BUILD).configure.log; exit 1)

configure: deps
	@$(CMAKE_CONFIGURE) -DUTILSIM_TESTS=ON > $(BUILD).configure.log 2>&1 || \
	  (cat $(BUILD).configure.log; exit 1)

build: configure
	@cmake --build $(BUILD) -j $(JOBS) -- --no-print-directory

demo: configure-demo
	@cmake --build $(BUILD) -j $(JOBS) --target utilsim -- --no-print-directory
	@mkdir -p out
	@./$(BUILD)/tools/utilsim demo --out out/demo.db

# The Kubernetes live mode end to end (docs/live-k8s.md): exporter, a real
# Prometheus, a stand-in API server and the extender on loopback, a recorded
# pod stream fired at it, then the shadow report. About two minutes.
live-demo: deps
	@cmake --build $(BUILD) -j $(JOBS) --target utilsim -- --no-print-directory 2>/dev/null || \
	  ($(CMAKE_CONFIGURE) -DUTILSIM_TESTS=OFF > $(BUILD).configure.log 2>&1 && \
	   cmake --build $(BUILD) -j $(JOBS) --target utilsim -- --no-print-directory)
	@python3 tools/live-demo/live_demo.py $(BUILD)

# FUZZ_SECONDS: time per reader for the bounded fuzz run (0 skips it): a
# smoke run beside the tests; give more (FUZZ_SECONDS=300) to fuzz in depth.
# UTILSIM_DOCS_SLOW=1 also runs the docs' `example slow` blocks (tests/docs).
FUZZ_SECONDS ?= 5

test: build format-check
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)
	@if [ "$(FUZZ_SECONDS)" != "0" ]; then bash tests/fuzz/run.sh $(FUZZ_SECONDS); fi

bench: build
	@bash tests/bench/run.sh $(BUILD)

# The thread-sanitizer build (docs/embedding.md, "Threads"): parallel runs in
# one process (the library, the C ABI's and Python's callers) are race-free.
# Its own build folder; about 10 minutes on two cores, so not part of `test`.
TSAN_BUILD ?= build-tsan
tsan: deps
	@cmake -S . -B $(TSAN_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DUTILSIM_SANITIZE=thread \
	  -DUTILSIM_BENCH=OFF -DUTILSIM_REPORT=OFF > $(TSAN_BUILD).configure.log 2>&1 || \
	  (cat $(TSAN_BUILD).configure.log; exit 1)
	@cmake --build $(TSAN_BUILD) -j $(JOBS) --target tools_tests utilsim -- --no-print-directory
	@cd $(TSAN_BUILD) && TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" \
	  ./tests/tools_tests --gtest_filter='ParallelRuns.*:Progress*:Plan*'

format:
	@clang-format -i $$(git ls-files '*.cc' '*.h')

# Every tracked C++ file as clang-format (.clang-format, Google base) would
# write it; `make format` fixes what this reports. Skipped outside a git
# checkout (a source tarball), where there is no list of tracked files.
format-check: deps
	@if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then \
	  clang-format --dry-run -Werror $$(git ls-files '*.cc' '*.h') || \
	  (echo "format-check: run 'make format'" >&2; exit 1); \
	fi

clean:
	@rm -rf $(BUILD) $(BUILD).configure.log
