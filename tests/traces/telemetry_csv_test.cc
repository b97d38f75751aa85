// DCGM field CSV (MIGProfiler recorder) and Alibaba GenAI per-pod series.
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

TEST(TelemetryDcgmCsv, ReadsInstancesBlanksAndOrder) {
  TelemetryOptions opt;
  opt.host = "a100";
  auto r = ReadDcgmFieldCsv(Fixture("telemetry/dcgm_field.csv"), opt);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const TelemetryData& t = r.value();
  ASSERT_EQ(t.tracks.size(), 2u);
  const UtilTrack& e0 = t.tracks[0];
  EXPECT_EQ(e0.host, "a100");
  EXPECT_EQ(e0.gpu, -1);
  EXPECT_EQ(e0.gpu_instance, "0");
  EXPECT_EQ(e0.signal, UtilSignal::kGrEngineActive);
  EXPECT_EQ(e0.time,
            (std::vector<Micros>{Seconds(1657289505), Seconds(1657289506), Seconds(1657289508)}));
  EXPECT_EQ(e0.busy, (std::vector<float>{0.0f, 0.5f, 0.25f}));
  EXPECT_EQ(e0.mem_bytes, (std::vector<int64_t>{4 * kMiB, 2534 * kMiB, -1}));  // 2147483647 blank
  const UtilTrack& e1 = t.tracks[1];
  EXPECT_EQ(e1.gpu_instance, "1");
  EXPECT_EQ(e1.busy, (std::vector<float>{0.9f}));
  EXPECT_EQ(e1.mem_bytes, (std::vector<int64_t>{100 * kMiB}));
  EXPECT_EQ(t.rows_read, 6);
  EXPECT_EQ(t.warnings.count(kWarnNotAvailable), 1);
  EXPECT_EQ(t.warnings.count(kWarnBlank), 1);
  EXPECT_EQ(t.warnings.count(kWarnOutOfOrder), 2);       // GRACT and FBUSD of the late row
  EXPECT_EQ(t.warnings.count(kWarnMemoryUnmatched), 1);  // FBUSD of the N/A row
  EXPECT_EQ(t.warnings.total(), 5);
}

TEST(TelemetryDcgmCsv, EntityAsGpuAndMoreFields) {
  const std::string path = WriteFile(TempDir() + "/d.csv",
                                     "EntityId,SMACT,GPUTL,TimeStamp\n"
                                     "3,0.125,50,10.5\n"
                                     "3,0.25,N/A,11.5\n");
  TelemetryOptions opt;
  opt.dcgm_entity_is_gpu = true;
  auto r = ReadDcgmFieldCsv(path, opt);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const TelemetryData& t = r.value();
  ASSERT_EQ(t.tracks.size(), 2u);
  EXPECT_EQ(t.tracks[0].gpu, 3);
  EXPECT_EQ(t.tracks[0].signal, UtilSignal::kGpuUtil);
  EXPECT_EQ(t.tracks[0].busy, (std::vector<float>{0.5f}));
  EXPECT_EQ(t.tracks[1].signal, UtilSignal::kSmActive);
  EXPECT_EQ(t.tracks[1].time, (std::vector<Micros>{Micros(10500000), Micros(11500000)}));
  EXPECT_EQ(t.tracks[1].busy, (std::vector<float>{0.125f, 0.25f}));
  EXPECT_EQ(t.warnings.count(kWarnNotAvailable), 1);
  EXPECT_EQ(t.warnings.count(kWarnNoJoinLabel), 2);
}

TEST(TelemetryDcgmCsv, Errors) {
  const std::string dir = TempDir();
  auto r = ReadDcgmFieldCsv(WriteFile(dir + "/a.csv", "EntityId,GRACT,TimeStamp\n0,abc,1\n"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), dir + "/a.csv:2: field 'GRACT': expected a number, got 'abc'");
  r = ReadDcgmFieldCsv(WriteFile(dir + "/b.csv", "EntityId,FBUSD,TimeStamp\n0,1,1\n"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            dir + "/b.csv:1: expected a utilization column GRACT, SMACT or GPUTL");
  r = ReadDcgmFieldCsv(WriteFile(dir + "/c.csv", "EntityId,GRACT,TimeStamp\n0,0.5,soon\n"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            dir + "/c.csv:2: field 'TimeStamp': expected UNIX seconds, got 'soon'");
}

TEST(TelemetryGenAi, JoinsDutyCycleAndMemoryByPodAndTime) {
  auto r =
      ReadGenAiPodUtil(Fixture("telemetry/genai_duty.csv"), Fixture("telemetry/genai_mem.csv"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  const TelemetryData& t = r.value();
  ASSERT_EQ(t.tracks.size(), 2u);
  const UtilTrack& a = t.tracks[0];
  EXPECT_EQ(a.job, "aaa111");
  EXPECT_EQ(a.host, "");
  EXPECT_EQ(a.signal, UtilSignal::kGpuUtil);
  EXPECT_EQ(a.time,
            (std::vector<Micros>{Seconds(1662858720), Seconds(1662858777), Seconds(1662858834)}));
  EXPECT_EQ(a.busy, (std::vector<float>{0.0f, 0.1f, 0.3f}));
  EXPECT_EQ(a.mem_bytes, (std::vector<int64_t>{33879490560, 1048576, -1}));
  const UtilTrack& b = t.tracks[1];
  EXPECT_EQ(b.job, "bbb222");
  EXPECT_EQ(b.busy, (std::vector<float>{0.5f, static_cast<float>(99.66666666666669 / 100)}));
  EXPECT_EQ(b.mem_bytes, (std::vector<int64_t>{2000000000, -1}));
  EXPECT_EQ(t.rows_read, 10);
  EXPECT_EQ(t.warnings.count(kWarnMemoryOnly), 1);       // ccc333
  EXPECT_EQ(t.warnings.count(kWarnMemoryUnmatched), 1);  // aaa111 at 1662858891
  EXPECT_EQ(t.warnings.total(), 2);
}

TEST(TelemetryGenAi, WithoutMemoryAndErrors) {
  auto r = ReadGenAiPodUtil(Fixture("telemetry/genai_duty.csv"), "");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r.value().tracks.size(), 2u);
  EXPECT_TRUE(r.value().tracks[0].mem_bytes.empty());
  EXPECT_EQ(r.value().warnings.total(), 0);

  const std::string dir = TempDir();
  r = ReadGenAiPodUtil(WriteFile(dir + "/d.csv", "value,timestamp_anon\n1,2\n"), "");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            dir + "/d.csv:1: expected the columns value, timestamp_anon, container_ip");
  r = ReadGenAiPodUtil(WriteFile(dir + "/e.csv", "value,timestamp_anon,container_ip\nhigh,2,p\n"),
                       "");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            dir + "/e.csv:2: field 'value': expected a percentage 0..100, got 'high'");
  r = ReadGenAiPodUtil(WriteFile(dir + "/f.csv", "value,timestamp_anon,container_ip\n150,2,p\n"),
                       "");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value().warnings.count(kWarnRange), 1);
  EXPECT_TRUE(r.value().tracks.empty());
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim::traces
