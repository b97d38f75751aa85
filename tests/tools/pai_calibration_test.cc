// Calibration of CPU input stalls from lifetime averages (the PAI sensor
// table): the PAI reader fills util and measured CPU, LifetimeWindows turns
// them into one window per job, and the estimator of workloads/calibrate.h
// runs on them. Values hand-computed from tests/fixtures/pai.
#include <gtest/gtest.h>

#include <cmath>

#include "testutil/testutil.h"
#include "utilsim/traces/pai.h"
#include "utilsim/workloads/calibrate.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

Result<traces::TraceData> ReadFixture() {
  traces::PaiPaths p;
  p.job = testutil::Fixture("pai/pai_job_table.csv");
  p.task = testutil::Fixture("pai/pai_task_table.csv");
  p.instance = testutil::Fixture("pai/pai_instance_table.csv");
  p.sensor = testutil::Fixture("pai/pai_sensor_table.csv");
  return traces::ReadPai(p);
}

TEST(PaiCalibration, OneWindowPerGpuJobWithMeasuredCpuAndGpu) {
  auto data = ReadFixture();
  ASSERT_TRUE(data.ok()) << data.status().message();
  const std::vector<JobWindows> jobs = LifetimeWindows(data.value().workload);
  // jobA/worker: cpu_usage 140, 160 (% of a core) -> 1.5 cores of plan_cpu
  // 600 (6 cores): 0.25; gpu_wrk_util 20, 30 of plan_gpu 50: 0.4, 0.6 -> 0.5.
  // jobB: 500 of 800 -> 0.625; 150 of 200 -> 0.75. jobD: 100 of 100 -> 1.0;
  // 400 of 150 clamped to 1.0. jobA/ps has no GPU; jobC, jobE no sensor row.
  ASSERT_EQ(jobs.size(), 3u);
  EXPECT_EQ(jobs[0].job, "jobA/worker");
  EXPECT_NEAR(jobs[0].windows[0].cpu_busy, 0.25, 1e-12);
  EXPECT_NEAR(jobs[0].windows[0].gpu_busy, 0.5, 1e-6);
  EXPECT_EQ(jobs[1].job, "jobB/tensorflow");
  EXPECT_NEAR(jobs[1].windows[0].cpu_busy, 0.625, 1e-12);
  EXPECT_NEAR(jobs[1].windows[0].gpu_busy, 0.75, 1e-6);
  EXPECT_EQ(jobs[2].job, "jobD/worker");
  EXPECT_NEAR(jobs[2].windows[0].cpu_busy, 1.0, 1e-12);
  EXPECT_NEAR(jobs[2].windows[0].gpu_busy, 1.0, 1e-6);
}

TEST(PaiCalibration, PooledFitAndAttribution) {
  auto data = ReadFixture();
  ASSERT_TRUE(data.ok()) << data.status().message();
  Workload w = data.value().workload;
  const std::vector<JobWindows> jobs = LifetimeWindows(w);
  FitOptions opt;
  opt.theta = 0.0;
  opt.min_active = 1;
  auto fit = FitInputStalls(jobs, opt);
  ASSERT_TRUE(fit.ok()) << fit.status().message();
  // GPU idle g = 0.5, 0.25, 0 at x = 0.25, 0.625, 1: collinear, slope -2/3,
  // intercept 2/3, R^2 1. More CPU use goes with less GPU idle.
  EXPECT_NEAR(fit.value().b, -2.0 / 3.0, 1e-6);
  EXPECT_NEAR(fit.value().a, 2.0 / 3.0, 1e-6);
  EXPECT_NEAR(fit.value().r2, 1.0, 1e-9);
  EXPECT_TRUE(fit.value().identified);
  // The fit rule attributes nothing on a negative slope; the saturated-idle
  // upper bound at theta 0.5 gives jobB its idle 0.25 and jobD 0.
  Workload by_fit = w;
  ApplyInputStalls(fit.value(), jobs, &by_fit);
  CalibrationFit sat = fit.value();
  sat.theta = 0.5;
  ApplyOptions rule;
  rule.rule = Attribution::kSaturatedIdle;
  ApplyInputStalls(sat, jobs, &w, rule);
  for (size_t j = 0; j < w.jobs.size(); ++j) {
    const std::string& name = w.jobs[j].name;
    if (name == "jobA/worker") {
      EXPECT_FLOAT_EQ(by_fit.jobs[j].stalls.input_cpu, 0.0f);
      EXPECT_FLOAT_EQ(w.jobs[j].stalls.input_cpu, 0.0f);  // cpu 0.25 < 0.5
    } else if (name == "jobB/tensorflow") {
      EXPECT_FLOAT_EQ(by_fit.jobs[j].stalls.input_cpu, 0.0f);
      EXPECT_NEAR(w.jobs[j].stalls.input_cpu, 0.25, 1e-6);
    } else if (name == "jobD/worker") {
      EXPECT_FLOAT_EQ(w.jobs[j].stalls.input_cpu, 0.0f);
    }
  }
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
