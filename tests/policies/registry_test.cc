#include "utilsim/policies/registry.h"

#include <gtest/gtest.h>

namespace utilsim {
namespace UTILSIM_UNITY_ID {

bool Contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

TEST(Registry, BuiltinsListedWithVersions) {
  auto list = BuiltinPolicies().List();
  std::vector<std::string> names;
  for (const auto& p : list) {
    names.push_back(p.kind + ":" + p.name + "@" + p.version);
    EXPECT_FALSE(p.description.empty()) << p.name;
  }
  const std::vector<std::string> expect = {"placement:best-fit@1",
                                           "placement:colocate@1",
                                           "placement:epvm@1",
                                           "placement:fgd@1",
                                           "placement:fgdsim-best-fit@1",
                                           "placement:fgdsim-dotprod@1",
                                           "placement:fgdsim-fgd@1",
                                           "placement:fgdsim-gpu-clustering@1",
                                           "placement:fgdsim-gpu-packing@1",
                                           "placement:fgdsim-random@1",
                                           "placement:first-fit@1",
                                           "placement:gpu-clustering@1",
                                           "placement:gpu-packing@1",
                                           "placement:least-loaded@1",
                                           "placement:random@2",
                                           "placement:recorded-hosts@1",
                                           "placement:stranding-hybrid@1",
                                           "placement:tetris@1",
                                           "placement:topology-aware@1",
                                           "placement:worst-fit@1",
                                           "queue:as-recorded@1",
                                           "queue:conservative-backfill@1",
                                           "queue:drf@1",
                                           "queue:easy-backfill@1",
                                           "queue:fifo@1",
                                           "queue:fifo-skip@1",
                                           "queue:priority@1",
                                           "queue:priority-preempt@1",
                                           "queue:sjf@1",
                                           "queue:sjf-oracle@1",
                                           "queue:tiresias@1"};
  EXPECT_EQ(names, expect);
}

// An out-of-tree placement: a registry is open to code outside utilsim.
class LastNode final : public PlacementPolicy {
 public:
  PolicyId id() const override { return {"last-node", "7"}; }
  std::optional<Placement> Place(const Job& job, ModelMask mask, ClusterState& c) override {
    return PlaceTasks(job, mask, c, [](const TaskDemand& d, ModelMask m, const ClusterState& s) {
      for (int64_t n = static_cast<int64_t>(s.num_nodes()) - 1; n >= 0; --n)
        if (s.CanHost(static_cast<NodeIndex>(n), d, m)) return n;
      return int64_t{-1};
    });
  }
};

TEST(Registry, OpenToNewPoliciesVersionFromTheirIdDuplicatesRefused) {
  PolicyRegistry reg = BuiltinPolicies();
  // The version given is ignored: the listing and the results take id()'s.
  ASSERT_TRUE(reg.AddPlacement({"last-node", "", "99", "the highest-indexed node that fits"},
                               [] { return std::make_unique<LastNode>(); })
                  .ok());
  bool listed = false;
  for (const PolicyInfo& p : reg.List())
    if (p.name == "last-node") listed = p.version == "7" && p.kind == "placement";
  EXPECT_TRUE(listed);
  auto s = reg.Make("fifo-skip+last-node");
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s.value()->placement_policy().version, "7");
  // Every built-in's listed version is the one its scheduler records.
  for (const PolicyInfo& p : BuiltinPolicies().List()) {
    if (p.kind != "placement") continue;
    auto made = BuiltinPolicies().Make("fifo+" + p.name);
    ASSERT_TRUE(made.ok()) << p.name;
    EXPECT_EQ(made.value()->placement_policy().version, p.version) << p.name;
  }
  // A second policy of the same name is an error naming it and its kind.
  const Status dup =
      reg.AddPlacement({"best-fit", "", "", "x"}, [] { return std::make_unique<LastNode>(); });
  ASSERT_FALSE(dup.ok());
  EXPECT_EQ(dup.message(), "policy 'best-fit' is registered already (as a placement)");
  EXPECT_EQ(
      reg.AddPlacement({"", "", "", "x"}, [] { return std::make_unique<LastNode>(); }).message(),
      "a policy needs a name");
}

TEST(Registry, MakesSchedulersFromNames) {
  PolicyRegistry r = BuiltinPolicies();
  auto a = r.Make("best-fit");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a.value()->queue_policy().name, "fifo");
  EXPECT_EQ(a.value()->placement_policy().name, "best-fit");
  auto b = r.Make("fifo-skip+worst-fit");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b.value()->queue_policy().name, "fifo-skip");
  EXPECT_EQ(b.value()->label(), "fifo-skip+worst-fit");
  auto c = r.Make("as-recorded");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c.value()->queue_policy().name, "as-recorded");
  // Alone, as-recorded replays on the recorded hosts (recorded_hosts.h).
  EXPECT_EQ(c.value()->placement_policy().name, "recorded-hosts");
}

