#include "utilsim/engine/topology.h"

#include <algorithm>
#include <bit>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/connected_components.hpp>
#include <cmath>
#include <map>

namespace utilsim {
namespace {

using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS>;

std::string Where(const std::string& where) { return where.empty() ? "" : where + ": "; }

// The racks and switches the spec implies (explicit, generated or default).
struct Layout {
  std::vector<RackSpec> racks;
  std::vector<SwitchSpec> switches;
};

Layout LayoutOf(const ClusterSpec& spec, const std::vector<std::string>& node_names) {
  const TopologySpec& t = spec.topology;
  Layout l;
  if (!t.racks.empty() || !t.switches.empty()) {
    l.racks = t.racks;
    l.switches = t.switches;
    return l;
  }
  l.switches.push_back({"core", "", 1.0, ""});
  const size_t per_rack = t.nodes_per_rack > 0 ? size_t(t.nodes_per_rack) : node_names.size();
  for (size_t i = 0; i < node_names.size(); ++i) {
    if (i % per_rack == 0) {
      RackSpec r;
      r.name = "rack-" + std::to_string(i / per_rack);
      r.oversubscription = t.nodes_per_rack > 0 ? t.rack_oversubscription : 1.0;
      l.racks.push_back(std::move(r));
    }
    l.racks.back().members.push_back(node_names[i]);
  }
  if (node_names.empty()) l.racks.push_back({"rack-0", "", {}, 1.0, ""});
  if (t.racks_per_switch > 0) {
    for (size_t r = 0; r < l.racks.size(); ++r) {
      if (r % size_t(t.racks_per_switch) == 0) {
        l.switches.push_back({"switch-" + std::to_string(r / size_t(t.racks_per_switch)), "core",
                              t.switch_oversubscription, ""});
      }
      l.racks[r].parent = l.switches.back().name;
    }
  }
  return l;
}

}  // namespace

Result<Topology> Topology::Build(const ClusterSpec& spec) {
  const TopologySpec& t = spec.topology;
  for (double bw : {t.nvlink_bytes_s, t.pcie_bytes_s, t.nic_bytes_s}) {
    if (!(bw > 0) || !std::isfinite(bw))
      return Status::Error("cluster '" + spec.name + "': topology bandwidths must be > 0");
  }
  Topology topo;
  topo.nvlink_ = t.nvlink_bytes_s;
  topo.pcie_ = t.pcie_bytes_s;
  topo.nic_ = t.nic_bytes_s;

  // Nodes in ClusterState order, and what names a rack member may use.
  std::vector<std::string> node_names;
  std::map<std::string, std::vector<NodeIndex>> member_nodes;  // node or group name -> nodes
  for (const NodeGroup& g : spec.groups) {
    std::vector<NodeIndex>& group_nodes = member_nodes[g.name];
    for (int32_t k = 0; k < g.count; ++k) {
      const NodeIndex n = static_cast<NodeIndex>(node_names.size());
      node_names.push_back(g.count == 1 ? g.name : g.name + "-" + std::to_string(k));
      if (g.count > 1) member_nodes[node_names.back()].push_back(n);
      group_nodes.push_back(n);
      topo.node_gpus_.push_back(g.gpus);
      topo.node_domain_.push_back(g.nvlink_domain > 0 ? g.nvlink_domain : g.gpus);
      topo.max_domain_ = std::max(topo.max_domain_, topo.node_domain_.back());
      topo.max_node_gpus_ = std::max(topo.max_node_gpus_, g.gpus);
    }
  }
  const size_t n_nodes = node_names.size();
  const Layout l = LayoutOf(spec, node_names);

  // Switches: names, parents, exactly one root.
  std::map<std::string, int32_t> switch_index;
  for (const SwitchSpec& s : l.switches) {
    if (!(s.oversubscription >= 1) || !std::isfinite(s.oversubscription))
      return Status::Error(Where(s.where) + "switch '" + s.name +
                           "': oversubscription must be >= 1");
    if (!switch_index.emplace(s.name, int32_t(switch_index.size())).second)
      return Status::Error(Where(s.where) + "switch '" + s.name + "' is listed twice");
    topo.switch_names_.push_back(s.name);
    topo.switch_os_.push_back(s.oversubscription);
  }
  int32_t root = -1;
  topo.switch_parent_.assign(l.switches.size(), -1);
  for (size_t i = 0; i < l.switches.size(); ++i) {
    const SwitchSpec& s = l.switches[i];
    if (s.parent.empty()) {
      if (root >= 0)
        return Status::Error(Where(s.where) + "switch '" + s.name + "' has no parent, but '" +
                             l.switches[size_t(root)].name +
                             "' is already the root (exactly one switch may have none)");
      root = int32_t(i);
      continue;
    }
    auto it = switch_index.find(s.parent);
    if (it == switch_index.end())
      return Status::Error(Where(s.where) + "switch '" + s.name + "': parent '" + s.parent +
                           "' is not a listed switch");
    topo.switch_parent_[i] = it->second;
  }
  if (root < 0) {
    // A rack-only topology hangs its racks off an implicit root.
    if (!l.switches.empty())
      return Status::Error(Where(l.switches.front().where) +
                           "no root switch (every switch has a parent)");
    root = 0;
    topo.switch_names_.push_back("core");
    topo.switch_os_.push_back(1.0);
    topo.switch_parent_.push_back(-1);
    switch_index.emplace("core", 0);
  }

  // Racks and their members.
  topo.node_rack_.assign(n_nodes, UINT32_MAX);
  std::map<std::string, int> rack_seen;
  for (size_t r = 0; r < l.racks.size(); ++r) {
    const RackSpec& rs = l.racks[r];
    if (!rack_seen.emplace(rs.name, 0).second)
      return Status::Error(Where(rs.where) + "rack '" + rs.name + "' is listed twice");
    if (!(rs.oversubscription >= 1) || !std::isfinite(rs.oversubscription))
      return Status::Error(Where(rs.where) + "rack '" + rs.name +
                           "': oversubscription must be >= 1");
    int32_t parent = root;
    if (!rs.parent.empty()) {
      auto it = switch_index.find(rs.parent);
      if (it == switch_index.end())
        return Status::Error(Where(rs.where) + "rack '" + rs.name + "': switch '" + rs.parent +
                             "' is not a listed switch");
      parent = it->second;
    }
    topo.rack_names_.push_back(rs.name);
    topo.rack_parent_.push_back(parent);
    topo.rack_os_.push_back(rs.oversubscription);
    for (const std::string& m : rs.members) {
      auto it = member_nodes.find(m);
      if (it == member_nodes.end())
        return Status::Error(Where(rs.where) + "rack '" + rs.name + "': '" + m +
                             "' is neither a node nor a node group of the cluster");
      for (NodeIndex n : it->second) {
        if (topo.node_rack_[n] != UINT32_MAX)
          return Status::Error(Where(rs.where) + "rack '" + rs.name + "': node '" + node_names[n] +
                               "' is already in rack '" + topo.rack_names_[topo.node_rack_[n]] +
                               "'");
        topo.node_rack_[n] = uint32_t(r);
      }
    }
  }

  // The graph: every GPU, domain, node, rack and switch, with an edge to its
  // parent. Connected components find whatever the root cannot reach.
  Graph g;
  const size_t n_sw = topo.switch_names_.size(), n_racks = topo.rack_names_.size();
  const size_t rack0 = n_sw, node0 = n_sw + n_racks;
  for (size_t i = 0; i < n_sw + n_racks + n_nodes; ++i) boost::add_vertex(g);
  for (size_t s = 0; s < n_sw; ++s)
    if (topo.switch_parent_[s] >= 0) boost::add_edge(s, size_t(topo.switch_parent_[s]), g);
  for (size_t r = 0; r < n_racks; ++r) boost::add_edge(rack0 + r, size_t(topo.rack_parent_[r]), g);
  for (size_t n = 0; n < n_nodes; ++n) {
    if (topo.node_rack_[n] != UINT32_MAX) boost::add_edge(node0 + n, rack0 + topo.node_rack_[n], g);
    const int32_t gpus = topo.node_gpus_[n], dom = topo.node_domain_[n];
    for (int32_t d = 0; dom > 0 && d < gpus / dom; ++d) {
      const size_t dv = boost::add_vertex(g);
      boost::add_edge(dv, node0 + n, g);
      for (int32_t k = 0; k < dom; ++k) boost::add_edge(boost::add_vertex(g), dv, g);
    }
  }
  std::vector<int> component(boost::num_vertices(g));
  boost::connected_components(g, component.data());
  const int home = component[size_t(root)];
  for (size_t n = 0; n < n_nodes; ++n) {
    if (component[node0 + n] == home) continue;
    if (topo.node_rack_[n] == UINT32_MAX)
      return Status::Error(Where(l.racks.empty() ? "" : l.racks.front().where) + "node '" +
                           node_names[n] + "' is in no rack: unreachable");
    // Its rack hangs off a switch that does not reach the root: a cycle.
    const uint32_t r = topo.node_rack_[n];
    int32_t s = topo.rack_parent_[r];
    return Status::Error(Where(size_t(s) < l.switches.size() ? l.switches[size_t(s)].where : "") +
                         "switch '" + topo.switch_names_[size_t(s)] +
                         "' does not lead to the root switch '" + topo.switch_names_[size_t(root)] +
                         "' (a cycle of parents): node '" + node_names[n] + "' is unreachable");
  }
  // Switch depths from the root, by breadth-first search over the graph.
  std::vector<size_t> dist(boost::num_vertices(g), 0);
  boost::breadth_first_search(g, size_t(root),
                              boost::visitor(boost::make_bfs_visitor(
                                  boost::record_distances(dist.data(), boost::on_tree_edge()))));
  topo.switch_depth_.resize(n_sw);
  for (size_t s = 0; s < n_sw; ++s) topo.switch_depth_[s] = int32_t(dist[s]);
  topo.vertices_ = boost::num_vertices(g);
  topo.edges_ = boost::num_edges(g);

  auto names = std::make_shared<std::vector<std::pair<std::string, NodeIndex>>>();
  for (size_t n = 0; n < n_nodes; ++n) names->emplace_back(node_names[n], NodeIndex(n));
  std::sort(names->begin(), names->end());
  topo.names_ = std::move(names);
  return topo;
}

int64_t Topology::FindNode(const std::string& name) const {
  auto it = std::lower_bound(names_->begin(), names_->end(), std::make_pair(name, NodeIndex{0}));
  return it != names_->end() && it->first == name ? int64_t(it->second) : -1;
}

int32_t Topology::SwitchLca(int32_t a, int32_t b) const {
  while (switch_depth_[size_t(a)] > switch_depth_[size_t(b)]) a = switch_parent_[size_t(a)];
  while (switch_depth_[size_t(b)] > switch_depth_[size_t(a)]) b = switch_parent_[size_t(b)];
  while (a != b) a = switch_parent_[size_t(a)], b = switch_parent_[size_t(b)];
  return a;
}

int32_t Topology::NodeDistance(NodeIndex a, NodeIndex b) const {
  if (a == b) return 0;
  const uint32_t ra = node_rack_[a], rb = node_rack_[b];
  if (ra == rb) return 1;
  const int32_t sa = rack_parent_[ra], sb = rack_parent_[rb];
  const int32_t lca = SwitchLca(sa, sb);
  return 2 + switch_depth_[size_t(sa)] - switch_depth_[size_t(lca)];
}

// Nodes' lowest common ancestor, and the least per-node bandwidth on the way
// up to it: a node crossing its rack's uplink gets nic / rack_os, each switch
// uplink it climbs above divides by that switch's oversubscription as well.
Reach Topology::MultiNode(const std::vector<NodeIndex>& nodes) const {
  const uint32_t rack = node_rack_[nodes.front()];
  bool one_rack = true;
  for (NodeIndex n : nodes) one_rack = one_rack && node_rack_[n] == rack;
  if (one_rack) return Reach{3, std::min(pcie_, nic_)};
  int32_t lca = rack_parent_[rack];
  for (NodeIndex n : nodes) lca = SwitchLca(lca, rack_parent_[node_rack_[n]]);
  Reach r{3, std::min(pcie_, nic_)};
  for (NodeIndex n : nodes) {
    const uint32_t rk = node_rack_[n];
    double share = nic_ / rack_os_[rk];
    int32_t s = rack_parent_[rk];
    r.level = std::max(r.level, 4 + switch_depth_[size_t(s)] - switch_depth_[size_t(lca)]);
    for (; s != lca; s = switch_parent_[size_t(s)]) share /= switch_os_[size_t(s)];
    r.bytes_s = std::min(r.bytes_s, share);
  }
  return r;
}

Reach Topology::Assess(const Placement& p) const {
  std::vector<NodeIndex> nodes;
  int64_t gpus = 0;
  for (const auto& tp : p) {
    gpus += std::popcount(tp.gpu_mask);
    if (std::find(nodes.begin(), nodes.end(), tp.node) == nodes.end()) nodes.push_back(tp.node);
  }
  if (gpus <= 1) return Reach{};
  if (nodes.size() > 1) return MultiNode(nodes);
  uint64_t mask = 0;
  for (const auto& tp : p) mask |= tp.gpu_mask;
  const int32_t dom = node_domain_[nodes.front()];
  const int first = std::countr_zero(mask) / dom, last = (63 - std::countl_zero(mask)) / dom;
  if (first == last) return Reach{1, nvlink_};
  return Reach{2, pcie_};
}

Reach Topology::AssessPacked(const std::vector<NodeIndex>& nodes,
                             const std::vector<int32_t>& gpus_per_node) const {
  int64_t gpus = 0;
  for (int32_t k : gpus_per_node) gpus += k;
  if (gpus <= 1) return Reach{};
  std::vector<NodeIndex> distinct;
  for (NodeIndex n : nodes)
    if (std::find(distinct.begin(), distinct.end(), n) == distinct.end()) distinct.push_back(n);
  if (distinct.size() > 1) return MultiNode(distinct);
  return gpus <= node_domain_[distinct.front()] ? Reach{1, nvlink_} : Reach{2, pcie_};
}

Reach Topology::AssumedRecorded(int32_t tasks, int32_t gpus_per_task) const {
  if (int64_t{tasks} * gpus_per_task <= 1) return Reach{};
  if (tasks > 1) return Reach{3, std::min(pcie_, nic_)};
  if (gpus_per_task <= max_domain_) return Reach{1, nvlink_};
  return Reach{2, pcie_};
}

}  // namespace utilsim
