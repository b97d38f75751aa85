// Dynamic MIG repartitioning placement (mig_repartition.h, docs/mig.md).
#include "utilsim/policies/mig_repartition.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <deque>
#include <functional>
#include <optional>
#include <set>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

namespace utilsim {
namespace {

constexpr int64_t kNoJob = -1;

struct Gpu {
  NodeIndex node = 0;
  int index = 0;  // on the node
  mig::MigGpu mg;
  std::array<int64_t, mig::kMemorySlices> job{};       // by start: job index or kNoJob
  std::array<int64_t, mig::kMemorySlices> prev_job{};  // Reconcile's scratch
  std::array<Micros, mig::kMemorySlices> idle_since{};
  std::array<Micros, mig::kMemorySlices> end{};  // busy: start + recorded runtime
  // A created instance is kept for its profile's jobs until the pass at its
  // ready time has run (no other change may destroy it before).
  std::array<Micros, mig::kMemorySlices> fresh_until{};
  uint32_t version = 0;  // bumped on every change within a pass (option cache)
  bool plan = false;     // a drain plan waits
  mig::Layout target;
  uint8_t destroy_mask = 0;  // memory slices of the instances the plan destroys
  Micros plan_at{0};

  std::vector<int8_t> plain;  // by profile: mig::PlainProfile (looked up once)

  explicit Gpu(mig::MigGpu g) : mg(std::move(g)) {
    job.fill(kNoJob);
    fresh_until.fill(Micros(-1));
    const mig::GpuModel& m = mg.model();
    for (size_t p = 0; p < m.profiles.size(); ++p)
      plain.push_back(static_cast<int8_t>(mig::PlainProfile(m, static_cast<int>(p))));
  }
  const mig::Profile& prof(const mig::Instance& x) const {
    return mg.model().profiles[static_cast<size_t>(x.profile)];
  }
  int Plain(const mig::Instance& x) const { return plain[static_cast<size_t>(x.profile)]; }
  int BusySlices() const {
    int s = 0;
    for (const mig::Instance& x : mg.layout())
      if (job[static_cast<size_t>(x.start)] != kNoJob) s += prof(x).compute_slices;
    return s;
  }
};

// A candidate change of one GPU.
struct Option {
  Micros ready = kNever;  // when the new instance is ready
  int busy = 0;           // busy compute slices on the GPU (more = better)
  int32_t gpu = -1;
  mig::Layout target;
  uint8_t destroy = 0;  // memory slices of destroyed instances
  bool room = false;    // P fits in free slices: target chosen by Materialize
  bool noop = false;    // the GPU already has an idle, ready instance of P
  bool operator<(const Option& o) const {
    if (ready != o.ready) return ready < o.ready;
    if (busy != o.busy) return busy > o.busy;
    return gpu < o.gpu;
  }
};

class MigRepartition final : public PlacementPolicy {
 public:
  MigRepartition(std::unique_ptr<PlacementPolicy> inner, MigRepartitionParams params,
                 std::shared_ptr<MigReconfigStats> stats)
      : inner_(std::move(inner)), params_(params), stats_(std::move(stats)) {
    if (!stats_) stats_ = std::make_shared<MigReconfigStats>();
  }

  PolicyId id() const override {
    PolicyId i = inner_->id();
    i.name += "+mig-repartition";
    return i;
  }

  // The index of `job` in the workload, or kNoJob: by address when it is one
  // of the workload's jobs (the usual case), else by name.
  int64_t IndexOf(const Job& job) const {
    if (w_) {
      const std::less<const Job*> before;
      const Job* first = w_->jobs.data();
      if (!before(&job, first) && before(&job, first + w_->jobs.size())) return &job - first;
    }
    auto it = index_.find(job.name);
    return it == index_.end() ? kNoJob : it->second;
  }

  void Init(const Workload& w) override {
    inner_->Init(w);
    w_ = &w;
    index_.clear();
    running_.assign(w.jobs.size(), 0);
    for (size_t j = 0; j < w.jobs.size(); ++j)
      index_.emplace(w.jobs[j].name, static_cast<JobIndex>(j));
    built_ = false;
    gpus_.clear();
    node_gpus_.clear();
    pending_.clear();
    assigned_.clear();
    *stats_ = MigReconfigStats{};
  }

