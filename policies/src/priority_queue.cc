// `priority`: larger Job::priority first, then submit time, then index.
#include <set>
#include <tuple>

#include "utilsim/policies/queues_extra.h"

namespace utilsim {
namespace {

class PriorityQueue final : public QueuePolicy {
 public:
  PolicyId id() const override { return {"priority", "1"}; }
  bool blocking() const override { return false; }
  void Add(JobIndex j, Micros /*now*/) override { q_.insert(Key(j)); }
  void Remove(JobIndex j) override { q_.erase(Key(j)); }
  void Visit(Micros /*now*/, const std::function<bool(JobIndex)>& visit) override {
    for (const auto& k : q_)
      if (!visit(std::get<2>(k))) return;
  }
  size_t size() const override { return q_.size(); }

 private:
  // (-priority, submit, index); priority widened so INT32_MIN negates safely.
  using Entry = std::tuple<int64_t, Micros, JobIndex>;
  Entry Key(JobIndex j) const {
    const Job& job = w_->jobs[j];
    return {-int64_t{job.priority}, job.submit, j};
  }
  std::set<Entry> q_;
};

}  // namespace

std::unique_ptr<QueuePolicy> MakePriorityQueue() { return std::make_unique<PriorityQueue>(); }

}  // namespace utilsim
