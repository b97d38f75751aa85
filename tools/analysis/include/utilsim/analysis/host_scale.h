// `--scale-host-requests CPU[,MEM]` (run, compare, plan; docs/mig.md "The MIG
// study"): a workload transform applied before a run that multiplies every
// job's host CPU and memory request by a factor, e.g. to pair GPU counts and
// utilization from one trace with lighter host requests drawn from another.
#pragma once

#include <cstdint>
#include <string>

#include "utilsim/engine/job.h"
#include "utilsim/engine/status.h"

namespace utilsim {

struct HostScale {
  double cpu = 1;  // factor on TaskDemand::cpu_milli
  double mem = 1;  // factor on TaskDemand::mem_bytes
};

// "CPU" (both factors) or "CPU,MEM"; finite numbers > 0. Error:
// "--scale-host-requests: expected CPU[,MEM] factors > 0, got 'TEXT'".
Result<HostScale> ParseHostScale(const std::string& text);

// Multiplies every job's task.cpu_milli and task.mem_bytes by the factors,
// rounded to nearest (halves away from zero); a request > 0 stays >= 1
// (milli-core, byte), 0 stays 0. Deterministic. Returns how many jobs had a
// request changed.
int64_t ScaleHostRequests(Workload* w, const HostScale& f);

// The run note: "host requests scaled: cpu x0.125, mem x0.125 (N jobs)".
std::string HostScaleNote(const HostScale& f, int64_t jobs);

}  // namespace utilsim
