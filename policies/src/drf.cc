// `drf`: Dominant Resource Fairness across tenants (Ghodsi et al., NSDI'11).
#include <algorithm>
#include <array>
#include <functional>
#include <map>
#include <queue>
#include <set>
#include <utility>
#include <vector>

#include "utilsim/engine/units.h"
#include "utilsim/policies/composed_scheduler.h"
#include "utilsim/policies/queues_extra.h"

namespace utilsim {
namespace {

class DrfQueue final : public QueuePolicy {
 public:
  DrfQueue(int64_t gpu_milli, int64_t cpu_milli, int64_t mem_bytes)
      : total_{gpu_milli, cpu_milli, mem_bytes} {}
  PolicyId id() const override { return {"drf", "1"}; }
  bool blocking() const override { return false; }
  void Init(const Workload& w) override {
    QueuePolicy::Init(w);
    queued_.assign(w.tenants.size(), {});
    used_.assign(w.tenants.size(), {0, 0, 0});
    size_ = 0;
  }
  void Add(JobIndex j, Micros /*now*/) override {
    const Job& job = w_->jobs[j];
    Grow(job.tenant);
    if (queued_[job.tenant].insert({job.submit, j}).second) ++size_;
  }
  void Remove(JobIndex j) override {
    const Job& job = w_->jobs[j];
    size_ -= queued_[job.tenant].erase({job.submit, j});
  }
  void OnStart(JobIndex j, Micros /*now*/) override { Charge(j, 1); }
  void OnFinish(JobIndex j, Micros /*now*/) override { Charge(j, -1); }
  size_t size() const override { return size_; }

  // Tenants by dominant share (ties: tenant index); tenants of equal share
  // have their jobs merged by (submit, index).
  void Visit(Micros /*now*/, const std::function<bool(JobIndex)>& visit) override {
    std::vector<std::pair<double, uint32_t>> order;
    for (uint32_t t = 0; t < queued_.size(); ++t)
      if (!queued_[t].empty()) order.emplace_back(Share(t), t);
    std::sort(order.begin(), order.end());
    using Item = std::pair<Key, uint32_t>;  // (job key, tenant)
    for (size_t i = 0; i < order.size();) {
      size_t e = i;
      while (e < order.size() && order[e].first == order[i].first) ++e;
      if (e == i + 1) {
        for (const Key& k : queued_[order[i].second])
          if (!visit(k.second)) return;
      } else {
        // k-way merge of the group's queues.
        std::priority_queue<Item, std::vector<Item>, std::greater<Item>> heap;
        std::vector<std::set<Key>::const_iterator> it(queued_.size());
        for (size_t g = i; g < e; ++g) {
          const uint32_t t = order[g].second;
          it[t] = queued_[t].begin();
          heap.push({*it[t], t});
        }
        while (!heap.empty()) {
          const auto [k, t] = heap.top();
          heap.pop();
          if (!visit(k.second)) return;
          if (++it[t] != queued_[t].end()) heap.push({*it[t], t});
        }
      }
      i = e;
    }
  }

  // The tenant's dominant share now (for tests and diagnostics).
  double Share(uint32_t t) const {
    double s = 0;
    for (int r = 0; r < 3; ++r)
      if (total_[r] > 0)
        s = std::max(s, static_cast<double>(used_[t][r]) / static_cast<double>(total_[r]));
    return s;
  }

 private:
  using Key = std::pair<Micros, JobIndex>;
  void Grow(uint32_t t) {
    if (t >= queued_.size()) {
      queued_.resize(t + 1);
      used_.resize(t + 1, {0, 0, 0});
    }
  }
  void Charge(JobIndex j, int64_t sign) {
    const Job& job = w_->jobs[j];
    Grow(job.tenant);
    auto& u = used_[job.tenant];
    u[0] += sign * job.tasks * job.task.total_gpu_milli();
    u[1] += sign * job.tasks * job.task.cpu_milli;
    u[2] += sign * job.tasks * job.task.mem_bytes;
  }

  std::array<int64_t, 3> total_;
  std::vector<std::set<Key>> queued_;         // per tenant, by (submit, index)
  std::vector<std::array<int64_t, 3>> used_;  // per tenant: GPU milli, CPU milli, bytes
  size_t size_ = 0;
};

// The drf queue over `placement`, with the totals of the cluster given to Init.
class DrfScheduler final : public Scheduler {
 public:
  DrfScheduler(std::string label, std::unique_ptr<PlacementPolicy> placement)
      : label_(std::move(label)), placement_(std::move(placement)) {}
  std::string label() const override { return label_; }
  PolicyId queue_policy() const override { return {"drf", "1"}; }
  PolicyId placement_policy() const override {
    return inner_ ? inner_->placement_policy() : placement_->id();
  }
  Status Init(const ClusterState& cluster, const Workload& w) override {
    inner_ =
        std::make_unique<ComposedScheduler>(label_,
                                            MakeDrfQueue(cluster.total_gpus() * kMilliPerUnit,
                                                         cluster.total_cpu(), cluster.total_mem()),
                                            std::move(placement_));
    return inner_->Init(cluster, w);
  }
  void OnArrival(JobIndex j, Micros now) override { inner_->OnArrival(j, now); }
  void OnFinish(JobIndex j, Micros now) override { inner_->OnFinish(j, now); }
  Status Pass(PassContext& ctx) override { return inner_->Pass(ctx); }
  Micros NextWakeup(Micros now) const override { return inner_->NextWakeup(now); }
  size_t queued() const override { return inner_ ? inner_->queued() : 0; }
  WaitCause unexamined_cause() const override {
    return inner_ ? inner_->unexamined_cause() : WaitCause::kQueueOrder;
  }

 private:
  std::string label_;
  std::unique_ptr<PlacementPolicy> placement_;
  std::unique_ptr<ComposedScheduler> inner_;
};

}  // namespace

std::unique_ptr<QueuePolicy> MakeDrfQueue(int64_t total_gpu_milli, int64_t total_cpu_milli,
                                          int64_t total_mem_bytes) {
  return std::make_unique<DrfQueue>(total_gpu_milli, total_cpu_milli, total_mem_bytes);
}

std::unique_ptr<Scheduler> MakeDrf(std::string label, std::unique_ptr<PlacementPolicy> placement) {
  return std::make_unique<DrfScheduler>(std::move(label), std::move(placement));
}

}  // namespace utilsim
