// Jobs as Python dicts, and the cluster view of Python placement policies.
#include "py_view.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cmath>
#include <string>
#include <vector>

#include "py_common.h"

namespace utilsim::python {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;

// The keys of a job dict, in order; Python strings made once (interned).
enum Key : int {
  kIndex,
  kName,
  kSubmit,
  kTenant,
  kTenantName,
  kPriority,
  kTasks,
  kGpus,
  kGpuMilli,
  kCpuMilli,
  kMemBytes,
  kGpuMemBytes,
  kGpuModels,
  kRuntime,
  kUtil,
  kWalltime,
  kRecordedStart,
  kKeyCount
};
constexpr const char* kKeyNames[kKeyCount] = {
    "index",      "name",      "submit_s",  "tenant",     "tenant_name",     "priority",
    "tasks",      "gpus",      "gpu_milli", "cpu_milli",  "mem_bytes",       "gpu_mem_bytes",
    "gpu_models", "runtime_s", "util",      "walltime_s", "recorded_start_s"};

const py::str& KeyStr(Key k) {
  static auto* keys = [] {
    auto* v = new std::vector<py::str>();  // leaked: outlives the interpreter
    for (const char* n : kKeyNames)
      v->push_back(py::reinterpret_steal<py::str>(PyUnicode_InternFromString(n)));
    return v;
  }();
  return (*keys)[k];
}

py::object OptionalSeconds(const std::optional<Micros>& t) {
  return t ? py::object(py::float_(t->seconds())) : py::object(py::none());
}

// Reads an integer or float field that must be a whole number in [lo, hi].
int64_t IntField(const py::handle& v, const char* key, int64_t lo, int64_t hi) {
  double d;
  try {
    d = v.cast<double>();
  } catch (const py::cast_error&) {
    throw py::value_error(std::string(key) + ": expected a number, got " +
                          std::string(py::str(py::repr(v))));
  }
  if (!std::isfinite(d) || d != std::floor(d) || d < static_cast<double>(lo) ||
      d > static_cast<double>(hi))
    throw py::value_error(std::string(key) + ": expected an integer " + std::to_string(lo) + ".." +
                          std::to_string(hi) + ", got " + std::string(py::str(py::repr(v))));
  return static_cast<int64_t>(d);
}

double SecondsField(const py::handle& v, const char* key, double lo) {
  double d;
  try {
    d = v.cast<double>();
  } catch (const py::cast_error&) {
    throw py::value_error(std::string(key) + ": expected seconds, got " +
                          std::string(py::str(py::repr(v))));
  }
  if (!std::isfinite(d) || d < lo)
    throw py::value_error(std::string(key) + ": expected seconds >= " + std::to_string(lo) +
                          ", got " + std::string(py::str(py::repr(v))));
  return d;
}

}  // namespace

py::dict JobDict(const Job& j, int64_t index, const Workload* w) {
  py::dict d;
  d[KeyStr(kIndex)] = index;
  d[KeyStr(kName)] = j.name;
  d[KeyStr(kSubmit)] = j.submit.seconds();
  d[KeyStr(kTenant)] = j.tenant;
  d[KeyStr(kTenantName)] =
      (w && j.tenant < w->tenants.size()) ? py::object(py::str(w->tenants[j.tenant])) : py::none();
  d[KeyStr(kPriority)] = j.priority;
  d[KeyStr(kTasks)] = j.tasks;
  d[KeyStr(kGpus)] = j.task.gpus;
  d[KeyStr(kGpuMilli)] = j.task.gpu_milli;
  d[KeyStr(kCpuMilli)] = j.task.cpu_milli;
  d[KeyStr(kMemBytes)] = j.task.mem_bytes;
  d[KeyStr(kGpuMemBytes)] = j.task.gpu_mem_bytes;
  py::tuple models(j.gpu_models.size());
  for (size_t i = 0; i < j.gpu_models.size(); ++i) models[i] = py::str(j.gpu_models[i]);
  d[KeyStr(kGpuModels)] = models;
  d[KeyStr(kRuntime)] = j.runtime.seconds();
  d[KeyStr(kUtil)] = static_cast<double>(j.util);
  d[KeyStr(kWalltime)] = OptionalSeconds(j.walltime_limit);
  d[KeyStr(kRecordedStart)] = OptionalSeconds(j.recorded_start);
  return d;
}

