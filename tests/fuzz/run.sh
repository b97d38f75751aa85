#!/usr/bin/env bash
# Builds the libFuzzer harness with clang (ASan + UBSan) and runs every reader
# target for a bounded time, seeded with the test fixtures. Part of `make test`.
# Usage: tests/fuzz/run.sh [SECONDS_PER_TARGET]   (default 10; $UTILSIM_FUZZ_SECONDS)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SECS=${1:-${UTILSIM_FUZZ_SECONDS:-10}}
BUILD="$ROOT/build-fuzz"
if ! command -v clang++ >/dev/null; then
  echo "fuzz: clang++ not found (tools/install-deps.sh test installs it)" >&2
  exit 1
fi
# -O1 with line tables only, as libFuzzer's documentation builds: about a
# third less build time than -O2 -g (282 s against ~400 s on two cores) for a
# bounded run of seconds per target.
cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=None -DCMAKE_CXX_COMPILER=clang++ \
  -DUTILSIM_FUZZ=ON -DUTILSIM_TESTS=OFF -DUTILSIM_WERROR=OFF -DUTILSIM_BENCH=OFF \
  -DUTILSIM_REPORT=OFF -DUTILSIM_PYTHON=OFF -DCMAKE_UNITY_BUILD=ON \
  -DCMAKE_CXX_FLAGS="-O1 -gline-tables-only -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined" \
  > "$BUILD.configure.log" 2>&1 || { cat "$BUILD.configure.log"; exit 1; }
cmake --build "$BUILD" -j "$(nproc)" --target fuzz_readers > "$BUILD.build.log" 2>&1 ||
  { tail -50 "$BUILD.build.log"; exit 1; }
BIN="$BUILD/tests/fuzz/fuzz_readers"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
export UTILSIM_FUZZ_TMP="$TMP"
# One target per core at a time (each fuzzer is single-threaded).
one() {  # target
  local target=$1 corpus="$TMP/corpus-$1"
  mkdir -p "$corpus"
  # Seed corpus: the fixtures written for that reader (by folder name) plus all CSV/YAML fixtures.
  find "$ROOT/tests/fixtures" -type f \( -name '*.csv' -o -name '*.yaml' -o -name '*.swf' -o -name '*.txt' -o -name '*.json' -o -name '*.jsonl' -o -name '*.prom' -o -name '*.conf' -o -name '*.inc' \) \
    -size -64k -exec cp -t "$corpus" {} + 2>/dev/null || true
  if UTILSIM_FUZZ_TARGET=$target "$BIN" "$corpus" -max_total_time="$SECS" -max_len=8192 \
       -artifact_prefix="$ROOT/build-fuzz/crash-$target-" \
       -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 > "$TMP/$target.log" 2>&1; then
    runs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$TMP/$target.log" | tail -1 | awk '{print $2}')
    echo "fuzz: $target: ok (${SECS}s${runs:+, $runs inputs})"
    touch "$TMP/$target.ok"
  else
    echo "fuzz: $target: FAILED" >&2
    tail -40 "$TMP/$target.log" >&2
  fi
}
export -f one
export BIN SECS TMP ROOT
# (The binary aborts after listing them, hence the || true under pipefail.)
targets=$(UTILSIM_FUZZ_TARGET=list "$BIN" -runs=1 -artifact_prefix="$TMP/" 2>&1 |
  sed -n 's/^set UTILSIM_FUZZ_TARGET to one of://p' || true)
if [ -z "$targets" ]; then
  echo "fuzz: $BIN listed no targets" >&2
  exit 1
fi
echo $targets | tr ' ' '\n' | xargs -P "$(nproc)" -I{} bash -c 'one {}'
passed=$(ls "$TMP"/*.ok 2>/dev/null | wc -l)
fail=$(( $(echo $targets | wc -w) - passed ))
echo "fuzz: $passed passed, $fail failed"
[ "$fail" -eq 0 ]
