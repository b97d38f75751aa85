#include "utilsim/analysis/trace_evidence.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

namespace utilsim {

double LatencyFloorSeconds(const Workload& w) {
  std::vector<int64_t> waits;
  for (const Job& j : w.jobs)
    if (j.recorded_start) waits.push_back((*j.recorded_start - j.submit).us);
  if (waits.empty()) return 0;
  // Nearest rank: the smallest value with at least 10 % of the waits at or
  // below it.
  const size_t rank = static_cast<size_t>(std::ceil(0.10 * static_cast<double>(waits.size())));
  const size_t k = rank == 0 ? 0 : rank - 1;
  std::nth_element(waits.begin(), waits.begin() + static_cast<std::ptrdiff_t>(k), waits.end());
  return 2.0 * static_cast<double>(waits[k]) / kMicrosPerSecond;
}

std::vector<StartGap> FindStartGaps(const Workload& w, Micros min_gap) {
  std::vector<Micros> starts;
  struct Rec {
    Micros submit, start, end;
    int64_t gpus;
  };
  std::vector<Rec> jobs;
  for (const Job& j : w.jobs) {
    if (!j.recorded_start) continue;
    starts.push_back(*j.recorded_start);
    jobs.push_back({j.submit, *j.recorded_start, *j.recorded_start + j.runtime,
                    static_cast<int64_t>(j.tasks) * j.task.gpus});
  }
  std::sort(starts.begin(), starts.end());
  std::vector<StartGap> gaps;
  for (size_t i = 1; i < starts.size(); ++i)
    if (starts[i] - starts[i - 1] >= min_gap) gaps.push_back({starts[i - 1], starts[i], 0});
  if (gaps.empty()) return gaps;
  // Jobs waiting through each gap: submit <= from and start >= to. Gaps do
  // not overlap, so each job's gaps are a contiguous run found by search.
  auto first_from = [&](Micros t) {  // the first gap with from >= t
    return std::lower_bound(gaps.begin(), gaps.end(), t,
                            [](const StartGap& g, Micros x) { return g.from < x; });
  };
  for (const Rec& j : jobs) {
    for (auto g = first_from(j.submit); g != gaps.end() && g->to <= j.start; ++g) ++g->waiting;
    // Running through a gap: started by its `from`, ended at or after its
    // `to`; the gaps after the job's start, while they end before it does.
    for (auto g = first_from(j.start); g != gaps.end() && g->to <= j.end; ++g)
      g->running_gpus += j.gpus;
  }
  gaps.erase(
      std::remove_if(gaps.begin(), gaps.end(), [](const StartGap& g) { return g.waiting == 0; }),
      gaps.end());
  std::stable_sort(gaps.begin(), gaps.end(), [](const StartGap& a, const StartGap& b) {
    return a.to - a.from > b.to - b.from;
  });
  return gaps;
}

std::vector<int64_t> PeakGpusInUse(const Workload& w, Micros window) {
  std::vector<std::pair<Micros, int64_t>> steps;  // (time, +gpus at start / -gpus at end)
  for (const Job& j : w.jobs) {
    if (!j.recorded_start) continue;
    const int64_t g = static_cast<int64_t>(j.tasks) * j.task.gpus;
    steps.emplace_back(*j.recorded_start, g);
    steps.emplace_back(*j.recorded_start + j.runtime, -g);
  }
  if (steps.empty() || window.us <= 0) return {};
  // Ends before starts at the same time: a GPU freed and taken at one
  // instant is not counted twice.
  std::sort(steps.begin(), steps.end());
  const int64_t origin = steps.front().first.us / window.us;
  std::vector<int64_t> peaks(static_cast<size_t>(steps.back().first.us / window.us - origin + 1),
                             0);
  int64_t in_use = 0;
  size_t k = 0;
  for (const auto& [t, g] : steps) {
    // The level held since the previous step counts in every window up to t.
    const size_t at = static_cast<size_t>(t.us / window.us - origin);
    for (; k < at; ++k) peaks[k + 1] = std::max(peaks[k + 1], in_use);
    in_use += g;
    peaks[at] = std::max(peaks[at], in_use);
  }
  return peaks;
}

std::string FormatStartGaps(const std::vector<StartGap>& gaps, size_t max) {
  auto clock = [](Micros t) {
    const long long s = static_cast<long long>(t.us / kMicrosPerSecond);
    char buf[48];
    std::snprintf(buf, sizeof buf, "%lldd %02lld:%02lld:%02lld", s / 86400, s % 86400 / 3600,
                  s % 3600 / 60, s % 60);
    return std::string(buf);
  };
  std::string out;
  for (size_t i = 0; i < gaps.size() && i < max; ++i) {
    char buf[200];
    std::snprintf(buf, sizeof buf,
                  "  %.1f h from %s to %s, %lld jobs waiting, %lld GPUs running through it\n",
                  (gaps[i].to - gaps[i].from).seconds() / 3600, clock(gaps[i].from).c_str(),
                  clock(gaps[i].to).c_str(), static_cast<long long>(gaps[i].waiting),
                  static_cast<long long>(gaps[i].running_gpus));
    out += buf;
  }
  return out;
}

}  // namespace utilsim
