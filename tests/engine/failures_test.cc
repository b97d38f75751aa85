// Failures drawn from rates (cluster_events.h DrawFailures), the checks of one
// cluster event (CheckClusterEvent) and the names of down causes.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "utilsim/engine/cluster_events.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

constexpr int64_t kDayUs = 86400 * kMicrosPerSecond;
constexpr int64_t kHourUs = 3600 * kMicrosPerSecond;

// One group "a" of `nodes` 8-GPU nodes.
ClusterSpec Nodes(int32_t nodes) {
  ClusterSpec s;
  s.name = "t";
  s.models = {{"G", 16LL << 30, 1.0}};
  s.groups = {{"a", nodes, "G", 8, 64000, 256LL << 30, 0}};
  return s;
}

// a-0..a-3, b (a count-1 group), cpu (no GPUs), two nodes a rack:
// rack-0 {a-0, a-1}, rack-1 {a-2, a-3}, rack-2 {b, cpu}.
ClusterSpec Racked() {
  ClusterSpec s = Nodes(4);
  s.groups.push_back({"b", 1, "G", 8, 64000, 256LL << 30, 0});
  s.groups.push_back({"cpu", 1, "", 0, 64000, 256LL << 30, 0});
  s.topology.nodes_per_rack = 2;
  return s;
}

FailureClass Class(const std::string& component, double rate, RepairDist dist, double mean_h) {
  FailureClass c;
  c.component = component;
  c.rate_per_unit_day = rate;
  c.repair = dist;
  c.repair_mean_h = mean_h;
  c.where = "f.yaml:" + component;
  return c;
}

FailureModel Model(std::vector<FailureClass> classes) {
  FailureModel m;
  m.classes = std::move(classes);
  m.source = "f.yaml";
  return m;
}

std::vector<ClusterEvent> Draw(const FailureModel& m, const ClusterSpec& spec, int64_t days,
                               uint64_t seed) {
  auto r = DrawFailures(m, spec, Micros(0), Micros(days * kDayUs), seed);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? std::move(r).value() : std::vector<ClusterEvent>{};
}

size_t Downs(const std::vector<ClusterEvent>& v) {
  size_t n = 0;
  for (const ClusterEvent& e : v) n += e.change == NodeChange::kDown;
  return n;
}

std::string Error(const FailureModel& m, const ClusterSpec& spec, Micros from = Micros(0),
                  Micros to = Micros(kDayUs)) {
  auto r = DrawFailures(m, spec, from, to, 1);
  EXPECT_FALSE(r.ok());
  return r.ok() ? std::string() : r.status().message();
}

// Each repair's length (up - down), per node in time order.
std::vector<Micros> Repairs(const std::vector<ClusterEvent>& v) {
  std::map<std::string, Micros> down_at;
  std::vector<Micros> out;
  for (const ClusterEvent& e : v) {
    if (e.change == NodeChange::kDown)
      down_at[e.nodes[0]] = e.at;
    else
      out.push_back(e.at - down_at.at(e.nodes[0]));
  }
  return out;
}

double MeanRepairHours(const std::vector<ClusterEvent>& v) {
  const std::vector<Micros> r = Repairs(v);
  double sum = 0;
  for (Micros m : r) sum += static_cast<double>(m.us) / kHourUs;
  return r.empty() ? 0 : sum / static_cast<double>(r.size());
}

// 419 failures expected over 2,048 nodes x 54 days (the failure count of a
// large training run, as a rate per node-day); repairs of 3.6 s barely
// shorten the time a node can fail.
TEST(Failures, PoissonCountMatchesTheRate) {
  const double expected = 419;
  const FailureModel m =
      Model({Class("gpu", expected / (2048.0 * 54.0), RepairDist::kFixed, 1e-3)});
  const ClusterSpec spec = Nodes(2048);
  const double seed1 = static_cast<double>(Downs(Draw(m, spec, 54, 1)));
  EXPECT_NEAR(seed1, expected, 1.96 * std::sqrt(expected));  // the 95 % band
  double sum = 0;
  for (uint64_t seed = 1; seed <= 20; ++seed)
    sum += static_cast<double>(Downs(Draw(m, spec, 54, seed)));
  EXPECT_NEAR(sum / 20, expected, 3 * std::sqrt(expected / 20));
}

