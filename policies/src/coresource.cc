// CPU / memory allocation modes: shaping and the scheduler decorator.
#include "utilsim/policies/coresource.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "utilsim/engine/stall_model.h"
#include "utilsim/engine/units.h"

namespace utilsim {

const char* CpuAllocName(CpuAlloc m) {
  switch (m) {
    case CpuAlloc::kRequest:
      return "request";
    case CpuAlloc::kProportional:
      return "proportional";
    case CpuAlloc::kMeasured:
      return "measured";
  }
  return "?";
}

Result<CpuAlloc> ParseCpuAlloc(const std::string& name) {
  for (CpuAlloc m : {CpuAlloc::kRequest, CpuAlloc::kProportional, CpuAlloc::kMeasured})
    if (name == CpuAllocName(m)) return m;
  return Status::Error("unknown CPU allocation mode '" + name +
                       "' (known: request, proportional, measured)");
}

Status ValidateCoResourceOptions(const CoResourceOptions& o) {
  if (o.mode != CpuAlloc::kRequest && o.mode != CpuAlloc::kProportional &&
      o.mode != CpuAlloc::kMeasured)
    return Status::Error("co-resource: unknown mode " + std::to_string(static_cast<int>(o.mode)));
  if (!std::isfinite(o.headroom) || o.headroom < 1)
    return Status::Error("co-resource: headroom must be a finite number >= 1, got " +
                         std::to_string(o.headroom));
  if (o.max_rounds < 1)
    return Status::Error("co-resource: max_rounds must be >= 1, got " +
                         std::to_string(o.max_rounds));
  return Status::Ok();
}

namespace {

// The reference node of a GPU model for the proportional share: the most
// GPUs, and among nodes with that many the least CPU and the least memory.
struct RefNode {
  int32_t gpus = 0;
  int64_t cpu = 0, mem = 0;
  // Keeps the node with more GPUs; on a tie the smaller CPU and memory.
  void Merge(const RefNode& o) {
    if (o.gpus <= 0) return;
    if (o.gpus > gpus) {
      *this = o;
    } else if (o.gpus == gpus) {
      cpu = std::min(cpu, o.cpu);
      mem = std::min(mem, o.mem);
    }
  }
};

std::vector<RefNode> RefNodesByModel(const ClusterState& c) {
  std::vector<RefNode> ref(static_cast<size_t>(c.num_models()));
  for (NodeIndex n = 0; n < c.num_nodes(); ++n) {
    const NodeInfo& info = c.node(n);
    if (info.gpus <= 0 || info.model < 0) continue;
    ref[static_cast<size_t>(info.model)].Merge({info.gpus, info.cpu_milli, info.mem_bytes});
  }
  return ref;
}

RefNode RefFor(const std::vector<RefNode>& by_model, ModelMask mask) {
  RefNode r;
  for (size_t m = 0; m < by_model.size(); ++m)
    if (mask == kAnyModel || (m < 64 && (mask >> m & 1))) r.Merge(by_model[m]);
  return r;
}

TaskDemand Proportional(const Job& job, const RefNode& ref) {
  TaskDemand d = job.task;
  if (job.task.gpus <= 0 || ref.gpus <= 0) return d;
  const int64_t share = job.task.total_gpu_milli();  // milli-GPU of the task
  const int64_t node = int64_t{ref.gpus} * kMilliPerUnit;
  // floor(v x share / node) without overflow (share, node <= 64,000).
  auto part = [&](int64_t v) { return v / node * share + v % node * share / node; };
  d.cpu_milli = part(ref.cpu);
  d.mem_bytes = part(ref.mem);
  return d;
}

int64_t CeilMul(int64_t v, double f) {
  const double x = std::ceil(static_cast<double>(v) * f - 1e-9);
  if (!(x < 9e18)) return int64_t{9'000'000'000'000'000'000};
  return std::max<int64_t>(0, static_cast<int64_t>(x));
}

}  // namespace

TaskDemand ProportionalDemand(const Job& job, ModelMask mask, const ClusterState& c) {
  return Proportional(job, RefFor(RefNodesByModel(c), mask));
}

TaskDemand MeasuredDemand(const Job& job, double headroom, int64_t cpu_cap) {
  TaskDemand d = job.task;
  const int64_t req = job.task.cpu_milli;
  const StallParts p = ResolveParts(job, 0.0);  // unknown stall -> 0
  if (job.task.gpus > 0 && p.input_cpu > 0) {
    d.cpu_milli = p.busy > 0 ? CeilMul(req, (p.busy + p.input_cpu) / p.busy) : cpu_cap;
  } else if (job.host_cpu_used_milli >= 0) {
    d.cpu_milli = CeilMul(job.host_cpu_used_milli, headroom);
  }
  if (cpu_cap > 0) d.cpu_milli = std::min(d.cpu_milli, cpu_cap);
  if (req > 0) d.cpu_milli = std::max<int64_t>(d.cpu_milli, 1);
  return d;
}

ShapedDemands ShapeDemands(const Workload& w, const ClusterState& c, const CoResourceOptions& o) {
  ShapedDemands s;
  s.first.reserve(w.jobs.size());
  if (o.mode == CpuAlloc::kRequest) {
    for (const Job& j : w.jobs) s.first.push_back(j.task);
    s.second = s.first;
    return s;
  }
  const std::vector<RefNode> by_model = RefNodesByModel(c);
  // Largest CPU of a node of each model (the cap of a measured ideal), and
  // of any node (CPU-only jobs may use every node).
  std::vector<int64_t> max_cpu(by_model.size(), 0);
  int64_t max_cpu_all = 0;
  for (NodeIndex n = 0; n < c.num_nodes(); ++n) {
    const NodeInfo& info = c.node(n);
    max_cpu_all = std::max(max_cpu_all, info.cpu_milli);
    if (info.model >= 0)
      max_cpu[static_cast<size_t>(info.model)] =
          std::max(max_cpu[static_cast<size_t>(info.model)], info.cpu_milli);
  }
  std::map<ModelMask, std::pair<RefNode, int64_t>> by_mask;
  auto lookup = [&](ModelMask mask) -> const std::pair<RefNode, int64_t>& {
    auto it = by_mask.find(mask);
    if (it != by_mask.end()) return it->second;
    int64_t cap = 0;
    for (size_t m = 0; m < max_cpu.size(); ++m)
      if (mask == kAnyModel || (m < 64 && (mask >> m & 1))) cap = std::max(cap, max_cpu[m]);
    return by_mask.emplace(mask, std::pair{RefFor(by_model, mask), cap}).first->second;
  };
  s.second.reserve(w.jobs.size());
  for (const Job& j : w.jobs) {
    const ModelMask mask = c.ResolveModels(j.gpu_models);
    const auto& [ref, cap] = lookup(mask);
    const TaskDemand fair = Proportional(j, ref);
    if (o.mode == CpuAlloc::kProportional) {
      s.first.push_back(fair);
      s.second.push_back(fair);
      continue;
    }
    const int64_t cpu_cap = j.task.gpus > 0 ? cap : max_cpu_all;
    s.first.push_back(MeasuredDemand(j, o.headroom, cpu_cap));
    s.second.push_back(fair);
  }
  return s;
}

namespace {

// Jobs of two shapes that wait (arrived or preempted, not started), listed
// once each; started jobs are dropped lazily by Compact.
struct WaitList {
  std::vector<char> queued;  // per job
  std::vector<char> listed;  // per job: in `jobs`
  std::vector<char> two;     // per job: its shapes differ
  std::vector<JobIndex> jobs;

