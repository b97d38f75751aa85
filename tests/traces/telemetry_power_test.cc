// Board power and the GPU model in the telemetry readers: power joined to
// the utilization tracks by equal time of the same entity (as memory is),
// -1 for a sample without power, blanks / NaN / negative power counted, the
// model from modelName or nvidia-smi's name column.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "testutil/testutil.h"
#include "utilsim/traces/telemetry.h"

namespace utilsim::traces {
namespace UTILSIM_UNITY_ID {

using testutil::Fixture;
using testutil::TempDir;
using testutil::WriteFile;

constexpr int64_t kT0 = 1700000000;    // UNIX seconds of the first scrape
constexpr int64_t kNoon = 1706702400;  // 2024/01/31 12:00:00 read as UTC
constexpr char kA100[] = "NVIDIA A100-SXM4-80GB";

TelemetryData MustRead(const Result<TelemetryData>& r) {
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? r.value() : TelemetryData{};
}

TEST(TelemetryPower, ExpositionJoinsPowerByTimeOfTheSameGpu) {
  const std::string path = Fixture("telemetry/power_exporter.prom");
  TelemetryData t = MustRead(ReadDcgmExposition(path));
  // GPU 0 (no pod) GPU_UTIL; GPU 1 (pod train-1) GPU_UTIL and SM_ACTIVE.
  ASSERT_EQ(t.tracks.size(), 3u);
  const std::vector<Micros> times{Seconds(kT0), Seconds(kT0 + 30), Seconds(kT0 + 60)};
  const UtilTrack& free = t.tracks[0];
  EXPECT_EQ(free.job, "");
  EXPECT_EQ(free.gpu, 0);
  EXPECT_EQ(free.signal, UtilSignal::kGpuUtil);
  EXPECT_EQ(free.time, times);
  EXPECT_EQ(free.busy, (std::vector<float>{0.0f, 0.0f, 0.0f}));
  EXPECT_EQ(free.power_w, (std::vector<float>{61.25f, 62.5f, -1.0f}));  // blank at +60
  EXPECT_EQ(free.model, kA100);
  EXPECT_TRUE(free.mem_bytes.empty());

  const UtilTrack& util = t.tracks[1];
  const UtilTrack& sm = t.tracks[2];
  EXPECT_EQ(util.job, "train-1");
  EXPECT_EQ(util.signal, UtilSignal::kGpuUtil);
  EXPECT_EQ(util.busy, (std::vector<float>{0.5f, 1.0f, 0.0f}));
  EXPECT_EQ(sm.job, "train-1");
  EXPECT_EQ(sm.signal, UtilSignal::kSmActive);
  EXPECT_EQ(sm.busy, (std::vector<float>{0.25f, 0.75f, 0.0f}));
  for (const UtilTrack* tr : {&util, &sm}) {  // every signal of the GPU gets its power
    EXPECT_EQ(tr->gpu, 1);
    EXPECT_EQ(tr->time, times);
    EXPECT_EQ(tr->power_w, (std::vector<float>{180.5f, 310.75f, -1.0f}));  // negative at +60
    EXPECT_EQ(tr->model, kA100);
  }
  EXPECT_EQ(t.rows_read, 15);
  EXPECT_EQ(t.warnings.count(kWarnBlank), 1);
  EXPECT_EQ(t.warnings.count(kWarnRange), 1);
  EXPECT_EQ(t.warnings.total(), 2);
  EXPECT_EQ(t.warnings.examples().at(kWarnBlank).front(), path + ":18: '140737488355328'");
  EXPECT_EQ(t.warnings.examples().at(kWarnRange).front(), path + ":21: '-5'");
  ASSERT_EQ(t.notes.size(), 1u);  // power is read, not skipped as another metric
}

TEST(TelemetryPower, ExpositionCountsPowerThatJoinsNothing) {
  const std::string path =
      WriteFile(TempDir() + "/p.prom",
                "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",Hostname=\"h\"} 10 1700000000000\n"
                "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",Hostname=\"h\"} 100 1700000000000\n"
                "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",Hostname=\"h\"} 101 1700000015000\n"
                "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",Hostname=\"h\"} 20 1700000030000\n"
                "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",Hostname=\"h\"} +Inf 1700000030000\n"
                "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",Hostname=\"h\"} 30 1700000060000\n"
                "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",Hostname=\"h\"} 200000 1700000060000\n"
                "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",Hostname=\"h\"} 99 1700000000000\n"
                "DCGM_FI_DEV_POWER_USAGE{gpu=\"7\",Hostname=\"h\"} 50 1700000000000\n");
  TelemetryData t = MustRead(ReadDcgmExposition(path));
  ASSERT_EQ(t.tracks.size(), 1u);
  EXPECT_EQ(t.tracks[0].power_w, (std::vector<float>{100.0f, -1.0f, -1.0f}));
  EXPECT_EQ(t.tracks[0].model, "");
  EXPECT_EQ(t.warnings.count(kWarnPowerUnmatched), 1);  // the sample at +15
  EXPECT_EQ(t.warnings.count(kWarnNonFinite), 1);       // +Inf
  EXPECT_EQ(t.warnings.count(kWarnRange), 1);           // 200 kW
  EXPECT_EQ(t.warnings.count(kWarnOutOfOrder), 1);      // the late 99 W
  EXPECT_EQ(t.warnings.count(kWarnPowerOnly), 1);       // GPU 7 has no utilization
  EXPECT_EQ(t.warnings.total(), 5);
  EXPECT_EQ(t.warnings.examples().at(kWarnPowerOnly).front(), "host 'h' gpu 7");
  EXPECT_EQ(t.warnings.examples().at(kWarnOutOfOrder).front(),
            path + ":8: host 'h' gpu 0 power at 1700000000 s, not after 1700000015 s");
}

TEST(TelemetryPower, NvidiaSmiPowerDrawWithUnitsAndNotAvailable) {
  const std::string path = Fixture("telemetry/nvidia_smi_units.csv");
  TelemetryData t = MustRead(ReadNvidiaSmiCsv(path));
  ASSERT_EQ(t.tracks.size(), 2u);
  const UtilTrack& g0 = t.tracks[0];
  EXPECT_EQ(g0.time, (std::vector<Micros>{Micros(kNoon * 1000000 + 123000),
                                          Micros((kNoon + 1) * 1000000 + 123000)}));
  EXPECT_EQ(g0.power_w, (std::vector<float>{592.74f, 600.0f}));  // "592.74 W", "600.00 W"
  EXPECT_EQ(g0.model, "NVIDIA H100 80GB HBM3");
  const UtilTrack& g1 = t.tracks[1];
  EXPECT_EQ(g1.power_w, (std::vector<float>{700.0f}));  // the [N/A] row has no utilization
  EXPECT_EQ(g1.model, "NVIDIA H100 80GB HBM3");
  const std::vector<std::string>& na = t.warnings.examples().at(kWarnNotAvailable);
  ASSERT_EQ(na.size(), 3u);
  EXPECT_EQ(na[1], path + ":3: power.draw [W] '[N/A]'");
}

TEST(TelemetryPower, NvidiaSmiWithoutUnitsAndErrors) {
  const std::string dir = TempDir();
  const std::string ok = WriteFile(dir + "/n.csv",
                                   "timestamp, name, utilization.gpu, power.draw\n"
                                   "2024/01/31 12:00:00, NVIDIA L4, 30, 35.5\n"
                                   "2024/01/31 12:00:01, [N/A], 40, -3\n");
  TelemetryData t = MustRead(ReadNvidiaSmiCsv(ok));
  ASSERT_EQ(t.tracks.size(), 1u);
  EXPECT_EQ(t.tracks[0].power_w, (std::vector<float>{35.5f, -1.0f}));
  EXPECT_EQ(t.tracks[0].model, "NVIDIA L4");
  EXPECT_EQ(t.warnings.count(kWarnRange), 1);
  EXPECT_EQ(t.warnings.examples().at(kWarnRange).front(), ok + ":3: '-3'");

  const std::string unit =
      WriteFile(dir + "/u.csv", "timestamp, utilization.gpu, power.draw [kW]\n");
  auto r = ReadNvidiaSmiCsv(unit);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            unit + ":1: field 'power.draw': expected the unit [W], got '[kW]'");
  const std::string bad = WriteFile(dir + "/b.csv",
                                    "timestamp, utilization.gpu [%], power.draw [W]\n"
                                    "2024/01/31 12:00:00, 5 %, lots W\n");
  r = ReadNvidiaSmiCsv(bad);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            bad + ":2: field 'power.draw [W]': expected watts (a number), got 'lots W'");
}

