// Calibration on Philly windows: the start-window join on the fixture (hand
// computed), and the data test on the real DRE windows (docs/model.md
// "Calibration" records the numbers asserted here; run
//   build/tests/tools_tests --gtest_filter='PhillyCalibration*'
// to print them).
#include "utilsim/io/philly_scenario.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>

#include "testutil/testutil.h"
#include "utilsim/traces/philly.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

using testutil::Fixture;

TEST(PhillyStartWindows, HandComputedOnTheFixture) {
  auto jobs = traces::ReadPhillyJobs(Fixture("philly/jobs.json"));
  ASSERT_TRUE(jobs.ok()) << jobs.status().message();
  const Workload& w = jobs.value().workload;
  auto spec = traces::ReadPhillyMachines(Fixture("philly/machines.csv"));
  ASSERT_TRUE(spec.ok());
  auto gpu = traces::ReadPhillyWindows(Fixture("philly/gpu_util_window.csv"), w);
  ASSERT_TRUE(gpu.ok());
  traces::Warnings warn;
  auto cpu = traces::ReadPhillyHostWindows(Fixture("philly/cpu_util_window.csv"), &warn);
  ASSERT_TRUE(cpu.ok());
  const auto rows = traces::PhillyStartWindows(gpu.value(), cpu.value(), w, &spec.value());
  ASSERT_EQ(rows.size(), 3u);
  // j1 on m2: GPUs 0..3 at minute 0: (50 + 100 + 0 + 20) / 4 = 42.5 %;
  // minute 2: gpu2 is -1, (50 + 100 + 60) / 3 = 70 %; CPU 10, 20, 30, 40 %.
  EXPECT_EQ(rows[0].job, "j1");
  EXPECT_EQ(rows[0].host, "m2");
  EXPECT_EQ(rows[0].gpus_used, 4);
  EXPECT_EQ(rows[0].host_gpus, 8);
  EXPECT_FLOAT_EQ(rows[0].gpu_busy[0], 0.425f);
  EXPECT_FLOAT_EQ(rows[0].gpu_busy[1], 0.475f);
  EXPECT_FLOAT_EQ(rows[0].gpu_busy[2], 0.7f);
  EXPECT_NEAR(rows[0].gpu_busy[3], 2.3 / 3, 1e-6);
  EXPECT_FLOAT_EQ(rows[0].cpu_busy[0], 0.1f);
  EXPECT_FLOAT_EQ(rows[0].cpu_busy[3], 0.4f);
  // j2 on m3: the pandas cell (40, 60) averages to 50 %; minute 3 is -1.
  EXPECT_EQ(rows[2].job, "j2");
  EXPECT_EQ(rows[2].host, "m3");
  EXPECT_FLOAT_EQ(rows[2].cpu_busy[0], 0.5f);
  EXPECT_TRUE(std::isnan(rows[2].cpu_busy[3]));
  EXPECT_FLOAT_EQ(rows[2].gpu_busy[3], 0.3f);
}

// ---- the real DRE windows -------------------------------------------------

struct Real {
  PhillyScenario scenario;
};

const Real* LoadReal() {
  static std::unique_ptr<Real> real;
  static bool tried = false;
  if (tried) return real.get();
  tried = true;
  const std::string probe =
      testutil::TracePath("philly-derived/dre_job_windows/cpu_util_window.csv");
  if (probe.empty() ||
      testutil::TracePath("philly-derived/dre_job_windows/gpu_util_window.csv").empty() ||
      testutil::TracePath("philly-derived/dre_job_windows/sampled_jobs.json").empty() ||
      testutil::TracePath("philly-derived/machine_list/cluster_machine_list.csv").empty()) {
    return nullptr;
  }
  PhillyScenarioOptions opt;
  opt.dir = testutil::TracesDir() + "/philly-derived";
  auto s = BuildPhillyCpuScenario(opt);
  EXPECT_TRUE(s.ok()) << s.status().message();
  if (!s.ok()) return nullptr;
  real = std::make_unique<Real>(Real{std::move(s).value()});
  return real.get();
}

