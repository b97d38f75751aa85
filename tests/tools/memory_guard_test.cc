// The runaway guard: the estimator's arithmetic, sizes, sample counts, the
// refusal message, and the refusal end to end (without running anything big).
#include "utilsim/analysis/memory_guard.h"

#include <gtest/gtest.h>

#include <chrono>
#include <limits>

#include "testutil/testutil.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

using testutil::Has;

TEST(MemoryGuard, EstimateAddsMeasuredBytesPerItem) {
  MemoryDemand d;
  EXPECT_EQ(EstimateMemoryBytes(d), kBaseBytes);
  d.jobs = 1000;
  d.nodes = 10;
  d.groups = 2;
  d.samples_per_run = 100;
  d.runs = 3;
  EXPECT_EQ(EstimateMemoryBytes(d),
            kBaseBytes + 1000 * kBytesPerJob + 2 * kBytesPerGroup +
                3 * (1000 * kBytesPerJobRun + 10 * kBytesPerNodeRun + 100 * kBytesPerSample));
  d.workload_copies = 4;  // validate: one copy per size
  EXPECT_EQ(EstimateMemoryBytes(d),
            kBaseBytes + 4 * 1000 * kBytesPerJob + 2 * kBytesPerGroup +
                3 * (1000 * kBytesPerJobRun + 10 * kBytesPerNodeRun + 100 * kBytesPerSample));
  // Saturates instead of overflowing.
  d.samples_per_run = std::numeric_limits<int64_t>::max() / 2;
  EXPECT_EQ(EstimateMemoryBytes(d), std::numeric_limits<int64_t>::max());
  // 100M jobs under one policy need far more than any laptop has.
  MemoryDemand big;
  big.jobs = 100'000'000;
  EXPECT_GT(EstimateMemoryBytes(big), 64ll << 30);
}

TEST(MemoryGuard, SamplesPerRunFollowTheSpanAndHorizon) {
  Workload w;
  EXPECT_EQ(SamplesPerRun(w, 300, -1), 0);
  Job a, b;
  a.submit = Seconds(100);
  a.runtime = Seconds(1000);
  b.submit = Seconds(400);
  b.runtime = Seconds(2000);  // ends at 2400: span 100 .. 2400 = 2300 s
  w.jobs = {a, b};
  EXPECT_EQ(SamplesPerRun(w, 100, -1), 24);
  EXPECT_EQ(SamplesPerRun(w, 0.01, -1), 230001);
  EXPECT_EQ(SamplesPerRun(w, 100, 500), 6);  // the horizon cuts the span
}

TEST(MemoryGuard, ChangePointsCountBesideTheSamples) {
  // Two jobs over 2300 s: 24 ticks of 100 s; change points up to 3 per job.
  Inputs in;
  Job a, b;
  a.submit = Seconds(100);
  a.runtime = Seconds(1000);
  b.submit = Seconds(400);
  b.runtime = Seconds(2000);
  in.workload.jobs = {a, b};
  RunSpec s;
  s.sample_interval = Seconds(100);
  s.series = SeriesForm::kSamples;
  EXPECT_EQ(DemandOfRuns(in, s, 1, "runs").samples_per_run, 24);
  s.series = SeriesForm::kChanges;  // the points and the samples derived from them
  EXPECT_EQ(DemandOfRuns(in, s, 1, "runs").samples_per_run, 24 + 6);
  s.series = SeriesForm::kAuto;  // points only when no more than the ticks
  EXPECT_EQ(DemandOfRuns(in, s, 1, "runs").samples_per_run, 24 + 6);
  s.sample_interval = Seconds(1000);  // 3 ticks: at most 3 points
  EXPECT_EQ(DemandOfRuns(in, s, 1, "runs").samples_per_run, 3 + 3);
}

