#include "utilsim/engine/cluster_spec.h"

namespace utilsim {

int64_t ClusterSpec::total_gpus() const {
  int64_t n = 0;
  for (const auto& g : groups) n += int64_t{g.count} * g.gpus;
  return n;
}

int64_t ClusterSpec::total_nodes() const {
  int64_t n = 0;
  for (const auto& g : groups) n += g.count;
  return n;
}

int ClusterSpec::FindModel(const std::string& model) const {
  for (size_t i = 0; i < models.size(); ++i)
    if (models[i].name == model) return static_cast<int>(i);
  return -1;
}

}  // namespace utilsim
