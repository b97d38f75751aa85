#include "utilsim/policies/backfill.h"

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "utilsim/engine/units.h"

namespace utilsim {

Micros BackfillEstimate(const Job& j) {
  if (j.walltime_limit && j.walltime_limit->us > 0) return *j.walltime_limit;
  return j.runtime;
}

namespace {

// Queued jobs in (submit, index) order: a sorted vector, walked by position.
// A job taken out during a pass is marked gone and swept out before the next
// insertion or pass (Sweep), so positions stay valid through a pass.
class SubmitQueue {
 public:
  void Insert(Micros submit, JobIndex j) {
    Sweep();
    const std::pair<Micros, JobIndex> e{submit, j};
    if (v_.empty() || v_.back() < e)  // arrivals come in submit order
      v_.push_back(e);
    else
      v_.insert(std::upper_bound(v_.begin(), v_.end(), e), e);
  }
  // The first position >= i holding a queued job (end() if none).
  size_t Next(size_t i) const {
    while (i < v_.size() && v_[i].second == kGone) ++i;
    return i;
  }
  size_t end() const { return v_.size(); }
  JobIndex at(size_t i) const { return v_[i].second; }
  void Erase(size_t i) {
    v_[i].second = kGone;
    ++gone_;
  }
  void Sweep() {
    if (gone_ == 0) return;
    std::erase_if(v_, [](const auto& e) { return e.second == kGone; });
    gone_ = 0;
  }
  size_t size() const { return v_.size() - gone_; }

 private:
  static constexpr JobIndex kGone = static_cast<JobIndex>(-1);
  std::vector<std::pair<Micros, JobIndex>> v_;
  size_t gone_ = 0;
};

// What both backfilling schedulers share: a queue in submit order over one
// placement policy, and the first step of every pass.
class SubmitOrderScheduler : public Scheduler {
 public:
  SubmitOrderScheduler(std::string label, std::unique_ptr<PlacementPolicy> placement)
      : label_(std::move(label)), placement_(std::move(placement)) {}

  std::string label() const override { return label_; }
  PolicyId placement_policy() const override { return placement_->id(); }
  Status Init(const ClusterState&, const Workload& w) override {
    w_ = &w;
    placement_->Init(w);
    return Status::Ok();
  }
  void OnArrival(JobIndex j, Micros) override { queue_.Insert(w_->jobs[j].submit, j); }
  void OnFinish(JobIndex, Micros) override {}
  Micros NextWakeup(Micros now) const override { return placement_->NextWakeup(now); }
  size_t queued() const override { return queue_.size(); }

 protected:
  // Starts queued jobs in submit order while they fit; *it = the position
  // of the first that does not (or queue_.end()). Called first in every pass
  // (so it begins the placement's pass).
  Status StartWhileTheyFit(PassContext& ctx, size_t* it) {
    placement_->BeginPass(ctx);  // every pass starts here
    queue_.Sweep();
    *it = queue_.Next(0);
    while (*it != queue_.end()) {
      const JobIndex j = queue_.at(*it);
      auto p = placement_->Place(w_->jobs[j], ctx.mask(j), ctx.cluster());
      if (!p) {
        ctx.Waiting(j, WaitCause::kResources);
        break;
      }
      if (Status s = ctx.Start(j, *p); !s.ok()) return s;
      OnStarted(j, ctx.now());
      queue_.Erase(*it);
      *it = queue_.Next(*it + 1);
    }
    return Status::Ok();
  }
  // Called after every start this scheduler makes. Default: nothing.
  virtual void OnStarted(JobIndex /*j*/, Micros /*now*/) {}

  std::string label_;
  std::unique_ptr<PlacementPolicy> placement_;
  const Workload* w_ = nullptr;
  SubmitQueue queue_;
};

class EasyBackfill final : public SubmitOrderScheduler {
 public:
  using SubmitOrderScheduler::SubmitOrderScheduler;
  PolicyId queue_policy() const override { return {"easy-backfill", "1"}; }
  Status Init(const ClusterState& c, const Workload& w) override {
    end_of_.assign(w.jobs.size(), Micros(0));
    ends_.clear();
    return SubmitOrderScheduler::Init(c, w);
  }
  void OnFinish(JobIndex j, Micros) override { ends_.erase({end_of_[j], j}); }

