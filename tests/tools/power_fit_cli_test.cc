// `utilsim power-fit --telemetry` through the binary: the fit per GPU model
// on a dcgm-exporter fixture with power, the power file that `run --power`
// reads, usage errors (exit 2) and a fit that cannot be made (exit 1).
#include <gtest/gtest.h>

#include "testutil/testutil.h"
#include "utilsim/traces/power_yaml.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

using testutil::Fixture;
using testutil::RunCli;

using testutil::Has;

TEST(PowerFitCli, TelemetryTablePerModel) {
  const std::string prom = Fixture("telemetry/power_fit.prom");
  std::string out;
  ASSERT_EQ(RunCli("power-fit --telemetry " + prom, &out), 0) << out;
  EXPECT_TRUE(Has(out,
                  "(dcgm-exporter), busy signal sm_active: 5 series, 48 samples, 0 without "
                  "power"))
      << out;
  // GPU 0 and GPU 3's first six scrapes are free (18 idle samples); 13
  // allocated samples at SM activity 0, 17 above.
  EXPECT_TRUE(Has(out, "  NVIDIA A100-SXM4-80GB      18         13        17  ")) << out;
  ASSERT_EQ(RunCli("power-fit --telemetry " + prom + " --signal gpu_util", &out), 0) << out;
  EXPECT_TRUE(Has(out, "busy signal gpu_util: 5 series")) << out;
}

TEST(PowerFitCli, YamlIsAPowerFile) {
  const std::string prom = Fixture("telemetry/power_fit.prom");
  std::string out;
  ASSERT_EQ(RunCli("power-fit --telemetry " + prom + " --yaml", &out), 0) << out;
  EXPECT_TRUE(Has(out, "\n  \"A100-SXM4-80GB\": {idle_w: ")) << out;
  auto model = ParsePowerYaml(out, "fit.yaml");
  ASSERT_TRUE(model.ok()) << model.status().message();
  // The cluster's name of the model finds the fit (not the built-in row),
  // with the figures the table prints (checked independently in Python).
  const GpuPower& p = PowerOf(model.value(), "A100-SXM4-80GB");
  EXPECT_EQ(p.source, "fit.yaml");
  EXPECT_DOUBLE_EQ(p.idle_w, 59.6);
  EXPECT_DOUBLE_EQ(p.context_w, 75.2);
  EXPECT_DOUBLE_EQ(p.active_w, 298.8);
}

TEST(PowerFitCli, UsageErrors) {
  const std::string prom = Fixture("telemetry/power_fit.prom");
  std::string out;
  EXPECT_EQ(RunCli("power-fit", &out), 2) << out;
  EXPECT_TRUE(Has(out, "power-fit: expected the Acme summary CSV or --telemetry FILE, got neither"))
      << out;
  EXPECT_EQ(RunCli("power-fit " + prom + " --telemetry " + prom, &out), 2) << out;
  EXPECT_TRUE(Has(out, "got both")) << out;
  EXPECT_EQ(RunCli("power-fit " + prom + " --signal sm_active", &out), 2) << out;
  EXPECT_TRUE(Has(out, "--signal: only with --telemetry")) << out;
  EXPECT_EQ(RunCli("power-fit --telemetry " + prom + " --signal busy", &out), 2) << out;
}

TEST(PowerFitCli, NoJobsNoContextFit) {
  // nvidia-smi names no job: only idle samples, and fewer than ten.
  const std::string csv = Fixture("telemetry/nvidia_smi_units.csv");
  std::string out;
  EXPECT_EQ(RunCli("power-fit --telemetry " + csv, &out), 1) << out;
  EXPECT_TRUE(Has(out, csv +
                           ": power fit: gpu_util: model 'NVIDIA H100 80GB HBM3': 0 idle samples "
                           "(busy 0 on a GPU no job holds), 0 context samples (busy 0 on a GPU a "
                           "job holds), 0 active samples (busy > 0 on a GPU a job holds), need at "
                           "least 10 each"))
      << out;
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
