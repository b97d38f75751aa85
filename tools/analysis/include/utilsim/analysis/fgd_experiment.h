// The FGD packing experiment (Weng et al., ATC'23) in arrival-only mode: pods
// drawn from a trace arrive one by one and are placed with no departures,
// until their cumulative GPU request reaches a share of the cluster's GPU
// capacity; the GPU allocation ratio and the fragmentation are recorded
// against the arrived demand, per placement policy, over several seeds.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "utilsim/engine/cluster_spec.h"
#include "utilsim/engine/job.h"
#include "utilsim/engine/status.h"

namespace utilsim {

class ProgressBoard;  // utilsim/analysis/progress.h

struct FgdExperimentOptions {
  std::vector<std::string> policies;  // placement policy names
  int seeds = 5;                      // seeds 1..seeds
  double max_arrived = 1.3;           // stop when arrived GPU request >= this x capacity
  double step = 0.05;                 // record every this share of capacity
  // Progress (not owned; null = none): one slot per policy x seed, its
  // "simulated time" the arrived share of --max-arrived (0..1 s), one event
  // per pod.
  ProgressBoard* progress = nullptr;
};

struct FgdCurve {
  std::string policy;
  std::vector<double> arrived;     // share of capacity, 0.05, 0.10, ...
  std::vector<double> alloc_mean;  // GPU allocation ratio (allocated / capacity), mean over seeds
  std::vector<double> alloc_min, alloc_max;
  std::vector<double> frag_mean;    // fragmentation / capacity, mean over seeds
  std::vector<double> failed_mean;  // share of arrived GPU request that found no place
};

// Pods are drawn uniformly with replacement from w.jobs (stream
// "fgd-arrivals", run = seed); each is placed with the policy's Place on a
// fresh cluster, tasks allocated, never released. Every policy sees the same
// pod sequence for a seed.
Result<std::vector<FgdCurve>> RunFgdExperiment(const Workload& w, const ClusterSpec& cluster,
                                               const FgdExperimentOptions& opt);

// A text table: allocation ratio (and fragmentation) at chosen arrived shares,
// policies ranked by allocation at the last one.
std::string FormatFgdTable(const std::vector<FgdCurve>& curves, const std::vector<double>& at);

}  // namespace utilsim
