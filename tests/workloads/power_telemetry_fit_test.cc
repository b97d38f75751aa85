// The GPU power model fitted on telemetry with power beside utilization
// (power_telemetry_fit.h): hand-computed medians and least-squares lines,
// the choice of the busy signal, the errors' texts.
#include "utilsim/workloads/power_telemetry_fit.h"

#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

namespace utilsim {
namespace UTILSIM_UNITY_ID {

// Owns the data PowerSeries views.
struct Data {
  struct Owned {
    std::string model;
    bool allocated;
    UtilSignal signal;
    std::vector<float> busy, power_w;
  };
  std::vector<Owned> owned;
  void Add(std::string model, bool allocated, UtilSignal signal, std::vector<float> busy,
           std::vector<float> power_w) {
    owned.push_back({std::move(model), allocated, signal, std::move(busy), std::move(power_w)});
  }
  // Adds a series at busy 0 with these powers.
  void Zero(std::string model, bool allocated, std::vector<float> power_w) {
    std::vector<float> busy(power_w.size(), 0.0f);
    Add(std::move(model), allocated, UtilSignal::kSmActive, std::move(busy), std::move(power_w));
  }
  std::vector<PowerSeries> Views() const {
    std::vector<PowerSeries> v;
    for (const Owned& o : owned)
      v.push_back({"", o.model, o.allocated, o.signal, o.busy, o.power_w});
    return v;
  }
  Result<PowerTelemetryFit> Fit(const PowerTelemetryFitOptions& opt = {}) const {
    const std::vector<PowerSeries> v = Views();
    return FitPowerOnTelemetry(v, opt);
  }
};

std::string ErrorOf(const Result<PowerTelemetryFit>& r) {
  EXPECT_FALSE(r.ok());
  return r.ok() ? "" : r.status().message();
}

// idle: 55..65 W (median 60); context: 70..79 W (median 74.5); active: power
// = 80 + 220 x busy at busy 1/8 .. 8/8, twice (every value exact in float).
Data KnownLine(const std::string& model) {
  Data d;
  d.Zero(model, false, {55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65});
  d.Zero(model, true, {79, 70, 78, 71, 77, 72, 76, 73, 75, 74});
  std::vector<float> busy, power;
  for (int rep = 0; rep < 2; ++rep) {
    for (int k = 1; k <= 8; ++k) {
      busy.push_back(static_cast<float>(k) / 8);
      power.push_back(80.0f + 220.0f * static_cast<float>(k) / 8);
    }
  }
  d.Add(model, true, UtilSignal::kSmActive, busy, power);
  return d;
}

TEST(PowerTelemetryFit, RecoversAKnownLine) {
  Data d = KnownLine("NVIDIA A100-SXM4-80GB");
  // Not used: samples without power, busy on a free GPU, another signal.
  d.Add("NVIDIA A100-SXM4-80GB", true, UtilSignal::kSmActive, {0.5f, 0.0f}, {-1.0f, -1.0f});
  d.Add("NVIDIA A100-SXM4-80GB", false, UtilSignal::kSmActive, {0.5f}, {500.0f});
  d.Add("NVIDIA A100-SXM4-80GB", true, UtilSignal::kGpuUtil, {1.0f}, {999.0f});
  auto r = d.Fit();
  ASSERT_TRUE(r.ok()) << r.status().message();
  const PowerTelemetryFit& f = r.value();
  EXPECT_EQ(f.signal, UtilSignal::kSmActive);
  EXPECT_EQ(f.series, 5);
  EXPECT_EQ(f.samples, 11 + 10 + 16 + 2 + 1);
  EXPECT_EQ(f.samples_without_power, 2);
  ASSERT_EQ(f.models.size(), 1u);
  const ModelPowerTelemetryFit& m = f.models[0];
  EXPECT_EQ(m.model, "NVIDIA A100-SXM4-80GB");
  EXPECT_EQ(m.n_idle, 11);
  EXPECT_EQ(m.n_context, 10);
  EXPECT_EQ(m.n_active, 16);
  EXPECT_EQ(m.n_busy_unallocated, 1);
  EXPECT_NEAR(m.power.idle_w, 60.0, 1e-9);
  EXPECT_NEAR(m.power.context_w, 74.5, 1e-9);  // the mean of the middle two
  EXPECT_NEAR(m.power.active_w, 300.0, 1e-9);
  EXPECT_NEAR(m.intercept_w, 80.0, 1e-9);
  EXPECT_NEAR(m.slope_w, 220.0, 1e-9);
  EXPECT_NEAR(m.r2, 1.0, 1e-9);
  EXPECT_NEAR(m.rms_w, 0.0, 1e-9);
  EXPECT_EQ(m.power.source, "telemetry fit (sm_active)");
}

TEST(PowerTelemetryFit, HandComputedResiduals) {
  // Active: (0.5, 190) (1, 300) (0.5, 200) (1, 290): mean busy 0.75, mean
  // power 245, Sxx 0.25, Sxy 50 -> slope 200, intercept 95, active_w 295;
  // residuals -5 5 5 -5: SS_res 100, SS_tot 10100, RMS 5.
  Data d;
  d.Zero("", false, {50, 52});
  d.Zero("", true, {60, 64, 62});
  d.Add("", true, UtilSignal::kSmActive, {0.5f, 1.0f, 0.5f, 1.0f}, {190, 300, 200, 290});
  PowerTelemetryFitOptions opt;
  opt.min_samples = 2;
  opt.unknown_model = "lab";
  auto r = d.Fit(opt);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r.value().models.size(), 1u);
  const ModelPowerTelemetryFit& m = r.value().models[0];
  EXPECT_EQ(m.model, "lab");
  EXPECT_NEAR(m.power.idle_w, 51.0, 1e-9);
  EXPECT_NEAR(m.power.context_w, 62.0, 1e-9);
  EXPECT_NEAR(m.intercept_w, 95.0, 1e-9);
  EXPECT_NEAR(m.slope_w, 200.0, 1e-9);
  EXPECT_NEAR(m.power.active_w, 295.0, 1e-9);
  EXPECT_NEAR(m.r2, 1.0 - 100.0 / 10100.0, 1e-12);
  EXPECT_NEAR(m.rms_w, 5.0, 1e-9);
}

TEST(PowerTelemetryFit, ModelsApartAndUnknownGrouped) {
  Data d = KnownLine("B");
  for (const Data::Owned& o : KnownLine("").owned) d.owned.push_back(o);
  d.Add("C", true, UtilSignal::kSmActive, {0.5f}, {-1.0f});  // no power at all
  auto r = d.Fit();
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r.value().models.size(), 2u);
  EXPECT_EQ(r.value().models[0].model, "B");
  EXPECT_EQ(r.value().models[1].model, "unknown");
  EXPECT_NEAR(r.value().models[1].power.active_w, 300.0, 1e-9);
  EXPECT_EQ(r.value().models_without_power, (std::vector<std::string>{"C"}));
}

