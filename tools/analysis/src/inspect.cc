#include "utilsim/analysis/inspect.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "inspect_stats.h"
#include "utilsim/engine/simulator.h"
#include "utilsim/engine/topology.h"
#include "utilsim/engine/units.h"

namespace utilsim {

bool InspectResult::fatal() const {
  return std::any_of(findings.begin(), findings.end(), [](const Finding& f) { return f.fatal; });
}

namespace {

void AddFinding(std::vector<Finding>* out, const std::string& what,
                const std::vector<std::string>& names, bool fatal = false) {
  if (names.empty()) return;
  Finding f;
  f.what = what;
  f.count = static_cast<int64_t>(names.size());
  for (size_t i = 0; i < names.size() && i < 5; ++i) f.first.push_back(names[i]);
  f.fatal = fatal;
  out->push_back(std::move(f));
}

}  // namespace

InspectResult Inspect(const traces::TraceData& trace, const std::optional<ClusterSpec>& cluster,
                      const std::string& format) {
  InspectResult res;
  const Workload& w = trace.workload;
  std::string& out = res.text;
  out += "trace: " + w.source + " (format " + format + ")\n";
  out += "rows read: " + std::to_string(trace.rows_read) +
         ", jobs: " + std::to_string(w.jobs.size()) +
         ", input bytes: " + std::to_string(trace.bytes_read) + "\n";
  for (const auto& n : trace.notes) out += "note: " + n + "\n";

  // Cluster.
  int64_t max_node_gpus = 0, max_node_cpu = 0, max_node_mem = 0;
  std::set<std::string> node_names;
  if (cluster) {
    out += "\ncluster: " + cluster->name + ": " + std::to_string(cluster->total_nodes()) +
           " nodes, " + std::to_string(cluster->total_gpus()) + " GPUs\n";
    std::map<std::string, std::pair<int64_t, int64_t>> by_model;  // nodes, GPUs
    for (const auto& g : cluster->groups) {
      auto& m = by_model[g.gpu_model.empty() ? "(CPU-only)" : g.gpu_model];
      m.first += g.count;
      m.second += int64_t{g.count} * g.gpus;
      max_node_gpus = std::max<int64_t>(max_node_gpus, g.gpus);
      max_node_cpu = std::max(max_node_cpu, g.cpu_milli);
      max_node_mem = std::max(max_node_mem, g.mem_bytes);
      for (int k = 0; k < g.count; ++k)
        node_names.insert(g.count == 1 ? g.name : g.name + "-" + std::to_string(k));
    }
    for (const auto& [model, v] : by_model)
      out += "  " + model + ": " + std::to_string(v.first) + " nodes, " + std::to_string(v.second) +
             " GPUs\n";
    if (auto topo = Topology::Build(*cluster); topo.ok()) {
      const Topology& t = topo.value();
      out += "  topology: " + std::to_string(t.num_racks()) + " racks, " +
             std::to_string(t.num_switches()) + (t.num_switches() == 1 ? " switch" : " switches") +
             "; graph of " + std::to_string(t.num_vertices()) +
             " vertices (GPUs, NVLink domains, nodes, racks, "
             "switches)\n";
    }
  } else {
    out +=
        "\ncluster: none (the trace lists no machines; give --cluster to check jobs against one)\n";
  }

  // Jobs.
  out += "\n" + JobStatsText(w);
  if (cluster) out += "\n" + DemandText(w, cluster->total_gpus());

  // Findings.
  std::vector<std::string> too_big, too_big_cpu, no_fit_gang, bad_hosts, zero_runtime, no_util;
  int64_t epoch_like = 0;
  for (const auto& j : w.jobs) {
    if (cluster) {
      if (j.task.gpus > max_node_gpus)
        too_big.push_back(j.name);
      else if (j.task.cpu_milli > max_node_cpu || j.task.mem_bytes > max_node_mem)
        too_big_cpu.push_back(j.name);
      else if (int64_t{j.tasks} * j.task.gpus > cluster->total_gpus())
        no_fit_gang.push_back(j.name);
      for (const auto& h : j.recorded_hosts)
        if (!node_names.count(h)) {
          bad_hosts.push_back(j.name + " (" + h + ")");
          break;
        }
    }
    if (j.runtime.us <= kMicrosPerSecond) zero_runtime.push_back(j.name);
    if (!j.util_known) no_util.push_back(j.name);
    if (j.submit.us > Seconds(1000000000).us) ++epoch_like;
  }
  AddFinding(&res.findings, "jobs needing more GPUs per task than any node has", too_big);
  AddFinding(&res.findings, "jobs needing more CPU or memory per task than any node has",
             too_big_cpu);
  AddFinding(&res.findings, "gangs needing more GPUs than the whole cluster", no_fit_gang);
  AddFinding(&res.findings, "jobs recorded on hosts the machine list does not contain", bad_hosts);
  AddFinding(&res.findings, "jobs with a run time of 1 s or less (check units)", zero_runtime);
  AddFinding(&res.findings,
             "jobs without measured utilization (simulated as busy whenever allocated unless a "
             "profile library is attached)",
             no_util);
  if (epoch_like > 0) {
    Finding f;
    f.what = "submit times beyond 1e9 s (absolute UNIX times? expected seconds from trace start)";
    f.count = epoch_like;
    res.findings.push_back(f);
  }
  for (const auto& [kind, n] : trace.warnings.counts()) {
    Finding f;
    f.what = "reader: " + kind;
    f.count = n;
    auto it = trace.warnings.examples().find(kind);
    if (it != trace.warnings.examples().end()) f.first = it->second;
    res.findings.push_back(f);
  }
  const std::vector<Finding> demand = DemandFindings(w, cluster);
  res.findings.insert(res.findings.end(), demand.begin(), demand.end());
  out += "\nfindings:\n";
  if (res.findings.empty()) out += "  none\n";
  for (const auto& f : res.findings) {
    out += "  " + std::string(f.fatal ? "FATAL " : "") + std::to_string(f.count) + " x " + f.what +
           "\n";
    for (const auto& e : f.first) out += "      " + e + "\n";
  }
  return res;
}

}  // namespace utilsim
