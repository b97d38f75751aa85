#include "utilsim/analysis/memory_guard.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

namespace utilsim {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

// a x b + c, saturating at kMax (all >= 0).
int64_t MulAdd(int64_t a, int64_t b, int64_t c) {
  a = std::max<int64_t>(a, 0);
  b = std::max<int64_t>(b, 0);
  if (a != 0 && b > (kMax - c) / a) return kMax;
  return a * b + c;
}

}  // namespace

int64_t EstimateMemoryBytes(const MemoryDemand& d) {
  int64_t per_run = MulAdd(d.jobs, kBytesPerJobRun, 0);
  per_run = MulAdd(d.nodes, kBytesPerNodeRun, per_run);
  per_run = MulAdd(d.samples_per_run, kBytesPerSample, per_run);
  const int64_t held = MulAdd(std::max<int64_t>(d.workload_copies, 1), d.jobs, 0);
  const int64_t once = MulAdd(d.groups, kBytesPerGroup, MulAdd(held, kBytesPerJob, kBaseBytes));
  return MulAdd(std::max<int64_t>(d.runs, 1), per_run, once);
}

int64_t SamplesPerRun(const Workload& w, double sample_interval_s, double horizon_s) {
  if (w.jobs.empty() || !(sample_interval_s > 0)) return 0;
  double first = w.jobs.front().submit.seconds(), last = first;
  for (const Job& j : w.jobs) {
    first = std::min(first, j.submit.seconds());
    last = std::max(last, (j.submit + j.runtime).seconds());
  }
  double span = last - first;
  if (horizon_s >= 0) span = std::min(span, horizon_s);
  const double n = std::floor(std::max(span, 0.0) / sample_interval_s) + 1;
  return n >= 9e18 ? kMax : static_cast<int64_t>(n);
}

Result<int64_t> ParseMemorySize(const std::string& text) {
  const Status bad = Status::Error(
      "--max-memory: expected a size >= 0 such as 16G, 500M or 2T (K, M, G, T = 1024^1..4 "
      "bytes; a plain number is bytes), or 0 or none for no limit, got '" +
      text + "'");
  std::string t;
  for (char c : text) t += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (t == "none" || t == "0") return int64_t{0};
  if (t.empty() || !(std::isdigit(static_cast<unsigned char>(t[0])) || t[0] == '.')) return bad;
  char* end = nullptr;
  const double v = std::strtod(t.c_str(), &end);
  std::string unit(end);
  if (unit.size() > 1 && (unit.ends_with("ib") || unit.ends_with("b")))
    unit.resize(unit.size() - (unit.ends_with("ib") ? 2 : 1));
  else if (unit == "b")
    unit.clear();
  double mult = 1;
  if (unit == "k")
    mult = 1024.0;
  else if (unit == "m")
    mult = 1024.0 * 1024;
  else if (unit == "g")
    mult = 1024.0 * 1024 * 1024;
  else if (unit == "t")
    mult = 1024.0 * 1024 * 1024 * 1024;
  else if (!unit.empty())
    return bad;
  const double bytes = v * mult;
  if (!std::isfinite(bytes) || bytes < 0 || bytes >= 9.2e18) return bad;
  return static_cast<int64_t>(std::llround(bytes));
}

int64_t PhysicalMemoryBytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) return 0;
  return static_cast<int64_t>(pages) * static_cast<int64_t>(page);
}

MemoryLimit ResolveMemoryLimit(const std::string& option) {
  if (option.empty()) {
    const int64_t phys = PhysicalMemoryBytes();
    if (phys <= 0) return {0, "physical memory unknown"};
    return {phys / 5 * 4, "80% of physical memory"};
  }
  auto v = ParseMemorySize(option);
  return {v.ok() ? v.value() : 0, "--max-memory " + option};
}

std::string FormatBytes(double bytes) {
  static const char* const kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  size_t u = 0;
  while (bytes >= 1024 && u + 1 < std::size(kUnits)) {
    bytes /= 1024;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", bytes, kUnits[u]);
  return buf;
}

Status CheckMemory(const MemoryDemand& d, const MemoryLimit& limit) {
  if (limit.bytes <= 0) return Status::Ok();
  const int64_t need = EstimateMemoryBytes(d);
  if (need <= limit.bytes) return Status::Ok();
  std::string what = std::to_string(d.jobs) + " jobs";
  if (!d.runs_label.empty()) what += " x " + d.runs_label;
  std::string sizes = std::to_string(d.nodes) + " nodes";
  if (d.samples_per_run > 0)
    sizes += ", " + std::to_string(d.samples_per_run) +
             (d.samples_per_run == 1 ? " sample per run" : " samples per run");
  return Status::Error("estimated " + FormatBytes(static_cast<double>(need)) + " for " + what +
                       " (" + sizes + ") exceeds the limit " +
                       FormatBytes(static_cast<double>(limit.bytes)) + " (" + limit.origin +
                       "); raise it with --max-memory SIZE (e.g. --max-memory 64G; none disables "
                       "the check)");
}

MemoryDemand DemandOfRuns(const Inputs& in, const RunSpec& s, int64_t runs,
                          std::string runs_label) {
  MemoryDemand d;
  d.jobs = static_cast<int64_t>(in.workload.jobs.size());
  d.nodes = in.cluster.total_nodes();
  d.groups = static_cast<int64_t>(in.cluster.groups.size());
  d.samples_per_run = SamplesPerRun(in.workload, s.sample_interval.seconds(),
                                    s.horizon ? s.horizon->seconds() : -1);
  // Change points are held besides the samples derived from them: at most
  // one per instant, and an instant is an arrival, a start or an end (3 x
  // jobs); --series auto takes them only when there are no more of them
  // than ticks.
  const int64_t points = MulAdd(d.jobs, 3, 0);
  if (s.series == SeriesForm::kChanges)
    d.samples_per_run = MulAdd(1, d.samples_per_run, points);
  else if (s.series == SeriesForm::kAuto)
    d.samples_per_run = MulAdd(1, d.samples_per_run, std::min(points, d.samples_per_run));
  d.runs = runs;
  d.runs_label = std::move(runs_label);
  return d;
}

std::function<Status(int64_t, int64_t)> GuardBeforeGenerate(MemoryLimit limit, int64_t runs,
                                                            std::string runs_label) {
  return
      [limit = std::move(limit), runs, label = std::move(runs_label)](int64_t jobs, int64_t nodes) {
        MemoryDemand d;
        d.jobs = jobs;
        d.nodes = nodes;
        d.groups = 1;  // the synthetic cluster
        d.runs = runs;
        d.runs_label = label;
        return CheckMemory(d, limit);
      };
}

}  // namespace utilsim
