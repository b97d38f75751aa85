#include "utilsim/analysis/host_scale.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

namespace utilsim {
namespace {

// A finite number > 0 filling `s`, or a negative value.
double Factor(const std::string& s) {
  if (s.empty() || std::isspace(static_cast<unsigned char>(s[0]))) return -1;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || !std::isfinite(v) || !(v > 0)) return -1;
  return v;
}

int64_t Scale(int64_t v, double f) {
  if (v <= 0) return v;
  const double x = std::round(static_cast<double>(v) * f);
  if (x >= 9.2e18) return std::numeric_limits<int64_t>::max();
  return std::max<int64_t>(1, static_cast<int64_t>(x));
}

}  // namespace

Result<HostScale> ParseHostScale(const std::string& text) {
  const Status bad =
      Status::Error("--scale-host-requests: expected CPU[,MEM] factors > 0, got '" + text + "'");
  const size_t comma = text.find(',');
  HostScale f;
  f.cpu = Factor(text.substr(0, comma));
  f.mem = comma == std::string::npos ? f.cpu : Factor(text.substr(comma + 1));
  if (f.cpu < 0 || f.mem < 0) return bad;
  return f;
}

int64_t ScaleHostRequests(Workload* w, const HostScale& f) {
  int64_t n = 0;
  for (Job& j : w->jobs) {
    const int64_t cpu = Scale(j.task.cpu_milli, f.cpu);
    const int64_t mem = Scale(j.task.mem_bytes, f.mem);
    if (cpu == j.task.cpu_milli && mem == j.task.mem_bytes) continue;
    j.task.cpu_milli = cpu;
    j.task.mem_bytes = mem;
    ++n;
  }
  return n;
}

std::string HostScaleNote(const HostScale& f, int64_t jobs) {
  char buf[128];
  std::snprintf(buf, sizeof buf, "host requests scaled: cpu x%g, mem x%g (%lld jobs)", f.cpu, f.mem,
                static_cast<long long>(jobs));
  return buf;
}

}  // namespace utilsim
