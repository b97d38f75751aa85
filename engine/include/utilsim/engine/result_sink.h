// Streaming results: a caller-supplied receiver of a run's job records and
// samples, given each one as soon as it is final, so that a caller need not
// hold the whole RunResult (SimConfig::sink; with SimConfig::keep_rows =
// false the RunResult keeps only its meta and summary).
//
// Contract:
//  * When. OnJob(r) is called once per job of the workload, when r is final:
//    a rejected job at its arrival, a finished or killed job at the event at
//    which it ended (after it released its resources, before observers see
//    the kFinish / kKill event and before the scheduler's OnFinish), and
//    every other job (running, queued, or not yet submitted at the end) in
//    Engine::Finish(). OnSample(s) is called once per sample, when it is
//    taken (before observers see the kSample event), when the run records
//    samples; OnChangePoint(p) once per change point when it records
//    changes (RunMeta::series), when the point's instant is over (before the
//    first event of a later time is processed, or in Finish()). OnEnd(meta, summary) is
//    called once, last, when Finish() succeeds.
//  * Order. Deterministic: records and samples are delivered in the order
//    of the events that make them final (the engine's event order: time,
//    then phase, then sequence), the jobs left at the end in ascending job
//    index. So the rejected, finished and killed records are in the order
//    of their kReject / kFinish / kKill events, not in job index order;
//    samples and change points are in time order. The same inputs give the
//    same sequence.
//  * Final. A delivered record, sample or point is exactly the one
//    RunResult::jobs[r.job], ::samples or ::changes would hold; it never
//    changes afterwards.
//    The references are valid only during the call: copy what you keep.
//  * Thread. Called on the thread that drives the engine (the caller of
//    Simulate, Step, RunUntil or Finish), never concurrently.
//  * Stops. A run stopped early (RequestStop, a cut-short Finish, the
//    horizon) delivers what was final up to the stop and then, in Finish(),
//    the remaining jobs as unfinished. A run that ends in an error (a
//    scheduler's, a broken invariant) stops delivering; OnEnd is not called,
//    and what was delivered belongs to a run without results.
//  * The sink must not call back into the engine except RunControl's
//    RequestStop() and Now(), and must not throw (an exception is the
//    caller's own, as for observers).
#pragma once

#include "utilsim/engine/metrics.h"

namespace utilsim {

class ResultSink {
 public:
  virtual ~ResultSink() = default;
  // A job's record, final (see above for when).
  virtual void OnJob(const JobRecord& record) = 0;
  // A sample of the cluster, as it was taken (series form "samples").
  virtual void OnSample(const Sample& sample) = 0;
  // A change point (series form "changes", RunResult::changes), when its
  // instant is over: in time order, instead of samples.
  virtual void OnChangePoint(const Sample& point) = 0;
  // The end of a successful run: the meta and summary that Finish() returns.
  virtual void OnEnd(const RunMeta& meta, const Summary& summary) {
    (void)meta;
    (void)summary;
  }
};

}  // namespace utilsim
