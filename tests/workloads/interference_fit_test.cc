// Calibration of the interference model on the Lucid co-location data
// (workloads/interference_fit.h): the join and CSV errors on a hand-written
// fixture (tests/fixtures/lucid/), exact recovery of planted parameters, the
// non-negativity rule, and the fit on the real data with its fit and
// hold-out errors pinned below the values docs/sharing.md states.
#include "utilsim/workloads/interference_fit.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>

#include "testutil/testutil.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

std::string FixtureDir() { return testutil::Fixture("lucid"); }

TEST(LucidReader, JoinsPairsToSoloRowsAndSaysWhyOthersDoNot) {
  auto data = ReadLucidProfiles(FixtureDir());
  ASSERT_TRUE(data.ok()) << data.status().message();
  const LucidProfiles& d = data.value();
  ASSERT_EQ(d.solo.size(), 3u);
  EXPECT_EQ(d.solo[1].config.Key(), "B/D2/64/1");
  EXPECT_EQ(d.solo[1].gpu_util_pct, 80.0);
  EXPECT_EQ(d.solo[1].line, 3);
  ASSERT_EQ(d.pairs.size(), 5u);
  EXPECT_EQ(d.pairs[4].job1.model, "C");  // quoted field
  EXPECT_EQ(d.pairs[3].gpu_num1, 2);

  auto joined = JoinLucid(d);
  ASSERT_TRUE(joined.ok()) << joined.status().message();
  const LucidJoinReport& r = joined.value().report;
  EXPECT_EQ(r.pairs, 5);
  EXPECT_EQ(r.joined, 2);
  EXPECT_EQ(r.no_solo_job2, 1);
  EXPECT_EQ(r.no_solo_job1, 1);
  EXPECT_EQ(r.multi_gpu, 1);
  EXPECT_EQ(r.observations, 4);
  EXPECT_TRUE(r.unmeasured_models.empty());  // C is 1.0 once: too few to judge
  ASSERT_EQ(r.examples.size(), 3u);
  EXPECT_EQ(r.examples[0], d.pair_path + ":3: job 2 B/D2/128/1 has no solo row");
  EXPECT_EQ(r.examples[1], d.pair_path + ":4: job 1 Z/D9/32/0 has no solo row");

  // Pair A + B (line 2). A: u 0.6, m 0.4; B: u 0.8, m 0.2. With alpha 0.1,
  // beta 0.3, gamma 0.3: T_A = 1.204, T_B = 1.264 (as in
  // tests/engine/interference_test.cc); measured 0.83 and 0.79.
  const std::vector<ColocationObs>& obs = joined.value().obs;
  ASSERT_EQ(obs.size(), 4u);
  EXPECT_EQ(obs[0].model, "A");
  EXPECT_EQ(obs[0].pair, 0u);
  EXPECT_EQ(obs[0].other.gpu_mem_mib, 5000);
  InterferenceParams p;
  p.alpha = 0.1;
  p.beta = 0.3;
  p.gamma = 0.3;
  const ColocationErrors e = EvaluateSpeeds({obs[0], obs[1]}, p);
  EXPECT_EQ(e.n, 2);
  const double ea = 1 / 1.204 - 0.83, eb = 1 / 1.264 - 0.79;
  EXPECT_NEAR(e.mae, (std::abs(ea) + std::abs(eb)) / 2, 1e-12);
  EXPECT_NEAR(e.mape, (std::abs(ea) / 0.83 + std::abs(eb) / 0.79) / 2, 1e-12);
  EXPECT_NEAR(e.bias, (ea + eb) / 2, 1e-12);
}

TEST(LucidReader, MalformedFieldNamesFileLineAndField) {
  const std::string bad = FixtureDir() + "/bad_colocate_info.csv";
  auto r = ReadLucidPairs(bad);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            bad + ":3: field 'speed1': expected a normalised speed > 0, got 'fast'");
  const std::string bad_solo = FixtureDir() + "/bad_single_data.csv";
  auto s = ReadLucidSolo(bad_solo);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().message(),
            bad_solo + ":3: field 'gpu_util': expected a percentage in [0, 100], got '130'");
}