  void Reset(size_t n) {
    queued.assign(n, 0);
    listed.assign(n, 0);
    jobs.clear();
  }
  void Queue(JobIndex j) {
    queued[j] = 1;
    if (!two.empty() && two[j] && !listed[j]) {
      listed[j] = 1;
      jobs.push_back(j);
    }
  }
  void Compact() {
    size_t k = 0;
    for (JobIndex j : jobs) {
      if (queued[j])
        jobs[k++] = j;
      else
        listed[j] = 0;
    }
    jobs.resize(k);
  }
};

// What the inner scheduler sees: the shaped workload, and Start granting the
// shaped task; everything else is the engine's context.
class ShapedContext final : public PassContext {
 public:
  ShapedContext(PassContext& real, const Workload& shaped, WaitList& wait)
      : real_(real), shaped_(shaped), wait_(wait) {}
  Micros now() const override { return real_.now(); }
  const Workload& workload() const override { return shaped_; }
  ClusterState& cluster() override { return real_.cluster(); }
  ModelMask mask(JobIndex j) const override { return real_.mask(j); }
  Status Start(JobIndex j, const Placement& p) override {
    return StartWith(j, p, shaped_.jobs[j].task);
  }
  Status StartWith(JobIndex j, const Placement& p, const TaskDemand& granted) override {
    Status s = real_.StartWith(j, p, granted);
    if (s.ok()) wait_.queued[j] = 0;
    return s;
  }
  const TaskDemand& granted(JobIndex j) const override { return real_.granted(j); }
  const std::vector<JobIndex>& running() const override { return real_.running(); }
  Micros started_at(JobIndex j) const override { return real_.started_at(j); }
  const Placement& placement_of(JobIndex j) const override { return real_.placement_of(j); }
  double work_done_s(JobIndex j) const override { return real_.work_done_s(j); }
  Status Preempt(JobIndex j) override {
    Status s = real_.Preempt(j);
    if (s.ok()) wait_.Queue(j);
    return s;
  }
  void Waiting(JobIndex j, WaitCause cause, WaitCause if_fits, JobIndex blocker,
               Micros estimate) override {
    real_.Waiting(j, cause, if_fits, blocker, estimate);
  }

