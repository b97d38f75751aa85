// Small openb helpers: format detection by header, QoS priorities and recorded
// scheduling delays.
#include <algorithm>
#include <array>

#include "utilsim/traces/openb.h"

namespace utilsim::traces {

namespace {

std::string_view TrimBlanks(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// True when every name in `required` is in `header` (after trimming blanks).
template <size_t N>
bool HasAll(const std::vector<std::string>& header,
            const std::array<std::string_view, N>& required) {
  for (std::string_view want : required) {
    bool found = false;
    for (const std::string& h : header) found = found || TrimBlanks(h) == want;
    if (!found) return false;
  }
  return true;
}

}  // namespace

bool LooksLikeOpenbPods(const std::vector<std::string>& header) {
  constexpr std::array<std::string_view, 5> kRequired = {"name", "cpu_milli", "memory_mib",
                                                         "num_gpu", "gpu_milli"};
  return HasAll(header, kRequired);
}

bool LooksLikeOpenbNodes(const std::vector<std::string>& header) {
  constexpr std::array<std::string_view, 5> kRequired = {"sn", "cpu_milli", "memory_mib", "gpu",
                                                         "model"};
  return HasAll(header, kRequired);
}

int32_t OpenbQosPriority(std::string_view qos) {
  // LS (latency-sensitive services) first, then the Kubernetes QoS classes
  // Guaranteed > Burstable, and BE (best effort) last; docs/formats/openb.md.
  if (qos == "LS") return 3;
  if (qos == "Guaranteed") return 2;
  if (qos == "Burstable") return 1;
  if (qos == "BE") return 0;
  return -1;
}

std::vector<Micros> OpenbScheduleDelays(const Workload& workload) {
  std::vector<Micros> out;
  for (const Job& j : workload.jobs) {
    if (j.recorded_start) out.push_back(*j.recorded_start - j.submit);
  }
  std::sort(out.begin(), out.end());
  return out;
}

OpenbDelayStats SummarizeDelays(const std::vector<Micros>& sorted_delays) {
  OpenbDelayStats s;
  const size_t n = sorted_delays.size();
  if (n == 0) return s;
  s.count = static_cast<int64_t>(n);
  double sum = 0;
  for (Micros d : sorted_delays) sum += d.seconds();
  s.mean_s = sum / static_cast<double>(n);
  s.median_s = n % 2 == 1
                   ? sorted_delays[n / 2].seconds()
                   : (sorted_delays[n / 2 - 1].seconds() + sorted_delays[n / 2].seconds()) / 2;
  s.max_s = sorted_delays.back().seconds();
  return s;
}

}  // namespace utilsim::traces
