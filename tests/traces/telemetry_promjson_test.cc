// Prometheus query_range JSON: labels, metric from __name__ or option,
// memory from a second query file, NaN/Inf, order, errors.
#include <gtest/gtest.h>

#include <string>

#include "testutil/testutil.h"
#include "utilsim/traces/telemetry.h"

namespace utilsim::traces {
namespace UTILSIM_UNITY_ID {

using testutil::Fixture;
using testutil::TempDir;
using testutil::WriteFile;

constexpr int64_t kMiB = 1 << 20;
constexpr int64_t kT0 = 1700000000;

std::string ErrorOf(const std::string& json, const std::string& metric = "") {
  const std::string path = WriteFile(TempDir() + "/q.json", json);
  auto r = ReadPromQueryRange(std::vector<PromQueryFile>{{path, metric}});
  EXPECT_FALSE(r.ok());
  if (r.ok()) return "";
  const std::string m = r.status().message();
  EXPECT_EQ(m.rfind(path, 0), 0u) << m;
  return m.substr(path.size());
}

TEST(TelemetryPromJson, ReadsMatrixAndJoinsMemoryFromAnotherQuery) {
  std::vector<PromQueryFile> files{
      {Fixture("telemetry/query_range_sm.json"), ""},
      {Fixture("telemetry/query_range_fb.json"), "DCGM_FI_DEV_FB_USED"}};
  auto r = ReadPromQueryRange(files);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const TelemetryData& t = r.value();
  ASSERT_EQ(t.tracks.size(), 2u);

  const UtilTrack& a = t.tracks[0];
  EXPECT_EQ(a.job, "");
  EXPECT_EQ(a.host, "node-1");  // "Hostname"
  EXPECT_EQ(a.gpu, 0);
  EXPECT_EQ(a.signal, UtilSignal::kSmActive);
  EXPECT_EQ(a.time,
            (std::vector<Micros>{Seconds(kT0), Micros(1700000030500000), Seconds(kT0 + 90)}));
  EXPECT_EQ(a.busy, (std::vector<float>{0.5f, 0.25f, 1.0f}));
  // FB_USED at +90 is the DCGM FP64 blank (2^47).
  EXPECT_EQ(a.mem_bytes, (std::vector<int64_t>{100 * kMiB, 200 * kMiB, -1}));

  const UtilTrack& b = t.tracks[1];
  EXPECT_EQ(b.job, "infer-3");
  EXPECT_EQ(b.namespace_name, "serve");
  EXPECT_EQ(b.container, "vllm");
  EXPECT_EQ(b.host, "node-1");  // "hostname"
  EXPECT_EQ(b.gpu, 1);
  EXPECT_EQ(b.gpu_instance, "7");
  EXPECT_EQ(b.time, (std::vector<Micros>{Seconds(kT0), Seconds(kT0 + 60)}));
  ASSERT_EQ(b.busy.size(), 2u);
  EXPECT_EQ(b.busy[0], 0.1f);
  EXPECT_GE(b.busy[1], 0.0f);  // 1.4e-45 is a tiny value, not a DCGM sentinel
  EXPECT_LT(b.busy[1], 1e-40f);
  EXPECT_TRUE(b.mem_bytes.empty());

  EXPECT_EQ(t.warnings.count(kWarnOutOfOrder), 1);
  EXPECT_EQ(t.warnings.count(kWarnNonFinite), 2);
  EXPECT_EQ(t.warnings.count(kWarnBlank), 1);
  EXPECT_EQ(t.warnings.total(), 4);
  EXPECT_EQ(t.warnings.examples().at(kWarnNonFinite).front(),
            files[0].path + ": data.result[0].values[3]: 'NaN'");
  EXPECT_EQ(t.rows_read, 11);
  bool warned = false, skipped = false;
  for (const std::string& n : t.notes) {
    warned = warned || n.find("Prometheus warning: query returned partial data") != n.npos;
    skipped = skipped || n == "skipped 1 samples of metric DCGM_FI_DEV_GPU_TEMP";
  }
  EXPECT_TRUE(warned);
  EXPECT_TRUE(skipped);
}

TEST(TelemetryPromJson, VectorResultAndMetricOption) {
  const std::string path = WriteFile(TempDir() + "/v.json",
                                     R"({"status":"success","data":{"resultType":"vector","result":[
                   {"metric":{"pod":"p"},"value":[1700000000.25,"45"]}]}})");
  TelemetryOptions opt;
  opt.metric = "DCGM_FI_DEV_GPU_UTIL";
  auto r = ReadPromQueryRange(path, opt);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r.value().tracks.size(), 1u);
  EXPECT_EQ(r.value().tracks[0].job, "p");
  EXPECT_EQ(r.value().tracks[0].signal, UtilSignal::kGpuUtil);
  EXPECT_EQ(r.value().tracks[0].time, (std::vector<Micros>{Micros(1700000000250000)}));
  EXPECT_EQ(r.value().tracks[0].busy, (std::vector<float>{0.45f}));
}

