// The GPU power model fitted on telemetry with power beside utilization
// (power_telemetry_fit.h).
#include "utilsim/workloads/power_telemetry_fit.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

namespace utilsim {

namespace {

std::string Num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

std::string SeriesName(const PowerSeries& s, size_t i) {
  std::string out = "series " + std::to_string(i);
  if (!s.name.empty()) out += " (" + std::string(s.name) + ")";
  return out;
}

// "" when the series is well formed, else what is wrong.
std::string SeriesProblem(const PowerSeries& s, size_t i) {
  if (!s.power_w.empty() && s.power_w.size() != s.busy.size()) {
    return SeriesName(s, i) + ": busy has " + std::to_string(s.busy.size()) + " samples, power_w " +
           std::to_string(s.power_w.size());
  }
  for (size_t k = 0; k < s.busy.size(); ++k) {
    if (!(s.busy[k] >= 0.0f && s.busy[k] <= 1.0f)) {
      return SeriesName(s, i) + ": busy[" + std::to_string(k) + "] = " + Num(s.busy[k]) +
             " is not a fraction 0..1";
    }
  }
  for (size_t k = 0; k < s.power_w.size(); ++k) {
    if (!std::isfinite(s.power_w[k])) {
      return SeriesName(s, i) + ": power_w[" + std::to_string(k) + "] = " + Num(s.power_w[k]) +
             " is not finite";
    }
  }
  return {};
}

bool HasPower(const PowerSeries& s) {
  return std::any_of(s.power_w.begin(), s.power_w.end(), [](float w) { return w >= 0.0f; });
}

// The samples of one model, by class.
struct ModelSamples {
  std::vector<double> idle, context;
  std::vector<double> active_busy, active_w;
  int64_t busy_unallocated = 0;
};

double Median(std::vector<double> v) {
  const size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  const double hi = v[mid];
  if (v.size() % 2 == 1) return hi;
  const double lo = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
  return (lo + hi) / 2;
}

// Ordinary least squares of y on x (centred sums); false when every x is
// equal.
bool FitLine(const std::vector<double>& x, const std::vector<double>& y,
             ModelPowerTelemetryFit* fit) {
  const auto n = static_cast<double>(x.size());
  double mx = 0, my = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    mx += x[i];
    my += y[i];
  }
  mx /= n;
  my /= n;
  double sxx = 0, sxy = 0, syy = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    sxx += (x[i] - mx) * (x[i] - mx);
    sxy += (x[i] - mx) * (y[i] - my);
    syy += (y[i] - my) * (y[i] - my);
  }
  if (!(sxx > 0)) return false;
  fit->slope_w = sxy / sxx;
  fit->intercept_w = my - fit->slope_w * mx;
  double ss_res = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double r = y[i] - (fit->intercept_w + fit->slope_w * x[i]);
    ss_res += r * r;
  }
  fit->r2 = syy > 0 ? 1 - ss_res / syy : 1.0;
  fit->rms_w = std::sqrt(ss_res / n);
  return true;
}

// Fits one model; "" or what is wrong (without the model's name).
std::string FitModel(const ModelSamples& s, int64_t min_samples, ModelPowerTelemetryFit* fit) {
  fit->n_idle = static_cast<int64_t>(s.idle.size());
  fit->n_context = static_cast<int64_t>(s.context.size());
  fit->n_active = static_cast<int64_t>(s.active_w.size());
  fit->n_busy_unallocated = s.busy_unallocated;
  std::string missing;
  auto need = [&](int64_t n, const char* what) {
    if (n >= min_samples) return;
    missing += (missing.empty() ? "" : ", ") + std::to_string(n) + " " + what;
  };
  need(fit->n_idle, "idle samples (busy 0 on a GPU no job holds)");
  need(fit->n_context, "context samples (busy 0 on a GPU a job holds)");
  need(fit->n_active, "active samples (busy > 0 on a GPU a job holds)");
  if (!missing.empty()) return missing + ", need at least " + std::to_string(min_samples) + " each";
  fit->power.idle_w = Median(s.idle);
  fit->power.context_w = Median(s.context);
  if (!FitLine(s.active_busy, s.active_w, fit)) {
    return "the active samples' busy values are all " + Num(s.active_busy.front()) +
           ": no line to fit";
  }
  fit->power.active_w = fit->intercept_w + fit->slope_w;
  PowerModel check;
  check.models = {{fit->model, fit->power}};
  if (std::string e = CheckPowerModel(check); !e.empty()) {
    return "the fit breaks the power model (" + e + ")";
  }
  return {};
}

}  // namespace

