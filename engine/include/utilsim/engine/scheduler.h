// The interface between the engine and a scheduling policy. The engine owns
// time, events and resources; a Scheduler owns its queue and decides, in each
// scheduling pass, which queued jobs start where.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "utilsim/engine/cluster_state.h"
#include "utilsim/engine/job.h"
#include "utilsim/engine/placement.h"
#include "utilsim/engine/status.h"
#include "utilsim/engine/time.h"
#include "utilsim/engine/wait.h"

namespace utilsim {

struct PolicyId {
  std::string name;
  std::string version;
  // Every parameter with its effective value, in the policy's declared order
  // ("thresholds=3600/36000"); "" for a policy without parameters.
  std::string params = {};
};

// What a scheduler may see and do during one pass.
class PassContext {
 public:
  virtual ~PassContext() = default;
  virtual Micros now() const = 0;
  virtual const Workload& workload() const = 0;
  // The live cluster. A policy may Allocate/Release tentatively while it
  // searches (e.g. to place a gang task by task) but must leave the state as
  // it found it before calling Start or returning.
  virtual ClusterState& cluster() = 0;
  // Allowed-model mask of job j, resolved once per run.
  virtual ModelMask mask(JobIndex j) const = 0;
  // Starts queued job j now on p (one entry per task). The engine checks p
  // against the cluster; a placement that over-commits anything or has the
  // wrong shape is an error that stops the run naming the policy. The
  // scheduler must already have removed j from its queue or do so now.
  virtual Status Start(JobIndex j, const Placement& p) = 0;
  // Start with a per-task demand other than the job's request (co-resource
  // allocation policies: more or fewer CPU cores and memory; the GPUs must be
  // the job's). The progress model scales the job's CPU-bound input time by
  // requested / granted CPU. Start(j, p) = StartWith(j, p, job.task).
  virtual Status StartWith(JobIndex j, const Placement& p, const TaskDemand& granted) = 0;
  // The per-task demand running job j holds (its request unless started
  // with another); what a scheduler must Release when it simulates j's end.
  virtual const TaskDemand& granted(JobIndex j) const = 0;

  // Running jobs, in no particular order (for reservations and backfilling).
  virtual const std::vector<JobIndex>& running() const = 0;
  // When running job j started, and where. Precondition: j is running.
  virtual Micros started_at(JobIndex j) const = 0;
  virtual const Placement& placement_of(JobIndex j) const = 0;
  // Recorded seconds of work job j has done (its progress); 0 for a job not
  // in the system (not arrived yet, or its record final: rejected, ended).
  virtual double work_done_s(JobIndex j) const = 0;

  // Stops running job j now and frees its resources; the job keeps its
  // progress minus the configured restart cost (SimConfig::restart_cost) and
  // is queued again: the scheduler must put it back in its own queue. Error
  // if j is not running.
  virtual Status Preempt(JobIndex j) = 0;

  // Wait attribution (wait.h, docs/explain.md): queued job j was examined in
  // this pass and did not start, because of `cause` (WaitCause::kResources:
  // it did not fit, the engine classifies on the state at the end of the
  // pass, with `if_fits` when every count says it fits); `blocker` is the job
  // whose reservation held it back, when there is one; `estimate` is when
  // the scheduler expects to start it (a backfill reservation's time), kNever
  // when it has no such estimate. A job not reported in a pass waits on the
  // queue ahead of it (Scheduler::unexamined_cause). The last report of a job
  // in a pass counts. Optional: the default ignores it.
  virtual void Waiting(JobIndex /*j*/, WaitCause /*cause*/,
                       WaitCause /*if_fits*/ = WaitCause::kPlacement,
                       JobIndex /*blocker*/ = kNoBlocker, Micros /*estimate*/ = kNever) {}
};

class Scheduler {
 public:
  virtual ~Scheduler() = default;

  virtual std::string label() const = 0;  // e.g. "best-fit"
  virtual PolicyId queue_policy() const = 0;
  virtual PolicyId placement_policy() const = 0;

  // Called once before the run with the empty cluster and all jobs.
  virtual Status Init(const ClusterState& cluster, const Workload& w) = 0;
  // Job j arrived and can run on this cluster; it is now queued.
  virtual void OnArrival(JobIndex j, Micros now) = 0;
  // Job j finished and released its resources.
  virtual void OnFinish(JobIndex j, Micros now) = 0;
  // Running job j was stopped by the cluster (a node it ran on went down,
  // cluster_events.h), released its resources and is queued again; the
  // scheduler must queue it. Default: OnFinish then OnArrival.
  virtual void OnKilled(JobIndex j, Micros now) {
    OnFinish(j, now);
    OnArrival(j, now);
  }
  // One scheduling pass at ctx.now(). Returns a non-OK status only when a
  // Start failed (the engine then stops the run).
  virtual Status Pass(PassContext& ctx) = 0;
  // Earliest future time (> now) at which a pass could start something even
  // though no job arrives or finishes (e.g. a recorded start time), or kNever.
  virtual Micros NextWakeup(Micros now) const = 0;
  // Jobs currently queued.
  virtual size_t queued() const = 0;
  // The cause of a queued job's wait while a pass does not examine it
  // (wait.h): kQueueOrder; as-recorded queues, kRecordedStart.
  virtual WaitCause unexamined_cause() const { return WaitCause::kQueueOrder; }
};

}  // namespace utilsim
