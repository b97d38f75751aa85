// Calibration of the GPU power model (engine/power.h, docs/energy.md) on
// measured telemetry that records board power beside utilization at the same
// instants: dcgm-exporter DCGM_FI_DEV_POWER_USAGE, nvidia-smi power.draw,
// dcgmi POWER (traces/telemetry.h joins them into UtilTrack::power_w).
//
// Input: series of one GPU each (or one GPU while one job / pod held it),
// with its model, whether a job held it, a busy signal and the power at each
// busy sample. The library works on views (PowerSeries), so it does not
// depend on the trace readers; the caller maps traces::UtilTrack to it
// (model, allocated = the track names a job / pod, signal, busy, power_w).
//
// One busy signal per fit: options.signal, or when it is kUnknown the first
// of sm_active, gr_engine_active, gpu_util that some series carries with a
// power value. Only series of that signal are read, and of those only the
// samples with a power value (power_w[i] >= 0). Per GPU model (series with
// an empty model go under options.unknown_model), each sample goes to one
// class:
//   idle     busy == 0 on a GPU no job holds      idle_w    = median power
//   context  busy == 0 on a GPU a job holds       context_w = median power
//   active   busy >  0 on a GPU a job holds       power = a + b x busy by
//            ordinary least squares, active_w = a + b (the line at busy 1)
//   (busy > 0 on a GPU no job holds is counted and not used)
// The median of an even count is the mean of the two middle values. The line
// reports its n, R^2 = 1 - SS_res / SS_tot (1 when every power is equal:
// the line then fits exactly), the RMS residual sqrt(SS_res / n), and the
// intercept a, which a consistent model puts near context_w.
//
// Errors (one Status naming every model at fault; no figure is invented):
// a class with fewer than options.min_samples samples, active samples whose
// busy values are all equal (no line), a fit that breaks the power model's
// order idle_w <= context_w <= active_w (CheckPowerModel's text), malformed
// input (lengths differ, busy outside 0..1, non-finite power), and no series
// of the signal with power at all.
//
// Thread-safety: pure function.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "utilsim/engine/job.h"
#include "utilsim/engine/power.h"
#include "utilsim/engine/status.h"

namespace utilsim {

// One series: views into the caller's data, which must outlive the call.
struct PowerSeries {
  std::string_view name;   // for messages ("pod 'p' host 'h' gpu 1"); may be empty
  std::string_view model;  // GPU model; "" = unknown
  bool allocated = false;  // a job / pod holds the GPU during the series
  UtilSignal signal = UtilSignal::kUnknown;
  std::span<const float> busy;     // 0..1
  std::span<const float> power_w;  // W, same length as busy, or empty; < 0 = no value
};

struct PowerTelemetryFitOptions {
  // gpu_util, sm_active or gr_engine_active; kUnknown = the first of
  // sm_active, gr_engine_active, gpu_util present with power.
  UtilSignal signal = UtilSignal::kUnknown;
  std::string unknown_model = "unknown";  // the model of series without one
  int64_t min_samples = 10;               // per class and model (>= 2)
};

struct ModelPowerTelemetryFit {
  std::string model;
  GpuPower power;  // idle_w, context_w, active_w; source "telemetry fit (<signal>)"
  int64_t n_idle = 0, n_context = 0, n_active = 0;
  int64_t n_busy_unallocated = 0;  // busy > 0 on a GPU no job holds (not used)
  // The active line power = intercept_w + slope_w x busy over the n_active
  // samples, with its R^2 and RMS residual (W).
  double intercept_w = 0, slope_w = 0, r2 = 0, rms_w = 0;
};

struct PowerTelemetryFit {
  UtilSignal signal = UtilSignal::kUnknown;    // the busy signal used
  std::vector<ModelPowerTelemetryFit> models;  // by model name
  // Models whose series of the signal carry no power value at all (not fitted).
  std::vector<std::string> models_without_power;
  int64_t series = 0;                 // series of the signal read
  int64_t samples = 0;                // their samples
  int64_t samples_without_power = 0;  // of those, without a power value
};

Result<PowerTelemetryFit> FitPowerOnTelemetry(std::span<const PowerSeries> series,
                                              const PowerTelemetryFitOptions& options = {});

}  // namespace utilsim
