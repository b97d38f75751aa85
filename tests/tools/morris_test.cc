// Morris elementary effects: the shape of a design (points on the grid, one
// factor moved per step by delta, every factor once per trajectory), its
// determinism, integer rounding and skipped steps, effects checked against
// values worked out by hand, the ranking, and every error message.
#include "utilsim/sweep/morris.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>
#include <set>
#include <string>
#include <vector>

namespace utilsim::sweep {
namespace UTILSIM_UNITY_ID {

using Point = std::vector<double>;

bool Has(const std::string& s, const std::string& sub) { return s.find(sub) != std::string::npos; }

std::vector<double> Evaluate(const MorrisDesign& d, const std::function<double(const Point&)>& f) {
  std::vector<double> y;
  for (const Point& p : d.points) y.push_back(f(p));
  return y;
}

MorrisDesign Design(const std::vector<MorrisFactor>& factors, int r, int levels, uint64_t seed) {
  auto d = MorrisTrajectories(factors, r, levels, seed);
  EXPECT_TRUE(d.ok()) << d.status().message();
  return d.value();
}

// The error message of a design that must fail with kInvalidArgument.
std::string DesignError(const std::vector<MorrisFactor>& factors, int r, int levels) {
  auto d = MorrisTrajectories(factors, r, levels, 1);
  EXPECT_FALSE(d.ok());
  if (d.ok()) return "";
  EXPECT_EQ(d.status().code(), StatusCode::kInvalidArgument);
  return d.status().message();
}

std::string EffectsError(const MorrisDesign& d, const std::vector<double>& y) {
  auto e = MorrisEffects(d, y);
  EXPECT_FALSE(e.ok());
  if (e.ok()) return "";
  EXPECT_EQ(e.status().code(), StatusCode::kInvalidArgument);
  return e.status().message();
}

void ExpectEffect(const MorrisEffect& e, const std::string& factor, double mu, double mu_star,
                  double sigma, int n) {
  EXPECT_EQ(e.factor, factor);
  EXPECT_NEAR(e.mu, mu, 1e-12) << factor;
  EXPECT_NEAR(e.mu_star, mu_star, 1e-12) << factor;
  EXPECT_NEAR(e.sigma, sigma, 1e-12) << factor;
  EXPECT_EQ(e.n, n) << factor;
}

const std::vector<MorrisFactor> kAbc = {{"a", 0, 1}, {"b", 0, 10}, {"c", 5, 6}};

TEST(MorrisTrajectories, DesignStructure) {
  const std::vector<MorrisFactor> factors = {
      {"a", 0, 1}, {"b", -5, 5}, {"c", 100, 200}, {"d", 0.5, 0.75}};
  const size_t k = factors.size();
  for (int levels : {2, 4, 6, 10}) {
    SCOPED_TRACE("levels " + std::to_string(levels));
    const int r = 12;
    const MorrisDesign d = Design(factors, r, levels, 42);
    const double delta = levels / (2.0 * (levels - 1));  // 4 levels: 2/3; 6 levels: 3/5
    EXPECT_EQ(d.levels, levels);
    EXPECT_EQ(d.trajectories, r);
    ASSERT_EQ(d.factors.size(), k);
    EXPECT_EQ(d.factors[2].name, "c");
    ASSERT_EQ(d.points.size(), r * (k + 1));
    ASSERT_EQ(d.moved.size(), static_cast<size_t>(r));
    for (const Point& p : d.points) {
      ASSERT_EQ(p.size(), k);
      for (size_t i = 0; i < k; ++i) {
        EXPECT_GE(p[i], factors[i].lo);
        EXPECT_LE(p[i], factors[i].hi);
        // On the grid: the unit value is a multiple of 1 / (levels - 1).
        const double level =
            (p[i] - factors[i].lo) / (factors[i].hi - factors[i].lo) * (levels - 1);
        EXPECT_NEAR(level, std::round(level), 1e-9);
      }
    }
    std::set<int> first_moved;
    int ups = 0, downs = 0;
    for (int t = 0; t < r; ++t) {
      // Every factor moves exactly once per trajectory.
      std::vector<int> sorted = d.moved[t];
      std::sort(sorted.begin(), sorted.end());
      EXPECT_EQ(sorted, (std::vector<int>{0, 1, 2, 3}));
      first_moved.insert(d.moved[t][0]);
      for (size_t j = 0; j < k; ++j) {
        const Point& before = d.points[t * (k + 1) + j];
        const Point& after = d.points[t * (k + 1) + j + 1];
        const int moved = d.moved[t][j];
        for (size_t i = 0; i < k; ++i) {
          const double width = factors[i].hi - factors[i].lo;
          if (static_cast<int>(i) != moved) {
            EXPECT_EQ(after[i], before[i]);
            continue;
          }
          EXPECT_NEAR(std::abs(after[i] - before[i]), delta * width, 1e-12 * width);
          // The lower end of a step is a base level: unit value <= 1 - delta.
          const double low = std::min(after[i], before[i]);
          EXPECT_LE((low - factors[i].lo) / width, 1 - delta + 1e-12);
          (after[i] > before[i] ? ups : downs)++;
        }
      }
    }
    // Random orders and directions: with 12 trajectories of 4 factors
    // (48 steps) both directions and several first factors show up.
    EXPECT_GT(ups, 0);
    EXPECT_GT(downs, 0);
    EXPECT_GT(first_moved.size(), 1u);
  }
}

TEST(MorrisTrajectories, TwoLevelsUseTheCorners) {
  // p = 2: delta = 2 / (2 * 1) = 1, the base is always 0, so each factor
  // goes lo -> hi or hi -> lo.
  const MorrisDesign d = Design(kAbc, 5, 2, 9);
  for (const Point& p : d.points) {
    for (size_t i = 0; i < kAbc.size(); ++i) {
      EXPECT_TRUE(p[i] == kAbc[i].lo || p[i] == kAbc[i].hi) << p[i];
    }
  }
}

TEST(MorrisTrajectories, DeterministicInSeed) {
  const MorrisDesign a = Design(kAbc, 10, 4, 123);
  const MorrisDesign b = Design(kAbc, 10, 4, 123);
  const MorrisDesign c = Design(kAbc, 10, 4, 124);
  EXPECT_EQ(a.points, b.points);
  EXPECT_EQ(a.moved, b.moved);
  EXPECT_TRUE(a.points != c.points || a.moved != c.moved);
}

TEST(MorrisEffects, LinearFunctionHasExactEffects) {
  // y = 3a + 1b + 0c. In unit terms (u_i = (x_i - lo_i) / (hi_i - lo_i)),
  // dy/du_a = 3 * (1 - 0) = 3, dy/du_b = 1 * (10 - 0) = 10, dy/du_c = 0, and a
  // linear y makes every elementary effect exactly that slope whatever the
  // direction: mu = mu* = slope, sigma = 0, n = r = 8.
  const MorrisDesign d = Design(kAbc, 8, 4, 7);
  auto e = MorrisEffects(d, Evaluate(d, [](const Point& p) { return 3 * p[0] + p[1] + 0 * p[2]; }));
  ASSERT_TRUE(e.ok()) << e.status().message();
  ASSERT_EQ(e.value().size(), 3u);
  ExpectEffect(e.value()[0], "a", 3, 3, 0, 8);
  ExpectEffect(e.value()[1], "b", 10, 10, 0, 8);
  ExpectEffect(e.value()[2], "c", 0, 0, 0, 8);
  EXPECT_EQ(MorrisRanking(e.value()), (std::vector<int>{1, 0, 2}));  // b, a, c
}

TEST(MorrisEffects, NegativeSlopeGivesNegativeMu) {
  // y = -2b, b in [0, 10]: every EE = -2 * 10 = -20: mu = -20, mu* = 20.
  const MorrisDesign d = Design(kAbc, 6, 4, 8);
  auto e = MorrisEffects(d, Evaluate(d, [](const Point& p) { return -2 * p[1]; }));
  ASSERT_TRUE(e.ok()) << e.status().message();
  ExpectEffect(e.value()[1], "b", -20, 20, 0, 6);
  ExpectEffect(e.value()[0], "a", 0, 0, 0, 6);
}

TEST(MorrisEffects, ProductOnHandBuiltDesign) {
  // y = a * b on [0, 1]^3, 4 levels (delta = 2/3), two trajectories:
  //   t0: (0,0,0) -a-> (2/3,0,0) -b-> (2/3,2/3,0) -c-> (2/3,2/3,2/3)
  //       y = 0, 0, 4/9, 4/9:  EE_a = 0 / (2/3) = 0, EE_b = (4/9) / (2/3) = 2/3, EE_c = 0
  //   t1: (1/3,1,1/3) -b-> (1/3,1/3,1/3) -a-> (1,1/3,1/3) -c-> (1,1/3,1)
  //       y = 1/3, 1/9, 1/3, 1/3:  EE_b = (-2/9) / (-2/3) = 1/3,
  //       EE_a = (2/9) / (2/3) = 1/3, EE_c = 0
  // a: {0, 1/3}: mu = mu* = 1/6, sigma = sqrt(2 (1/6)^2 / 1) = sqrt(2)/6
  // b: {2/3, 1/3}: mu = mu* = 1/2, sigma = sqrt(2)/6
  // c: {0, 0}: all zero. Ranking b, a, c.
  const double t = 1.0 / 3;
  MorrisDesign d;
  d.factors = {{"a", 0, 1}, {"b", 0, 1}, {"c", 0, 1}};
  d.levels = 4;
  d.trajectories = 2;
  d.points = {{0, 0, 0}, {2 * t, 0, 0}, {2 * t, 2 * t, 0}, {2 * t, 2 * t, 2 * t},
              {t, 1, t}, {t, t, t},     {1, t, t},         {1, t, 1}};
  d.moved = {{0, 1, 2}, {1, 0, 2}};
  auto e = MorrisEffects(d, Evaluate(d, [](const Point& p) { return p[0] * p[1]; }));
  ASSERT_TRUE(e.ok()) << e.status().message();
  const double s = std::sqrt(2.0) / 6;  // 0.2357...
  ExpectEffect(e.value()[0], "a", 1.0 / 6, 1.0 / 6, s, 2);
  ExpectEffect(e.value()[1], "b", 0.5, 0.5, s, 2);
  ExpectEffect(e.value()[2], "c", 0, 0, 0, 2);
  EXPECT_EQ(MorrisRanking(e.value()), (std::vector<int>{1, 0, 2}));
}

TEST(MorrisEffects, ProductOnGeneratedDesign) {
  // y = a * b on [0, 1]^3: moving a by h changes y by h * b, so EE_a is the
  // value of b at a's step (and EE_b the value of a at b's step); c has no
  // effect at all, so its every EE is exactly 0.
  const std::vector<MorrisFactor> factors = {{"a", 0, 1}, {"b", 0, 1}, {"c", 0, 1}};
  const int r = 20;
  const MorrisDesign d = Design(factors, r, 4, 3);
  auto e = MorrisEffects(d, Evaluate(d, [](const Point& p) { return p[0] * p[1]; }));
  ASSERT_TRUE(e.ok()) << e.status().message();
  // The expected effects, read off the design.
  std::vector<double> ee_a, ee_b;
  for (int t = 0; t < r; ++t) {
    for (int j = 0; j < 3; ++j) {
      const Point& before = d.points[t * 4 + j];
      if (d.moved[t][j] == 0) ee_a.push_back(before[1]);
      if (d.moved[t][j] == 1) ee_b.push_back(before[0]);
    }
  }
  auto mean = [](const std::vector<double>& v) {
    return std::accumulate(v.begin(), v.end(), 0.0) / v.size();
  };
  const auto& a = e.value()[0];
  const auto& b = e.value()[1];
  const auto& c = e.value()[2];
  EXPECT_NEAR(a.mu_star, mean(ee_a), 1e-12);  // b >= 0, so mu* = mu
  EXPECT_NEAR(a.mu, mean(ee_a), 1e-12);
  EXPECT_NEAR(b.mu_star, mean(ee_b), 1e-12);
  EXPECT_GT(a.sigma, 0.1);  // b at a's step varies over {0, 1/3, 2/3, 1}
  EXPECT_GT(b.sigma, 0.1);
  EXPECT_EQ(a.n, r);
  EXPECT_EQ(c.mu_star, 0);
  EXPECT_EQ(c.sigma, 0);
  EXPECT_EQ(c.n, r);
  EXPECT_EQ(MorrisRanking(e.value()).back(), 2);
}

TEST(MorrisEffects, IntegerFactorSkipsStepsThatRoundAway) {
  // Integer n in [0, 1.8], 4 levels: unit values 0, 1/3, 2/3, 1 give
  // 0, 0.6, 1.2, 1.8, rounded 0, 1, 1, 2 and clamped to the integers in
  // [0, 1.8]: 0, 1, 1, 1. delta = 2 levels, so a trajectory with base 0
  // moves n between 0 and 1 (an effect), one with base 1 between 1 and 1
  // (skipped). y = n + x: EE_n = (1 - 0) / ((1 - 0) / 1.8) = 1.8 either way.
  const std::vector<MorrisFactor> factors = {{"n", 0, 1.8, true}, {"x", 0, 1}};
  const int r = 20;
  const MorrisDesign d = Design(factors, r, 4, 5);
  int with_zero = 0;  // trajectories with base 0: those where n is 0 somewhere
  for (int t = 0; t < r; ++t) {
    bool zero = false;
    for (int j = 0; j < 3; ++j) {
      const double n = d.points[t * 3 + j][0];
      EXPECT_TRUE(n == 0 || n == 1) << n;
      zero = zero || n == 0;
    }
    with_zero += zero;
  }
  ASSERT_GT(with_zero, 0);
  ASSERT_LT(with_zero, r);  // this seed has steps of both kinds
  auto e = MorrisEffects(d, Evaluate(d, [](const Point& p) { return p[0] + p[1]; }));
  ASSERT_TRUE(e.ok()) << e.status().message();
  ExpectEffect(e.value()[0], "n", 1.8, 1.8, 0, with_zero);
  ExpectEffect(e.value()[1], "x", 1, 1, 0, r);
}

TEST(MorrisEffects, IntegerFactorOnHandBuiltDesign) {
  // gpus (integer, [1, 4]) and load ([0, 1]); y = 10 gpus + 5 load.
  //   t0: (1, 0) -gpus-> (3, 0) -load-> (3, 2/3)
  //       EE_gpus = (30 - 10) / ((3 - 1) / 3) = 30, EE_load = (10/3) / (2/3) = 5
  //   t1: (2, 1) -load-> (2, 1/3) -gpus-> (2, 1/3)   (gpus did not change)
  //       EE_load = (5/3 - 5) / (-2/3) = 5, the gpus step is skipped
  // gpus: n = 1, mu = mu* = 30, sigma = 0 (n < 2); load: n = 2, 5, 5, 0.
  const double t = 1.0 / 3;
  MorrisDesign d;
  d.factors = {{"gpus", 1, 4, true}, {"load", 0, 1}};
  d.levels = 4;
  d.trajectories = 2;
  d.points = {{1, 0}, {3, 0}, {3, 2 * t}, {2, 1}, {2, t}, {2, t}};
  d.moved = {{0, 1}, {1, 0}};
  auto e = MorrisEffects(d, Evaluate(d, [](const Point& p) { return 10 * p[0] + 5 * p[1]; }));
  ASSERT_TRUE(e.ok()) << e.status().message();
  ExpectEffect(e.value()[0], "gpus", 30, 30, 0, 1);
  ExpectEffect(e.value()[1], "load", 5, 5, 0, 2);
}

TEST(MorrisTrajectories, IntegerValuesAreWholeAndInRange) {
  // Integer k in [-1.4, 0.1], 4 levels: -1.4, -0.9, -0.4, 0.1 round to
  // -1, -1, -0, 0; kept within [ceil(-1.4), floor(0.1)] = [-1, 0], and -0 is
  // stored as +0 (so it never prints "-0").
  const std::vector<MorrisFactor> factors = {{"k", -1.4, 0.1, true}, {"m", 10, 20, true}};
  const MorrisDesign d = Design(factors, 20, 4, 11);
  std::set<double> seen_k;
  for (const Point& p : d.points) {
    EXPECT_TRUE(p[0] == -1 || p[0] == 0) << p[0];
    EXPECT_FALSE(std::signbit(p[0]) && p[0] == 0);
    seen_k.insert(p[0]);
    // m in [10, 20]: 10, 13.33, 16.67, 20 round to 10, 13, 17, 20.
    EXPECT_TRUE(p[1] == 10 || p[1] == 13 || p[1] == 17 || p[1] == 20) << p[1];
  }
  EXPECT_EQ(seen_k, (std::set<double>{-1, 0}));
}

TEST(MorrisEffects, NoEffectWhenEveryStepRoundsAway) {
  // Integer [0.3, 1.3] holds one integer, 1: every value is 1, every step
  // is skipped, n = 0 and the statistics stay 0.
  const MorrisDesign d = Design({{"one", 0.3, 1.3, true}, {"x", 0, 1}}, 4, 4, 2);
  for (const Point& p : d.points) EXPECT_EQ(p[0], 1);
  auto e = MorrisEffects(d, Evaluate(d, [](const Point& p) { return p[0] + p[1]; }));
  ASSERT_TRUE(e.ok()) << e.status().message();
  ExpectEffect(e.value()[0], "one", 0, 0, 0, 0);
  ExpectEffect(e.value()[1], "x", 1, 1, 0, 4);
}

TEST(MorrisRanking, ByMuStarThenName) {
  std::vector<MorrisEffect> effects(4);
  effects[0] = {"z", 0, 1, 0, 2};
  effects[1] = {"b", 0, 2, 0, 2};
  effects[2] = {"a", 0, 1, 0, 2};
  effects[3] = {"m", 0, 0, 0, 2};
  EXPECT_EQ(MorrisRanking(effects), (std::vector<int>{1, 2, 0, 3}));  // b, a, z, m
  EXPECT_TRUE(MorrisRanking({}).empty());
}

TEST(MorrisTrajectories, FieldErrors) {
  EXPECT_TRUE(Has(DesignError(kAbc, 1, 4),
                  "morris: field 'trajectories': expected an integer >= 2, got 1"));
  EXPECT_TRUE(Has(DesignError(kAbc, 0, 4), "field 'trajectories'"));
  EXPECT_TRUE(
      Has(DesignError(kAbc, 4, 3), "morris: field 'levels': expected an even number >= 2, got 3"));
  EXPECT_TRUE(Has(DesignError(kAbc, 4, 0), "field 'levels': expected an even number >= 2, got 0"));
  EXPECT_TRUE(
      Has(DesignError(kAbc, 4, -2), "field 'levels': expected an even number >= 2, got -2"));
  EXPECT_TRUE(Has(DesignError({}, 4, 4), "morris: field 'factors': expected at least one factor"));
}

TEST(MorrisTrajectories, FactorErrors) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_TRUE(Has(DesignError({{"a", 0, 1}, {"", 0, 1}}, 4, 4),
                  "morris factor #2: expected a non-empty name"));
  EXPECT_TRUE(Has(DesignError({{"a", 0, 1}, {"b", 0, 1}, {"a", 2, 3}}, 4, 4),
                  "morris factor 'a': duplicate name"));
  EXPECT_TRUE(Has(DesignError({{"seed", 3, 1}}, 4, 4),
                  "morris factor 'seed': expected lo < hi, got [3, 1]"));
  EXPECT_TRUE(
      Has(DesignError({{"x", 2, 2}}, 4, 4), "morris factor 'x': expected lo < hi, got [2, 2]"));
  EXPECT_TRUE(Has(DesignError({{"x", nan, 1}}, 4, 4),
                  "morris factor 'x': expected finite lo and hi, got [nan, 1]"));
  EXPECT_TRUE(Has(DesignError({{"x", 0, inf}}, 4, 4),
                  "morris factor 'x': expected finite lo and hi, got [0, inf]"));
  EXPECT_TRUE(Has(DesignError({{"x", -1e308, 1e308}}, 4, 4),
                  "morris factor 'x': expected a finite hi - lo"));
  EXPECT_TRUE(Has(DesignError({{"n", 0, 0.5, true}}, 4, 4),
                  "morris factor 'n': an integer factor needs hi - lo >= 1, got [0, 0.5]"));
  // hi - lo = 1 is enough for an integer factor.
  EXPECT_TRUE(MorrisTrajectories({{"n", 0, 1, true}}, 4, 4, 1).ok());
}

TEST(MorrisEffects, OutputErrors) {
  const MorrisDesign d = Design({{"a", 0, 1}}, 2, 4, 1);  // 2 x (1 + 1) = 4 points
  EXPECT_TRUE(
      Has(EffectsError(d, {1, 2, 3}), "morris: expected 4 outputs (one per design point), got 3"));
  EXPECT_TRUE(Has(EffectsError(d, {1, 2, 3, 4, 5}), "expected 4 outputs"));
  EXPECT_TRUE(Has(EffectsError(d, {1, 2, std::nan(""), 4}), "output of point 2 is not finite"));
  EXPECT_TRUE(Has(EffectsError(d, {std::numeric_limits<double>::infinity(), 2, 3, 4}),
                  "output of point 0 is not finite"));
  MorrisDesign broken = d;
  broken.points.pop_back();
  EXPECT_TRUE(Has(EffectsError(broken, {1, 2, 3}), "morris design: expected 4 points"));
  broken = d;
  broken.moved[1] = {5};
  EXPECT_TRUE(Has(EffectsError(broken, {1, 2, 3, 4}), "morris design: trajectory 1"));
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim::sweep
