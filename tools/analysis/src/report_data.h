// Private: the figures behind the HTML report, reduced to a bounded size.
// Pure functions of the runs; deterministic.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "utilsim/engine/metrics.h"

namespace utilsim::report {

// One point of a time series: the mean of `group` consecutive samples.
struct SeriesPoint {
  double t_h = 0;  // time of the group's first sample, hours
  double allocated = 0, busy = 0, stranded = 0, queued = 0;
  double power_kw = 0;  // samples.power_w / 1000
  // Mean FGD fragmentation (samples.frag_gpu_milli / 1000, GPUs) over the
  // group's samples that recorded it; NaN when none did.
  double frag = 0;
};

// Samples averaged in groups of ceil(n / max_points) consecutive samples (the
// last group may be shorter), so at most max_points points. *group receives
// the group size (0 when there are no samples). max_points >= 1.
std::vector<SeriesPoint> DownsampleSamples(const std::vector<Sample>& samples, size_t max_points,
                                           size_t* group);

// One step of an empirical CDF: a fraction `frac` of the values are <= value.
struct CdfPoint {
  double value = 0;
  double frac = 0;
};

// The empirical CDF of `values`: every sorted value (frac = (i+1)/n) when
// n <= max_points, else the nearest-rank quantiles at frac = k / max_points,
// k = 1..max_points, preceded by the minimum at frac 1/n. Empty for no values.
std::vector<CdfPoint> Cdf(std::vector<double> values, size_t max_points);

// Distributions of one run, in the report's units.
struct RunDistributions {
  std::vector<double> wait_min;  // jobs that started: queue wait, minutes
  std::vector<double> jct_min;   // finished or killed jobs: JCT, minutes
  std::vector<double> slowdown;  // same jobs: max(1, JCT / max(recorded runtime, 10 s))
};
RunDistributions Distributions(const std::vector<JobRecord>& jobs);

// Per-tenant figures of one run.
struct TenantStats {
  uint32_t tenant = 0;
  int64_t jobs = 0;
  int64_t started = 0;
  double wait_sum_s = 0;  // over started jobs
  double gpu_h = 0;       // allocated GPU-hours, whole run (not clipped to the window)
  // Allocated-but-idle GPU-hours by cause (IdleCause order), whole run.
  std::array<double, static_cast<size_t>(IdleCause::kCount)> idle_h{};
  // Queued job-hours by primary cause (WaitCause order) and the GPUs'
  // energy (kWh) of its jobs, whole run.
  std::array<double, kWaitCauses> wait_h{};
  double energy_kwh = 0;
};
// Sorted by tenant index.
std::vector<TenantStats> Tenants(const std::vector<JobRecord>& jobs);

// Rounds to `decimals` decimal places (keeps NaN and infinities).
double Round(double x, int decimals);

// Text for the page, independent of the locale.
std::string Fixed(double x, int decimals);  // "12.35"; "n/a" for NaN or infinity
std::string Count(int64_t n);               // "20,000"
std::string Duration(double s);             // "42.0 s", "3.5 min", "7.2 h"; "n/a" for NaN

}  // namespace utilsim::report
