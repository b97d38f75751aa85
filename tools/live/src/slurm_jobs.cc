// The job reader of slurm_objects.h: squeue --json / slurmrestd jobs.
#include <algorithm>
#include <limits>

#include "slurm_json.h"
#include "utilsim/live/slurm_objects.h"
#include "utilsim/traces/slurm_text.h"

namespace utilsim::live {

using namespace internal;  // NOLINT: the readers of slurm_json.h and k8s_json.h

namespace {

// Cores marked "allocated" in a 22.05 allocated_nodes entry's
// {"sockets": {"0": {"cores": {"0": "allocated", ...}}}}.
int32_t AllocatedCores(const json& entry) {
  const json* sockets = Field(entry, "sockets");
  if (sockets == nullptr || !sockets->is_object()) return 0;
  int32_t n = 0;
  for (const auto& sock : sockets->items()) {
    const json* cores = sock.value().is_object() ? Field(sock.value(), "cores") : nullptr;
    if (cores == nullptr || !cores->is_object()) continue;
    for (const auto& core : cores->items())
      if (core.value().is_string() &&
          core.value().get<std::string>().find("allocated") != std::string::npos)
        ++n;
  }
  return n;
}

// Per-node holdings from job_resources (v0.0.38 "allocated_nodes"; later
// "nodes": {"allocation": [...]}) and gres_detail (one entry per node, in
// the same order).
Status ReadAllocs(const json& j, const std::string& path, SlurmJobInfo* out) {
  const json* res = nullptr;
  if (Status s = ReadObject(j, path, "job_resources", &res); !s.ok()) return s;
  const json* list = nullptr;
  std::string lpath;
  if (res != nullptr && res->is_object()) {
    lpath = Sub(path, "job_resources");
    if (Status s = ReadArray(*res, lpath, "allocated_nodes", &list); !s.ok()) return s;
    if (list == nullptr) {
      const json* nodes = Field(*res, "nodes");
      if (nodes != nullptr && nodes->is_object()) {
        lpath = Sub(lpath, "nodes");
        if (Status s = ReadArray(*nodes, lpath, "allocation", &list); !s.ok()) return s;
      }
    }
  }
  std::vector<int32_t> cores;
  if (list != nullptr) {
    for (size_t i = 0; i < list->size(); ++i) {
      const json& e = (*list)[i];
      const std::string ep = At(lpath, i);
      if (!e.is_object()) return Expected(ep, "a node allocation object", e);
      SlurmNodeAlloc a;
      if (Status s = ReadString(e, ep, "nodename", &a.node); !s.ok()) return s;
      if (a.node.empty())
        if (Status s = ReadString(e, ep, "name", &a.node); !s.ok()) return s;
      int64_t mem = 0;
      if (const json* m = Field(e, "memory"); m != nullptr && m->is_object()) {
        if (Status s = ReadNumber(*m, Sub(ep, "memory"), "allocated", &mem); !s.ok()) return s;
      } else if (Status s = ReadNumber(e, ep, "memory_allocated", &mem); !s.ok()) {
        return s;
      }
      a.memory_mib = mem;
      int32_t c = AllocatedCores(e);
      if (const json* cp = Field(e, "cpus"); cp != nullptr && cp->is_object()) {
        int32_t count = 0;
        if (Status s = ReadInt32(*cp, Sub(ep, "cpus"), "count", &count); !s.ok()) return s;
        if (count > 0) c = count;
      }
      cores.push_back(c);
      out->allocs.push_back(std::move(a));
    }
  }
  if (out->allocs.empty())  // no job_resources: one entry per listed node
    for (const std::string& n : out->nodes) {
      SlurmNodeAlloc a;
      a.node = n;
      out->allocs.push_back(a);
      cores.push_back(0);
    }
  const size_t k = out->allocs.size();
  if (k == 0) return Status::Ok();
  // CPUs: the job's total spread as the allocated cores are (whole cores
  // times the threads per core), else evenly.
  int64_t sum = 0;
  for (int32_t c : cores) sum += c;
  for (size_t i = 0; i < k; ++i) {
    if (sum > 0 && out->cpus % sum == 0) {
      out->allocs[i].cpus = static_cast<int32_t>(cores[i] * (out->cpus / sum));
    } else {
      out->allocs[i].cpus = static_cast<int32_t>((out->cpus + k - 1) / k);
    }
  }
  // GPUs: gres_detail per node; else the per-node ask.
  const json* detail = nullptr;
  if (Status s = ReadArray(j, path, "gres_detail", &detail); !s.ok()) return s;
  for (size_t i = 0; i < k; ++i) {
    SlurmNodeAlloc& a = out->allocs[i];
    if (detail != nullptr && i < detail->size()) {
      const json& d = (*detail)[i];
      const std::string dp = At(Sub(path, "gres_detail"), i);
      if (!d.is_string()) return Expected(dp, "a GRES string", d);
      auto g = traces::ParseGres(d.get<std::string>());
      if (!g.ok()) return g.status().Prefixed(dp + ": ");
      for (const auto& one : g.value()) {
        if (one.name != "gpu") continue;
        a.gpus += static_cast<int32_t>(one.count);
        a.gpu_indices.insert(a.gpu_indices.end(), one.indices.begin(), one.indices.end());
      }
    } else if (out->gpus_per_node > 0) {
      a.gpus = out->gpus_per_node;
    } else if (out->gpus_per_job > 0) {
      a.gpus = static_cast<int32_t>((out->gpus_per_job + k - 1) / k);
    }
  }
  return Status::Ok();
}

// The GPUs asked: tres_per_node ("gres:gpu:v100:4"), tres_per_job
// ("gres:gpu:8"), else gres/gpu in tres_req_str over the nodes; the type
// from any of them.
Status ReadGpuAsk(const json& j, const std::string& path, SlurmJobInfo* out) {
  std::string per_node, per_job;
  if (Status s = ReadStringOrList(j, path, "tres_per_node", &per_node); !s.ok()) return s;
  if (Status s = ReadStringOrList(j, path, "tres_per_job", &per_job); !s.ok()) return s;
  if (Status s = GpusOf(per_node, Sub(path, "tres_per_node"), &out->gpus_per_node, &out->gpu_type);
      !s.ok())
    return s;
  if (Status s = GpusOf(per_job, Sub(path, "tres_per_job"), &out->gpus_per_job, &out->gpu_type);
      !s.ok())
    return s;
  auto req = traces::ParseTres(out->tres_req);
  if (!req.ok()) return req.status().Prefixed(Sub(path, "tres_req_str") + ": ");
  if (out->gpu_type.empty() && req.value().gpus_by_type.size() == 1)
    out->gpu_type = req.value().gpus_by_type.begin()->first;
  if (out->gpus_per_node == 0 && out->gpus_per_job == 0 && req.value().gpus > 0) {
    const int64_t nodes = std::max<int64_t>(1, out->node_count);
    if (req.value().gpus % nodes == 0) {
      out->gpus_per_node = static_cast<int32_t>(req.value().gpus / nodes);
    } else {
      out->gpus_per_job = static_cast<int32_t>(req.value().gpus);
    }
  }
  return Status::Ok();
}

Status ReadJob(const json& j, const std::string& path, SlurmJobInfo* out) {
  if (!j.is_object()) return Expected(path, "a job object", j);
  bool has_id = false;
  if (Status s = ReadNumber(j, path, "job_id", &out->job_id, &has_id); !s.ok()) return s;
  if (!has_id || out->job_id <= 0)
    return Expected(Sub(path, "job_id"), "a job id > 0", j.value("job_id", json()));
  std::vector<std::string> state;
  std::string nodes;
  bool task_set = false;
  std::vector<Status> st = {
      ReadNumber(j, path, "array_job_id", &out->array_job_id),
      ReadNumber(j, path, "array_task_id", &out->array_task_id, &task_set),
      ReadNumber(j, path, "het_job_id", &out->het_job_id),
      ReadNumber(j, path, "het_job_offset", &out->het_job_offset),
      ReadStateWords(j, path, "job_state", &state),
      ReadString(j, path, "state_reason", &out->reason),
      ReadString(j, path, "name", &out->name),
      ReadString(j, path, "user_name", &out->user),
      ReadString(j, path, "account", &out->account),
      ReadString(j, path, "partition", &out->partition),
      ReadString(j, path, "qos", &out->qos),
      ReadNumber(j, path, "priority", &out->priority),
      ReadNumber(j, path, "submit_time", &out->submit_time),
      ReadNumber(j, path, "eligible_time", &out->eligible_time),
      ReadNumber(j, path, "start_time", &out->start_time),
      ReadNumber(j, path, "end_time", &out->end_time),
      ReadNumber(j, path, "time_limit", &out->time_limit_min),
      ReadInt32(j, path, "node_count", &out->node_count),
      ReadInt32(j, path, "cpus", &out->cpus),
      ReadNumber(j, path, "memory_per_node", &out->memory_per_node_mib),
      ReadNumber(j, path, "memory_per_cpu", &out->memory_per_cpu_mib),
      ReadStringOrList(j, path, "tres_req_str", &out->tres_req),
      ReadStringOrList(j, path, "tres_alloc_str", &out->tres_alloc),
      ReadStringOrList(j, path, "required_nodes", &out->required_nodes),
      ReadStringOrList(j, path, "excluded_nodes", &out->excluded_nodes),
      ReadStringOrList(j, path, "nodes", &nodes),
  };
  for (const Status& s : st)
    if (!s.ok()) return s;
  if (!task_set) out->array_task_id = -1;
  if (out->node_count < 1) out->node_count = 1;
  out->state = state.empty() ? "UNKNOWN" : state.front();
  if (!nodes.empty()) {
    auto names = traces::ExpandHostlist(nodes);
    if (!names.ok()) return names.status().Prefixed(Sub(path, "nodes") + ": ");
    out->nodes = std::move(names.value());
  }
  // Slurm's ids as it prints them: 5_0, 17_[0-2], 15+1.
  std::string tasks;
  if (Status s = ReadString(j, path, "array_task_string", &tasks); !s.ok()) return s;
  if (out->het_job_id > 0) {
    out->display_id = std::to_string(out->het_job_id) + "+" + std::to_string(out->het_job_offset);
  } else if (out->array_job_id > 0 && out->array_task_id >= 0) {
    out->display_id = std::to_string(out->array_job_id) + "_" + std::to_string(out->array_task_id);
  } else if (out->array_job_id > 0 && !tasks.empty()) {
    out->display_id = std::to_string(out->array_job_id) + "_[" + tasks + "]";
  } else {
    out->display_id = std::to_string(out->job_id);
  }
  if (Status s = ReadGpuAsk(j, path, out); !s.ok()) return s;
  return ReadAllocs(j, path, out);
}

}  // namespace

int32_t SlurmJobInfo::TotalGpus() const {
  if (!allocs.empty()) {
    int64_t n = 0;
    for (const auto& a : allocs) n += a.gpus;
    if (n > 0) return static_cast<int32_t>(std::min<int64_t>(n, INT32_MAX));
  }
  if (gpus_per_job > 0) return gpus_per_job;
  return static_cast<int32_t>(
      std::min<int64_t>(int64_t{gpus_per_node} * std::max(1, node_count), INT32_MAX));
}

bool SlurmJobInfo::Held() const {
  return (Pending() && priority == 0) || reason == "JobHeldUser" || reason == "JobHeldAdmin";
}

Result<std::vector<SlurmJobInfo>> ParseSlurmJobs(std::string_view text, SlurmMeta* meta) {
  auto doc = OpenDocument(text, "jobs", meta);
  if (!doc.ok()) return doc.status();
  const json& arr = doc.value()["jobs"];
  std::vector<SlurmJobInfo> out;
  out.reserve(arr.size());
  for (size_t i = 0; i < arr.size(); ++i) {
    SlurmJobInfo job;
    if (Status s = ReadJob(arr[i], At("jobs", i), &job); !s.ok()) return s;
    out.push_back(std::move(job));
  }
  return out;
}

}  // namespace utilsim::live