  void BeginPass(PassContext& ctx) override {
    inner_->BeginPass(ctx);
    if (w_ != &ctx.workload()) Init(ctx.workload());  // a scheduler that did not call Init
    ctx_ = &ctx;
    live_ = &ctx.cluster();
    now_ = ctx.now();
    if (!built_) Build(*live_);
    if (gpus_.empty()) return;
    Reconcile(ctx);
    for (Gpu& g : gpus_)
      if (g.plan && g.mg.MustDrain(g.target).empty()) Apply(&g, g.target, true);
    while (!pending_.empty() && *pending_.begin() <= now_) pending_.erase(pending_.begin());
    failed_.clear();
    drain_tried_.clear();
    waiting_.clear();
    ++pass_id_;
    counts_dirty_ = true;
    claims_.fill(0);
    for (const Gpu& g : gpus_) {
      for (const mig::Instance& x : g.mg.layout())
        if (g.job[static_cast<size_t>(x.start)] == kNoJob && g.mg.ready_at(x.start) > now_)
          ++claims_[static_cast<size_t>(g.Plain(x))];
      if (g.plan)
        for (const mig::Instance& x : g.target)
          if (g.mg.Find(x.start) < 0 || g.mg.layout()[static_cast<size_t>(g.mg.Find(x.start))] != x)
            ++claims_[static_cast<size_t>(g.Plain(x))];
    }
  }

  std::optional<Placement> Place(const Job& job, ModelMask mask, ClusterState& c) override {
    if (!built_ || gpus_.empty() || job.task.gpus == 0) return inner_->Place(job, mask, c);
    const int P = job.task.mig_profile;
    if (P < 0) return PlaceOutside(job, mask, c);
    const bool live = &c == live_;
    if (auto p = TryReady(job, P, mask, c, live)) return p;
    if (IsFull(P) && (mask & nonmig_mask_) != 0)
      if (auto q = PlaceOutside(job, mask & nonmig_mask_, c)) return q;
    if (!live) return std::nullopt;
    // A scheduler may ask for one job several times in a pass (backfilling's
    // planning, a preemption attempt): it claims or orders a change once.
    if (const int64_t idx = IndexOf(job); idx != kNoJob) {
      const auto j = static_cast<JobIndex>(idx);
      if (std::find(waiting_.begin(), waiting_.end(), j) != waiting_.end()) return std::nullopt;
      waiting_.push_back(j);
    }
    const int64_t k = int64_t{job.tasks} * job.task.gpus;
    int64_t& claim = claims_[static_cast<size_t>(P)];
    if (claim >= k) {
      claim -= k;
      return std::nullopt;
    }
    if (Repartition(job, P, mask, c)) {
      // With zero change times the new instances are ready now.
      return TryReady(job, P, mask, c, true);
    }
    if (params_.drain && job.tasks == 1) Drain(job, P, mask, c);
    return std::nullopt;
  }

  Micros NextWakeup(Micros now) const override {
    Micros w = inner_->NextWakeup(now);
    auto it = pending_.upper_bound(now);
    if (it != pending_.end()) w = std::min(w, *it);
    return w;
  }

 private:
  bool IsFull(int P) const {
    return gpus_.front().mg.model().profiles[static_cast<size_t>(P)].compute_slices ==
           mig::kComputeSlices;
  }

  void Build(const ClusterState& c) {
    built_ = true;
    node_gpus_.assign(c.num_nodes(), {0, 0});
    for (NodeIndex n = 0; n < c.num_nodes(); ++n) {
      const NodeInfo& info = c.node(n);
      node_gpus_[n] = {static_cast<int32_t>(gpus_.size()), static_cast<int32_t>(gpus_.size())};
      if (info.model < 0 || info.gpus == 0) continue;
      const NodeGroup& grp = c.spec().groups[static_cast<size_t>(info.group)];
      const mig::GpuModel* m = grp.mig.empty() ? nullptr : mig::FindGpuModel(grp.gpu_model);
      if (!m) {
        nonmig_mask_ |= ModelMask{1} << info.model;
        continue;
      }
      for (int i = 0; i < info.gpus; ++i) {
        const std::string& text =
            grp.mig.size() == 1 ? grp.mig[0] : grp.mig[static_cast<size_t>(i)];
        auto layout = mig::ParseLayout(*m, text);  // validated by the cluster reader
        auto g =
            mig::MigGpu::Create(*m, layout.ok() ? layout.value() : mig::Layout{}, params_.times);
        if (!g.ok()) g = mig::MigGpu::Create(*m, {}, params_.times);
        Gpu gpu(std::move(g).value());
        gpu.node = n;
        gpu.index = i;
        gpus_.push_back(std::move(gpu));
      }
      node_gpus_[n].second = static_cast<int32_t>(gpus_.size());
    }
    cache_.assign(gpus_.size() * mig::kMemorySlices, Cached{});
    node_version_.assign(c.num_nodes(), 0);
    node_options_.assign(static_cast<size_t>(c.num_nodes()) * mig::kMemorySlices, NodeOptions{});
  }

