#include "inspect_stats.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "utilsim/analysis/trace_evidence.h"
#include "utilsim/engine/simulator.h"
#include "utilsim/engine/units.h"

namespace utilsim {

std::string DayClock(double s) {
  char buf[48];
  const int64_t t = static_cast<int64_t>(s);
  std::snprintf(buf, sizeof buf, "%lldd %02lld:%02lld:%02lld", static_cast<long long>(t / 86400),
                static_cast<long long>(t % 86400 / 3600), static_cast<long long>(t % 3600 / 60),
                static_cast<long long>(t % 60));
  return buf;
}

std::string HumanSeconds(double s) {
  char buf[64];
  if (s < 60)
    std::snprintf(buf, sizeof buf, "%.0f s", s);
  else if (s < 3600)
    std::snprintf(buf, sizeof buf, "%.1f min", s / 60);
  else if (s < 86400)
    std::snprintf(buf, sizeof buf, "%.1f h", s / 3600);
  else
    std::snprintf(buf, sizeof buf, "%.1f d", s / 86400);
  return buf;
}

namespace {

std::string Pct(int64_t n, int64_t total) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%",
                total ? 100.0 * static_cast<double>(n) / static_cast<double>(total) : 0.0);
  return buf;
}

std::string Dist(std::vector<double> v, bool time) {
  if (v.empty()) return "none";
  std::sort(v.begin(), v.end());
  double sum = 0;
  for (double x : v) sum += x;
  auto q = [&](double p) {
    const double x = Percentile(v, p);
    if (time) return HumanSeconds(x);
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", x);
    return std::string(buf);
  };
  const double mean = sum / static_cast<double>(v.size());
  char m[32];
  std::snprintf(m, sizeof m, "%.3g", mean);
  return "mean " + (time ? HumanSeconds(mean) : std::string(m)) + ", p10 " + q(10) + ", p50 " +
         q(50) + ", p90 " + q(90) + ", p95 " + q(95) + ", p99 " + q(99) + ", max " + q(100);
}

}  // namespace

