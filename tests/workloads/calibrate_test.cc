// The CPU input-stall estimator (workloads/calibrate.h): exact least squares
// on a hand-checked case, recovery of planted relations, attribution
// clamping. The data test on the real Philly windows is in
// tests/tools/philly_scenario_test.cc (it needs the traces readers).
#include "utilsim/workloads/calibrate.h"

#include <gtest/gtest.h>

#include <cmath>

#include "utilsim/engine/rng.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

CalibrationWindow Win(double gpu_busy, double cpu_busy, int minute = 0) {
  CalibrationWindow w;
  w.minute = minute;
  w.host = "h";
  w.gpu_busy = gpu_busy;
  w.cpu_busy = cpu_busy;
  w.host_gpus_used = 4;
  w.host_gpus = 8;
  return w;
}

JobWindows JobOf(const std::string& name, std::vector<CalibrationWindow> ws, int gpus = 4) {
  JobWindows j;
  j.job = name;
  j.gpus = gpus;
  j.windows = std::move(ws);
  return j;
}

// Four windows, theta = 0.5 (pooled, unweighted):
//   cpu c:          0.5   0.6   0.7   0.9   -> x = max(0, c - 0.5) = 0, 0.1, 0.2, 0.4
//   GPU busy:       0.8   0.7   0.7   0.4   -> g = 1 - busy        = 0.2, 0.3, 0.3, 0.6
// mean x = 0.175, mean g = 0.35;
// Sxx = 0.175^2 + 0.075^2 + 0.025^2 + 0.225^2 = 0.0875
// Sxy = (-0.175)(-0.15) + (-0.075)(-0.05) + (0.025)(-0.05) + (0.225)(0.25) = 0.085
// Syy = 0.15^2 + 0.05^2 + 0.05^2 + 0.25^2 = 0.09
// b = Sxy / Sxx = 34/35 = 0.971428...;  a = 0.35 - b 0.175 = 0.18
// R^2 = Sxy^2 / (Sxx Syy) = 0.007225 / 0.007875 = 289/315 = 0.917460...
// Windows above theta (c > 0.5): 3.
std::vector<JobWindows> HandCase() {
  return {JobOf("j1", {Win(0.8, 0.5), Win(0.7, 0.6)}), JobOf("j2", {Win(0.7, 0.7), Win(0.4, 0.9)})};
}

TEST(Calibrate, HandCheckedFourWindows) {
  FitOptions opt;
  opt.theta = 0.5;
  opt.min_active = 3;
  auto fit = FitInputStalls(HandCase(), opt);
  ASSERT_TRUE(fit.ok()) << fit.status().message();
  const CalibrationFit& f = fit.value();
  EXPECT_NEAR(f.b, 34.0 / 35.0, 1e-12);
  EXPECT_NEAR(f.a, 0.18, 1e-12);
  EXPECT_NEAR(f.r2, 289.0 / 315.0, 1e-12);
  EXPECT_EQ(f.n_windows, 4);
  EXPECT_EQ(f.n_jobs, 2);
  EXPECT_EQ(f.n_active, 3);
  EXPECT_TRUE(f.identified);
  EXPECT_NEAR(f.mean_gpu_idle, 0.35, 1e-12);
  EXPECT_NEAR(f.mean_cpu, 0.675, 1e-12);
  EXPECT_GT(f.b_se, 0);
  opt.min_active = 4;  // one window short of identified
  EXPECT_FALSE(FitInputStalls(HandCase(), opt).value().identified);
}

TEST(Calibrate, HandCheckedAttribution) {
  FitOptions opt;
  opt.theta = 0.5;
  opt.min_active = 3;
  const CalibrationFit f = FitInputStalls(HandCase(), opt).value();
  Workload w;
  for (const char* n : {"j1", "j2"}) {
    Job j;
    j.name = n;
    w.jobs.push_back(j);  // util unknown: taken from the windows
  }
  const ApplyReport rep = ApplyInputStalls(f, HandCase(), &w);
  EXPECT_EQ(rep.jobs_matched, 2);
  EXPECT_EQ(rep.util_set, 2);
  EXPECT_EQ(rep.input_set, 2);
  // j1: util = (0.8 + 0.7) / 2 = 0.75; i = (min(0.2, 0) + min(0.3, 0.1 b)) / 2 = 0.05 b
  EXPECT_FLOAT_EQ(w.jobs[0].util, 0.75f);
  EXPECT_NEAR(w.jobs[0].stalls.input_cpu, 0.05 * 34.0 / 35.0, 1e-6);
  // j2: util 0.55; i = (min(0.3, 0.2 b) + min(0.6, 0.4 b)) / 2 = 0.3 b
  EXPECT_FLOAT_EQ(w.jobs[1].util, 0.55f);
  EXPECT_NEAR(w.jobs[1].stalls.input_cpu, 0.3 * 34.0 / 35.0, 1e-6);
  EXPECT_EQ(rep.above_0_1, 1);
  // Other parts stay unknown.
  EXPECT_EQ(w.jobs[1].stalls.comm, -1.0f);
  EXPECT_EQ(w.jobs[1].stalls.input_storage, -1.0f);
}