  // The inner policy on the GPUs of non-managed nodes: the managed GPUs' free
  // shares are held while it searches (the state is left as found).
  std::optional<Placement> PlaceOutside(const Job& job, ModelMask mask, ClusterState& c) {
    std::vector<std::pair<TaskPlacement, TaskDemand>> held;
    for (const Gpu& g : gpus_) {
      const int32_t free = c.gpu_free_milli(g.node, g.index);
      if (free <= 0) continue;
      TaskDemand d;
      d.gpus = 1;
      d.gpu_milli = free;
      const TaskPlacement t{g.node, uint64_t{1} << g.index};
      if (c.Allocate(t, d).ok()) held.emplace_back(t, d);
    }
    auto p = inner_->Place(job, mask, c);
    for (auto it = held.rbegin(); it != held.rend(); ++it) c.Release(it->first, it->second);
    if (p && UsesManaged(*p)) return std::nullopt;
    return p;
  }

  bool Managed(NodeIndex n) const {
    return n < node_gpus_.size() && node_gpus_[n].second > node_gpus_[n].first;
  }
  bool UsesManaged(const Placement& p) const {
    for (const TaskPlacement& t : p)
      if (t.gpu_mask != 0 && Managed(t.node)) return true;
    return false;
  }

  // Frees every instance, then marks those of running jobs busy again.
  void Reconcile(PassContext& ctx) {
    for (Gpu& g : gpus_) {
      g.prev_job = g.job;
      for (const mig::Instance& x : g.mg.layout()) {
        if (g.job[static_cast<size_t>(x.start)] == kNoJob) continue;
        (void)g.mg.FinishJob(x.start);
        g.job[static_cast<size_t>(x.start)] = kNoJob;
      }
    }
    for (JobIndex j : ctx.running()) {
      auto it = assigned_.find(j);
      if (it == assigned_.end()) continue;
      running_[j] = 1;
      for (const auto& [gi, start] : it->second) {
        Gpu& g = gpus_[static_cast<size_t>(gi)];
        if (g.mg.Find(start) < 0 || g.job[static_cast<size_t>(start)] != kNoJob) continue;
        if (g.mg.StartJob(start, now_).ok()) {
          g.job[static_cast<size_t>(start)] = j;
          g.end[static_cast<size_t>(start)] = ctx.started_at(j) + w_->jobs[j].runtime;
        }
      }
    }
    // Forget jobs that ended, were preempted or never started.
    std::erase_if(assigned_, [&](const auto& kv) { return !running_[kv.first]; });
    for (const auto& kv : assigned_) running_[kv.first] = 0;
    for (Gpu& g : gpus_)
      for (const mig::Instance& x : g.mg.layout()) {
        const size_t s = static_cast<size_t>(x.start);
        if (g.prev_job[s] != kNoJob && g.job[s] == kNoJob) g.idle_since[s] = now_;
      }
  }

  // Changes g to `target` now (its destroyed instances are idle).
  void Apply(Gpu* g, const mig::Layout& target, bool from_drain) {
    const mig::Layout before = g->mg.layout();
    auto in = [](const mig::Layout& l, const mig::Instance& x) {
      return std::find(l.begin(), l.end(), x) != l.end();
    };
    const Micros cost = g->mg.Cost(target);
    auto done = g->mg.Reconfigure(target, now_);
    if (!done.ok()) return;  // cannot happen: callers checked the drain rule
    MigReconfigStats& st = *stats_;
    ++st.reconfigurations;
    st.change_s += cost.seconds();
    if (from_drain) {
      ++st.after_drain;
      st.drain_wait_s += (now_ - g->plan_at).seconds();
    }
    for (const mig::Instance& x : before) {
      if (in(target, x)) continue;
      ++st.destroyed;
      if (from_drain) {
        const Micros from = std::max(g->idle_since[static_cast<size_t>(x.start)], g->plan_at);
        st.drain_idle_slice_s += (now_ - from).seconds() * g->prof(x).compute_slices;
      }
    }
    for (const mig::Instance& x : target) {
      if (in(before, x)) continue;
      ++st.created;
      st.creating_slice_s += (done.value() - now_).seconds() * g->prof(x).compute_slices;
      g->job[static_cast<size_t>(x.start)] = kNoJob;
      g->idle_since[static_cast<size_t>(x.start)] = done.value();
      g->fresh_until[static_cast<size_t>(x.start)] = done.value();
    }
    if (done.value() > now_) pending_.insert(done.value());
    counts_dirty_ = true;
    Bump(g);
    g->plan = false;
    g->destroy_mask = 0;
    g->target.clear();
  }

