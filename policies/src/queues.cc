#include <set>
#include <utility>

#include "utilsim/policies/queue_policy.h"

namespace utilsim {
namespace {

// Jobs ordered by a key fixed at Add time, ties by job index (input order).
class KeyedQueue : public QueuePolicy {
 public:
  void Remove(JobIndex j) override { q_.erase({key_[j], j}); }
  size_t size() const override { return q_.size(); }
  void Init(const Workload& w) override {
    QueuePolicy::Init(w);
    key_.assign(w.jobs.size(), Micros(0));
  }

 protected:
  void Insert(JobIndex j, Micros key) {
    key_[j] = key;
    q_.insert({key, j});
  }
  std::set<std::pair<Micros, JobIndex>> q_;
  std::vector<Micros> key_;
};

class FifoQueue final : public KeyedQueue {
 public:
  explicit FifoQueue(bool block) : block_(block) {}
  PolicyId id() const override { return {block_ ? "fifo" : "fifo-skip", "1"}; }
  bool blocking() const override { return block_; }
  void Add(JobIndex j, Micros /*now*/) override { Insert(j, w_->jobs[j].submit); }
  void Visit(Micros /*now*/, const std::function<bool(JobIndex)>& visit) override {
    for (const auto& [key, j] : q_)
      if (!visit(j)) return;
  }

 private:
  bool block_;
};

class AsRecordedQueue final : public KeyedQueue {
 public:
  PolicyId id() const override { return {"as-recorded", "1"}; }
  bool blocking() const override { return false; }
  WaitCause unexamined_cause() const override { return WaitCause::kRecordedStart; }
  void Add(JobIndex j, Micros /*now*/) override {
    const Job& job = w_->jobs[j];
    Insert(j, job.recorded_start ? *job.recorded_start : kNever);
  }
  void Visit(Micros now, const std::function<bool(JobIndex)>& visit) override {
    for (const auto& [key, j] : q_) {
      if (key > now) return;
      if (!visit(j)) return;
    }
  }
  Micros NextWakeup(Micros now) const override {
    auto it = q_.upper_bound({now, UINT32_MAX});
    return it == q_.end() ? kNever : it->first;
  }
};

}  // namespace

std::unique_ptr<QueuePolicy> MakeFifoQueue() { return std::make_unique<FifoQueue>(true); }
std::unique_ptr<QueuePolicy> MakeFifoSkipQueue() { return std::make_unique<FifoQueue>(false); }
std::unique_ptr<QueuePolicy> MakeAsRecordedQueue() { return std::make_unique<AsRecordedQueue>(); }

}  // namespace utilsim
