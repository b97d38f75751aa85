// A progress-model decorator that scales an inner model's progress by a
// per-job factor f in (0, 1] (the shared mechanism of SharedGpuProgress and
// MigProgress):
//   rate = inner rate x f,   idle shares = inner shares x f
// and, when a gap cause is given, the extra wall time 1 - f attributed to it
// (otherwise the extra time counts as busy). f = 1 returns the inner
// progress unchanged (identity). BusyFraction is the inner model's.
// Thread-safety: const after construction; subclasses must keep Factor
// const and safe for concurrent calls.
#pragma once

#include <optional>
#include <vector>

#include "utilsim/engine/progress.h"

namespace utilsim {

class ScaledProgress : public ProgressModel {
 public:
  Progress Evaluate(JobIndex j, const RunView& v) const override;
  // The inner batch, then each job's factor.
  void EvaluateMany(const std::vector<JobIndex>& jobs, const RunView& v,
                    std::vector<Progress>* out) const override;
  double BusyFraction(const Job& job, const Workload& w, Micros done, double rate,
                      double speed) const override {
    return inner_->BusyFraction(job, w, done, rate, speed);
  }

 protected:
  // inner: not owned, must outlive this.
  ScaledProgress(const ProgressModel* inner, std::optional<IdleCause> gap_cause)
      : inner_(inner), gap_cause_(gap_cause) {}
  // f for running job j, in (0, 1].
  virtual double Factor(JobIndex j, const RunView& v) const = 0;

  const ProgressModel* inner_;

 private:
  Progress Apply(const Progress& inner, double f) const;
  std::optional<IdleCause> gap_cause_;
};

}  // namespace utilsim
