// The extension module utilsim._utilsim; utilsim/__init__.py is its public
// face (docs/embedding.md, "Python").
#include <pybind11/pybind11.h>

#include "py_common.h"
#include "utilsim/engine/simulator.h"

namespace utilsim::python {

namespace {

// The exception types by StatusCode (kOk unused); leaked on purpose:
// destroyed after the interpreter they belong to.
py::object* ErrorTypes() {
  static auto* types = new py::object[7]();
  return types;
}

py::object NewError(const char* name, const char* doc, py::handle bases) {
  return py::reinterpret_steal<py::object>(
      PyErr_NewExceptionWithDoc(name, doc, bases.ptr(), nullptr));
}

}  // namespace

py::object& UtilsimErrorType() { return ErrorTypes()[static_cast<int>(StatusCode::kRuntime)]; }

void ThrowStatus(const Status& s) {
  const int code = static_cast<int>(s.code());
  const py::object& type =
      code > 0 && code < 7 && ErrorTypes()[code] ? ErrorTypes()[code] : UtilsimErrorType();
  PyErr_SetString(type.ptr(), s.message().c_str());
  throw py::error_already_set();
}

void BindErrors(py::module_& m) {
  py::object base = NewError("utilsim.UtilsimError",
                             "An error reported by utilsim's libraries (a RuntimeError): an input "
                             "that cannot be read, a run that failed, an output that cannot be "
                             "written. Subclasses by kind: InvalidArgumentError, NotFoundError, "
                             "IoError.",
                             PyExc_RuntimeError);
  py::object* t = ErrorTypes();
  for (StatusCode c : {StatusCode::kRuntime, StatusCode::kInvariant, StatusCode::kCancelled})
    t[static_cast<int>(c)] = base;
  t[static_cast<int>(StatusCode::kInvalidArgument)] = NewError(
      "utilsim.InvalidArgumentError", "A bad value, name or file content (also a ValueError).",
      py::make_tuple(base, py::handle(PyExc_ValueError)));
  t[static_cast<int>(StatusCode::kNotFound)] =
      NewError("utilsim.NotFoundError",
               "A file, policy, node or job that does not exist (also a LookupError).",
               py::make_tuple(base, py::handle(PyExc_LookupError)));
  t[static_cast<int>(StatusCode::kIo)] =
      NewError("utilsim.IoError", "Reading or writing a file failed (also an OSError).",
               py::make_tuple(base, py::handle(PyExc_OSError)));
  m.attr("UtilsimError") = base;
  m.attr("InvalidArgumentError") = t[static_cast<int>(StatusCode::kInvalidArgument)];
  m.attr("NotFoundError") = t[static_cast<int>(StatusCode::kNotFound)];
  m.attr("IoError") = t[static_cast<int>(StatusCode::kIo)];
}

void PyErrors::Record(std::exception_ptr e) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!first_) first_ = std::move(e);
  failed_.store(true, std::memory_order_relaxed);
}

void PyErrors::RaiseIfFailed() {
  std::exception_ptr e;
  {
    std::lock_guard<std::mutex> lock(mu_);
    e = first_;
  }
  if (e) std::rethrow_exception(e);
}

namespace {
thread_local PyErrors* current_errors = nullptr;
}  // namespace

PyErrors& PyErrors::Current() {
  if (current_errors) return *current_errors;
  static thread_local PyErrors orphan;
  return orphan;
}

PyErrors::Scope::Scope(PyErrors* e) : prev_(current_errors) { current_errors = e; }
PyErrors::Scope::~Scope() { current_errors = prev_; }

PyHandle Hold(py::object o) {
  return PyHandle(new py::object(std::move(o)), [](py::object* p) {
    // At interpreter exit (a registry destroyed late) the object is leaked:
    // taking the GIL then is not possible.
    if (!Py_IsInitialized() || _Py_IsFinalizing()) {
      p->release();
      delete p;
      return;
    }
    py::gil_scoped_acquire gil;
    delete p;
  });
}

}  // namespace utilsim::python

PYBIND11_MODULE(_utilsim, m) {
  namespace up = utilsim::python;
  namespace py = pybind11;
  m.doc() = "utilsim's compiled core; use the package utilsim (docs/embedding.md, \"Python\")";
  up::BindErrors(m);
  m.attr("version") = utilsim::UtilsimVersion();
  up::BindPolicies(m);
  up::BindClusterView(m);
  up::BindResults(m);
  up::BindRun(m);
  up::BindPlacer(m);
}
