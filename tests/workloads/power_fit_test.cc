// GPU power-model calibration (power_fit.h): hand-computed cases, reader
// errors, and the Acme figures the power study reports (Seren fit, the two
// cross-cluster Kolmogorov-Smirnov distances).
#include "utilsim/workloads/power_fit.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "testutil/testutil.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

// A util_cdf_long.csv with the given rows after the header.
std::string WriteCsv(const std::string& rows,
                     const std::string& header = "source_pkl,series,x,cdf_percent") {
  return testutil::WriteFile(testutil::TempDir() + "/util_cdf_long.csv", header + "\n" + rows);
}

EmpiricalCdf Cdf(std::vector<double> x, std::vector<double> cdf, std::string name = "t") {
  return EmpiricalCdf{"", std::move(name), std::move(x), std::move(cdf)};
}

// Busy: half at 0 %, a quarter at 50 %, a quarter at 100 %. Power: a quarter
// each at 60, 80, 200 and 400 W.
const char kTinyRows[] =
    "u.pkl,util,0,50\n"
    "u.pkl,util,50,75\n"
    "u.pkl,util,100,100\n"
    "p.pkl,power,60,25\n"
    "p.pkl,power,80,50\n"
    "p.pkl,power,200,75\n"
    "p.pkl,power,400,100\n";

std::vector<EmpiricalCdf> ReadTiny() {
  auto r = ReadAcmeCdfs(WriteCsv(kTinyRows));
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? r.value() : std::vector<EmpiricalCdf>{};
}

TEST(PowerFit, ReadsSeriesInFileOrderAsFractions) {
  const std::vector<EmpiricalCdf> c = ReadTiny();
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].source, "u.pkl");
  EXPECT_EQ(c[0].name, "util");
  EXPECT_EQ(c[0].x, (std::vector<double>{0, 50, 100}));
  EXPECT_EQ(c[0].cdf, (std::vector<double>{0.5, 0.75, 1.0}));
  EXPECT_EQ(c[1].x, (std::vector<double>{60, 80, 200, 400}));
  EXPECT_EQ(CdfProblem(c[0]), "");
  EXPECT_DOUBLE_EQ(CdfAt(c[1], 59.9), 0);
  EXPECT_DOUBLE_EQ(CdfAt(c[1], 79.9), 0.25);
  EXPECT_DOUBLE_EQ(CdfAt(c[1], 80), 0.5);
  EXPECT_DOUBLE_EQ(QuantileAt(c[1], 0.5), 80);
  EXPECT_DOUBLE_EQ(QuantileAt(c[1], 0.51), 200);
  EXPECT_DOUBLE_EQ(QuantileAt(c[1], 0), 60);
  EXPECT_DOUBLE_EQ(CdfMean(c[1]), 185);  // (60 + 80 + 200 + 400) / 4
}

TEST(PowerFit, QuantileMapPairsTheLevels) {
  const std::vector<EmpiricalCdf> c = ReadTiny();
  ASSERT_EQ(c.size(), 2u);
  const std::vector<QuantilePair> q = QuantileMap(c[0], c[1]);
  ASSERT_EQ(q.size(), 4u);  // levels 0.25, 0.5, 0.75, 1
  const double busy[] = {0, 0, 50, 100}, watts[] = {60, 80, 200, 400};
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_DOUBLE_EQ(q[i].level_lo, 0.25 * double(i));
    EXPECT_DOUBLE_EQ(q[i].level_hi, 0.25 * double(i + 1));
    EXPECT_DOUBLE_EQ(q[i].busy, busy[i]);
    EXPECT_DOUBLE_EQ(q[i].watts, watts[i]);
  }
}

