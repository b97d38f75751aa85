// End-to-end tests of the `utilsim` binary: plumbing, determinism and every
// bad input of the command line.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>

#include "testutil/testutil.h"
#include "utilsim/results/result_store.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

namespace fs = std::filesystem;
using testutil::Fixture;
using testutil::RunCli;

std::string CliArgs(const std::string& jobs) {
  return "--trace " + Fixture("cli/" + jobs) + " --cluster " + Fixture("cli/cluster.yaml");
}

using testutil::Has;

TEST(Cli, HelpListsCommandsAndUnits) {
  std::string out;
  EXPECT_EQ(RunCli("--help", &out), 0);
  for (const char* cmd : {"run", "compare", "policies", "demo", "formats"})
    EXPECT_TRUE(Has(out, cmd));
  EXPECT_EQ(RunCli("run --help", &out), 0);
  for (const char* opt : {"--trace", "--format", "--cluster", "--policy", "--seed", "--out",
                          "--sample-interval", "--price"})
    EXPECT_TRUE(Has(out, opt)) << opt;
  EXPECT_TRUE(Has(out, "Seconds"));
  EXPECT_EQ(RunCli("compare --help", &out), 0);
  EXPECT_TRUE(Has(out, "--policies"));
  EXPECT_TRUE(Has(out, "--baseline"));
}

TEST(Cli, PoliciesListsEveryBuiltin) {
  std::string out;
  ASSERT_EQ(RunCli("policies", &out), 0);
  for (const char* p : {"fifo", "fifo-skip", "as-recorded", "first-fit", "best-fit", "worst-fit"})
    EXPECT_TRUE(Has(out, p)) << p;
}

// A profile of --profiles is listed, and is a policy name the usage checks
// accept (and suggest) like a built-in one.
TEST(Cli, ProfilesAreListedAndAccepted) {
  const std::string yaml =
      testutil::WriteFile(testutil::TempDir() + "/p.yaml",
                          "profiles:\n"
                          "  - name: tight-gpu\n"
                          "    queue: fifo-skip\n"
                          "    filters: [resources-fit]\n"
                          "    scores:\n"
                          "      - {plugin: gpu-least-leftover, weight: 10}\n");
  std::string out;
  ASSERT_EQ(RunCli("policies --profiles " + yaml, &out), 0) << out;
  EXPECT_TRUE(Has(out, "tight-gpu")) << out;
  ASSERT_EQ(RunCli("run --jobs 50 --policy tight-gpu --profiles " + yaml, &out), 0) << out;
  EXPECT_EQ(RunCli("run --jobs 50 --policy tight-gpv --profiles " + yaml, &out), 2) << out;
  EXPECT_TRUE(Has(out, "did you mean 'tight-gpu'?")) << out;
  EXPECT_EQ(RunCli("run --jobs 50 --policy tight-gpu", &out), 2) << out;  // not loaded
  EXPECT_EQ(RunCli("run --jobs 50 --profiles /nonexistent/p.yaml", &out), 1) << out;
}