TEST(Registry, UnknownNamesListKnownOnes) {
  PolicyRegistry r = BuiltinPolicies();
  auto a = r.Make("tightest");
  ASSERT_FALSE(a.ok());
  EXPECT_TRUE(Contains(a.status().message(), "unknown policy 'tightest'"));
  EXPECT_TRUE(Contains(a.status().message(), "best-fit"));
  // No profile is built in: the list of them is left out, not printed empty.
  EXPECT_FALSE(Contains(a.status().message(), "profiles:")) << a.status().message();
  EXPECT_TRUE(Contains(a.status().message(), "best-fit, colocate, epvm")) << a.status().message();
  auto b = r.Make("lifo+best-fit");
  ASSERT_FALSE(b.ok());
  EXPECT_TRUE(Contains(b.status().message(), "unknown queue policy 'lifo'"));
  auto c = r.Make("fifo+nope");
  EXPECT_TRUE(Contains(c.status().message(), "unknown placement policy 'nope'"));
}

TEST(Profiles, LoadsAndRuns) {
  PolicyRegistry r = BuiltinPolicies();
  Status s = LoadProfilesFromString(R"(profiles:
  - name: tight
    description: tight GPUs then CPU
    queue: fifo-skip
    filters: [resources-fit, gpu-model]
    scores:
      - {plugin: gpu-least-leftover, weight: 10}
      - {plugin: cpu-least-leftover, weight: 1}
)",
                                    "p.yaml", &r);
  ASSERT_TRUE(s.ok()) << s.message();
  auto sched = r.Make("tight");
  ASSERT_TRUE(sched.ok());
  EXPECT_EQ(sched.value()->placement_policy().name, "tight");
  EXPECT_EQ(sched.value()->queue_policy().name, "fifo-skip");
  // A loaded profile is listed when a name is unknown.
  auto unknown = r.Make("tighter");
  ASSERT_FALSE(unknown.ok());
  EXPECT_TRUE(Contains(unknown.status().message(), "; profiles: tight; queues: as-recorded, "))
      << unknown.status().message();
}

struct BadProfile {
  const char* yaml;
  const char* message;
};

TEST(Profiles, BadProfilesNameFileLineAndKey) {
  const BadProfile cases[] = {
      {"profiles:\n  - name: x\n    filters: [resources-fit]\n    scores: [{plugin: magic}]\n",
       "p.yaml:4: plugin: unknown score plugin 'magic'"},
      {"profiles:\n  - name: x\n    filters: [gpu-model]\n",
       "p.yaml:3: filters: profile has no resources-fit filter, so it could over-commit a node"},
      {"profiles:\n  - name: x\n    filters: [resources-fit]\n    scores:\n"
       "      - {plugin: gpu-least-leftover, weight: 500}\n",
       "p.yaml:5: weight: expected 1..100, got 500"},
      {"profiles:\n  - name: x\n    filters: [resources-fit]\n    color: red\n",
       "p.yaml:4: color: unknown key"},
      {"profiles:\n  - name: best-fit\n    filters: [resources-fit]\n",
       "p.yaml:2: name: 'best-fit' is already registered"},
      {"profiles:\n  - name: x\n    queue: lifo\n    filters: [resources-fit]\n",
       "p.yaml:3: queue: unknown queue policy 'lifo'"},
      {"profiles:\n  - name: x\n    filters: [resources-fit, spin]\n",
       "p.yaml:3: filters: unknown filter plugin 'spin'"},
      {"profiles: [\n", "p.yaml:"},
      {"policies: []\n", "p.yaml: expected a top-level 'profiles:' list"},
  };
  for (const auto& c : cases) {
    PolicyRegistry r = BuiltinPolicies();
    Status s = LoadProfilesFromString(c.yaml, "p.yaml", &r);
    ASSERT_FALSE(s.ok()) << c.yaml;
    EXPECT_TRUE(Contains(s.message(), c.message)) << s.message();
  }
  PolicyRegistry r = BuiltinPolicies();
  EXPECT_TRUE(Contains(LoadProfiles("/nonexistent/p.yaml", &r).message(),
                       "/nonexistent/p.yaml: cannot read profile file"));
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
