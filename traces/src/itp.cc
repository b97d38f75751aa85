// Reader of the Microsoft ITP (ElasticFlow) raw job traces; the mapping is
// documented in docs/formats/itp.md.
#include "utilsim/traces/itp.h"

#include <map>
#include <unordered_map>
#include <utility>

#include "row_helpers.h"
#include "utilsim/traces/csv.h"

namespace utilsim::traces {

namespace {

using internal::ColumnSpec;

enum ItpCol { kJobId, kSubmit, kDuration, kNumGpu, kVc, kNumItpCols };

const std::vector<ColumnSpec>& ItpColumns() {
  static const std::vector<ColumnSpec> cols = {{"job_id", true},
                                               {"submission_time", true},
                                               {"duration", true},
                                               {"num_gpu", true},
                                               {"vc", false}};
  return cols;
}

// Per-cluster tallies for the notes.
struct ClusterTally {
  int64_t jobs = 0;
  double gpu_seconds = 0;
  int64_t gangs = 0;
  Micros first{kNever}, last{0};
};

struct ReadState {
  // Full job name -> (file index, line) of its first row.
  std::unordered_map<std::string, std::pair<size_t, int64_t>> seen;
  std::map<std::string, uint32_t> tenant_index;
  std::map<std::string, ClusterTally> tally;
};

Status ReadOneFile(const std::string& path, size_t file_index, const ItpOptions& opt,
                   const std::vector<std::string>& paths, ReadState* st, TraceData* out) {
  auto opened = CsvReader::Open(path);
  if (!opened.ok()) return opened.status();
  CsvReader& csv = opened.value();
  auto found = internal::FindColumns(csv, ItpColumns());
  if (!found.ok()) return found.status();
  const std::vector<int>& idx = found.value();
  auto at = [&](ItpCol c) { return static_cast<size_t>(idx[c]); };
  const std::string cluster = internal::FileStem(path);
  ClusterTally& tally = st->tally[cluster];
  Workload& w = out->workload;
  for (;;) {
    auto next = csv.Next();
    if (!next.ok()) return next.status();
    if (!next.value()) break;
    ++out->rows_read;
    const std::string_view id = csv.field(at(kJobId));
    if (id.empty()) return csv.FieldError(at(kJobId), "a non-empty job id");
    Job job;
    job.name = cluster + ":" + std::string(id);
    auto [it, inserted] = st->seen.emplace(job.name, std::make_pair(file_index, csv.line()));
    if (!inserted) {
      const auto& [f, line] = it->second;
      return csv.FieldError(at(kJobId), "a job id not already used (" + cluster + " at " +
                                            paths[f] + ":" + std::to_string(line) + ")");
    }
    UTILSIM_RETURN_IF_ERROR(
        internal::SecondsAtLeastZero(csv, at(kSubmit), false, "seconds >= 0", &job.submit));
    UTILSIM_RETURN_IF_ERROR(
        internal::SecondsAtLeastZero(csv, at(kDuration), false, "seconds >= 0", &job.runtime));
    int64_t gpus = 0;
    UTILSIM_RETURN_IF_ERROR(
        internal::IntIn(csv, at(kNumGpu), 0, 1000000, "an integer 0..1000000", &gpus));
    if (job.runtime.us == 0) {
      internal::WarnAt(&out->warnings, csv, kItpWarnZeroDuration, "job '" + job.name + "'");
      continue;
    }
    if (gpus == 0) {
      internal::WarnAt(&out->warnings, csv, kItpWarnNoGpus, "job '" + job.name + "'");
      continue;
    }
    const int64_t per_node = opt.gpus_per_node;
    if (gpus <= per_node) {
      job.task.gpus = static_cast<int32_t>(gpus);
    } else {
      const int64_t tasks = (gpus + per_node - 1) / per_node;
      int64_t per_task = gpus / tasks;
      if (per_task * tasks != gpus) {
        ++per_task;
        internal::WarnAt(&out->warnings, csv, kItpWarnUnevenGang,
                         std::to_string(gpus) + " GPUs as " + std::to_string(tasks) + " x " +
                             std::to_string(per_task));
      }
      job.tasks = static_cast<int32_t>(tasks);
      job.task.gpus = static_cast<int32_t>(per_task);
      ++tally.gangs;
    }
    std::string tenant = cluster;
    if (idx[kVc] >= 0 && !csv.field(at(kVc)).empty()) {
      tenant += "/" + std::string(csv.field(at(kVc)));
    }
    auto t = st->tenant_index.find(tenant);
    if (t == st->tenant_index.end()) {
      t = st->tenant_index.emplace(tenant, w.InternTenant(tenant)).first;
    }
    job.tenant = t->second;
    ++tally.jobs;
    tally.gpu_seconds += job.runtime.seconds() * static_cast<double>(gpus);
    tally.first = std::min(tally.first, job.submit);
    tally.last = std::max(tally.last, job.submit);
    w.jobs.push_back(std::move(job));
  }
  out->bytes_read += internal::InputBytes(path);
  return Status::Ok();
}

}  // namespace

Result<TraceData> ReadItp(const std::vector<std::string>& paths, const ItpOptions& opt) {
  if (paths.empty()) return Status::Error("ITP: no trace files given");
  if (opt.gpus_per_node < 1 || opt.gpus_per_node > 64) {
    return Status::Error("ITP: option gpus_per_node: expected an integer 1..64, got '" +
                         std::to_string(opt.gpus_per_node) + "'");
  }
  TraceData out;
  ReadState st;
  for (size_t f = 0; f < paths.size(); ++f) {
    UTILSIM_RETURN_IF_ERROR(ReadOneFile(paths[f], f, opt, paths, &st, &out));
  }
  Workload& w = out.workload;
  w.source = paths.size() == 1 ? paths[0] : "itp:" + std::to_string(paths.size()) + " files";
  w.signal = UtilSignal::kUnknown;
  w.Finalize();
  double gpu_hours = 0;
  for (const auto& [cluster, t] : st.tally) {
    gpu_hours += t.gpu_seconds / 3600.0;
    out.notes.push_back(cluster + ": " + internal::Thousands(t.jobs) + " jobs, " +
                        internal::Thousands(static_cast<int64_t>(t.gpu_seconds / 3600.0 + 0.5)) +
                        " GPU-hours, " + std::to_string(t.gangs) + " multi-node gangs, submits " +
                        internal::Num(t.first.seconds() / 86400.0, 4) + ".." +
                        internal::Num(t.last.seconds() / 86400.0, 4) + " days");
  }
  out.notes.push_back("total: " + internal::Thousands(static_cast<int64_t>(w.jobs.size())) +
                      " jobs, " + internal::Thousands(static_cast<int64_t>(gpu_hours + 0.5)) +
                      " GPU-hours");
  out.notes.push_back(
      "time origin: start of collection (ITP traces cover 2021-03-04 .. 2021-05-03)");
  out.notes.push_back("gangs: jobs above " + std::to_string(opt.gpus_per_node) +
                      " GPUs split into whole-node tasks (gpus_per_node, assumed)");
  out.notes.push_back(
      "not in the trace: cluster size, start times, CPU/memory demand, utilization");
  return out;
}

bool LooksLikeItp(const std::vector<std::string>& header) {
  return internal::HeaderHas(header, {"job_id", "submission_time", "duration", "num_gpu"});
}

}  // namespace utilsim::traces