TEST(PowerFit, HandComputedFit) {
  const std::vector<EmpiricalCdf> c = ReadTiny();
  ASSERT_EQ(c.size(), 2u);
  auto fit = FitGpuPower(c[0], c[1]);
  ASSERT_TRUE(fit.ok()) << fit.status().message();
  const PowerFit& f = fit.value();
  EXPECT_DOUBLE_EQ(f.zero_mass, 0.5);
  EXPECT_DOUBLE_EQ(f.power.idle_w, 60);     // Q_P(0.05)
  EXPECT_DOUBLE_EQ(f.power.context_w, 80);  // Q_P(0.5)
  // Slope through (0, 80) over (50 %, 200 W) and (100 %, 400 W), weights 1/4:
  // (50 x 120 + 100 x 320) / (50^2 + 100^2) = 3.04 W per percent.
  EXPECT_NEAR(f.power.active_w, 384, 1e-9);
  EXPECT_DOUBLE_EQ(f.zero_free_fraction, 0.5);  // F_P(70) = 0.25 of z = 0.5
  EXPECT_NEAR(f.free_line_at_0_w, 0, 1e-9);     // through (50, 200) and (100, 400)
  EXPECT_NEAR(f.free_line_at_100_w, 400, 1e-9);
  EXPECT_DOUBLE_EQ(f.observed_mean_w, 185);
  EXPECT_NE(f.power.source.find("u.pkl:util"), std::string::npos) << f.power.source;

  // In sample: 60 (1/4), 80 (1/4), 80 + 3.04 x 50 = 232 (1/4), 384 (1/4)
  // against 60, 80, 200, 400: |F| differs by 1/4 on [200, 232) and [384, 400).
  const EmpiricalCdf pred = PredictPowerCdf(f.power, c[0], f.zero_free_fraction);
  ASSERT_EQ(pred.x.size(), 4u);
  EXPECT_NEAR(pred.x[2], 232, 1e-9);
  EXPECT_NEAR(pred.x[3], 384, 1e-9);
  EXPECT_EQ(pred.cdf, (std::vector<double>{0.25, 0.5, 0.75, 1.0}));
  EXPECT_DOUBLE_EQ(KsDistance(pred, c[1]), 0.25);
  EXPECT_NEAR(CdfMean(pred), 189, 1e-9);  // (60 + 80 + 232 + 384) / 4

  // The rank-map curve reproduces the in-sample pairs exactly.
  const PowerCurve curve = RankMapCurve(c[0], c[1]);
  EXPECT_EQ(curve.busy, (std::vector<double>{50, 100}));
  EXPECT_EQ(curve.watts, (std::vector<double>{200, 400}));
  EXPECT_DOUBLE_EQ(CurveWatts(curve, 75), 300);
  EXPECT_DOUBLE_EQ(CurveWatts(curve, 10), 200);
  EXPECT_DOUBLE_EQ(
      KsDistance(PredictPowerCdfWithCurve(f.power, curve, c[0], f.zero_free_fraction), c[1]), 0);

  // Another cluster: a quarter idle, three quarters at 100 %; its power a
  // quarter at 60 W, the rest at 384 W. Predicted: 60 (1/8), 80 (1/8), 384
  // (3/4); F differs by 1/8 on [60, 80).
  const EmpiricalCdf other_busy = Cdf({0, 100}, {0.25, 1});
  const EmpiricalCdf other_power = Cdf({60, 384}, {0.25, 1});
  const EmpiricalCdf cross = PredictPowerCdf(f.power, other_busy, f.zero_free_fraction);
  EXPECT_EQ(cross.cdf, (std::vector<double>{0.125, 0.25, 1.0}));
  EXPECT_DOUBLE_EQ(KsDistance(cross, other_power), 0.125);
}

TEST(PowerFit, KsDistanceOfStepCdfs) {
  const EmpiricalCdf a = Cdf({1, 3}, {0.5, 1}), b = Cdf({2, 3}, {0.5, 1});
  EXPECT_DOUBLE_EQ(KsDistance(a, b), 0.5);  // on [1, 2)
  EXPECT_DOUBLE_EQ(KsDistance(b, a), 0.5);
  EXPECT_DOUBLE_EQ(KsDistance(a, a), 0);
  EXPECT_DOUBLE_EQ(KsDistance(Cdf({1}, {1}), Cdf({5}, {1})), 1);
  // Repeated x (an atom written as several points) is one step.
  EXPECT_DOUBLE_EQ(KsDistance(Cdf({0, 0, 2}, {0.2, 0.6, 1}), Cdf({0, 2}, {0.6, 1})), 0);
}

// Error message of reading `rows` (with `header`), or "" when it reads.
std::string ReadError(const std::string& rows, const std::vector<std::string>& series = {},
                      const std::string& header = "source_pkl,series,x,cdf_percent") {
  const std::string path = WriteCsv(rows, header);
  auto r = ReadAcmeCdfs(path, series);
  if (r.ok()) return "";
  const std::string m = r.status().message();
  return m.rfind(path, 0) == 0 ? "<file>" + m.substr(path.size()) : m;
}