 private:
  PassContext& real_;
  const Workload& shaped_;
  WaitList& wait_;
};

// True when `tasks` tasks of d fit the cluster now (first fit, each task
// reserved for the next); the state is left as found.
bool Fits(const TaskDemand& d, int32_t tasks, ModelMask mask, ClusterState& c) {
  if (tasks <= 1) return c.FindFirst(0, d, mask) >= 0;
  std::vector<TaskPlacement> held;
  bool ok = true;
  for (int32_t t = 0; t < tasks; ++t) {
    const int64_t n = c.FindFirst(0, d, mask);
    if (n < 0) {
      ok = false;
      break;
    }
    TaskPlacement tp{static_cast<NodeIndex>(n), c.PickGpus(static_cast<NodeIndex>(n), d)};
    if (!c.Allocate(tp, d).ok()) {
      ok = false;
      break;
    }
    held.push_back(tp);
  }
  for (auto it = held.rbegin(); it != held.rend(); ++it) c.Release(*it, d);
  return ok;
}

class CoResourceScheduler final : public Scheduler {
 public:
  CoResourceScheduler(std::unique_ptr<Scheduler> inner, CoResourceOptions o)
      : inner_(std::move(inner)), opt_(o) {}

  std::string label() const override { return inner_->label(); }
  PolicyId queue_policy() const override { return inner_->queue_policy(); }
  PolicyId placement_policy() const override { return inner_->placement_policy(); }

  Status Init(const ClusterState& cluster, const Workload& w) override {
    if (Status s = ValidateCoResourceOptions(opt_); !s.ok()) return s;
    ShapedDemands d = ShapeDemands(w, cluster, opt_);
    shaped_ = w;
    for (size_t j = 0; j < w.jobs.size(); ++j) shaped_.jobs[j].task = d.first[j];
    std::vector<char> two(w.jobs.size(), 0);
    bool any_two = false;
    for (size_t j = 0; j < w.jobs.size(); ++j) {
      two[j] = !(d.first[j] == d.second[j]);
      any_two = any_two || two[j];
    }
    if (any_two) {
      ideal_ = std::move(d.first);
      fair_ = std::move(d.second);
      wait_.two = std::move(two);
    } else {
      ideal_.clear();
      fair_.clear();
      wait_.two.clear();
    }
    wait_.Reset(w.jobs.size());
    return inner_->Init(cluster, shaped_);
  }

  void OnArrival(JobIndex j, Micros now) override {
    wait_.Queue(j);
    inner_->OnArrival(j, now);
  }
  void OnFinish(JobIndex j, Micros now) override { inner_->OnFinish(j, now); }
  Micros NextWakeup(Micros now) const override { return inner_->NextWakeup(now); }
  size_t queued() const override { return inner_->queued(); }
  WaitCause unexamined_cause() const override { return inner_->unexamined_cause(); }

  Status Pass(PassContext& ctx) override {
    ShapedContext proxy(ctx, shaped_, wait_);
    if (ideal_.empty()) return inner_->Pass(proxy);
    ClusterState& c = ctx.cluster();
    wait_.Compact();
    // Offer the ideal where it fits now (decisions cached per shape: a shape
    // that fits or not does so for every job of it at this state).
    std::map<JobShape, bool> fits;
    auto fits_now = [&](JobIndex j, const TaskDemand& d) {
      const int32_t tasks = shaped_.jobs[j].tasks;
      const ModelMask mask = ctx.mask(j);
      const JobShape key{tasks,       d.gpus,          d.gpu_milli,   d.cpu_milli,
                         d.mem_bytes, d.gpu_mem_bytes, d.mig_profile, mask};
      auto [it, fresh] = fits.emplace(key, false);
      if (fresh) it->second = Fits(d, tasks, mask, c);
      return it->second;
    };
    for (JobIndex j : wait_.jobs)
      shaped_.jobs[j].task = fits_now(j, ideal_[j]) ? ideal_[j] : fair_[j];
    for (int round = 0; round < opt_.max_rounds; ++round) {
      if (Status s = inner_->Pass(proxy); !s.ok()) return s;
      wait_.Compact();
      fits.clear();  // the state changed
      bool switched = false;
      for (JobIndex j : wait_.jobs) {
        TaskDemand& shown = shaped_.jobs[j].task;
        if (shown == ideal_[j] && !fits_now(j, ideal_[j])) {
          shown = fair_[j];
          switched = true;
        }
      }
      if (!switched) break;
    }
    return Status::Ok();
  }

 private:
  std::unique_ptr<Scheduler> inner_;
  CoResourceOptions opt_;
  Workload shaped_;
  std::vector<TaskDemand> ideal_, fair_;  // measured only (empty: one shape per job)
  WaitList wait_;
};

}  // namespace

std::unique_ptr<Scheduler> MakeCoResource(std::unique_ptr<Scheduler> inner,
                                          CoResourceOptions options) {
  if (options.mode == CpuAlloc::kRequest && ValidateCoResourceOptions(options).ok()) return inner;
  return std::make_unique<CoResourceScheduler>(std::move(inner), options);
}

}  // namespace utilsim