  Status Pass(PassContext& ctx) override {
    ClusterState& c = ctx.cluster();
    // 1. Start jobs in order while they fit.
    size_t it;
    if (Status s = StartWhileTheyFit(ctx, &it); !s.ok()) return s;
    if (it == queue_.end()) return Status::Ok();
    // 2. Reserve for the head.
    const JobIndex head = queue_.at(it);
    // The scratch state is assigned, not built: its buffers are reused.
    shadow_state_ = c;
    ClusterState& shadow_state = *shadow_state_;
    Micros shadow = kNever;
    if (!Reserve(ctx, head, &shadow_state, &shadow)) return Status::Ok();
    ctx.Waiting(head, WaitCause::kResources, WaitCause::kPlacement, kNoBlocker, shadow);
    // 3. Backfill behind it.
    std::set<JobShape> no_fit_now;
    // Shapes that fit now but neither end before the shadow time nor fit
    // beside the reservation, with the least estimate that failed: a later
    // job of that shape with an estimate at least as long fails the same
    // way (same placement on the same cluster, the same shadow state), so
    // it is not placed again. Cleared at every start (the cluster changes);
    // only when the placement's result is a function of the shape.
    std::map<JobShape, Micros> blocked;
    const bool by_shape = placement_->place_depends_on_shape_only();
    const Micros now = ctx.now();
    for (it = queue_.Next(it + 1); it != queue_.end();) {
      const JobIndex j = queue_.at(it);
      const Job& job = w_->jobs[j];
      const ModelMask mask = ctx.mask(j);
      const JobShape shape = ShapeOf(job, mask);
      if (no_fit_now.count(shape)) {
        ctx.Waiting(j, WaitCause::kResources);
        it = queue_.Next(it + 1);
        continue;
      }
      const Micros estimate = BackfillEstimate(job);
      if (by_shape) {
        auto b = blocked.find(shape);
        if (b != blocked.end() && estimate >= b->second) {
          ctx.Waiting(j, WaitCause::kReservation, WaitCause::kPlacement, head);
          it = queue_.Next(it + 1);
          continue;
        }
      }
      auto p = placement_->Place(job, mask, c);
      if (!p) {
        no_fit_now.insert(shape);
        ctx.Waiting(j, WaitCause::kResources);
        it = queue_.Next(it + 1);
        continue;
      }
      bool ok = now + estimate <= shadow;
      if (!ok) ok = FitsBeside(*p, job.task, &shadow_state);
      if (!ok) {
        if (by_shape) {
          auto [b, fresh] = blocked.emplace(shape, estimate);
          if (!fresh) b->second = std::min(b->second, estimate);
        }
        ctx.Waiting(j, WaitCause::kReservation, WaitCause::kPlacement, head);
        it = queue_.Next(it + 1);
        continue;
      }
      if (Status s = ctx.Start(j, *p); !s.ok()) return s;
      OnStarted(j, now);
      blocked.clear();
      queue_.Erase(it);
      it = queue_.Next(it + 1);
    }
    return Status::Ok();
  }

 private:
  void OnStarted(JobIndex j, Micros now) override {
    end_of_[j] = now + BackfillEstimate(w_->jobs[j]);
    ends_.insert({end_of_[j], j});
  }

  // Releases running jobs on *state by estimated end until `head` fits;
  // reserves it there. False if it never fits.
  bool Reserve(PassContext& ctx, JobIndex head, ClusterState* state, Micros* shadow) {
    // The running jobs by estimated end, released together at max(end,
    // now): ends_ keeps them in that order (those already past their end
    // come first and all go at now; the order of releases within one time
    // changes nothing), walked only as far as the head needs. Every running
    // job started through this scheduler.
    const Micros now = ctx.now();
    const Job& hj = w_->jobs[head];
    // A head of whole-GPU tasks needs hj.task.gpus whole-free GPUs on one
    // node per task: `room`, the tasks the free whole GPUs of the nodes not
    // cordoned could hold at most (from the buckets of nodes by free GPUs),
    // kept up to date as jobs are released, rules out the times at which
    // Place would fail anyway. Only for a placement whose result depends on
    // the shape alone (nothing drawn or kept, so skipping a failing Place
    // changes nothing).
    const int32_t g = hj.task.gpus;
    const bool bounded = placement_->place_depends_on_shape_only() && g > 0 &&
                         hj.task.gpu_milli == kMilliPerUnit && hj.task.mig_profile < 0;
    int64_t room = 0;
    if (bounded)
      for (int m = 0; m < state->num_models(); ++m)
        for (int k = g; k <= state->max_gpus_per_node(); ++k)
          room += static_cast<int64_t>(state->Bucket(m, k).size()) * (k / g);
    for (auto e = ends_.begin(); e != ends_.end();) {
      const Micros t = std::max(e->first, now);
      for (; e != ends_.end() && std::max(e->first, now) == t; ++e) {
        const JobIndex r = e->second;
        for (const auto& tp : ctx.placement_of(r)) {
          const bool counted = bounded && !state->cordoned(tp.node);
          const int32_t before = counted ? state->free_whole_gpus(tp.node) / g : 0;
          state->Release(tp, ctx.granted(r));
          if (counted) room += state->free_whole_gpus(tp.node) / g - before;
        }
      }
      if (bounded && room < hj.tasks) continue;
      auto p = placement_->Place(hj, ctx.mask(head), *state);
      if (p) {
        for (const auto& tp : *p) (void)state->Allocate(tp, hj.task);
        *shadow = t;
        return true;
      }
    }
    return false;
  }

  std::optional<ClusterState> shadow_state_;    // Pass's scratch copy of the cluster
  std::vector<Micros> end_of_;                  // estimated end of each started job
  std::set<std::pair<Micros, JobIndex>> ends_;  // running jobs by (estimated end, index)

