// The FGD packing experiment (Weng et al., ATC'23) in arrival-only mode: pods
// from a trace arrive one by one and are placed with no departures, until
// their cumulative GPU request reaches a share of the cluster's GPU capacity;
// the GPU allocation ratio and the fragmentation are recorded after every
// pod, against the arrived demand, per placement policy and seed.
//
// The default protocol is the FGD authors' simulator's
// (hkust-adsl/kubernetes-scheduler-simulator: pkg/simulator/core.go,
// simulator.go, experiments/analysis/merge_*_discrete*.py), so that the
// curves compare with its published outputs (fgd_compare.h):
//  * arrivals (FgdArrivals::kSimulator): every pod of the trace once, in a
//    seeded random order; then, while the total GPU request is below
//    max_arrived x capacity, pods drawn uniformly (with replacement) from the
//    trace are appended (stopping at the first whose per-GPU share would
//    pass the target: the simulator's tuneUpPods test), or, when it is
//    above, uniformly drawn pods are removed until it is not (tuneDownPods);
//  * the tie order of the fgdsim-* policies (fgd_sim.h): a random node
//    permutation per seed (FgdNodeOrder::kRandom), as the simulator's node
//    name prefixes make it;
//  * fragmentation: the FGD measure over the typical task classes
//    (FgdSimTypicalClasses, popularity cut popularity_pct, memory not a
//    dimension), summed over nodes;
//  * curves in 1 % steps of arrived demand: point k is the mean over the
//    pods whose arrived request rounds (half to even) to k % of capacity;
//    where none does, over those within k +- 1 %; missing where none is.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "utilsim/engine/cluster_spec.h"
#include "utilsim/engine/job.h"
#include "utilsim/engine/status.h"

namespace utilsim {

class ProgressBoard;  // utilsim/analysis/progress.h

enum class FgdArrivals {
  kSimulator,  // the trace shuffled, then tuned to the target (above)
  kSample,     // uniform draws with replacement until the target is reached
};

enum class FgdNodeOrder {
  kRandom,  // fgdsim-* ties: a random node permutation per seed (the simulator's)
  kIndex,   // fgdsim-* ties: the lowest node index (the cluster's node order)
};

struct FgdExperimentOptions {
  std::vector<std::string> policies;  // placement policy names
  int seeds = 5;                      // runs per policy
  uint64_t first_seed = 42;           // seeds first_seed .. first_seed + seeds - 1
  double max_arrived = 1.3;           // target arrived GPU request, x capacity
  FgdArrivals arrivals = FgdArrivals::kSimulator;
  FgdNodeOrder node_order = FgdNodeOrder::kRandom;
  int popularity_pct = 95;  // typical classes of the measure and of fgdsim-fgd
  // Progress (not owned; null = none): one slot per policy x seed, its
  // "simulated time" the arrived share of --max-arrived (0..1 s), one event
  // per pod.
  ProgressBoard* progress = nullptr;
};

// One run's curve: index k = k % of capacity arrived, k = 0..round(100 x
// max_arrived); NaN where no pod's arrived share is within 1 % of k.
struct FgdSeedCurve {
  uint64_t seed = 0;
  std::vector<double> alloc_pct;       // allocated GPU milli / capacity x 100
  std::vector<double> frag_pct;        // fragmentation / capacity x 100
  std::vector<double> frag_ratio_pct;  // fragmentation / idle GPU milli x 100
  std::vector<double> failed_pct;      // GPU request that found no place / arrived x 100
  int64_t pods = 0;                    // pods in the arrival sequence
  int64_t failed_pods = 0;
};

struct FgdCurve {
  std::string policy;
  std::vector<double> arrived;  // share of capacity of point k: k / 100
  // Over the seeds that have point k (NaN where none has):
  std::vector<double> alloc_mean, alloc_min, alloc_max;  // shares (0..1)
  std::vector<double> frag_mean;                         // share of capacity
  std::vector<double> frag_ratio_mean;                   // share of idle GPU
  std::vector<double> failed_mean;                       // share of arrived request
  std::vector<FgdSeedCurve> runs;                        // per seed, in seed order
};

// Fills c's means (arrived, alloc_*, frag_*, failed_mean) from c.runs.
void FgdFillMeans(FgdCurve& c);

// Every policy sees the same pod sequence for a seed. Errors: no pods, no
// GPUs, bad options, an unknown policy, a policy that over-commits.
Result<std::vector<FgdCurve>> RunFgdExperiment(const Workload& w, const ClusterSpec& cluster,
                                               const FgdExperimentOptions& opt);

// A text table: allocation ratio (and fragmentation) at chosen arrived shares,
// policies ranked by allocation at the last one.
std::string FormatFgdTable(const std::vector<FgdCurve>& curves, const std::vector<double>& at);

// The curves as CSV, one row per policy, seed and point:
// policy,seed,arrived_pct,alloc_pct,frag_pct,frag_ratio_pct,failed_pct
// (missing points left out; numbers with 4 decimals).
std::string FgdCurvesCsv(const std::vector<FgdCurve>& curves);

// True when `header` is FgdCurvesCsv's first line (without its newline).
bool IsFgdCurvesHeader(const std::string& header);
// Reads a file written by FgdCurvesCsv back into curves (policies and seeds
// in file order, means filled). Errors name file:line and field.
Result<std::vector<FgdCurve>> ReadFgdCurvesCsv(const std::string& path);

}  // namespace utilsim
