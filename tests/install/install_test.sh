#!/usr/bin/env bash
# The package from the outside (docs/embedding.md, "Installing and linking"),
# run by ctest (label install):
#   1. `cmake --install BUILD --prefix TMP`, and what it put there;
#   2. docs/examples/cpp-basic configured with -DCMAKE_PREFIX_PATH=TMP only,
#      built and run, its printed numbers checked (hand-computed in main.cc);
#   3. a one-line program compiled and linked with `pkg-config utilsim`;
#   4. tests/install/subproject: utilsim added with add_subdirectory, on a
#      parent that sets CI=true and builds in unity mode, builds
#      utilsim::policies without utilsim's tests, tools or -Werror (the checks
#      are in its CMakeLists.txt).
# Everything happens in one temporary folder, removed on exit, pass or fail.
#
# usage: install_test.sh BUILD_DIR SOURCE_DIR [CMAKE] [CXX]
set -euo pipefail

build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
cmake=${3:-cmake}
cxx=${4:-c++}
jobs=${UTILSIM_INSTALL_TEST_JOBS:-2}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/utilsim-install-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix

fail() {
  echo "install_test: FAIL: $*" >&2
  exit 1
}
step() { echo "== $*"; }
# Runs a command with its output in a log that is shown only when it fails.
quiet() {
  local log=$tmp/step.log
  if ! "$@" >"$log" 2>&1; then
    cat "$log" >&2
    fail "command failed: $*"
  fi
}

# 1. Install.
step "cmake --install $build --prefix $prefix"
quiet "$cmake" --install "$build" --prefix "$prefix"
for f in bin/utilsim \
  include/utilsim/engine/simulator.h include/utilsim/policies/registry.h \
  include/utilsim/workloads/synthetic.h include/utilsim/traces/canonical.h \
  include/utilsim/analysis/report.h \
  lib/cmake/utilsim/utilsimConfig.cmake lib/cmake/utilsim/utilsimConfigVersion.cmake \
  lib/cmake/utilsim/utilsimTargets.cmake lib/pkgconfig/utilsim.pc; do
  [[ -f $prefix/$f ]] || fail "not installed: $f"
done
shared=0
for n in engine policies workloads traces io results analysis; do
  if [[ -f $prefix/lib/libutilsim_$n.so ]]; then
    shared=1
    [[ -f $prefix/lib/libutilsim_$n.so.0 ]] || fail "libutilsim_$n.so without SOVERSION 0"
  elif [[ ! -f $prefix/lib/libutilsim_$n.a ]]; then
    fail "not installed: lib/libutilsim_$n.a (or .so)"
  fi
done
# Headers under src/ are private.
for h in run_state.h accounting.h event_queue.h finish_heap.h csv_input.h report_assets.h sqlite_util.h; do
  [[ -z $(find "$prefix" -name "$h") ]] || fail "private header installed: $h"
done
# The package names no file of the source or build tree.
if grep -rlF -e "$src" -e "$build" "$prefix/lib/cmake" "$prefix/lib/pkgconfig"; then
  fail "the installed package files above name $src or $build"
fi
quiet "$prefix/bin/utilsim" --version

# 2. The example, through find_package.
step "docs/examples/cpp-basic against $prefix"
quiet "$cmake" -S "$src/docs/examples/cpp-basic" -B "$tmp/example" \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=Release
grep -qx "utilsim_DIR:PATH=$prefix/lib/cmake/utilsim" "$tmp/example/CMakeCache.txt" ||
  fail "find_package(utilsim) did not take $prefix: $(grep utilsim_DIR "$tmp/example/CMakeCache.txt")"
quiet "$cmake" --build "$tmp/example" -j "$jobs"
for f in flags.make link.txt; do
  ! grep -F -e "$src/" -e "$build" "$tmp/example/CMakeFiles/cpp_basic.dir/$f" ||
    fail "the example's $f names the source or build tree"