  bool CpuFits(const ClusterState& c, NodeIndex n, const Job& job,
               const std::vector<std::pair<NodeIndex, int>>& used) const {
    int64_t k = 1;
    for (const auto& [node, count] : used)
      if (node == n) k += count;
    return c.free_cpu(n) >= k * job.task.cpu_milli && c.free_mem(n) >= k * job.task.mem_bytes;
  }
  static void Use(std::vector<std::pair<NodeIndex, int>>* used, NodeIndex n) {
    for (auto& [node, count] : *used)
      if (node == n) {
        ++count;
        return;
      }
    used->push_back({n, 1});
  }

  // Start of an idle, ready instance of P on g that no drain destroys and
  // that is not in `taken`, or -1.
  int ReadyIdle(const Gpu& g, int gi, int P,
                const std::vector<std::pair<int32_t, int>>& taken) const {
    for (const mig::Instance& x : g.mg.layout()) {
      const size_t s = static_cast<size_t>(x.start);
      if (g.Plain(x) != P || g.job[s] != kNoJob) continue;
      if (g.mg.ready_at(x.start) > now_) continue;
      if (g.plan && (g.prof(x).Mask(x.start) & g.destroy_mask)) continue;
      if (std::find(taken.begin(), taken.end(), std::pair<int32_t, int>{gi, x.start}) !=
          taken.end())
        continue;
      return x.start;
    }
    return -1;
  }

  // Idle, ready instances per plain profile that no drain destroys.
  void CountReady() {
    ready_idle_.fill(0);
    node_ready_.assign(node_gpus_.size(), {});
    for (const Gpu& g : gpus_)
      for (const mig::Instance& x : g.mg.layout()) {
        const size_t xs = static_cast<size_t>(x.start);
        if (g.job[xs] != kNoJob || g.mg.ready_at(x.start) > now_) continue;
        if (g.plan && (g.prof(x).Mask(x.start) & g.destroy_mask)) continue;
        ++ready_idle_[static_cast<size_t>(g.Plain(x))];
        ++node_ready_[g.node][static_cast<size_t>(g.Plain(x))];
      }
    counts_dirty_ = false;
  }

  std::optional<Placement> TryReady(const Job& job, int P, ModelMask mask, const ClusterState& c,
                                    bool commit) {
    if (counts_dirty_) CountReady();
    if (ready_idle_[static_cast<size_t>(P)] < int64_t{job.tasks} * job.task.gpus)
      return std::nullopt;
    Placement out;
    std::vector<std::pair<int32_t, int>> taken;  // (gpu, start)
    std::vector<std::pair<NodeIndex, int>> used;
    const size_t need = static_cast<size_t>(job.task.gpus);
    std::vector<std::tuple<int, int32_t, int>> cand;  // (-busy, gpu, start)
    std::vector<std::pair<int32_t, int>> best;
    for (int t = 0; t < job.tasks; ++t) {
      int best_score = -1;
      NodeIndex best_node = 0;
      best.clear();
      for (NodeIndex n = 0; n < node_gpus_.size(); ++n) {
        // No idle, ready instance of P there: no GPU of n is a candidate.
        if (params_.memoize && need > 0 && node_ready_[n][static_cast<size_t>(P)] == 0) continue;
        if (!Managed(n) || !c.ModelAllowed(n, mask) || !CpuFits(c, n, job, used)) continue;
        cand.clear();
        for (int32_t gi = node_gpus_[n].first; gi < node_gpus_[n].second; ++gi) {
          const Gpu& g = gpus_[static_cast<size_t>(gi)];
          const int s = ReadyIdle(g, gi, P, taken);
          if (s >= 0) cand.emplace_back(-g.BusySlices(), gi, s);
        }
        if (cand.size() < need) continue;
        std::sort(cand.begin(), cand.end());
        int score = 0;
        for (size_t i = 0; i < need; ++i) score -= std::get<0>(cand[i]);
        if (score > best_score) {
          best_score = score;
          best_node = n;
          best.clear();
          for (size_t i = 0; i < need; ++i)
            best.emplace_back(std::get<1>(cand[i]), std::get<2>(cand[i]));
        }
      }
      if (best_score < 0) return std::nullopt;
      TaskPlacement tp{best_node, 0};
      for (const auto& [gi, s] : best) {
        tp.gpu_mask |= uint64_t{1} << gpus_[static_cast<size_t>(gi)].index;
        taken.emplace_back(gi, s);
      }
      out.push_back(tp);
      Use(&used, best_node);
    }
    if (commit) {
      const int64_t j = IndexOf(job);
      for (const auto& [gi, s] : taken) {
        Gpu& g = gpus_[static_cast<size_t>(gi)];
        if (!g.mg.StartJob(s, now_).ok()) return std::nullopt;
        g.job[static_cast<size_t>(s)] = j;
        g.end[static_cast<size_t>(s)] = now_ + job.runtime;
        Bump(&g);
      }
      ready_idle_[static_cast<size_t>(P)] -= static_cast<int64_t>(taken.size());
      for (const auto& [gi, start] : taken)
        --node_ready_[gpus_[static_cast<size_t>(gi)].node][static_cast<size_t>(P)];
      if (j != kNoJob) {
        assigned_[static_cast<JobIndex>(j)] = taken;
      }
    }
    return out;
  }

