// Morris elementary effects: the checks of a design's fields and factors, the
// trajectories (Morris's B* construction on a p-level grid, drawn from one
// named Rng stream), the mapping of grid levels to factor units, the
// elementary effects with their mu, mu* and sigma, and the ranking by mu*.
//
// Grid levels are kept as integer indices 0..p-1 (unit value index / (p-1)),
// so a step of delta = p / (2 (p - 1)) is exactly p/2 indices and every point
// lies on the grid. An integer factor is rounded with std::round (to nearest,
// halves away from zero) and then clamped to the integers within [lo, hi].
#include "utilsim/sweep/morris.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <numeric>
#include <set>
#include <utility>

#include "utilsim/engine/rng.h"

namespace utilsim::sweep {
namespace {

Status Invalid(std::string message) {
  return Status::Error(StatusCode::kInvalidArgument, std::move(message));
}

// The shortest text that reads back as `v` ("3", "0.5", "nan", "inf").
std::string Num(double v) {
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

Status CheckFields(int trajectories, int levels, size_t factors) {
  if (trajectories < 2) {
    return Invalid("morris: field 'trajectories': expected an integer >= 2, got " +
                   std::to_string(trajectories));
  }
  if (levels < 2 || levels % 2 != 0) {
    return Invalid("morris: field 'levels': expected an even number >= 2, got " +
                   std::to_string(levels));
  }
  if (factors == 0) return Invalid("morris: field 'factors': expected at least one factor");
  return Status::Ok();
}

// Factor `f`, the `index`-th (0-based), given the names of those before it.
Status CheckFactor(const MorrisFactor& f, size_t index, const std::set<std::string>& seen) {
  if (f.name.empty()) {
    return Invalid("morris factor #" + std::to_string(index + 1) + ": expected a non-empty name");
  }
  const std::string where = "morris factor '" + f.name + "': ";
  if (seen.count(f.name) != 0) return Invalid(where + "duplicate name");
  const std::string range = "[" + Num(f.lo) + ", " + Num(f.hi) + "]";
  if (!std::isfinite(f.lo) || !std::isfinite(f.hi)) {
    return Invalid(where + "expected finite lo and hi, got " + range);
  }
  if (!(f.lo < f.hi)) return Invalid(where + "expected lo < hi, got " + range);
  if (!std::isfinite(f.hi - f.lo)) {
    return Invalid(where + "expected a finite hi - lo, got " + range);
  }
  if (f.integer && f.hi - f.lo < 1) {
    return Invalid(where + "an integer factor needs hi - lo >= 1, got " + range);
  }
  return Status::Ok();
}

Status CheckFactors(const std::vector<MorrisFactor>& factors) {
  std::set<std::string> seen;
  for (size_t i = 0; i < factors.size(); ++i) {
    if (Status s = CheckFactor(factors[i], i, seen); !s.ok()) return s;
    seen.insert(factors[i].name);
  }
  return Status::Ok();
}

// The value of `f` at grid index `level` of `levels`. std::lerp is exact at
// both ends and monotonic, so the value stays within [lo, hi].
double FactorValue(const MorrisFactor& f, int level, int levels) {
  const double u = static_cast<double>(level) / (levels - 1);
  const double v = std::lerp(f.lo, f.hi, u);
  if (!f.integer) return v;
  // "+ 0.0" turns a rounded -0 into 0.
  return std::clamp(std::round(v), std::ceil(f.lo), std::floor(f.hi)) + 0.0;
}

// A uniformly random order of 0..k-1 (Fisher-Yates).
std::vector<int> RandomOrder(int k, Rng& rng) {
  std::vector<int> order(k);
  std::iota(order.begin(), order.end(), 0);
  for (int i = k - 1; i > 0; --i)
    std::swap(order[i], order[static_cast<size_t>(rng.UniformInt(0, i))]);
  return order;
}

// One trajectory in grid indices: k + 1 points and the factor moved at each
// step. Each factor i has a base index b_i in 0..p/2-1 (unit value at most
// 1 - delta); going up it starts at b_i and moves to b_i + p/2, going down
// it starts at b_i + p/2 and moves to b_i.
struct Trajectory {
  std::vector<std::vector<int>> points;
  std::vector<int> moved;
};

Trajectory DrawTrajectory(int k, int levels, Rng& rng) {
  const int jump = levels / 2;  // delta in grid indices
  std::vector<int> base(k);
  for (int& b : base) b = static_cast<int>(rng.UniformInt(0, jump - 1));
  Trajectory t;
  t.moved = RandomOrder(k, rng);
  std::vector<bool> up(k);
  for (int i = 0; i < k; ++i) up[i] = (rng.NextU64() >> 63) != 0;

  std::vector<int> point(k);
  for (int i = 0; i < k; ++i) point[i] = up[i] ? base[i] : base[i] + jump;
  t.points.push_back(point);
  for (int i : t.moved) {
    point[i] = up[i] ? base[i] + jump : base[i];
    t.points.push_back(point);
  }
  return t;
}

std::vector<double> ToUnits(const std::vector<MorrisFactor>& factors,
                            const std::vector<int>& grid_point, int levels) {
  std::vector<double> values(factors.size());
  for (size_t i = 0; i < factors.size(); ++i) {
    values[i] = FactorValue(factors[i], grid_point[i], levels);
  }
  return values;
}

// A design MorrisEffects can index safely: the checks of MorrisTrajectories,
// then r x (k + 1) points of k values and r x k moved factors.
Status CheckDesign(const MorrisDesign& d) {
  if (Status s = CheckFields(d.trajectories, d.levels, d.factors.size()); !s.ok()) return s;
  if (Status s = CheckFactors(d.factors); !s.ok()) return s;
  const size_t k = d.factors.size();
  const size_t r = static_cast<size_t>(d.trajectories);
  if (d.points.size() != r * (k + 1) || d.moved.size() != r) {
    return Invalid("morris design: expected " + std::to_string(r * (k + 1)) + " points and " +
                   std::to_string(r) + " moved lists, got " + std::to_string(d.points.size()) +
                   " and " + std::to_string(d.moved.size()));
  }
  for (size_t p = 0; p < d.points.size(); ++p) {
    if (d.points[p].size() != k) {
      return Invalid("morris design: point " + std::to_string(p) + " has " +
                     std::to_string(d.points[p].size()) + " values, expected " + std::to_string(k));
    }
  }
  for (size_t t = 0; t < r; ++t) {
    const std::vector<int>& m = d.moved[t];
    const bool in_range = std::all_of(m.begin(), m.end(),
                                      [k](int i) { return i >= 0 && static_cast<size_t>(i) < k; });
    if (m.size() != k || !in_range) {
      return Invalid("morris design: trajectory " + std::to_string(t) + ": expected " +
                     std::to_string(k) + " moved factors, each in 0.." + std::to_string(k - 1));
    }
  }
  return Status::Ok();
}

Status CheckOutputs(const MorrisDesign& d, const std::vector<double>& outputs) {
  if (outputs.size() != d.points.size()) {
    return Invalid("morris: expected " + std::to_string(d.points.size()) +
                   " outputs (one per design point), got " + std::to_string(outputs.size()));
  }
  for (size_t p = 0; p < outputs.size(); ++p) {
    if (!std::isfinite(outputs[p])) {
      return Invalid("morris: output of point " + std::to_string(p) + " is not finite (" +
                     Num(outputs[p]) + ")");
    }
  }
  return Status::Ok();
}

// mu, mu* and sigma (n - 1 in the denominator) of one factor's effects.
MorrisEffect Summarize(const std::string& name, const std::vector<double>& effects) {
  MorrisEffect e;
  e.factor = name;
  e.n = static_cast<int>(effects.size());
  if (effects.empty()) return e;
  double sum = 0, sum_abs = 0;
  for (double x : effects) {
    sum += x;
    sum_abs += std::abs(x);
  }
  e.mu = sum / e.n;
  e.mu_star = sum_abs / e.n;
  if (e.n < 2) return e;
  double squares = 0;
  for (double x : effects) squares += (x - e.mu) * (x - e.mu);
  e.sigma = std::sqrt(squares / (e.n - 1));
  return e;
}

}  // namespace

Result<MorrisDesign> MorrisTrajectories(const std::vector<MorrisFactor>& factors, int trajectories,
                                        int levels, uint64_t seed) {
  if (Status s = CheckFields(trajectories, levels, factors.size()); !s.ok()) return s;
  if (Status s = CheckFactors(factors); !s.ok()) return s;
  MorrisDesign d;
  d.factors = factors;
  d.levels = levels;
  d.trajectories = trajectories;
  const int k = static_cast<int>(factors.size());
  Rng rng(seed, 0, "morris");
  for (int t = 0; t < trajectories; ++t) {
    Trajectory tr = DrawTrajectory(k, levels, rng);
    for (const std::vector<int>& p : tr.points) d.points.push_back(ToUnits(factors, p, levels));
    d.moved.push_back(std::move(tr.moved));
  }
  return d;
}

Result<std::vector<MorrisEffect>> MorrisEffects(const MorrisDesign& design,
                                                const std::vector<double>& outputs) {
  if (Status s = CheckDesign(design); !s.ok()) return s;
  if (Status s = CheckOutputs(design, outputs); !s.ok()) return s;
  const size_t k = design.factors.size();
  std::vector<std::vector<double>> effects(k);
  for (size_t t = 0; t < design.moved.size(); ++t) {
    const size_t first = t * (k + 1);
    for (size_t j = 0; j < k; ++j) {
      const int i = design.moved[t][j];
      const MorrisFactor& f = design.factors[i];
      const double step =
          (design.points[first + j + 1][i] - design.points[first + j][i]) / (f.hi - f.lo);
      if (step == 0) continue;  // an integer factor whose rounded value did not move
      effects[i].push_back((outputs[first + j + 1] - outputs[first + j]) / step);
    }
  }
  std::vector<MorrisEffect> out;
  out.reserve(k);
  for (size_t i = 0; i < k; ++i) out.push_back(Summarize(design.factors[i].name, effects[i]));
  return out;
}

std::vector<int> MorrisRanking(const std::vector<MorrisEffect>& effects) {
  // A NaN mu* (never from MorrisEffects) ranks last, keeping the order strict.
  auto key = [&effects](int i) {
    const double m = effects[i].mu_star;
    return std::isnan(m) ? -std::numeric_limits<double>::infinity() : m;
  };
  std::vector<int> order(effects.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    if (key(a) != key(b)) return key(a) > key(b);
    if (effects[a].factor != effects[b].factor) return effects[a].factor < effects[b].factor;
    return a < b;
  });
  return order;
}

}  // namespace utilsim::sweep
