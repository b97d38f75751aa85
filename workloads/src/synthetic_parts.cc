#include "synthetic_parts.h"

#include <algorithm>
#include <cstdint>

#include "utilsim/engine/units.h"
#include "utilsim/workloads/published_stats.h"

namespace utilsim::synthetic_internal {

std::string JobName(int64_t k) {
  char buf[24];
  char* end = buf + sizeof(buf);
  char* p = end;
  uint64_t v = static_cast<uint64_t>(std::max<int64_t>(k, 0));
  int digits = 0;
  do {
    *--p = static_cast<char>('0' + v % 10);
    v /= 10;
    ++digits;
  } while (v != 0 || digits < 7);
  *--p = 'j';
  return std::string(p, end);
}

int64_t DrawWalltimeSeconds(Rng& rng, int64_t runtime_s, int64_t max_s) {
  constexpr int64_t kDay = 86400;
  const double u = rng.Uniform01();
  if (u < published::kAaicShareMaxWalltime) return max_s;
  if (u < published::kAaicShareMaxWalltime + published::kAaicShareDayWalltime) {
    return runtime_s <= kDay ? kDay : max_s;
  }
  const double factor = SampleQuantiles(published::AaicWalltimeFactor(), rng.Uniform01());
  const double wanted = static_cast<double>(runtime_s) * factor;  // factor >= 1
  for (int64_t v : published::AaicRoundWalltimesSeconds()) {
    if (v > max_s) break;
    if (static_cast<double>(v) >= wanted) return v;
  }
  return max_s;
}

bool MakeStartupSeries(Micros runtime, double util, UtilSeries* series) {
  if (!(util > 0.0 && util < 1.0)) return false;
  const int64_t r = runtime.us;
  int64_t startup = std::min<int64_t>(600'000'000, r / 5);
  // Busy work util * r must fit in the steady part: r - startup >= util * r.
  startup = std::min(startup, static_cast<int64_t>((1.0 - util) * static_cast<double>(r)));
  if (startup < kMicrosPerSecond) return false;  // under a second
  const double steady = util * static_cast<double>(r) / static_cast<double>(r - startup);
  series->offset = {Micros(0), Micros(startup)};
  series->busy = {0.0f, std::min(1.0f, static_cast<float>(steady))};
  return true;
}

}  // namespace utilsim::synthetic_internal
