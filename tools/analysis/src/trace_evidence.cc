#include "utilsim/analysis/trace_evidence.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

#include "inspect_stats.h"
#include "utilsim/engine/units.h"

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
    int64_t milli;  // tasks x GPU share
  };
  std::vector<Rec> jobs;
  for (const Job& j : w.jobs) {
    if (!j.recorded_start) continue;
    starts.push_back(*j.recorded_start);
    jobs.push_back({j.submit, *j.recorded_start, *j.recorded_start + j.runtime,
                    j.task.total_gpu_milli() * j.tasks});
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
      g->running_gpus += j.milli;  // milli-GPU until the end
  }
  for (StartGap& g : gaps) g.running_gpus = (g.running_gpus + kMilliPerUnit - 1) / kMilliPerUnit;
  gaps.erase(
      std::remove_if(gaps.begin(), gaps.end(), [](const StartGap& g) { return g.waiting == 0; }),
      gaps.end());
  std::stable_sort(gaps.begin(), gaps.end(), [](const StartGap& a, const StartGap& b) {
    return a.to - a.from > b.to - b.from;
  });
  return gaps;
}

std::vector<int64_t> PeakGpusInUse(const Workload& w, Micros window) {
  const std::vector<std::pair<Micros, int64_t>> ch = RecordedChanges(w);
  if (ch.empty() || window.us <= 0) return {};
  const int64_t origin = ch.front().first.us / window.us;
  std::vector<int64_t> peaks(static_cast<size_t>(ch.back().first.us / window.us - origin + 1), 0);
  int64_t in_use = 0;  // milli-GPU
  size_t k = 0;
  for (const auto& [t, milli] : ch) {
    // The level held since the previous change counts in every window up to t.
    const size_t at = static_cast<size_t>(t.us / window.us - origin);
    for (; k < at; ++k) peaks[k + 1] = std::max(peaks[k + 1], in_use);
    in_use += milli;
    peaks[at] = std::max(peaks[at], in_use);
  }
  for (int64_t& p : peaks) p = (p + kMilliPerUnit - 1) / kMilliPerUnit;  // whole GPUs, up
  return peaks;
}

Micros PeakWindowStart(const Workload& w, Micros window) {
  const std::vector<std::pair<Micros, int64_t>> ch = RecordedChanges(w);
  if (ch.empty() || window.us <= 0) return Micros(0);
  return Micros(ch.front().first.us / window.us * window.us);
}

std::vector<ClusterEvent> InferredEvents(const std::vector<int64_t>& peaks, Micros window,
                                         Micros start, const std::vector<StartGap>& gaps,
                                         const std::string& group, int64_t base,
                                         int32_t gpus_per_node, int64_t* total_nodes) {
  std::vector<ClusterEvent> out;
  // Nodes per window, and the most any window needs.
  std::vector<int64_t> need(peaks.size(), base);
  int64_t total = base;
  for (size_t k = 0; k < peaks.size() && gpus_per_node > 0; ++k) {
    need[k] = std::max<int64_t>(base, (peaks[k] + gpus_per_node - 1) / gpus_per_node);
    total = std::max(total, need[k]);
  }
  *total_nodes = total;
  auto names = [&](int64_t from, int64_t to) {  // nodes [from, to) of the group
    std::vector<std::string> v;
    for (int64_t n = from; n < to; ++n) v.push_back(group + "-" + std::to_string(n));
    return v;
  };
  auto event = [&](Micros at, NodeChange c, std::vector<std::string> nodes, bool kill,
                   std::string where) {
    ClusterEvent e;
    e.at = at;
    e.change = c;
    e.nodes = std::move(nodes);
    e.cause = c == NodeChange::kDown ? DownCause::kAbsent : DownCause::kFailure;
    e.kill = kill;
    e.where = std::move(where);
    out.push_back(std::move(e));
  };
  // Capacity: absent at first, then the window's nodes are present.
  if (total > base)
    event(kBeforeEverything, NodeChange::kDown, names(base, total), true,
          "inferred: capacity above " + std::to_string(base) + " nodes");
  int64_t present = base;
  for (size_t k = 0; k < need.size(); ++k) {
    const Micros at = start + Micros(window.us * static_cast<int64_t>(k));
    const std::string where = "inferred: capacity window " + std::to_string(k);
    if (need[k] > present) event(at, NodeChange::kUp, names(present, need[k]), true, where);
    if (need[k] < present) event(at, NodeChange::kDown, names(need[k], present), false, where);
    present = need[k];
  }
  // Outages: no new start through each gap.
  for (const StartGap& g : gaps) {
    const std::string where = "inferred: outage from " + DayClock(g.from.seconds());
    event(g.from + Seconds(1), NodeChange::kDrain, {group}, true, where);
    event(g.to, NodeChange::kResume, {group}, true, where);
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const ClusterEvent& a, const ClusterEvent& b) { return a.at < b.at; });
  return out;
}

std::string FormatStartGaps(const std::vector<StartGap>& gaps, size_t max) {
  std::string out;
  for (size_t i = 0; i < gaps.size() && i < max; ++i) {
    char buf[200];
    std::snprintf(buf, sizeof buf,
                  "  %.1f h from %s to %s, %lld jobs waiting, %lld GPUs running through it\n",
                  (gaps[i].to - gaps[i].from).seconds() / 3600,
                  DayClock(gaps[i].from.seconds()).c_str(), DayClock(gaps[i].to.seconds()).c_str(),
                  static_cast<long long>(gaps[i].waiting),
                  static_cast<long long>(gaps[i].running_gpus));
    out += buf;
  }
  return out;
}

}  // namespace utilsim
