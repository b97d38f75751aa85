#include "report_data.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "utilsim/engine/units.h"

namespace utilsim::report {

double Round(double x, int decimals) {
  if (!std::isfinite(x)) return x;
  const double scale = std::pow(10.0, decimals);
  const double r = std::round(x * scale) / scale;
  return r == 0 ? 0.0 : r;  // no "-0"
}

std::string Fixed(double x, int decimals) {
  if (!std::isfinite(x)) return "n/a";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, x);
  std::string s = buf;
  return s == "-0" || s.find_first_not_of("-0.") == std::string::npos ? s.substr(s[0] == '-') : s;
}

std::string Count(int64_t n) {
  std::string s = std::to_string(n < 0 ? -n : n);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<size_t>(i), ",");
  return n < 0 ? "-" + s : s;
}

std::string Duration(double s) {
  if (!std::isfinite(s)) return "n/a";
  if (std::abs(s) < 60) return Fixed(s, 1) + " s";
  if (std::abs(s) < 3600) return Fixed(s / 60, 1) + " min";
  return Fixed(s / 3600, 1) + " h";
}

std::vector<SeriesPoint> DownsampleSamples(const std::vector<Sample>& samples, size_t max_points,
                                           size_t* group) {
  std::vector<SeriesPoint> out;
  const size_t n = samples.size();
  *group = 0;
  if (n == 0 || max_points == 0) return out;
  const size_t g = (n + max_points - 1) / max_points;
  *group = g;
  out.reserve((n + g - 1) / g);
  for (size_t begin = 0; begin < n; begin += g) {
    const size_t end = std::min(n, begin + g);
    SeriesPoint p;
    p.t_h = samples[begin].time.seconds() / 3600.0;
    size_t frag_n = 0;
    for (size_t i = begin; i < end; ++i) {
      if (!std::isnan(samples[i].frag_gpu_milli)) {
        p.frag += samples[i].frag_gpu_milli / kMilliPerUnit;
        ++frag_n;
      }
      p.allocated += samples[i].gpus_allocated;
      p.busy += samples[i].gpus_busy;
      p.stranded += static_cast<double>(samples[i].gpus_stranded);
      p.power_kw += samples[i].power_w / 1000;
      p.queued += static_cast<double>(samples[i].queued);
    }
    const double k = static_cast<double>(end - begin);
    p.allocated /= k;
    p.busy /= k;
    p.stranded /= k;
    p.power_kw /= k;
    p.queued /= k;
    p.frag = frag_n > 0 ? p.frag / static_cast<double>(frag_n) : std::nan("");
    out.push_back(p);
  }
  return out;
}

std::vector<CdfPoint> Cdf(std::vector<double> values, size_t max_points) {
  std::vector<CdfPoint> out;
  const size_t n = values.size();
  if (n == 0 || max_points == 0) return out;
  std::sort(values.begin(), values.end());
  const double dn = static_cast<double>(n);
  if (n <= max_points) {
    out.reserve(n);
    for (size_t i = 0; i < n; ++i) out.push_back({values[i], static_cast<double>(i + 1) / dn});
    return out;
  }
  out.reserve(max_points + 1);
  out.push_back({values[0], 1.0 / dn});
  for (size_t k = 1; k <= max_points; ++k) {
    // Nearest rank: the smallest value with at least k/max_points of the
    // values at or below it. Integer arithmetic keeps it exact.
    const size_t rank = (k * n + max_points - 1) / max_points;  // ceil(k n / m), 1..n
    out.push_back({values[rank - 1], static_cast<double>(k) / static_cast<double>(max_points)});
  }
  return out;
}

RunDistributions Distributions(const std::vector<JobRecord>& jobs) {
  RunDistributions d;
  for (const JobRecord& r : jobs) {
    if (r.start.us >= 0) d.wait_min.push_back(r.wait_s() / 60.0);
    if (r.outcome == JobOutcome::kFinished || r.outcome == JobOutcome::kKilled) {
      const double jct = r.jct_s();
      d.jct_min.push_back(jct / 60.0);
      d.slowdown.push_back(std::max(1.0, jct / std::max(r.recorded_runtime.seconds(), 10.0)));
    }
  }
  return d;
}

std::vector<TenantStats> Tenants(const std::vector<JobRecord>& jobs) {
  std::map<uint32_t, TenantStats> by;
  for (const JobRecord& r : jobs) {
    TenantStats& t = by[r.tenant];
    t.tenant = r.tenant;
    ++t.jobs;
    if (r.start.us >= 0) {
      ++t.started;
      t.wait_sum_s += r.wait_s();
    }
    t.gpu_h += r.alloc_gpu_s / 3600.0;
    for (size_t c = 0; c < t.idle_h.size(); ++c) t.idle_h[c] += r.idle_gpu_s[c] / 3600.0;
    for (size_t c = 0; c < kWaitCauses; ++c) t.wait_h[c] += r.wait_cause_s[c] / 3600.0;
    t.energy_kwh += r.energy_kwh;
  }
  std::vector<TenantStats> out;
  out.reserve(by.size());
  for (auto& [k, v] : by) out.push_back(v);
  return out;
}

}  // namespace utilsim::report