TEST(Cli, RunWritesHandComputedResults) {
  // Nodes gpu-0/gpu-1 with 4 GPUs; strict FIFO + best-fit:
  //   a 0..100 gpu-0; b 10..60 gpu-1; c (2 GPUs) waits for b: 60..90 gpu-1;
  //   d (2 x 4 GPUs) needs both nodes: after a ends, 100..140; too-big rejected.
  const std::string db = testutil::TempDir() + "/r.db";
  std::string out;
  ASSERT_EQ(RunCli("run " + CliArgs("jobs.csv") + " --policy best-fit --out " + db, &out), 0)
      << out;
  auto runs = ReadResults(db);
  ASSERT_TRUE(runs.ok()) << runs.status().message();
  const auto& jobs = runs.value()[0].jobs;
  ASSERT_EQ(jobs.size(), 5u);
  const int64_t start[] = {0, 10, 60, 100, -1};
  const int64_t finish[] = {100, 60, 90, 140, -1};
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(jobs[i].start.us, start[i] < 0 ? -1 : start[i] * 1000000) << jobs[i].name;
    EXPECT_EQ(jobs[i].finish.us, finish[i] < 0 ? -1 : finish[i] * 1000000) << jobs[i].name;
  }
  EXPECT_EQ(jobs[3].placement, "gpu-0:0,1,2,3;gpu-1:0,1,2,3");
  EXPECT_EQ(jobs[4].outcome, JobOutcome::kRejected);
  EXPECT_TRUE(Has(jobs[4].reason, "no node can host one task"));
  EXPECT_EQ(runs.value()[0].meta.placement_policy, "best-fit");
  EXPECT_EQ(runs.value()[0].meta.queue_policy, "fifo");
  EXPECT_EQ(runs.value()[0].meta.utilsim_version, "0.1.0");
  EXPECT_EQ(runs.value()[0].meta.input_digest.size(), 33u);  // two 16-hex digests
  EXPECT_TRUE(Has(out, "Results written to " + db));
}

// A single run whose rows go only to --out streams them into the database
// while it runs (ResultWriter); with --csv too it keeps them and writes the
// database after. Both files hold the same run, notes added after the
// engine included.
TEST(Cli, StreamedAndKeptResultsAgree) {
  const std::string dir = testutil::TempDir();
  const std::string args = "run --jobs 3000 --policy fifo+colocate:threshold=0.9";
  std::string out;
  ASSERT_EQ(RunCli(args + " --out " + dir + "/streamed.db", &out), 0) << out;
  ASSERT_EQ(RunCli(args + " --out " + dir + "/kept.db --csv " + dir + "/csv", &out), 0) << out;
  auto a = ReadResults(dir + "/streamed.db");
  auto b = ReadResults(dir + "/kept.db");
  ASSERT_TRUE(a.ok()) << a.status().message();
  ASSERT_TRUE(b.ok()) << b.status().message();
  const RunResult &x = a.value().at(0), &y = b.value().at(0);
  EXPECT_EQ(x.meta.notes, y.meta.notes);
  EXPECT_TRUE(Has(x.meta.notes, "policy parameters")) << x.meta.notes;
  EXPECT_EQ(x.summary.wait_max_s, y.summary.wait_max_s);
  EXPECT_GT(x.summary.wait_max_s, 0);  // it queued: waits rows were streamed
  ASSERT_EQ(x.jobs.size(), 3000u);
  ASSERT_EQ(x.jobs.size(), y.jobs.size());
  size_t waits = 0;
  for (size_t k = 0; k < x.jobs.size(); ++k) {
    EXPECT_EQ(x.jobs[k].job, k);
    EXPECT_EQ(x.jobs[k].start, y.jobs[k].start);
    EXPECT_EQ(x.jobs[k].finish, y.jobs[k].finish);
    EXPECT_EQ(x.jobs[k].placement, y.jobs[k].placement);
    EXPECT_EQ(x.jobs[k].waits.size(), y.jobs[k].waits.size());
    waits += x.jobs[k].waits.size();
  }
  EXPECT_GT(waits, 0u);
  EXPECT_EQ(x.samples.size(), y.samples.size());
}

