#include "utilsim/traces/k8s_shadow.h"

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>

namespace utilsim::traces {
namespace {

using nlohmann::json;

struct PodSeen {
  std::string name;
  std::optional<int64_t> first_ask_ms, bound_ms, end_ms;
  std::string node;
  TaskDemand demand;
  float util = -1;
};

// "<file>:<line>: field '<name>': expected <what>".
Status Bad(const std::string& where, const std::string& field, const std::string& what) {
  return Status::Error(StatusCode::kInvalidArgument,
                       where + ": field '" + field + "': expected " + what);
}

Result<int64_t> Int(const json& j, const char* key, const std::string& where) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number_integer()) return Bad(where, key, "an integer");
  return it->get<int64_t>();
}

std::string Str(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

Status ReadDemand(const json& j, const std::string& where, TaskDemand* d) {
  auto gpus = Int(j, "gpus", where);
  auto milli = Int(j, "gpu_milli", where);
  auto cpu = Int(j, "cpu_milli", where);
  auto mem = Int(j, "mem_bytes", where);
  auto gmem = Int(j, "gpu_mem_bytes", where);
  for (const Status& s : {gpus.status(), milli.status(), cpu.status(), mem.status(), gmem.status()})
    if (!s.ok()) return s;
  if (gpus.value() < 0 || gpus.value() > 64) return Bad(where, "gpus", "0..64");
  d->gpus = static_cast<int32_t>(gpus.value());
  d->gpu_milli = d->gpus == 0 ? kMilliPerUnit : static_cast<int32_t>(milli.value());
  if (d->gpus > 0 && (d->gpu_milli < 1 || d->gpu_milli > kMilliPerUnit ||
                      (d->gpus > 1 && d->gpu_milli != kMilliPerUnit)))
    return Bad(where, "gpu_milli", "1..1000 (1000 for several GPUs)");
  d->cpu_milli = cpu.value();
  d->mem_bytes = mem.value();
  d->gpu_mem_bytes = gmem.value();
  if (d->cpu_milli < 0 || d->mem_bytes < 0 || d->gpu_mem_bytes < 0)
    return Bad(where, "cpu_milli/mem_bytes/gpu_mem_bytes", ">= 0");
  return Status::Ok();
}

}  // namespace

bool LooksLikeK8sShadow(const std::string& first_line) {
  const json j = json::parse(first_line, nullptr, /*allow_exceptions=*/false);
  return j.is_object() && j.contains("event") && j.value("v", 0) == 1;
}

