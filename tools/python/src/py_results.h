// Private: a run's results as the Python module holds them.
#pragma once

#include <pybind11/pybind11.h>

#include <vector>

#include "py_common.h"
#include "utilsim/engine/metrics.h"

namespace utilsim::python {

// Held by shared_ptr: utilsim.Run objects share it, their DataFrames are
// made from it on first use.
struct RunData {
  RunResult run;
};

py::dict SummaryDict(const Summary& s);                   // keys: the runs table's summary columns
py::dict MetaDict(const RunMeta& m);                      // keys: the runs table's identity columns
py::dict JobColumns(const std::vector<JobRecord>& jobs);  // the jobs table less run_id
py::dict SampleColumns(const std::vector<Sample>& samples);  // the samples table less run_id

}  // namespace utilsim::python
