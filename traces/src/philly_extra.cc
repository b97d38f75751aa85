// Philly: the combined reader (jobs + machines + windows) and the small
// side files (run-time list, busy-node sequence, VC sizes).
#include <cmath>

#include "row_helpers.h"
#include "utilsim/engine/units.h"
#include "utilsim/traces/csv.h"
#include "utilsim/traces/philly.h"

namespace utilsim::traces {

Result<TraceData> ReadPhilly(const PhillyPaths& paths, const PhillyOptions& opt) {
  if (paths.jobs.empty())
    return Status::Error("Philly: the jobs file (sampled_jobs.json) is required");
  auto jobs = ReadPhillyJobs(paths.jobs, opt);
  if (!jobs.ok()) return jobs.status();
  TraceData out = std::move(jobs).value();
  if (!paths.machines.empty()) {
    auto spec = ReadPhillyMachines(paths.machines, opt);
    if (!spec.ok()) return spec.status();
    out.cluster = std::move(spec).value();
    out.notes.push_back(
        "cluster: " + std::to_string(out.cluster->total_nodes()) + " machines, " +
        std::to_string(out.cluster->total_gpus()) + " GPUs; CPU and memory per node assumed (" +
        internal::Num(static_cast<double>(opt.cpu_milli_per_gpu) / kMilliPerUnit) + " cores, " +
        internal::Num(static_cast<double>(opt.mem_bytes_per_gpu) /
                      static_cast<double>(kBytesPerGiB)) +
        " GiB per GPU)");
  }
  TelemetryData gpu;
  if (!paths.gpu_window.empty()) {
    auto t = ReadPhillyWindows(paths.gpu_window, out.workload);
    if (!t.ok()) return t.status();
    gpu = std::move(t).value();
    internal::MergeWarnings(gpu.warnings, &out.warnings);
  }
  std::vector<PhillyHostWindow> cpu;
  if (!paths.cpu_window.empty()) {
    auto c = ReadPhillyHostWindows(paths.cpu_window, &out.warnings);
    if (!c.ok()) return c.status();
    cpu = std::move(c).value();
  }
  if (!paths.mem_free_window.empty()) {
    auto m = ReadPhillyHostWindows(paths.mem_free_window, &out.warnings);
    if (!m.ok()) return m.status();
    double sum = 0;
    int64_t n = 0;
    for (const PhillyHostWindow& r : m.value()) {
      for (int k = -kPhillyWindowFirstMinute; k < 14; ++k) {
        if (std::isnan(r.pct[k])) continue;
        sum += r.pct[k];
        ++n;
      }
    }
    out.notes.push_back("host memory FREE at minutes 0..3 of jobs: mean " +
                        internal::Num(n ? sum / static_cast<double>(n) : 0, 4) + "% over " +
                        internal::Thousands(n) + " samples (not mapped to a job field)");
  }
  for (const std::string* extra :
       {&paths.machines, &paths.gpu_window, &paths.cpu_window, &paths.mem_free_window}) {
    if (!extra->empty()) out.bytes_read += internal::InputBytes(*extra);
  }
  if (!paths.gpu_window.empty() || !paths.cpu_window.empty()) {
    ApplyPhillyWindows(gpu, cpu, out.cluster ? &*out.cluster : nullptr, &out.workload,
                       &out.warnings);
    out.notes.push_back(
        "util: mean GPU utilization of minutes 0..3 after the job's start only (signal "
        "gpu_util)");
  }
  return out;
}

Result<std::vector<double>> ReadPhillyRuntimes(const std::string& path) {
  auto opened = CsvReader::Open(path);
  if (!opened.ok()) return opened.status();
  CsvReader& csv = opened.value();
  auto found = internal::FindColumns(csv, {{"runtime", true}});
  if (!found.ok()) return found.status();
  const auto col = static_cast<size_t>(found.value()[0]);
  std::vector<double> out;
  for (;;) {
    auto next = csv.Next();
    if (!next.ok()) return next.status();
    if (!next.value()) break;
    double v = 0;
    UTILSIM_RETURN_IF_ERROR(internal::DoubleIn(csv, col, 0, kMaxSeconds, "seconds >= 0", &v));
    out.push_back(v);
  }
  return out;
}

Result<std::vector<PhillyNodeCount>> ReadPhillyNodeSequence(const std::string& path) {
  auto opened = CsvReader::Open(path);
  if (!opened.ok()) return opened.status();
  CsvReader& csv = opened.value();
  auto found = internal::FindColumns(csv, {{"time", true}, {"active", true}, {"total", true}});
  if (!found.ok()) return found.status();
  const auto c_time = static_cast<size_t>(found.value()[0]);
  const auto c_active = static_cast<size_t>(found.value()[1]);
  const auto c_total = static_cast<size_t>(found.value()[2]);
  std::vector<PhillyNodeCount> out;
  for (;;) {
    auto next = csv.Next();
    if (!next.ok()) return next.status();
    if (!next.value()) break;
    PhillyNodeCount r;
    auto t = ParsePhillyTime(csv.field(c_time));
    if (!t) return csv.FieldError(c_time, "a date-time 'YYYY-MM-DD HH:MM:SS'");
    r.unix_s = *t;
    int64_t active = 0, total = 0;
    UTILSIM_RETURN_IF_ERROR(
        internal::IntIn(csv, c_active, 0, 1000000, "an integer 0..1000000", &active));
    UTILSIM_RETURN_IF_ERROR(
        internal::IntIn(csv, c_total, 0, 1000000, "an integer 0..1000000", &total));
    if (active > total) return csv.FieldError(c_active, "at most 'total' nodes");
    r.active = static_cast<int32_t>(active);
    r.total = static_cast<int32_t>(total);
    out.push_back(r);
  }
  return out;
}

Result<std::vector<PhillyVc>> ReadPhillyVcs(const std::string& path) {
  auto opened = CsvReader::Open(path);
  if (!opened.ok()) return opened.status();
  CsvReader& csv = opened.value();
  auto found = internal::FindColumns(csv, {{"vc", true}, {"node num", true}});
  if (!found.ok()) return found.status();
  const auto c_vc = static_cast<size_t>(found.value()[0]);
  const auto c_nodes = static_cast<size_t>(found.value()[1]);
  std::vector<PhillyVc> out;
  for (;;) {
    auto next = csv.Next();
    if (!next.ok()) return next.status();
    if (!next.value()) break;
    PhillyVc v;
    v.vc = csv.field(c_vc);
    if (v.vc.empty()) return csv.FieldError(c_vc, "a non-empty VC name");
    int64_t nodes = 0;
    UTILSIM_RETURN_IF_ERROR(
        internal::IntIn(csv, c_nodes, 0, 1000000, "an integer 0..1000000", &nodes));
    v.nodes = static_cast<int32_t>(nodes);
    out.push_back(std::move(v));
  }
  return out;
}

}  // namespace utilsim::traces
