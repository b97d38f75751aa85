// The shadow log as a trace (k8s_shadow.h), on a hand-written log
// (tests/fixtures/live/shadow.jsonl): the pods bound and ended become jobs
// with the recorded times, demand, node and measured utilization.
#include "utilsim/traces/k8s_shadow.h"

#include <gtest/gtest.h>

#include <fstream>

#include "testutil/testutil.h"

namespace utilsim::traces {
namespace UTILSIM_UNITY_ID {

TEST(K8sShadow, BoundAndEndedPodsBecomeJobs) {
  const std::string path = testutil::Fixture("live/shadow.jsonl");
  auto d = ReadK8sShadow(path);
  ASSERT_TRUE(d.ok()) << d.status().message();
  const Workload& w = d.value().workload;
  ASSERT_EQ(w.jobs.size(), 2u);  // a and b; e still runs; c, d, f never bound
  const Job& a = w.jobs[0];
  EXPECT_EQ(a.name, "ml/a");
  EXPECT_EQ(a.submit, Seconds(1));  // its filter, 1 s after the first line
  EXPECT_EQ(*a.recorded_start, Micros{1500000});
  EXPECT_EQ(a.runtime, Seconds(60));  // finished 60 s after the binding
  EXPECT_EQ(a.task.gpus, 2);
  EXPECT_EQ(a.task.cpu_milli, 4000);
  EXPECT_EQ(a.task.mem_bytes, int64_t{16} << 30);
  EXPECT_EQ(a.recorded_hosts, std::vector<std::string>{"g-0"});
  EXPECT_TRUE(a.util_known);
  EXPECT_FLOAT_EQ(a.util, 0.6f);
  const Job& b = w.jobs[1];
  EXPECT_EQ(b.name, "ml/b");
  EXPECT_EQ(b.task.gpus, 1);
  EXPECT_EQ(b.task.gpu_milli, 300);
  EXPECT_EQ(b.runtime, Seconds(120));
  EXPECT_FALSE(b.util_known);
  ASSERT_TRUE(d.value().cluster.has_value());
  EXPECT_EQ(d.value().cluster->groups.size(), 2u);
  EXPECT_EQ(d.value().cluster->groups[1].name, "g-1");
  EXPECT_EQ(d.value().cluster->models[0].memory_bytes, int64_t{80} << 30);
  EXPECT_EQ(d.value().warnings.count(kWarnStillRunning), 1);
  EXPECT_EQ(d.value().warnings.count(kWarnTruncatedLine), 1);
}

TEST(K8sShadow, BadLinesNameFileLineAndField) {
  const std::string dir = testutil::TempDir();
  auto write = [&](const std::string& text) {
    const std::string p = dir + "/log.jsonl";
    std::ofstream(p) << text;
    return p;
  };
  auto err = [&](const std::string& text) {
    auto d = ReadK8sShadow(write(text));
    EXPECT_FALSE(d.ok());
    return d.ok() ? std::string() : d.status().message();
  };
  EXPECT_NE(err("{\"v\":2,\"t\":1,\"event\":\"bound\"}\n").find(":1: field 'v'"),
            std::string::npos);
  EXPECT_NE(err("{\"v\":1,\"event\":\"bound\"}\n").find(":1: field 't'"), std::string::npos);
  EXPECT_NE(err("{\"v\":1,\"t\":1,\"event\":\"bound\",\"pod\":\"a\",\"gpus\":1}\n")
                .find(":1: field 'gpu_milli'"),
            std::string::npos);
  EXPECT_NE(err("not json\n{\"v\":1,\"t\":1,\"event\":\"finished\",\"pod\":\"a\"}\n")
                .find(":1: not a JSON object"),
            std::string::npos);
  EXPECT_NE(err("{\"v\":1,\"t\":1,\"event\":\"jump\",\"pod\":\"a\"}\n").find("field 'event'"),
            std::string::npos);
  EXPECT_FALSE(ReadK8sShadow(dir + "/missing.jsonl").ok());
  EXPECT_TRUE(LooksLikeK8sShadow("{\"v\":1,\"t\":5,\"event\":\"cluster\"}"));
  EXPECT_FALSE(LooksLikeK8sShadow("id,submit_s,runtime_s"));
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim::traces