TEST(PowerFit, ReaderErrorsNameFileLineAndField) {
  EXPECT_EQ(ReadError("a.pkl,s,0,100\n", {}, "source_pkl,series,x"),
            "<file>:1: missing column 'cdf_percent'");
  EXPECT_EQ(ReadError("a.pkl,s,0,50\na.pkl,s,abc,100\n"),
            "<file>:3: field 'x': expected a number, got 'abc'");
  EXPECT_EQ(ReadError("a.pkl,s,0,50\na.pkl,s,1,30\na.pkl,s,2,100\n"),
            "<file>:3: field 'cdf_percent': expected a value >= 50 (nondecreasing within series "
            "'s'), got '30'");
  EXPECT_EQ(ReadError("a.pkl,s,5,50\na.pkl,s,4,100\n"),
            "<file>:3: field 'x': expected a value >= 5 (ascending within series 's'), got '4'");
  EXPECT_EQ(ReadError("a.pkl,s,0,120\n"),
            "<file>:2: field 'cdf_percent': expected a number 0..100, got '120'");
  EXPECT_EQ(ReadError("a.pkl,s,0,50\na.pkl,s,1,90\n"),
            "<file>:3: series 's' ends at cdf_percent 90, expected 100");
  EXPECT_EQ(ReadError("a.pkl,s,0,100\n", {"zzz"}), "<file>: no series 'zzz'");
  EXPECT_EQ(ReadError("a.pkl,s,0,100\nb.pkl,s,1,100\n", {"s"}),
            "<file>: series 's' is in 2 source_pkl files (a.pkl, b.pkl); select one as "
            "'source_pkl:series'");
  // Qualified selection picks one; rows of unselected series are not checked.
  EXPECT_EQ(
      ReadError("a.pkl,s,0,100\nb.pkl,s,1,100\nc.pkl,bad,0,50\nc.pkl,bad,1,40\n", {"b.pkl:s"}), "");
  auto r = ReadAcmeCdfs(WriteCsv("a.pkl,s,0,100\nb.pkl,s,1,100\n"), {"b.pkl:s"});
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r.value().size(), 1u);
  EXPECT_EQ(r.value()[0].x, std::vector<double>{1});
}

TEST(PowerFit, FitRejectsWhatItCannotIdentify) {
  const EmpiricalCdf power = Cdf({60, 300}, {0.5, 1}, "p");
  auto no_zero = FitGpuPower(Cdf({10, 100}, {0.5, 1}, "u"), power);
  ASSERT_FALSE(no_zero.ok());
  EXPECT_EQ(no_zero.status().message(),
            "power fit: series 'u': no zero-utilization mass: idle and context power not "
            "identified");
  auto all_zero = FitGpuPower(Cdf({0}, {1}, "u"), power);
  ASSERT_FALSE(all_zero.ok());
  EXPECT_NE(all_zero.status().message().find("no mass above zero utilization"), std::string::npos);
  auto over = FitGpuPower(Cdf({0, 150}, {0.5, 1}, "u"), power);
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.status().message(), "power fit: series 'u': busy values must be in 0..100 %");
  auto bad = FitGpuPower(Cdf({0, 50, 100}, {0.5, 0.4, 1}, "u"), power);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "power fit: series 'u': cdf[1] 0.4 below cdf[0] 0.5");
  EXPECT_EQ(CdfProblem(Cdf({0, 1}, {0.5, 0.9}, "u")), "series 'u': ends at 0.9, not 1");
  EXPECT_EQ(CdfProblem(Cdf({}, {}, "u")), "series 'u': no points");
}

// ---- Acme trace ----

constexpr char kAcme[] = "acmetrace-summary/util_cdf_long.csv";

TEST(PowerFit, AcmeKalosUtilizationPicklesDiffer) {
  const std::string path = testutil::TracePath(kAcme);
  if (path.empty()) GTEST_SKIP() << kAcme << " not found under $UTILSIM_TRACES";
  auto r = ReadAcmeCdfs(path, {"util_gpu_kalos.pkl:kalos_gpu_util_pct",
                               "util_gpu_kalos_full.pkl:kalos_gpu_util_pct"});
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r.value().size(), 2u);
  const EmpiricalCdf& full =
      r.value()[0].source == "util_gpu_kalos_full.pkl" ? r.value()[0] : r.value()[1];
  const EmpiricalCdf& paper = &full == &r.value()[0] ? r.value()[1] : r.value()[0];
  ASSERT_EQ(full.x.size(), 1000u);
  ASSERT_EQ(paper.x.size(), 1000u);
  size_t differ = 0;
  for (size_t i = 0; i < 1000; ++i) differ += full.x[i] != paper.x[i];
  EXPECT_EQ(differ, 378u);
  EXPECT_NEAR(CdfAt(full, 0), 0.2583, 0.0005);   // zero-utilization mass
  EXPECT_NEAR(CdfAt(paper, 0), 0.3383, 0.0005);  // of the paper's Kalos curve
  // A bare name is ambiguous.
  auto ambiguous = ReadAcmeCdfs(path, {"kalos_gpu_util_pct"});
  EXPECT_FALSE(ambiguous.ok());
}

