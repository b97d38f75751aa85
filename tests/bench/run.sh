#!/usr/bin/env bash
# `make bench`: runs the benchmarks and rewrites the generated block of
# docs/performance.md with their figures and the commands that produced them.
# Usage: tests/bench/run.sh BUILD_DIR
set -euo pipefail
BUILD=${1:-build}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DOC="$ROOT/docs/performance.md"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
PIN=""
command -v taskset >/dev/null && PIN="taskset -c 0"

run() {  # label, command...
  local label=$1; shift
  echo "bench: $label: $*" >&2
  local line
  line=$("$@")
  echo "$line" >&2
  printf '| %s | `%s` | %s |\n' "$label" "$*" "$line" >> "$TMP/rows"
}

: > "$TMP/rows"
for policy in best-fit first-fit worst-fit epvm stranding-hybrid tetris gpu-packing gpu-clustering fgd random topology-aware; do
  run "core, 1M jobs, 10k GPUs, $policy" $PIN "$BUILD/tests/bench/bench_core" --policy "$policy" --out "$TMP/core.db"
done
# The rows kept and written after the run (no streaming), and the default
# (streamed) run on both cores, where the writer thread has a core of its own.
run "core, 1M jobs, 10k GPUs, best-fit, rows kept, written after" $PIN "$BUILD/tests/bench/bench_core" --policy best-fit --stream 0 --out "$TMP/core.db"
run "core, 1M jobs, 10k GPUs, best-fit, streamed, 2 cores" "$BUILD/tests/bench/bench_core" --policy best-fit --out "$TMP/core.db"
# A small trace, where fixed costs dominate: 2,000 jobs, 192 GPUs, 160 days,
# FIFO; CPU time of the whole process, best of 5. By default (--series auto)
# about 4,000 change points; forced to 46,000 periodic samples for the
# comparison.
run "small: 2,000 jobs, 192 GPUs, 160 days, fifo+best-fit, CPU time" $PIN "$BUILD/tests/bench/bench_small" --out "$TMP/small.db"
run "small, --series samples (46,000 rows)" $PIN "$BUILD/tests/bench/bench_small" --series samples --out "$TMP/small.db"
# The richer progress model against the simple one, same trace and policy.
for model in stall-serial stall-overlapped; do
  run "core, 1M jobs, 10k GPUs, best-fit, --model $model" $PIN "$BUILD/tests/bench/bench_core" --policy best-fit --model "$model" --out "$TMP/core.db"
done
# The same with every job sharing its node's storage (co-runners re-rated).
for model in whole-gpu stall-overlapped; do
  run "core, 1M jobs, 10k GPUs, best-fit, shared storage, --model $model" $PIN "$BUILD/tests/bench/bench_core" --policy best-fit --model "$model" --shared-storage 1 --out "$TMP/core.db"
done

# The decision API (policies/placer.h): single-job queries on a 10k-GPU state.
for policy in best-fit first-fit fgd tetris; do
  run "placer, 10k GPUs 70 % full, $policy" $PIN "$BUILD/tests/bench/bench_placer" --policy "$policy"
done

# The Kubernetes extender over HTTP on loopback (docs/live-k8s.md): filter +
# prioritize pairs at 200/s for 60 s at 1,000 and 5,000 nodes x 8 GPUs, then
# 2x overload (1,600 pairs/s from 16 connections, about twice what two cores
# answer with the load generator beside the server). Not pinned: the
# generator and the server share both cores.
for nodes in 1000 5000; do
  run "extender, $nodes nodes x 8 GPUs, 200 pairs/s, 60 s" "$BUILD/tests/bench/bench_extender" --nodes "$nodes" --rate 200 --seconds 60
done
run "extender, 5000 nodes x 8 GPUs, 2x overload (1600 pairs/s), 60 s" "$BUILD/tests/bench/bench_extender" --nodes 5000 --rate 1600 --clients 16 --seconds 60

# One Slurm advisor poll without the commands (docs/live-slurm.md): parse
# squeue/sinfo JSON, build the model, advise every pending job.
for size in "1000 2000" "5000 10000"; do
  set -- $size
  run "slurm advise poll, $1 nodes x 8 GPUs, $2 pending" $PIN "$BUILD/tests/bench/bench_slurm_advise" --nodes "$1" --pending "$2"
done

# Wall time and peak memory of a whole command (GNU time).
timed() {  # label, command...
  local label=$1; shift
  echo "bench: $label: $*" >&2
  /usr/bin/time -f "%e %M" -o "$TMP/time" "$@" > /dev/null
  local wall rss
  read -r wall rss < "$TMP/time"
  echo "bench: $label: wall_s=$wall peak_rss_mib=$((rss / 1024))" >&2
  printf '| %s | `%s` | wall_s=%s peak_rss_mib=%s |\n' "$label" "$*" "$wall" "$((rss / 1024))" >> "$TMP/rows"
}
# The HTML report of a 1M-job results file (the last core run's), and a
# capacity plan of the demo workload (candidate sizes on both cores).
timed "report, 1M-job results file" $PIN "$BUILD/tools/utilsim" report "$TMP/core.db" -o "$TMP/report.html"
timed "plan, demo workload, 2 policies, p95-wait<=1h" "$BUILD/tools/utilsim" plan --trace builtin:demo \
  --policies fifo-skip+best-fit,fifo-skip+worst-fit --target 'p95-wait<=1h'
# Dynamic MIG repartitioning (docs/mig.md) at the study's congested size
# (55 H100 nodes, host requests / 8), against the same run on whole GPUs.
sed 's/count: 64/count: 55/' "$ROOT/tests/fixtures/mig/h100-dynamic.yaml" > "$TMP/h55.yaml"
timed "demo on 55 H100 nodes, whole GPUs" $PIN "$BUILD/tools/utilsim" run --cluster "$TMP/h55.yaml" \
  --policy fifo-skip+best-fit --scale-host-requests 0.125
