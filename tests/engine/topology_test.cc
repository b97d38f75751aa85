#include "utilsim/engine/topology.h"

#include <gtest/gtest.h>

#include "utilsim/engine/cluster_state.h"
#include "utilsim/engine/progress.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

// Four nodes g-0..g-3 of 8 GPUs in two NVLink domains of 4.
//   core ─┬─ s0 ─┬─ r0 (os 1): g-0, g-1
//         │      └─ r1 (os 2): g-2
//         └─ s1 (os 4) ── r2 (os 1): g-3
// NVLink 300 GB/s, PCIe 16 GB/s, NIC 12.5 GB/s (the defaults).
ClusterSpec FourNodes() {
  ClusterSpec s;
  s.name = "t";
  s.models = {{"G", 16LL << 30, 1.0}};
  s.groups = {{"g", 4, "G", 8, 64000, 256LL << 30, 4}};
  s.topology.racks = {{"r0", "s0", {"g-0", "g-1"}, 1.0, ""},
                      {"r1", "s0", {"g-2"}, 2.0, ""},
                      {"r2", "s1", {"g-3"}, 1.0, ""}};
  s.topology.switches = {{"core", "", 1.0, ""}, {"s0", "core", 1.0, ""}, {"s1", "core", 4.0, ""}};
  return s;
}

Topology Build(const ClusterSpec& s) {
  auto t = Topology::Build(s);
  EXPECT_TRUE(t.ok()) << t.status().message();
  return std::move(t).value();
}

TEST(Topology, GraphSizeAndNames) {
  const Topology t = Build(FourNodes());
  // 3 switches + 3 racks + 4 nodes + 8 domains + 32 GPUs, a tree.
  EXPECT_EQ(t.num_vertices(), 50u);
  EXPECT_EQ(t.num_edges(), 49u);
  EXPECT_EQ(t.num_racks(), 3u);
  EXPECT_EQ(t.rack_name(t.rack_of(2)), "r1");
  EXPECT_EQ(t.FindNode("g-2"), 2);
  EXPECT_EQ(t.FindNode("g-9"), -1);
  EXPECT_EQ(t.domain_size(0), 4);
}

TEST(Topology, NodeDistanceCountsHopsToTheJoiningPoint) {
  const Topology t = Build(FourNodes());
  EXPECT_EQ(t.NodeDistance(0, 0), 0);
  EXPECT_EQ(t.NodeDistance(0, 1), 1);  // r0
  EXPECT_EQ(t.NodeDistance(0, 2), 2);  // r0, r1 under s0
  EXPECT_EQ(t.NodeDistance(0, 3), 3);  // up to core
}

struct AssessCase {
  const char* label;
  Placement p;
  Reach want;
};

TEST(Topology, AssessLevelsAndBottlenecks) {
  const Topology t = Build(FourNodes());
  const AssessCase cases[] = {
      {"one GPU", {{0, 0b1}}, {0, kUnlimitedBandwidth}},
      {"one domain", {{0, 0b11}}, {1, 300e9}},
      {"two domains of a node", {{0, 0b11000}}, {2, 16e9}},
      {"two tasks, one domain", {{0, 0b1}, {0, 0b10}}, {1, 300e9}},
      // min(PCIe 16, NIC 12.5)
      {"one rack", {{0, 0b1}, {1, 0b1}}, {3, 12.5e9}},
      // g-2 climbs r1's uplink: 12.5 / 2
      {"two racks under s0", {{0, 0b1}, {2, 0b1}}, {4, 6.25e9}},
      // g-3 climbs r2 (1) and s1 (4): 12.5 / 4
      {"across core", {{0, 0b1}, {3, 0b1}}, {5, 3.125e9}},
      {"across core, three nodes", {{1, 0b1}, {2, 0b1}, {3, 0b1}}, {5, 3.125e9}},
  };
  for (const AssessCase& c : cases) {
    SCOPED_TRACE(c.label);
    EXPECT_EQ(t.Assess(c.p), c.want);
  }
}

