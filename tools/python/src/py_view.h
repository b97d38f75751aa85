// Private: the read-only cluster view a Python placement policy receives.
#pragma once

#include <pybind11/pybind11.h>

#include "utilsim/engine/cluster_state.h"
#include "utilsim/engine/job.h"

namespace utilsim::python {

// A window on the cluster state the engine (or a Placer) asks a policy
// about, valid only during that call: Bind before, Unbind after; a method
// called on an unbound view raises RuntimeError. The state it shows includes
// the tasks of the job placed so far (choose_node on a gang). Not for
// modification: a policy changes nothing but its return value.
class ClusterView {
 public:
  void Bind(const ClusterState* c, const TaskDemand* task, ModelMask mask) {
    c_ = c;
    task_ = task;
    mask_ = mask;
  }
  void Unbind() { c_ = nullptr; }

  const ClusterState& state() const;               // raises when unbound
  NodeIndex Node(int64_t n) const;                 // checked index (IndexError)
  NodeIndex NodeArg(pybind11::handle node) const;  // an index or a node name
  const TaskDemand& task() const { return *task_; }
  ModelMask mask() const { return mask_; }

 private:
  const ClusterState* c_ = nullptr;
  const TaskDemand* task_ = nullptr;
  ModelMask mask_ = kAnyModel;
};

}  // namespace utilsim::python
