// sacct records to jobs: states, times, demand, the slurm.conf checks
// (utilsim/traces/sacct.h). Notes and naming are in sacct_notes.cc.
#include <algorithm>
#include <set>

#include "row_helpers.h"
#include "sacct_internal.h"
#include "slurm_internal.h"

namespace utilsim::traces::internal {

namespace {

constexpr int64_t kMaxTaskGpus = 1'000'000;
constexpr int64_t kMaxTaskCpus = 1'000'000'000;

// States of jobs still holding their allocation (no End yet).
bool IsRunning(const std::string& s) {
  for (const char* r : {"RUNNING", "SUSPENDED", "COMPLETING", "CONFIGURING", "SIGNALING",
                        "STAGE_OUT", "STOPPED", "RESV_DEL_HOLD"})
    if (s == r) return true;
  return false;
}

// States of the table in docs/formats/sacct.md (replayed without a warning).
bool IsKnown(const std::string& s) {
  for (const char* k : {"COMPLETED", "FAILED", "OUT_OF_MEMORY", "TIMEOUT", "PREEMPTED", "NODE_FAIL",
                        "DEADLINE", "CANCELLED", "REQUEUED", "BOOT_FAIL"})
    if (s == k) return true;
  return false;
}

bool NoNodes(const std::string& list) {
  return list.empty() || list == "None assigned" || list == "None" || list == "(null)";
}

std::string GpuModelOf(const SlurmConf::Node& n) {
  return n.gpus == 0 ? std::string() : n.gpu_type.empty() ? "gpu" : n.gpu_type;
}

}  // namespace

SacctBuilder::SacctBuilder(const SacctOptions& opt, TraceData* out) : opt_(opt), out_(out) {
  if (!opt.conf) return;
  const SlurmConf& c = *opt.conf;
  for (size_t i = 0; i < c.nodes.size(); ++i)
    node_index_.emplace(c.nodes[i].name, static_cast<int>(i));
  for (const SlurmConf::Partition& p : c.partitions) {
    std::set<std::string> models;
    for (const std::string& n : p.nodes) {
      auto it = node_index_.find(n);
      if (it == node_index_.end()) continue;
      const SlurmConf::Node& node = c.nodes[static_cast<size_t>(it->second)];
      if (node.gpus > 0) models.insert(GpuModelOf(node));
    }
    std::vector<std::string>& list = partition_models_[p.name];
    if (models.size() < c.cluster.models.size())
      for (const GpuModelSpec& m : c.cluster.models)  // the cluster's order
        if (models.count(m.name)) list.push_back(m.name);
  }
}

Status SacctBuilder::Add(const SacctRecord& r) {
  auto warn = [&](const char* kind, const std::string& more) {
    out_->warnings.Add(kind, r.where + ": job " + r.job_id + more);
  };
  if (r.job_id.find('[') != std::string::npos) {
    warn(kSacctWarnPending, " (array tasks that never started)");
    return Status::Ok();
  }
  const int32_t ordinal = records_of_id_[r.job_id]++;
  const std::string& st = r.state;
  if (st == "PENDING") {
    warn(kSacctWarnPending, "");
    return Status::Ok();
  }
  if (IsRunning(st)) {
    warn(kSacctWarnStillRunning, ": " + st);
    return Status::Ok();
  }
  const bool no_nodes = NoNodes(r.node_list);
  if (!r.start || (no_nodes && r.end && *r.end <= *r.start)) {
    warn(kSacctWarnNeverStarted, ": " + st);
    return Status::Ok();
  }
  if (!r.end) {
    warn(kSacctWarnStillRunning, ": " + st + " without an end time");
    return Status::Ok();
  }
  if (*r.end < *r.start)
    return AtField(
        r.where, r.names->end,
        Expected(std::string("a time >= ") + r.names->start + " (" + std::to_string(*r.start) + ")",
                 r.end_text));
  if (st == "BOOT_FAIL" && *r.end <= *r.start) {
    warn(kSacctWarnBootFail, "");
    return Status::Ok();
  }
  if (!IsKnown(st)) warn(kSacctWarnOtherState, ": " + st);
  if (!r.submit)
    return AtField(r.where, r.names->submit, Expected("a time for a job that ran", r.submit_text));
  int64_t submit = *r.submit;
  if (r.eligible && *r.eligible > *r.submit) {
    ++eligible_later_;
    eligible_max_wait_ = std::max(eligible_max_wait_, *r.eligible - *r.submit);
    if (opt_.submit_from == SacctSubmit::kEligible) submit = *r.eligible;
  }
  if (submit > *r.start) {
    warn(kSacctWarnSubmitAfterStart,
         ": submit " + std::to_string(submit) + ", Start " + std::to_string(*r.start));
    submit = *r.start;
  }
  origin_ = std::min(origin_, std::min(*r.submit, submit));
  Job job;
  job.submit = Seconds(submit);  // absolute for now; Finish subtracts the origin
  job.recorded_start = Seconds(*r.start);
  const int64_t run = *r.end - *r.start;
  if (run == 0) warn(kSacctWarnZeroRuntime, "");
  job.runtime = Seconds(std::max<int64_t>(run, 1));
  if (r.elapsed_s && *r.elapsed_s != run)
    warn(kSacctWarnElapsed, ": Elapsed " + std::to_string(*r.elapsed_s) + " s, End - Start " +
                                std::to_string(run) + " s");
  job.walltime_limit = r.limit;
  job.kill_at_limit = r.limit.has_value();  // Slurm ends jobs at their time limit
  job.priority = r.priority ? static_cast<int32_t>(*r.priority - (int64_t{1} << 31)) : 0;
  const std::string& tenant = opt_.tenant == SacctTenant::kUser ? r.user : r.account;
  job.tenant = out_->workload.InternTenant(tenant.empty() ? "default" : tenant);
  if (!no_nodes) {
    auto count = CountHostlist(r.node_list);
    if (!count.ok()) return AtField(r.where, r.names->node_list, count.status());
    // No name is longer than its list.
    host_bytes_ += count.value() * static_cast<int64_t>(r.node_list.size());
    if (host_bytes_ > (int64_t{64} << 20) + 1000 * (bytes_done_ + file_bytes_))
      return AtField(r.where, r.names->node_list,
                     Expected("node lists that expand to at most 64 MiB + 1000 bytes per input "
                              "byte in all (a guard against hostile input)",
                              r.node_list));
    auto hosts = ExpandHostlist(r.node_list);
    if (!hosts.ok()) return AtField(r.where, r.names->node_list, hosts.status());
    job.recorded_hosts = std::move(hosts).value();
  }
  UTILSIM_RETURN_IF_ERROR(Demand(r, &job));
  if (opt_.conf) CheckConf(r, &job);
  ++states_[st];
  if (!r.partition.empty()) ++partitions_[r.partition];
  if (!r.qos.empty()) ++qos_[r.qos];
  if (!r.exit_code.empty() && r.exit_code != "0:0") ++nonzero_exit_;
  out_->workload.jobs.push_back(std::move(job));
  kept_.push_back({r.job_id, ordinal});
  return Status::Ok();
}

Status SacctBuilder::Demand(const SacctRecord& r, Job* job) {
  const bool alloc = r.has_alloc;
  const SlurmTres& t = alloc ? r.alloc : r.req;
  const char* field = alloc ? r.names->alloc : r.names->req;
  const int64_t hosts = static_cast<int64_t>(job->recorded_hosts.size());
  const int64_t n = t.nodes > 0 ? t.nodes : hosts > 0 ? hosts : 1;
  if (n > kMaxHostlistNames)
    return AtField(r.where, field,
                   Expected("node=<count> of at most 1000000", "node=" + std::to_string(n)));
  if (hosts > 0 && t.nodes > 0 && hosts != t.nodes)
    out_->warnings.Add(kSacctWarnNodeCount, r.where + ": job " + r.job_id + ": NodeList " +
                                                std::to_string(hosts) +
                                                " nodes, node=" + std::to_string(t.nodes));
  const int64_t gpus = std::max<int64_t>(t.gpus, 0), cpus = std::max<int64_t>(t.cpus, 0),
                mem = std::max<int64_t>(t.mem_bytes, 0);
  auto per_task = [n](int64_t v) { return v / n + (v % n != 0 ? 1 : 0); };
  if (gpus % n != 0 || cpus % n != 0 || mem % n != 0)
    out_->warnings.Add(kSacctWarnUneven, r.where + ": job " + r.job_id + ": " + std::to_string(n) +
                                             " nodes, gpus " + std::to_string(gpus) + ", cpus " +
                                             std::to_string(cpus) + ", mem " + std::to_string(mem) +
                                             " bytes");
  if (per_task(gpus) > kMaxTaskGpus)
    return AtField(r.where, field,
                   Expected("at most 1000000 GPUs per node", "gres/gpu=" + std::to_string(gpus)));
  if (per_task(cpus) > kMaxTaskCpus)
    return AtField(r.where, field,
                   Expected("at most 1000000000 CPUs per node", "cpu=" + std::to_string(cpus)));
  job->tasks = static_cast<int32_t>(n);
  job->task.gpus = static_cast<int32_t>(per_task(gpus));
  job->task.cpu_milli = per_task(cpus) * kMilliPerUnit;
  job->task.mem_bytes = per_task(mem);
  if (job->task.gpus == 0) return Status::Ok();
  std::vector<std::string> types;
  for (const auto& [type, count] : r.req.gpus_by_type)
    if (count > 0) types.push_back(type);
  if (types.size() == 1) {
    job->gpu_models = types;
    ++typed_;
  } else if (types.size() > 1) {
    out_->warnings.Add(kSacctWarnGpuTypes, r.where + ": job " + r.job_id);
  }
  return Status::Ok();
}

void SacctBuilder::CheckConf(const SacctRecord& r, Job* job) {
  const SlurmConf& c = *opt_.conf;
  auto warn = [&](const char* kind, const std::string& more) {
    out_->warnings.Add(kind, r.where + ": job " + r.job_id + more);
  };
  bool unknown = false, gpus = false, big = false;
  for (const std::string& h : job->recorded_hosts) {
    auto it = node_index_.find(h);
    if (it == node_index_.end()) {
      if (!unknown) warn(kSacctWarnUnknownNode, " on " + h);
      unknown = true;
      continue;
    }
    const SlurmConf::Node& node = c.nodes[static_cast<size_t>(it->second)];
    if (job->task.gpus > node.gpus && !gpus) {
      warn(kSacctWarnTooManyGpus, ": " + std::to_string(job->task.gpus) + " GPUs per node, " + h +
                                      " has " + std::to_string(node.gpus));
      gpus = true;
    }
    if ((job->task.cpu_milli > node.cpus * kMilliPerUnit ||
         job->task.mem_bytes > (node.real_memory_mib << 20)) &&
        !big) {
      warn(kSacctWarnTooBig, ": " + std::to_string(job->task.cpu_milli / kMilliPerUnit) +
                                 " CPUs, " + std::to_string(job->task.mem_bytes >> 20) +
                                 " MiB per node, " + h + " has " + std::to_string(node.cpus) +
                                 " CPUs, " + std::to_string(node.real_memory_mib) + " MiB");
      big = true;
    }
  }
  if (job->task.gpus == 0 || !job->gpu_models.empty() || r.partition.empty()) return;
  // A job may name several partitions ("gpu,debug"): the union of theirs.
  std::set<std::string> models;
  size_t pos = 0;
  while (pos <= r.partition.size()) {
    size_t comma = r.partition.find(',', pos);
    if (comma == std::string::npos) comma = r.partition.size();
    const std::string p = r.partition.substr(pos, comma - pos);
    pos = comma + 1;
    auto it = partition_models_.find(p);
    if (it == partition_models_.end()) {
      warn(kSacctWarnUnknownPartition, ": " + p);
      return;
    }
    if (it->second.empty()) return;  // every model of the cluster
    models.insert(it->second.begin(), it->second.end());
  }
  if (models.size() >= c.cluster.models.size()) return;
  for (const GpuModelSpec& m : c.cluster.models)
    if (models.count(m.name)) job->gpu_models.push_back(m.name);
  ++by_partition_;
}

}  // namespace utilsim::traces::internal
