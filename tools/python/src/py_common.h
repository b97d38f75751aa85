// Private to the Python module: what its source files share. The binding is
// a thin layer over the libraries (docs/embedding.md, "Python"): it converts
// Python values to the libraries' types and back, and runs the Python
// policies inside the engine.
#pragma once

#include <pybind11/pybind11.h>

#include <atomic>
#include <exception>
#include <memory>
#include <mutex>
#include <string>

#include "utilsim/engine/job.h"
#include "utilsim/engine/status.h"
#include "utilsim/policies/registry.h"

namespace utilsim::python {

namespace py = pybind11;

// Raises the status's message as utilsim.UtilsimError (a RuntimeError) or,
// by its code, a subclass: InvalidArgumentError (also a ValueError),
// NotFoundError (also a LookupError), IoError (also an OSError).
[[noreturn]] void ThrowStatus(const Status& s);
// The module's base exception type; the types are made by BindErrors.
py::object& UtilsimErrorType();
void BindErrors(py::module_& m);

// The errors Python code raised while the engine called it (a policy's
// callback cannot throw through the engine). The first is kept; the run is
// stopped at its next event (RunObserver) and the binding raises it when the
// run has ended. One per simulation, made current for the thread that runs
// it (Scope); the callbacks find it with Current().
class PyErrors {
 public:
  void Record(std::exception_ptr e);
  bool failed() const { return failed_.load(std::memory_order_relaxed); }
  // Re-raises the recorded error, if any (the GIL must be held).
  void RaiseIfFailed();

  // The current thread's; a fallback that keeps errors nobody raises when
  // no Scope is active (not reached by the module's own entry points).
  static PyErrors& Current();
  class Scope {
   public:
    explicit Scope(PyErrors* e);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    PyErrors* prev_;
  };

 private:
  std::mutex mu_;
  std::exception_ptr first_;
  std::atomic<bool> failed_{false};
};

// A Python object held by C++ code that may be copied or destroyed without
// the GIL (policy factories live in registry copies used by worker
// threads): the last reference takes the GIL to drop it.
using PyHandle = std::shared_ptr<py::object>;
PyHandle Hold(py::object o);

// The registry utilsim.run uses: the built-in policies plus those registered
// from Python (py_policies.cc). Copy it for a run (GIL held).
PolicyRegistry RegistrySnapshot();
void BindPolicies(py::module_& m);

// A job as the dict Python policies receive (keys documented in
// docs/embedding.md, "Python"); `index` -1 when unknown.
py::dict JobDict(const Job& job, int64_t index, const Workload* w);
// A job from such a dict (utilsim.Placer); unknown keys are a ValueError.
Job JobFromDict(const py::dict& d);

void BindClusterView(py::module_& m);
void BindResults(py::module_& m);
void BindRun(py::module_& m);
void BindPlacer(py::module_& m);

}  // namespace utilsim::python
