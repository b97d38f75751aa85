// Comparing fgd-experiment's curves with the FGD authors' simulator's
// published outputs: experiments/analysis/expected_results/
// analysis_{allo,frag,frag_ratio}_discrete.csv of
// hkust-adsl/kubernetes-scheduler-simulator (columns workload, sc_policy,
// tune, seed, [total_gpus,] 0..130: the curve point at k % arrived, in
// percent; one row per workload, policy and seed).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "utilsim/analysis/fgd_experiment.h"
#include "utilsim/engine/status.h"

namespace utilsim {

enum class FgdMetric { kAlloc, kFrag, kFragRatio };

// One file's curves for one workload: policy (the file's sc_policy, e.g.
// "06-FGD") -> one curve per seed, index k = k %, NaN where empty.
struct FgdPublished {
  std::string path;
  FgdMetric metric = FgdMetric::kAlloc;  // from the file name: *frag_ratio*, *frag*, else alloc
  std::map<std::string, std::vector<std::vector<double>>> curves;
};

// Reads `path` keeping the rows of `workload` (the pod list's stem, e.g.
// "openb_pod_list_default"). Errors name file:line and field; a file with no
// row for the workload lists the workloads it has.
Result<FgdPublished> ReadFgdPublished(const std::string& path, const std::string& workload);

// The utilsim policy an sc_policy of the simulator corresponds to: the
// fgdsim-* of the same plugin, or utilsim's own variant when the run has
// that instead ("01-Random" -> fgdsim-random or random, "02-DotProd" ->
// fgdsim-dotprod or tetris, ...). Empty when the run has neither.
std::string FgdMatchPolicy(const std::string& sc_policy, const std::vector<FgdCurve>& curves);

struct FgdComparisonRow {
  std::string sc_policy, policy;
  double ours_100 = 0, theirs_100 = 0, ours_130 = 0, theirs_130 = 0;  // percent
  double mae = 0;  // mean |ours - theirs| over the points both have (0..130 %)
  int points = 0;
};

struct FgdComparison {
  FgdMetric metric = FgdMetric::kAlloc;
  std::vector<FgdComparisonRow> rows;  // in the file's policy order
  double mean_abs_130 = 0;             // mean over rows of |ours_130 - theirs_130|
  double mean_mae = 0;
  // Kendall's tau between the two orders of the policies at the last
  // common point (130 %), ties counting neither way; NaN with < 2 rows.
  double kendall_tau = 0;
  bool same_first = false;  // the same policy leads both
};

// Means over seeds on both sides. Errors when no policy of the file matches.
Result<FgdComparison> CompareFgd(const std::vector<FgdCurve>& curves, const FgdPublished& pub);

std::string FormatFgdComparison(const FgdComparison& cmp, const std::string& path);

}  // namespace utilsim
