// Writer of the canonical jobs CSV (docs/trace-format.md).
#include <cstdio>
#include <filesystem>
#include <system_error>
#include <vector>

#include "jobs_columns.h"
#include "utilsim/traces/canonical.h"
#include "utilsim/traces/text_writer.h"

namespace utilsim::traces {

namespace {

using internal::kJobColumns;
using internal::kMiB;

void AppendMiB(std::string* out, int64_t bytes) {
  // Division by a power of two is exact, so this reads back to `bytes`.
  AppendDouble(out, static_cast<double>(bytes) / static_cast<double>(kMiB));
}

Status CheckJob(const Workload& w, const Job& job) {
  if (job.name.empty()) return Status::Error("cannot write a job with an empty id");
  if (job.tenant >= w.tenants.size() && !(job.tenant == 0 && w.tenants.empty())) {
    return Status::Error("job '" + job.name + "': tenant index " + std::to_string(job.tenant) +
                         " out of range");
  }
  if (job.series >= 0 && static_cast<size_t>(job.series) >= w.series.size()) {
    return Status::Error("job '" + job.name + "': series index " + std::to_string(job.series) +
                         " out of range");
  }
  for (const std::string& m : job.gpu_models) {
    if (m.empty() || m.find('|') != std::string::npos) {
      return Status::Error("job '" + job.name + "': GPU model name '" + m +
                           "' is empty or holds '|'");
    }
  }
  return Status::Ok();
}

void AppendRow(const Workload& w, const Job& job, const std::string& profiles_rel,
               std::string* line) {
  line->clear();
  AppendCsvField(line, job.name);
  line->push_back(',');
  AppendSeconds(line, job.submit);
  line->push_back(',');
  AppendSeconds(line, job.runtime);
  line->push_back(',');
  AppendInt(line, job.tasks);
  line->push_back(',');
  AppendInt(line, job.task.gpus);
  line->push_back(',');
  AppendInt(line, job.task.gpu_milli);
  line->push_back(',');
  AppendInt(line, job.task.cpu_milli);
  line->push_back(',');
  AppendMiB(line, job.task.mem_bytes);
  line->push_back(',');
  AppendMiB(line, job.task.gpu_mem_bytes);
  line->push_back(',');
  std::string models;
  for (const std::string& m : job.gpu_models) {
    if (!models.empty()) models.push_back('|');
    models += m;
  }
  AppendCsvField(line, models);
  line->push_back(',');
  AppendCsvField(line, w.tenants.empty() ? std::string("default") : w.tenants[job.tenant]);
  line->push_back(',');
  AppendInt(line, job.priority);
  line->push_back(',');
  if (job.util_known) AppendFloat(line, job.util);  // empty = unknown
  line->push_back(',');
  if (job.series >= 0)
    AppendCsvField(line, profiles_rel + "/" + std::to_string(job.series) + ".csv");
  line->push_back(',');
  if (job.recorded_start) AppendSeconds(line, *job.recorded_start);
  line->push_back(',');
  if (job.walltime_limit) AppendSeconds(line, *job.walltime_limit);
  line->push_back(',');
  if (job.host_cpu_used_milli >= 0) AppendInt(line, job.host_cpu_used_milli);
  line->push_back(',');
  if (job.gpu_mem_used_bytes >= 0) AppendMiB(line, job.gpu_mem_used_bytes);
  line->push_back(',');
  if (job.kill_at_limit) line->push_back('1');
  for (float part : {job.stalls.input_cpu, job.stalls.input_storage, job.stalls.comm}) {
    line->push_back(',');
    if (part >= 0) AppendFloat(line, part);
  }
  for (double bw : {job.nic_bytes_s, job.storage_bytes_s}) {
    line->push_back(',');
    if (bw > 0) AppendDouble(line, bw / 1e9);
  }
  line->push_back(',');
  if (job.kind != JobKind::kUnknown) *line += job.kind == JobKind::kTraining ? "train" : "infer";
  line->push_back(',');
  if (job.tokens_per_step > 0) AppendFloat(line, job.tokens_per_step);
  line->push_back('\n');
}

// Hands the "# signal" line, the header and every row to sink(line).
template <typename Sink>
void WriteLines(const Workload& w, const std::string& profiles_rel, Sink&& sink) {
  std::string line;
  if (w.signal != UtilSignal::kUnknown) {
    line = std::string("# signal: ") + UtilSignalName(w.signal) + "\n";
  }
  for (size_t c = 0; c < kJobColumns.size(); ++c) {
    if (c > 0) line.push_back(',');
    line += kJobColumns[c];
  }
  line.push_back('\n');
  sink(line);
  for (const Job& job : w.jobs) {
    AppendRow(w, job, profiles_rel, &line);
    sink(line);
  }
}

}  // namespace

Status WriteJobsCsv(const Workload& w, std::FILE* out, const std::string& name) {
  for (const Job& job : w.jobs) {
    if (Status s = CheckJob(w, job); !s.ok()) return Status::Error(name + ": " + s.message());
    if (job.series >= 0)
      return Status::Error(name + ": job '" + job.name +
                           "' has a utilization series, which is written as a profile file "
                           "beside the jobs CSV; give a file path");
  }
  bool ok = true;
  WriteLines(w, "", [&](const std::string& line) {
    ok = ok && std::fwrite(line.data(), 1, line.size(), out) == line.size();
  });
  if (!ok || std::fflush(out) != 0) return Status::Error(name + ": write error");
  return Status::Ok();
}

Status WriteJobsCsv(const Workload& w, const std::string& path) {
  for (const Job& job : w.jobs) {
    if (Status s = CheckJob(w, job); !s.ok()) return Status::Error(path + ": " + s.message());
  }
  // Before the profiles folder is replaced (Commit checks again).
  if (Status s = CheckReplaceable(path); !s.ok()) return s;
  namespace fs = std::filesystem;
  const fs::path target(path);
  const std::string profiles_rel = target.stem().string() + ".profiles";
  const fs::path profiles = target.parent_path() / profiles_rel;
  const fs::path profiles_tmp = target.parent_path() / (profiles_rel + ".tmp");
  std::error_code ec;
  fs::remove_all(profiles_tmp, ec);

  // Profiles first, into a temporary folder; it replaces the old one just
  // before the jobs file is renamed into place.
  std::vector<bool> used(w.series.size(), false);
  for (const Job& job : w.jobs)
    if (job.series >= 0) used[static_cast<size_t>(job.series)] = true;
  bool any = false;
  for (size_t k = 0; k < used.size(); ++k) {
    if (!used[k]) continue;
    if (!any && !fs::create_directory(profiles_tmp, ec)) {
      return Status::Error(profiles_tmp.string() + ": cannot create: " + ec.message());
    }
    any = true;
    std::string file = (profiles_tmp / (std::to_string(k) + ".csv")).string();
    if (Status s = WriteUtilSeriesCsv(w.series[k], file); !s.ok()) {
      fs::remove_all(profiles_tmp, ec);
      return s;
    }
  }

  AtomicFile out(path);
  if (Status s = out.Open(); !s.ok()) {
    fs::remove_all(profiles_tmp, ec);
    return s;
  }
  // A write error is kept by `out` and returned by Close().
  WriteLines(w, profiles_rel, [&](const std::string& line) { static_cast<void>(out.Write(line)); });
  if (Status s = out.Close(); !s.ok()) {
    fs::remove_all(profiles_tmp, ec);
    return s;
  }
  fs::remove_all(profiles, ec);
  if (any) {
    fs::rename(profiles_tmp, profiles, ec);
    if (ec) return Status::Error(profiles.string() + ": cannot rename: " + ec.message());
  }
  return out.Commit();
}

}  // namespace utilsim::traces
