// The power model file (traces/power_yaml.h): overrides on the built-in
// model, and errors that name the file, line and key.
#include "utilsim/traces/power_yaml.h"

#include <gtest/gtest.h>

namespace utilsim {
namespace UTILSIM_UNITY_ID {

TEST(PowerYaml, OverridesAndAddsOnTheBuiltInModel) {
  auto m = ParsePowerYaml(
      "pue: 1.25\n"
      "node_w_per_gpu: 150\n"
      "models:\n"
      "  A100-80GB: {idle_w: 60, context_w: 95, active_w: 400}\n"
      "  MyGPU: {idle_w: 10, context_w: 20, active_w: 30}\n",
      "p.yaml");
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_DOUBLE_EQ(m.value().pue, 1.25);
  EXPECT_DOUBLE_EQ(m.value().node_w_per_gpu, 150);
  EXPECT_DOUBLE_EQ(m.value().cpu_node_w, DefaultPowerModel().cpu_node_w);  // kept
  EXPECT_DOUBLE_EQ(PowerOf(m.value(), "A100-80GB").context_w, 95);
  EXPECT_DOUBLE_EQ(PowerOf(m.value(), "a100-80gb").active_w, 400);  // case-insensitive
  EXPECT_DOUBLE_EQ(PowerOf(m.value(), "MyGPU").active_w, 30);
  // An alias the file did not name keeps the built-in figures.
  EXPECT_DOUBLE_EQ(PowerOf(m.value(), "A100-SXM4-80GB").active_w, 224.6);
  EXPECT_EQ(CheckPowerModel(m.value()), "");
}

TEST(PowerYaml, EmptyFileIsTheBuiltInModel) {
  auto m = ParsePowerYaml("", "e.yaml");
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m.value().models.size(), DefaultPowerModel().models.size());
}

TEST(PowerYaml, ErrorsNameFileLineAndKey) {
  auto bad = [](const std::string& text) {
    auto m = ParsePowerYaml(text, "p.yaml");
    EXPECT_FALSE(m.ok());
    return m.ok() ? std::string() : m.status().message();
  };
  EXPECT_EQ(bad("models:\n  X: {idle_w: 60, context_w: 95, active_w: 60}\n"),
            "p.yaml:2: key 'models.X.active_w': expected watts >= context_w (95), got '60'");
  EXPECT_EQ(bad("pue: 0.9\n"), "p.yaml:1: key 'pue': expected a number >= 1, got '0.9'");
  EXPECT_EQ(bad("pue: 1.1\nnode_w: 3\n"), "p.yaml:2: unknown key 'node_w'");
  EXPECT_EQ(bad("models:\n  X: {idle_w: 1, context_w: 2}\n"),
            "p.yaml:2: key 'models.X': missing 'active_w'");
  EXPECT_EQ(bad("cpu_node_w: lots\n"),
            "p.yaml:1: key 'cpu_node_w': expected watts >= 0, got 'lots'");
  EXPECT_EQ(bad("- 1\n"), "p.yaml:1: document: expected a mapping");
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
