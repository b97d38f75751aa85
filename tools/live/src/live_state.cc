#include "utilsim/live/live_state.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "utilsim/engine/units.h"

namespace utilsim::live {
namespace {

int64_t NowUnixMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

int64_t Get(const std::map<std::string, int64_t>& m, const std::string& k) {
  auto it = m.find(k);
  return it == m.end() ? 0 : it->second;
}

// Ceiling of a / b for positive b.
// Recommendations kept for pods not yet bound.
constexpr size_t kMaxRecommended = 100000;

int64_t CeilDiv(int64_t a, int64_t b) { return a <= 0 ? 0 : (a + b - 1) / b; }

}  // namespace

Result<TaskDemand> DemandOf(const K8sPod& pod, const ResourceNames& names,
                            int64_t largest_gpu_mem) {
  TaskDemand d;
  d.gpus = 0;
  d.cpu_milli = Get(pod.requests_milli, "cpu");
  d.mem_bytes = CeilDiv(Get(pod.requests_milli, "memory"), 1000);
  int64_t whole_milli = 0;
  for (const std::string& r : names.whole) whole_milli += Get(pod.requests_milli, r);
  int64_t percent_milli = 0, mem_bytes = 0;  // percent x 1000, bytes
  for (const ShareResource& s : names.share) {
    const int64_t v = Get(pod.requests_milli, s.name);
    if (v <= 0) continue;
    switch (s.unit) {
      case ShareResource::Unit::kPercent:
        percent_milli = std::max(percent_milli, v);
        break;
      case ShareResource::Unit::kGpuMemMiB:
        mem_bytes = std::max(mem_bytes, CeilDiv(v, 1000) * (int64_t{1} << 20));
        break;
      case ShareResource::Unit::kGpuMemGiB:
        mem_bytes = std::max(mem_bytes, CeilDiv(v, 1000) * (int64_t{1} << 30));
        break;
    }
  }
  const int64_t whole = CeilDiv(whole_milli, 1000);
  if (percent_milli == 0 && mem_bytes == 0) {
    if (whole > 64) return Status::Error("pod " + pod.key() + " asks for more than 64 GPUs");
    d.gpus = static_cast<int32_t>(whole);
    d.gpu_milli = kMilliPerUnit;
    return d;
  }
  // A share: of one GPU (whole <= 1), or whole GPUs at 100 % and more.
  const int64_t share = CeilDiv(percent_milli, 100);  // percent -> milli-GPU (x1000/100/1000)
  if (percent_milli > 0 && share >= kMilliPerUnit && share % kMilliPerUnit == 0 && whole <= 1) {
    d.gpus = static_cast<int32_t>(share / kMilliPerUnit);  // 200 % = two whole GPUs
    d.gpu_milli = kMilliPerUnit;
    d.gpu_mem_bytes = mem_bytes;
    return d;
  }
  if (whole > 1)
    return Status::Error("pod " + pod.key() + " asks for a share of each of " +
                         std::to_string(whole) + " GPUs, which utilsim does not model");
  if (share > kMilliPerUnit)
    return Status::Error("pod " + pod.key() + " asks for " + std::to_string(percent_milli / 1000) +
                         " % of one GPU (not a whole number of GPUs)");
  d.gpus = 1;
  d.gpu_mem_bytes = mem_bytes;
  if (share > 0) {
    d.gpu_milli = static_cast<int32_t>(std::max<int64_t>(share, 1));
  } else if (largest_gpu_mem > 0) {
    d.gpu_milli = static_cast<int32_t>(
        std::clamp<int64_t>(CeilDiv(mem_bytes * kMilliPerUnit, largest_gpu_mem), 1, kMilliPerUnit));
  } else {
    d.gpu_milli = kMilliPerUnit;
  }
  return d;
}

bool RequestsAny(const K8sPod& pod, const std::vector<std::string>& resources) {
  for (const std::string& r : resources)
    if (Get(pod.requests_milli, r) > 0) return true;
  return false;
}

LiveState::LiveState(LiveStateOptions options) : options_(std::move(options)) {}

Result<std::unique_ptr<LiveState>> LiveState::Create(LiveStateOptions options) {
  const PolicyRegistry& reg = options.registry ? *options.registry : BuiltinPolicies();
  auto probe = reg.MakePlacement(options.policy, options.seed);  // the name and its parameters
  if (!probe.ok()) return probe.status();
  if (options.rank_depth < 1 || options.rank_depth > 10)
    return Status::Error(StatusCode::kInvalidArgument, "rank_depth must be 1..10");
  if (!(options.fallback_util >= 0 && options.fallback_util <= 1))
    return Status::Error(StatusCode::kInvalidArgument, "fallback_util must be 0..1");
  return std::unique_ptr<LiveState>(new LiveState(std::move(options)));
}

void LiveState::OnNode(WatchEvent::Type type, const K8sNode& node) {
  std::lock_guard<std::timed_mutex> lock(mu_);
  last_event_ms_ = NowUnixMs();
  if (type == WatchEvent::Type::kDeleted) {
    dirty_ = nodes_.erase(node.name) > 0 || dirty_;
    if (dirty_ && synced_) RebuildLocked();
    return;
  }
  auto it = nodes_.find(node.name);
  // Only resources and GPU labels change the model; conditions and taints
  // are the scheduler's own filters.
  if (it != nodes_.end() && it->second.allocatable_milli == node.allocatable_milli &&
      it->second.gpu_product() == node.gpu_product() &&
      it->second.labels.count("nvidia.com/gpu.memory") ==
          node.labels.count("nvidia.com/gpu.memory")) {
    it->second = node;
    return;
  }
  nodes_[node.name] = node;
  dirty_ = true;
  if (synced_) RebuildLocked();  // a node came, went or changed: rare once synced
}

void LiveState::OnPod(WatchEvent::Type type, const K8sPod& pod) {
  std::vector<std::pair<bool, BindingSeen>> fire;  // (bound?, what)
  {
    std::lock_guard<std::timed_mutex> lock(mu_);
    last_event_ms_ = NowUnixMs();
    const std::string key = pod.key();
    auto it = pods_.find(key);
    const bool holds =
        type != WatchEvent::Type::kDeleted && !pod.node_name.empty() && !pod.terminal();
    auto seen = [&](const K8sPod& p) {
      BindingSeen b{p.key(), p.uid, p.node_name, {}, NowUnixMs()};
      auto d = DemandOf(p, options_.resources, largest_gpu_mem_);
      if (d.ok()) b.demand = d.value();
      return b;
    };
    if (it != pods_.end() && (!holds || it->second.node_name != pod.node_name)) {
      fire.emplace_back(false, seen(it->second));
      FinishLocked(key);
      pods_.erase(it);
      it = pods_.end();
    }
    if (holds && it == pods_.end()) {
      pods_[key] = pod;
      if (synced_) fire.emplace_back(true, seen(pod));  // the initial list is no binding
      if (!dirty_) StartLocked(pod);
    } else if (holds) {
      it->second = pod;
    }
  }
  for (const auto& [bound, b] : fire) {
    if (bound && on_bound_) on_bound_(b);
    if (!bound && on_finished_) on_finished_(b);
  }
}

void LiveState::OnSynced() {
  std::lock_guard<std::timed_mutex> lock(mu_);
  synced_ = true;
  last_event_ms_ = NowUnixMs();
  // Rebuild here, on the cache's thread, not in the first request's time.
  if (dirty_) RebuildLocked();
}

void LiveState::SetMeasured(std::shared_ptr<const MeasuredSnapshot> snapshot) {
  std::lock_guard<std::timed_mutex> lock(mu_);
  measured_ = std::move(snapshot);
  if (!placer_) return;
  for (const std::string& key : placed_) {
    auto it = pods_.find(key);
    if (it != pods_.end()) (void)placer_->SetUtil(key, UtilOfLocked(it->second));
  }
}

float LiveState::UtilOfLocked(const K8sPod& pod) const {
  if (!measured_) return options_.fallback_util;
  auto p = measured_->pods.find(pod.key());
  if (p != measured_->pods.end()) return static_cast<float>(std::clamp(p->second, 0.0, 1.0));
  auto n = measured_->gpus.find(pod.node_name);
  if (n != measured_->gpus.end() && !n->second.empty()) {
    double sum = 0;
    for (const auto& [gpu, r] : n->second) sum += r.busy;
    return static_cast<float>(std::clamp(sum / static_cast<double>(n->second.size()), 0.0, 1.0));
  }
  return options_.fallback_util;
}

Job LiveState::JobOf(const K8sPod& pod, const TaskDemand& d) const {
  Job j;
  j.name = pod.key();
  j.task = d;
  j.runtime = Seconds(1);
  j.util = UtilOfLocked(pod);
  j.util_known = true;
  return j;
}

void LiveState::StartLocked(const K8sPod& pod) {
  const int64_t n = placer_ ? placer_->NodeIndexOf(pod.node_name) : -1;
  auto d = DemandOf(pod, options_.resources, largest_gpu_mem_);
  if (n < 0 || !d.ok()) return;  // unmodelled (counted by unmodelled_pods)
  const NodeIndex node = static_cast<NodeIndex>(n);
  const ClusterState& c = placer_->state();
  if (!c.CanHost(node, d.value(), kAnyModel)) return;
  Placement p{TaskPlacement{node, c.PickGpus(node, d.value())}};
  // Bound where utilsim recommended: the GPUs the policy chose there (as a
  // simulation would take them), not the default pick.
  auto rec = recommended_.find(pod.key());
  if (rec != recommended_.end()) {
    if (rec->second.size() == 1 && rec->second.front().node == node) p = rec->second;
    recommended_.erase(rec);
  }
  if (placer_->Started(pod.key(), JobOf(pod, d.value()), p).ok()) placed_.insert(pod.key());
}

void LiveState::FinishLocked(const std::string& key) {
  if (placed_.erase(key) && placer_) (void)placer_->Finished(key);
}

void LiveState::RebuildLocked() {
  dirty_ = false;
  placed_.clear();
  recommended_.clear();
  placer_.reset();
  warnings_.clear();
  ClusterSpec spec;
  spec.name = "kubernetes";
  std::map<std::string, int64_t> models;  // product -> largest GPU memory seen
  largest_gpu_mem_ = 0;
  for (const auto& [name, node] : nodes_) {
    NodeGroup g;
    g.name = name;
    g.count = 1;
    g.cpu_milli = Get(node.allocatable_milli, "cpu");
    g.mem_bytes = Get(node.allocatable_milli, "memory") / 1000;
    int64_t gpus = 0;
    for (const std::string& r : options_.resources.node_count)
      if ((gpus = Get(node.allocatable_milli, r) / 1000) > 0) break;
    if (g.cpu_milli <= 0 || g.mem_bytes <= 0 || gpus > 64) {
      warnings_.push_back("node " + name + " left out: " +
                          (gpus > 64 ? "more than 64 GPUs" : "no allocatable cpu or memory"));
      continue;
    }
    g.gpus = static_cast<int32_t>(gpus);
    if (gpus > 0) {
      g.gpu_model = node.gpu_product().empty() ? "gpu" : node.gpu_product();
      int64_t mem = 0;
      auto label = node.labels.find("nvidia.com/gpu.memory");
      if (label != node.labels.end()) {
        try {
          mem = std::stoll(label->second) * (int64_t{1} << 20);
        } catch (...) {
          warnings_.push_back("node " + name + ": label nvidia.com/gpu.memory '" + label->second +
                              "' is not a number of MiB");
        }
      } else if (const int64_t gib = Get(node.allocatable_milli, "aliyun.com/gpu-mem") / 1000;
                 gib > 0) {
        mem = gib * (int64_t{1} << 30) / gpus;
      }
      int64_t& m = models[g.gpu_model];
      m = std::max(m, mem);
      largest_gpu_mem_ = std::max(largest_gpu_mem_, mem);
    }
    spec.groups.push_back(g);
  }
  for (const auto& [name, mem] : models) spec.models.push_back({name, mem, 1.0});
  ++generation_;
  spec_ = spec;
  if (spec.groups.empty()) return;
  auto made =
      Placer::Create(spec, options_.policy,
                     options_.registry ? *options_.registry : BuiltinPolicies(), options_.seed);
  if (!made.ok()) {
    warnings_.push_back("cluster model: " + made.status().message());
    return;
  }
  placer_ = std::move(made).value();
  for (const auto& [key, pod] : pods_) StartLocked(pod);
}

std::vector<NodeIndex> LiveState::IndicesLocked(const std::vector<std::string>& nodes) const {
  std::vector<NodeIndex> out;
  out.reserve(nodes.size());
  for (const std::string& n : nodes) {
    const int64_t i = placer_->NodeIndexOf(n);
    if (i >= 0) out.push_back(static_cast<NodeIndex>(i));
  }
  return out;
}

bool LiveState::BeginDecision(const K8sPod& pod, Deadline deadline,
                              std::unique_lock<std::timed_mutex>* lock, Decision* out) {
  if (!(deadline == Deadline::max() ? (lock->lock(), true) : lock->try_lock_until(deadline))) {
    out->reason = "busy: deadline";
    return false;
  }
  if (!synced_) {
    out->reason = "cluster state not synced yet";
    return false;
  }
  if (dirty_) RebuildLocked();
  auto d = DemandOf(pod, options_.resources, largest_gpu_mem_);
  if (!d.ok()) {
    out->reason = d.status().message();
    return false;
  }
  out->demand = d.value();
  if (!placer_) {
    out->reason = "no node of the cluster can be modelled";
    return false;
  }
  return true;
}

Decision LiveState::Filter(const K8sPod& pod, const std::vector<std::string>& nodes,
                           Deadline deadline) {
  Decision out;
  out.passed = nodes;
  std::unique_lock<std::timed_mutex> lock(mu_, std::defer_lock);
  if (!BeginDecision(pod, deadline, &lock, &out)) return out;
  const Job job = JobOf(pod, out.demand);
  out.opinion = true;
  out.passed.clear();
  for (const std::string& name : nodes) {
    const int64_t n = placer_->NodeIndexOf(name);
    if (n < 0 || placer_->Fits(job, static_cast<NodeIndex>(n))) {
      out.passed.push_back(name);
      continue;
    }
    const ClusterState& c = placer_->state();
    const NodeIndex i = static_cast<NodeIndex>(n);
    std::string why;
    if (c.node(i).gpus < out.demand.gpus) {
      why = "node has " + std::to_string(c.node(i).gpus) + " GPUs";
    } else if (out.demand.fractional()) {
      why = "no single GPU with " + std::to_string(out.demand.gpu_milli) + " milli-GPU" +
            (out.demand.gpu_mem_bytes > 0
                 ? " and " + std::to_string(out.demand.gpu_mem_bytes >> 20) + " MiB GPU memory"
                 : std::string()) +
            " free";
    } else if (c.free_whole_gpus(i) < out.demand.gpus) {
      why = std::to_string(c.free_whole_gpus(i)) + " whole GPUs free, " +
            std::to_string(out.demand.gpus) + " asked";
    } else {
      why = "cpu or memory left after the GPUs' pods";
    }
    out.failed[name] = "utilsim: " + why;
  }
  return out;
}

Decision LiveState::Prioritize(const K8sPod& pod, const std::vector<std::string>& nodes,
                               Deadline deadline) {
  Decision out;
  for (const std::string& n : nodes) out.scores.emplace_back(n, 0);
  std::unique_lock<std::timed_mutex> lock(mu_, std::defer_lock);
  if (!BeginDecision(pod, deadline, &lock, &out)) return out;
  const Job job = JobOf(pod, out.demand);
  if (measured_) {
    auto p = measured_->pods.find(pod.key());
    if (p != measured_->pods.end()) out.pod_util = static_cast<float>(p->second);
  }
  const size_t depth = static_cast<size_t>(options_.rank_depth);
  const std::vector<Placement> ranked = placer_->RankAmong(job, depth, IndicesLocked(nodes));
  std::map<NodeIndex, int64_t> score;
  for (size_t i = 0; i < ranked.size(); ++i) {
    const int64_t s = std::max<int64_t>(1, 10 - static_cast<int64_t>(i * 10 / depth));
    score.emplace(ranked[i].front().node, s);
  }
  out.opinion = true;
  for (auto& [name, s] : out.scores) {
    const int64_t n = placer_->NodeIndexOf(name);
    if (n < 0) continue;
    auto it = score.find(static_cast<NodeIndex>(n));
    if (it != score.end()) {
      s = it->second;
    } else if (placer_->Fits(job, static_cast<NodeIndex>(n))) {
      s = 1;
    }
  }
  if (!ranked.empty()) {
    out.top = placer_->state().node(ranked.front().front().node).name;
    if (recommended_.size() >= kMaxRecommended) recommended_.clear();  // pods never bound
    recommended_[pod.key()] = ranked.front();
  }
  return out;
}

std::map<std::string, std::vector<std::string>> LiveState::Preempt(
    const K8sPod& pod, const std::map<std::string, std::vector<std::string>>& victims) {
  std::lock_guard<std::timed_mutex> lock(mu_);
  if (!synced_) return victims;
  if (dirty_) RebuildLocked();
  if (!placer_) return victims;
  auto d = DemandOf(pod, options_.resources, largest_gpu_mem_);
  if (!d.ok()) return victims;
  const Job job = JobOf(pod, d.value());
  std::map<std::string, std::string> by_uid;  // uid -> key of a placed pod
  for (const std::string& key : placed_) by_uid[pods_[key].uid] = key;
  std::map<std::string, std::vector<std::string>> out;
  for (const auto& [node, uids] : victims) {
    const int64_t n = placer_->NodeIndexOf(node);
    if (n < 0) {
      out[node] = uids;  // unknown node: no opinion
      continue;
    }
    // Take the victims away, ask, put them back where they were.
    std::vector<std::pair<std::string, std::pair<Job, Placement>>> gone;
    for (const std::string& uid : uids) {
      auto it = by_uid.find(uid);
      if (it == by_uid.end()) continue;
      const Job* j = placer_->job(it->second);
      const Placement* p = placer_->placement(it->second);
      if (!j || !p) continue;
      gone.push_back({it->second, {*j, *p}});
      (void)placer_->Finished(it->second);
    }
    if (placer_->Fits(job, static_cast<NodeIndex>(n))) out[node] = uids;
    for (const auto& [key, jp] : gone) (void)placer_->Started(key, jp.first, jp.second);
  }
  return out;
}

std::optional<LiveState::NodeFacts> LiveState::Facts(const std::string& node) {
  std::lock_guard<std::timed_mutex> lock(mu_);
  if (dirty_) RebuildLocked();
  const int64_t n = placer_ ? placer_->NodeIndexOf(node) : -1;
  if (n < 0) return std::nullopt;
  const ClusterState& c = placer_->state();
  const NodeIndex i = static_cast<NodeIndex>(n);
  NodeFacts f;
  f.free_gpus = c.free_whole_gpus(i);
  for (int g = 0; g < c.node(i).gpus; ++g) {
    const int32_t free = c.gpu_free_milli(i, g);
    f.partial_gpus += free > 0 && free < kMilliPerUnit;
  }
  if (c.free_cpu(i) < kMilliPerUnit || c.free_mem(i) < (int64_t{1} << 30))
    f.stranded_gpus = f.free_gpus;
  if (measured_) {
    auto m = measured_->gpus.find(node);
    if (m != measured_->gpus.end() && !m->second.empty()) {
      double sum = 0;
      for (const auto& [gpu, r] : m->second) sum += r.busy;
      f.busy = sum / static_cast<double>(m->second.size());
    }
  }
  return f;
}

ClusterSpec LiveState::Model(uint64_t* generation) {
  std::lock_guard<std::timed_mutex> lock(mu_);
  if (dirty_) RebuildLocked();
  *generation = generation_;
  return spec_;
}

uint64_t LiveState::model_generation() const {
  std::lock_guard<std::timed_mutex> lock(mu_);
  return dirty_ ? generation_ + 1 : generation_;  // a rebuild pending counts as a change
}

void LiveState::set_on_bound(std::function<void(const BindingSeen&)> f) {
  std::lock_guard<std::timed_mutex> lock(mu_);
  on_bound_ = std::move(f);
}
void LiveState::set_on_finished(std::function<void(const BindingSeen&)> f) {
  std::lock_guard<std::timed_mutex> lock(mu_);
  on_finished_ = std::move(f);
}
bool LiveState::synced() const {
  std::lock_guard<std::timed_mutex> lock(mu_);
  return synced_;
}
size_t LiveState::nodes() const {
  std::lock_guard<std::timed_mutex> lock(mu_);
  return nodes_.size();
}
size_t LiveState::bound_pods() const {
  std::lock_guard<std::timed_mutex> lock(mu_);
  return pods_.size();
}
size_t LiveState::unmodelled_pods() const {
  std::lock_guard<std::timed_mutex> lock(mu_);
  return dirty_ ? 0 : pods_.size() - placed_.size();
}
std::vector<std::string> LiveState::warnings() const {
  std::lock_guard<std::timed_mutex> lock(mu_);
  return warnings_;
}
int64_t LiveState::last_event_unix_ms() const {
  std::lock_guard<std::timed_mutex> lock(mu_);
  return last_event_ms_;
}
int64_t LiveState::last_measured_unix_ms() const {
  std::lock_guard<std::timed_mutex> lock(mu_);
  return measured_ ? measured_->taken_unix_ms : 0;
}

}  // namespace utilsim::live
