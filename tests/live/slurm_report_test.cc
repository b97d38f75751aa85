// The advice-log report (slurm_report.h) on bad lines: wrong types and
// numbers out of range are errors naming the file, line and field, never an
// exception or undefined behaviour (the fuzz target slurm-advice-log found a
// time of 1.7e21 converted to int64 by the first version), and a last line
// cut short is skipped with a warning.
#include "utilsim/live/slurm_report.h"

#include <gtest/gtest.h>

#include <string>

#include "testutil/testutil.h"

namespace utilsim::live {
namespace UTILSIM_UNITY_ID {

std::string Log(const std::string& text) {
  return testutil::WriteFile(testutil::TempDir() + "/advice.jsonl", text);
}

TEST(SlurmReport, BadFieldsNameFileLineAndField) {
  struct Case {
    const char* line;
    const char* message;
  };
  const Case cases[] = {
      {R"({"v":1,"t":1.7e21,"event":"advice","job":"1"})",
       ":2: field 't': expected an integer, got 1.7e+21"},
      {R"({"v":1,"t":5,"event":"advice","job":5})", ":2: field 'job': expected a string, got 5"},
      {R"({"v":1,"t":5,"event":"advice","job":"1","nodes":"a1"})",
       ":2: field 'nodes': expected a list of strings, got \"a1\""},
      {R"({"v":1,"t":5,"event":"advice","job":"1","nodes":["a1",3]})",
       ":2: field 'nodes': expected a list of strings"},
      {R"({"v":1,"t":5,"event":"started","job":"1","agree":"yes"})", ""},  // no advice: skipped
      {R"({"v":1,"t":5,"event":"advice","job":"1","est_start":"soon"})",
       ":2: field 'est_start': expected an integer"},
  };
  for (const Case& c : cases) {
    const std::string path =
        Log(std::string(R"({"v":1,"t":1,"event":"start","policy":"best-fit"})") + "\n" + c.line +
            "\n" + R"({"v":1,"t":9,"event":"gone","job":"x"})" + "\n");
    auto r = ReadSlurmReport(path, "");
    if (std::string(c.message).empty()) {
      EXPECT_TRUE(r.ok()) << c.line << ": " << r.status().message();
      continue;
    }
    ASSERT_FALSE(r.ok()) << c.line;
    EXPECT_NE(r.status().message().find(path + c.message), std::string::npos)
        << c.line << " -> " << r.status().message();
  }
}

TEST(SlurmReport, FiguresAndACutLastLine) {
  const std::string path = Log(
      R"({"v":1,"t":1000,"event":"start","policy":"best-fit","slurm":"22.05.8"})"
      "\n"
      R"({"v":1,"t":1000,"event":"advice","job":"7","nodes":["a1"],"est_start":10})"
      "\n"
      R"({"v":1,"t":3000,"event":"started","job":"7","slurm_nodes":["a2"],"advised":["a1"],)"
      R"("agree":false,"in_ranked":true,"applied":false,"stranded_slurm":1,"advised_stranded":0})"
      "\n"
      R"({"v":1,"t":3000,"event":"poll_error","error":"down"})"
      "\n"
      R"({"v":1,"t":4000,"event":"recovered","failed_polls":1,"down_s":1.0})"
      "\n"
      R"({"v":1,"t":5000,"event":"adv)");
  auto r = ReadSlurmReport(path, "");
  ASSERT_TRUE(r.ok()) << r.status().message();
  const SlurmReport& s = r.value();
  EXPECT_EQ(s.lines, 5);
  EXPECT_EQ(s.advised, 1);
  EXPECT_EQ(s.started, 1);
  EXPECT_EQ(s.agree, 0);
  EXPECT_EQ(s.in_ranked, 1);
  EXPECT_EQ(s.stranded_slurm, 1);
  EXPECT_EQ(s.advised_stranded, 0);
  EXPECT_EQ(s.poll_errors, 1);
  EXPECT_EQ(s.recoveries, 1);
  ASSERT_EQ(s.rows.size(), 1u);
  EXPECT_EQ(s.rows[0].est_start_unix - s.rows[0].first_advice_unix, 9);
  ASSERT_EQ(s.warnings.size(), 1u);
  EXPECT_NE(s.warnings[0].find(":6: last line cut short"), std::string::npos);
  EXPECT_TRUE(IsSlurmAdviceLog(path));
  EXPECT_FALSE(IsSlurmAdviceLog(Log(R"({"v":1,"t":1,"event":"bound","pod":"a/b"})"
                                    "\n")));
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim::live
