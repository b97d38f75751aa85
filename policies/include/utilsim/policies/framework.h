// The placement framework (Kubernetes scheduler framework shape): filter
// plugins say which nodes can host a task, score plugins rank the survivors
// with integer scores, and the reserve step claims the task's resources so the
// next task of a gang sees them (PlaceTasks). Node choice = highest weighted
// score sum; ties go to the lowest node index.
//
// This path scans every node per task; the built-in first/best/worst-fit
// policies use indices instead and are tested to choose the same nodes as
// their framework profiles.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "utilsim/engine/cluster_state.h"
#include "utilsim/policies/placement_policy.h"

namespace utilsim {

class FilterPlugin {
 public:
  virtual ~FilterPlugin() = default;
  virtual std::string name() const = 0;
  virtual bool Pass(NodeIndex n, const TaskDemand& d, ModelMask mask,
                    const ClusterState& c) const = 0;
};

class ScorePlugin {
 public:
  virtual ~ScorePlugin() = default;
  virtual std::string name() const = 0;
  // Called once per task before Score is asked about any node: the job's
  // tasks placed so far (reserved on c) and how many remain after this one.
  // Gang-aware plugins cache what they need here. Default: nothing.
  virtual void Prepare(const Placement& /*placed*/, int32_t /*tasks_after*/,
                       const TaskDemand& /*d*/, const ClusterState& /*c*/) {}
  // True when Prepare does something (the framework then places task by
  // task through it).
  virtual bool gang_aware() const { return false; }
  // Score of placing one task of d on n (which passed every filter). Integer;
  // each plugin documents its range.
  virtual int64_t Score(NodeIndex n, const TaskDemand& d, const ClusterState& c) const = 0;
};

// Built-in plugins by name; nullptr for an unknown name.
//  filters: "resources-fit" (GPUs, CPU, memory, GPU memory), "gpu-model"
//  scores:  "gpu-least-leftover"  max_gpus_per_node - whole-free GPUs left (best fit)
//           "gpu-most-leftover"   whole-free GPUs left (spread)
//           "cpu-least-leftover"  1000 - 1000 x free CPU left / node CPU
//           "cpu-most-leftover"   1000 x free CPU left / node CPU
//           "share-tightest"      1000 - smallest fitting free share (fractional)
//           "gang-locality"       0..100: keeps a gang's tasks close in the
//                                 topology (MakeGangLocality)
std::unique_ptr<FilterPlugin> MakeFilterPlugin(const std::string& name);
std::unique_ptr<ScorePlugin> MakeScorePlugin(const std::string& name);
// Gang locality (issue 4): for the first task of a gang, 100 on a node that
// can host every task of it, 75 on one whose rack can, else 0; for later
// tasks, 100 - 25 x (topology distance to the nearest node already holding a
// task of the gang: 0 same node, 1 same rack, 2 racks under one switch, ...),
// floored at 0. A single-task job scores 100 everywhere (no effect). "Can
// host" counts whole tasks by free whole GPUs, CPU and memory.
std::unique_ptr<ScorePlugin> MakeGangLocality();
// The built-in "topology-aware" placement: single-task jobs by best fit
// (MakeBestFit: locality is flat for them); gangs by the framework profile
// filters resources-fit, gpu-model; scores gang-locality (weight 1) +
// gpu-least-leftover (weight 1). Locality moves in steps of 25, best fit by
// at most max_gpus_per_node, so locality decides and best fit breaks its
// ties (on nodes of up to 24 GPUs). Gangs cost a scan of every node a task.
std::unique_ptr<PlacementPolicy> MakeTopologyAware();
std::vector<std::string> FilterPluginNames();
std::vector<std::string> ScorePluginNames();

struct WeightedScore {
  std::unique_ptr<ScorePlugin> plugin;
  int64_t weight = 1;  // 1..100
};

class FrameworkPlacement final : public PlacementPolicy {
 public:
  FrameworkPlacement(std::string name, std::string version,
                     std::vector<std::unique_ptr<FilterPlugin>> filters,
                     std::vector<WeightedScore> scores);
  PolicyId id() const override { return {name_, version_}; }
  std::optional<Placement> Place(const Job& job, ModelMask mask, ClusterState& c) override;

 private:
  int64_t Choose(const TaskDemand& d, ModelMask mask, const ClusterState& c) const;
  bool gang_aware_ = false;  // some plugin needs Prepare
  bool indexed_ = false;     // the filters are CanHost's: candidates through FindFirst
  std::string name_, version_;
  std::vector<std::unique_ptr<FilterPlugin>> filters_;
  std::vector<WeightedScore> scores_;
};

}  // namespace utilsim