Result<PowerTelemetryFit> FitPowerOnTelemetry(std::span<const PowerSeries> series,
                                              const PowerTelemetryFitOptions& options) {
  const std::string where = "power fit: ";
  if (options.min_samples < 2) {
    return Status::Error(where + "min_samples must be >= 2, got " +
                         std::to_string(options.min_samples));
  }
  for (size_t i = 0; i < series.size(); ++i) {
    if (std::string e = SeriesProblem(series[i], i); !e.empty()) return Status::Error(where + e);
  }
  PowerTelemetryFit out;
  out.signal = options.signal;
  if (out.signal == UtilSignal::kUnknown) {
    for (UtilSignal s :
         {UtilSignal::kSmActive, UtilSignal::kGrEngineActive, UtilSignal::kGpuUtil}) {
      if (std::any_of(series.begin(), series.end(),
                      [s](const PowerSeries& p) { return p.signal == s && HasPower(p); })) {
        out.signal = s;
        break;
      }
    }
    if (out.signal == UtilSignal::kUnknown) {
      return Status::Error(where +
                           "no series carries a busy signal (sm_active, gr_engine_active, "
                           "gpu_util) with power values");
    }
  } else if (out.signal != UtilSignal::kGpuUtil && out.signal != UtilSignal::kSmActive &&
             out.signal != UtilSignal::kGrEngineActive) {
    return Status::Error(where + "signal: expected gpu_util, sm_active or gr_engine_active, got '" +
                         UtilSignalName(out.signal) + "'");
  }
  const std::string signal = UtilSignalName(out.signal);

  std::map<std::string, ModelSamples> by_model;
  for (const PowerSeries& s : series) {
    if (s.signal != out.signal) continue;
    ++out.series;
    out.samples += static_cast<int64_t>(s.busy.size());
    const std::string model = s.model.empty() ? options.unknown_model : std::string(s.model);
    ModelSamples& m = by_model[model];
    for (size_t k = 0; k < s.busy.size(); ++k) {
      const double w = s.power_w.empty() ? -1.0 : s.power_w[k];
      if (w < 0) {
        ++out.samples_without_power;
        continue;
      }
      const double b = s.busy[k];
      if (b == 0) {
        (s.allocated ? m.context : m.idle).push_back(w);
      } else if (s.allocated) {
        m.active_busy.push_back(b);
        m.active_w.push_back(w);
      } else {
        ++m.busy_unallocated;
      }
    }
  }
  std::string problems;
  for (const auto& [model, samples] : by_model) {
    if (samples.idle.empty() && samples.context.empty() && samples.active_w.empty() &&
        samples.busy_unallocated == 0) {
      out.models_without_power.push_back(model);
      continue;
    }
    ModelPowerTelemetryFit fit;
    fit.model = model;
    fit.power.source = "telemetry fit (" + signal + ")";
    if (std::string e = FitModel(samples, options.min_samples, &fit); !e.empty()) {
      problems += (problems.empty() ? "" : "; ") + ("model '" + model + "': " + e);
      continue;
    }
    out.models.push_back(std::move(fit));
  }
  if (!problems.empty()) return Status::Error(where + signal + ": " + problems);
  if (out.models.empty()) {
    return Status::Error(where + "no " + signal + " sample has a power value (" +
                         std::to_string(out.series) + " series, " + std::to_string(out.samples) +
                         " samples)");
  }
  return out;
}

}  // namespace utilsim