TEST(MemoryGuard, ParsesSizes) {
  EXPECT_EQ(ParseMemorySize("16G").value(), 16ll << 30);
  EXPECT_EQ(ParseMemorySize("500M").value(), 500ll << 20);
  EXPECT_EQ(ParseMemorySize("500m").value(), 500ll << 20);
  EXPECT_EQ(ParseMemorySize("2T").value(), 2ll << 40);
  EXPECT_EQ(ParseMemorySize("1.5GiB").value(), 3ll << 29);
  EXPECT_EQ(ParseMemorySize("64KB").value(), 64ll << 10);
  EXPECT_EQ(ParseMemorySize("123").value(), 123);
  EXPECT_EQ(ParseMemorySize("0").value(), 0);
  EXPECT_EQ(ParseMemorySize("none").value(), 0);
  for (const char* bad : {"", "-1G", "12X", "G", "nan", "1e30", "16 G"}) {
    auto r = ParseMemorySize(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_TRUE(Has(r.status().message(), "--max-memory: expected a size >= 0")) << bad;
  }
}

TEST(MemoryGuard, LimitAndRefusal) {
  EXPECT_GT(PhysicalMemoryBytes(), 0);
  const MemoryLimit def = ResolveMemoryLimit("");
  EXPECT_EQ(def.bytes, PhysicalMemoryBytes() / 5 * 4);
  EXPECT_EQ(def.origin, "80% of physical memory");
  EXPECT_EQ(ResolveMemoryLimit("none").bytes, 0);
  EXPECT_EQ(ResolveMemoryLimit("2G").bytes, 2ll << 30);
  MemoryDemand d;
  d.jobs = 100'000'000;
  d.nodes = 64;
  d.runs = 3;
  d.runs_label = "3 policies";
  EXPECT_TRUE(CheckMemory(d, ResolveMemoryLimit("none")).ok());
  const Status s = CheckMemory(d, ResolveMemoryLimit("16G"));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(),
            "estimated " + FormatBytes(static_cast<double>(EstimateMemoryBytes(d))) +
                " for 100000000 jobs x 3 policies (64 nodes) exceeds the limit 16.0 GiB "
                "(--max-memory 16G); raise it with --max-memory SIZE (e.g. --max-memory 64G; "
                "none disables the check)");
  d.jobs = 10;
  EXPECT_TRUE(CheckMemory(d, ResolveMemoryLimit("16G")).ok());
  EXPECT_EQ(FormatBytes(1536), "1.5 KiB");
  EXPECT_EQ(FormatBytes(44291850240.0), "41.2 GiB");
  EXPECT_EQ(FormatBytes(12), "12 B");
}

TEST(MemoryGuardCli, RefusesRunawayRunsBeforeTheyStart) {
  std::string out;
  // The default limit is 80% of this machine's memory; on one with more
  // than the 100M jobs need, the limit is given instead (nothing big runs).
  MemoryDemand big;
  big.jobs = 100'000'000;
  big.nodes = 64;
  big.groups = 1;
  const bool fits_here = EstimateMemoryBytes(big) <= ResolveMemoryLimit("").bytes;
  const std::string limit = fits_here ? " --max-memory 16G" : "";
  // Refused before any job is generated: fast, and exit 1 (a runtime error).
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(testutil::RunCli("run --trace builtin:demo --jobs 100000000" + limit, &out), 1) << out;
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 10);
  EXPECT_EQ(out.rfind("utilsim: error: estimated ", 0), 0u) << out;
  EXPECT_TRUE(Has(out, " for 100000000 jobs x 1 policy (64 nodes) exceeds the limit ")) << out;
  EXPECT_TRUE(Has(out, fits_here ? "(--max-memory 16G); raise it with --max-memory"
                                 : "(80% of physical memory); raise it with --max-memory"))
      << out;
  EXPECT_EQ(testutil::RunCli("compare --jobs 100000000 --policies best-fit,fgd" + limit, &out), 1);
  EXPECT_TRUE(Has(out, "100000000 jobs x 2 policies")) << out;
  EXPECT_EQ(testutil::RunCli("demo --jobs 100000000 --out " + testutil::TempDir() + "/d.db" + limit,
                             &out),
            1);
  EXPECT_TRUE(Has(out, "100000000 jobs x 3 policies")) << out;
  EXPECT_EQ(testutil::RunCli("plan --jobs 100000000 --target 'p95-wait<=1h'" + limit, &out), 1);
  EXPECT_TRUE(Has(out, "runs held at once")) << out;
  // Samples: 2,000 jobs over ~8 days sampled every 10 ms, ~70M samples (an
  // explicit limit: the default may hold them).
  EXPECT_EQ(testutil::RunCli("run --jobs 2000 --sample-interval 0.01 --max-memory 4G", &out), 1)
      << out;
  EXPECT_TRUE(Has(out, "samples per run) exceeds the limit 4.0 GiB")) << out;
  // The limit is the option's: a small run fits 1G, not 1M; none disables it.
  EXPECT_EQ(testutil::RunCli("run --jobs 200 --max-memory 1M", &out), 1) << out;
  EXPECT_TRUE(Has(out, "exceeds the limit 1.0 MiB (--max-memory 1M)")) << out;
  EXPECT_EQ(testutil::RunCli("run --jobs 200 --max-memory 1G", &out), 0) << out;
  EXPECT_EQ(testutil::RunCli("run --jobs 200 --max-memory none", &out), 0) << out;
  // A file trace is checked after it is read, before the run.
  EXPECT_EQ(testutil::RunCli("run --trace " + testutil::Fixture("cli/jobs.csv") + " --cluster " +
                                 testutil::Fixture("cli/cluster.yaml") + " --max-memory 1K",
                             &out),
            1);
  EXPECT_TRUE(Has(out, "for 5 jobs x 1 policy (2 nodes, ")) << out;
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
