// CollectCandidates: ForEachCandidate (packing.h) into a vector.
#include <algorithm>
#include <vector>

#include "utilsim/policies/packing.h"

namespace utilsim {

void CollectCandidates(const ClusterState& c, const TaskDemand& d, ModelMask mask,
                       bool dedup_pristine, std::vector<NodeIndex>* out) {
  out->clear();
  ForEachCandidate(
      c, d, mask, dedup_pristine, /*descending=*/false, [](int, int) { return true; },
      [out](NodeIndex n) {
        out->push_back(n);
        return true;
      });
}

namespace packing_internal {

std::vector<NodeShape> DistinctShapes(const ClusterState& c, size_t limit) {
  std::vector<NodeShape> out;
  for (const NodeGroup& g : c.spec().groups) {
    const NodeShape s{g.gpu_model.empty() ? 0 : g.gpus, g.cpu_milli, g.mem_bytes};
    if (std::find(out.begin(), out.end(), s) != out.end()) continue;
    if (out.size() == limit) return {};
    out.push_back(s);
  }
  return out;
}

}  // namespace packing_internal
}  // namespace utilsim