#define NEED_REAL()                                                                            \
  const Real* real = LoadReal();                                                               \
  if (!real)                                                                                   \
    GTEST_SKIP() << "philly-derived/dre_job_windows not found under " << testutil::TracesDir() \
                 << " (set UTILSIM_TRACES)";                                                   \
  const PhillyScenario& s = real->scenario

FitOptions Theta(double theta, FitScope scope = FitScope::kPooled) {
  FitOptions o;
  o.theta = theta;
  o.scope = scope;
  return o;
}

TEST(PhillyCalibration, JobsAndWindows) {
  NEED_REAL();
  EXPECT_EQ(s.jobs_read, 5910);
  EXPECT_EQ(s.windows.size(), 5838u);  // jobs with a GPU and a CPU sample at minutes 0..3
  EXPECT_EQ(s.fit.n_windows, 36757);
  EXPECT_EQ(s.workload.jobs.size(), 5838u);
  EXPECT_EQ(s.cluster.total_nodes(), 552);
  for (const std::string& n : s.notes) std::printf("  note: %s\n", n.c_str());
}

// Machine CPU saturation goes with LESS GPU idle, not more: the slope is
// negative at every threshold, pooled or within a job.
TEST(PhillyCalibration, SlopeIsNegative) {
  NEED_REAL();
  const CalibrationFit& f = s.fit;  // default: pooled, theta 0.8
  std::printf("  default  %s\n", f.Summary().c_str());
  EXPECT_EQ(f.theta, 0.8);
  EXPECT_TRUE(f.identified);
  EXPECT_EQ(f.n_active, 209);
  EXPECT_NEAR(f.a, 0.606, 0.005);
  EXPECT_LT(f.b, -3.0);
  EXPECT_GT(f.b, -8.0);
  EXPECT_LT(f.r2, 0.01);
  EXPECT_NEAR(f.mean_gpu_idle, 0.605, 0.005);

  const CalibrationFit all = FitInputStalls(s.windows, Theta(0)).value();
  std::printf("  theta 0  %s\n", all.Summary().c_str());
  EXPECT_NEAR(all.a, 0.787, 0.005);
  EXPECT_NEAR(all.b, -0.895, 0.02);
  EXPECT_NEAR(all.r2, 0.123, 0.005);
  EXPECT_LT(all.b + 3 * all.b_se, 0);  // clearly negative with job-clustered errors

  FitOptions scan;
  scan.scan_theta = true;
  const CalibrationFit best = FitInputStalls(s.windows, scan).value();
  for (const ThetaScanRow& r : best.scan) {
    std::printf("  scan theta %.1f: a %.4f b %.4f R^2 %.4f active %lld\n", r.theta, r.a, r.b, r.r2,
                static_cast<long long>(r.n_active));
    EXPECT_LT(r.b, 0) << "theta " << r.theta;
  }
  EXPECT_EQ(best.theta, 0.0);  // best R^2 at no threshold

  for (double theta : {0.0, 0.5, 0.8}) {
    const CalibrationFit w = FitInputStalls(s.windows, Theta(theta, FitScope::kWithinJob)).value();
    std::printf("  within   %s\n", w.Summary().c_str());
    EXPECT_LT(w.b, 0) << "theta " << theta;
  }
  const CalibrationFit w0 = FitInputStalls(s.windows, Theta(0, FitScope::kWithinJob)).value();
  EXPECT_NEAR(w0.b, -0.66, 0.03);

  FitOptions weighted = Theta(0);
  weighted.job_weighted = true;
  const CalibrationFit jw = FitInputStalls(s.windows, weighted).value();
  std::printf("  job-weighted %s\n", jw.Summary().c_str());
  EXPECT_LT(jw.b, 0);

  FitOptions excl = Theta(0);
  excl.exclusive_hosts_only = true;
  const CalibrationFit ex = FitInputStalls(s.windows, excl).value();
  std::printf("  exclusive hosts %s\n", ex.Summary().c_str());
  EXPECT_LT(ex.b, 0);

  for (auto [lo, hi] : {std::pair{2, 2}, {4, 4}, {8, 8}, {9, 0}}) {
    FitOptions cls = Theta(0);
    cls.min_job_gpus = lo;
    cls.max_job_gpus = hi;
    const CalibrationFit c = FitInputStalls(s.windows, cls).value();
    std::printf("  GPUs %d..%d %s\n", lo, hi, c.Summary().c_str());
    EXPECT_LT(c.b, 0);
  }
}

