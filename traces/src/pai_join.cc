// PAI (cluster-trace-gpu-v2020): instance and sensor joins onto the task
// jobs, and ReadPai, which reads the tables in dependency order.
#include "pai_join.h"

#include <algorithm>
#include <cmath>

#include "row_helpers.h"
#include "utilsim/engine/units.h"

namespace utilsim::traces {

namespace {

using internal::PaiState;
using internal::PaiTableReader;

// The kept task of the current row's (job_name, task_name), or nullptr
// (unknown tasks count a warning; skipped tasks are ignored silently).
int64_t FindTask(const CsvReader& csv, PaiState* st, Warnings* w) {
  auto it = st->task_index.find(internal::PaiTaskKey(csv.field(0), csv.field(1)));
  if (it == st->task_index.end()) {
    internal::WarnAt(w, csv, kPaiWarnUnknownTask,
                     "task '" + std::string(csv.field(0)) + "/" + std::string(csv.field(1)) + "'");
    return -1;
  }
  return it->second.job;
}

Status ReadInstances(const std::string& path, PaiState* st, TraceData* out) {
  auto opened = internal::OpenPaiTable(path, PaiTable::kInstance);
  if (!opened.ok()) return opened.status();
  PaiTableReader& t = opened.value();
  const CsvReader& csv = t.csv();
  for (;;) {
    auto next = t.Next();
    if (!next.ok()) return next.status();
    if (!next.value()) break;
    if (csv.field(0).empty()) return csv.FieldError(0, "a non-empty job name");
    std::optional<Micros> start, end;
    UTILSIM_RETURN_IF_ERROR(internal::OptSeconds(csv, 6, &start));
    UTILSIM_RETURN_IF_ERROR(internal::OptSeconds(csv, 7, &end));
    const int64_t j = FindTask(csv, st, &out->warnings);
    if (j < 0) continue;
    ++st->agg[static_cast<size_t>(j)].instances;
    if (csv.field(8).empty()) {
      internal::WarnAt(&out->warnings, csv, kPaiWarnNoMachine,
                       "instance of task " + out->workload.jobs[j].name);
      continue;
    }
    out->workload.jobs[static_cast<size_t>(j)].recorded_hosts.emplace_back(csv.field(8));
  }
  out->bytes_read += internal::InputBytes(path);
  for (size_t j = 0; j < st->agg.size(); ++j) {
    const Job& job = out->workload.jobs[j];
    if (st->agg[j].instances != job.tasks) {
      out->warnings.Add(kPaiWarnInstanceCount,
                        path + ": task '" + job.name + "': inst_num " + std::to_string(job.tasks) +
                            ", " + std::to_string(st->agg[j].instances) + " instance rows");
    }
  }
  return Status::Ok();
}

Status ReadSensors(const std::string& path, PaiState* st, TraceData* out) {
  auto opened = internal::OpenPaiTable(path, PaiTable::kSensor);
  if (!opened.ok()) return opened.status();
  PaiTableReader& t = opened.value();
  const CsvReader& csv = t.csv();
  for (;;) {
    auto next = t.Next();
    if (!next.ok()) return next.status();
    if (!next.value()) break;
    if (csv.field(0).empty()) return csv.FieldError(0, "a non-empty job name");
    std::optional<double> v[16];
    for (size_t c = 6; c < 16; ++c) UTILSIM_RETURN_IF_ERROR(internal::OptNonNeg(csv, c, &v[c]));
    const int64_t j = FindTask(csv, st, &out->warnings);
    if (j < 0) continue;
    internal::PaiTaskAgg& a = st->agg[static_cast<size_t>(j)];
    if (v[6]) {
      a.cpu_sum += *v[6];
      ++a.cpu_n;
    }
    if (v[7] && a.plan_gpu > 0) {
      double u = *v[7] / a.plan_gpu;
      if (u > 1.0) {
        internal::WarnAt(
            &out->warnings, csv, kPaiWarnUtilAbovePlan,
            "gpu_wrk_util " + internal::Num(*v[7]) + " > plan_gpu " + internal::Num(a.plan_gpu));
        u = 1.0;
      }
      a.util_sum += u;
      ++a.util_n;
    }
    if (v[10]) {
      a.mem_sum += *v[10];
      ++a.mem_n;
    }
  }
  out->bytes_read += internal::InputBytes(path);
  int64_t with_util = 0;
  double util_sum = 0;
  for (size_t j = 0; j < st->agg.size(); ++j) {
    const internal::PaiTaskAgg& a = st->agg[j];
    Job& job = out->workload.jobs[j];
    if (a.util_n > 0) {
      job.util = static_cast<float>(a.util_sum / static_cast<double>(a.util_n));
      job.util_known = true;
      ++with_util;
      util_sum += job.util;
    }
    if (a.cpu_n > 0) {
      job.host_cpu_used_milli = std::llround(a.cpu_sum / static_cast<double>(a.cpu_n) * 10.0);
    }
    if (a.mem_n > 0) {
      job.gpu_mem_used_bytes = std::llround(a.mem_sum / static_cast<double>(a.mem_n) *
                                            static_cast<double>(kBytesPerGiB));
    }
  }
  if (with_util > 0) {
    out->workload.signal = UtilSignal::kGpuUtil;
    out->notes.push_back("sensor: " + internal::Thousands(with_util) +
                         " GPU tasks with gpu_wrk_util, mean util (of the planned share) " +
                         internal::Num(util_sum / static_cast<double>(with_util), 4));
  }
  return Status::Ok();
}

}  // namespace

Result<TraceData> ReadPai(const PaiPaths& paths, const PaiOptions& opt) {
  if (paths.task.empty() && !(paths.job.empty() && paths.instance.empty() && paths.sensor.empty() &&
                              paths.group_tag.empty())) {
    return Status::Error("PAI: pai_task_table is required to read jobs (task path is empty)");
  }
  TraceData out;
  if (!paths.machine_spec.empty()) {
    auto spec = ReadPaiMachineSpec(paths.machine_spec, opt);
    if (!spec.ok()) return spec.status();
    out.cluster = std::move(spec).value();
    out.notes.push_back("cluster: " + internal::Thousands(out.cluster->total_nodes()) +
                        " machines, " + internal::Thousands(out.cluster->total_gpus()) + " GPUs");
  }
  PaiState st;
  if (!paths.job.empty()) {
    UTILSIM_RETURN_IF_ERROR(
        internal::ReadPaiJobTable(paths.job, !paths.group_tag.empty(), &st, &out));
  }
  if (!paths.group_tag.empty()) {
    UTILSIM_RETURN_IF_ERROR(internal::ReadPaiGroupTags(paths.group_tag, &st, &out));
  }
  if (!paths.task.empty()) {
    UTILSIM_RETURN_IF_ERROR(internal::ReadPaiTaskTable(paths.task, opt, &st, &out));
  }
  if (!paths.instance.empty()) UTILSIM_RETURN_IF_ERROR(ReadInstances(paths.instance, &st, &out));
  if (!paths.sensor.empty()) UTILSIM_RETURN_IF_ERROR(ReadSensors(paths.sensor, &st, &out));
  Workload& w = out.workload;
  w.source = paths.task.empty() ? paths.machine_spec : paths.task;
  int64_t fractional = 0;
  for (const Job& j : w.jobs) fractional += j.task.fractional() ? 1 : 0;
  w.Finalize();
  if (!paths.task.empty()) {
    std::string s = "task status:";
    for (const auto& [k, n] : st.status)
      s += " " + (k.empty() ? "(empty)" : k) + " " + internal::Thousands(n);
    out.notes.push_back(s);
    out.notes.push_back(
        "tasks as jobs: " + internal::Thousands(static_cast<int64_t>(w.jobs.size())) + " of " +
        internal::Thousands(out.rows_read) + " rows, " + internal::Thousands(fractional) +
        " with a fractional GPU");
    out.notes.push_back(
        "time origin: the trace's (times shifted by a constant; UTC+8 time of "
        "day and weekday preserved)");
  }
  return out;
}

}  // namespace utilsim::traces