// --events (docs/cluster-events.md) on the hand-computed run above: gpu-1
// is down 20..50 s and kills b (no checkpoints: it restarts from the start
// at 50 and ends at 100); c and d queue behind it as before b's kill: c
// 100..130, d 130..170. In the arrivals window 0..40 s gpu-1 is down 20 s.
TEST(Cli, EventsKillRequeueAndReport) {
  const std::string dir = testutil::TempDir();
  const std::string ev = dir + "/ev.yaml";
  testutil::WriteFile(ev, "events:\n  - {kind: down, at: 20, nodes: [gpu-1], until: 50}\n");
  const std::string db = dir + "/r.db";
  std::string out;
  ASSERT_EQ(
      RunCli("run " + CliArgs("jobs.csv") + " --policy best-fit --events " + ev + " --out " + db,
             &out),
      0)
      << out;
  EXPECT_TRUE(Has(out, "interruptions, lost GPU-h")) << out;
  auto runs = ReadResults(db);
  ASSERT_TRUE(runs.ok()) << runs.status().message();
  const auto& jobs = runs.value()[0].jobs;
  const int64_t finish[] = {100, 100, 130, 170};
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(jobs[i].finish, Seconds(finish[i])) << jobs[i].name;
  EXPECT_EQ(jobs[1].start, Seconds(10));
  EXPECT_EQ(jobs[1].interruptions, 1);
  EXPECT_DOUBLE_EQ(jobs[1].lost_gpu_s, 40);
  EXPECT_DOUBLE_EQ(jobs[1].queued_s, 30);
  EXPECT_DOUBLE_EQ(jobs[1].wait_cause_s[static_cast<size_t>(WaitCause::kNodesDown)], 30);
  EXPECT_NEAR(jobs[1].ettr, (60.0 - 10) / 90, 1e-12);  // held 10 + 50 s, lost 10 s
  const Summary& s = runs.value()[0].summary;
  EXPECT_EQ(s.interruptions, 1);
  EXPECT_NEAR(s.down_failure_gpu_h, 80 / 3600.0, 1e-12);

  // A bad events file is bad input (exit 1) that names the file and line.
  testutil::WriteFile(ev, "events:\n  - {kind: down, at: 20, nodes: [gpu-1], running: stop}\n");
  EXPECT_EQ(RunCli("run " + CliArgs("jobs.csv") + " --events " + ev, &out), 1) << out;
  EXPECT_TRUE(Has(out, "ev.yaml:2")) << out;
  EXPECT_TRUE(Has(out, "running")) << out;
  testutil::WriteFile(ev, "events:\n  - {kind: down, at: 20, nodes: [gpu-7]}\n");
  EXPECT_EQ(RunCli("run " + CliArgs("jobs.csv") + " --events " + ev, &out), 1) << out;
  EXPECT_TRUE(Has(out, "ev.yaml:2: no node or node group named 'gpu-7'")) << out;
  EXPECT_EQ(RunCli("run " + CliArgs("jobs.csv") + " --checkpoint-interval 0", &out), 2) << out;
  // So is a bad power file (the same path through ToRunSpec).
  const std::string pw = testutil::WriteFile(testutil::TempDir() + "/pw.yaml", "bogus: 1\n");
  EXPECT_EQ(RunCli("run " + CliArgs("jobs.csv") + " --power " + pw, &out), 1) << out;
  EXPECT_TRUE(Has(out, "pw.yaml:1: unknown key 'bogus'")) << out;
  // validate --events-out needs --infer and one size: a usage error (2).
  const std::string eo = testutil::TempDir() + "/e.yaml";
  EXPECT_EQ(RunCli("validate " + CliArgs("jobs.csv") + " --events-out " + eo, &out), 2) << out;
  EXPECT_TRUE(Has(out, "--events-out: needs --infer and at most one size")) << out;
  EXPECT_EQ(
      RunCli("validate " + CliArgs("jobs.csv") + " --infer --nodes-list 2,3 --events-out " + eo,
             &out),
      2)
      << out;
  EXPECT_FALSE(std::filesystem::exists(eo));
}

