// YAML cluster spec: reading, errors with file/line/key, round trip, digests.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "testutil/testutil.h"
#include "utilsim/traces/canonical.h"

namespace utilsim::traces {
namespace UTILSIM_UNITY_ID {

using testutil::Fixture;
using testutil::ReadFile;
using testutil::TempDir;
using testutil::WriteFile;

constexpr int64_t kMiB = int64_t{1} << 20;
constexpr int64_t kGiB = int64_t{1} << 30;

ClusterSpec MustParse(const std::string& text) {
  auto r = ParseClusterYaml(text, "c.yaml");
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? std::move(r).value() : ClusterSpec{};
}

TEST(ClusterYaml, ReadsTheFixture) {
  auto r = ReadClusterYaml(Fixture("canonical/cluster.yaml"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  const ClusterSpec& c = r.value();
  EXPECT_EQ(c.name, "demo");
  ASSERT_EQ(c.models.size(), 2u);
  EXPECT_EQ(c.models[0].name, "A100-80GB");
  EXPECT_EQ(c.models[0].memory_bytes, 80 * kGiB);
  EXPECT_EQ(c.models[0].speed, 1.0);
  EXPECT_EQ(c.models[1].memory_bytes, 15360 * kMiB);
  EXPECT_EQ(c.models[1].speed, 0.25);
  ASSERT_EQ(c.groups.size(), 3u);
  const NodeGroup& a = c.groups[0];
  EXPECT_EQ(a.name, "a100");
  EXPECT_EQ(a.count, 64);
  EXPECT_EQ(a.gpu_model, "A100-80GB");
  EXPECT_EQ(a.gpus, 8);
  EXPECT_EQ(a.cpu_milli, 96000);
  EXPECT_EQ(a.mem_bytes, 1024 * kGiB);
  EXPECT_EQ(a.nvlink_domain, 8);
  const NodeGroup& t = c.groups[1];
  EXPECT_EQ(t.cpu_milli, 31500);
  EXPECT_EQ(t.mem_bytes, 196608 * kMiB + kMiB / 2);
  ASSERT_EQ(c.topology.racks.size(), 2u);
  EXPECT_EQ(c.topology.nic_bytes_s, 25e9);
  EXPECT_EQ(c.topology.nvlink_bytes_s, 300e9);  // default
  EXPECT_EQ(c.topology.racks[1].name, "r1");
  EXPECT_EQ(c.topology.racks[1].parent, "spine");
  EXPECT_EQ(c.topology.racks[1].oversubscription, 2.0);
  EXPECT_EQ(c.topology.racks[1].members.size(), 9u);
  EXPECT_EQ(c.topology.racks[1].where,
            Fixture("canonical/cluster.yaml") + ":14: key 'topology.racks[1]'");
  const NodeGroup& cpu = c.groups[2];
  EXPECT_EQ(cpu.gpus, 0);
  EXPECT_EQ(cpu.gpu_model, "");
  EXPECT_EQ(cpu.nvlink_domain, 0);
  EXPECT_EQ(c.total_gpus(), 64 * 8 + 4 * 4);
  EXPECT_EQ(c.total_nodes(), 76);
}

TEST(ClusterYaml, BlockStyleAndFractionalCores) {
  ClusterSpec c = MustParse(
      "name: x\n"
      "node_groups:\n"
      "  - name: small\n"
      "    count: 2\n"
      "    cpu_cores: 1.5\n"
      "    memory_mib: 512\n");
  ASSERT_EQ(c.groups.size(), 1u);
  EXPECT_TRUE(c.models.empty());
  EXPECT_EQ(c.groups[0].cpu_milli, 1500);
  EXPECT_EQ(c.groups[0].mem_bytes, 512 * kMiB);
}

// Two nodes a-0, a-1 (lines 1-4), for the topology cases.
const std::string kTwoNodes =
    "name: x\ngpu_models: [{name: A, memory_gib: 1}]\nnode_groups:\n"
    "  - {name: a, count: 2, gpu_model: A, gpus: 8, cpu_cores: 1, memory_gib: 1}\n";

struct BadYaml {
  const char* label;
  std::string text;
  const char* message;  // after "c.yaml:"
};

// clang-format off
const BadYaml kBad[] = {
    {"unknown key", "name: x\nnode_groups:\n  - {name: a, count: 1, cpu_cores: 1, memory_gib: 1,"
     " gpu: 8}\n",
     "3: unknown key 'node_groups[0].gpu' (known: name, count, gpu_model, gpus, cpu_cores, "
     "cpu_milli, memory_gib, memory_mib, nvlink_domain, mig)"},
    {"unknown top key", "name: x\nnodes: []\n",
     "2: unknown key 'nodes' (known: name, gpu_models, node_groups, topology)"},
    {"missing count", "name: x\nnode_groups:\n  - {name: a, cpu_cores: 1, memory_gib: 1}\n",
     "3: missing required key 'node_groups[0].count'"},
    {"missing node_groups", "name: x\n", "1: missing required key 'node_groups'"},
    {"missing name", "node_groups: []\n", "1: missing required key 'name'"},
    {"empty node_groups", "name: x\nnode_groups: []\n",
     "2: key 'node_groups': expected a non-empty list, got '[]'"},
    {"zero count", "name: x\nnode_groups:\n  - {name: a, count: 0, cpu_cores: 1, memory_gib: 1}\n",
     "3: key 'node_groups[0].count': expected an integer 1..1000000, got '0'"},
    {"negative count",
     "name: x\nnode_groups:\n  - {name: a, count: -4, cpu_cores: 1, memory_gib: 1}\n",
     "3: key 'node_groups[0].count': expected an integer 1..1000000, got '-4'"},
    {"undeclared model",
     "name: x\nnode_groups:\n  - {name: a, count: 1, gpu_model: H100, gpus: 8, cpu_cores: 1, "
     "memory_gib: 1}\n",
     "3: key 'node_groups[0].gpu_model': expected a model declared under gpu_models, got 'H100'"},
    {"too many gpus",
     "name: x\ngpu_models: [{name: A100, memory_gib: 80}]\nnode_groups:\n"
     "  - {name: a, count: 1, gpu_model: A100, gpus: 65, cpu_cores: 1, memory_gib: 1}\n",
     "4: key 'node_groups[0].gpus': expected an integer 0..64, got '65'"},
    {"gpus without model",
     "name: x\nnode_groups:\n  - {name: a, count: 1, gpus: 8, cpu_cores: 1, memory_gib: 1}\n",
     "3: missing required key 'node_groups[0].gpu_model' (gpus > 0)"},
    {"duplicate group",
     "name: x\nnode_groups:\n  - {name: a, count: 1, cpu_cores: 1, memory_gib: 1}\n"
     "  - {name: a, count: 2, cpu_cores: 1, memory_gib: 1}\n",
     "4: key 'node_groups[1].name': expected a new group name, got 'a'"},
    {"duplicate model",
     "name: x\ngpu_models:\n  - {name: A, memory_gib: 1}\n  - {name: A, memory_gib: 2}\n"
     "node_groups:\n  - {name: a, count: 1, cpu_cores: 1, memory_gib: 1}\n",
     "4: key 'gpu_models[1].name': expected a new model name, got 'A'"},
    {"both cpu keys",
     "name: x\nnode_groups:\n  - {name: a, count: 1, cpu_cores: 1, cpu_milli: 1000, "
     "memory_gib: 1}\n",
     "3: key 'node_groups[0].cpu_milli': expected only one of cpu_cores, cpu_milli, got '1000'"},
    {"no memory", "name: x\nnode_groups:\n  - {name: a, count: 1, cpu_cores: 1}\n",
     "3: missing required key 'node_groups[0].memory_gib' (or memory_mib)"},
    {"negative memory",
     "name: x\nnode_groups:\n  - {name: a, count: 1, cpu_cores: 1, memory_gib: -1}\n",
     "3: key 'node_groups[0].memory_gib': expected a number > 0, got '-1'"},
    {"bad speed", "name: x\ngpu_models:\n  - {name: A, memory_gib: 1, speed: fast}\n"
     "node_groups:\n  - {name: a, count: 1, cpu_cores: 1, memory_gib: 1}\n",
     "3: key 'gpu_models[0].speed': expected a number > 0, got 'fast'"},
    {"nvlink not a divisor",
     "name: x\ngpu_models: [{name: A, memory_gib: 1}]\nnode_groups:\n"
     "  - {name: a, count: 1, gpu_model: A, gpus: 8, nvlink_domain: 3, cpu_cores: 1, "
     "memory_gib: 1}\n",
     "4: key 'node_groups[0].nvlink_domain': expected a divisor of gpus (8), got '3'"},
    {"duplicate key",
     "name: x\nnode_groups:\n  - name: a\n    count: 1\n    count: 2\n"
     "    cpu_cores: 1\n    memory_gib: 1\n",
     "5: duplicate key 'node_groups[0].count'"},
    {"map where number", "name: x\nnode_groups:\n  - name: a\n    count: {n: 1}\n"
     "    cpu_cores: 1\n    memory_gib: 1\n",
     "4: key 'node_groups[0].count': expected an integer 1..1000000, got '<a mapping>'"},
    {"empty document", "# nothing\n",
     "1: document: expected a mapping with keys name, gpu_models, node_groups, topology"},
    {"not a mapping", "- a\n- b\n",
     "1: document: expected a mapping with keys name, gpu_models, node_groups, topology"},
    {"syntax error", "name: x\nnode_groups: [\n  {name: a\n",
     "4: YAML error: end of map flow not found"},
    // Topology: every message names the entry at fault.
    {"rack member unknown", kTwoNodes +
     "topology:\n  racks:\n    - {name: r0, nodes: [a-0]}\n    - {name: r1, nodes: [a-9]}\n",
     "8: key 'topology.racks[1]': rack 'r1': 'a-9' is neither a node nor a node group of the "
     "cluster"},
    {"node in no rack", kTwoNodes + "topology:\n  racks:\n    - {name: r0, nodes: [a-0]}\n",
     "7: key 'topology.racks[0]': node 'a-1' is in no rack: unreachable"},
    {"node in two racks", kTwoNodes +
     "topology:\n  racks:\n    - {name: r0, nodes: [a]}\n    - {name: r1, nodes: [a-1]}\n",
     "8: key 'topology.racks[1]': rack 'r1': node 'a-1' is already in rack 'r0'"},
    {"switch cycle", kTwoNodes +
     "topology:\n  racks:\n    - {name: r0, switch: s1, nodes: [a]}\n  switches:\n"
     "    - {name: core}\n    - {name: s1, parent: s2}\n    - {name: s2, parent: s1}\n",
     "10: key 'topology.switches[1]': switch 's1' does not lead to the root switch 'core' (a cycle "
     "of parents): node 'a-0' is unreachable"},
    {"two roots", kTwoNodes +
     "topology:\n  racks:\n    - {name: r0, nodes: [a]}\n  switches:\n"
     "    - {name: core}\n    - {name: other}\n",
     "10: key 'topology.switches[1]': switch 'other' has no parent, but 'core' is already the "
     "root (exactly one switch may have none)"},
    {"unknown parent", kTwoNodes +
     "topology:\n  racks:\n    - {name: r0, switch: tor, nodes: [a]}\n  switches:\n"
     "    - {name: core}\n",
     "7: key 'topology.racks[0]': rack 'r0': switch 'tor' is not a listed switch"},
    {"oversubscription below 1", kTwoNodes +
     "topology:\n  nodes_per_rack: 1\n  rack_oversubscription: 0.5\n",
     "7: key 'topology.rack_oversubscription': expected a number 1..1e+06, got '0.5'"},
    {"generated and listed", kTwoNodes +
     "topology:\n  nodes_per_rack: 1\n  racks:\n    - {name: r0, nodes: [a]}\n",
     "6: key 'topology.nodes_per_rack': expected no generated layout when racks or switches are "
     "listed, got '1'"},
    {"unknown topology key", kTwoNodes + "topology:\n  rack_size: 4\n",
     "6: unknown key 'topology.rack_size' (known: nvlink_gb_s, pcie_gb_s, nic_gb_s, storage_gb_s, "
     "nodes_per_rack, racks_per_switch, rack_oversubscription, switch_oversubscription, racks, "
     "switches)"},
    {"bad bandwidth", kTwoNodes + "topology:\n  nic_gb_s: 0\n",
     "6: key 'topology.nic_gb_s': expected a number 1e-06..1e+06, got '0'"},
};
// clang-format on

TEST(ClusterYaml, ErrorsNameFileLineAndKey) {
  for (const BadYaml& c : kBad) {
    SCOPED_TRACE(c.label);
    auto r = ParseClusterYaml(c.text, "c.yaml");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().message(), std::string("c.yaml:") + c.message);
  }
}

TEST(ClusterYaml, UnreadablePath) {
  auto r = ReadClusterYaml("/nonexistent/c.yaml");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "/nonexistent/c.yaml: cannot open: No such file or directory");
  auto dir = ReadClusterYaml("/");
  ASSERT_FALSE(dir.ok());
  EXPECT_EQ(dir.status().message(), "/: read error: Is a directory");
}

void ExpectSameSpec(const ClusterSpec& a, const ClusterSpec& b) {
  EXPECT_EQ(a.name, b.name);
  ASSERT_EQ(a.models.size(), b.models.size());
  for (size_t i = 0; i < a.models.size(); ++i) {
    EXPECT_EQ(a.models[i].name, b.models[i].name);
    EXPECT_EQ(a.models[i].memory_bytes, b.models[i].memory_bytes);
    EXPECT_EQ(a.models[i].speed, b.models[i].speed);
  }
  ASSERT_EQ(a.groups.size(), b.groups.size());
  for (size_t i = 0; i < a.groups.size(); ++i) {
    const NodeGroup& x = a.groups[i];
    const NodeGroup& y = b.groups[i];
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.count, y.count);
    EXPECT_EQ(x.gpu_model, y.gpu_model);
    EXPECT_EQ(x.gpus, y.gpus);
    EXPECT_EQ(x.cpu_milli, y.cpu_milli);
    EXPECT_EQ(x.mem_bytes, y.mem_bytes);
    EXPECT_EQ(x.nvlink_domain, y.nvlink_domain);
  }
  EXPECT_EQ(DigestCluster(a), DigestCluster(b));
}

TEST(ClusterYaml, RoundTrip) {
  const std::string dir = TempDir();
  ClusterSpec c = ReadClusterYaml(Fixture("canonical/cluster.yaml")).value();
  c.name = "quote \"me\" \\ # : {x}";
  c.models[0].speed = 0.1;
  c.groups[2].mem_bytes = 3 * kGiB + 1;  // not whole MiB
  c.groups[2].cpu_milli = 1;
  ASSERT_TRUE(WriteClusterYaml(c, dir + "/c.yaml").ok());
  for (const auto& e : std::filesystem::directory_iterator(dir))  // no temporary file left
    EXPECT_EQ(e.path().filename(), "c.yaml");
  auto back = ReadClusterYaml(dir + "/c.yaml");
  ASSERT_TRUE(back.ok()) << back.status().message() << "\n" << ReadFile(dir + "/c.yaml");
  ExpectSameSpec(c, back.value());
  EXPECT_EQ(FormatClusterYaml(ReadClusterYaml(Fixture("canonical/cluster.yaml")).value()),
            "name: \"demo\"\n"
            "gpu_models:\n"
            "  - {name: \"A100-80GB\", memory_gib: 80, speed: 1}\n"
            "  - {name: \"T4\", memory_gib: 15, speed: 0.25}\n"
            "node_groups:\n"
            "  - {name: \"a100\", count: 64, gpu_model: \"A100-80GB\", gpus: 8, cpu_cores: 96, "
            "memory_gib: 1024, nvlink_domain: 8}\n"
            "  - {name: \"t4\", count: 4, gpu_model: \"T4\", gpus: 4, cpu_milli: 31500, "
            "memory_mib: 196608.5}\n"
            "  - {name: \"cpu\", count: 8, cpu_cores: 64, memory_gib: 256}\n"
            "topology:\n"
            "  nic_gb_s: 25\n"
            "  racks:\n"
            "    - {name: \"r0\", switch: \"spine\", nodes: [\"a100\"]}\n"
            "    - {name: \"r1\", switch: \"spine\", oversubscription: 2, nodes: [\"t4\", "
            "\"cpu-0\", \"cpu-1\", \"cpu-2\", \"cpu-3\", \"cpu-4\", \"cpu-5\", \"cpu-6\", "
            "\"cpu-7\"]}\n"
            "  switches:\n"
            "    - {name: \"spine\"}\n");
  EXPECT_FALSE(WriteClusterYaml(c, dir + "/no/such/dir/c.yaml").ok());
}

TEST(Digest, StableAndSensitive) {
  ClusterSpec c = ReadClusterYaml(Fixture("canonical/cluster.yaml")).value();
  const std::string d = DigestCluster(c);
  EXPECT_EQ(d.size(), 16u);
  EXPECT_EQ(d, DigestCluster(c));
  ClusterSpec c2 = c;
  c2.groups[1].nvlink_domain = 2;
  EXPECT_NE(DigestCluster(c2), d);
  c2 = c;
  c2.models[0].speed = 1.0000001;
  EXPECT_NE(DigestCluster(c2), d);
  c2 = c;
  c2.topology.racks[1].oversubscription = 3;
  EXPECT_NE(DigestCluster(c2), d);
  c2 = c;
  c2.topology.racks[0].members.push_back("x");
  EXPECT_NE(DigestCluster(c2), d);

  Workload w = ReadJobsCsv(Fixture("canonical/jobs.csv")).value();
  const std::string dw = DigestWorkload(w);
  Workload w2 = w;
  w2.jobs[3].task.cpu_milli += 1;
  EXPECT_NE(DigestWorkload(w2), dw);
  w2 = w;
  w2.series[0].busy[2] = 0.51f;
  EXPECT_NE(DigestWorkload(w2), dw);
  w2 = w;
  w2.jobs[0].kill_at_limit = !w2.jobs[0].kill_at_limit;
  EXPECT_NE(DigestWorkload(w2), dw);
  w2 = w;
  w2.jobs[1].stalls.comm = 0.05f;
  EXPECT_NE(DigestWorkload(w2), dw);
  w2 = w;
  w2.source = "elsewhere";
  EXPECT_EQ(DigestWorkload(w2), dw);
  // Golden values: the digest order is a format; a change here must be
  // deliberate (it changes the identity of every stored input).
  EXPECT_EQ(d, "5fe629fa972b4ae2");
  EXPECT_EQ(dw, "5004acb37d39ccef");
  // The MIG demand inputs count where set, and only there: without them the
  // fixture's digest is the one it had before they existed.
  w2 = w;
  w2.jobs[0].tokens_per_step = 1024;
  EXPECT_NE(DigestWorkload(w2), dw);
  for (Job& j : w2.jobs) {
    j.kind = JobKind::kUnknown;
    j.tokens_per_step = 0;
  }
  EXPECT_EQ(DigestWorkload(w2), "dcfe869a6f21f52a");
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim::traces