  // Claims p on the shadow state if every task still fits there.
  static bool FitsBeside(const Placement& p, const TaskDemand& d, ClusterState* state) {
    for (size_t k = 0; k < p.size(); ++k) {
      if (!state->Allocate(p[k], d).ok()) {
        for (size_t m = 0; m < k; ++m) state->Release(p[m], d);
        return false;
      }
    }
    return true;
  }
};

struct ShapeHash {
  size_t operator()(const JobShape& s) const {
    uint64_t h = 0;
    auto mix = [&h](uint64_t v) { h = (h ^ v) * 0x9e3779b97f4a7c15ULL; };
    std::apply([&](const auto&... f) { (mix(static_cast<uint64_t>(f)), ...); }, s);
    return static_cast<size_t>(h ^ (h >> 29));
  }
};

// A map (shape id, time) -> Micros for one pass: open addressing over a
// power-of-two table; Clear is O(1) (a generation number).
class FailedTable {
 public:
  // The value for (shape, t), or nullptr. Valid until the next Insert.
  Micros* Find(uint32_t shape, Micros t) {
    if (slots_.empty()) return nullptr;
    for (size_t i = Home(shape, t);; i = (i + 1) & mask_) {
      Slot& s = slots_[i];
      if (s.gen != gen_) return nullptr;
      if (s.shape == shape && s.t == t) return &s.value;
    }
  }
  // Precondition: (shape, t) is not in the table.
  void Insert(uint32_t shape, Micros t, Micros value) {
    if (2 * (size_ + 1) > slots_.size()) Grow();
    Put({shape, gen_, t, value});
    ++size_;
  }
  void Clear() {
    size_ = 0;
    if (++gen_ == 0) {  // wrapped: no stale slot may look current
      for (Slot& s : slots_) s.gen = 0;
      gen_ = 1;
    }
  }

 private:
  struct Slot {
    uint32_t shape = 0;
    uint32_t gen = 0;
    Micros t{0};
    Micros value{0};
  };
  size_t Home(uint32_t shape, Micros t) const {
    uint64_t h = (static_cast<uint64_t>(t.us) * 0x9e3779b97f4a7c15ULL) ^ shape;
    h *= 0xbf58476d1ce4e5b9ULL;
    return static_cast<size_t>(h >> 32) & mask_;
  }
  void Put(const Slot& in) {
    size_t i = Home(in.shape, in.t);
    while (slots_[i].gen == gen_) i = (i + 1) & mask_;
    slots_[i] = in;
  }
  void Grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(old.empty() ? 1024 : 2 * old.size(), Slot{});
    mask_ = slots_.size() - 1;
    for (const Slot& s : old)
      if (s.gen == gen_) Put(s);
  }
  std::vector<Slot> slots_;
  size_t mask_ = 0, size_ = 0;
  uint32_t gen_ = 1;
};

// Conservative backfilling; the contract is in backfill.h.
//
// Jobs ahead of every reservation start while they fit, as in EASY. From the
// first job that does not fit on, each candidate (t, estimate) is tried on
// the live cluster adjusted for it: the running jobs whose estimated end is
// <= t are released and the reservations overlapping [t, t + estimate) are
// blocked. Moving to another candidate re-syncs only the nodes whose set of
// adjustments changes: such a node is put back to its live state and
// adjusted again from scratch, always in the same order (releases, then
// blocks in reservation order), so its content is a function of the
// candidate alone, whatever was tried before. Every adjustment is undone
// before a job starts and before the pass returns (PassContext::cluster's
// rule), so the engine never sees them. Before a candidate is tried at all,
// an aggregate profile (summed GPUs, GPU share, CPU, memory of the holders
// over time) rules out the times at which the cluster's totals cannot cover
// the job (MayFit); this only skips tries that would fail, so it changes no
// decision.
class ConservativeBackfill final : public SubmitOrderScheduler {
 public:
  ConservativeBackfill(std::string label, std::unique_ptr<PlacementPolicy> placement,
                       ConservativeBackfillOptions options)
      : SubmitOrderScheduler(std::move(label), std::move(placement)), options_(options) {}
  PolicyId queue_policy() const override {
    return {"conservative-backfill", "1", "depth=" + std::to_string(options_.max_reservations)};
  }

