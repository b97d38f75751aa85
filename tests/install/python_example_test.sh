#!/usr/bin/env bash
# The Python examples against an installed utilsim only (docs/embedding.md,
# "Python"): PYTHONPATH names the prefix's package folder and nothing of the
# build or source tree; the scripts are copied out of the source tree and run
# from an empty folder. Checks what they print, line by line where the
# output is deterministic.
#
# usage: python_example_test.sh PREFIX SOURCE_DIR [PYTHON]
#   PYTHON: the interpreter the module was built for (default /usr/bin/python3
#   when it exists, else python3).
set -euo pipefail

prefix=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
python=${3:-}
if [[ -z $python ]]; then
  if [[ -x /usr/bin/python3 ]]; then python=/usr/bin/python3; else python=python3; fi
fi
pkg=$prefix/lib/python3/dist-packages

fail() {
  echo "python_example_test: FAIL: $*" >&2
  exit 1
}
[[ -f $pkg/utilsim/__init__.py ]] || fail "not installed: $pkg/utilsim/__init__.py"
compgen -G "$pkg/utilsim/_utilsim*.so" >/dev/null || fail "not installed: $pkg/utilsim/_utilsim*.so"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/utilsim-python-example.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cp "$src/docs/examples/python-compare/compare.py" \
  "$src/docs/examples/python-custom-policy/custom_policy.py" "$tmp/"
cd "$tmp"
run() {
  env -i PATH=/usr/bin:/bin HOME="$tmp" PYTHONPATH="$pkg" PYTHONNOUSERSITE=1 \
    "$python" "$@" >"$tmp/out.txt" 2>"$tmp/err.txt" ||
    { cat "$tmp/err.txt" >&2; fail "$* exited with $?"; }
}
# Each expected line must appear in the output, in this order; runs of
# spaces compare equal (pandas' column widths are not the point), and
# @VERSION@ stands for the installed version.
expect() {
  local name=$1 want=$2
  if ! "$python" - "$tmp/out.txt" "$want" "$version" <<'PY'; then
import sys
norm = lambda line: " ".join(line.split())
got = [norm(l) for l in open(sys.argv[1]).read().splitlines()]
pos = 0
for line in sys.argv[2].replace("@VERSION@", sys.argv[3]).splitlines():
    try:
        pos = got.index(norm(line), pos) + 1
    except ValueError:
        print(f"missing line (in order): {line!r}", file=sys.stderr)
        sys.exit(1)
PY
    echo "--- $name printed:" >&2
    cat "$tmp/out.txt" >&2
    fail "$name: output differs"
  fi
}

# The module comes from the prefix, not the build tree, and is the
# installed binary's version.
run -c 'import utilsim; print(utilsim.__file__); print(utilsim._utilsim.__file__)'
while read -r f; do
  [[ $f == "$pkg"/* ]] || fail "utilsim imported from $f, not from $pkg"
done <"$tmp/out.txt"
run -c 'import utilsim; print(utilsim.__version__)'
version=$(cat "$tmp/out.txt")
if [[ -x $prefix/bin/utilsim ]]; then
  [[ $("$prefix/bin/utilsim" --version) == "$version" ]] ||
    fail "utilsim.__version__ $version is not bin/utilsim's $("$prefix/bin/utilsim" --version)"
fi

echo "== docs/examples/python-compare/compare.py"
run compare.py
expect compare.py "$(cat <<'OUT'
utilsim @VERSION@: 2 runs of 2000 jobs
fifo-skip+best-fit             31.9                17.7            2523.1           0.0       194.5
fifo-skip+worst-fit            30.8                17.0            2441.5           1.8       194.5
policy  fifo-skip+best-fit  fifo-skip+worst-fit
gpus
1.0                    0.0                  0.0
2.0                    0.0                  0.0
4.0                    0.0                  1.0
8.0                    0.0                 17.9
16.0                   0.0                604.5
32.0                   0.0                366.5
fifo-skip+best-fit: 2336 samples, at most 182.5 GPUs busy (t = 19.8 h, 0 jobs queued)
fifo-skip+worst-fit: 2336 samples, at most 143.7 GPUs busy (t = 37.3 h, 0 jobs queued)
OUT
)"

echo "== docs/examples/python-custom-policy/custom_policy.py"
run custom_policy.py
expect custom_policy.py "$(cat <<'OUT'
py-best-fit places every job as best-fit does: True
best-fit         v1  allocation 31.88%  p95 wait 0.0 min  stranded 9.0 GPU-h
py-best-fit      v1  allocation 31.88%  p95 wait 0.0 min  stranded 9.0 GPU-h
py-best-fit-cpu  v2  allocation 31.88%  p95 wait 0.0 min  stranded 8.0 GPU-h
OUT
)"
grep -Eq '^time py-best-fit: [0-9.]+ s \([0-9.]+x best-fit\)$' "$tmp/out.txt" ||
  fail "custom_policy.py: no timing line"
echo "python_example_test: OK"
