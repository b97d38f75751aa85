#include "console_table.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string>
#include <vector>

namespace utilsim {
namespace {

// Fixed-point, locale-independent; "n/a" for NaN; never "-0.0".
std::string Fixed(double v, int precision) {
  if (std::isnan(v)) return "n/a";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (std::round(v * std::pow(10.0, precision)) == 0) v = 0;
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, precision);
  return r.ec == std::errc() ? std::string(buf, r.ptr) : "n/a";
}

std::string SignedFixed(double v, int precision) {
  std::string s = Fixed(v, precision);
  return s[0] == '-' || s == "n/a" || s == "inf" ? s : "+" + s;
}

std::string Count(double v) { return Fixed(v, 0); }
std::string Pct(double v) { return Fixed(v, 1) + " %"; }

// Seconds in s, min or h, chosen so the rounded figure stays below 60.
std::string Duration(double s) {
  if (std::isnan(s)) return "n/a";
  double a = std::fabs(s);
  if (a < 59.95) return Fixed(s, 1) + " s";
  if (a < 59.95 * 60) return Fixed(s / 60, 1) + " min";
  return Fixed(s / 3600, 1) + " h";
}

enum class Kind { kCount, kPct, kGpuH, kMoney, kDuration, kRatio };

std::string Format(Kind k, double v) {
  switch (k) {
    case Kind::kCount:
      return Count(v);
    case Kind::kPct:
      return Pct(v);
    case Kind::kGpuH:
      return Fixed(v, 1);
    case Kind::kMoney:
      return Fixed(v, 2);
    case Kind::kDuration:
      return Duration(v);
    case Kind::kRatio:
      return Fixed(v, 2);
  }
  return "";
}

// Change of `v` against baseline `b`: signed count, percentage points, or
// relative change in percent.
std::string Delta(Kind k, double v, double b) {
  if (std::isnan(v) || std::isnan(b)) return "n/a";
  if (k == Kind::kCount) return SignedFixed(v - b, 0);
  if (k == Kind::kPct) return SignedFixed(v - b, 1) + " pp";
  if (b == 0) return v == 0 ? "+0.0 %" : "n/a";
  return SignedFixed((v - b) / std::fabs(b) * 100, 1) + " %";
}

struct Metric {
  const char* name;
  Kind kind;
  double (*value)(const Summary&);
};

const std::vector<Metric>& ComparisonMetrics() {
  static const std::vector<Metric> kMetrics = {
      {"jobs finished", Kind::kCount, [](const Summary& s) { return double(s.finished); }},
      {"jobs rejected", Kind::kCount, [](const Summary& s) { return double(s.rejected); }},
      {"jobs unfinished", Kind::kCount, [](const Summary& s) { return double(s.unfinished); }},
      {"allocation", Kind::kPct, [](const Summary& s) { return s.allocation_pct; }},
      {"effective utilization", Kind::kPct, [](const Summary& s) { return s.effective_util_pct; }},
      {"allocated GPU-h", Kind::kGpuH, [](const Summary& s) { return s.alloc_gpu_h; }},
      {"useful GPU-h", Kind::kGpuH, [](const Summary& s) { return s.useful_gpu_h; }},
      {"idle allocated GPU-h", Kind::kGpuH, [](const Summary& s) { return s.idle_alloc_gpu_h; }},
      {"idle cost", Kind::kMoney, [](const Summary& s) { return s.idle_cost; }},
      {"energy kWh (facility)", Kind::kGpuH,
       [](const Summary& s) { return s.energy_facility_kwh; }},
      {"idle alloc kWh (IT)", Kind::kGpuH,
       [](const Summary& s) { return s.energy_alloc_idle_kwh; }},
      {"wait p50", Kind::kDuration, [](const Summary& s) { return s.wait_p50_s; }},
      {"wait p95", Kind::kDuration, [](const Summary& s) { return s.wait_p95_s; }},
      {"wait p99", Kind::kDuration, [](const Summary& s) { return s.wait_p99_s; }},
      // All time queued, preemptions included (equal to the wait without them).
      {"queued p95", Kind::kDuration, [](const Summary& s) { return s.queued_p95_s; }},
      {"mean JCT", Kind::kDuration, [](const Summary& s) { return s.jct_mean_s; }},
      {"mean bounded slowdown", Kind::kRatio, [](const Summary& s) { return s.slowdown_mean; }},
      {"makespan", Kind::kDuration, [](const Summary& s) { return s.makespan_s; }},
  };
  return kMetrics;
}

std::string RunName(const RunResult& r, size_t index) {
  return r.meta.label.empty() ? "run " + std::to_string(index + 1) : r.meta.label;
}

// Renders rows of cells: column 0 left-aligned, the others right-aligned, two
// spaces between columns, a rule under the first row, no trailing spaces.
std::string Render(const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> width;
  for (const auto& row : rows) {
    width.resize(std::max(width.size(), row.size()));
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  }
  std::string out;
  auto line = [&](const std::vector<std::string>& row) {
    std::string l;
    for (size_t c = 0; c < row.size(); ++c) {
      std::string pad(width[c] - row[c].size(), ' ');
      if (c) l += "  ";
      l += c ? pad + row[c] : row[c] + pad;
    }
    l.erase(l.find_last_not_of(' ') + 1);
    out += l + "\n";
  };
  for (size_t r = 0; r < rows.size(); ++r) {
    line(rows[r]);
    if (r == 0) {
      std::vector<std::string> rule;
      for (size_t w : width) rule.emplace_back(w, '-');
      line(rule);
    }
  }
  return out;
}

std::string NameVersion(const std::string& name, const std::string& version) {
  if (name.empty()) return "-";
  return version.empty() ? name : name + " " + version;
}

}  // namespace

