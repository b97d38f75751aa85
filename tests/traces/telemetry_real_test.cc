// Telemetry readers on the real public traces (skipped when absent). Counts
// are those of the folders' SOURCE.md, where it states them, else counted
// from the files.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "testutil/testutil.h"
#include "utilsim/traces/telemetry.h"

namespace utilsim::traces {
namespace UTILSIM_UNITY_ID {

using testutil::TracePath;

TEST(TelemetryReal, MigProfilerDcgmCsv) {
  // SOURCE.md: "DCGM series: 2,048 .. 25,038 samples per experiment", 1 s
  // apart, EntityId 0, GRACT ratio, FBUSD MiB, runs in July 2022.
  struct Exp {
    const char* dir;
    int64_t rows;
  };
  const Exp exps[] = {
      {"finetune_vit", 2048}, {"finetune_moco", 2096}, {"infer_bsz", 25038}, {"infer_seq", 15228}};
  for (const Exp& e : exps) {
    const std::string path =
        TracePath(std::string("migprofiler-a100/A100-40g/") + e.dir + "/dcgm.csv");
    if (path.empty()) GTEST_SKIP() << "migprofiler-a100 trace not present";
    TelemetryOptions opt;
    opt.host = "a100-40g";
    auto r = ReadDcgmFieldCsv(path, opt);
    ASSERT_TRUE(r.ok()) << r.status().message();
    const TelemetryData& t = r.value();
    EXPECT_EQ(t.rows_read, e.rows) << e.dir;
    ASSERT_EQ(t.tracks.size(), 1u) << e.dir;
    const UtilTrack& tr = t.tracks[0];
    EXPECT_EQ(tr.gpu_instance, "0");
    EXPECT_EQ(tr.signal, UtilSignal::kGrEngineActive);
    EXPECT_EQ(static_cast<int64_t>(tr.time.size()), e.rows) << e.dir;  // no duplicates
    EXPECT_EQ(tr.mem_bytes.size(), tr.time.size());
    EXPECT_EQ(t.warnings.total(), 0) << e.dir;
    EXPECT_GE(tr.time.front(), Seconds(1656633600));  // 2022-07-01 UTC
    EXPECT_LT(tr.time.back(), Seconds(1659312000));   // 2022-08-01 UTC
    float lo = 1, hi = 0;
    for (float b : tr.busy) {
      lo = std::min(lo, b);
      hi = std::max(hi, b);
    }
    EXPECT_EQ(lo, 0.0f) << e.dir;
    EXPECT_GT(hi, 0.8f) << e.dir;
    EXPECT_LE(hi, 1.0f) << e.dir;
  }
  if (std::string p = TracePath("migprofiler-a100/A100-40g/finetune_vit/dcgm.csv"); !p.empty()) {
    auto r = ReadDcgmFieldCsv(p);
    ASSERT_TRUE(r.ok());
    const UtilTrack& tr = r.value().tracks[0];
    EXPECT_EQ(tr.time.front(), Seconds(1657289505));  // first row of the file
    EXPECT_EQ(tr.mem_bytes.front(), int64_t{4} << 20);
  }
}

TEST(TelemetryReal, GenAiDutyCycleAndMemory) {
  const std::string duty = TracePath("alibaba-genai-v2026/pod_gpu_duty_cycle_anon.csv");
  const std::string mem = TracePath("alibaba-genai-v2026/pod_gpu_memory_used_bytes_anon.csv");
  if (duty.empty() || mem.empty()) GTEST_SKIP() << "alibaba-genai-v2026 trace not present";
  auto r = ReadGenAiPodUtil(duty, mem);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const TelemetryData& t = r.value();
  // SOURCE.md: 157,417 + 161,413 rows; 143 pods in duty cycle, 144 in memory.
  EXPECT_EQ(t.rows_read, 157417 + 161413);
  ASSERT_EQ(t.tracks.size(), 143u);
  EXPECT_EQ(t.warnings.count(kWarnMemoryOnly), 1);  // the 144th pod
  EXPECT_EQ(t.warnings.count(kWarnOutOfOrder), 0);
  // Counted from the files: memory samples at times without a duty sample.
  EXPECT_EQ(t.warnings.count(kWarnMemoryUnmatched), 3997);
  EXPECT_EQ(t.warnings.total(), 1 + 3997);
  int64_t samples = 0, without_mem = 0;
  double sum = 0;
  float hi = 0;
  std::set<int64_t> times;
  for (const UtilTrack& tr : t.tracks) {
    EXPECT_EQ(tr.signal, UtilSignal::kGpuUtil);
    EXPECT_FALSE(tr.job.empty());
    samples += static_cast<int64_t>(tr.time.size());
    for (size_t i = 0; i < tr.time.size(); ++i) {
      sum += tr.busy[i];
      hi = std::max(hi, tr.busy[i]);
      times.insert(tr.time[i].us);
      if (tr.mem_bytes[i] < 0) ++without_mem;
    }
  }
  EXPECT_EQ(samples, 157417);
  EXPECT_EQ(without_mem, 2);
  // SOURCE.md: 1441 distinct timestamps, 1662858720 .. 1662940800; mean 7.0 %,
  // max 99.7 %.
  EXPECT_EQ(times.size(), 1441u);
  EXPECT_EQ(*times.begin(), Seconds(1662858720).us);
  EXPECT_EQ(*times.rbegin(), Seconds(1662940800).us);
  EXPECT_NEAR(sum / static_cast<double>(samples), 0.070, 0.0005);
  EXPECT_NEAR(hi, 0.997, 0.0005);
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim::traces
