// Policies written in Python, run inside the engine: a placement
// (place(job, cluster) or choose_node(job, cluster)) and a queue order
// (key(job, now_s)). Each callback takes the GIL, so Python policies on
// parallel runs take turns; an exception they raise is recorded (PyErrors)
// and ends the run, never crosses the engine.
#include <pybind11/stl.h>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "py_common.h"
#include "py_view.h"
#include "utilsim/policies/placement_policy.h"
#include "utilsim/policies/queue_policy.h"

namespace utilsim::python {
namespace {

// What register_placement / register_queue recorded.
struct PyPolicyDef {
  std::string name, version;
  PyHandle policy;        // an object, or a class instantiated once per run
  bool per_run = false;   // policy is a class
  bool blocking = false;  // queues
};

// The policy object of one run (one scheduler), or an empty handle when
// making it failed (the error is recorded).
PyHandle Instantiate(const PyPolicyDef& def) {
  py::gil_scoped_acquire gil;
  if (!def.per_run) return def.policy;
  try {
    return Hold((*def.policy)());
  } catch (py::error_already_set&) {
    PyErrors::Current().Record(std::current_exception());
    return nullptr;
  }
}

// Adds where the error came from to a Python exception (a note, shown under
// its traceback; Python >= 3.11) and records it.
void RecordCallbackError(py::error_already_set& e, const std::string& what) {
  try {
    if (py::hasattr(e.value(), "add_note")) e.value().attr("add_note")(what);
  } catch (py::error_already_set&) {
  }
  PyErrors::Current().Record(std::current_exception());
}

class PyPlacement final : public PlacementPolicy {
 public:
  PyPlacement(std::shared_ptr<const PyPolicyDef> def, PyHandle obj)
      : def_(std::move(def)), obj_(std::move(obj)) {}
  ~PyPlacement() override {
    if (!view_obj_) return;  // no Python object made
    py::gil_scoped_acquire gil;
    cache_.clear();
    view_obj_ = place_ = choose_ = py::object();
  }

  PolicyId id() const override { return {def_->name, def_->version}; }
  void Init(const Workload& w) override { w_ = &w; }

  std::optional<Placement> Place(const Job& job, ModelMask mask, ClusterState& c) override {
    PyErrors& errors = PyErrors::Current();
    if (!obj_ || errors.failed()) return std::nullopt;
    py::gil_scoped_acquire gil;
    if (!view_obj_ && !Prepare()) return std::nullopt;
    auto where = [&] {
      return "in Python placement '" + def_->name + "', placing job '" + job.name + "'";
    };
    py::object job_obj = JobObject(job);
    std::optional<Placement> out;
    view_->Bind(&c, &job.task, mask);
    try {
      if (place_) {
        py::object r = place_(job_obj, view_obj_);
        if (!r.is_none()) out = ToPlacement(r, job, mask, c);
      } else {
        out = PlaceTasks(job, mask, c, [&](const TaskDemand& d, ModelMask m, const ClusterState&) {
          return Choose(job_obj, d, m, where);
        });
      }
    } catch (py::error_already_set& e) {
      RecordCallbackError(e, where());
      out.reset();
    } catch (const std::exception& e) {  // ValueError from ToPlacement, a cast error
      errors.Record(std::make_exception_ptr(py::value_error(where() + ": " + e.what())));
      out.reset();
    }
    view_->Unbind();
    return out;
  }

 private:
  // Finds the callbacks (GIL held).
  bool Prepare() {
    if (py::hasattr(*obj_, "place")) {
      place_ = obj_->attr("place");
    } else if (py::hasattr(*obj_, "choose_node")) {
      choose_ = obj_->attr("choose_node");
    } else {
      PyErrors::Current().Record(std::make_exception_ptr(py::type_error(
          "Python placement '" + def_->name +
          "': the policy has neither place(job, cluster) nor choose_node(job, cluster)")));
      return false;
    }
    view_obj_ = py::cast(ClusterView(), py::return_value_policy::move);
    view_ = view_obj_.cast<ClusterView*>();
    return true;
  }

  // The job's dict, made once per job of the run's workload (copies the
  // engine makes, such as a granted demand, get a fresh one).
  py::object JobObject(const Job& job) {
    if (w_ && !w_->jobs.empty() && &job >= w_->jobs.data() &&
        &job < w_->jobs.data() + w_->jobs.size()) {
      const size_t i = static_cast<size_t>(&job - w_->jobs.data());
      if (cache_.size() != w_->jobs.size()) cache_.assign(w_->jobs.size(), py::object());
      if (!cache_[i]) cache_[i] = JobDict(job, static_cast<int64_t>(i), w_);
      return cache_[i];
    }
    return JobDict(job, -1, w_);
  }