  // A change of g: its cached options, and its node's, are stale.
  void Bump(Gpu* g) {
    ++g->version;
    ++node_version_[g->node];
  }

  // When the job on the busy instance at `start` of g is expected to end:
  // its start + its recorded runtime (an estimate), not before now.
  Micros ExpectedEnd(const Gpu& g, int start) const {
    return std::max(now_, g.end[static_cast<size_t>(start)]);
  }

  // The best change of g that adds an instance of P: destroying only idle,
  // ready instances (drain = false), or also busy ones (drain = true).
  std::optional<Option> BestChange(const Gpu& g, int32_t gi, int P, bool drain) const {
    const mig::GpuModel& m = g.mg.model();
    const mig::Profile& p = m.profiles[static_cast<size_t>(P)];
    const Micros begin = std::max(now_, g.mg.change_done_at());
    std::optional<Option> best;
    auto consider = [&](mig::Layout target, uint8_t destroy, Micros drained, int lost) {
      if (!mig::CheckLayout(m, target).ok()) return;
      mig::Layout sorted = target;
      std::sort(sorted.begin(), sorted.end(),
                [](const mig::Instance& a, const mig::Instance& b) { return a.start < b.start; });
      if (sorted == g.mg.layout()) return;  // P is already there: not a change
      Option o;
      o.ready = std::max(begin, drained) + g.mg.Cost(target);
      o.busy = g.BusySlices() * 8 - lost;  // more busy, then fewer slices destroyed
      o.gpu = gi;
      o.target = std::move(target);
      o.destroy = destroy;
      if (!best || o < *best) best = std::move(o);
    };
    if (ReadyIdle(g, gi, P, {}) >= 0) {  // already there: a member without a change
      Option o;
      o.ready = now_;
      o.busy = g.BusySlices() * 8;
      o.gpu = gi;
      o.noop = true;
      return o;
    }
    // Memory slices in use, and those no change may touch now (busy unless
    // draining, being created, or fresh).
    uint8_t occupied = 0, blocked = 0;
    for (const mig::Instance& x : g.mg.layout()) {
      const uint8_t xm = g.prof(x).Mask(x.start);
      const size_t xs = static_cast<size_t>(x.start);
      occupied |= xm;
      if (g.mg.ready_at(x.start) > now_ || g.fresh_until[xs] >= now_ ||
          (!drain && g.job[xs] != kNoJob))
        blocked |= xm;
    }
    bool room = false, any = false;
    for (int s = 0; s < mig::kMemorySlices; ++s) {
      if (!p.ValidStart(s)) continue;
      room = room || !(p.Mask(s) & occupied);
      any = any || !(p.Mask(s) & blocked);
    }
    if (!any) return std::nullopt;
    if (room) {  // room without destroying: one create; the slot is chosen if taken
      Option o;
      o.ready = begin + g.mg.times().fixed + g.mg.times().create;
      o.busy = g.BusySlices() * 8;
      o.gpu = gi;
      o.room = true;
      return o;
    }
    // Destroy the instances overlapping P's slot at `at`, when allowed.
    auto try_slot = [&](int at) {
      const uint8_t slot = p.Mask(at);
      mig::Layout t;
      uint8_t destroy = 0;
      Micros drained = now_;
      int lost = 0;
      for (const mig::Instance& x : g.mg.layout()) {
        const uint8_t xm = g.prof(x).Mask(x.start);
        if (!(xm & slot)) {
          t.push_back(x);
          continue;
        }
        const size_t xs = static_cast<size_t>(x.start);
        if (g.mg.ready_at(x.start) > now_ || g.fresh_until[xs] >= now_) return false;
        const int64_t j = g.job[xs];
        if (j != kNoJob) {
          if (!drain) return false;
          drained = std::max(drained, ExpectedEnd(g, x.start));
          if (drained >= bound_) return false;  // cannot beat the wait without it
        }
        destroy |= xm;
        lost += g.prof(x).compute_slices;
      }
      t.push_back({P, at});
      consider(std::move(t), destroy, drained, lost);
      return true;
    };
    // For each valid slot: free it, then let the slot choice pick P's start
    // in the freed layout (keeping the largest free region); only the
    // instances overlapping that start go. Falls back to the slot itself.
    for (int s = 0; s < mig::kMemorySlices; ++s) {
      if (!p.ValidStart(s) || (p.Mask(s) & blocked)) continue;
      if (drain) {  // the slot itself (the slot choice costs; drains are rare)
        try_slot(s);
        continue;
      }
      mig::Layout base;
      for (const mig::Instance& x : g.mg.layout())
        if (!(g.prof(x).Mask(x.start) & p.Mask(s))) base.push_back(x);
      const std::optional<int> at = mig::ChooseStart(m, base, P);
      if (!(at && try_slot(*at))) try_slot(s);
    }
    return best;
  }

