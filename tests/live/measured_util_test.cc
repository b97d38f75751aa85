// MeasuredUtil (utilsim/live/prometheus.h) on recorded range-selector
// results served by a fake Prometheus: the query it sends, GPU_UTIL / 100
// and PROF ratios as they are, labels (Hostname/hostname, gpu, pod and
// namespace, old pod_name/pod_namespace), staleness (a series 3 x the
// scrape interval old is absent and counted stale), DCGM blank sentinels
// and NaN as warnings, MIG instances averaged, errors passed on, and
// Start/Current/Stop on the thread (Stop prompt).
#include <gtest/gtest.h>

#include <chrono>

#include "fake_prometheus.h"
#include "utilsim/live/prometheus.h"

namespace utilsim::live {
namespace UTILSIM_UNITY_ID {

using testutil::FakePrometheus;

bool Has(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}
bool AnyHas(const std::vector<std::string>& v, const std::string& part) {
  for (const auto& s : v)
    if (Has(s, part)) return true;
  return false;
}

// Query time 1700000100 s; scrape interval 10 s: fresh up to 20 s old.
constexpr int64_t kNowMs = 1700000100000;
constexpr char kMatrix[] = R"({"resultType":"matrix","result":[
 {"metric":{"__name__":"DCGM_FI_DEV_GPU_UTIL","Hostname":"node-a","gpu":"0","UUID":"GPU-a0","pod":"train-a","namespace":"ml","container":"main","job":"dcgm"},
  "values":[[1700000060,"10"],[1700000070,"20"],[1700000080,"50"],[1700000090,"90"]]},
 {"metric":{"__name__":"DCGM_FI_DEV_GPU_UTIL","Hostname":"node-a","gpu":"1","UUID":"GPU-a1","job":"dcgm"},
  "values":[[1700000085,"30"],[1700000095,"100"]]},
 {"metric":{"__name__":"DCGM_FI_DEV_GPU_UTIL","hostname":"node-b","gpu":"0","UUID":"GPU-b0","pod_name":"train-a","pod_namespace":"ml","job":"dcgm"},
  "values":[[1700000099.5,"10"]]},
 {"metric":{"__name__":"DCGM_FI_DEV_GPU_UTIL","Hostname":"node-b","gpu":"1","UUID":"GPU-b1","job":"dcgm"},
  "values":[[1700000060,"80"],[1700000070,"70"]]},
 {"metric":{"__name__":"DCGM_FI_DEV_GPU_UTIL","Hostname":"node-c","gpu":"0","UUID":"GPU-c0","job":"dcgm"},
  "values":[[1700000095,"9223372036854775794"]]},
 {"metric":{"__name__":"DCGM_FI_DEV_GPU_UTIL","Hostname":"node-c","gpu":"1","UUID":"GPU-c1","job":"dcgm"},
  "values":[[1700000095,"NaN"]]},
 {"metric":{"__name__":"DCGM_FI_DEV_GPU_UTIL","Hostname":"node-c","gpu":"2","UUID":"GPU-c2","job":"dcgm"},
  "values":[[1700000095,"18446744073709551615"]]},
 {"metric":{"__name__":"DCGM_FI_DEV_GPU_UTIL","Hostname":"node-d","gpu":"0","GPU_I_ID":"1","job":"dcgm"},
  "values":[[1700000090,"20"]]},
 {"metric":{"__name__":"DCGM_FI_DEV_GPU_UTIL","Hostname":"node-d","gpu":"0","GPU_I_ID":"2","job":"dcgm"},
  "values":[[1700000095,"60"]]},
 {"metric":{"__name__":"DCGM_FI_DEV_GPU_UTIL","gpu":"3","pod":"lonely","namespace":"ml","job":"dcgm"},
  "values":[[1700000095,"40"]]}
]})";

MeasuredUtilOptions Opts() {
  MeasuredUtilOptions o;
  o.scrape_interval_s = 10;
  o.extra_selector = "job=\"dcgm\"";
  return o;
}

