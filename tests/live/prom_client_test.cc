// PromClient and StepFor (utilsim/live/prometheus.h) against a local fake
// of Prometheus' HTTP API (fake_prometheus.h) serving recorded response
// bodies: success (vector, matrix), status "error" with errorType (HTTP 400,
// 422, 503), an HTTP 503 without JSON, malformed JSON, a transport error;
// URL parsing with a path prefix; the 11,000-points guard and StepFor.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "child_process.h"
#include "fake_prometheus.h"
#include "utilsim/live/prometheus.h"

namespace utilsim::live {
namespace UTILSIM_UNITY_ID {

using testutil::FakePrometheus;

bool Has(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// Recorded Prometheus 2.42 bodies (shapes per docs/querying/api.md).
constexpr char kVector[] =
    R"({"resultType":"vector","result":[{"metric":{"__name__":"DCGM_FI_DEV_GPU_UTIL","Hostname":"node-a","gpu":"0","instance":"127.0.0.1:9400","job":"dcgm"},"value":[1700000100.5,"90"]}]})";
constexpr char kMatrix[] =
    R"({"resultType":"matrix","result":[{"metric":{"__name__":"DCGM_FI_DEV_GPU_UTIL","Hostname":"node-a","gpu":"0"},"values":[[1700000000,"90"],[1700000060,"10"]]}]})";
constexpr char kBadData[] =
    R"({"status":"error","errorType":"bad_data","error":"invalid parameter \"query\": 1:21: parse error: unexpected \"}\""})";
constexpr char kExecution[] =
    R"({"status":"error","errorType":"execution","error":"found duplicate series for the match group"})";
constexpr char kTimeout[] =
    R"({"status":"error","errorType":"timeout","error":"query timed out in expression evaluation"})";

void Reply(const FakePrometheus::Request& r, httplib::Response& res) {
  const std::string q = r.params.count("query") ? r.params.at("query") : "";
  if (q == "vector") {
    FakePrometheus::Success(res, kVector);
  } else if (q == "matrix") {
    FakePrometheus::Success(res, kMatrix);
  } else if (q == "bad") {
    res.status = 400;
    res.set_content(kBadData, "application/json");
  } else if (q == "exec") {
    res.status = 422;
    res.set_content(kExecution, "application/json");
  } else if (q == "timeout") {
    res.status = 503;
    res.set_content(kTimeout, "application/json");
  } else if (q == "plain503") {
    res.status = 503;
    res.set_content("Service Unavailable", "text/plain");
  } else if (q == "malformed") {
    res.set_content(R"({"status":"success","data":{"resultType":)", "application/json");
  } else if (q == "nodata") {
    res.set_content(R"({"status":"success"})", "application/json");
  } else {
    res.status = 404;
  }
}

TEST(PromStepTest, SmallestStepUnderElevenThousandPoints) {
  struct Case {
    int64_t start, end, min_step, want;
  } cases[] = {
      {0, 0, 1, 1},
      {0, 10999, 1, 1},
      {0, 11000, 1, 2},  // 11,001 points at 1 s
      {0, 21999, 1, 2},
      {0, 22000, 1, 3},
      {100, 50, 1, 1},  // empty range
      {0, 2592000, 1, 236},
      {0, 2592000, 300, 300},
      {0, 3600, 0, 1},  // min_step < 1 -> 1
      {0, 86400 * 365, 15, 2867},
  };
  for (const Case& c : cases) {
    const int64_t step = StepFor(c.start, c.end, c.min_step);
    EXPECT_EQ(step, c.want) << c.start << ".." << c.end << " min " << c.min_step;
    EXPECT_LE((c.end - c.start) / step + 1, 11000) << c.start << ".." << c.end;
    if (step > std::max<int64_t>(1, c.min_step) && c.end > c.start) {
      EXPECT_GT((c.end - c.start) / (step - 1) + 1, 11000) << "not the smallest";
    }
  }
}

TEST(PromClientTest, UrlsAndPathPrefix) {
  for (const char* bad : {"localhost:9090", "ftp://h:1", "http://", "http://h:0", "http://h:70000",
                          "http://h:x", "http://h/p?q=1", "http://u@h:1", "http://:9090"}) {
    auto c = PromClient::Create(bad);
    EXPECT_FALSE(c.ok()) << bad;
    if (!c.ok()) {
      EXPECT_TRUE(Has(c.status().message(), bad)) << c.status().message();
    }
  }
  FakePrometheus fake(Reply);
  auto c = PromClient::Create(fake.url() + "/prometheus/");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c.value().url(), fake.url() + "/prometheus/");
  auto r = c.value().Query("vector", 1700000100.25);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(fake.requests().size(), 1u);
  EXPECT_EQ(fake.requests()[0].path, "/prometheus/api/v1/query");
  EXPECT_EQ(fake.requests()[0].params.at("time"), "1700000100.250");
  EXPECT_TRUE(PromClient::Create("https://[::1]:9090").ok());
  EXPECT_TRUE(PromClient::Create("http://prom.example").ok());
}