Job JobFromDict(const py::dict& d) {
  Job j;
  j.task.gpus = 1;  // the canonical trace format's defaults (docs/trace-format.md)
  j.runtime = Seconds(1);
  j.util_known = true;
  for (const auto& [k, v] : d) {
    const std::string key = py::str(k);
    if (key == "name" || key == "id") {
      j.name = py::str(v);
    } else if (key == "tasks") {
      j.tasks = static_cast<int32_t>(IntField(v, "tasks", 1, 1'000'000));
    } else if (key == "gpus") {
      j.task.gpus = static_cast<int32_t>(IntField(v, "gpus", 0, 64));
    } else if (key == "gpu_milli") {
      j.task.gpu_milli = static_cast<int32_t>(IntField(v, "gpu_milli", 1, 1000));
    } else if (key == "cpu_milli") {
      j.task.cpu_milli = IntField(v, "cpu_milli", 0, int64_t{1} << 50);
    } else if (key == "mem_bytes") {
      j.task.mem_bytes = IntField(v, "mem_bytes", 0, int64_t{1} << 60);
    } else if (key == "mem_mib") {
      j.task.mem_bytes = std::llround(SecondsField(v, "mem_mib", 0) * kMiB);
    } else if (key == "gpu_mem_bytes") {
      j.task.gpu_mem_bytes = IntField(v, "gpu_mem_bytes", 0, int64_t{1} << 60);
    } else if (key == "gpu_mem_mib") {
      j.task.gpu_mem_bytes = std::llround(SecondsField(v, "gpu_mem_mib", 0) * kMiB);
    } else if (key == "gpu_models") {
      if (py::isinstance<py::str>(v)) throw py::value_error("gpu_models: expected a list of names");
      for (const auto& m : v) j.gpu_models.push_back(py::str(m));
    } else if (key == "priority") {
      j.priority = static_cast<int32_t>(IntField(v, "priority", INT32_MIN, INT32_MAX));
    } else if (key == "runtime_s") {
      if (auto t = FromSeconds(SecondsField(v, "runtime_s", 0))) j.runtime = *t;
    } else if (key == "submit_s") {
      if (auto t = FromSeconds(SecondsField(v, "submit_s", 0))) j.submit = *t;
    } else if (key == "util") {
      const double u = v.cast<double>();
      if (!(u >= 0 && u <= 1)) throw py::value_error("util: expected a fraction 0..1");
      j.util = static_cast<float>(u);
    } else if (key == "index" || key == "tenant" || key == "tenant_name" || key == "walltime_s" ||
               key == "recorded_start_s") {
      // A policy's job dict passed on as it is: not used by a placement.
    } else {
      throw py::value_error("job: unknown key '" + key +
                            "'; expected name, tasks, gpus, gpu_milli, cpu_milli, mem_bytes "
                            "(or mem_mib), gpu_mem_bytes (or gpu_mem_mib), gpu_models, priority, "
                            "runtime_s, submit_s, util");
    }
  }
  if (j.task.gpu_milli < 1000 && j.task.gpus != 1)
    throw py::value_error("gpu_milli: below 1000 only when gpus is 1");
  return j;
}

const ClusterState& ClusterView::state() const {
  if (!c_)
    throw std::runtime_error(
        "ClusterView: used outside the policy call it was given to (it is valid only during "
        "that call)");
  return *c_;
}

NodeIndex ClusterView::Node(int64_t n) const {
  const ClusterState& c = state();
  if (n < 0 || n >= static_cast<int64_t>(c.num_nodes()))
    throw py::index_error("node index " + std::to_string(n) + " out of range 0.." +
                          std::to_string(static_cast<int64_t>(c.num_nodes()) - 1));
  return static_cast<NodeIndex>(n);
}

NodeIndex ClusterView::NodeArg(py::handle node) const {
  if (py::isinstance<py::str>(node)) {
    const std::string name = py::str(node);
    const ClusterState& c = state();
    for (NodeIndex n = 0; n < c.num_nodes(); ++n)
      if (c.node(n).name == name) return n;
    throw py::key_error("no node named '" + name + "'");
  }
  if (!py::isinstance<py::int_>(node))
    throw py::value_error("node: expected an index or a node name, got " +
                          std::string(py::str(py::repr(node))));
  return Node(node.cast<int64_t>());
}