TEST(PowerTelemetryFit, SignalChoice) {
  Data d;
  d.Add("m", true, UtilSignal::kGpuUtil, {1.0f}, {100});
  d.Add("m", true, UtilSignal::kGrEngineActive, {1.0f}, {100});
  d.Add("m", true, UtilSignal::kSmActive, {1.0f}, {-1});  // SM activity, but no power
  PowerTelemetryFitOptions opt;
  opt.min_samples = 50;  // every fit fails: the error names the signal chosen
  EXPECT_EQ(ErrorOf(d.Fit(opt)).rfind("power fit: gr_engine_active: ", 0), 0u);
  opt.signal = UtilSignal::kGpuUtil;
  EXPECT_EQ(ErrorOf(d.Fit(opt)).rfind("power fit: gpu_util: ", 0), 0u);
  opt.signal = UtilSignal::kSmActive;
  EXPECT_EQ(ErrorOf(d.Fit(opt)),
            "power fit: no sm_active sample has a power value (1 series, 1 samples)");
  opt.signal = UtilSignal::kSynthetic;
  EXPECT_EQ(ErrorOf(d.Fit(opt)),
            "power fit: signal: expected gpu_util, sm_active or gr_engine_active, got 'synthetic'");
  Data none;
  none.Add("m", true, UtilSignal::kGpuUtil, {1.0f}, {});
  EXPECT_EQ(ErrorOf(none.Fit()),
            "power fit: no series carries a busy signal (sm_active, gr_engine_active, gpu_util) "
            "with power values");
}

