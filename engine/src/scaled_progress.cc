#include "utilsim/engine/scaled_progress.h"

namespace utilsim {

Progress ScaledProgress::Apply(const Progress& inner, double f) const {
  if (f == 1.0) return inner;
  Progress out;
  out.rate = inner.rate * f;
  for (size_t c = 0; c < out.idle.size(); ++c) out.idle[c] = inner.idle[c] * f;
  if (gap_cause_) out.idle[static_cast<size_t>(*gap_cause_)] += 1.0 - f;
  return out;
}

Progress ScaledProgress::Evaluate(JobIndex j, const RunView& v) const {
  return Apply(inner_->Evaluate(j, v), Factor(j, v));
}

void ScaledProgress::EvaluateMany(const std::vector<JobIndex>& jobs, const RunView& v,
                                  std::vector<Progress>* out) const {
  inner_->EvaluateMany(jobs, v, out);
  for (size_t i = 0; i < jobs.size(); ++i) (*out)[i] = Apply((*out)[i], Factor(jobs[i], v));
}

}  // namespace utilsim