TEST(Failures, SameSeedSameEventsAnotherSeedOthers) {
  const FailureModel m = Model({Class("gpu", 0.05, RepairDist::kExponential, 4),
                                Class("hbm", 0.02, RepairDist::kLogNormal, 2)});
  const ClusterSpec spec = Nodes(16);
  const std::vector<ClusterEvent> a = Draw(m, spec, 30, 7), b = Draw(m, spec, 30, 7);
  const std::vector<ClusterEvent> c = Draw(m, spec, 30, 8);
  ASSERT_EQ(a.size(), b.size());
  ASSERT_GT(a.size(), 20u);
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].at, b[i].at);
    EXPECT_EQ(a[i].change, b[i].change);
    EXPECT_EQ(a[i].nodes, b[i].nodes);
    EXPECT_EQ(a[i].component, b[i].component);
  }
  bool differ = a.size() != c.size();
  for (size_t i = 0; !differ && i < a.size(); ++i) differ = a[i].at != c[i].at;
  EXPECT_TRUE(differ);
}

// Each class draws from its own stream: adding a class leaves the others'
// failures as they were.
TEST(Failures, ClassesDrawIndependently) {
  const FailureClass gpu = Class("gpu", 0.05, RepairDist::kExponential, 4);
  const ClusterSpec spec = Nodes(16);
  const std::vector<ClusterEvent> alone = Draw(Model({gpu}), spec, 30, 3);
  std::vector<ClusterEvent> both =
      Draw(Model({Class("nic", 0.05, RepairDist::kFixed, 1), gpu}), spec, 30, 3);
  std::erase_if(both, [&](const ClusterEvent& e) { return e.where != gpu.where; });
  ASSERT_EQ(alone.size(), both.size());
  for (size_t i = 0; i < alone.size(); ++i) {
    EXPECT_EQ(alone[i].at, both[i].at);
    EXPECT_EQ(alone[i].nodes, both[i].nodes);
  }
}

TEST(Failures, EventsAreDownsOfTheClassThenUps) {
  const FailureModel m = Model({Class("gpu", 0.5, RepairDist::kExponential, 4)});
  const std::vector<ClusterEvent> v = Draw(m, Nodes(4), 30, 1);
  ASSERT_GT(v.size(), 10u);
  for (size_t i = 0; i < v.size(); ++i) {
    const ClusterEvent& e = v[i];
    ASSERT_TRUE(CheckClusterEvent(e).ok()) << CheckClusterEvent(e).message();
    EXPECT_EQ(e.where, "f.yaml:gpu");
    EXPECT_TRUE(e.kill);
    ASSERT_EQ(e.nodes.size(), 1u);
    if (e.change == NodeChange::kDown) {
      EXPECT_EQ(e.cause, DownCause::kFailure);
      EXPECT_EQ(e.component, "gpu");
    } else {
      EXPECT_EQ(e.change, NodeChange::kUp);
      EXPECT_EQ(e.component, "");
    }
    if (i > 0) {
      EXPECT_LE(v[i - 1].at, e.at) << i;  // time order
    }
  }
}

TEST(Failures, PlannedClassesAreMaintenance) {
  FailureClass c = Class("host-maintenance", 0.5, RepairDist::kFixed, 1);
  c.planned = true;
  const std::vector<ClusterEvent> v = Draw(Model({c}), Nodes(4), 10, 1);
  ASSERT_GT(Downs(v), 0u);
  for (const ClusterEvent& e : v)
    if (e.change == NodeChange::kDown) {
      EXPECT_EQ(e.cause, DownCause::kMaintenance);
      EXPECT_EQ(e.component, "host-maintenance");
    }
}

