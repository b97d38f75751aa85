#include "utilsim/workloads/quantile_table.h"

#include <algorithm>

namespace utilsim {

bool QuantileTableValid(std::span<const QuantilePoint> table) {
  if (table.size() < 2 || table.front().p != 0.0 || table.back().p != 1.0) return false;
  for (size_t i = 1; i < table.size(); ++i) {
    if (!(table[i].p >= table[i - 1].p) || !(table[i].x >= table[i - 1].x)) return false;
  }
  return true;
}

namespace {

// First knot with p > u.
size_t FirstAbove(std::span<const QuantilePoint> table, double u) {
  auto it = std::upper_bound(table.begin(), table.end(), u,
                             [](double v, const QuantilePoint& q) { return v < q.p; });
  return static_cast<size_t>(it - table.begin());
}

// The interpolated value at u, given hi = FirstAbove(table, u).
double Interpolate(std::span<const QuantilePoint> table, size_t hi, double u) {
  if (hi == table.size()) return table.back().x;
  if (hi == 0) return table.front().x;
  const QuantilePoint& a = table[hi - 1];
  const QuantilePoint& b = table[hi];
  return a.x + (b.x - a.x) * ((u - a.p) / (b.p - a.p));
}

}  // namespace

double SampleQuantiles(std::span<const QuantilePoint> table, double u) {
  u = std::clamp(u, 0.0, 1.0);
  return Interpolate(table, FirstAbove(table, u), u);
}

QuantileSampler::QuantileSampler(std::span<const QuantilePoint> table)
    : table_(table), first_above_(kBuckets) {
  for (int b = 0; b < kBuckets; ++b) {
    first_above_[b] = static_cast<uint16_t>(FirstAbove(table, static_cast<double>(b) / kBuckets));
  }
}

double QuantileSampler::operator()(double u) const {
  u = std::clamp(u, 0.0, 1.0);
  const int b = std::min(kBuckets - 1, static_cast<int>(u * kBuckets));
  // Knots before first_above_[b] have p <= b / kBuckets <= u, so the scan
  // ends at FirstAbove(table_, u).
  size_t hi = first_above_[b];
  while (hi < table_.size() && table_[hi].p <= u) ++hi;
  return Interpolate(table_, hi, u);
}

namespace {

// Mean of clamp(Y, lo, hi) for Y uniform on [a, b], a <= b.
double ClampedUniformMean(double a, double b, double lo, double hi) {
  if (b <= lo) return lo;
  if (a >= hi) return hi;
  if (a == b) return a;
  const double len = b - a;
  const double m0 = std::max(a, lo);
  const double m1 = std::min(b, hi);
  const double below = (m0 - a) / len;  // share of [a, b] under lo
  const double above = (b - m1) / len;  // share over hi
  const double mid = (m1 - m0) / len;
  return below * lo + above * hi + mid * 0.5 * (m0 + m1);
}

}  // namespace

double QuantilesMean(std::span<const QuantilePoint> table, double lo, double hi) {
  double mean = 0;
  for (size_t i = 1; i < table.size(); ++i) {
    const double dp = table[i].p - table[i - 1].p;
    if (dp > 0) mean += dp * ClampedUniformMean(table[i - 1].x, table[i].x, lo, hi);
  }
  return mean;
}

}  // namespace utilsim
