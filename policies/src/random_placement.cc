// Seeded uniform random placement: the FGD paper's "random" baseline, and a
// floor for any packing comparison.
#include <cstdint>
#include <vector>

#include "utilsim/engine/rng.h"
#include "utilsim/policies/packing.h"

namespace utilsim {
namespace {

class RandomPlacement final : public PlacementPolicy {
 public:
  explicit RandomPlacement(uint64_t seed) : seed_(seed), rng_(seed, 0, kStream) {}

  PolicyId id() const override { return {"random", "2"}; }

  // Each run starts the stream afresh, so reusing the policy repeats a run.
  void Init(const Workload&) override { rng_ = Rng(seed_, 0, kStream); }

  std::optional<Placement> Place(const Job& job, ModelMask mask, ClusterState& c) override {
    return PlaceTasks(job, mask, c,
                      [this](const TaskDemand& d, ModelMask m, const ClusterState& s) {
                        return Choose(d, m, s);
                      });
  }

 private:
  int64_t Choose(const TaskDemand& d, ModelMask mask, const ClusterState& c) {
    CollectCandidates(c, d, mask, /*dedup_pristine=*/false, &cand_);
    if (cand_.empty()) return -1;  // no draw: the stream advances only on a choice
    return cand_[static_cast<size_t>(rng_.UniformInt(0, static_cast<int64_t>(cand_.size()) - 1))];
  }

  static constexpr const char* kStream = "placement/random";
  uint64_t seed_;
  Rng rng_;
  std::vector<NodeIndex> cand_;
};

}  // namespace

std::unique_ptr<PlacementPolicy> MakeRandomPlacement(uint64_t seed) {
  return std::make_unique<RandomPlacement>(seed);
}

}  // namespace utilsim