TEST(MeasuredUtilTest, PollAppliesStalenessSentinelsAndLabels) {
  FakePrometheus fake([](const FakePrometheus::Request&, httplib::Response& res) {
    FakePrometheus::Success(res, kMatrix);
  });
  MeasuredUtil util(PromClient::Create(fake.url()).value(), Opts());
  auto snap = util.Poll(kNowMs);
  ASSERT_TRUE(snap.ok()) << snap.status().message();
  const MeasuredSnapshot& s = snap.value();
  // One range-selector query over 5 x the scrape interval, at now.
  ASSERT_EQ(fake.requests().size(), 1u);
  EXPECT_EQ(fake.requests()[0].path, "/api/v1/query");
  EXPECT_EQ(fake.requests()[0].params.at("query"), "DCGM_FI_DEV_GPU_UTIL{job=\"dcgm\"}[50s]");
  EXPECT_EQ(fake.requests()[0].params.at("time"), "1700000100.000");
  EXPECT_EQ(s.taken_unix_ms, kNowMs);
  EXPECT_EQ(s.metric, "DCGM_FI_DEV_GPU_UTIL");
  // Newest sample of each series, / 100.
  ASSERT_EQ(s.gpus.count("node-a"), 1u);
  EXPECT_NEAR(s.gpus.at("node-a").at(0).busy, 0.9, 1e-12);
  EXPECT_EQ(s.gpus.at("node-a").at(0).sample_unix_ms, 1700000090000);
  EXPECT_NEAR(s.gpus.at("node-a").at(1).busy, 1.0, 1e-12);
  EXPECT_NEAR(s.gpus.at("node-b").at(0).busy, 0.1, 1e-12);  // lowercase hostname
  EXPECT_EQ(s.gpus.at("node-b").at(0).sample_unix_ms, 1700000099500);
  // node-b GPU 1: newest sample 30 s = 3 x scrape old -> stale, absent.
  EXPECT_EQ(s.gpus.at("node-b").count(1), 0u);
  EXPECT_EQ(s.stale, 1u);
  // node-c: two blank sentinels and a NaN -> warnings, no readings.
  EXPECT_EQ(s.gpus.count("node-c"), 0u);
  EXPECT_TRUE(AnyHas(s.warnings, "DCGM blank value '9223372036854775794'"));
  EXPECT_TRUE(AnyHas(s.warnings, "DCGM blank value '18446744073709551615'"));
  EXPECT_TRUE(AnyHas(s.warnings, "non-finite value 'NaN'"));
  // node-d: two MIG instances of GPU 0, averaged, with the older time.
  EXPECT_NEAR(s.gpus.at("node-d").at(0).busy, 0.4, 1e-12);
  EXPECT_EQ(s.gpus.at("node-d").at(0).sample_unix_ms, 1700000090000);
  EXPECT_TRUE(AnyHas(s.warnings, "node node-d gpu 0: 2 series"));
  // A series without host: a warning, no GPU entry, but its pod counts.
  EXPECT_TRUE(AnyHas(s.warnings, "series without host"));
  EXPECT_NEAR(s.pods.at("ml/lonely"), 0.4, 1e-12);
  // ml/train-a: node-a GPU 0 (0.9, new labels) and node-b GPU 0 (0.1, old
  // pod_name/pod_namespace labels) -> mean 0.5.
  EXPECT_NEAR(s.pods.at("ml/train-a"), 0.5, 1e-12);
  EXPECT_EQ(s.pods.size(), 2u);
  // Fresh: a0, a1, b0, d0 x2, lonely.
  EXPECT_EQ(s.fresh, 6u);
}

TEST(MeasuredUtilTest, ProfRatiosAsTheyAre) {
  FakePrometheus fake([](const FakePrometheus::Request&, httplib::Response& res) {
    FakePrometheus::Success(
        res,
        R"({"resultType":"matrix","result":[{"metric":{"__name__":"DCGM_FI_PROF_GR_ENGINE_ACTIVE","Hostname":"n","gpu":"0"},"values":[[1700000099,"0.25"]]},{"metric":{"__name__":"DCGM_FI_PROF_GR_ENGINE_ACTIVE","Hostname":"n","gpu":"1"},"values":[[1700000099,"1.5"]]}]})");
  });
  MeasuredUtilOptions o = Opts();
  o.metric = "DCGM_FI_PROF_GR_ENGINE_ACTIVE";
  o.extra_selector.clear();
  MeasuredUtil util(PromClient::Create(fake.url()).value(), o);
  auto snap = util.Poll(kNowMs);
  ASSERT_TRUE(snap.ok()) << snap.status().message();
  EXPECT_EQ(fake.requests()[0].params.at("query"), "DCGM_FI_PROF_GR_ENGINE_ACTIVE[50s]");
  EXPECT_NEAR(snap.value().gpus.at("n").at(0).busy, 0.25, 1e-12);
  EXPECT_EQ(snap.value().gpus.at("n").count(1), 0u);  // 1.5 is out of range
  EXPECT_TRUE(AnyHas(snap.value().warnings, "value out of range '1.5'"));
}