Result<TraceData> ReadK8sShadow(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::Error(StatusCode::kNotFound, path + ": cannot read the file");
  TraceData d;
  std::map<std::string, PodSeen> pods;  // by UID or key
  std::vector<std::string> order;       // first-seen order of the pods
  std::optional<int64_t> origin_ms;
  std::optional<ClusterSpec> cluster;
  std::string line, pending_error;
  int64_t n = 0;
  bool last_bad = false;
  while (std::getline(in, line)) {
    ++n;
    d.bytes_read += static_cast<int64_t>(line.size()) + 1;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string where = path + ":" + std::to_string(n);
    if (last_bad) return Status::Error(StatusCode::kInvalidArgument, pending_error);
    const json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!j.is_object()) {  // a cut-short last line is forgiven, anything else is not
      last_bad = true;
      pending_error = where + ": not a JSON object (a shadow log has one per line)";
      continue;
    }
    if (j.value("v", 0) != 1) return Bad(where, "v", "1 (the shadow log version)");
    const std::string event = Str(j, "event");
    auto t = Int(j, "t", where);
    if (!t.ok()) return t.status();
    if (!origin_ms) origin_ms = t.value();
    ++d.rows_read;
    if (event == "cluster") {
      ClusterSpec c;
      c.name = "k8s-shadow";
      if (!j.contains("models") || !j["models"].is_array() || !j.contains("nodes") ||
          !j["nodes"].is_array())
        return Bad(where, "models/nodes", "arrays");
      for (const json& m : j["models"]) {
        auto mem = Int(m, "memory_bytes", where);
        if (!mem.ok()) return mem.status();
        c.models.push_back({Str(m, "name"), mem.value(), 1.0});
      }
      for (const json& nd : j["nodes"]) {
        NodeGroup g;
        g.name = Str(nd, "name");
        g.count = 1;
        g.gpu_model = Str(nd, "gpu_model");
        auto gpus = Int(nd, "gpus", where);
        auto cpu = Int(nd, "cpu_milli", where);
        auto mem = Int(nd, "mem_bytes", where);
        for (const Status& s : {gpus.status(), cpu.status(), mem.status()})
          if (!s.ok()) return s;
        if (g.name.empty()) return Bad(where, "nodes[].name", "a node name");
        g.gpus = static_cast<int32_t>(gpus.value());
        g.cpu_milli = cpu.value();
        g.mem_bytes = mem.value();
        c.groups.push_back(g);
      }
      cluster = std::move(c);
      continue;
    }
    const std::string key = Str(j, "uid").empty() ? Str(j, "pod") : Str(j, "uid");
    const bool verb =
        event == "filter" || event == "prioritize" || event == "preempt" || event == "bind";
    if (key.empty() && verb) continue;  // a malformed request (400) names no pod
    if (key.empty()) return Bad(where, "uid/pod", "a pod UID or namespace/name");
    auto [it, fresh] = pods.try_emplace(key);
    if (fresh) order.push_back(key);
    PodSeen& p = it->second;
    if (p.name.empty()) p.name = Str(j, "pod");
    if (verb && event != "bind") {
      if (!p.first_ask_ms) p.first_ask_ms = t.value();
      if (j.contains("pod_util") && j["pod_util"].is_number() && j["pod_util"].get<double>() >= 0)
        p.util = j["pod_util"].get<float>();
    } else if (event == "bound") {
      p.bound_ms = t.value();
      p.node = Str(j, "node");
      if (Status s = ReadDemand(j, where, &p.demand); !s.ok()) return s;
    } else if (event == "finished") {
      p.end_ms = t.value();
    } else if (!verb) {
      return Bad(where, "event", "cluster, filter, prioritize, preempt, bind, bound or finished");
    }
  }
  if (last_bad) d.warnings.Add(kWarnTruncatedLine, pending_error);
  for (const std::string& key : order) {
    const PodSeen& p = pods[key];
    if (!p.bound_ms) {
      if (p.end_ms) d.warnings.Add(kWarnNoBinding, p.name);
      continue;
    }
    if (!p.end_ms || *p.end_ms < *p.bound_ms) {
      d.warnings.Add(kWarnStillRunning, p.name);
      continue;
    }
    Job job;
    job.name = p.name.empty() ? key : p.name;
    const int64_t submit =
        p.first_ask_ms && *p.first_ask_ms <= *p.bound_ms ? *p.first_ask_ms : *p.bound_ms;
    job.submit = Micros{(submit - *origin_ms) * 1000};
    job.recorded_start = Micros{(*p.bound_ms - *origin_ms) * 1000};
    job.runtime = Micros{std::max<int64_t>(1, (*p.end_ms - *p.bound_ms) * 1000)};
    job.task = p.demand;
    job.recorded_hosts = {p.node};
    if (p.util >= 0) {
      job.util = std::min(1.0f, p.util);
      job.util_known = true;
    }
    d.workload.jobs.push_back(std::move(job));
  }
  d.workload.source = "k8s-shadow:" + path;
  d.workload.Finalize();
  if (origin_ms)
    d.notes.push_back("time origin: UNIX ms " + std::to_string(*origin_ms) +
                      " (the log's first line)");
  if (cluster) {
    d.notes.push_back("cluster: the log's last cluster line, " +
                      std::to_string(cluster->groups.size()) + " nodes");
    d.cluster = std::move(cluster);
  }
  return d;
}

}  // namespace utilsim::traces
