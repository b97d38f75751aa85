// Topology through the command line: a gang spread over oversubscribed
// racks by best fit runs longer than the same gang kept in one node by
// topology-aware; a broken topology is refused naming its file and line.
#include <gtest/gtest.h>

#include <filesystem>

#include "testutil/testutil.h"
#include "utilsim/results/result_store.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

namespace fs = std::filesystem;
using testutil::Fixture;
using testutil::RunCli;

std::string Args() {
  return "--trace " + Fixture("topology/jobs.csv") + " --cluster " +
         Fixture("topology/cluster.yaml");
}

TEST(TopologyCli, SpreadGangPaysCommunicationLocalGangDoesNot) {
  // Best fit: x a-0, y a-1, z a-2 at 0 s; g at 1 s takes the last GPU of
  // a-0 (rack r0) and of a-2 (rack r1): 12.5 / 4 GB/s against the assumed
  // 12.5 GB/s, s_net = 4, time = 100 x (0.4 + 0.5 + 0.1 x 4) = 130 s.
  // topology-aware: a-3 can take the whole gang (score 100 + 1 against a-2's
  // 75 + 4), both tasks on a-3, rate 1: 100 s.
  const std::string db = testutil::TempDir() + "/t.db";
  std::string out;
  ASSERT_EQ(RunCli("compare " + Args() + " --policies best-fit,topology-aware --out " + db, &out),
            0)
      << out;
  auto runs = ReadResults(db);
  ASSERT_TRUE(runs.ok()) << runs.status().message();
  const JobRecord& spread = runs.value()[0].jobs[3];
  const JobRecord& local = runs.value()[1].jobs[3];
  EXPECT_EQ(spread.name, "g");
  EXPECT_EQ(spread.placement, "a-0:3;a-2:3");
  EXPECT_DOUBLE_EQ(spread.finish.seconds(), 131);
  EXPECT_EQ(local.placement, "a-3:0;a-3:1");
  EXPECT_DOUBLE_EQ(local.finish.seconds(), 101);
  // The extra 30 s x 2 GPUs idle on communication.
  EXPECT_NEAR(spread.idle_gpu_s[static_cast<size_t>(IdleCause::kCommunication)], 2 * 100 * 0.4,
              1e-6);
  EXPECT_EQ(runs.value()[0].meta.progress_model, "whole-gpu comm=0.1");
  // --comm-fraction 0: no stall anywhere.
  ASSERT_EQ(RunCli("run " + Args() + " --policy best-fit --comm-fraction 0 --out " + db, &out), 0);
  auto flat = ReadResults(db);
  ASSERT_TRUE(flat.ok());
  EXPECT_DOUBLE_EQ(flat.value()[0].jobs[3].finish.seconds(), 101);
}

TEST(TopologyCli, BadTopologyAndOptionsAreRefused) {
  const std::string db = testutil::TempDir() + "/never.db";
  struct Case {
    std::string args, message;
    int code;  // 1 a bad input file, 2 a bad option value
  } cases[] = {
      {"run --trace " + Fixture("topology/jobs.csv") + " --cluster " +
           Fixture("topology/unreachable.yaml"),
       Fixture("topology/unreachable.yaml") +
           ":8: key 'topology.racks[0]': node 'a-3' is in no rack: unreachable",
       1},
      {"run " + Args() + " --comm-fraction 1.5", "--comm-fraction: expected a fraction in 0..1", 2},
      {"run " + Args() + " --model quantum",
       "--model: expected whole-gpu, stall-serial or stall-overlapped, got 'quantum'", 2},
  };
  for (const Case& c : cases) {
    std::string out;
    EXPECT_EQ(RunCli(c.args + " --out " + db, &out), c.code) << out;
    EXPECT_NE(out.find(c.message), std::string::npos) << out;
    EXPECT_FALSE(fs::exists(db));
  }
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