std::string FormatComparison(const std::vector<RunResult>& runs, size_t baseline) {
  if (runs.empty()) return "";
  const bool deltas = baseline < runs.size();
  bool one_price = true;
  for (const RunResult& r : runs) {
    one_price = one_price && r.summary.price_per_gpu_h == runs[0].summary.price_per_gpu_h;
  }
  std::vector<std::vector<std::string>> rows(1);
  rows[0].push_back("metric");
  for (size_t i = 0; i < runs.size(); ++i) {
    if (deltas && i == baseline) {
      rows[0].push_back(RunName(runs[i], i) + " (baseline)");
      continue;
    }
    rows[0].push_back(RunName(runs[i], i));
    if (deltas) rows[0].push_back("vs " + RunName(runs[baseline], baseline));
  }
  for (const Metric& m : ComparisonMetrics()) {
    std::vector<std::string>& row = rows.emplace_back();
    row.push_back(m.name);
    if (m.kind == Kind::kMoney && one_price) {
      row[0] += " @ " + Fixed(runs[0].summary.price_per_gpu_h, 2) + "/GPU-h";
    }
    for (size_t i = 0; i < runs.size(); ++i) {
      const Summary& s = runs[i].summary;
      row.push_back(Format(m.kind, m.value(s)));
      if (m.kind == Kind::kMoney && !one_price) {
        row.back() += " @ " + Fixed(s.price_per_gpu_h, 2);
      }
      if (deltas && i != baseline) {
        row.push_back(Delta(m.kind, m.value(s), m.value(runs[baseline].summary)));
      }
    }
  }
  return Render(rows);
}

// The `k` causes with the most queued job-hours, as "capacity 62 %,
// queue-order 30 %"; "-" when no job queued.
std::string TopWaitCauses(const Summary& s, size_t k) {
  double total = 0;
  std::vector<std::pair<double, size_t>> by;
  for (size_t c = 0; c < s.wait_cause_h.size(); ++c) {
    total += s.wait_cause_h[c];
    if (s.wait_cause_h[c] > 0) by.emplace_back(-s.wait_cause_h[c], c);
  }
  if (!(total > 0)) return "-";
  std::sort(by.begin(), by.end());
  std::string out;
  for (size_t i = 0; i < by.size() && i < k; ++i)
    out += (i ? ", " : "") + std::string(WaitCauseName(static_cast<WaitCause>(by[i].second))) +
           " " + Fixed(-100.0 * by[i].first / total, 0) + " %";
  return out;
}