TEST(Topology, PackedAndAssumedRecorded) {
  const Topology t = Build(FourNodes());
  EXPECT_EQ(t.AssessPacked({0}, {4}), (Reach{1, 300e9}));
  EXPECT_EQ(t.AssessPacked({0}, {6}), (Reach{2, 16e9}));
  EXPECT_EQ(t.AssessPacked({0, 1}, {4, 4}), (Reach{3, 12.5e9}));
  EXPECT_EQ(t.AssumedRecorded(1, 1), Reach{});
  EXPECT_EQ(t.AssumedRecorded(1, 4), (Reach{1, 300e9}));   // one domain
  EXPECT_EQ(t.AssumedRecorded(1, 8), (Reach{2, 16e9}));    // one node
  EXPECT_EQ(t.AssumedRecorded(2, 1), (Reach{3, 12.5e9}));  // a node a task, one rack
  EXPECT_EQ(t.AssumedRecorded(4, 8), (Reach{3, 12.5e9}));
}

TEST(Topology, DefaultIsOneRackAndGeneratedLayouts) {
  ClusterSpec s = FourNodes();
  s.topology.racks.clear();
  s.topology.switches.clear();
  const Topology flat = Build(s);
  EXPECT_EQ(flat.num_racks(), 1u);
  EXPECT_EQ(flat.Assess({{0, 0b1}, {3, 0b1}}), (Reach{3, 12.5e9}));

  // Racks of 2 nodes with uplinks oversubscribed 2:1, one switch per rack
  // at 3:1 under "core": across racks a node gets 12.5 / 2 / 3 GB/s.
  s.topology.nodes_per_rack = 2;
  s.topology.racks_per_switch = 1;
  s.topology.rack_oversubscription = 2;
  s.topology.switch_oversubscription = 3;
  const Topology gen = Build(s);
  EXPECT_EQ(gen.num_racks(), 2u);
  EXPECT_EQ(gen.num_switches(), 3u);
  EXPECT_EQ(gen.rack_name(gen.rack_of(2)), "rack-1");
  EXPECT_EQ(gen.switch_name(2), "switch-1");
  EXPECT_EQ(gen.Assess({{0, 0b1}, {1, 0b1}}), (Reach{3, 12.5e9}));
  EXPECT_EQ(gen.Assess({{0, 0b1}, {2, 0b1}}), (Reach{5, 12.5e9 / 2 / 3}));
}

TEST(Topology, ErrorsNameTheEntry) {
  ClusterSpec s = FourNodes();
  s.topology.racks[2].members.clear();  // g-3 in no rack
  s.topology.racks[2].where = "c.yaml:9: key 'topology.racks[2]'";
  s.topology.racks[0].where = "c.yaml:7: key 'topology.racks[0]'";
  auto r = Topology::Build(s);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "c.yaml:7: key 'topology.racks[0]': node 'g-3' is in no rack: unreachable");

  s = FourNodes();
  s.topology.switches[2].parent = "s2";
  s.topology.switches.push_back({"s2", "s1", 1.0, "c.yaml:20: key 'topology.switches[3]'"});
  s.topology.switches[2].where = "c.yaml:19: key 'topology.switches[2]'";
  r = Topology::Build(s);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "c.yaml:19: key 'topology.switches[2]': switch 's1' does not lead to the root switch "
            "'core' (a cycle of parents): node 'g-3' is unreachable");

  s = FourNodes();
  s.topology.nic_bytes_s = 0;
  EXPECT_FALSE(Topology::Build(s).ok());
  // ClusterState::Build refuses the same spec.
  EXPECT_FALSE(ClusterState::Build(s).ok());
}

