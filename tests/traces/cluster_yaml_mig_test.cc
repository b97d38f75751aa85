// The optional `mig` key of a cluster YAML node group (docs/mig.md): parsing,
// canonical form, round trip, and errors naming file, line and key.
#include <gtest/gtest.h>

#include <string>

#include "utilsim/traces/canonical.h"

namespace utilsim::traces {
namespace UTILSIM_UNITY_ID {

// Lines 1-3; a group follows on line 4.
const std::string kHead =
    "name: x\n"
    "gpu_models: [{name: A100-SXM4-40GB, memory_gib: 40}, {name: H100-80GB}, {name: V100}]\n"
    "node_groups:\n";

std::string Group(const std::string& model, int gpus, const std::string& mig) {
  return "  - {name: g, count: 2, gpu_model: " + model + ", gpus: " + std::to_string(gpus) +
         ", cpu_cores: 8, memory_gib: 64, mig: " + mig + "}\n";
}

TEST(ClusterYamlMig, OneLayoutForEveryGpu) {
  auto r = ParseClusterYaml(kHead + Group("A100-SXM4-40GB", 8, "\"3g.20gb,2g.10gb,1g.5gb,1g.5gb\""),
                            "c.yaml");
  ASSERT_TRUE(r.ok()) << r.status().message();
  const NodeGroup& g = r.value().groups[0];
  ASSERT_EQ(g.mig.size(), 1u);
  // Placed as the driver would (3g first at 4), stored canonical.
  EXPECT_EQ(g.mig[0], "1g.5gb@0,1g.5gb@1,2g.10gb@2,3g.20gb@4");
}

TEST(ClusterYamlMig, OneLayoutPerGpuAndRoundTrip) {
  const std::string text = kHead +
                           "  - name: h\n    count: 1\n    gpu_model: H100-80GB\n    gpus: 2\n"
                           "    cpu_cores: 8\n    memory_gib: 64\n    mig:\n"
                           "      - 7g.80gb\n      - 4g.40gb@0, 1g.20gb@6, 2g.20gb@4\n";
  auto r = ParseClusterYaml(text, "c.yaml");
  ASSERT_TRUE(r.ok()) << r.status().message();
  const NodeGroup& g = r.value().groups[0];
  ASSERT_EQ(g.mig.size(), 2u);
  EXPECT_EQ(g.mig[0], "7g.80gb@0");
  EXPECT_EQ(g.mig[1], "4g.40gb@0,2g.20gb@4,1g.20gb@6");
  const std::string written = FormatClusterYaml(r.value());
  EXPECT_NE(written.find(", mig: [\"7g.80gb@0\", \"4g.40gb@0,2g.20gb@4,1g.20gb@6\"]}"),
            std::string::npos)
      << written;
  auto back = ParseClusterYaml(written, "w.yaml");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back.value().groups[0].mig, g.mig);
  // Groups without the key keep no layouts and write none.
  auto plain = ParseClusterYaml(
      kHead + "  - {name: p, count: 1, gpu_model: V100, gpus: 8, cpu_cores: 1, memory_gib: 1}\n",
      "c.yaml");
  ASSERT_TRUE(plain.ok()) << plain.status().message();
  EXPECT_TRUE(plain.value().groups[0].mig.empty());
  EXPECT_EQ(FormatClusterYaml(plain.value()).find("mig"), std::string::npos);
}

struct BadMig {
  const char* label;
  std::string text;
  const char* message;  // after "c.yaml:"
};

TEST(ClusterYamlMig, ErrorsNameFileLineAndKey) {
  // clang-format off
  const BadMig kBad[] = {
      {"invalid start", kHead + Group("A100-SXM4-40GB", 8, "\"3g.20gb@1\""),
       "4: key 'node_groups[0].mig': expected a MIG layout valid on A100-40GB, got '3g.20gb@1': "
       "entry 1 '3g.20gb@1': start 1 is not a valid placement (valid starts: 0, 4)"},
      {"overlap", kHead + Group("A100-SXM4-40GB", 8, "\"4g.20gb@0,3g.20gb@0\""),
       "4: key 'node_groups[0].mig': expected a MIG layout valid on A100-40GB, got "
       "'4g.20gb@0,3g.20gb@0': entry 2 '3g.20gb@0': overlaps 4g.20gb@0 on memory slices 0-3"},
      {"profile the model lacks", kHead + Group("A100-SXM4-40GB", 8, "\"3g.40gb\""),
       "4: key 'node_groups[0].mig': expected a MIG layout valid on A100-40GB, got '3g.40gb': "
       "entry 1 '3g.40gb': no profile '3g.40gb' on A100-40GB (profiles: 1g.5gb, 1g.5gb+me, "
       "1g.10gb, 2g.10gb, 3g.20gb, 4g.20gb, 7g.40gb)"},
      {"order the driver rejects", kHead + Group("A100-SXM4-40GB", 8, "\"19,19,14,9\""),
       "4: key 'node_groups[0].mig': expected a MIG layout valid on A100-40GB, got '19,19,14,9': "
       "entry 4 '9': no free placement (valid starts: 0, 4; in use: 1g.5gb@0,1g.5gb@1,"
       "2g.10gb@4); list larger profiles first or give a start as '3g.20gb@<start>'"},
      {"model without MIG", kHead + Group("V100", 8, "\"7g.40gb\""),
       "4: key 'node_groups[0].mig': gpu_model 'V100' has no MIG profiles (MIG models: "
       "A100-40GB, A100-80GB, H100-80GB, H200-141GB)"},
      {"no gpu_model",
       kHead + "  - {name: c, count: 1, cpu_cores: 1, memory_gib: 1, mig: 7g.40gb}\n",
       "4: key 'node_groups[0].mig': needs gpu_model (a MIG GPU model)"},
      {"empty layout", kHead + Group("A100-SXM4-40GB", 8, "\"\""),
       "4: key 'node_groups[0].mig': expected a MIG layout valid on A100-40GB (e.g. "
       "'3g.20gb,2g.10gb'), got ''"},
      {"wrong list length", kHead + Group("H100-80GB", 4, "[7g.80gb, 7g.80gb]"),
       "4: key 'node_groups[0].mig': expected one layout or a list of 4 layouts (one per GPU), "
       "got '<a list>'"},
      {"mapping", kHead + Group("H100-80GB", 1, "{a: 1}"),
       "4: key 'node_groups[0].mig': expected a MIG layout valid on H100-80GB (e.g. "
       "'3g.40gb,2g.20gb'), got '<a mapping>'"},
      {"bad list element",
       kHead + "  - name: h\n    count: 1\n    gpu_model: H100-80GB\n    gpus: 2\n"
               "    cpu_cores: 8\n    memory_gib: 64\n    mig:\n"
               "      - 7g.80gb\n      - 1g.10gb@7\n",
       "12: key 'node_groups[0].mig[1]': expected a MIG layout valid on H100-80GB, got "
       "'1g.10gb@7': entry 1 '1g.10gb@7': start 7 is not a valid placement (valid starts: 0, 1, "
       "2, 3, 4, 5, 6)"},
  };
  // clang-format on
  for (const BadMig& b : kBad) {
    auto r = ParseClusterYaml(b.text, "c.yaml");
    ASSERT_FALSE(r.ok()) << b.label;
    EXPECT_EQ(r.status().message(), std::string("c.yaml:") + b.message) << b.label;
  }
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim::traces