std::string JobStatsText(const Workload& w) {
  const int64_t n = static_cast<int64_t>(w.jobs.size());
  int64_t cpu_only = 0, fractional = 0, gangs = 0, no_cpu = 0, no_mem = 0, known = 0, recorded = 0;
  std::map<std::string, int64_t> sizes;
  std::vector<double> runtimes, utils, waits;
  auto size_label = [](int64_t milli) -> std::string {
    if (milli == 0) return "a. 0 (CPU-only)";
    if (milli < kMilliPerUnit) return "b. < 1 GPU";
    if (milli == kMilliPerUnit) return "c. 1";
    if (milli <= 2000) return "d. 2";
    if (milli <= 4000) return "e. 3-4";
    if (milli <= 8000) return "f. 5-8";
    if (milli <= 16000) return "g. 9-16";
    if (milli <= 64000) return "h. 17-64";
    return "i. > 64";
  };
  for (const auto& j : w.jobs) {
    const int64_t milli = j.task.total_gpu_milli() * j.tasks;
    cpu_only += milli == 0;
    fractional += j.task.fractional();
    gangs += j.tasks > 1;
    no_cpu += j.task.cpu_milli == 0;
    no_mem += j.task.mem_bytes == 0;
    ++sizes[size_label(milli)];
    runtimes.push_back(j.runtime.seconds());
    if (j.util_known) {
      ++known;
      utils.push_back(j.util);
    }
    if (j.recorded_start) {
      ++recorded;
      waits.push_back((*j.recorded_start - j.submit).seconds());
    }
  }
  std::string out = "jobs: " + std::to_string(n) + " (GPU " + std::to_string(n - cpu_only) +
                    ", CPU-only " + std::to_string(cpu_only) + ", fractional-GPU " +
                    std::to_string(fractional) + ", multi-task gangs " + std::to_string(gangs) +
                    ")\n";
  if (n > 0) {
    const double first = w.jobs.front().submit.seconds(), last = w.jobs.back().submit.seconds();
    char buf[128];
    std::snprintf(buf, sizeof buf, " (%.0f s .. %.0f s)\n", first, last);
    out += "submit span: " + HumanSeconds(last - first) + buf;
  }
  out += "GPUs per job (tasks x GPUs per task):\n";
  for (const auto& [label, c] : sizes)
    out += "  " + label.substr(3) + std::string(14 - std::min<size_t>(14, label.size() - 3), ' ') +
           std::to_string(c) + " (" + Pct(c, n) + ")\n";
  out += "run time: " + Dist(runtimes, true) + "\n";
  out += "utilization (" + std::string(UtilSignalName(w.signal)) + "): known for " +
         std::to_string(known) + " jobs (" + Pct(known, n) + ")" +
         (utils.empty() ? std::string() : ": " + Dist(utils, false)) + "\n";
  out += "recorded wait (start - submit): " + std::to_string(recorded) + " jobs" +
         (waits.empty() ? std::string() : ": " + Dist(waits, true)) + "\n";
  if (recorded > 0) {  // the record's evidence (trace_evidence.h; validate --infer)
    const std::vector<StartGap> gaps = FindStartGaps(w, Seconds(6 * 3600));
    const std::vector<int64_t> peaks = PeakGpusInUse(w, Seconds(86400));
    std::vector<int64_t> sorted = peaks;
    std::sort(sorted.begin(), sorted.end());
    char buf[320];
    std::snprintf(buf, sizeof buf,
                  "record's evidence: latency floor %.6g s; %zu gaps of >= 6 h with no start while "
                  "jobs waited; peak GPUs in use per day %lld .. %lld (median %lld), a lower "
                  "bound on the capacity in service (validate --infer replays these)\n",
                  LatencyFloorSeconds(w), gaps.size(),
                  static_cast<long long>(sorted.empty() ? 0 : sorted.front()),
                  static_cast<long long>(sorted.empty() ? 0 : sorted.back()),
                  static_cast<long long>(sorted.empty() ? 0 : sorted[(sorted.size() - 1) / 2]));
    out += buf;
    if (!gaps.empty()) out += FormatStartGaps(gaps, 3);
  }
  if (no_cpu == n && n > 0) out += "CPU request: none in the trace (0 for every job)\n";
  if (no_mem == n && n > 0) out += "memory request: none in the trace (0 for every job)\n";
  return out;
}

std::vector<std::pair<Micros, int64_t>> RecordedChanges(const Workload& w) {
  std::vector<std::pair<Micros, int64_t>> ch;
  for (const auto& j : w.jobs) {
    if (!j.recorded_start) continue;
    const int64_t milli = j.task.total_gpu_milli() * j.tasks;
    ch.emplace_back(*j.recorded_start, milli);
    ch.emplace_back(*j.recorded_start + j.runtime, -milli);
  }
  // Ends before starts at the same instant (a finishing job frees its GPUs first).
  std::sort(ch.begin(), ch.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first < b.first : a.second < b.second;
  });
  return ch;
}

double RecordedBusyGpus(const Workload& w, Micros t) {
  int64_t milli = 0;
  for (const auto& j : w.jobs)
    if (j.recorded_start && *j.recorded_start <= t && t < *j.recorded_start + j.runtime)
      milli += j.task.total_gpu_milli() * j.tasks;
  return static_cast<double>(milli) / kMilliPerUnit;
}

