// Queue-order policies: which queued job a scheduling pass tries next.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>

#include "utilsim/engine/job.h"
#include "utilsim/engine/scheduler.h"
#include "utilsim/engine/time.h"

namespace utilsim {

class QueuePolicy {
 public:
  virtual ~QueuePolicy() = default;
  virtual PolicyId id() const = 0;
  // True: a pass stops at the first job that cannot start (strict order, no
  // overtaking). False: later jobs may start past one that cannot.
  virtual bool blocking() const = 0;
  virtual void Init(const Workload& w) { w_ = &w; }
  virtual void Add(JobIndex j, Micros now) = 0;
  // Precondition: j was added and not yet removed.
  virtual void Remove(JobIndex j) = 0;
  // Visits the jobs that may start at `now`, in order, until visit returns
  // false. visit must not Add or Remove.
  virtual void Visit(Micros now, const std::function<bool(JobIndex)>& visit) = 0;
  // Notifications for policies whose order depends on what runs (fair share,
  // attained service): job j started / finished. Default: ignored.
  virtual void OnStart(JobIndex /*j*/, Micros /*now*/) {}
  virtual void OnFinish(JobIndex /*j*/, Micros /*now*/) {}
  // Earliest time > now at which a queued job becomes eligible, or kNever.
  virtual Micros NextWakeup(Micros /*now*/) const { return kNever; }
  virtual size_t size() const = 0;
  // Why a queued job that Visit does not reach waits (wait.h): the queue
  // ahead of it; as-recorded, its recorded start.
  virtual WaitCause unexamined_cause() const { return WaitCause::kQueueOrder; }

 protected:
  const Workload* w_ = nullptr;
};

// First come, first served by submit time (ties: input order), strict: the
// head of the queue blocks everything behind it (no backfill).
std::unique_ptr<QueuePolicy> MakeFifoQueue();
// Same order, but a job that cannot start is skipped and later jobs are tried
// (what kube-scheduler's queue does).
std::unique_ptr<QueuePolicy> MakeFifoSkipQueue();
// Holds each job until its recorded start time, then starts it (identity
// replay). Jobs without a recorded start never start.
std::unique_ptr<QueuePolicy> MakeAsRecordedQueue();

}  // namespace utilsim
