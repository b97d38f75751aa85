#include "utilsim/engine/cluster_state.h"

#include <algorithm>
#include <bit>
#include <cstdio>

#include "utilsim/engine/units.h"

namespace utilsim {
namespace {

// Bytes as GiB, at most two decimals ("30", "12.5").
std::string Gib(int64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", static_cast<double>(bytes) / kBytesPerGiB);
  std::string s = buf;
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s;
}

}  // namespace

Result<ClusterState> ClusterState::Build(const ClusterSpec& spec) {
  if (spec.models.size() > 64) return Status::Error("cluster: more than 64 GPU models");
  if (spec.groups.empty()) return Status::Error("cluster '" + spec.name + "': no node groups");
  ClusterState s;
  s.spec_ = std::make_shared<const ClusterSpec>(spec);
  for (size_t g = 0; g < spec.groups.size(); ++g) {
    const NodeGroup& grp = spec.groups[g];
    const std::string where = "cluster '" + spec.name + "', node group '" + grp.name + "': ";
    if (grp.count <= 0) return Status::Error(where + "count must be >= 1");
    if (grp.gpus < 0 || grp.gpus > 64) return Status::Error(where + "gpus must be 0..64");
    if (grp.cpu_milli <= 0) return Status::Error(where + "cpu must be > 0");
    if (grp.mem_bytes <= 0) return Status::Error(where + "memory must be > 0");
    int model = -1;
    if (!grp.gpu_model.empty()) {
      model = spec.FindModel(grp.gpu_model);
      if (model < 0) return Status::Error(where + "unknown gpu_model '" + grp.gpu_model + "'");
    }
    if (grp.gpus > 0 && model < 0) return Status::Error(where + "gpus > 0 needs a gpu_model");
    if (grp.nvlink_domain < 0 || (grp.nvlink_domain > 0 && grp.gpus % grp.nvlink_domain != 0))
      return Status::Error(where + "nvlink_domain must be 0 or a divisor of gpus");
    for (int32_t k = 0; k < grp.count; ++k) {
      NodeInfo n;
      n.name = grp.count == 1 ? grp.name : grp.name + "-" + std::to_string(k);
      n.group = static_cast<int32_t>(g);
      n.model = model;
      n.gpus = model < 0 ? 0 : grp.gpus;
      n.cpu_milli = grp.cpu_milli;
      n.mem_bytes = grp.mem_bytes;
      if (model >= 0) {
        n.gpu_mem_bytes = spec.models[model].memory_bytes;
        n.speed = spec.models[model].speed;
      }
      n.nvlink_domain = grp.nvlink_domain > 0 ? grp.nvlink_domain : n.gpus;
      s.max_gpus_ = std::max(s.max_gpus_, n.gpus);
      s.nodes_.push_back(std::move(n));
    }
  }
  const size_t nn = s.nodes_.size();
  s.gpu_offset_.resize(nn);
  s.free_whole_.resize(nn);
  s.free_cpu_.resize(nn);
  s.free_mem_.resize(nn);
  s.tasks_on_.assign(nn, 0);
  s.cordoned_.assign(nn, 0);
  s.buckets_.assign(static_cast<size_t>(s.num_models() + 1) * (s.max_gpus_ + 1), NodeSet(nn));
  int32_t off = 0;
  for (NodeIndex i = 0; i < nn; ++i) {
    const NodeInfo& n = s.nodes_[i];
    s.gpu_offset_[i] = off;
    off += n.gpus;
    s.free_whole_[i] = n.gpus;
    s.free_cpu_[i] = n.cpu_milli;
    s.free_mem_[i] = n.mem_bytes;
    s.total_gpus_ += n.gpus;
    s.total_cpu_ += n.cpu_milli;
    s.total_mem_ += n.mem_bytes;
    s.buckets_[(n.model + 1) * (s.max_gpus_ + 1) + n.gpus].insert(i);
  }
  s.gpu_free_.assign(off, kMilliPerUnit);
  s.gpu_mem_free_.assign(off, 0);
  for (NodeIndex i = 0; i < nn; ++i)
    std::fill_n(s.gpu_mem_free_.begin() + s.gpu_offset_[i], s.nodes_[i].gpus,
                s.nodes_[i].gpu_mem_bytes);
  s.whole_free_total_ = s.total_gpus_;
  while (s.leaves_ < nn) s.leaves_ *= 2;
  s.tree_.assign(2 * s.leaves_, Maxes{});
  for (NodeIndex i = 0; i < nn; ++i) s.UpdateTree(i);
  Result<Topology> topo = Topology::Build(spec);
  if (!topo.ok()) return topo.status();
  s.topology_ = std::make_shared<const Topology>(std::move(topo).value());
  return s;
}

ModelMask ClusterState::ResolveModels(const std::vector<std::string>& names) const {
  if (names.empty()) return kAnyModel;
  ModelMask m = 0;
  for (const auto& name : names) {
    int k = spec_->FindModel(name);
    if (k >= 0) m |= ModelMask{1} << k;
  }
  return m;
}

bool ClusterState::ModelAllowed(NodeIndex n, ModelMask mask) const {
  const int model = nodes_[n].model;
  if (mask == kAnyModel) return true;
  return model >= 0 && (mask >> model & 1);
}

int32_t ClusterState::LargestShare(NodeIndex n) const {
  int32_t best = 0;
  const int32_t* g = &gpu_free_[gpu_offset_[n]];
  for (int i = 0; i < nodes_[n].gpus; ++i) best = std::max(best, g[i]);
  return best;
}

bool ClusterState::HostsResources(NodeIndex n, const TaskDemand& d, ModelMask mask,
                                  bool even_cordoned) const {
  if (cordoned_[n] && !even_cordoned) return false;
  if (free_cpu_[n] < d.cpu_milli || free_mem_[n] < d.mem_bytes) return false;
  if (d.gpus == 0) return mask == kAnyModel || ModelAllowed(n, mask);
  if (!ModelAllowed(n, mask) || nodes_[n].model < 0) return false;
  if (d.gpu_mem_bytes > nodes_[n].gpu_mem_bytes && nodes_[n].gpu_mem_bytes > 0) return false;
  if (!d.fractional()) return free_whole_[n] >= d.gpus;
  // A whole-free GPU has all its memory free (checked above).
  if (d.gpu_mem_bytes <= 0 || nodes_[n].gpu_mem_bytes <= 0 || free_whole_[n] > 0)
    return LargestShare(n) >= d.gpu_milli;
  for (int i = 0; i < nodes_[n].gpus; ++i)
    if (GpuFits(n, i, d)) return true;
  return false;
}

bool ClusterState::CouldEverHost(NodeIndex n, const TaskDemand& d, ModelMask mask) const {
  const NodeInfo& info = nodes_[n];
  if (info.cpu_milli < d.cpu_milli || info.mem_bytes < d.mem_bytes) return false;
  if (d.gpus == 0) return mask == kAnyModel || ModelAllowed(n, mask);
  if (!ModelAllowed(n, mask) || info.model < 0) return false;
  if (d.gpu_mem_bytes > info.gpu_mem_bytes && info.gpu_mem_bytes > 0) return false;
  return info.gpus >= d.gpus;
}

uint64_t ClusterState::PickGpus(NodeIndex n, const TaskDemand& d) const {
  const int32_t* g = &gpu_free_[gpu_offset_[n]];
  const int count = nodes_[n].gpus;
  if (d.gpus == 0) return 0;
  if (d.fractional()) {
    const bool mem = d.gpu_mem_bytes > 0 && nodes_[n].gpu_mem_bytes > 0;
    const int64_t* m = &gpu_mem_free_[gpu_offset_[n]];
    int best = -1;
    for (int i = 0; i < count; ++i)
      if (g[i] >= d.gpu_milli && (!mem || m[i] >= d.gpu_mem_bytes) && (best < 0 || g[i] < g[best]))
        best = i;
    return best < 0 ? 0 : uint64_t{1} << best;
  }
  const int dom = nodes_[n].nvlink_domain;
  if (dom > 0 && dom < count) return PickGpusByDomain(g, count, dom, d.gpus);
  uint64_t mask = 0;
  int need = d.gpus;
  for (int i = 0; i < count && need > 0; ++i)
    if (g[i] == kMilliPerUnit) {
      mask |= uint64_t{1} << i;
      --need;
    }
  return need == 0 ? mask : 0;
}

uint64_t ClusterState::PickGpusByDomain(const int32_t* g, int count, int dom, int need) {
  const int domains = count / dom;
  std::vector<int> free(static_cast<size_t>(domains), 0);
  for (int i = 0; i < count; ++i) free[static_cast<size_t>(i / dom)] += g[i] == kMilliPerUnit;
  auto take = [&](int domain, int k, uint64_t* mask) {
    for (int i = domain * dom; i < (domain + 1) * dom && k > 0; ++i)
      if (g[i] == kMilliPerUnit && !(*mask >> i & 1)) *mask |= uint64_t{1} << i, --k;
    return k;
  };
  uint64_t mask = 0;
  if (need <= dom) {
    int best = -1;
    for (int k = 0; k < domains; ++k)
      if (free[k] >= need && (best < 0 || free[k] < free[best])) best = k;
    if (best >= 0) {
      take(best, need, &mask);
      return mask;
    }
  } else {
    for (int k = 0; k < domains && need >= dom; ++k)
      if (free[k] == dom) need = need - dom + take(k, dom, &mask);
  }
  for (int i = 0; i < count && need > 0; ++i)
    if (g[i] == kMilliPerUnit && !(mask >> i & 1)) mask |= uint64_t{1} << i, --need;
  return need == 0 ? mask : 0;
}

Status ClusterState::SetPowerBudget(PowerBudget b) {
  if (b.model_mw.size() != spec_->models.size())
    return Status::Error("power budget: " + std::to_string(b.model_mw.size()) +
                         " model figures for " + std::to_string(spec_->models.size()) +
                         " GPU models");
  for (int64_t v : b.model_mw)
    if (v < 0) return Status::Error("power budget: a GPU model counts negative power");
  if (!b.rack_mw.empty() && b.rack_mw.size() != topology_->num_racks())
    return Status::Error("power budget: " + std::to_string(b.rack_mw.size()) +
                         " rack figures for " + std::to_string(topology_->num_racks()) + " racks");
  // Tasks are charged one by one as they are allocated and released (each
  // rounded up to a mW), which a count of the state could not reproduce.
  if (alloc_gpu_milli_ != 0)
    return Status::Error("power budget: set it before any GPU is allocated");
  budget_ = std::move(b);
  budget_on_ = true;
  power_used_ = 0;
  rack_used_.assign(topology_->num_racks(), 0);
  return Status::Ok();
}

int64_t ClusterState::TaskPowerMw(NodeIndex n, const TaskDemand& d) const {
  const int32_t model = nodes_[n].model;
  if (!budget_on_ || model < 0 || d.gpus <= 0) return 0;
  const int64_t milli = static_cast<int64_t>(d.gpu_milli) * d.gpus;
  return (budget_.model_mw[model] * milli + kMilliPerUnit - 1) / kMilliPerUnit;
}

bool ClusterState::PowerFitsSlow(NodeIndex n, const TaskDemand& d) const {
  const int64_t p = TaskPowerMw(n, d);
  if (p == 0) return true;
  if (budget_.cluster_mw >= 0 && power_used_ + p > budget_.cluster_mw) return false;
  if (!budget_.rack_mw.empty()) {
    const uint32_t r = topology_->rack_of(n);
    if (r != UINT32_MAX && budget_.rack_mw[r] >= 0 && rack_used_[r] + p > budget_.rack_mw[r])
      return false;
  }
  return true;
}

bool ClusterState::PowerRoomAnywhere(const TaskDemand& d, ModelMask mask, int64_t tasks) const {
  if (!budget_on_ || d.gpus <= 0) return true;
  int64_t cheapest = -1;
  for (int m = 0; m < num_models(); ++m)
    if (mask == kAnyModel || (m < 64 && (mask >> m & 1)))
      cheapest = cheapest < 0 ? budget_.model_mw[m] : std::min(cheapest, budget_.model_mw[m]);
  if (cheapest <= 0) return true;
  const int64_t need =
      (cheapest * static_cast<int64_t>(d.gpu_milli) * d.gpus + kMilliPerUnit - 1) / kMilliPerUnit;
  if (budget_.cluster_mw >= 0 && power_used_ + need * tasks > budget_.cluster_mw) return false;
  if (budget_.rack_mw.empty()) return true;
  for (size_t r = 0; r < budget_.rack_mw.size(); ++r)
    if (budget_.rack_mw[r] < 0 || rack_used_[r] + need <= budget_.rack_mw[r]) return true;
  return false;
}

Status ClusterState::CheckPowerBudget(const Placement& p) const {
  if (!budget_on_) return Status::Ok();
  auto w = [](int64_t mw) { return std::to_string((mw + 500) / 1000) + " W"; };
  if (budget_.cluster_mw >= 0 && power_used_ > budget_.cluster_mw)
    return Status::Error("over the power budget: allocated GPUs count " + w(power_used_) +
                         " above idle, the budget allows " + w(budget_.cluster_mw));
  if (budget_.rack_mw.empty()) return Status::Ok();
  for (const TaskPlacement& t : p) {
    const uint32_t r = t.node < nodes_.size() ? topology_->rack_of(t.node) : UINT32_MAX;
    if (r != UINT32_MAX && budget_.rack_mw[r] >= 0 && rack_used_[r] > budget_.rack_mw[r])
      return Status::Error("over the power budget of rack '" + topology_->rack_name(r) +
                           "': its allocated GPUs count " + w(rack_used_[r]) +
                           " above idle, the budget allows " + w(budget_.rack_mw[r]));
  }
  return Status::Ok();
}

void ClusterState::ChargePower(NodeIndex n, const TaskDemand& d, int64_t sign) {
  const int64_t p = sign * TaskPowerMw(n, d);
  power_used_ += p;
  const uint32_t r = topology_->rack_of(n);
  if (r != UINT32_MAX) rack_used_[r] += p;
}

Status ClusterState::Allocate(const TaskPlacement& t, const TaskDemand& d) {
  if (t.node >= nodes_.size())
    return Status::Error("placement names node " + std::to_string(t.node) +
                         " which does not exist");
  const NodeInfo& info = nodes_[t.node];
  // The message is built only on failure (Allocate runs millions of times).
  auto fail = [&](const std::string& what) {
    return Status::Error("node " + info.name + ": " + what);
  };
  if (free_cpu_[t.node] < d.cpu_milli) return fail("CPU over-committed");
  if (free_mem_[t.node] < d.mem_bytes) return fail("memory over-committed");
  if (info.gpus < 64 && (t.gpu_mask >> info.gpus) != 0)
    return fail("placement uses a GPU the node does not have");
  if (std::popcount(t.gpu_mask) != d.gpus)
    return fail("placement uses " + std::to_string(std::popcount(t.gpu_mask)) +
                " GPUs, task needs " + std::to_string(d.gpus));
  int32_t* g = &gpu_free_[gpu_offset_[t.node]];
  int64_t* m = &gpu_mem_free_[gpu_offset_[t.node]];
  const bool mem = d.gpu_mem_bytes > 0 && info.gpu_mem_bytes > 0;
  for (int i = 0; i < info.gpus; ++i) {
    if (!(t.gpu_mask >> i & 1)) continue;
    if (g[i] < d.gpu_milli) return fail("GPU " + std::to_string(i) + " over-committed");
    if (mem && m[i] < d.gpu_mem_bytes)
      return fail("GPU " + std::to_string(i) + " memory over-committed (needs " +
                  Gib(d.gpu_mem_bytes) + " GiB, " + Gib(m[i]) + " GiB free)");
  }
  const int32_t old_whole = free_whole_[t.node];
  for (int i = 0; i < info.gpus; ++i)
    if (t.gpu_mask >> i & 1) {
      g[i] -= d.gpu_milli;
      if (mem) m[i] -= d.gpu_mem_bytes;
    }
  free_cpu_[t.node] -= d.cpu_milli;
  free_mem_[t.node] -= d.mem_bytes;
  alloc_cpu_ += d.cpu_milli;
  alloc_mem_ += d.mem_bytes;
  alloc_gpu_milli_ += d.total_gpu_milli();
  ++tasks_on_[t.node];
  if (budget_on_) ChargePower(t.node, d, 1);
  if (t.node == deferred_)
    ++version_;
  else
    UpdateNode(t.node, old_whole);
  return Status::Ok();
}

void ClusterState::Release(const TaskPlacement& t, const TaskDemand& d) {
  const NodeInfo& info = nodes_[t.node];
  int32_t* g = &gpu_free_[gpu_offset_[t.node]];
  int64_t* m = &gpu_mem_free_[gpu_offset_[t.node]];
  const bool mem = d.gpu_mem_bytes > 0 && info.gpu_mem_bytes > 0;
  const int32_t old_whole = free_whole_[t.node];
  for (int i = 0; i < info.gpus; ++i)
    if (t.gpu_mask >> i & 1) {
      g[i] += d.gpu_milli;
      if (mem) m[i] += d.gpu_mem_bytes;
    }
  free_cpu_[t.node] += d.cpu_milli;
  free_mem_[t.node] += d.mem_bytes;
  alloc_cpu_ -= d.cpu_milli;
  alloc_mem_ -= d.mem_bytes;
  alloc_gpu_milli_ -= d.total_gpu_milli();
  --tasks_on_[t.node];
  if (budget_on_) ChargePower(t.node, d, -1);
  if (t.node == deferred_)
    ++version_;
  else
    UpdateNode(t.node, old_whole);
}

void ClusterState::DeferIndex(NodeIndex n) {
  deferred_ = n;
  deferred_whole_ = free_whole_[n];
}

void ClusterState::Reindex(NodeIndex n) {
  deferred_ = kNoDeferred;
  UpdateNode(n, deferred_whole_);
}

void ClusterState::UpdateNode(NodeIndex n, int32_t old_whole) {
  ++version_;
  const int32_t* g = &gpu_free_[gpu_offset_[n]];
  int32_t whole = 0;
  for (int i = 0; i < nodes_[n].gpus; ++i) whole += g[i] == kMilliPerUnit;
  free_whole_[n] = whole;
  whole_free_total_ += whole - old_whole;
  if (whole != old_whole && !cordoned_[n]) {  // a cordoned node is in no bucket
    const size_t base = static_cast<size_t>(nodes_[n].model + 1) * (max_gpus_ + 1);
    buckets_[base + old_whole].erase(n);
    buckets_[base + whole].insert(n);
  }
  UpdateTree(n);
}

void ClusterState::UpdateTree(NodeIndex n) {
  size_t pos = leaves_ + n;
  // A cordoned node's leaf says "nothing free", so searches never descend to it.
  tree_[pos] =
      cordoned_[n] ? Maxes{} : Maxes{free_whole_[n], LargestShare(n), free_cpu_[n], free_mem_[n]};
  for (pos /= 2; pos >= 1; pos /= 2) {
    const Maxes& a = tree_[2 * pos];
    const Maxes& b = tree_[2 * pos + 1];
    tree_[pos] = Maxes{std::max(a.whole, b.whole), std::max(a.share, b.share),
                       std::max(a.cpu, b.cpu), std::max(a.mem, b.mem)};
  }
}

void ClusterState::SetCordoned(NodeIndex n, bool cordoned) {
  if (static_cast<bool>(cordoned_[n]) == cordoned) return;
  ++version_;
  cordoned_[n] = cordoned ? 1 : 0;
  cordoned_count_ += cordoned ? 1 : -1;
  NodeSet& bucket =
      buckets_[static_cast<size_t>(nodes_[n].model + 1) * (max_gpus_ + 1) + free_whole_[n]];
  if (cordoned) {
    bucket.erase(n);
  } else {
    bucket.insert(n);
  }
  UpdateTree(n);
}

const NodeSet& ClusterState::Bucket(int model, int k) const {
  return buckets_[static_cast<size_t>(model + 1) * (max_gpus_ + 1) + k];
}

int64_t ClusterState::FindFirst(NodeIndex from, const TaskDemand& d, ModelMask mask,
                                bool budget) const {
  if (nodes_.empty()) return -1;
  budget = budget && budget_on_ && d.gpus > 0;
  if (budget && !PowerRoomAnywhere(d, mask)) return -1;  // saves a search when it is spent
  return FindFirstRec(1, 0, leaves_, from, d, mask, budget);
}

int64_t ClusterState::FindFirstRec(size_t pos, size_t lo, size_t hi, NodeIndex from,
                                   const TaskDemand& d, ModelMask mask, bool budget) const {
  if (hi <= from || lo >= nodes_.size()) return -1;
  const Maxes& m = tree_[pos];
  if (m.cpu < d.cpu_milli || m.mem < d.mem_bytes) return -1;
  if (d.gpus > 0) {
    if (d.fractional() ? m.share < d.gpu_milli : m.whole < d.gpus) return -1;
  }
  if (hi - lo == 1) {
    const NodeIndex n = static_cast<NodeIndex>(lo);
    return HostsResources(n, d, mask) && (!budget || PowerFitsSlow(n, d)) ? static_cast<int64_t>(lo)
                                                                          : -1;
  }
  const size_t mid = (lo + hi) / 2;
  int64_t r = FindFirstRec(2 * pos, lo, mid, from, d, mask, budget);
  if (r >= 0) return r;
  return FindFirstRec(2 * pos + 1, mid, hi, from, d, mask, budget);
}

std::string FormatPlacement(const Placement& p, const ClusterState& c) {
  std::string out;
  for (size_t i = 0; i < p.size(); ++i) {
    if (i) out += ';';
    out += c.node(p[i].node).name;
    out += ':';
    bool first = true;
    for (int g = 0; g < 64; ++g)
      if (p[i].gpu_mask >> g & 1) {
        if (!first) out += ',';
        out += std::to_string(g);
        first = false;
      }
  }
  return out;
}

}  // namespace utilsim
