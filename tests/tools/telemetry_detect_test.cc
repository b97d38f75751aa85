// Telemetry format detection (tools/io/src/formats.cc): every format is told
// from its file's name or header, and an unrecognised file names the option
// it came from and that option's -format.
#include <gtest/gtest.h>

#include "testutil/testutil.h"
#include "utilsim/io/formats.h"
#include "utilsim/io/inputs.h"
#include "utilsim/traces/telemetry.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

using testutil::Fixture;

std::string Detect(const std::string& fixture, const std::string& option = "--telemetry") {
  auto f = DetectTelemetryFormat({Fixture(fixture)}, option);
  return f.ok() ? f.value() : "error: " + f.status().message();
}

TEST(TelemetryDetect, EveryFormatFromItsFixture) {
  EXPECT_EQ(Detect("telemetry/dcgm_exporter.prom"), "dcgm-exporter");
  EXPECT_EQ(Detect("telemetry/scrapes"), "dcgm-exporter");
  EXPECT_EQ(Detect("telemetry/query_range_sm.json"), "prom-json");
  EXPECT_EQ(Detect("telemetry/nvidia_smi_units.csv"), "nvidia-smi");
  EXPECT_EQ(Detect("telemetry/nvidia_smi_nounits.csv"), "nvidia-smi");
  EXPECT_EQ(Detect("telemetry/dcgm_field.csv"), "dcgm-csv");
  EXPECT_EQ(Detect("philly/gpu_util_window.csv"), "philly-windows");
}

// The GenAI per-pod files (value,timestamp_anon,container_ip; the memory file
// in another order) are recognised by their three columns in any order.
TEST(TelemetryDetect, GenAiPodSeriesByColumns) {
  EXPECT_EQ(Detect("telemetry/genai_duty.csv"), "genai");
  EXPECT_EQ(Detect("telemetry/genai_mem.csv"), "genai");
  EXPECT_EQ(Detect("telemetry/genai_columns_reordered.csv", "--util-library"), "genai");
  EXPECT_TRUE(traces::LooksLikeGenAiPodSeries({" container_ip", "value ", "timestamp_anon"}));
  EXPECT_FALSE(traces::LooksLikeGenAiPodSeries({"value", "timestamp_anon", "pod"}));
}

TEST(TelemetryDetect, UnrecognisedNamesTheOptionItCameFrom) {
  const std::string path = Fixture("telemetry/unrecognised_series.csv");
  EXPECT_EQ(Detect("telemetry/unrecognised_series.csv"),
            "error: --telemetry: " + path +
                ": format not recognised from its header (use --telemetry-format; `utilsim "
                "formats`)");
  EXPECT_EQ(Detect("telemetry/unrecognised_series.csv", "--util-library"),
            "error: --util-library: " + path +
                ": format not recognised from its header (use --util-library-format; `utilsim "
                "formats`)");
  auto missing = DetectTelemetryFormat({Fixture("telemetry/no-such.csv")}, "--util-library");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().message().rfind("--util-library: ", 0), 0u);
}

// Through LoadInputs, as `--util-library FILE` without a format: the
// reordered GenAI fixture becomes a two-entry profile library.
TEST(TelemetryDetect, UtilLibraryWithoutFormatLoads) {
  InputOptions opt;
  opt.trace = Fixture("canonical/jobs_minimal.csv");
  opt.cluster = Fixture("canonical/cluster.yaml");
  opt.util_library = Fixture("telemetry/genai_columns_reordered.csv");
  auto in = LoadInputs(opt);
  ASSERT_TRUE(in.ok()) << in.status().message();
  bool noted = false;
  for (const auto& n : in.value().notes) noted = noted || n.find("(genai)") != std::string::npos;
  EXPECT_TRUE(noted);

  opt.util_library = Fixture("telemetry/unrecognised_series.csv");
  auto bad = LoadInputs(opt);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("use --util-library-format"), std::string::npos)
      << bad.status().message();
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