TEST(PhillyCalibration, ScenarioAttributesNothingAndTheBoundIsSmall) {
  NEED_REAL();
  // The fit attributes no idle GPU time to CPU input: b < 0.
  EXPECT_EQ(s.applied.input_set, 5838);
  EXPECT_EQ(s.applied.above_0_1, 0);
  EXPECT_EQ(s.applied.mean_input_cpu, 0.0);
  int64_t host_cpu = 0;
  for (const Job& j : s.workload.jobs) {
    ASSERT_TRUE(j.util_known) << j.name;
    EXPECT_EQ(j.stalls.input_cpu, 0.0f) << j.name;
    EXPECT_EQ(j.task.cpu_milli, 3000 * j.task.gpus) << j.name;
    host_cpu += j.host_cpu_used_milli >= 0;
  }
  EXPECT_EQ(host_cpu, 5838);
  // h = measured CPU used / requested (the overlapped model's input stage):
  // the machine CPU share, at most 1 by construction.
  std::vector<double> h;
  for (const Job& j : s.workload.jobs) {
    h.push_back(static_cast<double>(j.host_cpu_used_milli) / static_cast<double>(j.task.cpu_milli));
  }
  std::sort(h.begin(), h.end());
  auto q = [&](double p) { return h[static_cast<size_t>(p * static_cast<double>(h.size() - 1))]; };
  std::printf("  h = host CPU used / requested: p10 %.3f p50 %.3f p90 %.3f p99 %.3f max %.3f\n",
              q(0.1), q(0.5), q(0.9), q(0.99), h.back());
  EXPECT_LE(h.back(), 1.0 + 1e-3);
  EXPECT_NEAR(q(0.5), 0.2, 0.05);
  double util_sum = 0;
  for (const Job& j : s.workload.jobs) util_sum += j.util;
  std::printf("  mean util (windows) %.4f\n",
              util_sum / static_cast<double>(s.workload.jobs.size()));
  for (const NodeGroup& g : s.cluster.groups) EXPECT_EQ(g.cpu_milli, 3000 * g.gpus) << g.name;

  // Upper bound: all idle of windows with machine CPU >= theta.
  for (double theta : {0.5, 0.8}) {
    Workload w = s.workload;
    CalibrationFit f = s.fit;
    f.theta = theta;
    ApplyOptions opt;
    opt.rule = Attribution::kSaturatedIdle;
    const ApplyReport rep = ApplyInputStalls(f, s.windows, &w, opt);
    int64_t positive = 0;
    for (const Job& j : w.jobs) {
      positive += j.stalls.input_cpu > 0;
      EXPECT_LE(j.util + j.stalls.input_cpu, 1.0f + 1e-6f) << j.name;
    }
    std::printf("  bound theta %.1f: input_cpu > 0 for %lld jobs, > 0.1 for %lld, mean %.5f\n",
                theta, static_cast<long long>(positive), static_cast<long long>(rep.above_0_1),
                rep.mean_input_cpu);
    if (theta == 0.8) {
      EXPECT_EQ(positive, 79);
      EXPECT_EQ(rep.above_0_1, 15);
    } else {
      EXPECT_EQ(positive, 339);
      EXPECT_EQ(rep.above_0_1, 226);
    }
  }
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