  // One task's node by choose_node; -1 for none or on an error (recorded:
  // PlaceTasks must get to release what it reserved).
  template <typename Where>
  int64_t Choose(const py::object& job_obj, const TaskDemand& d, ModelMask m, const Where& where) {
    try {
      py::object r = choose_(job_obj, view_obj_);
      if (r.is_none()) return -1;
      const NodeIndex n = view_->NodeArg(r);
      if (!view_->state().CanHost(n, d, m))
        throw py::value_error("choose_node returned node " + view_->state().node(n).name +
                              ", where the task does not fit");
      return n;
    } catch (py::error_already_set& e) {
      RecordCallbackError(e, where());
    } catch (const std::exception& e) {
      PyErrors::Current().Record(
          std::make_exception_ptr(py::value_error(where() + ": " + e.what())));
    }
    return -1;
  }

  // place()'s answer: one entry per task, (node, [gpu, ...]) or a node alone
  // (the GPUs the built-in placements would take). Checked by claiming it
  // task by task on the state, then released: a placement that does not fit
  // is a ValueError here rather than an engine error.
  static Placement ToPlacement(const py::object& r, const Job& job, ModelMask mask,
                               ClusterState& c) {
    if (!py::isinstance<py::sequence>(r) || py::isinstance<py::str>(r))
      throw py::value_error("place() must return None or a list of (node, gpus), one per task");
    const py::sequence seq = r;
    if (static_cast<int64_t>(seq.size()) != job.tasks)
      throw py::value_error("place() returned " + std::to_string(seq.size()) +
                            " entries for a job of " + std::to_string(job.tasks) + " tasks");
    Placement p;
    ClusterView v;
    v.Bind(&c, &job.task, mask);
    Status st;
    for (const auto& e : seq) {
      TaskPlacement t;
      const bool pair = py::isinstance<py::sequence>(e) && !py::isinstance<py::str>(e);
      const py::object node =
          pair ? py::object(e[py::int_(0)]) : py::reinterpret_borrow<py::object>(e);
      t.node = v.NodeArg(node);
      if (!c.ModelAllowed(t.node, mask)) {
        st = Status::Error("node " + c.node(t.node).name +
                           " has a GPU model the job does not allow");
        break;
      }
      if (pair) {
        if (py::len(e) != 2) throw py::value_error("a task's entry must be (node, gpus)");
        for (const auto& g : py::reinterpret_borrow<py::sequence>(e[py::int_(1)])) {
          const int gi = g.cast<int>();
          if (gi < 0 || gi >= c.node(t.node).gpus)
            throw py::value_error("GPU " + std::to_string(gi) + " not on node " +
                                  c.node(t.node).name);
          t.gpu_mask |= uint64_t{1} << gi;
        }
      } else if (c.CanHost(t.node, job.task, mask)) {
        t.gpu_mask = c.PickGpus(t.node, job.task);
      } else {
        st = Status::Error("the task does not fit on node " + c.node(t.node).name);
        break;
      }
      if (st = c.Allocate(t, job.task); !st.ok()) break;
      p.push_back(t);
    }
    for (auto it = p.rbegin(); it != p.rend(); ++it) c.Release(*it, job.task);
    if (!st.ok())
      throw py::value_error("place() returned a placement that does not fit: " + st.message());
    return p;
  }

  std::shared_ptr<const PyPolicyDef> def_;
  PyHandle obj_;
  const Workload* w_ = nullptr;
  py::object place_, choose_, view_obj_;
  ClusterView* view_ = nullptr;  // owned by view_obj_
  std::vector<py::object> cache_;
};

class PyQueue final : public QueuePolicy {
 public:
  PyQueue(std::shared_ptr<const PyPolicyDef> def, PyHandle obj)
      : def_(std::move(def)), obj_(std::move(obj)) {}
  PolicyId id() const override { return {def_->name, def_->version}; }
  bool blocking() const override { return def_->blocking; }

  void Add(JobIndex j, Micros now) override {
    std::vector<double> key;
    if (obj_ && !PyErrors::Current().failed()) key = Key(j, now);
    keys_[j] = order_.insert({std::move(key), j}).first;
  }
  void Remove(JobIndex j) override {
    auto it = keys_.find(j);
    order_.erase(it->second);
    keys_.erase(it);
  }
  void Visit(Micros /*now*/, const std::function<bool(JobIndex)>& visit) override {
    for (const auto& [key, j] : order_)
      if (!visit(j)) return;
  }
  size_t size() const override { return order_.size(); }

