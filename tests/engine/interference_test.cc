// The co-location interference model (engine/interference.h): hand-computed
// speeds under time-slicing and MPS, the MPS client and thread limits, input
// checks, and GPU memory as a hard limit.
#include "utilsim/engine/interference.h"

#include <gtest/gtest.h>

#include <vector>

namespace utilsim {
namespace UTILSIM_UNITY_ID {

CoRunner Job(double u, double m, double mib = 1000, double p = 0) {
  CoRunner r;
  r.gpu_util = u;
  r.mem_util = m;
  r.gpu_mem_mib = mib;
  r.mps_thread_fraction = p;
  return r;
}

// Round numbers for hand checks (the defaults are the fitted values).
InterferenceParams Hand() {
  InterferenceParams p;
  p.alpha = 0.1;
  p.beta = 0.3;
  p.gamma = 0.3;
  return p;
}

std::vector<double> Speeds(const std::vector<CoRunner>& rs, const SharingConfig& s,
                           const InterferenceParams& p) {
  auto r = PredictCoRunSpeeds(rs, s, p);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? r.value() : std::vector<double>(rs.size(), -1.0);
}

// A: u 0.6, m 0.4; B: u 0.8, m 0.2. U = 1.4, oversubscription 0.4.
//   T_A = 1 + 0.1 (0.6)(0.8) + 0.3 (0.4) + 0.3 (0.6)(0.2) = 1 + 0.048 + 0.12 + 0.036 = 1.204
//   T_B = 1 + 0.1 (0.8)(0.6) + 0.3 (0.4) + 0.3 (0.8)(0.4) = 1 + 0.048 + 0.12 + 0.096 = 1.264
TEST(Interference, TimeSliceOversubscribedPair) {
  const auto s = Speeds({Job(0.6, 0.4), Job(0.8, 0.2)}, {}, Hand());
  EXPECT_NEAR(s[0], 1 / 1.204, 1e-12);
  EXPECT_NEAR(s[1], 1 / 1.264, 1e-12);
}

// A: u 0.3, m 0.1; B: u 0.5, m 0.2. U = 0.8: no oversubscription.
//   T_A = 1 + 0.1 (0.3)(0.5) + 0.3 (0.3)(0.2) = 1.033
//   T_B = 1 + 0.1 (0.5)(0.3) + 0.3 (0.5)(0.1) = 1.030
TEST(Interference, TimeSliceUndersubscribedPair) {
  const auto s = Speeds({Job(0.3, 0.1), Job(0.5, 0.2)}, {}, Hand());
  EXPECT_NEAR(s[0], 1 / 1.033, 1e-12);
  EXPECT_NEAR(s[1], 1 / 1.030, 1e-12);
}

// Three jobs u 0.5, m 0: U = 1.5; T = 1 + 0.1 (0.5)(1.0) + 0.3 (0.5) = 1.2.
TEST(Interference, TimeSliceThreeCoRunners) {
  const auto s = Speeds({Job(0.5, 0), Job(0.5, 0), Job(0.5, 0)}, {}, Hand());
  for (double v : s) EXPECT_NEAR(v, 1 / 1.2, 1e-12);
}

TEST(Interference, LoneJobAndIdlePartnerRunAtFullSpeed) {
  EXPECT_EQ(Speeds({Job(0.9, 0.9)}, {}, Hand())[0], 1.0);
  // A partner that never uses the GPU costs nothing.
  EXPECT_EQ(Speeds({Job(0.9, 0.9), Job(0, 0)}, {}, Hand())[0], 1.0);
  auto empty = PredictCoRunSpeeds(std::vector<CoRunner>{}, {}, Hand());
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty.value().empty());
}

TEST(Interference, DefaultsAreTheFittedValues) {
  const InterferenceParams d;
  EXPECT_NEAR(d.alpha, 0.0944, 1e-9);
  EXPECT_NEAR(d.beta, 0.3030, 1e-9);
  EXPECT_NEAR(d.gamma, 0.3031, 1e-9);
  EXPECT_EQ(d.mps_compute_scale, 1.0);
  // Two fully busy, memory-heavy jobs: T = 1 + 0.0944 + 0.3030 + 0.3031 = 1.7005.
  const auto s = Speeds({Job(1, 1), Job(1, 1)}, {}, d);
  EXPECT_NEAR(s[0], 1 / 1.7005, 1e-12);
}

SharingConfig Mps(double daemon = 1.0, int clients = 48) {
  SharingConfig c;
  c.mode = GpuSharing::kMps;
  c.mps_default_thread_fraction = daemon;
  c.mps_max_clients = clients;
  return c;
}

// Limits 0.5 + 0.5 partition the SMs: overlap 0, so no collision or
// oversubscription term; each GPU phase runs on half the SMs (x 2).
//   T_A = 1 + 0.6 (2 - 1) + 0.3 (0.6)(0.2) = 1.636
//   T_B = 1 + 0.8 (2 - 1) + 0.3 (0.8)(0.4) = 1.896
TEST(Interference, MpsPartitionedLimits) {
  const auto s = Speeds({Job(0.6, 0.4, 1000, 0.5), Job(0.8, 0.2, 1000, 0.5)}, Mps(), Hand());
  EXPECT_NEAR(s[0], 1 / 1.636, 1e-12);
  EXPECT_NEAR(s[1], 1 / 1.896, 1e-12);
}

// Limits 0.6 and 1.0: sum 1.6, overlap_A = min(1, 0.6 / 0.6) = 1,
// overlap_B = 0.6 / 1.0 = 0.6. Collision + oversubscription = 0.048 + 0.12.
//   T_A = 1 + 0.6 (1/0.6 - 1) + 1.0 (0.168) + 0.036 = 1.604
//   T_B = 1 + 0           + 0.6 (0.168) + 0.096 = 1.1968
TEST(Interference, MpsOverlappingLimits) {
  const auto s = Speeds({Job(0.6, 0.4, 1000, 0.6), Job(0.8, 0.2)}, Mps(), Hand());
  EXPECT_NEAR(s[0], 1 / 1.604, 1e-12);
  EXPECT_NEAR(s[1], 1 / 1.1968, 1e-12);
}

TEST(Interference, MpsWithoutLimitsIsTimeSlicingTimesScale) {
  const std::vector<CoRunner> rs = {Job(0.6, 0.4), Job(0.8, 0.2)};
  const auto ts = Speeds(rs, {}, Hand());
  const auto mps = Speeds(rs, Mps(), Hand());
  EXPECT_DOUBLE_EQ(mps[0], ts[0]);
  EXPECT_DOUBLE_EQ(mps[1], ts[1]);
  InterferenceParams half = Hand();
  half.mps_compute_scale = 0.5;
  // T_A = 1 + 0.5 (0.048 + 0.12) + 0.036 = 1.12
  EXPECT_NEAR(Speeds(rs, Mps(), half)[0], 1 / 1.12, 1e-12);
}

TEST(Interference, MpsClientLimitCanOnlyLowerTheDaemonDefault) {
  // Daemon 0.5, client asks 0.8: 0.5 holds. Alone, T = 1 + 0.6 (2 - 1) = 1.6.
  EXPECT_NEAR(Speeds({Job(0.6, 0.4, 1000, 0.8)}, Mps(0.5), Hand())[0], 1 / 1.6, 1e-12);
  // Daemon 1.0, client 0.5: 0.5.
  EXPECT_NEAR(Speeds({Job(0.6, 0.4, 1000, 0.5)}, Mps(1.0), Hand())[0], 1 / 1.6, 1e-12);
  // Under time-slicing the thread limit has no meaning and is ignored.
  EXPECT_EQ(Speeds({Job(0.6, 0.4, 1000, 0.5)}, {}, Hand())[0], 1.0);
}

TEST(Interference, MpsClientLimit) {
  std::vector<CoRunner> rs(48, Job(0.01, 0.01));
  EXPECT_TRUE(PredictCoRunSpeeds(rs, Mps(), Hand()).ok());
  rs.push_back(Job(0.01, 0.01));
  auto over = PredictCoRunSpeeds(rs, Mps(), Hand());
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.status().message(), "MPS: 49 co-runners exceed the client limit of 48 per GPU");
  EXPECT_FALSE(PredictCoRunSpeeds(rs, Mps(1.0, 16), Hand()).ok());
  // Time-slicing has no client limit.
  EXPECT_TRUE(PredictCoRunSpeeds(rs, {}, Hand()).ok());
}