  Status Pass(PassContext& ctx) override {
    ClusterState& c = ctx.cluster();
    // 1. No reservation yet: start jobs in order while they fit.
    size_t it;
    if (Status s = StartWhileTheyFit(ctx, &it); !s.ok()) return s;
    if (it == queue_.end()) return Status::Ok();
    // 2. Reservations for the rest, in order.
    const Micros now = ctx.now();
    BeginPass(ctx);
    for (; it != queue_.end();) {
      const JobIndex j = queue_.at(it);
      const Job& job = w_->jobs[j];
      const ModelMask mask = ctx.mask(j);
      const uint32_t shape = ShapeId(ShapeOf(job, mask));
      const Micros est = Estimate(job);
      const Usage need = UsageOf(job);
      const bool may_reserve = reservations_.size() < options_.max_reservations;
      std::optional<Placement> p;
      Micros at = kNever;
      Window win;
      // The candidates, ascending: now only behind the cap; else every time
      // in times_, less those a frontier of the shape says fail (FrontierOf).
      const Frontier* fr = options_.shortcuts ? FrontierOf(shape, est) : nullptr;
      late_.clear();
      size_t k = 0;
      if (fr) {
        for (size_t i = fr->seq; i < inserted_.size(); ++i)
          if (inserted_[i] < fr->before) late_.push_back(inserted_[i]);
        std::sort(late_.begin(), late_.end());
        k = static_cast<size_t>(std::lower_bound(times_.begin(), times_.end(), fr->before) -
                                times_.begin());
      }
      size_t r = 0;
      const size_t stop = may_reserve ? times_.size() : std::min<size_t>(1, times_.size());
      while (r < late_.size() || k < stop) {
        const bool from_late = r < late_.size();
        if (!may_reserve && from_late) break;  // behind the cap only now counts
        const Micros t = from_late ? late_[r] : times_[k];
        if (from_late)
          ++r;
        else
          ++k;
        if (Micros next = MayFit(need, t, est, &win); next != t) {
          // No candidate before `next` can fit: skip to it.
          while (r < late_.size() && late_[r] < next) ++r;
          k = std::max(k, static_cast<size_t>(std::lower_bound(times_.begin(), times_.end(), next) -
                                              times_.begin()));
          continue;
        }
        Micros* f = failed_.Find(shape, t);
        if (f && *f <= est) continue;
        Adjust(t, est);
        p = placement_->Place(job, mask, c);
        if (p) {
          at = t;
          break;
        }
        if (f)
          *f = est;
        else
          failed_.Insert(shape, t, est);
      }
      // Every candidate before `at` (kNever: every one; behind the cap only
      // now was a candidate) failed for this shape and estimate.
      AddFrontier(shape,
                  {est, p ? at : (may_reserve ? kNever : now + Micros(1)), inserted_.size()});
      if (!p) {  // behind the cap, or the placement policy never fits it
        ctx.Waiting(j, WaitCause::kResources, WaitCause::kReservation);
        it = queue_.Next(it + 1);
        continue;
      }
      const Micros end = at + est;
      if (at == now) {
        // p fits the live cluster minus the blocks for (now, est).
        UndoAll();
        if (Status s = ctx.Start(j, *p); !s.ok()) return s;
        AddRunning(j, end);
        queue_.Erase(it);
        it = queue_.Next(it + 1);
      } else {
        // Reserved for later: what holds it now is its resources, or else
        // the reservations ahead of it; it expects to start at `at`.
        ctx.Waiting(j, WaitCause::kResources, WaitCause::kReservation, kNoBlocker, at);
        const uint32_t id = static_cast<uint32_t>(reservations_.size());
        for (uint32_t q = 0; q < p->size(); ++q) ByNode((*p)[q].node).push_back({false, id, q});
        reservations_.push_back({at, end, j, std::move(*p), false});
        it = queue_.Next(it + 1);
      }
      AddToProfile(at, end, need);
      auto pos = std::lower_bound(times_.begin(), times_.end(), end);
      if (pos == times_.end() || *pos != end) {
        times_.insert(pos, end);
        inserted_.push_back(end);
      }
    }
    UndoAll();
    ctx_ = nullptr;
    return Status::Ok();
  }

 private:
  struct Held {  // a running job and its estimated end
    Micros end;
    JobIndex job;
    bool released;  // currently released on the cluster
  };
  struct Reservation {
    Micros start, end;
    JobIndex job;
    Placement placement;
    bool blocked;  // currently blocked on the cluster
  };
  struct TaskRef {  // task `task` of running_[id] (running) or reservations_[id]
    bool running;
    uint32_t id;
    uint32_t task;
    bool applied = false;  // released or blocked on a linear node (linear_)
  };
  // Resources summed over a cluster, for the aggregate pre-check: whole
  // GPUs of whole-GPU tasks, GPU share (milli), CPU (milli), memory (bytes).
  struct Usage {
    int64_t v[4] = {0, 0, 0, 0};
    void Add(const Usage& o, int sign) {
      for (int i = 0; i < 4; ++i) v[i] += sign * o.v[i];
    }
  };
  struct Segment {  // the summed usage of all holders over [start, next start)
    Micros start;
    Usage used;
  };
  struct Window {  // a job's sliding window over profile_ (see MayFit)
    size_t first = 0, next = 0;
    int64_t last_short = -1;
  };
  struct Piece {  // one change made on the cluster, to be undone
    TaskPlacement where;
    TaskDemand demand;
    bool release;  // Release of a running task (undo: Allocate), else Allocate
  };

  static Micros Estimate(const Job& j) { return std::max(BackfillEstimate(j), Micros(1)); }
  static Usage UsageOf(const Job& j) { return UsageOf(j.task, j.tasks); }
  static Usage UsageOf(const TaskDemand& d, int32_t tasks) {
    Usage u;
    u.v[0] = d.fractional() ? 0 : int64_t{tasks} * d.gpus;
    u.v[1] = int64_t{tasks} * d.total_gpu_milli();
    u.v[2] = int64_t{tasks} * d.cpu_milli;
    u.v[3] = int64_t{tasks} * d.mem_bytes;
    return u;
  }