 private:
  // key(job, now_s): a number or a tuple of numbers, smallest first; ties
  // in job order (submit time, then input order).
  std::vector<double> Key(JobIndex j, Micros now) {
    py::gil_scoped_acquire gil;
    const Job& job = w_->jobs[j];
    try {
      py::object k = obj_->attr("key")(JobDict(job, j, w_), now.seconds());
      if (py::isinstance<py::tuple>(k) || py::isinstance<py::list>(k))
        return k.cast<std::vector<double>>();
      return {k.cast<double>()};
    } catch (py::error_already_set& e) {
      RecordCallbackError(e, "in Python queue '" + def_->name + "', key of job '" + job.name + "'");
    } catch (const std::exception& e) {
      PyErrors::Current().Record(std::make_exception_ptr(py::value_error(
          "Python queue '" + def_->name + "': key() must return a number or a tuple of numbers (" +
          e.what() + ")")));
    }
    return {};
  }

  std::shared_ptr<const PyPolicyDef> def_;
  PyHandle obj_;
  std::set<std::pair<std::vector<double>, JobIndex>> order_;
  std::map<JobIndex, std::set<std::pair<std::vector<double>, JobIndex>>::iterator> keys_;
};

// The module's registry and the names registered from Python (which may be
// registered again: a notebook cell run twice). Guarded by the GIL.
PolicyRegistry& Registry() {
  static auto* reg = new PolicyRegistry(BuiltinPolicies());  // leaked: see Hold
  return *reg;
}
std::set<std::string>& PythonNames() {
  static auto* names = new std::set<std::string>();
  return *names;
}

std::shared_ptr<const PyPolicyDef> Define(const std::string& name, py::object policy,
                                          const std::string& version, bool queue, bool blocking) {
  if (name.empty() || name.find_first_of("+,: ") != std::string::npos)
    throw py::value_error(
        "name: expected a non-empty policy name without '+', ',', ':' or spaces, "
        "got '" +
        name + "'");
  if (Registry().Has(name) && !PythonNames().count(name))
    throw py::value_error("name: '" + name + "' is a built-in policy; choose another name");
  auto def = std::make_shared<PyPolicyDef>();
  def->name = name;
  def->version = version;
  def->per_run = py::isinstance<py::type>(policy);
  def->blocking = blocking;
  if (queue ? !py::hasattr(policy, "key")
            : !py::hasattr(policy, "place") && !py::hasattr(policy, "choose_node"))
    throw py::type_error(
        std::string("policy: expected an object (or class) with ") +
        (queue ? "key(job, now_s)" : "place(job, cluster) or choose_node(job, cluster)"));
  def->policy = Hold(std::move(policy));
  return def;
}

void Check(const Status& s) {
  if (!s.ok()) throw py::value_error(s.message());
}

}  // namespace

PolicyRegistry RegistrySnapshot() { return Registry(); }

void BindPolicies(py::module_& m) {
  m.def(
      "register_placement",
      [](const std::string& name, py::object policy, const std::string& version,
         const std::string& description) {
        auto def = Define(name, std::move(policy), version, false, false);
        Check(Registry().AddPlacement(
            {name, "", "", description.empty() ? "Python placement policy" : description},
            [def] { return std::make_unique<PyPlacement>(def, Instantiate(*def)); },
            PolicyRegistry::OnDuplicate::kReplace));
        PythonNames().insert(name);
      },
      py::arg("name"), py::arg("policy"), py::arg("version") = "1", py::arg("description") = "");
  m.def(
      "register_queue",
      [](const std::string& name, py::object policy, bool blocking, const std::string& version,
         const std::string& description) {
        auto def = Define(name, std::move(policy), version, true, blocking);
        Check(Registry().AddQueue(
            {name, "", "", description.empty() ? "Python queue policy" : description},
            [def] { return std::make_unique<PyQueue>(def, Instantiate(*def)); },
            PolicyRegistry::OnDuplicate::kReplace));
        PythonNames().insert(name);
      },
      py::arg("name"), py::arg("policy"), py::arg("blocking") = false, py::arg("version") = "1",
      py::arg("description") = "");
  m.def(
      "policies",
      [](const std::string& profiles) {
        PolicyRegistry reg = RegistrySnapshot();
        if (!profiles.empty())
          if (Status s = LoadProfiles(profiles, &reg); !s.ok()) ThrowStatus(s);
        PyErrors errors;
        PyErrors::Scope scope(&errors);
        py::list out;
        for (const PolicyInfo& p : reg.List()) {
          py::dict d;
          d["name"] = p.name;
          d["kind"] = p.kind;
          d["version"] = p.version;
          d["description"] = p.description;
          out.append(d);
        }
        // A Python class that cannot be made is listed all the same (its
        // version is the registration's); run() raises its error.
        return out;
      },
      py::arg("profiles") = "");
}

}  // namespace utilsim::python
