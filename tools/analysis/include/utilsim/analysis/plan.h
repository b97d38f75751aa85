// `utilsim plan`: the smallest cluster, per policy, whose run of a trace
// meets a queue-wait target (docs/planning.md).
//
// Candidate clusters scale every node group of the given cluster together
// (ScaleCluster); the search evaluates a ladder of candidates, then refines
// the bracket around the smallest one that met the target, and reports the
// smallest evaluated candidate that meets the target while the candidate just
// below it (also evaluated) does not. Runs of one round go to a thread pool;
// the set of candidates evaluated depends only on run results, so the output
// is the same for any thread count.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "utilsim/analysis/runner.h"
#include "utilsim/engine/cluster_spec.h"
#include "utilsim/engine/metrics.h"
#include "utilsim/engine/status.h"
#include "utilsim/io/inputs.h"
#include "utilsim/policies/registry.h"

namespace utilsim {

class ProgressBoard;

// One condition on a run's queue wait: "<metric><=<limit>".
struct PlanTarget {
  enum class Metric { kMean, kP50, kP95, kP99, kMax };
  Metric metric = Metric::kP95;
  // false: the wait to first start (…-wait, Summary::wait_*_s); true: the
  // total time queued, every queued interval (…-queued, Summary::queued_*_s),
  // which differs only when jobs are preempted.
  bool queued = false;
  double limit_s = 0;  // >= 0
  std::string text;    // normalised, e.g. "p95-wait<=7200s"
};

// Parses "p95-wait<=2h" or "p95-queued<=2h". Metrics: mean-, p50-, p95-,
// p99-, max- followed by wait or queued. Limit: a number >= 0 with an
// optional unit s, m or min, h, d (default seconds). Spaces are ignored.
// Errors name the option (--target).
Result<PlanTarget> ParsePlanTarget(const std::string& text);
// The run's figure the target constrains, in seconds.
double TargetFigure(const Summary& s, const PlanTarget& t);
// "p95-wait", "p95-queued", ...
std::string PlanTargetMetric(const PlanTarget& t);
const char* PlanMetricName(PlanTarget::Metric m);  // "p95-wait"

// Node counts of each group for a cluster of `total` nodes, proportional to
// `counts` by the Webster (Sainte-Lague) divisor method: nodes are handed out
// one at a time to the group with the largest counts[g] / (given[g] + 0.5),
// ties to the lowest group index. Exact multiples of the given total give
// exact multiples of every group; a group never loses a node when the total
// grows (house monotone), so candidates are nested. Groups may get 0.
std::vector<int32_t> ApportionNodes(const std::vector<int32_t>& counts, int64_t total);

// The cluster `base` with `total` nodes (>= 1): the nodes are apportioned
// (ApportionNodes) over the node shapes (GPU model, GPUs, CPU, memory, NVLink
// domain, MIG layouts; summing the counts of the groups of each shape), then
// over the groups of each shape, so the mix of shapes is kept even when every
// machine is its own group. Groups given 0 nodes are left out. Name: "<base name> x<total>/<base
// nodes>". Errors: an explicit rack or switch list (its members would not
// exist in a scaled cluster; generated racks, nodes_per_rack, scale fine).
Result<ClusterSpec> ScaleCluster(const ClusterSpec& base, int64_t total);

struct PlanOptions {
  std::vector<std::string> policies;  // registry names, in report order
  std::vector<PlanTarget> targets;    // all must hold (at least one)
  // Candidate sizes: "N" (integer >= 1) = multiples of N nodes; "F" with
  // 0 < F < 1, or "P%" = multiples of that fraction of the given node count
  // (rounded to the nearest node, duplicates and 0 dropped).
  std::string step = "0.05";
  double max_scale = 2.0;  // largest candidate <= max_scale x the given nodes
  int ladder = 8;          // candidates in the first round (evenly spaced, largest included)
  int refine = 3;          // interior candidates per refinement round
  int threads = 0;         // parallel runs; 0 = hardware concurrency
  ProgressBoard* progress = nullptr;  // not owned; may be null
};

// Node totals of the candidates, ascending (all >= 1). Errors name --step or
// --max-scale.
Result<std::vector<int64_t>> PlanCandidates(int64_t given_nodes, const std::string& step,
                                            double max_scale);

// One evaluated candidate for one policy.
struct PlanPoint {
  int64_t nodes = 0, gpus = 0;
  bool meets = false;
  // Ran every job the largest candidate ran (rejected + unfinished no more
  // than there); false makes `meets` false whatever the waits.
  bool runs_all = true;
  // True when the run was stopped early because a target could no longer be
  // met (docs/planning.md); `summary` is then empty and `stopped_at_s` says
  // when (simulated seconds).
  bool stopped_early = false;
  double stopped_at_s = 0;
  Summary summary;
  std::vector<double> figures;  // TargetFigure per target (NaN when stopped early)
};

struct PolicyPlan {
  std::string policy;
  bool met = false;
  // met: the smallest evaluated candidate that meets every target; not met:
  // the largest candidate (the best size found).
  PlanPoint chosen;
  // met and not the smallest candidate: the candidate just below, evaluated,
  // failing.
  std::optional<PlanPoint> below;
  std::vector<PlanPoint> evaluated;  // ascending by nodes
  RunResult run;                     // the chosen candidate's full run
};

struct PlanResult {
  std::string workload_source;
  int64_t jobs = 0;
  std::string cluster_name;
  int64_t given_nodes = 0, given_gpus = 0;
  std::vector<int64_t> candidates;  // node totals
  std::vector<int64_t> candidate_gpus;
  std::vector<PlanTarget> targets;
  std::string step;
  double max_scale = 0;
  double price_per_gpu_h = 0;
  std::string window;                // WindowName(RunSpec::window)
  std::vector<PolicyPlan> policies;  // in PlanOptions::policies order
  int64_t runs = 0;                  // simulations run
};

// Runs the search. `settings` as for RunPolicies (threads is ignored: each
// run is single-threaded, opt.threads of them at once). Errors: bad options,
// an unknown policy, a cluster that cannot be scaled, a run error.
Result<PlanResult> Plan(const Inputs& in, const PolicyRegistry& reg, const PlanOptions& opt,
                        const RunSpec& settings);

// Text table (one row per policy, then the evaluated ladder) and JSON
// (docs/planning.md). Both deterministic; neither contains wall-clock times.
std::string FormatPlan(const PlanResult& r);
std::string PlanJson(const PlanResult& r);

}  // namespace utilsim