// g = a + b max(0, c - theta) + noise over many jobs: the pooled fit
// recovers a and b, and scanning theta finds the planted threshold.
TEST(Calibrate, RecoversPlantedRelation) {
  constexpr double kA = 0.3, kB = 1.5, kTheta = 0.6;
  Rng rng(7, 0, "calibrate-test");
  std::vector<JobWindows> jobs;
  for (int j = 0; j < 500; ++j) {
    std::vector<CalibrationWindow> ws;
    for (int m = 0; m < 4; ++m) {
      const double c = rng.Uniform01();
      const double g = kA + kB * std::max(0.0, c - kTheta) + rng.Normal(0, 0.03);
      ws.push_back(Win(std::clamp(1.0 - g, 0.0, 1.0), c, m));
    }
    jobs.push_back(JobOf("job" + std::to_string(j), std::move(ws)));
  }
  FitOptions opt;
  opt.theta = kTheta;
  const CalibrationFit f = FitInputStalls(jobs, opt).value();
  EXPECT_NEAR(f.a, kA, 0.01);
  EXPECT_NEAR(f.b, kB, 0.05);
  EXPECT_GT(f.r2, 0.8);
  EXPECT_LT(f.b_se, 0.05);
  EXPECT_TRUE(f.identified);
  EXPECT_EQ(f.n_windows, 2000);

  opt.scan_theta = true;
  const CalibrationFit s = FitInputStalls(jobs, opt).value();
  EXPECT_DOUBLE_EQ(s.theta, kTheta);
  EXPECT_EQ(s.scan.size(), opt.theta_grid.size());
  EXPECT_NEAR(s.b, kB, 0.05);

  // Job weighting changes nothing when every job has 4 windows.
  opt.scan_theta = false;
  opt.job_weighted = true;
  EXPECT_NEAR(FitInputStalls(jobs, opt).value().b, f.b, 1e-9);
}

// Jobs whose own level of idle rises with their CPU level (a confounder):
// the pooled slope is biased, the within-job slope recovers the planted b.
TEST(Calibrate, WithinJobRemovesJobLevels) {
  constexpr double kB = 0.5;
  Rng rng(11, 0, "calibrate-within");
  std::vector<JobWindows> jobs;
  for (int j = 0; j < 400; ++j) {
    const double level = rng.Uniform(0.2, 0.8);  // job's typical CPU
    const double alpha = 0.5 * (level - 0.2);    // and its idle level
    std::vector<CalibrationWindow> ws;
    for (int m = 0; m < 4; ++m) {
      const double c = std::clamp(level + rng.Uniform(-0.2, 0.2), 0.0, 1.0);
      const double g = alpha + kB * c + rng.Normal(0, 0.01);
      ws.push_back(Win(std::clamp(1.0 - g, 0.0, 1.0), c, m));
    }
    jobs.push_back(JobOf("job" + std::to_string(j), std::move(ws)));
  }
  FitOptions opt;
  opt.theta = 0;
  const CalibrationFit pooled = FitInputStalls(jobs, opt).value();
  EXPECT_GT(pooled.b, 0.75);  // about 0.5 + 0.5 x 0.03 / 0.043: job levels leak into b
  opt.scope = FitScope::kWithinJob;
  const CalibrationFit within = FitInputStalls(jobs, opt).value();
  EXPECT_NEAR(within.b, kB, 0.02);
  EXPECT_EQ(within.scope, FitScope::kWithinJob);
  EXPECT_NE(within.Summary().find("within-job theta=0.00"), std::string::npos);
}

TEST(Calibrate, FiltersByClassAndExclusiveHosts) {
  std::vector<JobWindows> jobs = HandCase();
  jobs.push_back(JobOf("big", {Win(0.1, 0.95), Win(0.2, 0.9), Win(0.3, 0.1)}, 16));
  jobs.back().windows[0].host_gpus_used = 8;  // the only exclusive window
  FitOptions opt;
  opt.theta = 0.5;
  opt.max_job_gpus = 8;
  EXPECT_EQ(FitInputStalls(jobs, opt).value().n_windows, 4);
  opt.max_job_gpus = 0;
  opt.min_job_gpus = 16;
  EXPECT_EQ(FitInputStalls(jobs, opt).value().n_windows, 3);
  opt.min_job_gpus = 0;
  opt.exclusive_hosts_only = true;
  auto one = FitInputStalls(jobs, opt);
  ASSERT_FALSE(one.ok());  // 1 window
  EXPECT_NE(one.status().message().find("1 windows selected"), std::string::npos);
}

