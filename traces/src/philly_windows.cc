// Philly per-job utilization windows (DRE extract): GPU windows ->
// TelemetryData, CPU / memory-free windows -> PhillyHostWindow rows, and the
// join into Job::util and Job::host_cpu_used_milli.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <unordered_map>

#include "row_helpers.h"
#include "utilsim/traces/csv.h"
#include "utilsim/traces/philly.h"

namespace utilsim::traces {

namespace {

constexpr int kMinutes = 14;  // -10 .. 3
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// Column indices of a window file: jobid, name, then the 14 minute columns.
struct WindowCols {
  size_t job = 0, name = 0;
  std::array<size_t, kMinutes> minute{};
};

Result<WindowCols> FindWindowCols(const CsvReader& csv) {
  std::vector<internal::ColumnSpec> specs = {{"jobid", true}, {"name", true}};
  std::vector<std::string> names;
  for (int m = kPhillyWindowFirstMinute; m < kPhillyWindowFirstMinute + kMinutes; ++m) {
    names.push_back(std::to_string(m));
  }
  for (const std::string& n : names) specs.push_back({n.c_str(), true});
  auto found = internal::FindColumns(csv, specs);
  if (!found.ok()) return found.status();
  WindowCols c;
  c.job = static_cast<size_t>(found.value()[0]);
  c.name = static_cast<size_t>(found.value()[1]);
  for (int k = 0; k < kMinutes; ++k) c.minute[k] = static_cast<size_t>(found.value()[2 + k]);
  return c;
}

// Mean of the numbers at the end of the lines of a pandas Series dump
// ("time  machine_id\n2017-.. m280  81.74\n  m280  71.25\nName: cpu_util, ..").
std::optional<double> PandasMean(std::string_view text) {
  if (text.find('\n') == std::string_view::npos || text.find("Name:") == std::string_view::npos) {
    return std::nullopt;
  }
  double sum = 0;
  int n = 0;
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    std::string_view line = internal::TrimBlanks(text.substr(0, nl));
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    const size_t sp = line.find_last_of(" \t");
    if (sp == std::string_view::npos || line.substr(0, 5) == "Name:") continue;
    std::string_view last = line.substr(sp + 1);
    double v = 0;
    auto [ptr, ec] = std::from_chars(last.data(), last.data() + last.size(), v);
    if (ec == std::errc() && ptr == last.data() + last.size() && v >= 0 && v <= 100) {
      sum += v;
      ++n;
    }
  }
  if (n == 0) return std::nullopt;
  return sum / n;
}

// The 14 samples of the current row in percent; NaN where missing.
Status ReadSamples(const CsvReader& csv, const WindowCols& c, Warnings* w,
                   std::array<float, kMinutes>* out) {
  for (int k = 0; k < kMinutes; ++k) {
    const size_t col = c.minute[k];
    const std::string_view text = csv.field(col);
    (*out)[k] = kNaN;
    if (text.empty()) {
      internal::WarnAt(w, csv, kPhillyWarnMissingSample,
                       "minute " + csv.ColumnName(col) + " empty");
      continue;
    }
    if (auto mean = PandasMean(text)) {
      internal::WarnAt(w, csv, kPhillyWarnMultiSample, "minute " + csv.ColumnName(col));
      (*out)[k] = static_cast<float>(*mean);
      continue;
    }
    auto v = csv.Double(col);
    if (v.ok() && v.value() == -1.0) {
      internal::WarnAt(w, csv, kPhillyWarnMissingSample, "minute " + csv.ColumnName(col) + " -1");
      continue;
    }
    if (!v.ok() || !(v.value() >= 0 && v.value() <= 100)) {
      return csv.FieldError(col, "a percentage 0..100 (or -1 for none)");
    }
    (*out)[k] = static_cast<float>(v.value());
  }
  return Status::Ok();
}

int64_t FloorMinute(int64_t us) {
  constexpr int64_t kMin = 60000000;
  return us - ((us % kMin) + kMin) % kMin;
}

}  // namespace

