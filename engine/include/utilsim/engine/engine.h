// A simulation you can drive: create it, advance it event by event or up to
// a time, stop it, and take its results. Simulate() (simulator.h) is
// Create + RunUntil(kNever) + Finish.
//
// Ownership: the engine keeps references to the workload and the scheduler
// (they must outlive it and the scheduler must not be shared with another
// engine at the same time) and a copy of the SimConfig and of the cluster
// spec. Thread-safety: one thread drives an engine; RequestStop() may be
// called from any thread and from an observer. Several engines may run in
// one process on separate threads. No exception leaves these functions
// (an observer that throws is the caller's own).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "utilsim/engine/cluster_spec.h"
#include "utilsim/engine/job.h"
#include "utilsim/engine/metrics.h"
#include "utilsim/engine/scheduler.h"
#include "utilsim/engine/status.h"
#include "utilsim/engine/time.h"

namespace utilsim {

struct SimConfig;

// What happened, as an observer sees it.
enum class EventKind : uint8_t {
  kArrival,    // a job was submitted and queued
  kReject,     // a job was submitted that the cluster can never run
  kStart,      // a job started (again, after a preemption)
  kFinish,     // a job ended with its work done
  kKill,       // a job ended at its walltime limit with work left
  kPreempt,    // a running job was preempted and queued again
  kPass,       // a scheduling pass (job is 0)
  kSample,     // the cluster was sampled (job is 0)
  kInterrupt,  // a node of a running job went down (cluster events): the job
               // was stopped and queued again
};
// "arrival", "reject", "start", "finish", "kill", "preempt", "pass", "sample",
// "interrupt".
const char* EventKindName(EventKind k);

struct EngineEvent {
  Micros time;
  EventKind kind;
  JobIndex job = 0;
};

// What an observer may do to the run it watches.
class RunControl {
 public:
  virtual ~RunControl() = default;
  // The run stops before its next event: jobs queued or running then are
  // `unfinished`, and the results note "stopped on request at <t> s".
  virtual void RequestStop() = 0;
  // The simulated time of the event being processed.
  virtual Micros Now() const = 0;
};

// Called for every event, on the driving thread, after the event took effect.
using EventObserver = std::function<void(const EngineEvent&, RunControl&)>;

class Engine : public RunControl {
 public:
  // Builds the cluster state, checks the inputs (workload sorted by submit,
  // sample interval > 0, comm fraction 0..1) and initialises the scheduler.
  // The workload must be Finalize()d.
  static Result<std::unique_ptr<Engine>> Create(const ClusterSpec& cluster, const Workload& w,
                                                Scheduler& scheduler, const SimConfig& config);

  // Processes the next event. Returns false, and processes nothing, once the
  // run is over (no event left, the horizon passed, or a stop requested).
  // Errors (a scheduler's, a broken invariant) end the run.
  virtual Result<bool> Step() = 0;
  // Processes every event at or before `t`, then (when the run is not over)
  // moves the clock to t. RunUntil(kNever) runs to the end.
  virtual Status RunUntil(Micros t) = 0;
  // True once Step() would return false.
  virtual bool Done() const = 0;
  // The results so far: call once, when Done() or to cut the run short
  // (then as if stopped on request). Errors: a broken invariant. With a
  // SimConfig::sink it first delivers the records of the jobs not final yet
  // (result_sink.h), then OnEnd.
  virtual Result<RunResult> Finish() = 0;
};

}  // namespace utilsim