done
out=$("$tmp/example/cpp_basic") || fail "cpp_basic exited $?: $out"
expected="best-fit (queue fifo v1, placement best-fit v1):
a: start 0 s, finish 100 s, on small:0,1,2,3
b: start 10 s, finish 110 s, on big:0,1,2,3,4,5,6,7
c: start 100 s, finish 130 s, on small:0,1,2,3
allocation: 84.6 %
effective utilization: 71.8 %
fifo+most-free (queue fifo v1, placement most-free v3):
a: start 0 s, finish 100 s, on big:0,1,2,3
b: start 100 s, finish 200 s, on big:0,1,2,3,4,5,6,7
c: start 100 s, finish 130 s, on small:0,1,2,3
allocation: 55.0 %
effective utilization: 46.7 %"
if [[ $out != "$expected" ]]; then
  printf 'cpp_basic printed:\n%s\nexpected:\n%s\n' "$out" "$expected" >&2
  fail "cpp_basic's output"
fi
echo "$out"

# 3. pkg-config. Static libraries need --static for their third-party
# dependencies (Requires.private: yaml-cpp, zlib, sqlite3).
step "pkg-config utilsim (PKG_CONFIG_PATH=$prefix/lib/pkgconfig)"
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
[[ $(pkg-config --modversion utilsim) == 0.1.0 ]] || fail "pkg-config --modversion utilsim"
libs=$(pkg-config --libs utilsim)
[[ $libs == *"-lutilsim_analysis -lutilsim_results -lutilsim_io -lutilsim_traces -lutilsim_workloads -lutilsim_policies -lutilsim_engine"* ]] ||
  fail "pkg-config --libs utilsim: $libs"
echo '#include "utilsim/policies/registry.h"
int main() { return utilsim::BuiltinPolicies().Has("best-fit") ? 0 : 1; }' >"$tmp/one.cc"
if ((shared)); then
  flags=$(pkg-config --cflags --libs utilsim)
  flags+=" -Wl,-rpath,$prefix/lib"
else
  flags=$(pkg-config --cflags --libs --static utilsim)
fi
echo "$cxx -std=c++20 one.cc $flags"
# shellcheck disable=SC2086  # flags is a list of words
quiet "$cxx" -std=c++20 "$tmp/one.cc" -o "$tmp/one" $flags
quiet "$tmp/one"

# 4. As a subproject. CI=true would turn -Werror on at the top level only.
# The parent builds in unity mode (CMAKE_UNITY_BUILD, as a parent may): 12
# compiles instead of 65, 43 s instead of 66 s on two cores, and it checks
# that utilsim's own unity exclusions (UTILSIM_NO_UNITY) hold in a subproject.
step "tests/install/subproject: add_subdirectory($src utilsim)"
quiet env CI=true "$cmake" -S "$src/tests/install/subproject" -B "$tmp/sub" \
  -DUTILSIM_SOURCE_DIR="$src" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_UNITY_BUILD=ON
quiet "$cmake" --build "$tmp/sub" --target consumer -j "$jobs"
out=$("$tmp/sub/consumer") || fail "consumer exited $?: $out"
[[ $out == "best-fit: ok" ]] || fail "consumer printed: $out"
! grep -q -e "-Werror" -r "$tmp/sub" --include=flags.make || fail "-Werror in the subproject's flags"
echo "$out"

# 5. The C ABI and its example (c_example_test.sh) against the same prefix;
# skipped with a line when the C ABI was not built. (The Python examples
# have their own test, Install.PythonExamples.)
if [[ -f $prefix/include/utilsim/c/utilsim.h ]]; then
  step "docs/examples/c-basic against $prefix"
  bash "$src/tests/install/c_example_test.sh" "$prefix" "$src" "$cmake" "${CC:-cc}" ||
    fail "c_example_test.sh"
else
  echo "skipped the C example: the C ABI was not built (UTILSIM_C_ABI)"
fi
echo "install_test: OK"