Result<TelemetryData> ReadPhillyWindows(const std::string& gpu_path, const Workload& jobs) {
  auto opened = CsvReader::Open(gpu_path);
  if (!opened.ok()) return opened.status();
  CsvReader& csv = opened.value();
  auto cols = FindWindowCols(csv);
  if (!cols.ok()) return cols.status();
  const WindowCols& c = cols.value();
  std::unordered_map<std::string_view, const Job*> by_name;
  for (const Job& j : jobs.jobs) by_name.emplace(j.name, &j);
  TelemetryData out;
  std::array<float, kMinutes> pct;
  for (;;) {
    auto next = csv.Next();
    if (!next.ok()) return next.status();
    if (!next.value()) break;
    ++out.rows_read;
    const std::string_view name = csv.field(c.name);
    const size_t us = name.rfind("_gpu");
    int64_t gpu = -1;
    if (us == std::string_view::npos || us == 0) return csv.FieldError(c.name, "'<host>_gpu<k>'");
    std::string_view idx = name.substr(us + 4);
    auto [ptr, ec] = std::from_chars(idx.data(), idx.data() + idx.size(), gpu);
    if (ec != std::errc() || ptr != idx.data() + idx.size() || gpu < 0 || gpu > 63) {
      return csv.FieldError(c.name, "'<host>_gpu<k>'");
    }
    UTILSIM_RETURN_IF_ERROR(ReadSamples(csv, c, &out.warnings, &pct));
    const std::string_view job_id = csv.field(c.job);
    if (job_id.empty()) return csv.FieldError(c.job, "a non-empty job id");
    auto it = by_name.find(job_id);
    if (it == by_name.end()) {
      internal::WarnAt(&out.warnings, csv, kPhillyWarnUnknownJob,
                       "job '" + std::string(job_id) + "'");
      continue;
    }
    const Job& job = *it->second;
    const int64_t start = FloorMinute(job.recorded_start.value_or(job.submit).us);
    UtilTrack t;
    t.job = job_id;
    t.host = name.substr(0, us);
    t.gpu = static_cast<int32_t>(gpu);
    t.signal = UtilSignal::kGpuUtil;
    for (int k = 0; k < kMinutes; ++k) {
      if (std::isnan(pct[k])) continue;
      t.time.push_back(Micros(start + int64_t{60000000} * (kPhillyWindowFirstMinute + k)));
      t.busy.push_back(pct[k] / 100.0f);
    }
    if (!t.time.empty()) out.tracks.push_back(std::move(t));
  }
  out.bytes_read = internal::InputBytes(gpu_path);
  out.notes.push_back("GPU windows: " + internal::Thousands(out.rows_read) +
                      " rows (job x GPU), samples at minutes -10..3 around each job's start "
                      "(minutes < 0: the GPU before the job started)");
  return out;
}

Result<std::vector<PhillyHostWindow>> ReadPhillyHostWindows(const std::string& path,
                                                            Warnings* warnings) {
  auto opened = CsvReader::Open(path);
  if (!opened.ok()) return opened.status();
  CsvReader& csv = opened.value();
  auto cols = FindWindowCols(csv);
  if (!cols.ok()) return cols.status();
  std::vector<PhillyHostWindow> out;
  for (;;) {
    auto next = csv.Next();
    if (!next.ok()) return next.status();
    if (!next.value()) break;
    PhillyHostWindow row;
    row.job = csv.field(cols.value().job);
    row.host = csv.field(cols.value().name);
    if (row.job.empty()) return csv.FieldError(cols.value().job, "a non-empty job id");
    if (row.host.empty()) return csv.FieldError(cols.value().name, "a non-empty host name");
    UTILSIM_RETURN_IF_ERROR(ReadSamples(csv, cols.value(), warnings, &row.pct));
    out.push_back(std::move(row));
  }
  return out;
}

void ApplyPhillyWindows(const TelemetryData& gpu, const std::vector<PhillyHostWindow>& cpu,
                        const ClusterSpec* cluster, Workload* w, Warnings* warnings) {
  std::unordered_map<std::string_view, size_t> by_name;
  for (size_t i = 0; i < w->jobs.size(); ++i) by_name.emplace(w->jobs[i].name, i);
  std::vector<double> sum(w->jobs.size(), 0.0);
  std::vector<int64_t> n(w->jobs.size(), 0);
  for (const UtilTrack& t : gpu.tracks) {
    auto it = by_name.find(t.job);
    if (it == by_name.end()) continue;
    const Job& job = w->jobs[it->second];
    const int64_t start = FloorMinute(job.recorded_start.value_or(job.submit).us);
    for (size_t k = 0; k < t.time.size(); ++k) {
      if (t.time[k].us < start) continue;
      sum[it->second] += t.busy[k];
      ++n[it->second];
    }
  }
  // Mean CPU percent at minutes 0..3 per (job, host); repeated rows averaged.
  std::map<std::pair<std::string, std::string>, std::pair<double, int64_t>> host_cpu;
  for (const PhillyHostWindow& r : cpu) {
    auto& [s, cnt] = host_cpu[{r.job, r.host}];
    for (int k = -kPhillyWindowFirstMinute; k < kMinutes; ++k) {
      if (std::isnan(r.pct[k])) continue;
      s += r.pct[k];
      ++cnt;
    }
  }
  std::unordered_map<std::string_view, const NodeGroup*> node;
  if (cluster) {
    for (const NodeGroup& g : cluster->groups)
      if (g.count == 1) node.emplace(g.name, &g);
  }
  bool any = false;
  for (size_t i = 0; i < w->jobs.size(); ++i) {
    Job& job = w->jobs[i];
    if (n[i] == 0) {
      warnings->Add(kPhillyWarnNoJobSamples, "job '" + job.name + "'");
    } else {
      job.util = static_cast<float>(sum[i] / static_cast<double>(n[i]));
      job.util_known = true;
      any = true;
    }
    if (job.recorded_hosts.empty() || node.empty()) continue;
    double milli = 0;
    bool known = true;
    for (const std::string& h : job.recorded_hosts) {
      auto c = host_cpu.find({job.name, h});
      auto g = node.find(h);
      if (c == host_cpu.end() || c->second.second == 0 || g == node.end() || g->second->gpus == 0) {
        known = false;
        break;
      }
      const double pct = c->second.first / static_cast<double>(c->second.second);
      milli +=
          pct / 100.0 * static_cast<double>(g->second->cpu_milli) * job.task.gpus / g->second->gpus;
    }
    if (known) {
      job.host_cpu_used_milli =
          std::llround(milli / static_cast<double>(job.recorded_hosts.size()));
    }
  }
  if (any) w->signal = UtilSignal::kGpuUtil;
}