TEST(Interference, SpeedsStayInUnitIntervalAndFallWithMoreCoRunners) {
  std::vector<CoRunner> rs = {Job(0.7, 0.5)};
  double last = 1.0;
  for (int n = 2; n <= 6; ++n) {
    rs.push_back(Job(0.4, 0.3));
    const double s = Speeds(rs, {}, InterferenceParams{})[0];
    EXPECT_GT(s, 0);
    EXPECT_LT(s, last);
    last = s;
  }
}

TEST(Interference, BadInputsAreErrorsNamingTheField) {
  const std::vector<CoRunner> bad = {Job(0.5, 0.5), Job(1.5, 0.5)};
  auto r = PredictCoRunSpeeds(bad, {}, Hand());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "co-runner 1: field 'gpu_util': expected a fraction in [0, 1], got 1.5");
  InterferenceParams neg = Hand();
  neg.beta = -0.1;
  auto p = PredictCoRunSpeeds(std::vector<CoRunner>{Job(0.5, 0.5)}, {}, neg);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().message(),
            "interference parameter 'beta': expected a finite number >= 0, got -0.1");
  EXPECT_FALSE(PredictCoRunSpeeds(std::vector<CoRunner>{Job(0.5, 0.5)}, Mps(0.0), Hand()).ok());
  // Output span of the wrong size: an error, nothing written.
  const std::vector<CoRunner> two = {Job(0.5, 0.5), Job(0.5, 0.5)};
  double out[1] = {-7};
  EXPECT_FALSE(PredictCoRunSpeeds(two, {}, Hand(), std::span<double>(out, 1)).ok());
  EXPECT_EQ(out[0], -7);
}

