// shadow-report (shadow_report.h) on a hand-written log: counts per verb,
// agreement with the recommendation, the disagreeing binding's facts; and
// the CLI's text and JSON forms, the offline replay of the same log.
#include "utilsim/live/shadow_report.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "testutil/testutil.h"

namespace utilsim::live {
namespace UTILSIM_UNITY_ID {

TEST(ShadowReport, FiguresOfAHandWrittenLog) {
  auto r = ReadShadowReport(testutil::Fixture("live/shadow.jsonl"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  const ShadowReport& s = r.value();
  EXPECT_EQ(s.lines, 12);  // the cut-short last line is skipped
  ASSERT_EQ(s.warnings.size(), 1u);
  const ShadowVerbFigures& f = s.verbs.at("filter");
  EXPECT_EQ(f.total, 3);
  EXPECT_EQ(f.opinion, 1);
  EXPECT_EQ(f.bad_request, 1);
  EXPECT_EQ(f.no_opinion, 1);
  EXPECT_EQ(f.no_opinion_reasons.at("pod requests none of the managed resources"), 1);
  const ShadowVerbFigures& p = s.verbs.at("prioritize");
  EXPECT_EQ(p.total, 3);
  EXPECT_EQ(p.opinion, 2);
  EXPECT_EQ(p.shed, 1);
  EXPECT_EQ(p.latency_p50_us, 300);  // of 40, 300, 500
  EXPECT_EQ(p.latency_max_us, 500);
  // Bindings: a agreed, b went to g-0 instead of g-1, e had no recommendation.
  EXPECT_EQ(s.bindings.size(), 3u);
  EXPECT_EQ(s.with_recommendation, 2);
  EXPECT_EQ(s.agreed, 1);
  EXPECT_EQ(s.finished, 2);
  EXPECT_EQ(s.busy_pairs, 1);
  EXPECT_DOUBLE_EQ(s.chosen_busy_mean, 0.8);
  EXPECT_DOUBLE_EQ(s.recommended_busy_mean, 0.1);
  EXPECT_EQ(s.chosen_partial, 1);
  EXPECT_EQ(s.recommended_partial, 0);
  const std::string text = FormatShadowReport(s, true);
  EXPECT_NE(text.find("on the recommended node: 1 (50.0 %)"), std::string::npos) << text;
  EXPECT_NE(text.find("measured busy (mean of 1): 0.800 vs 0.100"), std::string::npos) << text;
  const auto j = nlohmann::json::parse(ShadowReportJson(s));
  EXPECT_DOUBLE_EQ(j["agreement_rate"].get<double>(), 0.5);
}

TEST(ShadowReport, CliReportsAndTheLogReplaysOffline) {
  const std::string log = testutil::Fixture("live/shadow.jsonl");
  std::string out;
  EXPECT_EQ(testutil::RunCli("shadow-report " + log, &out), 0) << out;
  EXPECT_NE(out.find("Bindings seen: 3 (2 ended)"), std::string::npos) << out;
  EXPECT_EQ(testutil::RunCli("shadow-report --json " + log, &out), 0) << out;
  EXPECT_EQ(nlohmann::json::parse(out)["agreed"], 1);
  // The same pods under another policy, on the logged cluster (detected).
  const std::string db = testutil::TempDir() + "/replay.db";
  EXPECT_EQ(
      testutil::RunCli("run --trace " + log + " --policy fifo+least-loaded --out " + db, &out), 0)
      << out;
  EXPECT_NE(out.find("2 jobs"), std::string::npos) << out;
  // A file that is not a shadow log: exit 1 naming file and line.
  const std::string bad = testutil::WriteFile(testutil::TempDir() + "/bad.jsonl",
                                              "{\"v\":1,\"t\":1,\"event\":\"warp\"}\n");
  EXPECT_EQ(testutil::RunCli("shadow-report " + bad, &out), 1);
  EXPECT_NE(out.find("bad.jsonl:1: field 'event'"), std::string::npos) << out;
  EXPECT_EQ(testutil::RunCli("shadow-report", &out), 2);  // usage
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim::live