// Frequent failures and long repairs: without the rule, failures would
// overlap. Per node: down, up, down, up, ... at increasing times, downs in
// [from, to).
TEST(Failures, NoUnitFailsWhileDown) {
  const FailureModel m = Model({Class("gpu", 2, RepairDist::kExponential, 24)});
  const Micros from(3 * kDayUs), to(40 * kDayUs);
  auto r = DrawFailures(m, Nodes(8), from, to, 5);
  ASSERT_TRUE(r.ok()) << r.status().message();
  std::map<std::string, std::vector<const ClusterEvent*>> per_node;
  for (const ClusterEvent& e : r.value()) per_node[e.nodes[0]].push_back(&e);
  ASSERT_EQ(per_node.size(), 8u);
  bool up_after_to = false;
  for (const auto& [node, events] : per_node) {
    ASSERT_GT(events.size(), 4u) << node;
    for (size_t i = 0; i < events.size(); ++i) {
      EXPECT_EQ(events[i]->change, i % 2 == 0 ? NodeChange::kDown : NodeChange::kUp) << node << i;
      if (i > 0) {
        EXPECT_LT(events[i - 1]->at, events[i]->at) << node << i;
      }
      if (i % 2 == 0) {
        EXPECT_GE(events[i]->at, from);
        EXPECT_LT(events[i]->at, to);
      }
    }
    EXPECT_EQ(events.size() % 2, 0u) << node << ": every down has its up";
    up_after_to = up_after_to || events.back()->at >= to;
  }
  EXPECT_TRUE(up_after_to);  // (with 24 h repairs, some repair ends after `to`)
}

TEST(Failures, FixedRepairIsExactlyTheMean) {
  const FailureModel m = Model({Class("gpu", 0.2, RepairDist::kFixed, 4)});
  const std::vector<Micros> r = Repairs(Draw(m, Nodes(8), 60, 2));
  EXPECT_GT(r.size(), 20u);
  for (Micros d : r) EXPECT_EQ(d, Micros(4 * kHourUs));
}

// Log-normal repairs (sigma 0.8: standard deviation 0.95 x the mean) over
// about 50,000 draws: the sample mean is within 5 % of mean_h (more than 10
// standard errors); the exponential one too.
TEST(Failures, RepairSampleMeansMatchMeanH) {
  FailureClass ln = Class("switch", 10, RepairDist::kLogNormal, 2);
  ln.repair_sigma = 0.8;
  const std::vector<ClusterEvent> v = Draw(Model({ln}), Nodes(100), 100, 4);
  EXPECT_GT(Downs(v), 40000u);
  EXPECT_NEAR(MeanRepairHours(v), 2.0, 0.05 * 2.0);
  const std::vector<ClusterEvent> e =
      Draw(Model({Class("gpu", 10, RepairDist::kExponential, 2)}), Nodes(100), 100, 4);
  EXPECT_NEAR(MeanRepairHours(e), 2.0, 0.05 * 2.0);
}

// Repairs are at least one second, even when drawn shorter.
TEST(Failures, RepairsLastAtLeastOneSecond) {
  const std::vector<ClusterEvent> v =
      Draw(Model({Class("gpu", 5, RepairDist::kFixed, 1e-6)}), Nodes(4), 10, 1);
  const std::vector<Micros> r = Repairs(v);
  ASSERT_GT(r.size(), 0u);
  for (Micros d : r) EXPECT_EQ(d, Micros(kMicrosPerSecond));
}

TEST(Failures, RackScopeTakesTheRacksNodesDownTogether) {
  FailureClass sw = Class("switch", 0.5, RepairDist::kFixed, 1);
  sw.scope = FailureScope::kRack;
  const std::vector<ClusterEvent> v = Draw(Model({sw}), Racked(), 30, 1);
  const std::set<std::vector<std::string>> racks = {{"a-0", "a-1"}, {"a-2", "a-3"}, {"b"}};
  std::set<std::vector<std::string>> seen;
  for (const ClusterEvent& e : v) {
    EXPECT_TRUE(racks.count(e.nodes)) << e.nodes[0] << " +" << e.nodes.size() - 1;
    seen.insert(e.nodes);
  }
  EXPECT_EQ(seen, racks);  // the node without GPUs ("cpu") never fails
}

// Without topology, every node sits in one rack.
TEST(Failures, RackScopeWithoutTopologyIsTheWholeCluster) {
  FailureClass sw = Class("power", 0.5, RepairDist::kFixed, 1);
  sw.scope = FailureScope::kRack;
  const std::vector<ClusterEvent> v = Draw(Model({sw}), Nodes(3), 30, 1);
  ASSERT_GT(v.size(), 0u);
  for (const ClusterEvent& e : v)
    EXPECT_EQ(e.nodes, (std::vector<std::string>{"a-0", "a-1", "a-2"}));
}

