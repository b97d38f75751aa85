// The fuzzed readers: name -> (file suffix, function reading a path). Every
// text reader of the traces module is here; a reader may reject any input but
// must never crash, hang or read out of bounds.
#pragma once

#include <functional>
#include <map>
#include <string>

#include "utilsim/traces/aaic.h"
#include "utilsim/traces/canonical.h"
#include "utilsim/traces/dlrm.h"
#include "utilsim/traces/itp.h"
#include "utilsim/traces/openb.h"
#include "utilsim/traces/pai.h"
#include "utilsim/traces/philly.h"
#include "utilsim/traces/sacct.h"
#include "utilsim/traces/slurm_conf.h"
#include "utilsim/traces/swf.h"
#include "utilsim/traces/telemetry.h"

namespace utilsim::fuzz {

struct Target {
  std::string suffix;
  std::function<void(const std::string& path)> run;
};

// A small slurm.conf's result, for the sacct target's slurm.conf checks:
// a1 with 4 a100, b1 with 4 v100, partitions all and a.
inline const traces::SlurmConf& FuzzSlurmConf() {
  static const traces::SlurmConf kConf = [] {
    traces::SlurmConf c;
    for (const char* t : {"a100", "v100"}) {
      traces::SlurmConf::Node n;
      n.name = std::string(1, t[0]) + "1";
      n.cpus = 8;
      n.real_memory_mib = 1000;
      n.gpus = 4;
      n.gpu_type = t;
      c.nodes.push_back(n);
      c.cluster.models.push_back({t, 0, 1.0});
    }
    c.partitions.push_back({"all", {"a1", "b1"}, true, std::nullopt, std::nullopt, "UP", 1});
    c.partitions.push_back({"a", {"a1"}, false, std::nullopt, std::nullopt, "UP", 1});
    return c;
  }();
  return kConf;
}

inline const std::map<std::string, Target>& Targets() {
  using namespace traces;
  static const std::map<std::string, Target> kTargets = {
      {"jobs-csv", {".csv", [](const std::string& p) { (void)ReadJobsCsv(p); }}},
      {"cluster-yaml", {".yaml", [](const std::string& p) { (void)ReadClusterYaml(p); }}},
      {"util-series", {".csv", [](const std::string& p) { (void)ReadUtilSeriesCsv(p); }}},
      {"openb-pods", {".csv", [](const std::string& p) { (void)ReadOpenbPods(p); }}},
      {"openb-nodes", {".csv", [](const std::string& p) { (void)ReadOpenbNodes(p); }}},
      {"aaic", {".csv", [](const std::string& p) { (void)ReadAaic({p}); }}},
      {"swf", {".swf", [](const std::string& p) { (void)ReadSwf(p); }}},
      {"itp", {".csv", [](const std::string& p) { (void)ReadItp({p}); }}},
      {"philly-machines", {".csv", [](const std::string& p) { (void)ReadPhillyMachines(p); }}},
      {"philly-jobs", {".json", [](const std::string& p) { (void)ReadPhillyJobs(p); }}},
      {"pai-task-table",
       {".csv",
        [](const std::string& p) {
          PaiPaths paths;
          paths.task = p;
          (void)ReadPai(paths);
        }}},
      {"philly-windows",
       {".csv", [](const std::string& p) { (void)ReadPhillyWindows(p, Workload{}); }}},
      {"pai-machine-spec", {".csv", [](const std::string& p) { (void)ReadPaiMachineSpec(p); }}},
      {"dlrm", {".csv", [](const std::string& p) { (void)ReadDlrm(p); }}},
      {"dcgm-exporter", {".prom", [](const std::string& p) { (void)ReadDcgmExposition(p); }}},
      {"prom-json", {".json", [](const std::string& p) { (void)ReadPromQueryRange(p); }}},
      {"nvidia-smi", {".csv", [](const std::string& p) { (void)ReadNvidiaSmiCsv(p); }}},
      {"dcgm-csv", {".csv", [](const std::string& p) { (void)ReadDcgmFieldCsv(p); }}},
      {"genai", {".csv", [](const std::string& p) { (void)ReadGenAiPodUtil(p, ""); }}},
      {"sacct",
       {".txt",
        [](const std::string& p) {
          (void)LooksLikeSacct(p);
          (void)ReadSacct({p});
          SacctOptions o;
          o.conf = &FuzzSlurmConf();
          o.submit_from = SacctSubmit::kSubmit;
          (void)ReadSacct({p, p}, o);
        }}},
      {"slurm-conf",
       {".conf",
        [](const std::string& p) {
          (void)LooksLikeSlurmConf(p);
          (void)ReadSlurmConf(p, p);  // the same bytes as slurm.conf and as gres.conf
        }}},
  };
  return kTargets;
}

}  // namespace utilsim::fuzz
