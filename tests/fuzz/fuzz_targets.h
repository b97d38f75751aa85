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
#include "utilsim/traces/swf.h"
#include "utilsim/traces/telemetry.h"

namespace utilsim::fuzz {

struct Target {
  std::string suffix;
  std::function<void(const std::string& path)> run;
};

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
  };
  return kTargets;
}

}  // namespace utilsim::fuzz