TEST(Interference, ModeNames) {
  EXPECT_EQ(GpuSharingName(GpuSharing::kTimeSlice), "time-slice");
  EXPECT_EQ(GpuSharingName(GpuSharing::kMps), "mps");
  EXPECT_EQ(ParseGpuSharing("mps"), GpuSharing::kMps);
  EXPECT_EQ(ParseGpuSharing("time-slice"), GpuSharing::kTimeSlice);
  EXPECT_FALSE(ParseGpuSharing("mig").has_value());
}

TEST(InterferenceMemory, SumMustFitTheGpu) {
  const std::vector<CoRunner> rs = {Job(0, 0, 10000), Job(0, 0, 12000), Job(0, 0, 5000)};
  // 24 GiB GPU: 10000 + 12000 fit, + 5000 = 27000 does not; the third is at fault.
  const GpuMemoryCheck c = CheckCoRunMemory(rs, 24576);
  EXPECT_FALSE(c.fits());
  EXPECT_EQ(c.verdict, GpuMemoryCheck::Verdict::kGpuExceeded);
  EXPECT_EQ(c.index, 2);
  EXPECT_EQ(c.used_mib, 27000);
  const GpuMemoryCheck ok = CheckCoRunMemory(std::span(rs).first(2), 24576);
  EXPECT_TRUE(ok.fits());
  EXPECT_EQ(ok.index, -1);
  EXPECT_EQ(ok.used_mib, 22000);
  // Exactly full fits.
  EXPECT_TRUE(CheckCoRunMemory(rs, 27000).fits());
}

TEST(InterferenceMemory, PerClientLimitIsReportedFirst) {
  const std::vector<CoRunner> rs = {Job(0, 0, 6000), Job(0, 0, 9000), Job(0, 0, 12000)};
  // MPS device plugin, 3 replicas of a 24576 MiB GPU: 8192 MiB each.
  const GpuMemoryCheck c = CheckCoRunMemory(rs, 24576, 24576.0 / 3);
  EXPECT_EQ(c.verdict, GpuMemoryCheck::Verdict::kClientLimitExceeded);
  EXPECT_EQ(c.index, 1);
}

TEST(InterferenceMemory, InvalidInputs) {
  const std::vector<CoRunner> rs = {Job(0, 0, 100), Job(0, 0, -1)};
  EXPECT_EQ(CheckCoRunMemory(rs, 24576).verdict, GpuMemoryCheck::Verdict::kInvalid);
  EXPECT_EQ(CheckCoRunMemory(rs, 24576).index, 1);
  EXPECT_EQ(CheckCoRunMemory(std::span(rs).first(1), 0).verdict, GpuMemoryCheck::Verdict::kInvalid);
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
