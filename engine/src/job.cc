#include "utilsim/engine/job.h"

#include <algorithm>
#include <numeric>

namespace utilsim {

const char* UtilSignalName(UtilSignal s) {
  switch (s) {
    case UtilSignal::kGpuUtil:
      return "gpu_util";
    case UtilSignal::kSmActive:
      return "sm_active";
    case UtilSignal::kGrEngineActive:
      return "gr_engine_active";
    case UtilSignal::kSynthetic:
      return "synthetic";
    case UtilSignal::kUnknown:
      break;
  }
  return "unknown";
}

uint32_t Workload::InternTenant(const std::string& name) {
  for (size_t i = 0; i < tenants.size(); ++i)
    if (tenants[i] == name) return static_cast<uint32_t>(i);
  tenants.push_back(name);
  return static_cast<uint32_t>(tenants.size() - 1);
}

void Workload::Finalize() {
  if (tenants.empty()) tenants.push_back("default");
  auto by_submit = [](const Job& a, const Job& b) { return a.submit < b.submit; };
  if (!std::is_sorted(jobs.begin(), jobs.end(), by_submit))
    std::stable_sort(jobs.begin(), jobs.end(), by_submit);
}

double SeriesMean(const UtilSeries& s, Micros runtime) {
  if (s.offset.empty() || runtime.us <= 0) return 0;
  double acc = 0;
  for (size_t i = 0; i < s.offset.size(); ++i) {
    int64_t from = std::min(s.offset[i].us, runtime.us);
    int64_t to = i + 1 < s.offset.size() ? std::min(s.offset[i + 1].us, runtime.us) : runtime.us;
    if (to > from) acc += static_cast<double>(to - from) * s.busy[i];
  }
  return acc / static_cast<double>(runtime.us);
}

}  // namespace utilsim
