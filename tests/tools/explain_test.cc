// `utilsim explain` and the wait columns of a results database, on the CLI
// fixture (tests/fixtures/cli: two nodes of 4 GPUs, strict FIFO + best fit):
//   a 0..100 on gpu-0, b 10..60 on gpu-1 (both full);
//   c (2 GPUs, submitted 20) is the head: capacity 20..60, starts at 60;
//   d (2 x 4 GPUs, submitted 30) is behind c: queue-order 30..60, then the
//   head: capacity 60..100 (2, then 4 free GPUs of the 8 it needs).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "testutil/testutil.h"
#include "utilsim/results/result_store.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

using testutil::Fixture;
using testutil::RunCli;

using testutil::Has;

std::string Db() {
  static const std::string db = [] {
    const std::string path = testutil::TempDir() + "/explain.db";
    std::string out;
    EXPECT_EQ(RunCli("compare --trace " + Fixture("cli/jobs.csv") + " --cluster " +
                         Fixture("cli/cluster.yaml") +
                         " --policies best-fit,easy-backfill+best-fit --wait-detail --out " + path,
                     &out),
              0)
        << out;
    return path;
  }();
  return db;
}

double Cause(const JobRecord& r, WaitCause c) { return r.wait_cause_s[static_cast<size_t>(c)]; }

TEST(Explain, WaitColumnsHoldTheHandComputedCauses) {
  auto runs = ReadResults(Db());
  ASSERT_TRUE(runs.ok()) << runs.status().message();
  const auto& jobs = runs.value()[0].jobs;
  EXPECT_DOUBLE_EQ(Cause(jobs[2], WaitCause::kCapacity), 40);
  EXPECT_DOUBLE_EQ(Cause(jobs[3], WaitCause::kQueueOrder), 30);
  EXPECT_DOUBLE_EQ(Cause(jobs[3], WaitCause::kCapacity), 40);
  ASSERT_EQ(jobs[3].waits.size(), 2u);
  // --wait-detail: when d's capacity interval began (60 s), gpu-1 had 2 free
  // GPUs and gpu-0 none: both nodes short of the 4 GPUs a task needs.
  const NodeCounts& n = jobs[3].waits[1].nodes;
  ASSERT_TRUE(n.known);
  EXPECT_EQ(n.gpus, 2);
  EXPECT_EQ(n.fits, 0);
  EXPECT_FALSE(jobs[3].waits[0].nodes.known);  // queue-order: not about resources
  // Per run: c 40 s + d 40 s of capacity, d 30 s of queue order.
  const Summary& s = runs.value()[0].summary;
  EXPECT_DOUBLE_EQ(s.wait_cause_h[static_cast<size_t>(WaitCause::kCapacity)], 80 / 3600.0);
  EXPECT_DOUBLE_EQ(s.wait_cause_h[static_cast<size_t>(WaitCause::kQueueOrder)], 30 / 3600.0);
}

TEST(Explain, PrintsTheTimelineWithTheJobsAhead) {
  std::string out;
  ASSERT_EQ(RunCli("explain --db " + Db() + " --run best-fit --job d", &out), 0) << out;
  EXPECT_TRUE(Has(out, "queue-order")) << out;
  EXPECT_TRUE(Has(out, "ahead of it then: 1 job(s) waiting for resources, first c (capacity)"))
      << out;
  EXPECT_TRUE(Has(out, "0d 00:01:00 .. 0d 00:01:40  capacity (40 s)")) << out;
  EXPECT_TRUE(Has(out, "nodes then: 0 could host a task, 0 excluded by GPU model, 2 short of GPUs"))
      << out;
  // At 60 s a (ends 100) and c (60 + 30 = 90) run: d's 8 GPUs are free at 100.
  EXPECT_TRUE(Has(out,
                  "enough GPUs free at 0d 00:01:40 had the jobs then running ended at their "
                  "recorded runtimes"))
      << out;
  // EASY: c is the head from 20 s; its reservation is b's end, 60 s.
  ASSERT_EQ(RunCli("explain --db " + Db() + " --run easy-backfill+best-fit --job c", &out), 0)
      << out;
  EXPECT_TRUE(Has(out, "the scheduler's estimated start (its reservation): 0d 00:01:00")) << out;
  ASSERT_EQ(RunCli("explain --db " + Db() + " --run best-fit --job '#3' --json", &out), 0) << out;
  const auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["job"], "d");
  EXPECT_DOUBLE_EQ(j["wait_by_cause_s"]["capacity"].get<double>(), 40);
  EXPECT_EQ(j["timeline"].size(), 2u);
  EXPECT_EQ(j["timeline"][0]["ahead"][0]["job"], "c");
  EXPECT_DOUBLE_EQ(j["timeline"][1]["capacity_free_s"].get<double>(), 100);
  EXPECT_TRUE(j["timeline"][1]["estimated_start_s"].is_null());  // strict FIFO reserves nothing
}

