#include "utilsim/workloads/quantile_table.h"

#include <gtest/gtest.h>

#include <span>
#include <vector>

#include "utilsim/workloads/published_stats.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

// 40% point mass at 0, then uniform on [0, 10] up to p = 0.9, then a gap to
// a point mass at 100 (10%).
const std::vector<QuantilePoint> kTable = {
    {0.0, 0.0}, {0.4, 0.0}, {0.9, 10.0}, {0.9, 100.0}, {1.0, 100.0}};

TEST(QuantileTable, InterpolatesLinearly) {
  EXPECT_DOUBLE_EQ(SampleQuantiles(kTable, 0.0), 0.0);
  EXPECT_DOUBLE_EQ(SampleQuantiles(kTable, 0.39), 0.0);
  EXPECT_DOUBLE_EQ(SampleQuantiles(kTable, 0.65), 5.0);   // halfway 0.4..0.9
  EXPECT_DOUBLE_EQ(SampleQuantiles(kTable, 0.9), 100.0);  // past the gap
  EXPECT_DOUBLE_EQ(SampleQuantiles(kTable, 0.95), 100.0);
  EXPECT_DOUBLE_EQ(SampleQuantiles(kTable, 1.0), 100.0);
  EXPECT_DOUBLE_EQ(SampleQuantiles(kTable, -3.0), 0.0);  // clamped
}

TEST(QuantileTable, SamplerEqualsSampleQuantilesExactly) {
  for (auto table : {std::span<const QuantilePoint>(kTable), published::PhillyRuntimeSeconds(),
                     published::PhillyGpuUtilPct()}) {
    const QuantileSampler sample(table);
    for (int i = 0; i <= 100000; ++i) {
      const double u = i / 100000.0;
      ASSERT_EQ(sample(u), SampleQuantiles(table, u)) << u;
    }
    for (const QuantilePoint& q : table) ASSERT_EQ(sample(q.p), SampleQuantiles(table, q.p));
  }
}

TEST(QuantileTable, MeanIsExactAndClamps) {
  // 0.4 * 0 + 0.5 * 5 + 0.1 * 100 = 12.5
  EXPECT_DOUBLE_EQ(QuantilesMean(kTable, -1e9, 1e9), 12.5);
  // Clamped to [2, 50]: 0.4 * 2 + 0.5 * E[clamp(U(0,10), 2)] + 0.1 * 50;
  // E[clamp(U(0,10), 2)] = 0.2 * 2 + 0.8 * 6 = 5.2 -> 0.8 + 2.6 + 5 = 8.4
  EXPECT_NEAR(QuantilesMean(kTable, 2, 50), 8.4, 1e-12);
}

TEST(QuantileTable, Validity) {
  EXPECT_TRUE(QuantileTableValid(kTable));
  std::vector<QuantilePoint> not_to_one = {{0.0, 0.0}, {0.5, 1.0}};
  EXPECT_FALSE(QuantileTableValid(not_to_one));
  std::vector<QuantilePoint> decreasing = {{0.0, 2.0}, {1.0, 1.0}};
  EXPECT_FALSE(QuantileTableValid(decreasing));
}

TEST(PublishedStats, TablesAreValid) {
  EXPECT_TRUE(QuantileTableValid(published::PhillyGpuUtilPct()));
  EXPECT_TRUE(QuantileTableValid(published::PhillyRuntimeSeconds()));
  EXPECT_TRUE(QuantileTableValid(published::OpenbCpuMilliPerGpu()));
  EXPECT_TRUE(QuantileTableValid(published::OpenbMemMibPerGpu()));
  EXPECT_TRUE(QuantileTableValid(published::AaicWalltimeFactor()));
  EXPECT_EQ(published::VenusHourlySubmitProfile().size(), 24u);
  double venus = 0, shares = 0, mean_gpus = 0;
  for (double v : published::VenusHourlySubmitProfile()) venus += v;
  for (const auto& s : published::PhillyGpuCountShares()) {
    shares += s.share;
    mean_gpus += s.share * s.gpus;
  }
  EXPECT_NEAR(venus / 24, 1.0, 1e-4);  // normalized when transcribed
  EXPECT_NEAR(shares, 1.0, 1e-3);      // rounded to 4 significant digits
  // The single-GPU share was solved for Philly's published mean 1.928.
  EXPECT_NEAR(mean_gpus, 1.928, 2e-3);
}

TEST(PublishedStats, TableMomentsMatchTheirSources) {
  // Philly GPU util: the source curve's mean is 47.20%; the table's 47.12%.
  EXPECT_NEAR(QuantilesMean(published::PhillyGpuUtilPct(), 0, 100), 47.12, 0.01);
  // Philly run time: median 1,186 s (file), mean capped at 7 days 12,484 s
  // (file) vs 12,598 s (table; linear interpolation over-weights the tail by
  // under 1%).
  EXPECT_DOUBLE_EQ(SampleQuantiles(published::PhillyRuntimeSeconds(), 0.5), 1186);
  EXPECT_NEAR(QuantilesMean(published::PhillyRuntimeSeconds(), 1, 7 * 86400), 12484, 0.01 * 12484);
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
