// Fragmentation Gradient Descent (Weng et al., USENIX ATC'23, "Beware of
// Fragmentation"): the fragmentation measure and the FGD placement policy.
//
// Task classes. The workload's distinct per-task shapes m = (GPUs, milli-GPU
// per GPU, CPU, memory, GPU memory, allowed models), each with a weight;
// popularity p_m = weight_m / sum of weights.
//
// Fragmentation of node n for class m, F_n(m), in milli-GPU (as the authors'
// simulator defines it, pkg/utils/frag.go; docs/packing.md):
//  * m needs GPUs, n's model is allowed (and its GPU memory suffices), n has
//    gpus_m GPUs each with at least milli_m free, and n has m's CPU and memory
//    free: F_n(m) = sum of the free shares of n's GPUs that are below milli_m
//    (the GPU left that m cannot use);
//  * otherwise, and always for CPU-only classes: F_n(m) = all free GPU share
//    of n.
// F_n = sum_m p_m F_n(m): the expected GPU share on n that a task drawn from
// the distribution cannot use. Cluster fragmentation = sum_n F_n. CPU-only
// nodes have F_n = 0. The authors check CPU and GPU only; memory is checked
// here too, since every placement here needs it.
//
// Exact integer arithmetic: F_n x (sum of weights) is an int64; the double
// values below are that divided by the sum of weights.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "utilsim/engine/cluster_state.h"
#include "utilsim/engine/job.h"
#include "utilsim/policies/placement_policy.h"

namespace utilsim {

struct TaskClass {
  TaskDemand demand;                    // one task of the class
  std::vector<std::string> gpu_models;  // allowed GPU models; empty = any
  int64_t weight = 0;                   // > 0
};

struct TaskClassDist {
  std::vector<TaskClass> classes;
  int64_t total_weight() const;
};

// One class per distinct (demand, sorted allowed models) of w's jobs, weight
// = number of jobs of that shape (popularity = share of jobs; a gang counts
// once, with its per-task shape). Classes sorted by shape; deterministic.
TaskClassDist TaskClassesOf(const Workload& w);

// The measure, prepared once for a distribution and a cluster's GPU models
// (class model names are resolved against cluster.spec()). Valid for any
// ClusterState with the same GPU models. Cost per node: O(groups + G log G)
// where groups = distinct (GPUs, milli-GPU, models, GPU memory) among the
// classes, G = GPUs of the node; CPU and memory thresholds are looked up in
// per-group prefix-sum grids (O(1) after two rank lookups), or scanned when
// the grids would exceed 8M cells (or the weights 2^31). Memory: the grids,
// e.g. ~6 MB for the 82,386 classes of the 1M-job synthetic benchmark.
class FragmentationMeter {
 public:
  FragmentationMeter(const TaskClassDist& dist, const ClusterState& cluster);
  ~FragmentationMeter();
  FragmentationMeter(FragmentationMeter&&) noexcept;
  FragmentationMeter& operator=(FragmentationMeter&&) noexcept;

  int64_t total_weight() const;
  // F_n x total_weight() for node n as it is now.
  int64_t NodeScaled(const ClusterState& c, NodeIndex n) const;
  // F x total_weight() for a node of n's shape (model, GPU memory) in a
  // hypothetical state: free share per GPU, free CPU and memory.
  int64_t ScaledAt(const NodeInfo& shape, std::span<const int32_t> gpu_free, int64_t free_cpu,
                   int64_t free_mem) const;
  // ScaledAt for a state whose GPUs are each whole-free or fully used,
  // `whole` of them whole-free (cheaper: no per-GPU shares to sort).
  int64_t ScaledWholeGpus(const NodeInfo& shape, int whole, int64_t free_cpu,
                          int64_t free_mem) const;
  // F_n in milli-GPU (0 when the distribution is empty).
  double Node(const ClusterState& c, NodeIndex n) const;
  // sum_n F_n in milli-GPU.
  double Cluster(const ClusterState& c) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Convenience forms that build a meter per call (tests, one-off reports).
double NodeFragmentation(const ClusterState& c, NodeIndex n, const TaskClassDist& dist);
double ClusterFragmentation(const ClusterState& c, const TaskClassDist& dist);

// FGD placement: for each task, the feasible node (and, for a fractional
// task, the GPU on it) whose F_n grows least when the task is placed there,
// F_n(after) - F_n(before) computed exactly (the authors' simulator ranks a
// sigmoid of it rounded to 0..100, which ties most nodes; see
// docs/packing.md). Whole-GPU tasks take the lowest-indexed whole-free GPUs
// (which ones does not change F). Ties: lowest node index, then lowest GPU
// index. Gangs all or nothing, each task reserved before the next is placed
// (the PlaceTasks contract, with the GPU choice kept). PolicyId {"fgd", "1"}.
//
// MakeFgd(): the distribution is TaskClassesOf(the run's workload), taken at
// Init (before Init, and for an empty workload, every node has F = 0 and
// the choice is the lowest-indexed feasible node).
// MakeFgd(dist): a fixed distribution (Init leaves it), except that an empty
// one behaves as MakeFgd().
std::unique_ptr<PlacementPolicy> MakeFgd();
std::unique_ptr<PlacementPolicy> MakeFgd(TaskClassDist dist);

}  // namespace utilsim