TEST(Explain, BadRequestsSayWhatThereIs) {
  std::string out;
  EXPECT_EQ(RunCli("explain --db " + Db() + " --job d", &out), 1) << out;
  EXPECT_TRUE(Has(out,
                  "--run: the database holds 2 runs; say which (best-fit, "
                  "easy-backfill+best-fit)"))
      << out;
  EXPECT_EQ(RunCli("explain --db " + Db() + " --run best-fit --job nope", &out), 1) << out;
  EXPECT_TRUE(Has(out, "--job: no job 'nope' in run 'best-fit' (5 jobs; give a name or #index)"))
      << out;
  EXPECT_EQ(RunCli("explain --db " + Db() + " --run worst --job d", &out), 1) << out;
  EXPECT_EQ(RunCli("explain --job d", &out), 2) << out;  // --db is required
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim

namespace utilsim {
namespace UTILSIM_UNITY_ID {

// `utilsim power-fit` on the Acme summary: the table and a power file that
// `run --power` reads back (docs/energy.md).
TEST(PowerFitCli, PrintsTheCrossCheckAndAPowerFileRunReads) {
  const std::string csv = testutil::TracePath("acmetrace-summary/util_cdf_long.csv");
  if (csv.empty()) GTEST_SKIP() << "acmetrace-summary not found under $UTILSIM_TRACES";
  std::string out;
  ASSERT_EQ(RunCli("power-fit " + csv, &out), 0) << out;
  EXPECT_TRUE(Has(out, "gpu_util   seren           61.2       72.0     224.6")) << out;
  EXPECT_TRUE(Has(out, "gpu_util   seren        kalos         0.3554")) << out;
  ASSERT_EQ(RunCli("power-fit " + csv + " --yaml", &out), 0) << out;
  EXPECT_TRUE(Has(out, "A100-SXM4-80GB: {idle_w: 61.2, context_w: 72.0, active_w: 224.6}")) << out;
  const std::string yaml = testutil::WriteFile(testutil::TempDir() + "/p.yaml", out);
  ASSERT_EQ(RunCli("run --trace builtin:demo --jobs 200 --power " + yaml, &out), 0) << out;
  EXPECT_EQ(RunCli("power-fit " + yaml, &out), 1) << out;  // not the Acme CSV
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim

namespace utilsim {
namespace UTILSIM_UNITY_ID {

// --pue and --energy-price reach the results; diagnose reports the idle
// allocated energy, its cost and the wait causes (docs/diagnose.md).
TEST(EnergyCli, PriceAndPueReachResultsAndDiagnose) {
  const std::string db = testutil::TempDir() + "/e.db";
  std::string out;
  ASSERT_EQ(RunCli("run --trace " + Fixture("cli/jobs.csv") + " --cluster " +
                       Fixture("cli/cluster.yaml") +
                       " --policy best-fit --pue 1.5 --energy-price 0.2 --out " + db,
                   &out),
            0)
      << out;
  auto runs = ReadResults(db);
  ASSERT_TRUE(runs.ok()) << runs.status().message();
  const Summary& s = runs.value()[0].summary;
  EXPECT_DOUBLE_EQ(s.pue, 1.5);
  EXPECT_DOUBLE_EQ(s.energy_price_per_kwh, 0.2);
  EXPECT_DOUBLE_EQ(s.energy_facility_kwh, 1.5 * s.energy_it_kwh);
  EXPECT_DOUBLE_EQ(s.idle_alloc_energy_cost, s.energy_alloc_idle_kwh * 1.5 * 0.2);
  EXPECT_GT(s.energy_alloc_idle_kwh, 0);
  ASSERT_EQ(RunCli("diagnose " + db + " --json", &out), 0) << out;
  const auto j = nlohmann::json::parse(out)["runs"][0];
  EXPECT_DOUBLE_EQ(j["energy"]["alloc_idle_kwh"].get<double>(), s.energy_alloc_idle_kwh);
  EXPECT_DOUBLE_EQ(j["energy"]["price_per_kwh"].get<double>(), 0.2);
  // c waited 40 s and d 40 s on capacity, d 30 s on the queue order.
  EXPECT_DOUBLE_EQ(j["wait_causes_h"]["capacity"].get<double>(), 80 / 3600.0);
  EXPECT_DOUBLE_EQ(j["wait_causes_h"]["queue-order"].get<double>(), 30 / 3600.0);
  ASSERT_EQ(RunCli("diagnose " + db, &out), 0) << out;
  EXPECT_TRUE(Has(out,
                  "Why jobs waited (queued job-hours by primary cause, docs/explain.md): "
                  "capacity 0.0 h (73 %), queue-order 0.0 h (27 %)"))
      << out;
  EXPECT_TRUE(Has(out, "at 0.200/kWh and PUE 1.50")) << out;
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
