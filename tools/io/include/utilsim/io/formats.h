// The trace and telemetry formats the command line reads, by name, with
// detection from the file's name and header. docs/trace-formats.md lists
// them with their field mappings.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "utilsim/engine/status.h"
#include "utilsim/traces/trace.h"

namespace utilsim {

// Reader options that a few formats take (others ignore them).
struct ReaderOptions {
  int32_t nodes = 0;             // aaic: cluster nodes (0 = the format's default, 50)
  int32_t gpus_per_node = 8;     // itp, swf: node size for gangs
  std::string pending = "run";   // openb: "run" (from creation) or "skip"
  std::string swf_unit = "gpu";  // swf: "gpu" or "cpu"
  std::string node_list;         // openb: node list (default: openb_node_list_all_node.csv beside)
  std::string sacct_tenant = "account";   // sacct: tenant from "account" or "user"
  std::string sacct_submit = "eligible";  // sacct: submit time "eligible" or "submit"
  // sacct: the cluster's slurm.conf, to check jobs against and to turn
  // partitions into GPU models ("" = none). LoadInputs sets it when
  // --cluster is a slurm.conf.
  std::string slurm_conf;
};

// (name, description) of every trace format.
std::vector<std::pair<std::string, std::string>> TraceFormatList();
// (name, description) of every telemetry format.
std::vector<std::pair<std::string, std::string>> TelemetryFormatList();

// The format of `paths` (one or more files, or a folder): by name, then by
// header. Error if nothing matches, naming the file.
Result<std::string> DetectTraceFormat(const std::vector<std::string>& paths);
Result<traces::TraceData> ReadTrace(const std::string& format,
                                    const std::vector<std::string>& paths,
                                    const ReaderOptions& opt);

// The telemetry format of `paths`: .prom/.json names and folders by name,
// CSVs by their header columns. `option` is the command-line option the
// paths came from ("--telemetry" or "--util-library"); errors start with it
// and point to its "<option>-format".
Result<std::string> DetectTelemetryFormat(const std::vector<std::string>& paths,
                                          const std::string& option = "--telemetry");
// `jobs` is needed by formats keyed to a job list (philly-windows). `option`
// as for DetectTelemetryFormat.
Result<traces::TelemetryData> ReadTelemetry(const std::string& format,
                                            const std::vector<std::string>& paths,
                                            const Workload& jobs,
                                            const std::string& option = "--telemetry");

// Splits "a,b,c" into paths (no empty parts).
std::vector<std::string> SplitPaths(const std::string& list);

}  // namespace utilsim