TEST(LucidReader, StructuralErrors) {
  const std::string dir = testutil::TempDir();
  const std::string short_row = testutil::WriteFile(
      dir + "/short.csv",
      "model,dataset,batchsize,amp,speed,gpu_util,gmem_util,gmem,label\r\nA,D,32,0,1,50\r\n");
  auto a = ReadLucidSolo(short_row);
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().message(), short_row + ":2: expected 9 fields (as in the header), got 6");
  const std::string no_col =
      testutil::WriteFile(dir + "/nocol.csv", "model,dataset,batchsize,amp,speed\nA,D,32,0,1\n");
  auto b = ReadLucidSolo(no_col);
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().message(), no_col + ": missing column 'gpu_util'");
  auto c = ReadLucidSolo(dir + "/absent.csv");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().message(), dir + "/absent.csv: cannot open: No such file or directory");
  const std::string dup =
      testutil::WriteFile(dir + "/dup.csv",
                          "model,dataset,batchsize,amp,speed,gpu_util,gmem_util,gmem,label\n"
                          "A,D,32,0,1,50,10,100,0\nA,D,32,0,2,60,10,100,0\n");
  auto solo = ReadLucidSolo(dup);
  ASSERT_TRUE(solo.ok()) << solo.status().message();
  LucidProfiles d;
  d.solo = solo.value();
  d.solo_path = dup;
  auto j = JoinLucid(d);
  ASSERT_FALSE(j.ok());
  EXPECT_EQ(j.status().message(), dup + ":3: duplicate configuration A/D/32/0 (first at line 2)");
}

// Five configurations, all ten pairs, speeds computed by the model itself.
LucidProfiles Planted(const InterferenceParams& p, bool drop_alpha_sign = false) {
  const double u[] = {0.2, 0.45, 0.6, 0.85, 1.0};
  const double m[] = {0.05, 0.3, 0.1, 0.6, 0.4};
  LucidProfiles d;
  for (int i = 0; i < 5; ++i) {
    LucidSolo s;
    s.config = {"M" + std::to_string(i), "D", 32, 0};
    s.gpu_util_pct = 100 * u[i];
    s.mem_util_pct = 100 * m[i];
    s.line = i + 2;
    d.solo.push_back(s);
  }
  for (int i = 0; i < 5; ++i) {
    for (int k = i + 1; k < 5; ++k) {
      LucidPair q;
      q.job1 = d.solo[i].config;
      q.job2 = d.solo[k].config;
      const std::vector<CoRunner> both = {CoRunnerOf(d.solo[i]), CoRunnerOf(d.solo[k])};
      if (drop_alpha_sign) {
        // t = -0.1 u_i u_j + 0.4 u_i m_j + 0.2 max(0, U - 1): alpha < 0.
        auto t = [&](const CoRunner& a, const CoRunner& b) {
          return -0.1 * a.gpu_util * b.gpu_util + 0.4 * a.gpu_util * b.mem_util +
                 0.2 * std::max(0.0, a.gpu_util + b.gpu_util - 1);
        };
        q.speed1 = 1 / (1 + t(both[0], both[1]));
        q.speed2 = 1 / (1 + t(both[1], both[0]));
      } else {
        auto s = PredictCoRunSpeeds(both, {}, p);
        q.speed1 = s.value()[0];
        q.speed2 = s.value()[1];
      }
      d.pairs.push_back(q);
    }
  }
  return d;
}

TEST(InterferenceFit, RecoversPlantedParameters) {
  InterferenceParams truth;
  truth.alpha = 0.2;
  truth.beta = 0.1;
  truth.gamma = 0.5;
  InterferenceFitOptions o;
  o.holdout_fraction = 0;
  auto f = FitInterference(Planted(truth), o);
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_NEAR(f.value().params.alpha, 0.2, 1e-10);
  EXPECT_NEAR(f.value().params.beta, 0.1, 1e-10);
  EXPECT_NEAR(f.value().params.gamma, 0.5, 1e-10);
  EXPECT_LT(f.value().fit.model.mae, 1e-12);
  EXPECT_EQ(f.value().fit.model.n, 20);
  EXPECT_EQ(f.value().holdout.model.n, 0);
}

TEST(InterferenceFit, NegativeCoefficientIsDropped) {
  InterferenceFitOptions o;
  o.holdout_fraction = 0;
  auto f = FitInterference(Planted({}, /*drop_alpha_sign=*/true), o);
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_EQ(f.value().params.alpha, 0.0);
  EXPECT_GT(f.value().params.beta, 0.0);
  EXPECT_GE(f.value().params.gamma, 0.0);
}

