// The runaway guard: before a run, an estimate of the memory it will take
// from its jobs, nodes and cluster samples, refused above a limit (default
// 80% of physical memory; --max-memory SIZE raises or disables it). A
// refusal is a runtime error naming the estimate, the limit and the option.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "utilsim/analysis/runner.h"
#include "utilsim/engine/job.h"
#include "utilsim/engine/status.h"
#include "utilsim/io/inputs.h"

namespace utilsim {

// What a command will hold in memory at its peak.
struct MemoryDemand {
  int64_t jobs = 0;             // jobs of the workload (held once, and once per run)
  int64_t nodes = 0;            // nodes of the (largest) cluster a run builds
  int64_t groups = 0;           // node groups of the cluster spec (held once)
  int64_t samples_per_run = 0;  // cluster samples (and change points) each run records
  int64_t runs = 1;             // simulations held at once
  int64_t workload_copies = 1;  // copies of the workload held (validate: one per size)
  std::string runs_label;       // how `runs` reads in a message, e.g. "3 policies"
};

// Bytes each item adds to the peak resident set, measured on this build
// (g++ 12 Release, glibc, x86-64) with /usr/bin/time -v ("Maximum resident
// set size") as the difference between two sizes, so that fixed costs drop
// out, then rounded up by 10-35%:
//   jobs: run --trace builtin:demo --sample-interval 1e9 (one sample),
//     20,000 -> 200,000 jobs: 23.0 -> 166.4 MB, 815 B/job with one run;
//     compare of 3 policies at 200,000 jobs: 389.2 MB, so 570 B per job per
//     extra run and 245 B per job held once (the workload).
//   nodes: 10 jobs on one node group of count 10,000 -> 100,000: 28.2 ->
//     213.3 MB (2.06 KB/node), 3 policies 624.6 MB (2.06 KB/node per run);
//     as 100,000 groups of one node each (named nodes): 652.8 MB x1,
//     1079.2 MB x3, so 2.1 KB per node per run and 4.3 KB per group once.
//   samples: 2,000 jobs (700,347 s), --sample-interval 10 -> 1: 24.5 ->
//     139.5 MB for 630,313 more samples, 187 B/sample.
//   fixed: 1,000 jobs and 64 nodes take 7.7 MB.
inline constexpr int64_t kBaseBytes = 16ll << 20;
inline constexpr int64_t kBytesPerJob = 320;       // once: the workload
inline constexpr int64_t kBytesPerJobRun = 640;    // per run: job records and state
inline constexpr int64_t kBytesPerGroup = 4608;    // once: a node group of the spec
inline constexpr int64_t kBytesPerNodeRun = 2304;  // per run: the cluster state
inline constexpr int64_t kBytesPerSample = 256;    // per run: one cluster sample

// kBaseBytes + copies x jobs x kBytesPerJob + groups x kBytesPerGroup + runs
// x (jobs x kBytesPerJobRun + nodes x kBytesPerNodeRun + samples_per_run x
// kBytesPerSample); saturates at INT64_MAX instead of overflowing.
int64_t EstimateMemoryBytes(const MemoryDemand& d);

// Cluster samples one run records: (simulated span / interval) + 1, the span
// from the first submission to the latest submit + runtime (EstimateSpan),
// capped at horizon_s (seconds from the first submission; < 0 = none).
int64_t SamplesPerRun(const Workload& w, double sample_interval_s, double horizon_s);

// "16G", "500M", "2T", "1.5G", "4096K", "123" (bytes); units are binary
// (K = 1024) and may be written k/m/g/t, with an optional "B" or "iB".
// "0" and "none" give 0: no limit. Error names --max-memory and the forms.
Result<int64_t> ParseMemorySize(const std::string& text);

// sysconf(_SC_PHYS_PAGES) x sysconf(_SC_PAGE_SIZE); 0 when unknown.
int64_t PhysicalMemoryBytes();

struct MemoryLimit {
  int64_t bytes = 0;   // 0 = no limit
  std::string origin;  // "80% of physical memory", "--max-memory 16G"
};
// The limit for --max-memory `option` ("" = the default: 80% of physical
// memory; no limit when that is unknown). `option` must parse.
MemoryLimit ResolveMemoryLimit(const std::string& option);

// 1536 -> "1.5 KiB", 44291850240 -> "41.2 GiB".
std::string FormatBytes(double bytes);

// Ok when the estimate fits the limit, else e.g.
//   "estimated 41.2 GiB for 100000000 jobs x 3 policies (64 nodes, 289
//   samples per run) exceeds the limit 19.2 GiB (80% of physical memory);
//   raise it with --max-memory SIZE (e.g. --max-memory 64G; none disables
//   the check)".
Status CheckMemory(const MemoryDemand& d, const MemoryLimit& limit);

// The demand of `runs` simulations of `in` under `s` (horizon_s still
// relative to the first submission), e.g. runs = the policies of compare.
MemoryDemand DemandOfRuns(const Inputs& in, const RunSpec& s, int64_t runs, std::string runs_label);

// An InputOptions::before_generate hook: CheckMemory of `runs` simulations of
// the jobs and nodes a built-in workload is about to generate (no samples
// yet: their span is not known before the jobs are).
std::function<Status(int64_t jobs, int64_t nodes)> GuardBeforeGenerate(MemoryLimit limit,
                                                                       int64_t runs,
                                                                       std::string runs_label);

}  // namespace utilsim
