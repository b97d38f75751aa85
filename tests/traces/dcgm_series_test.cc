// The readers' dcgm-exporter conventions one series at a time
// (utilsim/traces/dcgm_series.h): labels, metric <-> signal, and sample
// values (percent vs ratio, DCGM blanks, non-finite, out of range, not a
// number), the same rules ReadDcgmExposition applies.
#include "utilsim/traces/dcgm_series.h"

#include <gtest/gtest.h>

#include "utilsim/traces/telemetry.h"

namespace utilsim::traces {
namespace UTILSIM_UNITY_ID {

TEST(DcgmSeriesTest, LabelsAsTheReadersRead) {
  auto k = DcgmLabelsOf({{"gpu", "3"},
                         {"UUID", "GPU-x"},
                         {"Hostname", "node-1"},
                         {"GPU_I_ID", "2"},
                         {"pod_name", "p"},
                         {"pod_namespace", "ns"},
                         {"container", "c"},
                         {"job", "dcgm"}});
  ASSERT_TRUE(k.ok()) << k.status().message();
  EXPECT_EQ(k.value().host, "node-1");
  EXPECT_EQ(k.value().gpu, 3);
  EXPECT_EQ(k.value().uuid, "GPU-x");
  EXPECT_EQ(k.value().gpu_instance, "2");
  EXPECT_EQ(k.value().pod, "p");
  EXPECT_EQ(k.value().namespace_name, "ns");
  EXPECT_EQ(k.value().container, "c");
  // New spelling first; empty values count as absent.
  auto n = DcgmLabelsOf({{"hostname", "new"}, {"Hostname", "old"}, {"pod", ""}, {"pod_name", "q"}});
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(n.value().host, "new");
  EXPECT_EQ(n.value().pod, "q");
  EXPECT_EQ(n.value().gpu, -1);
  auto bad = DcgmLabelsOf({{"gpu", "x"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "field 'gpu': expected a GPU index (integer >= 0), got 'x'");
}

TEST(DcgmSeriesTest, MetricsAndSignals) {
  EXPECT_EQ(DcgmUtilSignal("DCGM_FI_DEV_GPU_UTIL"), UtilSignal::kGpuUtil);
  EXPECT_EQ(DcgmUtilSignal("DCGM_FI_PROF_SM_ACTIVE"), UtilSignal::kSmActive);
  EXPECT_EQ(DcgmUtilSignal("DCGM_FI_PROF_GR_ENGINE_ACTIVE"), UtilSignal::kGrEngineActive);
  EXPECT_FALSE(DcgmUtilSignal("DCGM_FI_DEV_FB_USED"));
  EXPECT_FALSE(DcgmUtilSignal("DCGM_FI_DEV_GPU_TEMP"));
  for (UtilSignal s : {UtilSignal::kGpuUtil, UtilSignal::kSmActive, UtilSignal::kGrEngineActive})
    EXPECT_EQ(DcgmUtilSignal(DcgmUtilMetric(s)), s);
  EXPECT_EQ(DcgmUtilMetric(UtilSignal::kSynthetic), "");
}

TEST(DcgmSeriesTest, SampleValues) {
  auto busy = [](UtilSignal s, const char* text) { return DcgmBusyFromText(s, text); };
  EXPECT_DOUBLE_EQ(busy(UtilSignal::kGpuUtil, "90")->busy, 0.9);  // exact in double
  EXPECT_EQ(busy(UtilSignal::kGpuUtil, "90")->warning, nullptr);
  EXPECT_DOUBLE_EQ(busy(UtilSignal::kSmActive, "0.25")->busy, 0.25);
  EXPECT_DOUBLE_EQ(busy(UtilSignal::kGrEngineActive, "+1")->busy, 1.0);
  EXPECT_STREQ(busy(UtilSignal::kGpuUtil, "9223372036854775794")->warning, kWarnBlank);
  EXPECT_STREQ(busy(UtilSignal::kGpuUtil, "18446744073709551615")->warning, kWarnBlank);
  EXPECT_STREQ(busy(UtilSignal::kGpuUtil, "2147483647")->warning, kWarnBlank);
  EXPECT_STREQ(busy(UtilSignal::kSmActive, "NaN")->warning, kWarnNonFinite);
  EXPECT_STREQ(busy(UtilSignal::kSmActive, "+Inf")->warning, kWarnNonFinite);
  EXPECT_STREQ(busy(UtilSignal::kSmActive, "1.5")->warning, kWarnRange);
  EXPECT_STREQ(busy(UtilSignal::kGpuUtil, "-1")->warning, kWarnRange);
  EXPECT_FALSE(busy(UtilSignal::kGpuUtil, "ninety"));
  EXPECT_FALSE(busy(UtilSignal::kGpuUtil, ""));
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim::traces