  // The options of node n's GPUs for P not in `chosen` (cached per GPU
  // without drain; with drain computed, and kept in *drained).
  void CollectOptions(NodeIndex n, int P, bool drain, const std::vector<Option>& chosen,
                      std::deque<Option>* drained, std::vector<const Option*>* out) const {
    for (int32_t gi = node_gpus_[n].first; gi < node_gpus_[n].second; ++gi) {
      const Gpu& g = gpus_[static_cast<size_t>(gi)];
      if (g.plan) continue;
      if (std::any_of(chosen.begin(), chosen.end(), [&](const Option& o) { return o.gpu == gi; }))
        continue;
      if (drain) {
        if (auto o = BestChange(g, gi, P, true)) {
          drained->push_back(std::move(*o));
          out->push_back(&drained->back());
        }
        continue;
      }
      // Without drains a GPU's option depends only on its own state: cached
      // per pass until the GPU changes.
      Cached& e = cache_[static_cast<size_t>(gi) * mig::kMemorySlices + static_cast<size_t>(P)];
      if (e.pass != pass_id_ || e.version != g.version) {
        e.option = BestChange(g, gi, P, false);
        e.pass = pass_id_;
        e.version = g.version;
      }
      if (e.option) out->push_back(&*e.option);
    }
  }

  // Node n's options for P without drain, sorted (NodeOptions).
  const std::vector<const Option*>& NodeOptionsOf(NodeIndex n, int P) const {
    NodeOptions& e =
        node_options_[static_cast<size_t>(n) * mig::kMemorySlices + static_cast<size_t>(P)];
    if (e.pass != pass_id_ || e.version != node_version_[n]) {
      e.sorted.clear();
      CollectOptions(n, P, false, {}, nullptr, &e.sorted);
      // Options of distinct GPUs never compare equal: the order is total.
      std::sort(e.sorted.begin(), e.sorted.end(),
                [](const Option* a, const Option* b) { return *a < *b; });
      e.pass = pass_id_;
      e.version = node_version_[n];
    }
    return e.sorted;
  }

