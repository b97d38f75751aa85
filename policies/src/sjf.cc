// Shortest job first (`sjf`, `sjf-oracle`): queued jobs by estimated length.
#include <set>
#include <tuple>

#include "utilsim/policies/backfill.h"
#include "utilsim/policies/queues_extra.h"

namespace utilsim {
namespace {

class SjfQueue final : public QueuePolicy {
 public:
  explicit SjfQueue(bool oracle) : oracle_(oracle) {}
  PolicyId id() const override { return {oracle_ ? "sjf-oracle" : "sjf", "1"}; }
  bool blocking() const override { return false; }
  void Init(const Workload& w) override { QueuePolicy::Init(w); }
  void Add(JobIndex j, Micros /*now*/) override { q_.insert(Key(j)); }
  void Remove(JobIndex j) override { q_.erase(Key(j)); }
  void Visit(Micros /*now*/, const std::function<bool(JobIndex)>& visit) override {
    for (const auto& k : q_)
      if (!visit(std::get<2>(k))) return;
  }
  size_t size() const override { return q_.size(); }

 private:
  // (estimate, submit, index): fixed for the job's life, so Remove finds it.
  using Entry = std::tuple<Micros, Micros, JobIndex>;
  Entry Key(JobIndex j) const {
    const Job& job = w_->jobs[j];
    return {oracle_ ? job.runtime : BackfillEstimate(job), job.submit, j};
  }
  bool oracle_;
  std::set<Entry> q_;
};

}  // namespace

std::unique_ptr<QueuePolicy> MakeSjfQueue() { return std::make_unique<SjfQueue>(false); }
std::unique_ptr<QueuePolicy> MakeSjfOracleQueue() { return std::make_unique<SjfQueue>(true); }

}  // namespace utilsim
