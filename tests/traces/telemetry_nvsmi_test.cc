// nvidia-smi --query-gpu CSV with and without units, [N/A], repeated
// headers, order, errors.
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
// 2024/01/31 12:00:00 as UNIX seconds (the clock read as UTC).
constexpr int64_t kNoon = 1706702400;

std::string ErrorOf(const std::string& text) {
  const std::string path = WriteFile(TempDir() + "/smi.csv", text);
  auto r = ReadNvidiaSmiCsv(path);
  EXPECT_FALSE(r.ok());
  if (r.ok()) return "";
  const std::string m = r.status().message();
  EXPECT_EQ(m.rfind(path, 0), 0u) << m;
  return m.substr(path.size());
}

TEST(TelemetryNvidiaSmi, WithUnits) {
  TelemetryOptions opt;
  opt.host = "smi-host";
  auto r = ReadNvidiaSmiCsv(Fixture("telemetry/nvidia_smi_units.csv"), opt);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const TelemetryData& t = r.value();
  ASSERT_EQ(t.tracks.size(), 2u);
  const UtilTrack& g0 = t.tracks[0];
  EXPECT_EQ(g0.host, "smi-host");
  EXPECT_EQ(g0.gpu, 0);
  EXPECT_EQ(g0.signal, UtilSignal::kGpuUtil);
  EXPECT_EQ(g0.time, (std::vector<Micros>{Micros(kNoon * 1000000 + 123000),
                                          Micros((kNoon + 1) * 1000000 + 123000)}));
  EXPECT_EQ(g0.busy, (std::vector<float>{0.45f, 0.55f}));
  EXPECT_EQ(g0.mem_bytes, (std::vector<int64_t>{1024 * kMiB, -1}));  // [N/A] at 01.123
  const UtilTrack& g1 = t.tracks[1];
  EXPECT_EQ(g1.gpu, 1);
  EXPECT_EQ(g1.time, (std::vector<Micros>{Micros((kNoon + 1) * 1000000 + 125000)}));
  EXPECT_EQ(g1.busy, (std::vector<float>{1.0f}));
  EXPECT_EQ(g1.mem_bytes, (std::vector<int64_t>{4096 * kMiB}));
  EXPECT_EQ(t.rows_read, 5);
  EXPECT_EQ(t.warnings.count(kWarnNotAvailable), 3);     // utilization, memory and power [N/A]
  EXPECT_EQ(t.warnings.count(kWarnOutOfOrder), 2);       // the 00.500 row of GPU 0 (util, power)
  EXPECT_EQ(t.warnings.count(kWarnMemoryUnmatched), 2);  // memory of rows without util
  EXPECT_EQ(t.warnings.total(), 7);
  EXPECT_EQ(t.warnings.examples().at(kWarnNotAvailable).front(),
            Fixture("telemetry/nvidia_smi_units.csv") + ":3: utilization.gpu [%] '[N/A]'");
}

TEST(TelemetryNvidiaSmi, WithoutUnitsAndRepeatedHeader) {
  auto r = ReadNvidiaSmiCsv(Fixture("telemetry/nvidia_smi_nounits.csv"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  const TelemetryData& t = r.value();
  ASSERT_EQ(t.tracks.size(), 1u);
  const UtilTrack& g = t.tracks[0];
  constexpr int64_t kBase = 1605188891;  // 2020/11/12 13:48:11
  EXPECT_EQ(g.host, "");
  EXPECT_EQ(g.time,
            (std::vector<Micros>{Micros(kBase * 1000000 + 412000),
                                 Micros((kBase + 2) * 1000000 + 412000), Seconds(kBase + 3)}));
  EXPECT_EQ(g.busy, (std::vector<float>{0.99f, 0.0f, 0.25f}));
  EXPECT_EQ(g.mem_bytes, (std::vector<int64_t>{30994 * kMiB, 0, 100 * kMiB}));
  EXPECT_EQ(t.rows_read, 4);
  EXPECT_EQ(t.warnings.count(kWarnNotAvailable), 1);  // [Not Supported]
  EXPECT_EQ(t.warnings.count(kWarnMemoryUnmatched), 1);
  EXPECT_EQ(t.warnings.count(kWarnNoJoinLabel), 1);  // no host given
  EXPECT_EQ(t.warnings.total(), 3);
  EXPECT_EQ(t.notes.back(), "skipped 1 repeated header rows");
}

TEST(TelemetryNvidiaSmi, Errors) {
  EXPECT_EQ(ErrorOf("timestamp, utilization.gpu [%]\n2024/13/01 00:00:00, 5 %\n"),
            ":2: field 'timestamp': expected a time YYYY/MM/DD HH:MM:SS[.fff], got "
            "'2024/13/01 00:00:00'");
  EXPECT_EQ(ErrorOf("timestamp, utilization.gpu [%]\n2024/01/01 00:00:00, lots\n"),
            ":2: field 'utilization.gpu [%]': expected a percentage 0..100, got 'lots'");
  EXPECT_EQ(ErrorOf("timestamp, index, utilization.gpu [%]\n2024/01/01 00:00:00, -1, 5\n"),
            ":2: field 'index': expected a GPU index (integer >= 0), got '-1'");
  EXPECT_EQ(ErrorOf("timestamp, memory.used [MiB]\n"),
            ":1: missing column 'utilization.gpu' (expected nvidia-smi --query-gpu output with "
            "a header)");
  EXPECT_EQ(ErrorOf("timestamp, utilization.gpu [%], memory.used [GiB]\n"),
            ":1: field 'memory.used': expected the unit [MiB], got '[GiB]'");
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim::traces