std::vector<PhillyStartWindow> PhillyStartWindows(const TelemetryData& gpu,
                                                  const std::vector<PhillyHostWindow>& cpu,
                                                  const Workload& w, const ClusterSpec* cluster) {
  constexpr int kOwn = 4;  // minutes 0..3
  constexpr int64_t kMinuteUs = 60000000;
  struct Acc {
    std::array<double, kOwn> gsum{}, csum{};
    std::array<int, kOwn> gn{}, cn{};
  };
  // (job, host) -> sums; keyed by the workload's own strings.
  std::map<std::pair<std::string_view, std::string_view>, Acc> acc;
  std::unordered_map<std::string_view, size_t> by_name;
  for (size_t i = 0; i < w.jobs.size(); ++i) by_name.emplace(w.jobs[i].name, i);
  for (const UtilTrack& t : gpu.tracks) {
    auto it = by_name.find(t.job);
    if (it == by_name.end()) continue;
    const Job& job = w.jobs[it->second];
    const int64_t start = FloorMinute(job.recorded_start.value_or(job.submit).us);
    Acc* a = nullptr;
    for (size_t k = 0; k < t.time.size(); ++k) {
      const int64_t off = t.time[k].us - start;
      if (off < 0 || off % kMinuteUs != 0 || off / kMinuteUs >= kOwn) continue;
      if (!a) a = &acc[{std::string_view(job.name), std::string_view(t.host)}];
      const auto m = static_cast<size_t>(off / kMinuteUs);
      a->gsum[m] += t.busy[k];
      ++a->gn[m];
    }
  }
  for (const PhillyHostWindow& r : cpu) {
    auto it = by_name.find(r.job);
    if (it == by_name.end()) continue;
    Acc& a = acc[{std::string_view(w.jobs[it->second].name), std::string_view(r.host)}];
    for (int m = 0; m < kOwn; ++m) {
      const float v = r.pct[static_cast<size_t>(m - kPhillyWindowFirstMinute)];
      if (std::isnan(v)) continue;
      a.csum[static_cast<size_t>(m)] += v / 100.0;
      ++a.cn[static_cast<size_t>(m)];
    }
  }
  std::unordered_map<std::string_view, int32_t> node_gpus;
  if (cluster) {
    for (const NodeGroup& g : cluster->groups)
      if (g.count == 1) node_gpus.emplace(g.name, g.gpus);
  }
  std::vector<PhillyStartWindow> out;
  for (const Job& job : w.jobs) {
    std::vector<std::string_view> hosts;  // distinct, in recorded order
    for (const std::string& h : job.recorded_hosts) {
      if (std::find(hosts.begin(), hosts.end(), h) == hosts.end()) hosts.push_back(h);
    }
    // Hosts only the windows name (not in the job record) come last, sorted.
    for (auto it = acc.lower_bound({std::string_view(job.name), std::string_view()});
         it != acc.end() && it->first.first == job.name; ++it) {
      if (std::find(hosts.begin(), hosts.end(), it->first.second) == hosts.end()) {
        hosts.push_back(it->first.second);
      }
    }
    for (std::string_view h : hosts) {
      auto it = acc.find({std::string_view(job.name), h});
      if (it == acc.end()) continue;
      const Acc& a = it->second;
      PhillyStartWindow r;
      r.job = job.name;
      r.host = std::string(h);
      r.gpus_used = static_cast<int32_t>(
          std::count(job.recorded_hosts.begin(), job.recorded_hosts.end(), h) * job.task.gpus);
      if (auto g = node_gpus.find(h); g != node_gpus.end()) r.host_gpus = g->second;
      for (size_t m = 0; m < kOwn; ++m) {
        r.gpu_busy[m] = a.gn[m] ? static_cast<float>(a.gsum[m] / a.gn[m]) : kNaN;
        r.cpu_busy[m] = a.cn[m] ? static_cast<float>(a.csum[m] / a.cn[m]) : kNaN;
      }
      out.push_back(std::move(r));
    }
  }
  return out;
}

bool LooksLikePhillyWindow(const std::vector<std::string>& header) {
  return internal::HeaderHas(header, {"jobid", "name", "machine_type", "trace", "-10", "3"});
}

bool LooksLikePhilly(const std::vector<std::string>& header) {
  return LooksLikePhillyMachines(header) || LooksLikePhillyWindow(header);
}

}  // namespace utilsim::traces