TEST(Failures, ModelNodesChooseWhatFails) {
  FailureModel m = Model({Class("gpu", 0.5, RepairDist::kFixed, 1)});
  m.nodes = {"b", "a-2", "cpu"};  // a node named by its group, a node, a node without GPUs
  std::set<std::string> seen;
  for (const ClusterEvent& e : Draw(m, Racked(), 30, 1)) seen.insert(e.nodes[0]);
  EXPECT_EQ(seen, (std::set<std::string>{"a-2", "b", "cpu"}));
  m.nodes = {"a"};  // a group: its nodes
  seen.clear();
  for (const ClusterEvent& e : Draw(m, Racked(), 30, 1)) seen.insert(e.nodes[0]);
  EXPECT_EQ(seen, (std::set<std::string>{"a-0", "a-1", "a-2", "a-3"}));
}

TEST(Failures, EmptyWindowDrawsNothing) {
  const FailureModel m = Model({Class("gpu", 100, RepairDist::kFixed, 1)});
  auto r = DrawFailures(m, Nodes(4), Micros(kDayUs), Micros(kDayUs), 1);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r.value().empty());
  auto none = DrawFailures(Model({}), Nodes(4), Micros(0), Micros(kDayUs), 1);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none.value().empty());
}

TEST(Failures, ErrorsSayWhatIsWrong) {
  const ClusterSpec spec = Nodes(4);
  EXPECT_EQ(Error(Model({Class("gpu", 0, RepairDist::kFixed, 1)}), spec),
            "f.yaml:gpu: failure class 'gpu': failures per node-day must be > 0 and finite, got 0");
  FailureClass rack = Class("sw", -1, RepairDist::kFixed, 1);
  rack.scope = FailureScope::kRack;
  EXPECT_EQ(Error(Model({rack}), spec),
            "f.yaml:sw: failure class 'sw': failures per rack-day must be > 0 and finite, got -1");
  EXPECT_EQ(Error(Model({Class("gpu", INFINITY, RepairDist::kFixed, 1)}), spec),
            "f.yaml:gpu: failure class 'gpu': failures per node-day must be > 0 and finite, got "
            "inf");
  FailureClass unnamed = Class("", 1, RepairDist::kFixed, 1);
  unnamed.where = "";
  EXPECT_EQ(Error(Model({Class("gpu", 1, RepairDist::kFixed, 1), unnamed}), spec),
            "failure class #2: the component must be non-empty");
  EXPECT_EQ(Error(Model({Class("gpu", 1, RepairDist::kExponential, 0)}), spec),
            "f.yaml:gpu: failure class 'gpu': the mean repair time must be > 0 hours and finite, "
            "got 0");
  FailureClass ln = Class("gpu", 1, RepairDist::kLogNormal, 1);
  ln.repair_sigma = 0;
  EXPECT_EQ(Error(Model({ln}), spec),
            "f.yaml:gpu: failure class 'gpu': the log-normal repair sigma must be > 0 and finite, "
            "got 0");
  FailureModel unknown = Model({Class("gpu", 1, RepairDist::kFixed, 1)});
  unknown.nodes = {"a-1", "z-9"};
  EXPECT_EQ(Error(unknown, spec),
            "f.yaml: failures: nodes: 'z-9' is neither a node nor a node group of the cluster");
  EXPECT_EQ(Error(Model({Class("gpu", 1, RepairDist::kFixed, 1)}), spec, Micros(kDayUs), Micros(0)),
            "f.yaml: failures: bad window [86400 s, 0 s): expected 0 <= from <= to <= 3.1536e+10 "
            "s");
  EXPECT_EQ(
      Error(Model({Class("gpu", 1, RepairDist::kFixed, 1)}), spec, Micros(0), kNever).substr(0, 24),
      "f.yaml: failures: bad wi");
  // A rate meant per cluster-day taken per node-day: too many, said before drawing.
  EXPECT_EQ(Error(Model({Class("gpu", 1e3, RepairDist::kFixed, 1)}), Nodes(2048), Micros(0),
                  Micros(100 * kDayUs)),
            "f.yaml:gpu: failure class 'gpu': about 2.048e+08 failures expected over 100 days, "
            "more than 10000000: is the rate per node-day right?");
}