void BindClusterView(py::module_& m) {
  using V = ClusterView;
  py::class_<V>(m, "ClusterView",
                "Read-only view of the cluster a Python placement policy is asked about, valid "
                "only during that call. Nodes are named by index (0..num_nodes-1) or name.")
      .def_property_readonly("num_nodes", [](const V& v) { return v.state().num_nodes(); })
      .def("__len__", [](const V& v) { return v.state().num_nodes(); })
      .def_property_readonly("total_gpus", [](const V& v) { return v.state().total_gpus(); })
      .def_property_readonly("free_gpus_total",
                             [](const V& v) { return v.state().whole_free_gpus_total(); })
      .def(
          "name", [](const V& v, int64_t n) { return v.state().node(v.Node(n)).name; },
          py::arg("node"))
      .def(
          "index", [](const V& v, py::handle n) { return v.NodeArg(n); }, py::arg("node"))
      .def(
          "gpus", [](const V& v, py::handle n) { return v.state().node(v.NodeArg(n)).gpus; },
          py::arg("node"), "GPUs of the node")
      .def(
          "gpu_model",
          [](const V& v, py::handle n) -> py::object {
            const NodeInfo& i = v.state().node(v.NodeArg(n));
            if (i.model < 0) return py::none();
            return py::str(v.state().spec().models[static_cast<size_t>(i.model)].name);
          },
          py::arg("node"), "GPU model name, None for a CPU-only node")
      .def(
          "cpu_milli",
          [](const V& v, py::handle n) { return v.state().node(v.NodeArg(n)).cpu_milli; },
          py::arg("node"))
      .def(
          "mem_bytes",
          [](const V& v, py::handle n) { return v.state().node(v.NodeArg(n)).mem_bytes; },
          py::arg("node"))
      .def(
          "free_gpus",
          [](const V& v, py::handle n) { return v.state().free_whole_gpus(v.NodeArg(n)); },
          py::arg("node"), "whole-free GPUs of the node now")
      .def(
          "free_cpu_milli",
          [](const V& v, py::handle n) { return v.state().free_cpu(v.NodeArg(n)); },
          py::arg("node"))
      .def(
          "free_mem_bytes",
          [](const V& v, py::handle n) { return v.state().free_mem(v.NodeArg(n)); },
          py::arg("node"))
      .def(
          "gpu_free_milli",
          [](const V& v, py::handle n) {
            const NodeIndex i = v.NodeArg(n);
            std::vector<int32_t> out;
            for (int g = 0; g < v.state().node(i).gpus; ++g)
              out.push_back(v.state().gpu_free_milli(i, g));
            return out;
          },
          py::arg("node"), "free share of each GPU of the node, milli-GPU")
      .def(
          "fits",
          [](const V& v, py::handle n) {
            return v.state().CanHost(v.NodeArg(n), v.task(), v.mask());
          },
          py::arg("node"), "whether one task of the job being placed fits on the node now")
      .def(
          "fitting_nodes",
          [](const V& v) {
            const ClusterState& c = v.state();
            std::vector<NodeIndex> out;
            for (NodeIndex n = 0; n < c.num_nodes(); ++n)
              if (c.CanHost(n, v.task(), v.mask())) out.push_back(n);
            return out;
          },
          "indices of the nodes where one task of the job fits now, ascending")
      .def(
          "pick_gpus",
          [](const V& v, py::handle n) {
            const NodeIndex i = v.NodeArg(n);
            if (!v.state().CanHost(i, v.task(), v.mask()))
              throw py::value_error("pick_gpus: the task does not fit on node " +
                                    v.state().node(i).name);
            std::vector<int> out;
            const uint64_t mask = v.state().PickGpus(i, v.task());
            for (int g = 0; g < 64; ++g)
              if (mask >> g & 1) out.push_back(g);
            return out;
          },
          py::arg("node"), "the GPUs the built-in placements would take for the task there")
      .def(
          "free_gpus_all",
          [](const V& v) {
            const ClusterState& c = v.state();
            py::array_t<int32_t> a(static_cast<py::ssize_t>(c.num_nodes()));
            auto w = a.mutable_unchecked<1>();
            for (NodeIndex n = 0; n < c.num_nodes(); ++n) w(n) = c.free_whole_gpus(n);
            return a;
          },
          "whole-free GPUs of every node (numpy int32 array)");
}

}  // namespace utilsim::python
