#!/usr/bin/env bash
# The C ABI from the outside (docs/embedding.md, "The C ABI"), against an
# installed prefix (install_test.sh installs one and calls this):
#   1. what the install put there for it: the header, libutilsim_c.so with
#      SONAME libutilsim_c.so.0, utilsim-c.pc, utilsim::c in the package;
#   2. docs/examples/c-basic (LANGUAGES C) configured with
#      -DCMAKE_PREFIX_PATH=PREFIX only, built and run on tests/fixtures/decide,
#      every line of its output checked (hand-computed in main.c);
#   3. the same program compiled by CC alone with `pkg-config utilsim-c`, and
#      the library exporting only utilsim_* symbols.
# Everything happens in one temporary folder, removed on exit, pass or fail.
#
# usage: c_example_test.sh PREFIX SOURCE_DIR [CMAKE] [CC]
set -euo pipefail

prefix=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
cmake=${3:-cmake}
cc=${4:-cc}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/utilsim-c-example-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

fail() {
  echo "c_example_test: FAIL: $*" >&2
  exit 1
}
step() { echo "== $*"; }
quiet() {
  local log=$tmp/step.log
  if ! "$@" >"$log" 2>&1; then
    cat "$log" >&2
    fail "command failed: $*"
  fi
}

# 1. Installed files.
step "the C ABI in $prefix"
for f in include/utilsim/c/utilsim.h lib/libutilsim_c.so lib/libutilsim_c.so.0 \
  lib/pkgconfig/utilsim-c.pc; do
  [[ -e $prefix/$f ]] || fail "not installed: $f"
done
if command -v readelf >/dev/null; then
  soname=$(readelf -d "$prefix/lib/libutilsim_c.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
  [[ $soname == libutilsim_c.so.0 ]] || fail "SONAME of libutilsim_c.so: '$soname'"
fi
grep -q "utilsim::c" "$prefix/lib/cmake/utilsim/utilsimTargets.cmake" ||
  fail "utilsim::c is not in the installed package"

# 2. The example through find_package, a C project.
fixtures=$src/tests/fixtures/decide
expected="utilsim C ABI 1: 3 jobs on three-nodes (16 GPUs on 3 nodes)
best-fit: 3/3 jobs finished, allocation 77.27 %, effective utilization 65.91 %, mean wait 0.0 s, makespan 110 s
  a: start 0 s, finish 100 s, on small
  b: start 10 s, finish 110 s, on big
  c: start 20 s, finish 60 s, on t4
first-fit: 3/3 jobs finished, allocation 42.50 %, effective utilization 36.25 %, mean wait 56.7 s, makespan 200 s
placer: 4 GPUs -> small:0,1,2,3
decide: {\"ok\":true,\"placement\":{\"nodes\":[\"t4\"],\"gpus\":[[0,1,2,3]],\"text\":\"t4:0,1,2,3\"}}"
check() {
  local what=$1 out
  shift
  out=$("$@" "$fixtures/jobs.csv" "$fixtures/cluster.yaml") || fail "$what exited $?: $out"
  if [[ $out != "$expected" ]]; then
    printf '%s printed:\n%s\nexpected:\n%s\n' "$what" "$out" "$expected" >&2
    fail "$what's output"
  fi
  echo "$out"
}
step "docs/examples/c-basic against $prefix"
quiet "$cmake" -S "$src/docs/examples/c-basic" -B "$tmp/example" \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE=Release
grep -qx "utilsim_DIR:PATH=$prefix/lib/cmake/utilsim" "$tmp/example/CMakeCache.txt" ||
  fail "find_package(utilsim) did not take $prefix"
! grep -q "CMAKE_CXX_COMPILER:" "$tmp/example/CMakeCache.txt" || fail "the C example enabled C++"
quiet "$cmake" --build "$tmp/example"
check c_basic "$tmp/example/c_basic"

# 3. pkg-config and the C compiler alone; only the C functions exported.
step "pkg-config utilsim-c (PKG_CONFIG_PATH=$prefix/lib/pkgconfig)"
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
[[ $(pkg-config --modversion utilsim-c) == 0.1.0 ]] || fail "pkg-config --modversion utilsim-c"
flags=$(pkg-config --cflags --libs utilsim-c)
echo "$cc -std=c99 -pedantic-errors main.c $flags"
# shellcheck disable=SC2086  # flags is a list of words
quiet "$cc" -std=c99 -pedantic-errors -Wall -Werror "$src/docs/examples/c-basic/main.c" \
  -o "$tmp/c_basic_pc" $flags -Wl,-rpath,"$prefix/lib"
check c_basic_pc "$tmp/c_basic_pc"
if command -v nm >/dev/null; then
  others=$(nm -D --defined-only "$prefix/lib/libutilsim_c.so" | awk '$2 ~ /^[TDBRVW]$/ {print $3}' |
    grep -v '^utilsim_' | grep -v -e '^_init$' -e '^_fini$' -e '^_edata$' -e '^_end$' \
      -e '^__bss_start$' || true)
  [[ -z $others ]] || fail "libutilsim_c.so exports more than utilsim_*: $(echo "$others" | head -5)"
fi
echo "c_example_test: OK"
