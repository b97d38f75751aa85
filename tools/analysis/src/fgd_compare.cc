// fgd-experiment --compare-with (fgd_compare.h).
#include "utilsim/analysis/fgd_compare.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <set>

#include "utilsim/engine/csv.h"

namespace utilsim {
namespace {

constexpr double kNoValue = std::numeric_limits<double>::quiet_NaN();
constexpr int kPoints = 131;  // 0..130 %

// The simulator's six policies, with their fgdsim-* and utilsim names.
struct Pair {
  const char* suffix;  // sc_policy without its "NN-" prefix
  const char* fgdsim;
  const char* own;
};
constexpr Pair kPairs[] = {
    {"Random", "fgdsim-random", "random"},
    {"DotProd", "fgdsim-dotprod", "tetris"},
    {"GpuClustering", "fgdsim-gpu-clustering", "gpu-clustering"},
    {"GpuPacking", "fgdsim-gpu-packing", "gpu-packing"},
    {"BestFit", "fgdsim-best-fit", "best-fit"},
    {"FGD", "fgdsim-fgd", "fgd"},
};

const FgdCurve* FindCurve(const std::vector<FgdCurve>& curves, const std::string& name) {
  for (const FgdCurve& c : curves)
    if (c.policy == name) return &c;
  return nullptr;
}

// Our curve in percent for the metric, mean over seeds; NaN where missing.
double Ours(const FgdCurve& c, FgdMetric m, size_t k) {
  if (k >= c.arrived.size()) return kNoValue;
  switch (m) {
    case FgdMetric::kAlloc:
      return 100 * c.alloc_mean[k];
    case FgdMetric::kFrag:
      return 100 * c.frag_mean[k];
    case FgdMetric::kFragRatio:
      return 100 * c.frag_ratio_mean[k];
  }
  return kNoValue;
}

double Theirs(const std::vector<std::vector<double>>& seeds, size_t k) {
  double s = 0;
  int n = 0;
  for (const auto& v : seeds)
    if (!std::isnan(v[k])) {
      s += v[k];
      ++n;
    }
  return n > 0 ? s / n : kNoValue;
}

const char* MetricName(FgdMetric m) {
  switch (m) {
    case FgdMetric::kAlloc:
      return "GPU allocation";
    case FgdMetric::kFrag:
      return "fragmentation (of capacity)";
    case FgdMetric::kFragRatio:
      return "fragmentation ratio (of idle GPU)";
  }
  return "?";
}

}  // namespace

Result<FgdPublished> ReadFgdPublished(const std::string& path, const std::string& workload) {
  auto r = CsvReader::OpenPlain(path);
  if (!r.ok()) return r.status();
  CsvReader& csv = r.value();
  FgdPublished out;
  out.path = path;
  const std::string name = std::filesystem::path(path).filename().string();
  out.metric = name.find("frag_ratio") != std::string::npos ? FgdMetric::kFragRatio
               : name.find("frag") != std::string::npos     ? FgdMetric::kFrag
                                                            : FgdMetric::kAlloc;
  const int wcol = csv.Find("workload"), pcol = csv.Find("sc_policy");
  if (wcol < 0 || pcol < 0)
    return Status::Error(path +
                         ":1: expected the columns workload and sc_policy (the FGD "
                         "simulator's analysis_*_discrete.csv)");
  std::vector<int> kcol(kPoints, -1);
  for (int k = 0; k < kPoints; ++k) kcol[static_cast<size_t>(k)] = csv.Find(std::to_string(k));
  if (kcol[0] < 0) return Status::Error(path + ":1: expected curve columns 0..130");
  std::set<std::string> seen;
  for (;;) {
    auto more = csv.Next();
    if (!more.ok()) return more.status();
    if (!more.value()) break;
    const std::string wl(csv.field(static_cast<size_t>(wcol)));
    seen.insert(wl);
    if (wl != workload) continue;
    const std::string pol(csv.field(static_cast<size_t>(pcol)));
    if (pol.empty()) return csv.FieldError(static_cast<size_t>(pcol), "a policy name");
    std::vector<double> v(kPoints, kNoValue);
    for (int k = 0; k < kPoints; ++k) {
      if (kcol[static_cast<size_t>(k)] < 0) continue;
      auto x = csv.OptDouble(static_cast<size_t>(kcol[static_cast<size_t>(k)]));
      if (!x.ok()) return x.status();
      if (x.value()) v[static_cast<size_t>(k)] = *x.value();
    }
    out.curves[pol].push_back(std::move(v));
  }
  if (out.curves.empty()) {
    std::string have;
    for (const std::string& s : seen) have += (have.empty() ? "" : ", ") + s;
    return Status::Error(path + ": no rows for workload '" + workload +
                         "' (it has: " + (have.empty() ? "none" : have) + ")");
  }
  return out;
}

std::string FgdMatchPolicy(const std::string& sc_policy, const std::vector<FgdCurve>& curves) {
  const size_t dash = sc_policy.find('-');
  const std::string suffix = dash == std::string::npos ? sc_policy : sc_policy.substr(dash + 1);
  for (const Pair& p : kPairs) {
    if (suffix != p.suffix) continue;
    if (FindCurve(curves, p.fgdsim)) return p.fgdsim;
    if (FindCurve(curves, p.own)) return p.own;
  }
  return "";
}

Result<FgdComparison> CompareFgd(const std::vector<FgdCurve>& curves, const FgdPublished& pub) {
  FgdComparison cmp;
  cmp.metric = pub.metric;
  for (const auto& [sc, seeds] : pub.curves) {
    const std::string mine = FgdMatchPolicy(sc, curves);
    if (mine.empty()) continue;
    const FgdCurve& c = *FindCurve(curves, mine);
    FgdComparisonRow row{.sc_policy = sc, .policy = mine};
    row.ours_100 = Ours(c, pub.metric, 100);
    row.theirs_100 = Theirs(seeds, 100);
    row.ours_130 = Ours(c, pub.metric, 130);
    row.theirs_130 = Theirs(seeds, 130);
    double sum = 0;
    for (size_t k = 0; k < static_cast<size_t>(kPoints); ++k) {
      const double a = Ours(c, pub.metric, k), b = Theirs(seeds, k);
      if (std::isnan(a) || std::isnan(b)) continue;
      sum += std::fabs(a - b);
      ++row.points;
    }
    row.mae = row.points > 0 ? sum / row.points : kNoValue;
    cmp.rows.push_back(row);
  }
  if (cmp.rows.empty())
    return Status::Error(pub.path +
                         ": none of its policies was run (run fgdsim-* or utilsim's variants)");
  double abs130 = 0, mae = 0;
  for (const FgdComparisonRow& r : cmp.rows) {
    abs130 += std::fabs(r.ours_130 - r.theirs_130);
    mae += r.mae;
  }
  const double n = static_cast<double>(cmp.rows.size());
  cmp.mean_abs_130 = abs130 / n;
  cmp.mean_mae = mae / n;
  int conc = 0, disc = 0;
  for (size_t i = 0; i < cmp.rows.size(); ++i)
    for (size_t j = i + 1; j < cmp.rows.size(); ++j) {
      const double a = cmp.rows[i].ours_130 - cmp.rows[j].ours_130;
      const double b = cmp.rows[i].theirs_130 - cmp.rows[j].theirs_130;
      if (a * b > 0) ++conc;
      if (a * b < 0) ++disc;
    }
  const double pairs = n * (n - 1) / 2;
  cmp.kendall_tau = pairs > 0 ? (conc - disc) / pairs : kNoValue;
  // Allocation: the largest leads; fragmentation: the smallest.
  const bool larger = pub.metric == FgdMetric::kAlloc;
  auto lead = [&](bool ours) {
    size_t best = 0;
    for (size_t i = 1; i < cmp.rows.size(); ++i) {
      const double v = ours ? cmp.rows[i].ours_130 : cmp.rows[i].theirs_130;
      const double b = ours ? cmp.rows[best].ours_130 : cmp.rows[best].theirs_130;
      if (larger ? v > b : v < b) best = i;
    }
    return best;
  };
  cmp.same_first = lead(true) == lead(false);
  return cmp;
}

std::string FormatFgdComparison(const FgdComparison& cmp, const std::string& path) {
  std::string out = std::string("compared with ") + path + " (" + MetricName(cmp.metric) +
                    ", percent; mean over seeds on both sides):\n";
  char buf[320];
  std::snprintf(buf, sizeof buf, "  %-18s %-22s %8s %8s %7s %8s %8s %7s %7s\n", "published",
                "utilsim", "ours@100", "pub@100", "diff", "ours@130", "pub@130", "diff", "MAE");
  out += buf;
  for (const FgdComparisonRow& r : cmp.rows) {
    std::snprintf(buf, sizeof buf, "  %-18s %-22s %8.2f %8.2f %+7.2f %8.2f %8.2f %+7.2f %7.2f\n",
                  r.sc_policy.c_str(), r.policy.c_str(), r.ours_100, r.theirs_100,
                  r.ours_100 - r.theirs_100, r.ours_130, r.theirs_130, r.ours_130 - r.theirs_130,
                  r.mae);
    out += buf;
  }
  std::snprintf(buf, sizeof buf,
                "  mean |diff| at 130%%: %.2f pp; mean curve MAE: %.2f pp; Kendall tau of the "
                "orders at 130%%: %.2f; the same policy leads: %s\n",
                cmp.mean_abs_130, cmp.mean_mae, cmp.kendall_tau, cmp.same_first ? "yes" : "no");
  out += buf;
  return out;
}

}  // namespace utilsim
