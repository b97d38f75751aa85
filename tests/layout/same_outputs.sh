#!/usr/bin/env bash
# Whether two utilsim binaries write the same results for the README's
# result-writing commands (docs/design.md, "Layout and dependencies"): the
# demo, the AAIC 2017Q3 compare and validate. Byte-compares the databases;
# prints "same FILE" or "DIFF FILE" per database and exits 1 on any DIFF.
#   tests/layout/same_outputs.sh OLD_BINARY NEW_BINARY [TRACES]
set -euo pipefail
old=${1:?old binary}
new=${2:?new binary}
traces=${3:-${UTILSIM_TRACES:-$(dirname "$0")/../../../shared/traces}}
aaic=$traces/aist-aaic/aaicwl-2017Q3.csv.gz
lib=$traces/alibaba-genai-v2026/pod_gpu_duty_cycle_anon.csv
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run() {
  local b=$1 d=$2
  mkdir -p "$d"
  "$b" demo --out "$d/demo.db" --progress never >/dev/null
  if [[ -f $aaic && -f $lib ]]; then
    "$b" compare --trace "$aaic" --policies as-recorded,best-fit,fifo-skip+best-fit \
      --util-library "$lib" --out "$d/aaic.db" --progress never >/dev/null
    "$b" validate --trace "$aaic" --policy easy-backfill+first-fit --nodes-list 32,36,40 \
      --out "$d/validate.db" --progress never >/dev/null
  fi
}
run "$old" "$tmp/old"
run "$new" "$tmp/new"
[[ -f $aaic ]] || echo "skipped the AAIC commands: $aaic not found"
rc=0
for f in "$tmp"/old/*.db; do
  n=$(basename "$f")
  if cmp -s "$f" "$tmp/new/$n"; then echo "same $n"; else echo "DIFF $n"; rc=1; fi
done
exit $rc