  void BeginPass(PassContext& ctx) {
    ctx_ = &ctx;
    const Micros now = ctx.now();
    const ClusterState& c = ctx.cluster();
    if (by_node_.size() != c.num_nodes()) {
      by_node_.assign(c.num_nodes(), {});
      log_.assign(c.num_nodes(), {});
      dirty_.assign(c.num_nodes(), 0);
      listed_.assign(c.num_nodes(), 0);
      linear_.assign(c.num_nodes(), 1);
      used_nodes_.clear();
    }
    for (NodeIndex n : used_nodes_) by_node_[n].clear();
    used_nodes_.clear();
    running_.clear();
    by_end_.clear();
    released_ = 0;
    reservations_.clear();
    failed_.Clear();
    shape_ids_.clear();
    for (auto& f : frontiers_) f.clear();
    inserted_.clear();
    capacity_.v[0] = c.total_gpus();
    capacity_.v[1] = c.total_gpus() * kMilliPerUnit;
    capacity_.v[2] = c.total_cpu();
    capacity_.v[3] = c.total_mem();
    times_.assign(1, now);
    ends_.clear();
    Usage all;
    for (JobIndex r : ctx.running()) {
      const Job& rj = w_->jobs[r];
      const Micros end = std::max(ctx.started_at(r) + BackfillEstimate(rj), now + Micros(1));
      const uint32_t id = static_cast<uint32_t>(running_.size());
      running_.push_back({end, r, false});
      const Placement& p = ctx.placement_of(r);
      for (uint32_t k = 0; k < p.size(); ++k) ByNode(p[k].node).push_back({true, id, k});
      times_.push_back(end);
      const Usage u = UsageOf(ctx.granted(r), rj.tasks);  // what it holds
      all.Add(u, +1);
      ends_.push_back({end, u});
    }
    by_end_.resize(running_.size());
    for (uint32_t i = 0; i < by_end_.size(); ++i) by_end_[i] = i;
    std::sort(by_end_.begin(), by_end_.end(),
              [&](uint32_t a, uint32_t b) { return running_[a].end < running_[b].end; });
    std::sort(times_.begin(), times_.end());
    times_.erase(std::unique(times_.begin(), times_.end()), times_.end());
    // The profile: everything running from now, less each job at its end.
    std::sort(ends_.begin(), ends_.end(),
              [](const Segment& a, const Segment& b) { return a.start < b.start; });
    profile_.assign(1, Segment{now, all});
    for (const Segment& e : ends_) {
      if (profile_.back().start != e.start)
        profile_.push_back(Segment{e.start, profile_.back().used});
      profile_.back().used.Add(e.used, -1);
    }
  }

  std::vector<TaskRef>& ByNode(NodeIndex n) {
    if (by_node_[n].empty()) used_nodes_.push_back(n);
    return by_node_[n];
  }

  // Job j started now (after UndoAll: nothing is released or blocked).
  void AddRunning(JobIndex j, Micros end) {
    const uint32_t id = static_cast<uint32_t>(running_.size());
    running_.push_back({end, j, false});
    const Placement& p = ctx_->placement_of(j);
    for (uint32_t k = 0; k < p.size(); ++k) ByNode(p[k].node).push_back({true, id, k});
    auto pos = std::upper_bound(by_end_.begin(), by_end_.end(), end,
                                [&](Micros e, uint32_t r) { return e < running_[r].end; });
    by_end_.insert(pos, id);
  }

  // Necessary condition for a fit over [t, t + est): at every instant of the
  // interval the cluster's totals minus what the holders active then use
  // cover the job's totals. The adjusted cluster subtracts at least that
  // much, so when this fails the placement policy would fail too. Returns t
  // when the condition holds, else the earliest later time at which it can
  // (the end of the last segment in the window that falls short; kNever if
  // that segment never ends). Candidates come in ascending order for one
  // job; *win slides over profile_ with them.
  Micros MayFit(const Usage& need, Micros t, Micros est, Window* win) const {
    if (win->first + 1 < profile_.size() && profile_[win->first + 1].start <= t) {
      // The segment holding t, searched: a job's first candidate may lie far in.
      auto pos = std::upper_bound(profile_.begin() + static_cast<std::ptrdiff_t>(win->first) + 1,
                                  profile_.end(), t,
                                  [](Micros x, const Segment& g) { return x < g.start; });
      win->first = static_cast<size_t>(pos - profile_.begin()) - 1;
    }
    if (win->next < win->first) win->next = win->first;
    const Micros until = t + est;
    for (; win->next < profile_.size() && profile_[win->next].start < until; ++win->next) {
      const Usage& u = profile_[win->next].used;
      for (int i = 0; i < 4; ++i) {
        if (need.v[i] > 0 && capacity_.v[i] - u.v[i] < need.v[i]) {
          win->last_short = static_cast<int64_t>(win->next);
          break;
        }
      }
    }
    if (win->last_short < static_cast<int64_t>(win->first)) return t;
    const size_t after = static_cast<size_t>(win->last_short) + 1;
    return after < profile_.size() ? profile_[after].start : kNever;
  }