  // Per task a node and GPUs whose change ends first; all tasks or nothing.
  std::optional<std::vector<Option>> ChooseChanges(const Job& job, int P, ModelMask mask,
                                                   const ClusterState& c, bool drain) const {
    const auto key = std::make_tuple(drain, P, mask);
    if (std::find(failed_.begin(), failed_.end(), key) != failed_.end()) return std::nullopt;
    std::vector<Option> chosen;
    std::vector<std::pair<NodeIndex, int>> used;
    const size_t need = static_cast<size_t>(job.task.gpus);
    bool any = false;  // some GPU had an option, CPU aside
    // Candidates by address: the cached options, or (drains) options kept
    // here until the end; only the chosen ones are copied.
    std::deque<Option> drained;
    std::vector<const Option*> cand, best;
    auto before = [](const Option* a, const Option* b) { return *a < *b; };
    for (int t = 0; t < job.tasks; ++t) {
      std::optional<std::pair<Micros, int>> best_key;
      best.clear();
      for (NodeIndex n = 0; n < node_gpus_.size(); ++n) {
        if (!Managed(n) || !c.ModelAllowed(n, mask)) continue;
        // A node whose CPU cannot take the task only tells whether some GPU
        // has an option: once one has, it need not be looked at.
        const bool fits = CpuFits(c, n, job, used);
        if (!fits && any) continue;
        cand.clear();
        if (!drain && chosen.empty() && params_.memoize) {
          // No GPU excluded yet: the node's sorted options, kept per pass
          // while none of its GPUs changes.
          const std::vector<const Option*>& all = NodeOptionsOf(n, P);
          any = any || !all.empty();
          if (all.size() < need || !fits) continue;
          cand.assign(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(need));
        } else {
          CollectOptions(n, P, drain, chosen, &drained, &cand);
          any = any || !cand.empty();
          if (cand.size() < need || !fits) continue;
          // Options of distinct GPUs never compare equal: the order is total.
          std::sort(cand.begin(), cand.end(), before);
          cand.resize(need);
        }
        Micros ready{0};
        int busy = 0;
        for (const Option* o : cand) ready = std::max(ready, o->ready), busy += o->busy;
        const std::pair<Micros, int> rank{ready, -busy};
        if (!best_key || rank < *best_key) {
          best_key = rank;
          best.swap(cand);
        }
      }
      if (!best_key) {
        // Within a pass options only shrink: no GPU has one for P now, none
        // will later in the pass.
        if (!any && t == 0) failed_.push_back(key);
        return std::nullopt;
      }
      Use(&used, gpus_[static_cast<size_t>(best.front()->gpu)].node);
      for (const Option* o : best) chosen.push_back(*o);
    }
    return chosen;
  }

  // A room option's target: the slot choice (ChooseStart) on the layout.
  bool Materialize(Option* o, int P) const {
    if (!o->room || o->noop) return true;
    const Gpu& g = gpus_[static_cast<size_t>(o->gpu)];
    const std::optional<int> s = mig::ChooseStart(g.mg.model(), g.mg.layout(), P);
    if (!s) return false;
    o->target = g.mg.layout();
    o->target.push_back({P, *s});
    return true;
  }

  bool Repartition(const Job& job, int P, ModelMask mask, const ClusterState& c) {
    auto chosen = ChooseChanges(job, P, mask, c, false);
    if (!chosen) return false;
    for (Option& o : *chosen)
      if (!Materialize(&o, P)) return false;
    bool changed = false;
    for (const Option& o : *chosen) {
      if (o.noop) continue;
      Apply(&gpus_[static_cast<size_t>(o.gpu)], o.target, false);
      changed = true;
    }
    return changed;
  }

  void Drain(const Job& job, int P, ModelMask mask, const ClusterState& c) {
    // One drain evaluation per profile and mask per pass (a stated
    // simplification: a later job of the profile with other host requests
    // is not evaluated again until the next pass).
    const auto key = std::make_tuple(true, P, mask);
    if (std::find(drain_tried_.begin(), drain_tried_.end(), key) != drain_tried_.end()) return;
    drain_tried_.push_back(key);
    // The wait without repartitioning: the earliest expected end of a busy
    // instance of P the job may use.
    Micros natural = kNever;
    for (NodeIndex n = 0; n < node_gpus_.size(); ++n) {
      if (!Managed(n) || !c.ModelAllowed(n, mask)) continue;
      for (int32_t gi = node_gpus_[n].first; gi < node_gpus_[n].second; ++gi) {
        const Gpu& g = gpus_[static_cast<size_t>(gi)];
        for (const mig::Instance& x : g.mg.layout()) {
          const int64_t j = g.job[static_cast<size_t>(x.start)];
          if (j == kNoJob || g.Plain(x) != P) continue;
          if (g.plan && (g.prof(x).Mask(x.start) & g.destroy_mask)) continue;
          natural = std::min(natural, ExpectedEnd(g, x.start));
        }
      }
    }
    bound_ = natural;
    auto chosen = ChooseChanges(job, P, mask, c, true);
    bound_ = kNever;
    if (!chosen) return;
    for (Option& o : *chosen)
      if (!Materialize(&o, P)) return;
    Micros ready{0};
    for (const Option& o : *chosen) ready = std::max(ready, o.ready);
    if (!(ready < natural)) return;
    for (const Option& o : *chosen) {
      if (o.noop) continue;
      Gpu& g = gpus_[static_cast<size_t>(o.gpu)];
      ++stats_->drains;
      g.plan = true;
      g.target = o.target;
      g.destroy_mask = o.destroy;
      g.plan_at = now_;
      counts_dirty_ = true;
      Bump(&g);
      if (g.mg.MustDrain(g.target).empty()) Apply(&g, g.target, true);
    }
  }