TEST(TelemetryPower, DcgmFieldCsvPowerColumn) {
  const std::string path = WriteFile(TempDir() + "/d.csv",
                                     "EntityId,SMACT,POWER,TimeStamp\n"
                                     "0,0.5,250.5,1657289505\n"
                                     "0,0.0,N/A,1657289506\n"
                                     "0,0.25,2147483647,1657289507\n");
  TelemetryOptions opt;
  opt.dcgm_entity_is_gpu = true;
  opt.host = "h";
  TelemetryData t = MustRead(ReadDcgmFieldCsv(path, opt));
  ASSERT_EQ(t.tracks.size(), 1u);
  EXPECT_EQ(t.tracks[0].signal, UtilSignal::kSmActive);
  EXPECT_EQ(t.tracks[0].busy, (std::vector<float>{0.5f, 0.0f, 0.25f}));
  EXPECT_EQ(t.tracks[0].power_w, (std::vector<float>{250.5f, -1.0f, -1.0f}));
  EXPECT_EQ(t.tracks[0].model, "");
  EXPECT_EQ(t.warnings.count(kWarnNotAvailable), 1);
  EXPECT_EQ(t.warnings.count(kWarnBlank), 1);
  EXPECT_EQ(t.warnings.total(), 2);
}

TEST(TelemetryPower, PromQueryRangePowerFromAnotherQuery) {
  const std::string dir = TempDir();
  const std::string sm = WriteFile(dir + "/sm.json", R"({"status":"success","data":{
    "resultType":"matrix","result":[{"metric":{"__name__":"DCGM_FI_PROF_SM_ACTIVE","gpu":"0",
    "Hostname":"h","modelName":"NVIDIA H100 80GB HBM3"},
    "values":[[1700000000,"0.5"],[1700000030,"0.25"]]}]}})");
  const std::string power = WriteFile(dir + "/power.json", R"({"status":"success","data":{
    "resultType":"matrix","result":[{"metric":{"gpu":"0","Hostname":"h"},
    "values":[[1700000000,"400.5"],[1700000030,"NaN"],[1700000060,"300"]]}]}})");
  TelemetryData t = MustRead(
      ReadPromQueryRange(std::vector<PromQueryFile>{{sm, ""}, {power, "DCGM_FI_DEV_POWER_USAGE"}}));
  ASSERT_EQ(t.tracks.size(), 1u);
  EXPECT_EQ(t.tracks[0].power_w, (std::vector<float>{400.5f, -1.0f}));
  EXPECT_EQ(t.tracks[0].model, "NVIDIA H100 80GB HBM3");  // from the SM series, same GPU
  EXPECT_EQ(t.warnings.count(kWarnNonFinite), 1);
  EXPECT_EQ(t.warnings.count(kWarnPowerUnmatched), 1);  // 300 W at +60
  EXPECT_EQ(t.warnings.total(), 2);
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim::traces
