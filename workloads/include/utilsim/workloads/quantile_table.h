// Empirical distributions stored as quantile tables, sampled by inverse CDF
// with linear interpolation. Only +, -, * and / are used, so a draw is
// bit-identical on every IEEE-754 platform for the same uniform input.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace utilsim {

// One knot of an inverse CDF: P(X <= x) = p. A table is a sequence of knots
// with p non-decreasing from exactly 0 to exactly 1 and x non-decreasing. Two
// knots with equal x and different p form a point mass (e.g. "32% of samples
// are exactly 0"); two knots with equal p and different x form a gap.
struct QuantilePoint {
  double p;
  double x;
};

// True when `table` satisfies the contract above (at least two knots).
bool QuantileTableValid(std::span<const QuantilePoint> table);

// The value at cumulative probability u in [0, 1] (u outside is clamped):
// linear interpolation between the two knots around u. Precondition: table
// is valid. O(log n).
double SampleQuantiles(std::span<const QuantilePoint> table, double u);

// Exact mean of min(hi, max(lo, X)) for X distributed as the interpolated
// table (each segment is a uniform distribution between its knots' x).
// Precondition: table is valid, lo <= hi.
double QuantilesMean(std::span<const QuantilePoint> table, double lo, double hi);

// SampleQuantiles with an index over u, for hot loops: operator() returns
// exactly SampleQuantiles(table, u) in O(1) expected time. Keeps a view of
// `table`, which must outlive the sampler. Immutable after construction, so
// safe to share between threads.
class QuantileSampler {
 public:
  // Precondition: table is valid and has fewer than 65,536 knots.
  explicit QuantileSampler(std::span<const QuantilePoint> table);
  double operator()(double u) const;

 private:
  static constexpr int kBuckets = 256;  // power of two: u * kBuckets is exact
  std::span<const QuantilePoint> table_;
  std::vector<uint16_t> first_above_;  // [b]: first knot with p > b / kBuckets
};

}  // namespace utilsim