TEST(Calibrate, NoSpreadAboveThetaIsNotIdentified) {
  FitOptions opt;
  opt.theta = 0.95;  // every cpu below: x = 0 everywhere
  auto fit = FitInputStalls(HandCase(), opt);
  ASSERT_TRUE(fit.ok());
  EXPECT_FALSE(fit.value().identified);
  EXPECT_EQ(fit.value().b, 0);
  EXPECT_EQ(fit.value().n_active, 0);
  // Not identified: nothing attributed, stalls stay unknown, util is set.
  Workload w;
  Job j;
  j.name = "j2";
  w.jobs.push_back(j);
  const ApplyReport rep = ApplyInputStalls(fit.value(), HandCase(), &w);
  EXPECT_EQ(rep.input_set, 0);
  EXPECT_EQ(w.jobs[0].stalls.input_cpu, -1.0f);
  EXPECT_TRUE(w.jobs[0].util_known);
}

TEST(Calibrate, Errors) {
  FitOptions opt;
  opt.theta = 1.5;
  EXPECT_NE(FitInputStalls(HandCase(), opt).status().message().find("theta"), std::string::npos);
  opt.theta = 0.5;
  opt.scan_theta = true;
  opt.theta_grid.clear();
  EXPECT_FALSE(FitInputStalls(HandCase(), opt).ok());
  opt.scan_theta = false;
  std::vector<JobWindows> bad = HandCase();
  bad[1].windows[0].cpu_busy = std::nan("");
  auto r = FitInputStalls(bad, opt);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("job 'j2'"), std::string::npos) << r.status().message();
  EXPECT_FALSE(FitInputStalls({}, opt).ok());
}

// A steep fit on jobs with known util and other parts: input_cpu never
// exceeds 1 - util - storage - comm, and negative slopes attribute nothing.
TEST(Calibrate, ApplyClampsToWhatIsLeft) {
  CalibrationFit f;
  f.theta = 0.2;
  f.b = 10;  // would attribute everything
  f.identified = true;
  std::vector<JobWindows> jw = {JobOf("a", {Win(0.0, 1.0), Win(0.0, 0.9)}),
                                JobOf("b", {Win(0.1, 1.0)}), JobOf("c", {Win(0.3, 0.7)}),
                                JobOf("not-in-workload", {Win(0.5, 0.5)})};
  Workload w;
  auto add = [&](const char* n, float util, float sto, float comm) {
    Job j;
    j.name = n;
    j.util = util;
    j.util_known = true;
    j.stalls.input_storage = sto;
    j.stalls.comm = comm;
    w.jobs.push_back(j);
  };
  add("a", 0.7f, -1, -1);  // measured util over the run disagrees with the windows
  add("b", 0.3f, 0.2f, 0.15f);
  add("c", 0.9f, 0.05f, 0.05f);  // nothing left
  const ApplyReport rep = ApplyInputStalls(f, jw, &w);
  EXPECT_EQ(rep.jobs_matched, 3);
  EXPECT_EQ(rep.util_set, 0);  // known utils are kept
  EXPECT_EQ(rep.input_set, 3);
  EXPECT_EQ(rep.clamped, 3);
  for (const Job& j : w.jobs) {
    const double parts = j.util + j.stalls.input_cpu + std::max(0.0f, j.stalls.input_storage) +
                         std::max(0.0f, j.stalls.comm);
    EXPECT_LE(parts, 1.0 + 1e-6) << j.name;
    EXPECT_GE(j.stalls.input_cpu, 0.0f) << j.name;
  }
  EXPECT_NEAR(w.jobs[0].stalls.input_cpu, 0.3, 1e-6);
  EXPECT_NEAR(w.jobs[1].stalls.input_cpu, 0.35, 1e-6);
  EXPECT_LE(w.jobs[2].stalls.input_cpu, 1e-6f);

  f.b = -3;  // more CPU, less idle: nothing is CPU starvation
  const ApplyReport neg = ApplyInputStalls(f, jw, &w);
  EXPECT_EQ(neg.input_set, 3);
  for (const Job& j : w.jobs) EXPECT_EQ(j.stalls.input_cpu, 0.0f) << j.name;
}

// The upper bound: all idle of windows at or above theta.
TEST(Calibrate, SaturatedIdleUpperBound) {
  CalibrationFit f;
  f.theta = 0.8;
  f.b = -1;
  f.identified = false;  // the bound does not need an identified fit
  std::vector<JobWindows> jw = {JobOf("a", {Win(0.4, 0.85), Win(0.1, 0.5)})};
  Workload w;
  Job j;
  j.name = "a";
  j.task.gpus = 4;
  j.util = 0.25f;
  j.util_known = true;
  w.jobs.push_back(j);
  ApplyOptions opt;
  opt.rule = Attribution::kSaturatedIdle;
  opt.cpu_milli_per_gpu = 3000;
  const ApplyReport rep = ApplyInputStalls(f, jw, &w, opt);
  EXPECT_EQ(rep.input_set, 1);
  EXPECT_NEAR(w.jobs[0].stalls.input_cpu, 0.3, 1e-6);  // (0.6 + 0) / 2
  // host CPU per task: mean cpu 0.675 x 3000 milli x 4 GPUs = 8100
  EXPECT_EQ(w.jobs[0].host_cpu_used_milli, 8100);
  EXPECT_EQ(rep.host_cpu_set, 1);
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