  // Adds usage u over [start, end) to profile_ (end > start >= profile start).
  void AddToProfile(Micros start, Micros end, const Usage& u) {
    auto split = [&](Micros at) {
      auto pos = std::upper_bound(profile_.begin(), profile_.end(), at,
                                  [](Micros x, const Segment& g) { return x < g.start; });
      // pos - 1 is the segment containing `at` (profile_ starts at now <= at).
      const size_t i = static_cast<size_t>(pos - profile_.begin()) - 1;
      if (profile_[i].start == at) return i;
      profile_.insert(profile_.begin() + static_cast<std::ptrdiff_t>(i + 1),
                      Segment{at, profile_[i].used});
      return i + 1;
    };
    const size_t a = split(start);
    const size_t b = split(end);
    for (size_t i = a; i < b; ++i) profile_[i].used.Add(u, +1);
  }

  // Adjusts the cluster for [t, t + est): running jobs with estimated end
  // <= t released, reservations overlapping the interval blocked.
  void Adjust(Micros t, Micros est) {
    const Micros until = t + est;
    touched_.clear();
    auto mark = [&](const Placement& p) {
      for (const auto& tp : p)
        if (!dirty_[tp.node]) {
          dirty_[tp.node] = 1;
          touched_.push_back(tp.node);
        }
    };
    // Released running jobs are a prefix of by_end_.
    size_t k = released_;
    for (; k < by_end_.size() && running_[by_end_[k]].end <= t; ++k) {
      running_[by_end_[k]].released = true;
      mark(ctx_->placement_of(running_[by_end_[k]].job));
    }
    for (; k > 0 && running_[by_end_[k - 1]].end > t; --k) {
      running_[by_end_[k - 1]].released = false;
      mark(ctx_->placement_of(running_[by_end_[k - 1]].job));
    }
    released_ = k;
    for (auto& r : reservations_) {
      const bool want = r.start < until && r.end > t;
      if (want != r.blocked) {
        r.blocked = want;
        mark(r.placement);
      }
    }
    for (NodeIndex n : touched_) {
      dirty_[n] = 0;
      Resync(n);
    }
  }

  // Brings node n to the content its holders' flags ask for: its live state,
  // less the released running tasks, then each blocked reservation task in
  // by_node_ order (Block, which caps a task that no longer fits exactly).
  //
  // A node is either linear (linear_[n]: every adjustment on it is a whole
  // Release of a running task or a whole, exact Allocate of a reservation
  // task, as marked by TaskRef::applied, and log_[n] is empty) or logged
  // (its adjustments are the pieces of log_[n], applied flags all false).
  // A linear node's content is live + released - blocked, whatever the order
  // the changes came in; when that is non-negative everywhere, the canonical
  // order (releases first, then blocks) takes every block exactly too (each
  // block meets at least the final content plus itself) and ends with the
  // same content. So a linear node changes by the flags that changed alone;
  // when one step cannot be taken exactly, the node is put back to live and
  // rebuilt in the canonical order.
  void Resync(NodeIndex n) {
    ClusterState& c = ctx_->cluster();
    if (!listed_[n]) {
      listed_[n] = 1;
      adjusted_.push_back(n);
    }
    c.DeferIndex(n);  // many changes to n: its indexes once, at the end
    if (!options_.shortcuts || !linear_[n] || !StepLinear(c, n)) {
      ToLive(c, n);
      Rebuild(c, n);
    }
    c.Reindex(n);
  }

  // Applies to linear node n the flags that changed, removals first; false
  // (n still linear, part of the way) when a step is not exact.
  bool StepLinear(ClusterState& c, NodeIndex n) {
    for (TaskRef& ref : by_node_[n]) {  // reservation tasks no longer blocked
      if (ref.running || !ref.applied || reservations_[ref.id].blocked) continue;
      const Reservation& r = reservations_[ref.id];
      c.Release(r.placement[ref.task], w_->jobs[r.job].task);
      ref.applied = false;
    }
    for (TaskRef& ref : by_node_[n]) {  // running tasks no longer released
      if (!ref.running || !ref.applied || running_[ref.id].released) continue;
      const JobIndex r = running_[ref.id].job;
      if (!c.Allocate(ctx_->placement_of(r)[ref.task], ctx_->granted(r)).ok()) return false;
      ref.applied = false;
    }
    for (TaskRef& ref : by_node_[n]) {  // newly released
      if (!ref.running || ref.applied || !running_[ref.id].released) continue;
      const JobIndex r = running_[ref.id].job;
      c.Release(ctx_->placement_of(r)[ref.task], ctx_->granted(r));
      ref.applied = true;
    }
    for (TaskRef& ref : by_node_[n]) {  // newly blocked
      if (ref.running || ref.applied || !reservations_[ref.id].blocked) continue;
      const Reservation& r = reservations_[ref.id];
      const TaskPlacement& tp = r.placement[ref.task];
      const TaskDemand& d = w_->jobs[r.job].task;
      if (!FitsExactly(c, tp, d) || !c.Allocate(tp, d).ok()) return false;
      ref.applied = true;
    }
    return true;
  }