timed "demo on 55 H100 nodes, --mig dynamic" $PIN "$BUILD/tools/utilsim" run --cluster "$TMP/h55.yaml" \
  --mig dynamic --policy fifo-skip+best-fit --scale-host-requests 0.125

# The sweep's local executor (docs/sweeps.md): 24 runs with 1 and 2 worker
# threads, each from an empty output folder, alternated 3 times (this VM's
# speed drifts by 20 % from one run to the next); the median wall time of
# each, runs/s, the speed-up, and the peak memory (GNU time), whose
# difference is what a second worker adds. Not pinned.
: > "$TMP/sweep_times"
for rep in 1 2 3; do
  for w in 1 2; do
    rm -rf "$TMP/sweep$w"
    /usr/bin/time -f "$w %e %M" -a -o "$TMP/sweep_times" "$BUILD/tools/utilsim" sweep run \
      "$ROOT/tests/bench/sweep_scaling.yaml" --out "$TMP/sweep$w" --workers "$w" -q --no-merge > /dev/null
  done
done
median() { grep "^$1 " "$TMP/sweep_times" | sort -k2 -g | awk 'NR==2 {print $2, $3}'; }
read -r w1 rss1 < <(median 1)
read -r w2 rss2 < <(median 2)
line=$(awk -v a="$w1" -v b="$w2" -v r1="$rss1" -v r2="$rss2" 'BEGIN{printf "wall_s(1)=%s wall_s(2)=%s runs_per_s(1)=%.2f runs_per_s(2)=%.2f speedup=%.2f peak_rss_mib(1)=%d peak_rss_mib(2)=%d", a, b, 24/a, 24/b, a/b, r1/1024, r2/1024}')
echo "bench: sweep scaling: $line" >&2
printf '| sweep, 24 demo runs of 50,000 jobs, 1 vs 2 workers (median of 3 each) | `%s` | %s |\n' \
  "utilsim sweep run tests/bench/sweep_scaling.yaml --out OUT --workers 1|2 -q --no-merge" "$line" >> "$TMP/rows"

TRACES=${UTILSIM_TRACES:-$ROOT/../shared/traces}
if [ -d "$TRACES" ]; then
  while IFS= read -r line; do
    echo "$line" >&2
    name=$(echo "$line" | sed -n 's/^input=\([^ ]*\).*/\1/p')
    printf '| parse %s | `%s` | %s |\n' "$name" "$PIN $BUILD/tests/bench/bench_parse \$UTILSIM_TRACES /tmp" "$line" >> "$TMP/rows"
  done < <($PIN "$BUILD/tests/bench/bench_parse" "$TRACES" "$TMP")
else
  echo "bench: parse throughput skipped: $TRACES not found (set UTILSIM_TRACES)" >&2
fi

if [ -d "$TRACES/aist-aaic" ]; then
  A="$TRACES/aist-aaic"
  start=$(date +%s.%N)
  $PIN "$BUILD/tools/utilsim" run --trace "$A/aaicwl-2017Q3.csv.gz,$A/aaicwl-2017Q4.csv.gz,$A/aaicwl-2018Q1.csv.gz" \
    --policy easy-backfill+first-fit --nodes 40 > "$TMP/aaic.txt"
  end=$(date +%s.%N)
  secs=$(awk "BEGIN{printf \"%.2f\", $end - $start}")
  echo "bench: AAIC EASY backfill: ${secs}s" >&2
  printf '| AAIC 2017Q3-2018Q1 (231,617 jobs), easy-backfill+first-fit, 40 nodes | `%s` | wall_s=%s |\n' \
    "utilsim run --trace aaicwl-2017Q3.csv.gz,aaicwl-2017Q4.csv.gz,aaicwl-2018Q1.csv.gz --policy easy-backfill+first-fit --nodes 40" "$secs" >> "$TMP/rows"
  # Conservative backfill against EASY on one quarter (issue 18: <= 3x).
  for q in easy-backfill conservative-backfill; do
    timed "AAIC 2017Q3, $q+first-fit, 40 nodes" $PIN "$BUILD/tools/utilsim" run \
      --trace "$A/aaicwl-2017Q3.csv.gz" --policy "$q+first-fit" --nodes 40
  done
fi

CPU=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')
{
  echo "<!-- BEGIN GENERATED: make bench -->"
  echo "Generated by \`make bench\` on $(date -u +%Y-%m-%d) — $CPU, $(nproc) cores (runs pinned to one core"
  echo "with \`taskset -c 0\` where available), $(free -g | awk '/Mem:/{print $2}') GiB memory, utilsim $(git -C "$ROOT" describe --always --dirty 2>/dev/null || echo unknown);"
  echo "load average (1, 5, 15 min) $LOAD_BEFORE before the benchmarks, $(cut -d' ' -f1-3 /proc/loadavg) after."
  echo
  echo "| benchmark | command | result |"
  echo "|---|---|---|"
  cat "$TMP/rows"
  echo "<!-- END GENERATED -->"
} > "$TMP/block"

if [ -f "$DOC" ] && grep -q "BEGIN GENERATED: make bench" "$DOC"; then
  awk -v block="$TMP/block" '
    /BEGIN GENERATED: make bench/ { while ((getline l < block) > 0) print l; skip=1; next }
    /END GENERATED/ { skip=0; next }
    !skip { print }' "$DOC" > "$TMP/doc"
  cp "$TMP/doc" "$DOC"
else
  cat "$TMP/block" >> "$DOC"
fi
echo "bench: wrote $DOC" >&2