std::string FormatSummary(const RunResult& run) {
  const RunMeta& m = run.meta;
  const Summary& s = run.summary;
  auto text = [](const std::string& v) { return v.empty() ? std::string("-") : v; };
  auto durations = [](std::initializer_list<double> vs) {
    std::string out;
    for (double v : vs) out += (out.empty() ? "" : " / ") + Duration(v);
    return out;
  };
  std::vector<std::pair<std::string, std::string>> rows = {
      {"run", text(m.label)},
      {"queue policy", NameVersion(m.queue_policy, m.queue_policy_version)},
      {"placement policy", NameVersion(m.placement_policy, m.placement_policy_version)},
      {"seed", std::to_string(m.seed)},
      {"workload", text(m.workload_source)},
      {"cluster", text(m.cluster_name)},
      {"input digest", text(m.input_digest)},
      {"jobs", Count(double(s.jobs)) + " (" + Count(double(s.finished)) + " finished, " +
                   Count(double(s.rejected)) + " rejected, " + Count(double(s.unfinished)) +
                   " unfinished)"},
      {"capacity", Count(double(s.capacity_gpus)) + " GPUs"},
      {"window", Duration(s.window_start.seconds()) + " to " + Duration(s.window_end.seconds())},
      {"allocation", Pct(s.allocation_pct)},
      {"effective utilization", Pct(s.effective_util_pct)},
      {"allocated GPU-h", Fixed(s.alloc_gpu_h, 1)},
      {"useful GPU-h", Fixed(s.useful_gpu_h, 1)},
      {"idle allocated GPU-h", Fixed(s.idle_alloc_gpu_h, 1)},
      {"idle cost", Fixed(s.idle_cost, 2) + " at " + Fixed(s.price_per_gpu_h, 2) + "/GPU-h"},
      {"energy IT / facility", Fixed(s.energy_it_kwh, 1) + " / " + Fixed(s.energy_facility_kwh, 1) +
                                   " kWh (PUE " + Fixed(s.pue, 2) + ")"},
      {"energy busy/idle/free/node",
       Fixed(s.energy_busy_kwh, 1) + " / " + Fixed(s.energy_alloc_idle_kwh, 1) + " / " +
           Fixed(s.energy_free_kwh, 1) + " / " + Fixed(s.energy_node_kwh, 1) + " kWh"},
      {"idle allocated energy cost",
       Fixed(s.idle_alloc_energy_cost, 2) + " at " + Fixed(s.energy_price_per_kwh, 2) + "/kWh"},
      {"queued time by cause", TopWaitCauses(s, 3)},
      {"wait mean/p50/p95/p99/max",
       durations({s.wait_mean_s, s.wait_p50_s, s.wait_p95_s, s.wait_p99_s, s.wait_max_s})},
      {"queued mean/p50/p95/p99/max", durations({s.queued_mean_s, s.queued_p50_s, s.queued_p95_s,
                                                 s.queued_p99_s, s.queued_max_s})},
      {"JCT mean/p50/p95", durations({s.jct_mean_s, s.jct_p50_s, s.jct_p95_s})},
      {"bounded slowdown mean/p50/p95", Fixed(s.slowdown_mean, 2) + " / " +
                                            Fixed(s.slowdown_p50, 2) + " / " +
                                            Fixed(s.slowdown_p95, 2)},
      {"makespan", Duration(s.makespan_s)},
      {"tenant fairness (Jain)", Fixed(s.tenant_fairness, 3)},
      {"events", Count(double(s.events))},
  };
  // Clusters that change (--events): only when nodes were down or jobs lost
  // work, so that constant-cluster summaries stay as they were.
  const double down_h = s.down_absent_gpu_h + s.down_maintenance_gpu_h + s.down_failure_gpu_h;
  if (down_h > 0 || s.interruptions > 0) {
    rows.emplace_back("down GPU-h absent/maint/failure",
                      Fixed(s.down_absent_gpu_h, 1) + " / " + Fixed(s.down_maintenance_gpu_h, 1) +
                          " / " + Fixed(s.down_failure_gpu_h, 1));
    rows.emplace_back("interruptions, lost GPU-h",
                      Count(double(s.interruptions)) + ", " + Fixed(s.lost_gpu_h, 1));
    rows.emplace_back("ETTR finished mean/p5",
                      s.finished > 0 ? Fixed(s.ettr_mean, 3) + " / " + Fixed(s.ettr_p5, 3)
                                     : std::string("- (no job finished; jobs.ettr has each)"));
  }
  if (!m.notes.empty()) rows.emplace_back("notes", m.notes);
  size_t width = 0;
  for (const auto& [k, v] : rows) width = std::max(width, k.size());
  std::string out;
  for (const auto& [k, v] : rows) out += k + std::string(width - k.size() + 2, ' ') + v + "\n";
  return out;
}

}  // namespace utilsim
