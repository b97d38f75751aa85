// The documented AAIC cluster (utilsim/traces/aaic.h).
#include "utilsim/engine/units.h"
#include "utilsim/traces/aaic.h"

namespace utilsim::traces {

ClusterSpec AaicCluster(int32_t nodes) {
  ClusterSpec spec;
  spec.name = "aist-aaic";
  spec.models.push_back({kAaicGpuModel, 0, 1.0});
  NodeGroup g;
  g.name = "aaic";
  g.count = nodes;
  g.gpu_model = kAaicGpuModel;
  g.gpus = kAaicGpusPerNode;
  g.cpu_milli = kAaicCoresPerNode * kMilliPerUnit;
  g.mem_bytes = kAaicNodeMemBytes;
  spec.groups.push_back(g);
  return spec;
}

}  // namespace utilsim::traces
