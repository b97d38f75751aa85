// Cluster events (cluster_events.h): the checks of one event, and failures
// drawn from per-component rates (DrawFailures).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <tuple>

#include "format.h"
#include "utilsim/engine/cluster_events.h"
#include "utilsim/engine/rng.h"
#include "utilsim/engine/topology.h"
#include "utilsim/engine/units.h"

namespace utilsim {
namespace {

constexpr double kMicrosPerHour = 3600.0 * kMicrosPerSecond;
constexpr double kMicrosPerDay = 24 * kMicrosPerHour;
// The largest time (and repair time) in microseconds: kMaxSeconds.
constexpr int64_t kMaxMicros = static_cast<int64_t>(kMaxSeconds) * kMicrosPerSecond;
// More failures than this is a model error (a rate per node-day taken for
// one per cluster-day, say), not something to simulate.
constexpr size_t kMaxFailures = 10'000'000;

std::string Prefix(const std::string& where) { return where.empty() ? "" : where + ": "; }

using internal::FormatG;

const char* ChangeName(NodeChange c) {
  switch (c) {
    case NodeChange::kDown:
      return "down";
    case NodeChange::kUp:
      return "up";
    case NodeChange::kDrain:
      return "drain";
    case NodeChange::kResume:
      return "resume";
    case NodeChange::kSlow:
      return "slow";
    case NodeChange::kSlowEnd:
      return "slow-end";
  }
  return "?";
}

// ---- Checks ------------------------------------------------------------

Status CheckClass(const FailureClass& c, size_t index) {
  const std::string name = c.component.empty() ? "failure class #" + std::to_string(index + 1)
                                               : "failure class '" + c.component + "'";
  const std::string p = Prefix(c.where) + name + ": ";
  if (c.component.empty()) return Status::Error(p + "the component must be non-empty");
  if (c.scope != FailureScope::kNode && c.scope != FailureScope::kRack)
    return Status::Error(p + "unknown scope");
  const char* per = c.scope == FailureScope::kNode ? "node" : "rack";
  if (!(c.rate_per_unit_day > 0) || !std::isfinite(c.rate_per_unit_day))
    return Status::Error(p + "failures per " + per + "-day must be > 0 and finite, got " +
                         FormatG(c.rate_per_unit_day));
  if (!(c.repair_mean_h > 0) || !std::isfinite(c.repair_mean_h))
    return Status::Error(p + "the mean repair time must be > 0 hours and finite, got " +
                         FormatG(c.repair_mean_h));
  if (c.repair != RepairDist::kFixed && c.repair != RepairDist::kExponential &&
      c.repair != RepairDist::kLogNormal)
    return Status::Error(p + "unknown repair distribution");
  if (!(c.slow > 0 && c.slow <= 1))
    return Status::Error(p + "a straggler's pace must be > 0 and < 1 (1 = a failure), got " +
                         FormatG(c.slow));
  if (c.slow < 1 && c.planned) return Status::Error(p + "a straggler class cannot be planned");
  if (c.repair == RepairDist::kLogNormal &&
      (!(c.repair_sigma > 0) || !std::isfinite(c.repair_sigma)))
    return Status::Error(p + "the log-normal repair sigma must be > 0 and finite, got " +
                         FormatG(c.repair_sigma));
  return Status::Ok();
}

// ---- The units that fail -------------------------------------------------

// The cluster's nodes, named and ordered as ClusterState names them
// ("<group>-<k>", or a count-1 group's name).
struct Nodes {
  std::vector<std::string> names;
  std::vector<char> has_gpus;
  std::map<std::string, std::vector<NodeIndex>> named;  // node or group name -> nodes
};

Nodes ListNodes(const ClusterSpec& spec) {
  Nodes out;
  for (const NodeGroup& g : spec.groups) {
    std::vector<NodeIndex>& group = out.named[g.name];
    for (int32_t k = 0; k < g.count; ++k) {
      const auto n = static_cast<NodeIndex>(out.names.size());
      out.names.push_back(g.count == 1 ? g.name : g.name + "-" + std::to_string(k));
      out.has_gpus.push_back(g.gpus > 0 && !g.gpu_model.empty());
      if (g.count > 1) out.named[out.names.back()].push_back(n);
      group.push_back(n);
    }
  }
  return out;
}

// Which nodes fail: model.nodes, else every node with GPUs.
Result<std::vector<char>> FailingNodes(const FailureModel& model, const Nodes& nodes) {
  if (model.nodes.empty()) return nodes.has_gpus;
  std::vector<char> fails(nodes.names.size(), 0);
  for (const std::string& name : model.nodes) {
    auto it = nodes.named.find(name);
    if (it == nodes.named.end())
      return Status::Error(Prefix(model.source) + "failures: nodes: '" + name +
                           "' is neither a node nor a node group of the cluster");
    for (NodeIndex n : it->second) fails[n] = 1;
  }
  return fails;
}

// A unit of a scope: the nodes one failure takes down, in node order.
using Unit = std::vector<NodeIndex>;

std::vector<Unit> NodeUnits(const std::vector<char>& fails) {
  std::vector<Unit> units;
  for (NodeIndex n = 0; n < fails.size(); ++n)
    if (fails[n]) units.push_back({n});
  return units;
}

// The racks of the cluster's topology with a failing node, each its failing
// nodes.
Result<std::vector<Unit>> RackUnits(const ClusterSpec& spec, const std::vector<char>& fails) {
  Result<Topology> topo = Topology::Build(spec);
  if (!topo.ok()) return topo.status();
  const Topology& t = topo.value();
  std::vector<Unit> racks(t.num_racks());
  for (NodeIndex n = 0; n < fails.size(); ++n)
    if (fails[n]) racks[t.rack_of(n)].push_back(n);
  std::erase_if(racks, [](const Unit& u) { return u.empty(); });
  return racks;
}

// ---- Drawing -------------------------------------------------------------

// A repair time: at least one second, at most kMaxSeconds.
Micros DrawRepair(const FailureClass& c, Rng& rng) {
  double h = c.repair_mean_h;
  if (c.repair == RepairDist::kExponential) {
    h = rng.Exponential(c.repair_mean_h);
  } else if (c.repair == RepairDist::kLogNormal) {
    const double s = c.repair_sigma;
    h = rng.LogNormal(std::log(c.repair_mean_h) - s * s / 2, s);
  }
  const double us = std::round(h * kMicrosPerHour);
  if (!(us < static_cast<double>(kMaxMicros))) return Micros(kMaxMicros);
  return Micros(std::max(static_cast<int64_t>(us), kMicrosPerSecond));
}

// The error when the classes up to c would draw more than kMaxFailures
// failures: `expected` of them over `days` (days 0: the count drawn went
// over).
Status TooMany(const FailureClass& c, double expected, double days) {
  const std::string unit = c.scope == FailureScope::kNode ? "node" : "rack";
  const std::string what = days > 0 ? "about " + FormatG(expected) + " failures expected over " +
                                          FormatG(days) + " days, more than " +
                                          std::to_string(kMaxFailures)
                                    : "more than " + std::to_string(kMaxFailures) + " failures";
  return Status::Error(Prefix(c.where) + "failure class '" + c.component + "': " + what +
                       ": is the rate per " + unit + "-day right?");
}

// One drawn event with its sort key.
struct Drawn {
  Micros at;
  size_t cls = 0, unit = 0;
  bool up = false;
  ClusterEvent event;
};

ClusterEvent UnitEvent(const FailureClass& c, const Unit& unit, const Nodes& nodes, Micros at,
                       bool up) {
  ClusterEvent e;
  e.at = at;
  for (NodeIndex n : unit) e.nodes.push_back(nodes.names[n]);
  if (c.slow < 1) {  // a straggler: slow, then back to pace
    e.change = up ? NodeChange::kSlowEnd : NodeChange::kSlow;
    e.speed = c.slow;
  } else {
    e.change = up ? NodeChange::kUp : NodeChange::kDown;
    if (!up) {
      e.cause = c.planned ? DownCause::kMaintenance : DownCause::kFailure;
      e.component = c.component;
    }
  }
  e.where = c.where;
  return e;
}

// The failures of class `cls` on its units over [from, to), appended to out.
Status DrawClass(const FailureClass& c, size_t cls, const std::vector<Unit>& units,
                 const Nodes& nodes, Micros from, Micros to, uint64_t seed,
                 std::vector<Drawn>* out) {
  Rng rng(seed, 0, "failures/" + c.component);
  const double mean_gap_us = kMicrosPerDay / c.rate_per_unit_day;
  for (size_t u = 0; u < units.size(); ++u) {
    Micros t = from;  // the unit is up from t on
    for (;;) {
      const double at = static_cast<double>(t.us) + rng.Exponential(mean_gap_us);
      if (!(at < static_cast<double>(to.us))) break;  // also NaN, infinity
      const Micros down{std::clamp(static_cast<int64_t>(std::llround(at)), t.us, to.us - 1)};
      const Micros up = std::min(down + DrawRepair(c, rng), Micros(kMaxMicros));
      out->push_back({down, cls, u, false, UnitEvent(c, units[u], nodes, down, false)});
      out->push_back({up, cls, u, true, UnitEvent(c, units[u], nodes, up, true)});
      if (out->size() > 2 * kMaxFailures) return TooMany(c, 0, 0);
      t = up + Micros(1);
    }
  }
  return Status::Ok();
}

}  // namespace

const char* DownCauseName(DownCause c) {
  switch (c) {
    case DownCause::kAbsent:
      return "absent";
    case DownCause::kMaintenance:
      return "maintenance";
    case DownCause::kFailure:
      return "failure";
    case DownCause::kCount:
      break;
  }
  return "?";
}

Status CheckClusterEvent(const ClusterEvent& e) {
  const std::string p = Prefix(e.where) + "cluster event: ";
  if (e.change != NodeChange::kDown && e.change != NodeChange::kUp &&
      e.change != NodeChange::kDrain && e.change != NodeChange::kResume &&
      e.change != NodeChange::kSlow && e.change != NodeChange::kSlowEnd)
    return Status::Error(p + "unknown change");
  const std::string what = p + "'" + ChangeName(e.change) + "' ";
  if (e.at != kBeforeEverything && (e.at.us < 0 || e.at.us > kMaxMicros))
    return Status::Error(what + "at " + FormatG(e.at.seconds()) +
                         " s: expected a time >= 0 and <= " + FormatG(kMaxSeconds) + " s");
  if (e.nodes.empty()) return Status::Error(what + "lists no nodes");
  for (const std::string& n : e.nodes)
    if (n.empty()) return Status::Error(what + "names an empty node");
  if (static_cast<size_t>(e.cause) >= kDownCauses)
    return Status::Error(what + "has an unknown cause");
  const bool slow = e.change == NodeChange::kSlow || e.change == NodeChange::kSlowEnd;
  if (slow && !(e.speed > 0 && e.speed < 1))
    return Status::Error(what + "speed " + FormatG(e.speed) + ": expected a pace > 0 and < 1");
  if (!slow && e.speed != 1)
    return Status::Error(what + "cannot have a speed: only slow and slow-end can");
  if (e.change != NodeChange::kDown) {
    if (!e.kill) return Status::Error(what + "cannot leave jobs running: only a down can");
    if (e.cause != DownCause::kFailure)
      return Status::Error(what + "cannot have a cause (" + DownCauseName(e.cause) +
                           "): only a down can");
    if (!e.component.empty())
      return Status::Error(what + "cannot name a component ('" + e.component +
                           "'): only a down can");
  }
  return Status::Ok();
}

Result<std::vector<ClusterEvent>> DrawFailures(const FailureModel& model,
                                               const ClusterSpec& cluster, Micros from, Micros to,
                                               uint64_t seed) {
  for (size_t i = 0; i < model.classes.size(); ++i)
    if (Status s = CheckClass(model.classes[i], i); !s.ok()) return s;
  if (from.us < 0 || from > to || to.us > kMaxMicros)
    return Status::Error(Prefix(model.source) + "failures: bad window [" + FormatG(from.seconds()) +
                         " s, " + FormatG(to.seconds()) +
                         " s): expected 0 <= from <= to <= " + FormatG(kMaxSeconds) + " s");
  const Nodes nodes = ListNodes(cluster);
  Result<std::vector<char>> fails = FailingNodes(model, nodes);
  if (!fails.ok()) return fails.status();
  const std::vector<Unit> node_units = NodeUnits(fails.value());
  std::optional<std::vector<Unit>> rack_units;  // built when a class needs them
  std::vector<Drawn> drawn;
  const double days = static_cast<double>((to - from).us) / kMicrosPerDay;
  double expected = 0;  // failures, ignoring the repairs
  for (size_t i = 0; i < model.classes.size(); ++i) {
    const FailureClass& c = model.classes[i];
    if (c.scope == FailureScope::kRack && !rack_units) {
      Result<std::vector<Unit>> r = RackUnits(cluster, fails.value());
      if (!r.ok()) return r.status();
      rack_units = std::move(r).value();
    }
    const std::vector<Unit>& units = c.scope == FailureScope::kRack ? *rack_units : node_units;
    expected += c.rate_per_unit_day * static_cast<double>(units.size()) * days;
    if (expected > static_cast<double>(kMaxFailures)) return TooMany(c, expected, days);
    if (Status s = DrawClass(c, i, units, nodes, from, to, seed, &drawn); !s.ok()) return s;
  }
  std::stable_sort(drawn.begin(), drawn.end(), [](const Drawn& a, const Drawn& b) {
    return std::tie(a.at, a.cls, a.unit, a.up) < std::tie(b.at, b.cls, b.unit, b.up);
  });
  std::vector<ClusterEvent> out;
  out.reserve(drawn.size());
  for (Drawn& d : drawn) out.push_back(std::move(d.event));
  return out;
}

}  // namespace utilsim
