// Loading what a run reads: a trace in one of the supported formats (or the
// built-in synthetic workload), the cluster, and optional utilization from
// telemetry or a profile library.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "utilsim/engine/cluster_spec.h"
#include "utilsim/engine/job.h"
#include "utilsim/engine/status.h"
#include "utilsim/io/formats.h"
#include "utilsim/io/output_path.h"
#include "utilsim/traces/trace.h"

namespace utilsim {

struct InputOptions {
  // Trace file(s), comma-separated, or a folder, or "builtin:demo" /
  // "builtin:bench" (the synthetic generator with DemoParams / BenchParams).
  std::string trace = "builtin:demo";
  std::string format;  // "" = detect
  // YAML cluster spec, or a Slurm slurm.conf (by its name or first line;
  // traces::LooksLikeSlurmConf); overrides a cluster the trace describes.
  std::string cluster;
  uint64_t seed = 1;  // synthetic generation and profile attachment
  int64_t jobs = -1;  // builtin: override the number of jobs (-1 = default)
  ReaderOptions reader;
  // Telemetry joined to the jobs by pod/job id or host and time window.
  std::string telemetry, telemetry_format;
  double telemetry_offset_s = 0;  // added to telemetry times to align with the trace
  // Telemetry turned into a profile library attached to jobs without utilization.
  std::string util_library, util_library_format;
  std::string attach = "series";  // "series" or "mean"
  bool require_cluster = true;    // false: a missing cluster is not an error (inspect, convert)
  // Called for a built-in workload with the jobs and nodes it is about to
  // generate (nodes of the synthetic cluster, 0 with --cluster), before any
  // is generated; an error ends LoadInputs with it (the memory guard,
  // memory_guard.h). Empty = none.
  std::function<Status(int64_t jobs, int64_t nodes)> before_generate;
};

struct Inputs {
  Workload workload;
  ClusterSpec cluster;
  std::string digest;              // digest of workload and cluster together
  std::string format;              // the format actually used
  traces::TraceData trace_info;    // warnings, notes, counts (workload moved out)
  std::vector<std::string> notes;  // for result metadata: warnings, attachment rules
};

// The files and folders LoadInputs(opt) reads, each with its option: every
// path of --trace (none for builtin:*), --cluster (and the gres.conf
// beside a slurm.conf), --telemetry,
// --util-library, --node-list, and for an openb trace without --node-list
// the node list beside the pods; plus `profiles` (--profiles) when given.
// Outputs must not replace them (output_path.h).
std::vector<NamedPath> InputPaths(const InputOptions& opt, const std::string& profiles = "");

// Loads and prepares inputs. Errors name the option or file at fault.
Result<Inputs> LoadInputs(const InputOptions& opt);

}  // namespace utilsim