TEST(PowerFit, AcmeCrossCheckMatchesThePowerStudy) {
  const std::string path = testutil::TracePath(kAcme);
  if (path.empty()) GTEST_SKIP() << kAcme << " not found under $UTILSIM_TRACES";
  auto check = AcmePowerCrossCheck(path);
  ASSERT_TRUE(check.ok()) << check.status().message();
  const AcmePowerCheck& c = check.value();
  for (const PowerFitRow& f : c.fits) {
    std::printf(
        "fit %-9s %-11s idle %6.1f context %6.1f active %6.1f  z %.4f free %.3f  "
        "free line %7.1f..%6.1f  mean %6.1f W\n",
        f.busy_signal.c_str(), f.cluster.c_str(), f.fit.power.idle_w, f.fit.power.context_w,
        f.fit.power.active_w, f.fit.zero_mass, f.fit.zero_free_fraction, f.fit.free_line_at_0_w,
        f.fit.free_line_at_100_w, f.fit.observed_mean_w);
  }
  for (const PowerCheckRow& r : c.rows) {
    std::printf("check %-9s %-11s -> %-11s KS line %.4f rank-map %.4f  mean %6.1f / %6.1f W\n",
                r.busy_signal.c_str(), r.fit_cluster.c_str(), r.predicted_cluster.c_str(),
                r.ks_linear, r.ks_rank_map, r.predicted_mean_w, r.observed_mean_w);
  }
  std::printf(
      "node: server mean %.1f, 8 x GPU mean %.1f, non-GPU mean %.1f; server Q(0.05) %.1f, "
      "non-GPU floor %.1f; CPU-node mean %.1f W\n",
      c.node.server_mean_w, 8 * c.node.gpu_mean_w, c.node.mean_w, c.node.server_low_w,
      c.node.floor_w, c.node.cpu_node_mean_w);

  ASSERT_EQ(c.fits.size(), 5u);
  ASSERT_EQ(c.fits[0].cluster, "seren");
  ASSERT_EQ(c.fits[0].busy_signal, "gpu_util");
  const PowerFit& seren = c.fits[0].fit;
  EXPECT_NEAR(seren.power.idle_w, 61.2, 0.5);
  EXPECT_NEAR(seren.power.context_w, 72.0, 0.5);
  EXPECT_NEAR(seren.power.active_w, 224.6, 0.5);
  EXPECT_NEAR(seren.zero_mass, 0.3143, 0.0005);
  EXPECT_NEAR(seren.zero_free_fraction, 0.831, 0.005);
  EXPECT_LT(seren.free_line_at_0_w, 0);  // the unconstrained line: negative at zero

  auto row = [&](const char* signal, const char* from, const char* to) -> const PowerCheckRow* {
    for (const PowerCheckRow& r : c.rows) {
      if (r.busy_signal == signal && r.fit_cluster == from && r.predicted_cluster == to) return &r;
    }
    return nullptr;
  };
  const PowerCheckRow* s2k = row("gpu_util", "seren", "kalos");
  const PowerCheckRow* k2s = row("gpu_util", "kalos", "seren");
  const PowerCheckRow* s2s = row("gpu_util", "seren", "seren");
  ASSERT_TRUE(s2k && k2s && s2s);
  EXPECT_NEAR(s2k->ks_linear, 0.3554, 0.005);
  EXPECT_NEAR(k2s->ks_linear, 0.3554, 0.005);
  EXPECT_NEAR(s2s->ks_linear, 0.3453, 0.005);
  // The line keeps the fitted cluster's mean power (energy) within 1 %.
  EXPECT_NEAR(s2s->predicted_mean_w, s2s->observed_mean_w, 0.01 * s2s->observed_mean_w);
  EXPECT_EQ(row("gpu_util", "kalos", "kalos-paper"), nullptr);  // one cluster
  EXPECT_EQ(c.rows.size(), 7u + 4u);
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
