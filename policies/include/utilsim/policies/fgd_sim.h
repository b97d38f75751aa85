// The six placement policies of the FGD paper's evaluation (Weng et al.,
// USENIX ATC'23, "Beware of Fragmentation") as the authors' simulator scores
// them: hkust-adsl/kubernetes-scheduler-simulator, the score plugins in
// pkg/simulator/plugin/ with the settings of its run scripts
// (experiments/run_scripts/generate_run_scripts.py, scripts/
// generate_config_and_run.py). They exist so that `fgd-experiment` can
// reproduce the paper's curves; utilsim's own policies of the same names
// (random, tetris, gpu-clustering, gpu-packing, best-fit, fgd) are defined
// for general clusters (memory, gangs, exact arithmetic) and stay as they
// are. docs/packing.md, "Two families of the FGD baselines", says how the two
// differ and why both exist.
//
// Shared by all six (the simulator's kube-scheduler with every default score
// plugin disabled, percentageOfNodesToScore 100):
//  * feasible nodes: ClusterState::CanHost (GPU count and share, GPU model,
//    CPU, memory). The simulator's filter checks the same except its
//    110-pods-per-node limit, which no openb run reaches;
//  * one integer score 0..100 per feasible node, the largest wins;
//  * ties: the node with the lowest tie rank (FgdSimOptions::tie_rank). The
//    simulator takes the lexicographically smallest node name among equal
//    scores and prefixes every node name with a seeded random permutation
//    ("%04d-", simulator.go syncClusterResourceList), so its tie order is a
//    random permutation per seed: FgdSimRandomRanks;
//  * the GPUs inside the chosen node: whole-GPU tasks take the
//    lowest-indexed whole-free GPUs (AllocateExclusiveGpuId); a fractional
//    task takes the fitting GPU with the least free share, the lowest index
//    among equals ("best"), except under Random (a uniform fitting GPU) and
//    FGD (its own choice, below).
//
// Scores (f = free on the node before placing, r = the task's request; CPU
// in milli-cores, GPU in milli-GPU summed over the node's GPUs; 128000 and
// 8000 are the simulator's MaxSpecCpu and MaxSpecGpu):
//  * kRandom: no score; a uniform draw among the feasible nodes.
//  * kDotProd (Tetris, dimExtMethod "merge", normMethod "max"):
//    trunc(100 (1 - (f_cpu r_cpu / 128000^2 + f_gpu r_gpu / 8000^2) / 2)):
//    the smallest normalised dot product wins.
//  * kBestFit: trunc(100 (1 - 0.5 (f_cpu - r_cpu) / 128000
//                               - 0.5 (f_gpu - r_gpu) / 8000)).
//  * kGpuPacking (integer arithmetic; CPU-only tasks score 0 everywhere):
//    every GPU of the node whole-free: max(33 - g, g), g = its GPUs; else
//    take the task's GPUs least-free-first among those that fit: if any is
//    whole-free, max(50 - (whole-free GPUs taken), 33); else
//    max(100 - (sum over them of free x 100 / 1000) / 10, 50).
//  * kGpuClustering (integer arithmetic; CPU-only tasks score 0): the
//    task's kind is "share" (fractional) or "k-gpu"; base =
//    25 (8000 - f_gpu) / 8000; + 75 if the node runs only that kind, + 50
//    if it runs it among others, + 25 if it runs no GPU task, + 0 if only
//    other kinds. The kinds on a node: the GPU tasks this policy placed
//    there (rebuilt from the running jobs at every pass of a simulation).
//  * kFgd: trunc(100 sigmoid((F_n before - F_n after) / 1000)), F_n the
//    fragmentation of the node in milli-GPU for the typical classes
//    (FgdSimTypicalClasses; memory is not a dimension). A fractional task
//    scores every fitting GPU in index order and keeps the first with the
//    largest score; that GPU is the one it takes.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "utilsim/policies/fgd.h"
#include "utilsim/policies/placement_policy.h"

namespace utilsim {

enum class FgdSimScore { kRandom, kDotProd, kGpuClustering, kGpuPacking, kBestFit, kFgd };

struct FgdSimOptions {
  FgdSimScore score = FgdSimScore::kFgd;
  // Random's draws (node, then GPU): Rng(seed, 0, "placement/fgdsim-random").
  uint64_t seed = 1;
  // Tie order: rank of each node, the lowest wins among equal scores. Empty
  // (or of another size than the cluster): the node index.
  std::vector<uint32_t> tie_rank = {};
  // FGD's typical classes: the most popular task classes that together make
  // at least this share (percent, 1..100) of the workload's tasks
  // (podPopularityThreshold, 95 in the paper's runs).
  int popularity_pct = 95;
};

// The policy named by opt.score. PolicyId {"fgdsim-<name>", "1"}; Init(w)
// takes the typical classes from w (kFgd).
std::unique_ptr<PlacementPolicy> MakeFgdSim(FgdSimOptions opt);

// "random", "dotprod", "gpu-clustering", "gpu-packing", "best-fit", "fgd"
// (the registered names are "fgdsim-" + these).
const char* FgdSimScoreName(FgdSimScore s);
// The score of a registered name ("fgdsim-fgd"), or nullopt.
std::optional<FgdSimScore> FgdSimScoreOf(std::string_view policy_name);

// The simulator's typical pods (pkg/utils/frag.go GetTypicalPods, CPU-only
// pods included): one class per distinct (CPU, milli-GPU per GPU, GPUs,
// allowed models) of w's jobs, memory ignored (demand mem and GPU memory 0);
// sorted by count, largest first (equal counts: larger CPU, milli-GPU, GPUs,
// models first); the first classes whose counts reach popularity_pct % of
// all tasks are kept, weights = counts (the simulator renormalises them to
// shares, the same proportions).
TaskClassDist FgdSimTypicalClasses(const Workload& w, int popularity_pct);

// A uniformly random permutation of 0..nodes-1 as tie ranks, drawn from
// Rng(seed, 0, "fgdsim/node-order").
std::vector<uint32_t> FgdSimRandomRanks(size_t nodes, uint64_t seed);

}  // namespace utilsim