TEST(PowerTelemetryFit, TooFewSamplesNamesTheModelAndTheClass) {
  Data d = KnownLine("A100");
  d.Zero("H100", false, {70, 71, 72});
  d.Add("H100", true, UtilSignal::kSmActive, {0.5f}, {300});
  EXPECT_EQ(ErrorOf(d.Fit()),
            "power fit: sm_active: model 'H100': 3 idle samples (busy 0 on a GPU no job holds), 0 "
            "context samples (busy 0 on a GPU a job holds), 1 active samples (busy > 0 on a GPU a "
            "job holds), need at least 10 each");
}

TEST(PowerTelemetryFit, NoLineWhenEveryBusyIsEqual) {
  Data d;
  d.Zero("m", false, {50, 51});
  d.Zero("m", true, {60, 61});
  d.Add("m", true, UtilSignal::kSmActive, {1.0f, 1.0f}, {300, 310});
  PowerTelemetryFitOptions opt;
  opt.min_samples = 2;
  EXPECT_EQ(ErrorOf(d.Fit(opt)),
            "power fit: sm_active: model 'm': the active samples' busy values are all 1: no line "
            "to fit");
}

TEST(PowerTelemetryFit, OrderBrokenIsAnError) {
  Data d;
  d.Zero("m", false, {60, 60});
  d.Zero("m", true, {50, 50});  // a context below idle
  d.Add("m", true, UtilSignal::kSmActive, {0.5f, 1.0f}, {200, 300});
  PowerTelemetryFitOptions opt;
  opt.min_samples = 2;
  const std::string e = ErrorOf(d.Fit(opt));
  EXPECT_EQ(e.rfind("power fit: sm_active: model 'm': the fit breaks the power model (", 0), 0u)
      << e;
  EXPECT_NE(e.find("context_w 50 below idle_w 60"), std::string::npos) << e;
  // A falling line: active_w below context_w.
  Data f;
  f.Zero("m", false, {50, 50});
  f.Zero("m", true, {60, 60});
  f.Add("m", true, UtilSignal::kSmActive, {0.5f, 1.0f}, {58, 56});
  const std::string e2 = ErrorOf(f.Fit(opt));
  EXPECT_NE(e2.find("active_w 56 below context_w 60"), std::string::npos) << e2;
}

TEST(PowerTelemetryFit, MalformedInput) {
  Data d;
  d.Add("m", true, UtilSignal::kSmActive, {0.5f, 1.0f}, {200});
  std::vector<PowerSeries> v = d.Views();
  v[0].name = "pod 'p' gpu 1";
  EXPECT_EQ(ErrorOf(FitPowerOnTelemetry(v)),
            "power fit: series 0 (pod 'p' gpu 1): busy has 2 samples, power_w 1");
  Data b;
  b.Add("m", true, UtilSignal::kSmActive, {1.5f}, {200});
  EXPECT_EQ(ErrorOf(b.Fit()), "power fit: series 0: busy[0] = 1.5 is not a fraction 0..1");
  Data p;
  p.Add("m", true, UtilSignal::kSmActive, {0.5f}, {std::numeric_limits<float>::infinity()});
  EXPECT_EQ(ErrorOf(p.Fit()), "power fit: series 0: power_w[0] = inf is not finite");
  PowerTelemetryFitOptions opt;
  opt.min_samples = 1;
  EXPECT_EQ(ErrorOf(KnownLine("m").Fit(opt)), "power fit: min_samples must be >= 2, got 1");
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