  // Puts node n back to its live state (linear or logged); afterwards n is
  // linear with nothing applied.
  void ToLive(ClusterState& c, NodeIndex n) {
    if (linear_[n]) {
      for (TaskRef& ref : by_node_[n]) {  // blocks first: always possible
        if (ref.running || !ref.applied) continue;
        const Reservation& r = reservations_[ref.id];
        c.Release(r.placement[ref.task], w_->jobs[r.job].task);
        ref.applied = false;
      }
      for (TaskRef& ref : by_node_[n]) {  // then what was released comes back
        if (!ref.running || !ref.applied) continue;
        const JobIndex r = running_[ref.id].job;
        (void)c.Allocate(ctx_->placement_of(r)[ref.task], ctx_->granted(r));
        ref.applied = false;
      }
      return;
    }
    auto& log = log_[n];
    for (auto k = log.rbegin(); k != log.rend(); ++k) {
      if (k->release)
        (void)c.Allocate(k->where, k->demand);
      else
        c.Release(k->where, k->demand);
    }
    log.clear();
    linear_[n] = 1;
  }

  // From live: the releases, then the blocks in by_node_ order. The node is
  // linear afterwards when every block was taken exactly.
  void Rebuild(ClusterState& c, NodeIndex n) {
    auto& log = log_[n];
    bool capped = false;
    for (const TaskRef& ref : by_node_[n]) {
      if (!ref.running || !running_[ref.id].released) continue;
      const JobIndex r = running_[ref.id].job;
      const TaskPlacement& tp = ctx_->placement_of(r)[ref.task];
      c.Release(tp, ctx_->granted(r));
      log.push_back({tp, ctx_->granted(r), true});
    }
    for (const TaskRef& ref : by_node_[n]) {
      if (ref.running || !reservations_[ref.id].blocked) continue;
      const Reservation& r = reservations_[ref.id];
      const size_t before = log.size();
      // a reservation: the request
      if (!Block(c, r.placement[ref.task], w_->jobs[r.job].task, &log) || log.size() != before + 1)
        capped = true;
    }
    if (capped || !options_.shortcuts) {
      linear_[n] = 0;
      return;
    }
    // Every piece is one whole holder task: keep them as applied flags.
    for (TaskRef& ref : by_node_[n])
      ref.applied = ref.running ? running_[ref.id].released : reservations_[ref.id].blocked;
    log.clear();
  }

  // Undoes every adjustment: the cluster is live again, nothing released or
  // blocked.
  void UndoAll() {
    ClusterState& c = ctx_->cluster();
    for (NodeIndex n : adjusted_) {
      c.DeferIndex(n);
      ToLive(c, n);
      c.Reindex(n);
      listed_[n] = 0;
    }
    adjusted_.clear();
    for (auto& h : running_) h.released = false;
    for (auto& r : reservations_) r.blocked = false;
    released_ = 0;
  }

  // True when task demand d fits wholly at tp now: CPU, memory, and the
  // share and GPU memory of each of its GPUs.
  static bool FitsExactly(const ClusterState& c, const TaskPlacement& tp, const TaskDemand& d) {
    const NodeIndex n = tp.node;
    bool exact = c.free_cpu(n) >= d.cpu_milli && c.free_mem(n) >= d.mem_bytes;
    for (uint64_t m = tp.gpu_mask; exact && m; m &= m - 1)
      exact = c.GpuFits(n, std::countr_zero(m), d);  // share and GPU memory
    return exact;
  }

  // Takes from c what task demand d holds at tp, capped at what is still
  // free there: resources of holders that overlap the interval at different
  // times are subtracted together, so a GPU, CPU or memory already taken by
  // another holder stays taken and nothing is over-committed. (Capped
  // subtraction leaves max(0, free - sum of demands) on every GPU, CPU and
  // memory, whatever the order.)
  // True when d was taken whole and exactly (one piece logged).
  static bool Block(ClusterState& c, const TaskPlacement& tp, const TaskDemand& d,
                    std::vector<Piece>* log) {
    const NodeIndex n = tp.node;
    if (FitsExactly(c, tp, d)) return Take(c, tp, d, log);
    TaskDemand host;
    host.gpus = 0;
    host.cpu_milli = std::min(d.cpu_milli, c.free_cpu(n));
    host.mem_bytes = std::min(d.mem_bytes, c.free_mem(n));
    if (host.cpu_milli > 0 || host.mem_bytes > 0) Take(c, {n, 0}, host, log);
    uint64_t whole = 0;
    for (uint64_t m = tp.gpu_mask; m; m &= m - 1) {
      const int g = std::countr_zero(m);
      const int32_t take = std::min(d.gpu_milli, c.gpu_free_milli(n, g));
      if (take == kMilliPerUnit) {
        whole |= uint64_t{1} << g;
      } else if (take > 0) {
        TaskDemand part;
        part.gpus = 1;
        part.gpu_milli = take;
        Take(c, {n, uint64_t{1} << g}, part, log);
      }
    }
    if (whole) {
      TaskDemand gpus;
      gpus.gpus = std::popcount(whole);
      Take(c, {n, whole}, gpus, log);
    }
    return false;
  }
  // Allocates d at tp and logs it; false (nothing changed) if it does not fit.
  static bool Take(ClusterState& c, const TaskPlacement& tp, const TaskDemand& d,
                   std::vector<Piece>* log) {
    if (!c.Allocate(tp, d).ok()) return false;
    log->push_back({tp, d, false});
    return true;
  }

