// Slurm's nodes and jobs as the live advisor reads them (docs/live-slurm.md):
// the JSON of `squeue --json`, `sinfo --json` (Slurm 22.05: a "nodes" list),
// `scontrol show nodes --json` (23.02 and later) and slurmrestd's
// /slurm/<version>/jobs and /nodes. One reader for every data-parser
// version: v0.0.38 (22.05: plain numbers, null when unset, node state a
// string) and v0.0.40 and later (numbers as {"set","infinite","number"},
// states as arrays of flags; domain.md §4.3).
//
// Errors name the JSON path ("jobs[3].job_id: expected a number, got
// \"x\""); a field that is absent or null reads as unknown, so only a value
// of the wrong type, or a job without job_id or a node without name, is an
// error. Thread-safety: plain functions and values.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "utilsim/engine/status.h"

namespace utilsim::live {

struct SlurmNodeInfo {
  std::string name;
  int32_t cpus = 0;
  int64_t real_memory_mib = 0;
  int32_t gpus = 0;      // the node's gres gpu count (all types)
  std::string gpu_type;  // the gres type; "" untyped (modelled as "gpu")
  // Upper-case state words: the base state (IDLE, MIXED, ALLOCATED, DOWN,
  // ...) and the flags (DRAIN, NOT_RESPONDING, ...), from "state" (a string
  // such as "idle" or "mixed+drain", or an array) and "state_flags".
  std::vector<std::string> state;
  std::vector<std::string> partitions;
  int32_t alloc_cpus = 0;
  int64_t alloc_memory_mib = 0;
  int32_t gpus_used = 0;  // from gres_used, 0 unknown

  // False when the node takes no new jobs: DOWN, DRAIN, DRAINING, DRAINED,
  // FAIL, FAILING, FUTURE, MAINTENANCE, NOT_RESPONDING, POWERED_DOWN,
  // POWERING_DOWN, REBOOT_REQUESTED, RESERVED, UNKNOWN or INVALID.
  bool Schedulable() const;
  bool HasState(std::string_view word) const;
};

// What a running job holds on one node.
struct SlurmNodeAlloc {
  std::string node;
  int32_t cpus = 0;
  int64_t memory_mib = 0;
  int32_t gpus = 0;
  std::vector<int32_t> gpu_indices;  // from gres_detail IDX; empty = unknown
};

struct SlurmJobInfo {
  int64_t job_id = 0;  // the record's own id (an array task's JobIDRaw)
  // As Slurm prints it: "123", "5_0" (array task), "17_[0-2]" (array tasks
  // not yet split), "15+1" (het component).
  std::string display_id;
  int64_t array_job_id = 0;
  int64_t array_task_id = -1;  // -1 = not an array task (or not yet split)
  int64_t het_job_id = 0, het_job_offset = 0;
  std::string state;   // upper-case base state: PENDING, RUNNING, COMPLETED, ...
  std::string reason;  // state_reason ("Resources", "Priority", "JobHeldUser", ...)
  std::string name, user, account, partition, qos;
  int64_t priority = 0;
  // UNIX seconds; 0 = unknown. end_time of a running job is Slurm's own
  // estimate (start + time limit).
  int64_t submit_time = 0, eligible_time = 0, start_time = 0, end_time = 0;
  int64_t time_limit_min = -1;  // -1 = unset or unlimited
  int32_t node_count = 1;
  int32_t cpus = 0;                  // total CPUs asked (pending) or held
  int64_t memory_per_node_mib = -1;  // -1 unset
  int64_t memory_per_cpu_mib = -1;   // -1 unset
  // GPUs asked: per node (tres_per_node "gres:gpu:TYPE:N") or for the whole
  // job (tres_per_job, --gpus), and the type asked ("" any). Filled from
  // tres_req_str when neither is given.
  int32_t gpus_per_node = 0;
  int32_t gpus_per_job = 0;
  std::string gpu_type;
  std::string tres_req, tres_alloc;  // the TRES strings as given
  std::string required_nodes;        // hostlist the job is pinned to ("" none)
  std::string excluded_nodes;
  std::vector<std::string> nodes;      // expanded "nodes" (running jobs)
  std::vector<SlurmNodeAlloc> allocs;  // per node, from job_resources and gres_detail

  bool Pending() const { return state == "PENDING"; }
  bool Running() const { return state == "RUNNING"; }
  // Total GPUs asked or held.
  int32_t TotalGpus() const;
  // Priority 0 or a hold reason (JobHeldUser, JobHeldAdmin).
  bool Held() const;
};

// The "meta" facts of a response: the data parser ("v0.0.38" from
// meta.plugin.type "openapi/v0.0.38", or meta.plugin.data_parser) and the
// Slurm release ("22.05.8").
struct SlurmMeta {
  std::string data_parser, release;
};

// The meta facts of any response ({} when it has none or is not JSON).
SlurmMeta ParseSlurmMeta(std::string_view json);

// `squeue --json` (or slurmrestd GET /slurm/<v>/jobs): every job record.
// Errors: not JSON, no "jobs" array, a wrong-typed field (path named), a
// non-empty "errors" array (its first error quoted).
Result<std::vector<SlurmJobInfo>> ParseSlurmJobs(std::string_view json, SlurmMeta* meta = nullptr);
// `sinfo --json` of 22.05, `scontrol show nodes --json`, or slurmrestd GET
// /slurm/<v>/nodes: every node. Errors as above (no "nodes" array).
Result<std::vector<SlurmNodeInfo>> ParseSlurmNodes(std::string_view json,
                                                   SlurmMeta* meta = nullptr);

}  // namespace utilsim::live
