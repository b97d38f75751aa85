// Out-of-tree filter and score plugins (registry.h): registered by name,
// named by a YAML profile, and used by the framework placement it builds.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "utilsim/engine/cluster_state.h"
#include "utilsim/policies/framework.h"
#include "utilsim/policies/registry.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

// Prefers the highest node index: the opposite of the tie-break.
class LastNode final : public ScorePlugin {
 public:
  std::string name() const override { return "last-node"; }
  int64_t Score(NodeIndex n, const TaskDemand&, const ClusterState&) const override {
    return static_cast<int64_t>(n);
  }
};

ClusterSpec ThreeNodes() {
  ClusterSpec c;
  c.name = "three";
  c.models = {{"G", 16LL << 30, 1.0}};
  c.groups = {{"n", 3, "G", 4, 32000, 256LL << 30}};
  return c;
}

TEST(PluginRegistry, AProfileNamesAPluginRegisteredOutOfTree) {
  PolicyRegistry reg = BuiltinPolicies();
  EXPECT_EQ(reg.FilterNames(), (std::vector<std::string>{"gpu-model", "resources-fit"}));
  ASSERT_TRUE(reg.AddScorePlugin("last-node", [] { return std::make_unique<LastNode>(); }).ok());
  const Status dup = reg.AddScorePlugin("last-node", [] { return std::make_unique<LastNode>(); });
  EXPECT_EQ(dup.message(), "score plugin 'last-node' is registered already");
  EXPECT_EQ(reg.AddFilterPlugin("x", nullptr).message(), "filter plugin 'x': no factory");
  const Status loaded = LoadProfilesFromString(
      "profiles:\n  - name: backwards\n    queue: fifo\n    filters: [resources-fit]\n"
      "    scores: [{plugin: last-node, weight: 1}]\n",
      "p.yaml", &reg);
  ASSERT_TRUE(loaded.ok()) << loaded.message();
  // The profile keeps copies of the plugin factories: a copy of the
  // registry works after the registry it was loaded into is gone.
  PolicyRegistry copy = reg;
  reg = PolicyRegistry();
  auto place = copy.MakePlacement("backwards");
  ASSERT_TRUE(place.ok()) << place.status().message();
  auto state = ClusterState::Build(ThreeNodes());
  ASSERT_TRUE(state.ok());
  Job j;
  j.name = "j";
  j.task.gpus = 1;
  j.task.cpu_milli = 1000;
  j.task.mem_bytes = 1LL << 30;
  auto p = place.value()->Place(j, kAnyModel, state.value());
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(FormatPlacement(*p, state.value()), "n-2:0");  // the last node, as the plugin scores
  // An unregistered plugin is still an error naming the file and key.
  PolicyRegistry plain = BuiltinPolicies();
  const Status unknown = LoadProfilesFromString(
      "profiles:\n  - name: b2\n    queue: fifo\n    filters: [resources-fit]\n"
      "    scores: [{plugin: last-node, weight: 1}]\n",
      "p.yaml", &plain);
  EXPECT_NE(unknown.message().find("unknown score plugin 'last-node'"), std::string::npos)
      << unknown.message();
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