TEST(Failures, DownCauseNames) {
  EXPECT_STREQ(DownCauseName(DownCause::kAbsent), "absent");
  EXPECT_STREQ(DownCauseName(DownCause::kMaintenance), "maintenance");
  EXPECT_STREQ(DownCauseName(DownCause::kFailure), "failure");
}

TEST(Failures, CheckClusterEventFigures) {
  ClusterEvent ok;
  ok.at = Micros(5 * kMicrosPerSecond);
  ok.nodes = {"a-0"};
  ok.where = "e.yaml:3";
  EXPECT_TRUE(CheckClusterEvent(ok).ok());
  ClusterEvent before = ok;
  before.at = kBeforeEverything;
  before.cause = DownCause::kAbsent;
  EXPECT_TRUE(CheckClusterEvent(before).ok());
  ClusterEvent wait = ok;
  wait.kill = false;
  wait.cause = DownCause::kMaintenance;
  EXPECT_TRUE(CheckClusterEvent(wait).ok());

  auto bad = [](const ClusterEvent& e) { return CheckClusterEvent(e).message(); };
  ClusterEvent e = ok;
  e.at = Micros(-1);
  EXPECT_EQ(
      bad(e),
      "e.yaml:3: cluster event: 'down' at -1e-06 s: expected a time >= 0 and <= 3.1536e+10 s");
  e = ok;
  e.nodes.clear();
  EXPECT_EQ(bad(e), "e.yaml:3: cluster event: 'down' lists no nodes");
  e.nodes = {""};
  EXPECT_EQ(bad(e), "e.yaml:3: cluster event: 'down' names an empty node");
  e = ok;
  e.change = NodeChange::kUp;
  EXPECT_TRUE(CheckClusterEvent(e).ok());
  e.kill = false;
  EXPECT_EQ(bad(e), "e.yaml:3: cluster event: 'up' cannot leave jobs running: only a down can");
  e.kill = true;
  e.change = NodeChange::kDrain;
  e.cause = DownCause::kMaintenance;
  EXPECT_EQ(bad(e),
            "e.yaml:3: cluster event: 'drain' cannot have a cause (maintenance): only a "
            "down can");
  e.cause = DownCause::kFailure;
  e.change = NodeChange::kResume;
  e.component = "gpu";
  e.where = "";
  EXPECT_EQ(bad(e), "cluster event: 'resume' cannot name a component ('gpu'): only a down can");
}

// A straggler class slows its units instead of taking them down: kSlow
// with its pace, then kSlowEnd with the same pace a repair time later.
TEST(Failures, StragglerClassesSlowInsteadOfDown) {
  ClusterSpec c;
  c.name = "s";
  c.models = {{"X", 0, 1.0}};
  c.groups = {{"n", 4, "X", 8, 64000, 256LL << 30, 0}};
  FailureModel m;
  FailureClass k;
  k.component = "thermal";
  k.rate_per_unit_day = 2;
  k.slow = 0.6;
  k.repair = RepairDist::kFixed;
  k.repair_mean_h = 1;
  m.classes = {k};
  auto ev = DrawFailures(m, c, Micros(0), Seconds(10 * 86400), 3);
  ASSERT_TRUE(ev.ok()) << ev.status().message();
  ASSERT_FALSE(ev.value().empty());
  int slows = 0;
  for (const ClusterEvent& e : ev.value()) {
    EXPECT_TRUE(e.change == NodeChange::kSlow || e.change == NodeChange::kSlowEnd);
    EXPECT_EQ(e.speed, 0.6);
    EXPECT_TRUE(CheckClusterEvent(e).ok()) << CheckClusterEvent(e).message();
    slows += e.change == NodeChange::kSlow;
  }
  EXPECT_EQ(2 * slows, static_cast<int>(ev.value().size()));
  // Expected 2 x 4 nodes x 10 days = 80 (within 4 standard deviations).
  EXPECT_NEAR(slows, 80, 4 * std::sqrt(80.0));
  k.planned = true;
  m.classes = {k};
  EXPECT_FALSE(DrawFailures(m, c, Micros(0), Seconds(86400), 3).ok());
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