TEST(Cli, SameSeedByteIdenticalDifferentSeedDifferentJobs) {
  const std::string dir = testutil::TempDir();
  std::string out;
  const std::string args = "compare --trace builtin:demo --jobs 1500 --policies first-fit,best-fit";
  ASSERT_EQ(RunCli(args + " --seed 7 --out " + dir + "/a.db", &out), 0) << out;
  ASSERT_EQ(RunCli(args + " --seed 7 --out " + dir + "/b.db", &out), 0) << out;
  ASSERT_EQ(RunCli(args + " --seed 8 --out " + dir + "/c.db", &out), 0) << out;
  const std::string a = testutil::ReadFile(dir + "/a.db");
  EXPECT_GT(a.size(), 10000u);
  EXPECT_EQ(a, testutil::ReadFile(dir + "/b.db"));
  auto ra = ReadResults(dir + "/a.db"), rc = ReadResults(dir + "/c.db");
  ASSERT_TRUE(ra.ok() && rc.ok());
  EXPECT_NE(ra.value()[0].meta.input_digest, rc.value()[0].meta.input_digest);
  int differ = 0;
  for (size_t i = 0; i < 1500; ++i)
    differ += ra.value()[0].jobs[i].recorded_runtime != rc.value()[0].jobs[i].recorded_runtime;
  EXPECT_GT(differ, 1000);
  // Useful work is the same under both policies of one run (conservation).
  double u0 = 0, u1 = 0;
  for (const auto& j : ra.value()[0].jobs) u0 += j.useful_gpu_s;
  for (const auto& j : ra.value()[1].jobs) u1 += j.useful_gpu_s;
  EXPECT_NEAR(u0, u1, 1e-6 * u0);
}

struct BadCase {
  std::string args;
  std::string message;
};

// Runtime errors (exit 1): the command line is fine, the input is not. Bad
// option values are usage errors (exit 2, cli_usage_test.cc).
TEST(Cli, BadInputsGiveOneLineErrorsAndNoResultFile) {
  const std::string dir = testutil::TempDir();
  const std::string db = dir + "/never.db";
  const std::vector<BadCase> cases = {
      {"run " + CliArgs("bad_row.csv"), "bad_row.csv:3: field 'runtime_s'"},
      {"run " + CliArgs("bad_duration.csv"), "bad_duration.csv:3: field 'runtime_s'"},
      {"run " + CliArgs("bad_column.csv"), "colour"},
      {"run " + CliArgs("short_row.csv"), "short_row.csv:2:"},
      {"run --trace " + Fixture("cli/jobs.csv"), "--cluster: required"},
      {"run --trace /nonexistent/jobs.csv --cluster " + Fixture("cli/cluster.yaml"),
       "/nonexistent/jobs.csv"},
      {"run " + CliArgs("jobs.csv") + " --out /nonexistent-dir/x.db", "/nonexistent-dir"},
      {"run --trace builtin:nope", "unknown built-in workload"},
  };
  for (const auto& c : cases) {
    std::string out;
    const int rc = RunCli(c.args + (Has(c.args, "--out") ? "" : " --out " + db), &out);
    EXPECT_EQ(rc, 1) << c.args << "\n" << out;
    EXPECT_TRUE(Has(out, "utilsim: error: ")) << out;
    EXPECT_TRUE(Has(out, c.message)) << c.args << "\n" << out;
    EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
    EXPECT_FALSE(fs::exists(db)) << c.args;
  }
  std::string out;
  EXPECT_EQ(RunCli("run --no-such-option", &out), 2);
  EXPECT_EQ(RunCli("frobnicate", &out), 2);
}

TEST(Cli, OutputPathThatIsADirectoryIsRefused) {
  const std::string dir = testutil::TempDir();
  std::string out;
  EXPECT_EQ(RunCli("run " + CliArgs("jobs.csv") + " --out " + dir, &out), 1);
  EXPECT_TRUE(Has(out, "is a directory")) << out;
}

TEST(Cli, CsvExportWritesThreeFiles) {
  const std::string dir = testutil::TempDir();
  std::string out;
  ASSERT_EQ(RunCli("run " + CliArgs("jobs.csv") + " --csv " + dir, &out), 0) << out;
  for (const char* f : {"runs.csv", "jobs.csv", "samples.csv", "waits.csv"})
    EXPECT_TRUE(fs::exists(dir + "/" + f)) << f;
  const std::string jobs = testutil::ReadFile(dir + "/jobs.csv");
  EXPECT_EQ(std::count(jobs.begin(), jobs.end(), '\n'), 6);  // header + 5 jobs
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
