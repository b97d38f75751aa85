// Several simulations at once in one process give exactly what separate
// processes give: 8 policies on 8 threads through the library (RunPolicies,
// and 8 threads each with its own BuildRun), each result database
// byte-identical to a separate `utilsim run` of the same policy. The
// thread-sanitizer build (`make tsan`) runs this test too.
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "testutil/testutil.h"
#include "utilsim/analysis/runner.h"
#include "utilsim/io/inputs.h"
#include "utilsim/results/result_store.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

const std::vector<std::string> kPolicies = {
    "best-fit", "first-fit",         "worst-fit", "fifo-skip+best-fit",
    "tiresias", "easy-backfill+fgd", "random",    "sjf+epvm"};
constexpr int kJobs = 1200;

Inputs Load() {
  InputOptions opt;
  opt.trace = "builtin:demo";
  opt.jobs = kJobs;
  opt.seed = 7;
  auto in = LoadInputs(opt);
  EXPECT_TRUE(in.ok()) << in.status().message();
  return std::move(in).value();
}

// The CLI's database written after the run, as WriteResults writes it: with
// --csv too, `run` keeps its rows instead of streaming them (a streamed file
// holds the same rows in another order: result_writer_test.cc).
std::string CliDb(const std::string& dir, const std::string& policy, size_t i) {
  const std::string db = dir + "/cli" + std::to_string(i) + ".db";
  std::string out;
  const int rc =
      testutil::RunCli("run --trace builtin:demo --jobs " + std::to_string(kJobs) +
                           " --seed 7 --progress never --policy '" + policy + "' --out " + db +
                           " --csv " + dir + "/csv" + std::to_string(i),
                       &out);
  EXPECT_EQ(rc, 0) << out;
  return testutil::ReadFile(db);
}

std::string LibDb(const std::string& dir, const RunResult& r, size_t i) {
  const std::string db = dir + "/lib" + std::to_string(i) + ".db";
  const Status s = WriteResults({r}, db);
  EXPECT_TRUE(s.ok()) << s.message();
  return testutil::ReadFile(db);
}

TEST(ParallelRuns, EightThreadsGiveTheDatabasesOfEightCliRuns) {
  const Inputs in = Load();
  const std::string dir = testutil::TempDir();
  RunSpec spec;
  spec.seed = 7;
  spec.threads = 8;
  const PolicyRegistry reg = BuiltinPolicies();
  auto runs = RunPolicies(in, reg, kPolicies, spec);
  ASSERT_TRUE(runs.ok()) << runs.status().message();
  ASSERT_EQ(runs.value().size(), kPolicies.size());
  for (size_t i = 0; i < kPolicies.size(); ++i) {
    SCOPED_TRACE(kPolicies[i]);
    EXPECT_GT(runs.value()[i].summary.finished, 0);
    const std::string lib = LibDb(dir, runs.value()[i], i);
    const std::string cli = CliDb(dir, kPolicies[i], i);
    ASSERT_FALSE(cli.empty());
    EXPECT_TRUE(lib == cli) << "database bytes differ from the CLI's";
  }
}

TEST(ParallelRuns, EightIndependentBuildsOnEightThreadsAgree) {
  const Inputs in = Load();
  const PolicyRegistry reg = BuiltinPolicies();
  RunSpec spec;
  spec.seed = 7;
  spec.threads = 1;
  std::vector<Result<RunResult>> out(kPolicies.size(), Status::Error("not run"));
  std::vector<std::thread> threads;
  for (size_t i = 0; i < kPolicies.size(); ++i)
    threads.emplace_back([&, i] {
      auto built = BuildRun(spec, in, in.cluster, reg);
      if (!built.ok()) {
        out[i] = built.status();
        return;
      }
      out[i] = built.value()->Simulate(kPolicies[i]);
    });
  for (auto& t : threads) t.join();
  const std::string dir = testutil::TempDir();
  auto serial = RunPolicies(in, reg, kPolicies, spec);
  ASSERT_TRUE(serial.ok()) << serial.status().message();
  for (size_t i = 0; i < kPolicies.size(); ++i) {
    SCOPED_TRACE(kPolicies[i]);
    ASSERT_TRUE(out[i].ok()) << out[i].status().message();
    EXPECT_TRUE(LibDb(dir, out[i].value(), 2 * i) == LibDb(dir, serial.value()[i], 2 * i + 1));
  }
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
