// utilsim.Placer: the decision API (utilsim/policies/placer.h) for a
// scheduler written in Python. Jobs are dicts (JobFromDict), placements
// dicts {"placement": "node:gpu,gpu;...", "tasks": [{"node", "node_index",
// "gpus"}]}.
#include <pybind11/stl.h>

#include <memory>
#include <string>

#include "py_common.h"
#include "utilsim/policies/placer.h"
#include "utilsim/traces/canonical.h"

namespace utilsim::python {
namespace {

class PyPlacer {
 public:
  PyPlacer(const std::string& cluster, const std::string& policy, uint64_t seed) {
    // A path, or the YAML itself when it spans lines.
    Result<ClusterSpec> spec = cluster.find('\n') != std::string::npos
                                   ? traces::ParseClusterYaml(cluster, "cluster")
                                   : traces::ReadClusterYaml(cluster);
    if (!spec.ok()) ThrowStatus(spec.status());
    reg_ = std::make_unique<PolicyRegistry>(RegistrySnapshot());
    if (auto r = Guarded([&] { return reg_->MakePlacement(policy, seed); }); !r.ok())
      throw py::value_error("policy: " + r.status().message());
    auto p = Guarded([&] { return Placer::Create(spec.value(), policy, *reg_, seed); });
    if (!p.ok()) ThrowStatus(p.status());
    placer_ = std::move(p).value();
  }

  py::object Place(const py::dict& job) {
    const Job j = JobFromDict(job);
    auto where = Guarded([&] { return placer_->Place(j); });
    return where ? Describe(*where) : py::object(py::none());
  }

  py::list Rank(const py::dict& job, size_t k) {
    const Job j = JobFromDict(job);
    auto all = Guarded([&] { return placer_->Rank(j, k); });
    py::list out;
    for (const auto& p : all) out.append(Describe(p));
    return out;
  }

  void Started(const std::string& id, const py::dict& job, const py::object& placement) {
    const Job j = JobFromDict(job);
    const Placement p = ToPlacement(placement, j);
    if (Status s = placer_->Started(id, j, p); !s.ok()) throw py::value_error(s.message());
  }
  void Finished(const std::string& id) {
    if (Status s = placer_->Finished(id); !s.ok()) throw py::key_error(s.message());
  }
  void Drain(const std::string& node, bool drained) {
    if (Status s = placer_->SetDrained(node, drained); !s.ok()) throw py::key_error(s.message());
  }
  size_t running() const { return placer_->running(); }
  py::list Nodes() const {
    py::list out;
    const ClusterState& c = placer_->state();
    for (NodeIndex n = 0; n < c.num_nodes(); ++n) out.append(c.node(n).name);
    return out;
  }

 private:
  // Runs f with a PyErrors current (the policy may be a Python one) and
  // raises what the policy raised.
  template <typename F>
  auto Guarded(F f) -> decltype(f()) {
    PyErrors errors;
    PyErrors::Scope scope(&errors);
    auto r = f();
    errors.RaiseIfFailed();
    return r;
  }

  py::dict Describe(const Placement& p) const {
    py::list tasks;
    for (const TaskPlacement& t : p) {
      py::dict d;
      d["node"] = placer_->state().node(t.node).name;
      d["node_index"] = t.node;
      py::list gpus;
      for (int g = 0; g < 64; ++g)
        if (t.gpu_mask >> g & 1) gpus.append(g);
      d["gpus"] = gpus;
      tasks.append(d);
    }
    py::dict out;
    out["placement"] = placer_->Describe(p);
    out["tasks"] = tasks;
    return out;
  }

  // A placement dict from place(), or a list of (node, gpus) per task.
  Placement ToPlacement(const py::object& o, const Job& job) const {
    py::object tasks = o;
    if (py::isinstance<py::dict>(o)) tasks = o.cast<py::dict>()["tasks"];
    Placement p;
    for (const auto& t : tasks) {
      py::object node, gpus;
      if (py::isinstance<py::dict>(t)) {
        const py::dict d = py::reinterpret_borrow<py::dict>(t);
        node = d["node"];
        gpus = d["gpus"];
      } else {
        node = t[py::int_(0)];
        gpus = t[py::int_(1)];
      }
      TaskPlacement tp;
      const int64_t n = py::isinstance<py::str>(node)
                            ? placer_->NodeIndexOf(node.cast<std::string>())
                            : node.cast<int64_t>();
      if (n < 0 || n >= static_cast<int64_t>(placer_->state().num_nodes()))
        throw py::value_error("placement: unknown node " + std::string(py::str(node)));
      tp.node = static_cast<NodeIndex>(n);
      for (const auto& g : gpus) {
        const int gi = g.cast<int>();
        if (gi < 0 || gi >= 64) throw py::value_error("placement: bad GPU index");
        tp.gpu_mask |= uint64_t{1} << gi;
      }
      p.push_back(tp);
    }
    if (static_cast<int64_t>(p.size()) != job.tasks)
      throw py::value_error("placement: " + std::to_string(p.size()) + " tasks for a job of " +
                            std::to_string(job.tasks));
    return p;
  }

  std::unique_ptr<PolicyRegistry> reg_;
  std::unique_ptr<Placer> placer_;
};

}  // namespace

void BindPlacer(py::module_& m) {
  py::class_<PyPlacer>(m, "Placer",
                       "Where a placement policy would put a job on a cluster state that you keep "
                       "in step with your real cluster (docs/embedding.md)")
      .def(py::init<const std::string&, const std::string&, uint64_t>(), py::arg("cluster"),
           py::arg("policy") = "best-fit", py::arg("seed") = 1)
      .def("place", &PyPlacer::Place, py::arg("job"),
           "the policy's placement for the job now, or None when it cannot start now")
      .def("rank", &PyPlacer::Rank, py::arg("job"), py::arg("k"),
           "up to k placements in the policy's order of preference")
      .def("started", &PyPlacer::Started, py::arg("id"), py::arg("job"), py::arg("placement"),
           "the job started there (a placement dict or a list of (node, gpus))")
      .def("finished", &PyPlacer::Finished, py::arg("id"))
      .def("drain", &PyPlacer::Drain, py::arg("node"), py::arg("drained") = true)
      .def_property_readonly("running", &PyPlacer::running)
      .def_property_readonly("nodes", &PyPlacer::Nodes);
}

}  // namespace utilsim::python
