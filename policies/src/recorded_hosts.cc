#include "utilsim/policies/recorded_hosts.h"

#include <string>
#include <unordered_map>
#include <utility>

namespace utilsim {
namespace {

class RecordedHosts final : public PlacementPolicy {
 public:
  explicit RecordedHosts(std::unique_ptr<PlacementPolicy> fallback)
      : fallback_(std::move(fallback)) {}

  PolicyId id() const override { return {"recorded-hosts", "1"}; }
  void Init(const Workload& w) override { fallback_->Init(w); }
  void BeginPass(PassContext& ctx) override { fallback_->BeginPass(ctx); }
  bool uses_running_jobs() const override { return fallback_->uses_running_jobs(); }
  Micros NextWakeup(Micros now) const override { return fallback_->NextWakeup(now); }

  std::optional<Placement> Place(const Job& job, ModelMask mask, ClusterState& c) override {
    if (auto p = OnRecorded(job, mask, c)) return p;
    return fallback_->Place(job, mask, c);
  }

 private:
  // The recorded placement when every task fits its recorded host now.
  std::optional<Placement> OnRecorded(const Job& job, ModelMask mask, ClusterState& c) {
    if (job.recorded_hosts.size() != static_cast<size_t>(job.tasks)) return std::nullopt;
    IndexFor(c);
    Placement p;
    p.reserve(job.recorded_hosts.size());
    bool ok = true;
    for (const std::string& host : job.recorded_hosts) {
      auto it = index_.find(host);
      if (it == index_.end() || !c.CanHost(it->second, job.task, mask)) {
        ok = false;
        break;
      }
      TaskPlacement tp{it->second, c.PickGpus(it->second, job.task)};
      if (job.tasks > 1 && !c.Allocate(tp, job.task).ok()) {
        ok = false;
        break;
      }
      p.push_back(tp);
    }
    if (job.tasks > 1)  // release the tasks reserved so later ones saw them
      for (auto it = p.rbegin(); it != p.rend(); ++it) c.Release(*it, job.task);
    if (!ok) return std::nullopt;
    return p;
  }

  void IndexFor(const ClusterState& c) {
    if (indexed_ == &c.spec() && indexed_nodes_ == c.num_nodes()) return;
    index_.clear();
    for (NodeIndex n = 0; n < c.num_nodes(); ++n) index_.emplace(c.node(n).name, n);
    indexed_ = &c.spec();
    indexed_nodes_ = c.num_nodes();
  }

  std::unique_ptr<PlacementPolicy> fallback_;
  std::unordered_map<std::string, NodeIndex> index_;
  const ClusterSpec* indexed_ = nullptr;
  size_t indexed_nodes_ = 0;
};

}  // namespace

std::unique_ptr<PlacementPolicy> MakeRecordedHosts(std::unique_ptr<PlacementPolicy> fallback) {
  return std::make_unique<RecordedHosts>(std::move(fallback));
}

}  // namespace utilsim
