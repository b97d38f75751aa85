// Reader of Standard Workload Format logs (utilsim/traces/swf.h,
// docs/formats/swf.md). Header comments are read in swf_header.cc.
#include "utilsim/traces/swf.h"

#include <chrono>
#include <cstdio>
#include <limits>
#include <map>
#include <unordered_map>

#include "row_helpers.h"
#include "utilsim/engine/units.h"
#include "utilsim/traces/csv.h"

namespace utilsim::traces {

namespace {

enum Field : size_t {
  kJob,
  kSubmit,
  kWait,
  kRun,
  kAlloc,
  kAvgCpu,
  kUsedMem,
  kReqProcs,
  kReqTime,
  kReqMem,
  kStatus,
  kUser,
  kGroup,
  kExe,
  kQueue,
  kPartition,
  kPreceding,
  kThink,
  kNumFields,
};

// Fields that hold integers; the others may hold decimals.
constexpr std::array<bool, kNumFields> kIsInt = {true,  false, false, false, true, false,
                                                 false, true,  false, false, true, true,
                                                 true,  true,  true,  true,  true, false};
constexpr int64_t kMaxProcs = 10000000;

struct Context {
  explicit Context(const SwfOptions& o) : opt(o) {}
  const SwfOptions& opt;
  int64_t node_size = 1;      // GPUs (kGpu) or cores (kCpu) per node
  int64_t cluster_nodes = 0;  // 0: no cluster
  std::unordered_map<int64_t, int64_t> job_line;
  std::unordered_map<int64_t, uint32_t> tenant_of_user;
  std::map<int64_t, int64_t> status, queue;
  int64_t waits_known = 0, with_preceding = 0;
};

// Seconds >= 0 or -1 (nullopt) in field i.
Status OptSeconds(const CsvReader& csv, size_t i, std::optional<Micros>* out) {
  auto t = ParseSeconds(csv.field(i));
  if (t && *t == Seconds(-1)) {
    *out = std::nullopt;
    return Status::Ok();
  }
  if (!t || t->us < 0) return csv.FieldError(i, "seconds >= 0 or -1");
  *out = *t;
  return Status::Ok();
}

void Warn(TraceData* out, const CsvReader& csv, const char* kind, const std::string& job,
          const std::string& detail = "") {
  internal::WarnAt(&out->warnings, csv, kind, "job " + job + (detail.empty() ? "" : ": ") + detail);
}

Status ParseLine(const CsvReader& csv, Context* cx, TraceData* out) {
  std::array<int64_t, kNumFields> iv{};
  for (size_t i = 0; i < kNumFields; ++i) {
    if (kIsInt[i]) {
      auto v = csv.Int(i);
      if (!v.ok()) return v.status();
      iv[i] = v.value();
    } else if (auto d = csv.Double(i); !d.ok()) {
      return d.status();
    }
  }
  constexpr int64_t kI32Max = std::numeric_limits<int32_t>::max();
  using internal::IntIn;
  int64_t job_number = 0, alloc = 0, req = 0, queue = 0, user = 0;
  UTILSIM_RETURN_IF_ERROR(IntIn(csv, kJob, 0, INT64_MAX, "an integer >= 0", &job_number));
  UTILSIM_RETURN_IF_ERROR(IntIn(csv, kAlloc, -1, kMaxProcs, "an integer -1..10000000", &alloc));
  UTILSIM_RETURN_IF_ERROR(IntIn(csv, kReqProcs, -1, kMaxProcs, "an integer -1..10000000", &req));
  UTILSIM_RETURN_IF_ERROR(IntIn(csv, kQueue, -1, kI32Max, "an integer -1..2147483647", &queue));
  UTILSIM_RETURN_IF_ERROR(IntIn(csv, kUser, -1, INT64_MAX, "an integer >= -1", &user));
  Job job;
  UTILSIM_RETURN_IF_ERROR(
      internal::SecondsAtLeastZero(csv, kSubmit, false, "seconds >= 0", &job.submit));
  std::optional<Micros> wait, run, limit;
  UTILSIM_RETURN_IF_ERROR(OptSeconds(csv, kWait, &wait));
  UTILSIM_RETURN_IF_ERROR(OptSeconds(csv, kRun, &run));
  UTILSIM_RETURN_IF_ERROR(OptSeconds(csv, kReqTime, &limit));
  auto [seen, fresh] = cx->job_line.emplace(job_number, csv.line());
  if (!fresh) {
    return csv.FieldError(kJob,
                          "a job number not already used on line " + std::to_string(seen->second));
  }
  job.name = std::to_string(job_number);
  ++cx->status[iv[kStatus]];
  ++cx->queue[queue];
  if (!run) {
    Warn(out, csv, kSwfWarnUnknownRuntime, job.name);
    return Status::Ok();
  }
  if (run->us == 0) {
    if (!cx->opt.keep_zero_runtime) {
      Warn(out, csv, kSwfWarnZeroRuntime, job.name);
      return Status::Ok();
    }
    Warn(out, csv, kSwfWarnZeroRuntimeKept, job.name);
    run = Seconds(1);
  }
  int64_t procs = alloc;
  if (procs <= 0) {
    if (req <= 0) {
      Warn(out, csv, kSwfWarnNoProcessors, job.name);
      return Status::Ok();
    }
    Warn(out, csv, kSwfWarnRequestedProcs, job.name, "requested " + std::to_string(req));
    procs = req;
  }
  const int64_t node = cx->node_size;
  const int64_t tasks = (procs + node - 1) / node;
  const int64_t per_task = procs <= node ? procs : node;
  if (tasks > 1 && procs % node != 0) {
    Warn(out, csv, kSwfWarnUnevenGang, job.name,
         std::to_string(procs) + " processors -> " + std::to_string(tasks) + " x " +
             std::to_string(node));
  }
  if (cx->cluster_nodes > 0 && tasks > cx->cluster_nodes) {
    Warn(out, csv, kSwfWarnTooLarge, job.name,
         std::to_string(tasks) + " nodes > " + std::to_string(cx->cluster_nodes));
  }
  job.tasks = static_cast<int32_t>(tasks);
  if (cx->opt.unit == SwfUnit::kGpu) {
    job.task.gpus = static_cast<int32_t>(per_task);
  } else {
    job.task.gpus = 0;
    job.task.cpu_milli = per_task * kMilliPerUnit;
  }
  job.runtime = *run;
  if (wait) {
    job.recorded_start = job.submit + *wait;
    ++cx->waits_known;
  }
  if (limit && limit->us > 0) job.walltime_limit = *limit;
  if (iv[kPreceding] > 0) ++cx->with_preceding;
  job.priority = static_cast<int32_t>(queue < 0 ? 0 : queue);
  auto t = cx->tenant_of_user.find(user);
  if (t == cx->tenant_of_user.end()) {
    const uint32_t index =
        out->workload.InternTenant(user < 0 ? "default" : "u" + std::to_string(user));
    t = cx->tenant_of_user.emplace(user, index).first;
  }
  job.tenant = t->second;
  out->workload.jobs.push_back(std::move(job));
  return Status::Ok();
}

std::string Counts(const std::map<int64_t, int64_t>& m, const char* const* names,
                   int64_t num_names) {
  std::string s;
  for (const auto& [k, n] : m) {
    if (!s.empty()) s += "; ";
    s += std::to_string(k);
    if (k >= 0 && k < num_names && names[k][0] != 0) s += std::string(" (") + names[k] + ")";
    s += ": " + internal::Thousands(n);
  }
  return s;
}

void AddNotes(const SwfHeader& h, const Context& cx, TraceData* out) {
  std::vector<std::string>& notes = out->notes;
  for (const SwfHeaderEntry& e : h.entries) {
    notes.push_back("SWF header: " + (e.key.empty() ? e.value : e.key + ": " + e.value));
  }
  if (h.unix_start_time) {
    notes.push_back(
        "time origin: UnixStartTime " + std::to_string(*h.unix_start_time) + " = " +
        internal::UtcText(*h.unix_start_time) +
        (h.time_zone_string.empty() ? "" : " (TimeZoneString " + h.time_zone_string + ")") +
        "; submit times are seconds since it");
  } else {
    notes.push_back("time origin: not given (no UnixStartTime); submit times as in the file");
  }
  const std::string node = std::to_string(cx.node_size);
  if (cx.opt.unit == SwfUnit::kGpu) {
    notes.push_back("unit: one processor = one GPU on nodes of " + node +
                    " GPUs; larger jobs are gangs of whole nodes; no CPU or memory demand");
  } else {
    notes.push_back("unit: one processor = one core on nodes of " + node +
                    " cores; larger jobs are gangs of whole nodes; no GPUs, no memory demand");
  }
  if (out->cluster) {
    const NodeGroup& g = out->cluster->groups.front();
    notes.push_back("cluster: " + std::to_string(g.count) + " nodes x " + node +
                    (cx.opt.unit == SwfUnit::kGpu ? " GPUs" : " cores") + " from " +
                    (h.max_procs ? "MaxProcs " + std::to_string(*h.max_procs)
                                 : "MaxNodes " + std::to_string(*h.max_nodes)) +
                    " in the header (node CPU/memory are placeholders)");
  } else {
    notes.push_back("cluster: none (the header gives neither MaxProcs nor MaxNodes)");
  }
  static const char* const kStatus[] = {"failed",       "completed",           "partial",
                                        "last partial", "last partial failed", "cancelled"};
  notes.push_back("status over all job lines: " + Counts(cx.status, kStatus, 6));
  notes.push_back("queue_number (= priority, -1 -> 0) over all job lines: " +
                  Counts(cx.queue, nullptr, 0));
  notes.push_back("wait time known for " + internal::Thousands(cx.waits_known) + " of " +
                  internal::Thousands(static_cast<int64_t>(out->workload.jobs.size())) +
                  " jobs (recorded_start set)");
  notes.push_back(
      "requested_time taken as a wall-clock limit (some logs state average CPU time per "
      "processor; see the header)");
  if (cx.with_preceding > 0) {
    notes.push_back(internal::Thousands(cx.with_preceding) +
                    " jobs name a preceding job (dependencies and think times not modelled)");
  }
}

}  // namespace

Result<TraceData> ReadSwf(const std::string& path, const SwfOptions& opt) {
  if (opt.gpus_per_node < 1 || opt.gpus_per_node > 64) {
    return Status::Error("SwfOptions.gpus_per_node: expected 1..64, got " +
                         std::to_string(opt.gpus_per_node));
  }
  if (opt.cores_per_node < 0 || opt.cores_per_node > 1000000) {
    return Status::Error("SwfOptions.cores_per_node: expected 0..1000000, got " +
                         std::to_string(opt.cores_per_node));
  }
  auto header = ReadSwfHeader(path);
  if (!header.ok()) return header.status();
  const SwfHeader& h = header.value();
  TraceData out;
  out.cluster = SwfCluster(h, opt);
  Context cx(opt);
  cx.node_size = SwfNodeSize(h, opt);
  if (out.cluster) cx.cluster_nodes = out.cluster->groups.front().count;
  CsvOptions co;
  co.whitespace = true;
  co.comment_prefix = ";";
  co.header = false;
  co.column_names.assign(kSwfFields.begin(), kSwfFields.end());
  auto opened = CsvReader::Open(path, co);
  if (!opened.ok()) return opened.status();
  CsvReader& csv = opened.value();
  for (;;) {
    auto more = csv.Next();
    if (!more.ok()) return more.status();
    if (!more.value()) break;
    ++out.rows_read;
    UTILSIM_RETURN_IF_ERROR(ParseLine(csv, &cx, &out));
  }
  out.bytes_read = internal::InputBytes(path);
  out.workload.source = path;
  out.workload.Finalize();
  AddNotes(h, cx, &out);
  return out;
}

}  // namespace utilsim::traces
