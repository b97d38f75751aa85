// Private: the run settings utilsim.run takes as keyword arguments, and the
// one place that turns them into simulations.
#pragma once

#include <pybind11/pybind11.h>

#include <memory>
#include <string>

#include "py_common.h"
#include "utilsim/analysis/run_spec.h"
#include "utilsim/engine/engine.h"
#include "utilsim/io/inputs.h"

namespace utilsim::python {

struct RunOptions {
  RunSpec spec;
};

// The accepted keyword arguments (utilsim.run's **spec), in documentation
// order.
py::list SpecKeys();
// Checks and converts them; a ValueError names the key and the accepted
// values ("comm_fraction: expected a fraction 0..1, got 1.5").
RunOptions ParseRunOptions(const py::dict& spec, uint64_t seed);

// Runs of one workload under one set of options (BuildRun once), one policy
// each; Simulate may be called from several threads at once. Lives no
// longer than the inputs and registry it was made from.
class PreparedRuns {
 public:
  static Result<std::unique_ptr<PreparedRuns>> Build(const RunOptions& opt, const Inputs& in,
                                                     const PolicyRegistry& reg);
  // Errors start with "policy '<name>': ", as RunPolicies's.
  Result<RunResult> Simulate(const std::string& policy, EventObserver observer) const;

 private:
  explicit PreparedRuns(std::unique_ptr<PreparedRun> run) : run_(std::move(run)) {}
  std::unique_ptr<PreparedRun> run_;
};

}  // namespace utilsim::python