std::string DemandText(const Workload& w, int64_t capacity) {
  if (w.jobs.empty() || capacity <= 0) return "";
  double gpu_s = 0;
  for (const auto& j : w.jobs)
    gpu_s += static_cast<double>(j.task.total_gpu_milli() * j.tasks) / kMilliPerUnit *
             j.runtime.seconds();
  const double span = (w.jobs.back().submit - w.jobs.front().submit).seconds();
  char buf[256];
  std::string out;
  if (span > 0) {
    std::snprintf(
        buf, sizeof buf, "offered load: %.1f GPU-h over a %s submit span = %.1f%% of %lld GPUs\n",
        gpu_s / 3600, HumanSeconds(span).c_str(),
        100.0 * gpu_s / (span * static_cast<double>(capacity)), static_cast<long long>(capacity));
    out += buf;
  }
  const auto ch = RecordedChanges(w);
  if (ch.empty()) return out;
  int64_t cur = 0, peak = 0;
  double area = 0, over = 0;
  const Micros t0 = ch.front().first, t1 = ch.back().first;
  for (size_t i = 0; i < ch.size(); ++i) {
    cur += ch[i].second;
    peak = std::max(peak, cur);
    if (i + 1 < ch.size()) {
      const double dt = (ch[i + 1].first - ch[i].first).seconds();
      area += static_cast<double>(cur) / kMilliPerUnit * dt;
      if (cur > capacity * kMilliPerUnit) over += dt;
    }
  }
  const double len = (t1 - t0).seconds();
  std::snprintf(buf, sizeof buf,
                "recorded GPU demand (from recorded starts): mean %.1f GPUs (%.1f%% of capacity), "
                "peak %.1f GPUs, above capacity %.2f%% of the time\n",
                len > 0 ? area / len : 0,
                len > 0 ? 100 * area / len / static_cast<double>(capacity) : 0,
                static_cast<double>(peak) / kMilliPerUnit, len > 0 ? 100 * over / len : 0);
  out += buf;
  // Per-period means: up to 20 periods.
  const int periods = 20;
  if (len > 0) {
    out += "recorded busy GPUs by period (mean, % of capacity):\n";
    std::vector<double> acc(periods, 0);
    cur = 0;
    for (size_t i = 0; i + 1 < ch.size(); ++i) {
      cur += ch[i].second;
      double a = (ch[i].first - t0).seconds(), b = (ch[i + 1].first - t0).seconds();
      const double plen = len / periods;
      while (a < b) {
        const int p = std::min(periods - 1, static_cast<int>(a / plen));
        const double end = std::min(b, (p + 1) * plen);
        acc[p] += static_cast<double>(cur) / kMilliPerUnit * (end - a);
        if (end <= a) break;
        a = end;
      }
    }
    for (int p = 0; p < periods; ++p) {
      const double mean = acc[p] / (len / periods);
      const int bar = static_cast<int>(std::min(50.0, 50.0 * mean / static_cast<double>(capacity)));
      std::snprintf(buf, sizeof buf, "  %-10s %8.1f %5.1f%% %s\n",
                    HumanSeconds(t0.seconds() + p * len / periods).c_str(), mean,
                    100 * mean / static_cast<double>(capacity), std::string(bar, '#').c_str());
      out += buf;
    }
  }
  return out;
}

std::vector<Finding> DemandFindings(const Workload& w, const std::optional<ClusterSpec>& cluster) {
  std::vector<Finding> out;
  if (!cluster) return out;
  const int64_t cap = cluster->total_gpus() * kMilliPerUnit;
  std::vector<std::pair<Micros, int64_t>> ch;
  std::map<Micros, std::string> starter;  // first job starting at a time (for examples)
  for (const auto& j : w.jobs) {
    if (!j.recorded_start) continue;
    const int64_t milli = j.task.total_gpu_milli() * j.tasks;
    ch.emplace_back(*j.recorded_start, milli);
    ch.emplace_back(*j.recorded_start + j.runtime, -milli);
    starter.emplace(*j.recorded_start, j.name);
  }
  std::sort(ch.begin(), ch.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first < b.first : a.second < b.second;
  });
  Finding f;
  f.what = "recorded starts that push recorded GPU demand above the cluster's capacity";
  int64_t cur = 0;
  for (const auto& [t, d] : ch) {
    const bool was_over = cur > cap;
    cur += d;
    if (d > 0 && cur > cap && !was_over) {
      ++f.count;
      if (f.first.size() < 5)
        f.first.push_back(starter[t] + " at " + std::to_string(t.us / kMicrosPerSecond) + " s (" +
                          std::to_string(cur / kMilliPerUnit) + " GPUs)");
    }
  }
  if (f.count > 0) out.push_back(f);
  return out;
}

}  // namespace utilsim