  std::unique_ptr<PlacementPolicy> inner_;
  MigRepartitionParams params_;
  std::shared_ptr<MigReconfigStats> stats_;
  const Workload* w_ = nullptr;
  std::unordered_map<std::string, JobIndex> index_;
  bool built_ = false;
  std::vector<Gpu> gpus_;
  std::vector<std::pair<int32_t, int32_t>> node_gpus_;  // per node: [first, last) in gpus_
  ModelMask nonmig_mask_ = 0;                           // models of non-managed GPU groups
  PassContext* ctx_ = nullptr;
  const ClusterState* live_ = nullptr;
  Micros now_{0};
  std::array<int64_t, mig::kMemorySlices> claims_{};  // per plain profile, this pass
  std::multiset<Micros> pending_;                     // ready times of changes in progress
  std::unordered_map<JobIndex, std::vector<std::pair<int32_t, int>>> assigned_;
  std::vector<char> running_;  // Reconcile's scratch, per job (all 0 between passes)
  std::array<int64_t, mig::kMemorySlices> ready_idle_{};  // CountReady
  // The same per node (an upper bound on what ReadyIdle finds there).
  std::vector<std::array<int32_t, mig::kMemorySlices>> node_ready_;
  bool counts_dirty_ = true;
  // (drain, profile, mask) for which no GPU had a change option in this pass.
  mutable std::vector<std::tuple<bool, int, ModelMask>> failed_;
  std::vector<std::tuple<bool, int, ModelMask>> drain_tried_;  // Drain, this pass
  Micros bound_ = kNever;
  std::vector<JobIndex> waiting_;  // jobs that claimed or ordered a change in this pass
  struct Cached {
    uint64_t pass = 0;
    uint32_t version = 0;
    std::optional<Option> option;
  };
  mutable std::vector<Cached> cache_;  // per GPU x profile: BestChange without drain
  // Per node: bumped with each of its GPUs' versions (Bump).
  std::vector<uint64_t> node_version_;
  // Per node x profile: the node's options without drain (ChooseChanges'
  // first task), sorted, while the pass and the node's version hold; they
  // point into cache_, whose entries change only with a GPU's version.
  struct NodeOptions {  // pass 0: never filled (passes count from 1, as for cache_)
    uint64_t pass = 0, version = 0;
    std::vector<const Option*> sorted;
  };
  mutable std::vector<NodeOptions> node_options_;
  uint64_t pass_id_ = 0;  // Drain: options ending at or after it are useless
};

}  // namespace

std::string FormatMigReconfigStats(const MigReconfigStats& s) {
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "mig dynamic: %lld reconfigurations (%lld after drains; %lld drains decided), "
                "%lld instances created, %lld destroyed; change time %.0f s, creating %.2f "
                "slice-h, drain wait %.2f h, drain idle %.2f slice-h",
                static_cast<long long>(s.reconfigurations), static_cast<long long>(s.after_drain),
                static_cast<long long>(s.drains), static_cast<long long>(s.created),
                static_cast<long long>(s.destroyed), s.change_s, s.creating_slice_s / 3600,
                s.drain_wait_s / 3600, s.drain_idle_slice_s / 3600);
  return buf;
}

std::unique_ptr<PlacementPolicy> MakeMigRepartition(std::unique_ptr<PlacementPolicy> inner,
                                                    MigRepartitionParams params,
                                                    std::shared_ptr<MigReconfigStats> stats) {
  return std::make_unique<MigRepartition>(std::move(inner), params, std::move(stats));
}

}  // namespace utilsim