TEST(PromClientTest, SuccessReturnsData) {
  FakePrometheus fake(Reply);
  auto c = PromClient::Create(fake.url()).value();
  auto v = c.Query("vector", 1700000100);
  ASSERT_TRUE(v.ok()) << v.status().message();
  EXPECT_EQ(v.value()["resultType"], "vector");
  EXPECT_EQ(v.value()["result"][0]["value"][1], "90");
  auto m = c.QueryRange("matrix", 1700000000, 1700000060, 60);
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m.value()["result"][0]["values"].size(), 2u);
  const auto reqs = fake.requests();
  ASSERT_EQ(reqs.size(), 2u);
  EXPECT_EQ(reqs[1].path, "/api/v1/query_range");
  EXPECT_EQ(reqs[1].params.at("start"), "1700000000.000");
  EXPECT_EQ(reqs[1].params.at("end"), "1700000060.000");
  EXPECT_EQ(reqs[1].params.at("step"), "60");
}

TEST(PromClientTest, ErrorsQuoteErrorTypeAndError) {
  FakePrometheus fake(Reply);
  auto c = PromClient::Create(fake.url()).value();
  auto bad = c.Query("bad", 1);
  ASSERT_FALSE(bad.ok());
  const std::string m = bad.status().message();
  EXPECT_TRUE(Has(m, fake.url() + "/api/v1/query")) << m;
  EXPECT_TRUE(Has(m, "HTTP 400")) << m;
  EXPECT_TRUE(Has(m, "bad_data: invalid parameter \"query\": 1:21: parse error")) << m;
  auto exec = c.Query("exec", 1);
  ASSERT_FALSE(exec.ok());
  EXPECT_TRUE(Has(exec.status().message(), "HTTP 422: query failed: execution: found duplicate"))
      << exec.status().message();
  auto timeout = c.QueryRange("timeout", 0, 60, 15);
  ASSERT_FALSE(timeout.ok());
  EXPECT_TRUE(Has(timeout.status().message(),
                  "/api/v1/query_range: HTTP 503: query failed: "
                  "timeout: query timed out"))
      << timeout.status().message();
  auto plain = c.Query("plain503", 1);
  ASSERT_FALSE(plain.ok());
  EXPECT_TRUE(Has(plain.status().message(), "HTTP 503: 'Service Unavailable'"))
      << plain.status().message();
  auto malformed = c.Query("malformed", 1);
  ASSERT_FALSE(malformed.ok());
  EXPECT_TRUE(Has(malformed.status().message(), "malformed JSON")) << malformed.status().message();
  auto nodata = c.Query("nodata", 1);
  ASSERT_FALSE(nodata.ok());
  EXPECT_TRUE(Has(nodata.status().message(), "without a \"data\" object"))
      << nodata.status().message();
  auto missing = c.Query("nope", 1);
  ASSERT_FALSE(missing.ok());
  EXPECT_TRUE(Has(missing.status().message(), "HTTP 404")) << missing.status().message();
}

TEST(PromClientTest, TransportErrorNamesTheUrl) {
  const std::string url = "http://127.0.0.1:" + std::to_string(testutil::FreeLocalPort());
  auto c = PromClient::Create(url, 500).value();
  auto r = c.Query("up", 1);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(Has(r.status().message(), url + "/api/v1/query: request failed"))
      << r.status().message();
}

TEST(PromClientTest, RangeGuardRefusesMoreThanElevenThousandPoints) {
  FakePrometheus fake(Reply);
  auto c = PromClient::Create(fake.url()).value();
  auto r = c.QueryRange("matrix", 0, 11000, 1);  // 11,001 points
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(Has(r.status().message(), "11001 points")) << r.status().message();
  EXPECT_TRUE(Has(r.status().message(), "11,000")) << r.status().message();
  EXPECT_TRUE(Has(r.status().message(), "StepFor: 2 s")) << r.status().message();
  EXPECT_TRUE(fake.requests().empty()) << "refused before any request";
  EXPECT_TRUE(c.QueryRange("matrix", 0, 10999, 1).ok());
  EXPECT_FALSE(c.QueryRange("matrix", 0, 60, 0).ok());
  EXPECT_FALSE(c.QueryRange("matrix", 60, 0, 1).ok());
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim::live