TEST(MeasuredUtilTest, ErrorsArePassedOn) {
  FakePrometheus fake([](const FakePrometheus::Request&, httplib::Response& res) {
    res.status = 422;
    res.set_content(R"({"status":"error","errorType":"execution","error":"boom"})",
                    "application/json");
  });
  MeasuredUtil util(PromClient::Create(fake.url()).value(), Opts());
  auto snap = util.Poll(kNowMs);
  ASSERT_FALSE(snap.ok());
  EXPECT_TRUE(Has(snap.status().message(), "execution: boom")) << snap.status().message();
  MeasuredUtilOptions o = Opts();
  o.metric = "DCGM_FI_DEV_FB_USED";
  MeasuredUtil mem(PromClient::Create(fake.url()).value(), o);
  auto m = mem.Poll(kNowMs);
  ASSERT_FALSE(m.ok());
  EXPECT_TRUE(Has(m.status().message(), "not DCGM_FI_DEV_GPU_UTIL")) << m.status().message();
}

TEST(MeasuredUtilTest, BadResultShapeIsAnError) {
  FakePrometheus fake([](const FakePrometheus::Request&, httplib::Response& res) {
    FakePrometheus::Success(res, R"({"resultType":"scalar","result":[1,"2"]})");
  });
  MeasuredUtil util(PromClient::Create(fake.url()).value(), Opts());
  auto snap = util.Poll(kNowMs);
  ASSERT_FALSE(snap.ok());
  EXPECT_TRUE(Has(snap.status().message(), "field 'data.resultType'")) << snap.status().message();
}

TEST(MeasuredUtilTest, StartPollsAndStopIsPrompt) {
  FakePrometheus fake([](const FakePrometheus::Request& r, httplib::Response& res) {
    // Fresh at whatever time the thread asks.
    const std::string t = r.params.at("time");
    FakePrometheus::Success(
        res,
        R"({"resultType":"matrix","result":[{"metric":{"Hostname":"n","gpu":"0"},"values":[[)" + t +
            R"(,"42"]]}]})");
  });
  MeasuredUtilOptions o = Opts();
  o.poll_s = 15;
  MeasuredUtil util(PromClient::Create(fake.url()).value(), o);
  EXPECT_EQ(util.Current(), nullptr);
  util.Start();
  util.Start();  // idempotent
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (!util.Current() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  auto cur = util.Current();
  ASSERT_NE(cur, nullptr) << util.last_error();
  EXPECT_NEAR(cur->gpus.at("n").at(0).busy, 0.42, 1e-12);
  EXPECT_EQ(util.polls(), 1u);
  EXPECT_EQ(util.errors(), 0u);
  const auto t0 = std::chrono::steady_clock::now();
  util.Stop();  // wakes the 15 s wait at once
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(1));
  EXPECT_EQ(fake.requests().size(), 1u);
  EXPECT_NE(util.Current(), nullptr) << "the last snapshot stays";
}

TEST(MeasuredUtilTest, ThreadCountsErrors) {
  FakePrometheus fake([](const FakePrometheus::Request&, httplib::Response& res) {
    res.status = 503;
    res.set_content("down", "text/plain");
  });
  MeasuredUtil util(PromClient::Create(fake.url()).value(), Opts());
  util.Start();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (util.errors() == 0 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  util.Stop();
  EXPECT_EQ(util.errors(), 1u);
  EXPECT_EQ(util.Current(), nullptr);
  EXPECT_TRUE(Has(util.last_error(), "HTTP 503")) << util.last_error();
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim::live