TEST(TelemetryPromJson, EveryTruncationIsRejectedWithTheFileName) {
  const std::string text = testutil::ReadFile(Fixture("telemetry/query_range_sm.json"));
  const std::string path = TempDir() + "/cut.json";
  for (size_t n = 0; n < text.size() - 2; n += 3) {
    WriteFile(path, text.substr(0, n));
    auto r = ReadPromQueryRange(path);
    ASSERT_FALSE(r.ok()) << n;
    EXPECT_EQ(r.status().message().rfind(path + ":", 0), 0u) << r.status().message();
  }
}

TEST(TelemetryPromJson, Errors) {
  EXPECT_EQ(ErrorOf(R"({"status":"error","errorType":"bad_data","error":"parse error"})"),
            ": query failed: bad_data: parse error");
  EXPECT_EQ(ErrorOf("{\"status\":\"success\",\n\"data\": [1,}").rfind(":2: invalid JSON (", 0), 0u);
  // A number beyond double range is an error, not an exception (out_of_range.406).
  EXPECT_EQ(ErrorOf("{\"status\": 1" + std::string(400, '0') + "}").rfind(": invalid JSON (", 0),
            0u);
  EXPECT_EQ(ErrorOf(R"({"status":"success","data":{"resultType":"scalar","result":[]}})"),
            ": field 'data.resultType': expected \"matrix\" or \"vector\", got 'scalar'");
  EXPECT_EQ(ErrorOf(R"({"status":"success","data":{"resultType":"matrix","result":[
                 {"metric":{"__name__":"DCGM_FI_DEV_GPU_UTIL"},"values":[[1,"x"]]}]}})"),
            ": field 'data.result[0].values[0][1]': expected a number, got 'x'");
  EXPECT_EQ(ErrorOf(R"({"status":"success","data":{"resultType":"matrix","result":[
                 {"metric":{"__name__":"DCGM_FI_DEV_GPU_UTIL"},"values":[[1,2]]}]}})"),
            ": field 'data.result[0].values[0]': expected [<unix seconds>, \"<value>\"], got "
            "'[1,2]'");
  EXPECT_EQ(ErrorOf(R"({"status":"success","data":{"resultType":"matrix","result":[
                 {"metric":{"gpu":"0"},"values":[]}]}})"),
            ": field 'data.result[0].metric': expected a __name__ label (or a metric option), "
            "got '{\"gpu\":\"0\"}'");
  EXPECT_EQ(ErrorOf(R"({"status":"success","data":{"resultType":"matrix","result":[]}})",
                    "DCGM_FI_DEV_GPU_TEMP"),
            ": metric: expected DCGM_FI_DEV_GPU_UTIL, DCGM_FI_PROF_SM_ACTIVE, "
            "DCGM_FI_PROF_GR_ENGINE_ACTIVE, DCGM_FI_DEV_FB_USED or DCGM_FI_DEV_POWER_USAGE, got "
            "'DCGM_FI_DEV_GPU_TEMP'");
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim::traces
