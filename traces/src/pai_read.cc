// PAI (cluster-trace-gpu-v2020): job, group tag and task tables -> jobs;
// the instance and sensor joins are in pai_join.cc.
#include <algorithm>
#include <cmath>

#include "pai_join.h"
#include "row_helpers.h"
#include "utilsim/engine/units.h"

namespace utilsim::traces::internal {

Status OptNonNeg(const CsvReader& csv, size_t col, std::optional<double>* out) {
  out->reset();
  if (csv.field(col).empty()) return Status::Ok();
  auto v = csv.Double(col);
  if (!v.ok() || !(v.value() >= 0)) return csv.FieldError(col, "a number >= 0");
  *out = v.value();
  return Status::Ok();
}

Status OptSeconds(const CsvReader& csv, size_t col, std::optional<Micros>* out) {
  out->reset();
  if (csv.field(col).empty()) return Status::Ok();
  auto t = ParseSeconds(csv.field(col));
  if (!t || t->us < 0) return csv.FieldError(col, "seconds >= 0");
  *out = *t;
  return Status::Ok();
}

Status ReadPaiJobTable(const std::string& path, bool keep_inst_id, PaiState* st, TraceData* out) {
  auto opened = OpenPaiTable(path, PaiTable::kJob);
  if (!opened.ok()) return opened.status();
  PaiTableReader& t = opened.value();
  const CsvReader& csv = t.csv();
  for (;;) {
    auto next = t.Next();
    if (!next.ok()) return next.status();
    if (!next.value()) break;
    const std::string name(csv.field(0));
    if (name.empty()) return csv.FieldError(0, "a non-empty job name");
    PaiJobInfo info;
    info.line = csv.line();
    UTILSIM_RETURN_IF_ERROR(OptSeconds(csv, 4, &info.submit));
    info.tenant = st->Tenant(csv.field(2), &out->workload);
    if (keep_inst_id) info.inst_id = csv.field(1);
    auto [it, ok] = st->jobs.emplace(name, std::move(info));
    if (!ok) {
      return csv.FieldError(
          0, "a job name not already used on line " + std::to_string(it->second.line));
    }
  }
  out->bytes_read += InputBytes(path);
  return Status::Ok();
}

Status ReadPaiGroupTags(const std::string& path, PaiState* st, TraceData* out) {
  auto opened = OpenPaiTable(path, PaiTable::kGroupTag);
  if (!opened.ok()) return opened.status();
  PaiTableReader& t = opened.value();
  const CsvReader& csv = t.csv();
  for (;;) {
    auto next = t.Next();
    if (!next.ok()) return next.status();
    if (!next.value()) break;
    if (csv.field(0).empty()) return csv.FieldError(0, "a non-empty inst_id");
    if (csv.field(2).empty()) continue;
    st->spec_by_inst.emplace(std::string(csv.field(0)), std::string(csv.field(2)));
  }
  out->bytes_read += InputBytes(path);
  return Status::Ok();
}

namespace {

// Maps plan_gpu (percent of one GPU) onto the demand.
void SetGpus(const CsvReader& csv, double plan_gpu, TaskDemand* d, Warnings* w) {
  if (plan_gpu <= 0) {
    d->gpus = 0;
  } else if (plan_gpu < 100) {
    d->gpus = 1;
    d->gpu_milli = static_cast<int32_t>(std::clamp<int64_t>(std::llround(plan_gpu * 10), 1, 1000));
  } else {
    const double k = std::ceil(plan_gpu / 100.0 - 1e-9);
    if (std::fabs(k * 100.0 - plan_gpu) > 1e-6) {
      WarnAt(w, csv, kPaiWarnGpuRoundedUp, "plan_gpu " + Num(plan_gpu) + " -> " + Num(k) + " GPUs");
    }
    d->gpus = static_cast<int32_t>(k);
  }
}

}  // namespace

Status ReadPaiTaskTable(const std::string& path, const PaiOptions& opt, PaiState* st,
                        TraceData* out) {
  auto opened = OpenPaiTable(path, PaiTable::kTask);
  if (!opened.ok()) return opened.status();
  PaiTableReader& t = opened.value();
  const CsvReader& csv = t.csv();
  const bool have_jobs = !st->jobs.empty();
  Workload& w = out->workload;
  for (;;) {
    auto next = t.Next();
    if (!next.ok()) return next.status();
    if (!next.value()) break;
    ++out->rows_read;
    const std::string_view job_name = csv.field(0);
    if (job_name.empty()) return csv.FieldError(0, "a non-empty job name");
    std::string key = PaiTaskKey(job_name, csv.field(1));
    double inst = 0;
    UTILSIM_RETURN_IF_ERROR(DoubleIn(csv, 2, 0, 1e6, "an integer 0..1000000", &inst));
    if (inst != std::floor(inst)) return csv.FieldError(2, "an integer 0..1000000");
    std::optional<Micros> start, end;
    std::optional<double> cpu, mem, gpu;
    UTILSIM_RETURN_IF_ERROR(OptSeconds(csv, 4, &start));
    UTILSIM_RETURN_IF_ERROR(OptSeconds(csv, 5, &end));
    UTILSIM_RETURN_IF_ERROR(OptNonNeg(csv, 6, &cpu));
    UTILSIM_RETURN_IF_ERROR(OptNonNeg(csv, 7, &mem));
    UTILSIM_RETURN_IF_ERROR(OptNonNeg(csv, 8, &gpu));
    if (gpu && *gpu > 6400) return csv.FieldError(8, "a percentage 0..6400");
    auto [slot, fresh] = st->task_index.emplace(std::move(key), PaiTaskRef{-1, csv.line()});
    if (!fresh) {
      return csv.FieldError(1, "a task not already listed on line " +
                                   std::to_string(slot->second.line) + " for this job");
    }
    ++st->status[std::string(csv.field(3))];
    const std::string where =
        "task '" + std::string(job_name) + "/" + std::string(csv.field(1)) + "'";
    if (!start || !end) {
      WarnAt(&out->warnings, csv, kPaiWarnNoTimes, where);
      continue;
    }
    if (*end <= *start) {
      WarnAt(&out->warnings, csv, kPaiWarnBadSpan, where);
      continue;
    }
    if (inst == 0) {
      WarnAt(&out->warnings, csv, kPaiWarnNoInstances, where);
      continue;
    }
    Job job;
    job.name = std::string(job_name) + "/" + std::string(csv.field(1));
    job.recorded_start = *start;
    job.runtime = *end - *start;
    job.submit = *start;
    job.tenant = st->Tenant("", &w);
    auto info = st->jobs.find(std::string(job_name));
    if (info == st->jobs.end()) {
      if (have_jobs) WarnAt(&out->warnings, csv, kPaiWarnUnknownJob, where);
    } else {
      job.tenant = info->second.tenant;
      if (info->second.submit && *info->second.submit > *start) {
        WarnAt(&out->warnings, csv, kPaiWarnStartBeforeSubmit, where);
      } else if (info->second.submit) {
        job.submit = *info->second.submit;
      }
      auto spec = st->spec_by_inst.find(info->second.inst_id);
      if (opt.use_group_tag_spec && spec != st->spec_by_inst.end()) {
        job.gpu_models = {spec->second};
      }
    }
    job.tasks = static_cast<int32_t>(inst);
    SetGpus(csv, gpu.value_or(0), &job.task, &out->warnings);
    job.task.cpu_milli = std::llround(cpu.value_or(0) * 10.0);
    job.task.mem_bytes = std::llround(mem.value_or(0) * static_cast<double>(kBytesPerGiB));
    const std::string gpu_type(csv.field(9));
    if (opt.constrain_gpu_type && !gpu_type.empty() && gpu_type != "CPU")
      job.gpu_models = {gpu_type};
    if (job.task.gpus == 0) job.gpu_models.clear();
    slot->second.job = static_cast<int64_t>(w.jobs.size());
    st->agg.push_back(PaiTaskAgg{});
    st->agg.back().plan_gpu = gpu.value_or(0);
    w.jobs.push_back(std::move(job));
  }
  out->bytes_read += InputBytes(path);
  return Status::Ok();
}

}  // namespace utilsim::traces::internal