  ConservativeBackfillOptions options_;
  // Per-pass state, kept as members so their buffers are reused.
  PassContext* ctx_ = nullptr;
  std::vector<Held> running_;     // including jobs started this pass
  std::vector<uint32_t> by_end_;  // running_ ids by estimated end
  size_t released_ = 0;           // by_end_[0, released_) are released on the cluster
  std::vector<Reservation> reservations_;
  std::vector<Micros> times_;     // candidate start times, ascending, unique
  std::vector<Segment> profile_;  // holders' summed usage over time, from now (ascending)
  std::vector<Segment> ends_;     // scratch for building profile_
  Usage capacity_;                // the cluster's totals
  std::vector<std::vector<TaskRef>> by_node_;  // holders' tasks on each node
  std::vector<NodeIndex> used_nodes_;          // nodes with a non-empty by_node_
  std::vector<std::vector<Piece>> log_;        // adjustments made on each node
  std::vector<NodeIndex> adjusted_;            // nodes re-synced since the last UndoAll
  std::vector<char> listed_;                   // n is in adjusted_
  std::vector<char> linear_;                   // n's adjustments are applied flags (Resync)
  std::vector<char> dirty_;                    // n is in touched_
  std::vector<NodeIndex> touched_;
  // The pass's job shapes, numbered as they are met.
  uint32_t ShapeId(const JobShape& s) {
    const uint32_t id =
        shape_ids_.emplace(s, static_cast<uint32_t>(shape_ids_.size())).first->second;
    if (frontiers_.size() <= id) frontiers_.resize(id + 1);
    return id;
  }

  // What an earlier job of a shape proved: every candidate time below
  // `before` that was in times_ then (the first `seq` of inserted_, and all
  // times the pass began with) fails for the shape with any estimate >= est.
  // It does, whichever rule skipped or failed it then: the holders over an
  // interval only grow during a pass, a longer estimate's interval contains
  // the shorter one's, so MayFit, failed_ and Place fail there again. The
  // frontier only skips candidates that would be skipped or fail anyway: no
  // Place call, failed_ entry or decision changes.
  struct Frontier {
    Micros est;
    Micros before;
    size_t seq;
  };
  // The frontier of `shape` with the latest `before` among those with est <=
  // `est`, or nullptr.
  const Frontier* FrontierOf(uint32_t shape, Micros est) const {
    const Frontier* best = nullptr;
    for (const Frontier& f : frontiers_[shape])
      if (f.est <= est && (!best || f.before > best->before)) best = &f;
    return best;
  }
  // Keeps f, less the frontiers it makes redundant (a longer or equal
  // estimate, an earlier or equal bound, no later seq); at most 8 a shape
  // (the one with the earliest bound goes).
  void AddFrontier(uint32_t shape, const Frontier& f) {
    if (f.before <= times_.front()) return;  // proves nothing
    auto& v = frontiers_[shape];
    std::erase_if(v, [&](const Frontier& o) { return o.est >= f.est && o.before <= f.before; });
    v.push_back(f);
    if (v.size() > 8)
      v.erase(std::min_element(v.begin(), v.end(), [](const Frontier& a, const Frontier& b) {
        return a.before < b.before;
      }));
  }
  std::vector<std::vector<Frontier>> frontiers_;  // by shape id
  std::vector<Micros> inserted_;                  // times added to times_ this pass, in order
  std::vector<Micros> late_;  // scratch: a job's candidates newer than its frontier
  std::unordered_map<JobShape, uint32_t, ShapeHash> shape_ids_;
  // (shape id, candidate time) -> shortest estimate that did not fit there.
  FailedTable failed_;
};

}  // namespace

std::unique_ptr<Scheduler> MakeEasyBackfill(std::string label,
                                            std::unique_ptr<PlacementPolicy> placement) {
  return std::make_unique<EasyBackfill>(std::move(label), std::move(placement));
}

std::unique_ptr<Scheduler> MakeConservativeBackfill(std::string label,
                                                    std::unique_ptr<PlacementPolicy> placement) {
  return MakeConservativeBackfillWith(std::move(label), std::move(placement),
                                      ConservativeBackfillOptions{});
}

std::unique_ptr<Scheduler> MakeConservativeBackfillWith(std::string label,
                                                        std::unique_ptr<PlacementPolicy> placement,
                                                        ConservativeBackfillOptions options) {
  return std::make_unique<ConservativeBackfill>(std::move(label), std::move(placement), options);
}

}  // namespace utilsim
