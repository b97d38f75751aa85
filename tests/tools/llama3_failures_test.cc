// The Llama 3 case (docs/cluster-events.md, "The Llama 3 case"): one
// synchronous job on 2,048 servers x 8 H100 for 54 days under the published
// root-cause counts of its 419 unexpected interruptions, turned into rates
// (tests/fixtures/llama3/failures.yaml). The interruptions the run sees are a
// Poisson draw of mean 419: they must fall in its 95 % band, and the effective
// training time ratio must match the one an independent back-of-envelope
// gives for the stated checkpoint assumptions.
#include <gtest/gtest.h>

#include <cmath>

#include "testutil/testutil.h"
#include "utilsim/engine/cluster_events.h"
#include "utilsim/engine/simulator.h"
#include "utilsim/policies/registry.h"
#include "utilsim/traces/canonical.h"
#include "utilsim/traces/cluster_events_yaml.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

constexpr int64_t kDays = 54;
constexpr int64_t kCheckpointS = 15 * 60;  // assumption: a checkpoint every 15 min
constexpr int64_t kRestartS = 5 * 60;      // assumption: 5 min to restart

struct Llama3Run {
  RunResult result;
  std::vector<Micros> kills;
};

// The 54-day run of tests/fixtures/llama3 with failures drawn with `seed`.
Llama3Run RunLlama3(uint64_t seed) {
  Llama3Run out;
  auto cluster = traces::ReadClusterYaml(testutil::Fixture("llama3/cluster.yaml"));
  auto w = traces::ReadJobsCsv(testutil::Fixture("llama3/job.csv"));
  auto model = ReadClusterEventsYaml(testutil::Fixture("llama3/failures.yaml"));
  EXPECT_TRUE(cluster.ok() && w.ok() && model.ok());
  if (!cluster.ok() || !w.ok() || !model.ok()) return out;
  const Micros end = Seconds(kDays * 86400);
  auto events = DrawFailures(model.value().failures, cluster.value(), Micros(0), end, seed);
  EXPECT_TRUE(events.ok()) << events.status().message();
  if (!events.ok()) return out;

  SimConfig cfg;
  cfg.horizon = end;
  cfg.window = Window::kFull;
  cfg.sample_interval = Seconds(3600);
  cfg.comm_fraction = 0;  // the job progresses at one recorded second per second
  cfg.checkpoint_interval = Seconds(kCheckpointS);
  cfg.restart_cost = Seconds(kRestartS);
  cfg.cluster_events = events.value();
  cfg.observer = [&](const EngineEvent& e, RunControl&) {
    if (e.kind == EventKind::kInterrupt) out.kills.push_back(e.time);
  };
  auto s = BuiltinPolicies().Make("best-fit");
  EXPECT_TRUE(s.ok());
  auto r = Simulate(cluster.value(), w.value(), *s.value(), cfg);
  EXPECT_TRUE(r.ok()) << r.status().message();
  if (r.ok()) out.result = std::move(r).value();
  return out;
}

TEST(Llama3Failures, InterruptionsInThePoissonBandAndTheEttrTheyImply) {
  const Llama3Run run = RunLlama3(1);
  ASSERT_EQ(run.result.jobs.size(), 1u);
  const JobRecord& job = run.result.jobs[0];
  const std::vector<Micros>& kills = run.kills;

  // 419 +- 1.96 sqrt(419): the 95 % band of a Poisson count of mean 419.
  const double band = 1.96 * std::sqrt(419.0);
  EXPECT_GE(job.interruptions, 419 - band);
  EXPECT_LE(job.interruptions, 419 + band);
  EXPECT_EQ(job.interruptions, 387);  // seed 1
  EXPECT_EQ(static_cast<size_t>(job.interruptions), kills.size());
  EXPECT_EQ(run.result.summary.interruptions, job.interruptions);

  // Each kill loses the work since the last checkpoint plus the restart.
  // The job restarts at once on spares (64 spare servers), so between kills
  // it runs: the work it had at kill i is what it kept at kill i-1 plus
  // the time since. Recomputed here from the kill times alone.
  double done = 0, lost = 0;
  Micros since{0};
  for (Micros t : kills) {
    done += (t - since).seconds();
    const double keep = std::max(0.0, std::floor(done / kCheckpointS) * kCheckpointS - kRestartS);
    lost += done - keep;
    done = keep;
    since = t;
  }
  EXPECT_NEAR(job.lost_gpu_s, lost * 16384, 1e-6 * lost * 16384);
  const double span = static_cast<double>(kDays * 86400);
  EXPECT_NEAR(job.ettr, 1 - lost / span, 1e-9);
  // The back-of-envelope: each interruption loses half a checkpoint
  // interval on average, plus the restart.
  const double expected = 1 - 419.0 * (kCheckpointS / 2.0 + kRestartS) / span;
  EXPECT_NEAR(job.ettr, expected, 0.01);
  EXPECT_GT(job.ettr, 0.9);  // the paper: "higher than 90% effective training time"
}

// The rates are unbiased: over ten seeds the mean count is 419 within three
// standard errors of a Poisson mean (sqrt(419 / 10)).
TEST(Llama3Failures, TheMeanOverSeedsIsThePublishedCount) {
  double sum = 0;
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    const Llama3Run run = RunLlama3(seed);
    ASSERT_EQ(run.result.jobs.size(), 1u);
    sum += run.result.jobs[0].interruptions;
  }
  EXPECT_NEAR(sum / 10, 419, 3 * std::sqrt(419.0 / 10));
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