TEST(ClusterStateDomains, TasksTakeTheFullestDomainThatFits) {
  ClusterState c = ClusterState::Build(FourNodes()).value();
  TaskDemand three;
  three.gpus = 3;
  ASSERT_TRUE(c.Allocate({0, 0b111}, three).ok());  // domain 0 keeps GPU 3 free
  auto pick = [&](int gpus) {
    TaskDemand d;
    d.gpus = gpus;
    return c.PickGpus(0, d);
  };
  EXPECT_EQ(pick(1), 0b1000u);      // domain 0 (1 free) fits: fullest
  EXPECT_EQ(pick(2), 0b110000u);    // only domain 1 fits two
  EXPECT_EQ(pick(4), 0b11110000u);  // domain 1
  EXPECT_EQ(pick(5), 0b11111000u);  // free domain 1 first, then GPU 3
  // Without domains (whole node = one domain): lowest-indexed free GPUs.
  ClusterSpec s = FourNodes();
  s.groups[0].nvlink_domain = 0;
  ClusterState flat = ClusterState::Build(s).value();
  ASSERT_TRUE(flat.Allocate({0, 0b111}, three).ok());
  TaskDemand two;
  two.gpus = 2;
  EXPECT_EQ(flat.PickGpus(0, two), 0b11000u);
}

Job Gang(int tasks, int gpus, float util) {
  Job j;
  j.name = "gang";
  j.tasks = tasks;
  j.task.gpus = gpus;
  j.runtime = Seconds(100);
  j.util = util;
  j.util_known = true;
  return j;
}

TEST(CommStall, RateScalesTheCommunicationShare) {
  const ClusterState c = ClusterState::Build(FourNodes()).value();
  const WholeGpuProgress m(0.1);
  // 2 tasks x 4 GPUs, no recorded hosts: assumed one task a node in one rack
  // (min(PCIe 16, NIC 12.5) = 12.5 GB/s); only slow-downs count against it.
  const Job j = Gang(2, 4, 0.5f);
  EXPECT_EQ(m.Rate(j, {{0, 0x0F}, {0, 0xF0}}, c), 1.0);  // tighter: no credit
  EXPECT_EQ(m.Rate(j, {{0, 0x0F}, {1, 0x0F}}, c), 1.0);  // as assumed
  // Two racks under s0, g-2 behind 2:1: 6.25 GB/s: 0.4 + 0.5 + 0.1 x 2 = 1.1.
  EXPECT_DOUBLE_EQ(m.Rate(j, {{0, 0x0F}, {2, 0x0F}}, c), 1.0 / 1.1);
  // Across core, 3.125 GB/s: 0.4 + 0.5 + 0.1 x 4 = 1.3.
  EXPECT_DOUBLE_EQ(m.Rate(j, {{0, 0x0F}, {3, 0x0F}}, c), 1.0 / 1.3);
  // Recorded on g-0 and g-1 (one rack): that placement is rate 1 and a known
  // recording is credited both ways: one node is faster,
  // 0.9 + 0.1 x 12.5 / 16 = 0.978125.
  Job rec = j;
  rec.recorded_hosts = {"g-0", "g-1"};
  EXPECT_EQ(m.Rate(rec, {{0, 0x0F}, {1, 0x0F}}, c), 1.0);
  EXPECT_DOUBLE_EQ(m.Rate(rec, {{0, 0x0F}, {0, 0xF0}}, c), 1.0 / 0.978125);
  // Busy 0.95 leaves 0.05 for communication: 0.95 + 0.05 x 2 = 1.05.
  const double u = double(0.95f);
  EXPECT_DOUBLE_EQ(m.Rate(Gang(2, 4, 0.95f), {{0, 0x0F}, {2, 0x0F}}, c), 1.0 / (u + (1.0 - u) * 2));
  // One task of 4 GPUs: assumed one NVLink domain; split over two domains it
  // talks over PCIe: 0.4 + 0.5 + 0.1 x 300 / 16 = 2.775.
  EXPECT_EQ(m.Rate(Gang(1, 4, 0.5f), {{0, 0xF0}}, c), 1.0);
  EXPECT_DOUBLE_EQ(m.Rate(Gang(1, 4, 0.5f), {{0, 0x3C}}, c), 1.0 / 2.775);
  // One GPU never communicates; comm fraction 0 switches the term off.
  EXPECT_EQ(m.Rate(Gang(1, 1, 0.5f), {{3, 0x1}}, c), 1.0);
  EXPECT_EQ(WholeGpuProgress(0).Rate(j, {{0, 0x0F}, {3, 0x0F}}, c), 1.0);
  EXPECT_EQ(m.name(), "whole-gpu comm=0.1");
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
