// The co-location interference model (interference.h; docs/sharing.md).
#include "utilsim/engine/interference.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "format.h"

namespace utilsim {
namespace {

bool InUnit(double x) { return std::isfinite(x) && x >= 0 && x <= 1; }

using internal::FormatG;

Status RunnerError(size_t i, const char* field, const char* expected, double got) {
  return Status::Error("co-runner " + std::to_string(i) + ": field '" + field + "': expected " +
                       expected + ", got " + FormatG(got));
}

Status ParamError(const char* field, double got) {
  return Status::Error(std::string("interference parameter '") + field +
                       "': expected a finite number >= 0, got " + FormatG(got));
}

bool ParamOk(double x) { return std::isfinite(x) && x >= 0; }

// The client's effective active-thread fraction under MPS.
double ThreadFraction(const CoRunner& r, const SharingConfig& s) {
  const double daemon = s.mps_default_thread_fraction;
  return r.mps_thread_fraction > 0 ? std::min(daemon, r.mps_thread_fraction) : daemon;
}

}  // namespace

std::string_view GpuSharingName(GpuSharing mode) {
  return mode == GpuSharing::kMps ? "mps" : "time-slice";
}

std::optional<GpuSharing> ParseGpuSharing(std::string_view text) {
  if (text == "time-slice") return GpuSharing::kTimeSlice;
  if (text == "mps") return GpuSharing::kMps;
  return std::nullopt;
}

Status ValidateCoRun(std::span<const CoRunner> runners, const SharingConfig& sharing,
                     const InterferenceParams& params) {
  if (!ParamOk(params.alpha)) return ParamError("alpha", params.alpha);
  if (!ParamOk(params.beta)) return ParamError("beta", params.beta);
  if (!ParamOk(params.gamma)) return ParamError("gamma", params.gamma);
  if (!ParamOk(params.mps_compute_scale)) {
    return ParamError("mps_compute_scale", params.mps_compute_scale);
  }
  if (sharing.mode == GpuSharing::kMps) {
    if (sharing.mps_max_clients < 1) {
      return Status::Error("MPS: field 'mps_max_clients': expected an integer >= 1, got " +
                           std::to_string(sharing.mps_max_clients));
    }
    if (runners.size() > static_cast<size_t>(sharing.mps_max_clients)) {
      return Status::Error("MPS: " + std::to_string(runners.size()) +
                           " co-runners exceed the client limit of " +
                           std::to_string(sharing.mps_max_clients) + " per GPU");
    }
    const double d = sharing.mps_default_thread_fraction;
    if (!(std::isfinite(d) && d > 0 && d <= 1)) {
      return Status::Error("MPS: field 'mps_default_thread_fraction': expected (0, 1], got " +
                           FormatG(d));
    }
  }
  for (size_t i = 0; i < runners.size(); ++i) {
    const CoRunner& r = runners[i];
    if (!InUnit(r.gpu_util)) return RunnerError(i, "gpu_util", "a fraction in [0, 1]", r.gpu_util);
    if (!InUnit(r.mem_util)) return RunnerError(i, "mem_util", "a fraction in [0, 1]", r.mem_util);
    if (!(std::isfinite(r.gpu_mem_mib) && r.gpu_mem_mib >= 0)) {
      return RunnerError(i, "gpu_mem_mib", "MiB >= 0", r.gpu_mem_mib);
    }
    if (!InUnit(r.mps_thread_fraction)) {
      return RunnerError(i, "mps_thread_fraction", "a fraction in (0, 1] or 0 (unset)",
                         r.mps_thread_fraction);
    }
  }
  return Status::Ok();
}

Status PredictCoRunSpeeds(std::span<const CoRunner> runners, const SharingConfig& sharing,
                          const InterferenceParams& params, std::span<double> speeds) {
  if (speeds.size() != runners.size()) {
    return Status::Error("PredictCoRunSpeeds: " + std::to_string(speeds.size()) +
                         " speed slots for " + std::to_string(runners.size()) + " co-runners");
  }
  if (Status s = ValidateCoRun(runners, sharing, params); !s.ok()) return s;
  const bool mps = sharing.mode == GpuSharing::kMps;
  double sum_u = 0, sum_m = 0, sum_p = 0;
  for (const CoRunner& r : runners) {
    sum_u += r.gpu_util;
    sum_m += r.mem_util;
    if (mps) sum_p += ThreadFraction(r, sharing);
  }
  const double scale = mps ? params.mps_compute_scale : 1.0;
  const double over = std::max(0.0, sum_u - 1.0);
  const bool shared = runners.size() >= 2;
  for (size_t i = 0; i < runners.size(); ++i) {
    const CoRunner& r = runners[i];
    const double others_u = std::max(0.0, sum_u - r.gpu_util);
    const double others_m = std::max(0.0, sum_m - r.mem_util);
    double t = 1.0;
    double overlap = shared ? 1.0 : 0.0;
    if (mps) {
      const double p = ThreadFraction(r, sharing);
      t += r.gpu_util * (1.0 / p - 1.0);
      overlap = std::min(1.0, std::max(0.0, sum_p - 1.0) / p);
    }
    t += overlap * scale * (params.alpha * r.gpu_util * others_u + params.gamma * over);
    t += params.beta * r.gpu_util * others_m;
    speeds[i] = 1.0 / t;
  }
  return Status::Ok();
}

Result<std::vector<double>> PredictCoRunSpeeds(std::span<const CoRunner> runners,
                                               const SharingConfig& sharing,
                                               const InterferenceParams& params) {
  std::vector<double> speeds(runners.size());
  if (Status s = PredictCoRunSpeeds(runners, sharing, params, std::span<double>(speeds)); !s.ok()) {
    return s;
  }
  return speeds;
}

GpuMemoryCheck CheckCoRunMemory(std::span<const CoRunner> runners, double gpu_memory_mib,
                                double client_limit_mib) {
  GpuMemoryCheck c;
  if (!(std::isfinite(gpu_memory_mib) && gpu_memory_mib > 0) || !std::isfinite(client_limit_mib)) {
    c.verdict = GpuMemoryCheck::Verdict::kInvalid;
    return c;
  }
  int first_total = -1, first_client = -1;
  for (size_t i = 0; i < runners.size(); ++i) {
    const double m = runners[i].gpu_mem_mib;
    if (!(std::isfinite(m) && m >= 0)) {
      c.verdict = GpuMemoryCheck::Verdict::kInvalid;
      c.index = static_cast<int>(i);
      return c;
    }
    c.used_mib += m;
    if (first_client < 0 && client_limit_mib > 0 && m > client_limit_mib) {
      first_client = static_cast<int>(i);
    }
    if (first_total < 0 && c.used_mib > gpu_memory_mib) first_total = static_cast<int>(i);
  }
  if (first_client >= 0) {
    c.verdict = GpuMemoryCheck::Verdict::kClientLimitExceeded;
    c.index = first_client;
  } else if (first_total >= 0) {
    c.verdict = GpuMemoryCheck::Verdict::kGpuExceeded;
    c.index = first_total;
  }
  return c;
}

}  // namespace utilsim
