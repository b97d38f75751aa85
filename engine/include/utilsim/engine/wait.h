// Wait attribution (docs/explain.md): every second a job spends queued is
// attributed to one primary cause. Schedulers say, in each pass, why each
// queued job they examined did not start (PassContext::Waiting); a job they
// did not examine waits on the queue ahead of it; the engine turns these
// reports into per-job intervals and per-cause totals that sum exactly to the
// job's queued time (an always-on invariant).
//
// Thread-safety: pure functions and plain data.
#pragma once

#include <cstdint>
#include <limits>
#include <string>

#include "utilsim/engine/cluster_state.h"
#include "utilsim/engine/job.h"
#include "utilsim/engine/time.h"

namespace utilsim {

enum class WaitCause : uint8_t {
  kCapacity = 0,   // not enough free GPUs (or CPU, for CPU-only jobs) in the whole cluster
  kGpuModel,       // enough free GPUs, but not of a model the job allows
  kFragmentation,  // enough free GPUs of its models, but no node (set) has them together
  kCoResource,     // nodes have its GPUs free, but not the CPU or memory beside them
  kPlacement,      // the resources are there, the placement policy found no node set
                   // (topology, gang locality, a policy's own constraint)
  kMigLayout,      // resources are there, no MIG instance of its profile is (or can be) made
  kReservation,    // it would fit now, but would delay a backfill reservation
  kQueueOrder,     // not considered: jobs ahead of it in a blocking queue hold the pass
  kRecordedStart,  // replay (as-recorded): its recorded start time has not come
  kPreemption,     // queued again after a preemption (the whole re-queued interval)
  kPowerOn,        // it fits only on nodes that are powered off or still waking up
  kPowerBudget,    // the resources are there, the power budget (cluster or rack) is not
  kNodesDown,      // it fits only on nodes that are down, drained or absent (cluster events)
  kCount,
  // Only in a report (PassContext::Waiting): "it did not fit; classify" —
  // the engine picks one of the first five (ClassifyUnplaced) at the end of
  // the pass, on the state the job then waits in.
  kResources = 100,
};
inline constexpr size_t kWaitCauses = static_cast<size_t>(WaitCause::kCount);
// "capacity", "gpu-model", "fragmentation", "co-resource", "placement",
// "mig-layout", "reservation", "queue-order", "recorded-start", "preemption",
// "power-on", "power-budget", "nodes-down".
const char* WaitCauseName(WaitCause c);
// The inverse of WaitCauseName; false for an unknown name.
bool ParseWaitCause(const std::string& name, WaitCause* out);

inline constexpr JobIndex kNoBlocker = std::numeric_limits<JobIndex>::max();

// Why a job that a placement could not place waits, judged on cluster state
// c (precedence as listed in WaitCause): capacity before GPU model before
// fragmentation before co-resource, all on the resources alone; then, with a
// power budget set (ClusterState::SetPowerBudget), kPowerBudget when no node
// the resources allow has the budget's room for a task (or the whole job's
// power exceeds the cluster's headroom); when every count says it fits,
// `if_fits` (kPlacement for an ordinary pass, kReservation where the
// scheduler held it back for reservations; a job with a MIG profile gets
// kMigLayout instead of kPlacement). Cost: O(GPU models x GPUs per node),
// plus one indexed search for a single-task job, or a scan of the nodes with
// enough free GPUs for a gang that passes the GPU counts.
// Fractional gangs are judged by one task (a stated approximation).
WaitCause ClassifyUnplaced(const Job& job, ModelMask mask, const ClusterState& c,
                           WaitCause if_fits);

// How many nodes fail one task of a job on which constraint, first failing
// check counted (model, then GPUs: count, share or GPU memory, then CPU,
// then memory, then the power budget); `fits` can host a task now;
// `unavailable` are cordoned (drained, powered off). A node counted once.
struct NodeCounts {
  int32_t model = 0, gpus = 0, cpu = 0, mem = 0, fits = 0, unavailable = 0, power = 0;
  bool known = false;  // computed (SimConfig::wait_detail)
};
NodeCounts CountNodes(const Job& job, ModelMask mask, const ClusterState& c);

// One interval of a job's wait with its cause (JobRecord::waits).
struct WaitInterval {
  Micros from{0}, to{0};
  WaitCause cause = WaitCause::kQueueOrder;
  JobIndex blocker = kNoBlocker;  // the reservation's or blocking job, when known
  NodeCounts nodes;               // at the interval's start, with SimConfig::wait_detail
  // When the scheduler then expected to start the job (its first estimate in
  // the interval: a backfill reservation), kNever when it gave none.
  Micros estimate = kNever;
};

}  // namespace utilsim
