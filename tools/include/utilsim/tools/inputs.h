// Loading what a run reads: a trace in some format plus a cluster spec, or
// the built-in synthetic workload.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "utilsim/engine/cluster_spec.h"
#include "utilsim/engine/job.h"
#include "utilsim/engine/status.h"

namespace utilsim::tools {

struct InputOptions {
  // A trace file, or "builtin:demo" / "builtin:bench" (the synthetic
  // generator with DemoParams / BenchParams).
  std::string trace = "builtin:demo";
  std::string format;   // "" = infer from the file
  std::string cluster;  // YAML cluster spec; required unless the format has one
  uint64_t seed = 1;    // used by synthetic generation
  int64_t jobs = -1;    // builtin: override the number of jobs (-1 = default)
};

struct Inputs {
  Workload workload;
  ClusterSpec cluster;
  std::string digest;  // digest of workload and cluster together
  std::string format;  // the format actually used
  std::vector<std::string> warnings;
};

// Trace formats this version reads, with a one-line description each.
std::vector<std::pair<std::string, std::string>> TraceFormats();

Result<Inputs> LoadInputs(const InputOptions& opt);

}  // namespace utilsim::tools
