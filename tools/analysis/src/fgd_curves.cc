// The FGD experiment's curves: means over seeds, and the curves CSV
// (fgd_experiment.h). Engine-only dependencies, so that the fuzz harness can
// compile the readers in.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "utilsim/analysis/fgd_experiment.h"
#include "utilsim/engine/csv.h"

namespace utilsim {
namespace {
constexpr double kMissing = std::numeric_limits<double>::quiet_NaN();
}  // namespace

void FgdFillMeans(FgdCurve& c) {
  c.arrived.clear();
  c.alloc_mean.clear();
  c.alloc_min.clear();
  c.alloc_max.clear();
  c.frag_mean.clear();
  c.frag_ratio_mean.clear();
  c.failed_mean.clear();
  if (c.runs.empty()) return;
  const size_t points = c.runs.front().alloc_pct.size();
  for (size_t k = 0; k < points; ++k) {
    double sum = 0, fsum = 0, rsum = 0, xsum = 0, lo = kMissing, hi = kMissing;
    int n = 0;
    for (const FgdSeedCurve& sc : c.runs) {
      if (std::isnan(sc.alloc_pct[k])) continue;
      const double a = sc.alloc_pct[k] / 100;
      sum += a;
      fsum += sc.frag_pct[k] / 100;
      rsum += sc.frag_ratio_pct[k] / 100;
      xsum += sc.failed_pct[k] / 100;
      lo = n == 0 ? a : std::min(lo, a);
      hi = n == 0 ? a : std::max(hi, a);
      ++n;
    }
    const double d = n > 0 ? static_cast<double>(n) : kMissing;
    c.arrived.push_back(static_cast<double>(k) / 100);
    c.alloc_mean.push_back(sum / d);
    c.alloc_min.push_back(lo);
    c.alloc_max.push_back(hi);
    c.frag_mean.push_back(fsum / d);
    c.frag_ratio_mean.push_back(rsum / d);
    c.failed_mean.push_back(xsum / d);
  }
}

std::string FgdCurvesCsv(const std::vector<FgdCurve>& curves) {
  std::string out = "policy,seed,arrived_pct,alloc_pct,frag_pct,frag_ratio_pct,failed_pct\n";
  char buf[256];
  for (const FgdCurve& c : curves)
    for (const FgdSeedCurve& r : c.runs)
      for (size_t k = 0; k < r.alloc_pct.size(); ++k) {
        if (std::isnan(r.alloc_pct[k])) continue;
        std::snprintf(buf, sizeof buf, ",%llu,%zu,%.4f,%.4f,%.4f,%.4f\n",
                      static_cast<unsigned long long>(r.seed), k, r.alloc_pct[k], r.frag_pct[k],
                      r.frag_ratio_pct[k], r.failed_pct[k]);
        out += c.policy;
        out += buf;
      }
  return out;
}

namespace {
constexpr char kCurvesHeader[] =
    "policy,seed,arrived_pct,alloc_pct,frag_pct,frag_ratio_pct,failed_pct";
}  // namespace

bool IsFgdCurvesHeader(const std::string& header) { return header == kCurvesHeader; }

Result<std::vector<FgdCurve>> ReadFgdCurvesCsv(const std::string& path) {
  auto r = CsvReader::OpenPlain(path);
  if (!r.ok()) return r.status();
  CsvReader& csv = r.value();
  std::string header;
  for (const std::string& c : csv.columns()) header += (header.empty() ? "" : ",") + c;
  if (!IsFgdCurvesHeader(header))
    return Status::Error(path + ":1: expected the header " + kCurvesHeader +
                         " (fgd-experiment --csv)");
  std::vector<FgdCurve> curves;
  for (;;) {
    auto more = csv.Next();
    if (!more.ok()) return more.status();
    if (!more.value()) break;
    const std::string policy(csv.field(0));
    if (policy.empty()) return csv.FieldError(0, "a policy name");
    auto seed = csv.Int(1);
    auto k = csv.Int(2);
    if (!seed.ok()) return seed.status();
    if (!k.ok()) return k.status();
    if (seed.value() < 0) return csv.FieldError(1, "a seed >= 0");
    if (k.value() < 0 || k.value() > 10000) return csv.FieldError(2, "a percentage 0..10000");
    double v[4];
    for (size_t i = 0; i < 4; ++i) {
      auto x = csv.Double(3 + i);
      if (!x.ok()) return x.status();
      v[i] = x.value();
    }
    if (curves.empty() || curves.back().policy != policy) {
      for (const FgdCurve& c : curves)
        if (c.policy == policy)
          return csv.RowError("policy '" + policy + "' appears again after other policies");
      curves.emplace_back();
      curves.back().policy = policy;
    }
    FgdCurve& c = curves.back();
    const uint64_t s = static_cast<uint64_t>(seed.value());
    if (c.runs.empty() || c.runs.back().seed != s) {
      c.runs.emplace_back();
      c.runs.back().seed = s;
    }
    FgdSeedCurve& run = c.runs.back();
    const size_t kk = static_cast<size_t>(k.value());
    if (run.alloc_pct.size() <= kk) {
      run.alloc_pct.resize(kk + 1, kMissing);
      run.frag_pct.resize(kk + 1, kMissing);
      run.frag_ratio_pct.resize(kk + 1, kMissing);
      run.failed_pct.resize(kk + 1, kMissing);
    }
    run.alloc_pct[kk] = v[0];
    run.frag_pct[kk] = v[1];
    run.frag_ratio_pct[kk] = v[2];
    run.failed_pct[kk] = v[3];
  }
  if (curves.empty()) return Status::Error(path + ": no curve rows");
  for (FgdCurve& c : curves) {
    size_t points = 0;
    for (const FgdSeedCurve& sc : c.runs) points = std::max(points, sc.alloc_pct.size());
    for (FgdSeedCurve& sc : c.runs) {
      sc.alloc_pct.resize(points, kMissing);
      sc.frag_pct.resize(points, kMissing);
      sc.frag_ratio_pct.resize(points, kMissing);
      sc.failed_pct.resize(points, kMissing);
    }
    FgdFillMeans(c);
  }
  return curves;
}

}  // namespace utilsim
