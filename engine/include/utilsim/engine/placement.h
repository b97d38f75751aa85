// Where a job's tasks run: one node and a set of GPUs on it per task.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace utilsim {

using NodeIndex = uint32_t;

struct TaskPlacement {
  NodeIndex node = 0;
  // Bit i set = GPU i of the node is used by this task (nodes have <= 64
  // GPUs). A fractional task has exactly one bit set; a CPU-only task none.
  uint64_t gpu_mask = 0;
  bool operator==(const TaskPlacement&) const = default;
};

// One entry per task, in task order.
using Placement = std::vector<TaskPlacement>;

}  // namespace utilsim