TEST(InterferenceFit, SplitDoesNotDependOnRowOrder) {
  InterferenceParams truth;
  LucidProfiles d = Planted(truth);
  auto a = FitInterference(d, {});
  std::reverse(d.pairs.begin(), d.pairs.end());
  auto b = FitInterference(d, {});
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a.value().fit.model.n, b.value().fit.model.n);
  EXPECT_EQ(a.value().holdout.pairs, b.value().holdout.pairs);
  EXPECT_NEAR(a.value().holdout.model.mae, b.value().holdout.model.mae, 1e-12);
}

TEST(InterferenceFit, BadOptions) {
  InterferenceFitOptions o;
  o.holdout_fraction = 1.0;
  auto f = FitInterference(Planted({}), o);
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().message(), "interference fit: holdout_fraction: expected [0, 1), got 1");
}

std::string LucidDir() {
  if (testutil::TracePath("lucid-colocation-profiles/colocate_info.csv").empty()) return "";
  return testutil::TracesDir() + "/lucid-colocation-profiles";
}

// The numbers in docs/sharing.md ("Fit and hold-out error").
TEST(InterferenceFitLucid, PairHashSplit) {
  const std::string dir = LucidDir();
  if (dir.empty()) GTEST_SKIP() << "lucid-colocation-profiles not found under $UTILSIM_TRACES";
  auto data = ReadLucidProfiles(dir);
  ASSERT_TRUE(data.ok()) << data.status().message();
  auto fit = FitInterference(data.value(), {});
  ASSERT_TRUE(fit.ok()) << fit.status().message();
  const InterferenceFit& f = fit.value();
  std::cout << FormatInterferenceFit(f);

  EXPECT_EQ(f.join.pairs, 1388);
  EXPECT_EQ(f.join.joined, 1388);
  EXPECT_EQ(f.join.observations, 2458);
  EXPECT_EQ(f.join.unmeasured_speeds, 318);
  EXPECT_EQ(f.join.unmeasured_models, (std::vector<std::string>{"PPO", "TD3"}));
  EXPECT_EQ(f.fit.model.n, 1754);
  EXPECT_EQ(f.holdout.model.n, 704);

  // The engine defaults are this fit (to 4 decimals).
  const InterferenceParams def;
  EXPECT_NEAR(f.params.alpha, def.alpha, 1e-4);
  EXPECT_NEAR(f.params.beta, def.beta, 1e-4);
  EXPECT_NEAR(f.params.gamma, def.gamma, 1e-4);

  EXPECT_LT(f.fit.model.mae, 0.076);
  EXPECT_LT(f.fit.model.mape, 0.083);
  EXPECT_LT(f.holdout.model.mae, 0.073);
  EXPECT_LT(f.holdout.model.mape, 0.080);
  // Better than both naive rules (and the fit-mean constant) on the hold-out.
  EXPECT_LT(f.holdout.model.mae, 0.7 * f.holdout.speed_one.mae);
  EXPECT_LT(f.holdout.model.mae, 0.2 * f.holdout.speed_half.mae);
  EXPECT_LT(f.holdout.model.mae, 0.8 * f.holdout.speed_mean.mae);
  EXPECT_GT(f.holdout.speed_one.mae, 0.10);
}

TEST(InterferenceFitLucid, ModelHashSplit) {
  const std::string dir = LucidDir();
  if (dir.empty()) GTEST_SKIP() << "lucid-colocation-profiles not found under $UTILSIM_TRACES";
  auto data = ReadLucidProfiles(dir);
  ASSERT_TRUE(data.ok()) << data.status().message();
  InterferenceFitOptions o;
  o.split = ColocationSplit::kModelHash;
  auto fit = FitInterference(data.value(), o);
  ASSERT_TRUE(fit.ok()) << fit.status().message();
  const InterferenceFit& f = fit.value();
  std::cout << FormatInterferenceFit(f);
  EXPECT_EQ(f.holdout_models,
            (std::vector<std::string>{"EfficientNet", "MobileNetV2", "PPO", "TD3"}));
  EXPECT_LT(f.fit.model.mae, 0.085);
  EXPECT_LT(f.holdout.model.mae, 0.069);
  EXPECT_LT(f.holdout.model.mape, 0.077);
  EXPECT_LT(f.holdout.model.mae, 0.75 * f.holdout.speed_one.mae);
  EXPECT_LT(f.holdout.model.mae, 0.2 * f.holdout.speed_half.mae);
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
