// Policy parameters from the command line (docs/policies.md, "Policy
// parameters"): listed by `policies --verbose`, accepted by run and compare,
// recorded in the results, and refused with the accepted keys and ranges.
#include <gtest/gtest.h>

#include <string>

#include "cli_options.h"
#include "testutil/testutil.h"
#include "utilsim/results/result_store.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

using testutil::RunCli;

using testutil::Has;

TEST(PolicyParamsCli, VerboseListsEachParameterWithRangeAndDefault) {
  std::string out;
  ASSERT_EQ(RunCli("policies --verbose", &out), 0) << out;
  EXPECT_TRUE(Has(out, "thresholds: a list of 1 to 16 values in seconds separated by '/'")) << out;
  EXPECT_TRUE(Has(out, "default 3600/36000")) << out;
  EXPECT_TRUE(Has(out, "base: a number in [1.01, 1000000] or 'nodes'; default nodes")) << out;
  EXPECT_TRUE(Has(out, "threshold: a number in [0, 100]; default 1")) << out;
  EXPECT_TRUE(Has(out, "depth: ")) << out;
  // Without --verbose the listing is as before: no parameter lines.
  ASSERT_EQ(RunCli("policies", &out), 0) << out;
  EXPECT_FALSE(Has(out, "thresholds: a list")) << out;
}

TEST(PolicyParamsCli, ParametersChangeTheRunAndAreRecorded) {
  const std::string dir = testutil::TempDir();
  std::string out;
  ASSERT_EQ(RunCli("compare --trace builtin:demo --jobs 600 --progress never --cluster " +
                       testutil::Fixture("preempt/ten_nodes.yaml") +
                       " --policies "
                       "'tiresias,tiresias:thresholds=3250/7200,fifo-skip+epvm:base=2' --out " +
                       dir + "/p.db",
                   &out),
            0)
      << out;
  auto runs = ReadResults(dir + "/p.db");
  ASSERT_TRUE(runs.ok()) << runs.status().message();
  ASSERT_EQ(runs.value().size(), 3u);
  const RunMeta& dflt = runs.value()[0].meta;
  const RunMeta& set = runs.value()[1].meta;
  EXPECT_EQ(set.label, "tiresias:thresholds=3250/7200");
  EXPECT_TRUE(Has(set.notes, "policy parameters: tiresias thresholds=3250/7200; ")) << set.notes;
  // Defaults are recorded as before (no parameter note).
  EXPECT_FALSE(Has(dflt.notes, "policy parameters")) << dflt.notes;
  EXPECT_TRUE(Has(runs.value()[2].meta.notes, "policy parameters: epvm base=2; "))
      << runs.value()[2].meta.notes;
  // Other thresholds demote jobs at other times: a different schedule (on
  // 80 GPUs, p95 total queued time 2.6 h with the defaults, 59 min here).
  EXPECT_GT(runs.value()[0].summary.queued_p95_s, 2 * 3600);
  EXPECT_LT(runs.value()[1].summary.queued_p95_s, 3600);
}

TEST(PolicyParamsCli, BadParametersAreUsageErrorsNamingKeysAndRanges) {
  std::string out;
  EXPECT_EQ(RunCli("run --jobs 50 --policy 'tiresias:threshold=3'", &out), 2);
  EXPECT_TRUE(Has(out, "unknown parameter 'threshold'; accepted: thresholds (")) << out;
  EXPECT_FALSE(Has(out, "did you mean")) << out;
  EXPECT_EQ(RunCli("run --jobs 50 --policy 'epvm:base=0.5'", &out), 2);
  EXPECT_TRUE(Has(out,
                  "parameter 'base': expected a number in [1.01, 1000000] or 'nodes', "
                  "got '0.5'"))
      << out;
  EXPECT_EQ(RunCli("run --jobs 50 --policy 'best-fit:x=1'", &out), 2);
  EXPECT_TRUE(Has(out, "best-fit")) << out;
  EXPECT_EQ(RunCli("compare --jobs 50 --policies 'tiresias:thresholds=7200/3250,best-fit'", &out),
            2);
  EXPECT_TRUE(Has(out, "strictly increasing")) << out;
}

TEST(PolicyParamsCli, ListsKeepCommasInsideParameters) {
  // A piece "key=value" after a parameterized name continues it.
  EXPECT_EQ(cli::SplitList({"a:x=1,y=2,b,c:z=3"}),
            (std::vector<std::string>{"a:x=1,y=2", "b", "c:z=3"}));
  EXPECT_EQ(cli::SplitList({"best-fit,,worst-fit", "x=1"}),
            (std::vector<std::string>{"best-fit", "worst-fit", "x=1"}));
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
