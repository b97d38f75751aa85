// slurm.conf + gres.conf reader (slurm_conf.h): the real test cluster's
// files give exactly the cluster that ran (and a ClusterState whose node
// names are Slurm's); the hand-written files cover Include, DEFAULT lines,
// continuation, NodeSets, gres.conf typing and its warnings; every error
// with its exact message; detection.
#include "utilsim/traces/slurm_conf.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "testutil/testutil.h"
#include "utilsim/engine/cluster_state.h"

namespace utilsim::traces {
namespace UTILSIM_UNITY_ID {

using testutil::Fixture;
using testutil::TempDir;
using testutil::WriteFile;
using Strings = std::vector<std::string>;

constexpr int64_t kMiB = int64_t{1} << 20;

SlurmConf Read(const std::string& path, const std::string& gres = "") {
  auto r = ReadSlurmConf(path, gres);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? std::move(r).value() : SlurmConf{};
}

bool HasNote(const SlurmConf& c, const std::string& part) {
  for (const auto& n : c.notes)
    if (n.find(part) != std::string::npos) return true;
  return false;
}

TEST(SlurmConfReal, TheClusterThatRan) {
  const SlurmConf c = Read(Fixture("slurm/slurm.conf"));
  EXPECT_EQ(c.cluster_name, "utest");
  EXPECT_EQ(c.max_array_size, 1001);
  EXPECT_EQ(c.select_type, "select/cons_tres");
  EXPECT_EQ(c.select_type_parameters, "CR_Core_Memory");
  EXPECT_EQ(c.scheduler_type, "sched/backfill");
  EXPECT_EQ(c.gres_types, "gpu");
  EXPECT_EQ(c.warnings.total(), 0);
  ASSERT_EQ(c.nodes.size(), 5u);
  for (size_t i = 0; i < 5; ++i) {
    const SlurmConf::Node& n = c.nodes[i];
    const bool a = i < 2;
    SCOPED_TRACE(n.name);
    EXPECT_EQ(n.name, (Strings{"a1", "a2", "b1", "b2", "b3"})[i]);
    EXPECT_EQ(n.cpus, a ? 16 : 8);
    EXPECT_EQ(n.sockets, 1);
    EXPECT_EQ(n.cores_per_socket, a ? 16 : 8);
    EXPECT_EQ(n.threads_per_core, 1);
    EXPECT_EQ(n.real_memory_mib, a ? 64000 : 32000);
    EXPECT_EQ(n.gpus, 4);
    EXPECT_EQ(n.gpu_type, a ? "a100" : "v100");
    EXPECT_EQ(n.features, Strings{a ? "a100" : "v100"});
    EXPECT_EQ(n.weight, 1);
    EXPECT_EQ(n.partitions, Strings{"gpu"});
  }
  ASSERT_EQ(c.partitions.size(), 1u);
  const SlurmConf::Partition& p = c.partitions[0];
  EXPECT_EQ(p.name, "gpu");
  EXPECT_EQ(p.nodes, (Strings{"a1", "a2", "b1", "b2", "b3"}));
  EXPECT_TRUE(p.is_default);
  EXPECT_FALSE(p.max_time.has_value());  // INFINITE
  EXPECT_FALSE(p.default_time.has_value());
  EXPECT_EQ(p.state, "UP");
  EXPECT_EQ(p.priority_tier, 1);
  EXPECT_EQ(c.FindNode("b2"), 3);
  EXPECT_EQ(c.FindNode("z"), -1);
  EXPECT_EQ(c.FindPartition("gpu"), 0);
  // The ClusterSpec: one group per node, named as the node.
  const ClusterSpec& s = c.cluster;
  EXPECT_EQ(s.name, "utest");
  ASSERT_EQ(s.models.size(), 2u);
  EXPECT_EQ(s.models[0].name, "a100");
  EXPECT_EQ(s.models[1].name, "v100");
  EXPECT_EQ(s.models[0].memory_bytes, 0);
  EXPECT_EQ(s.models[0].speed, 1.0);
  ASSERT_EQ(s.groups.size(), 5u);
  EXPECT_EQ(s.groups[0].name, "a1");
  EXPECT_EQ(s.groups[0].count, 1);
  EXPECT_EQ(s.groups[0].gpu_model, "a100");
  EXPECT_EQ(s.groups[0].gpus, 4);
  EXPECT_EQ(s.groups[0].cpu_milli, 16000);
  EXPECT_EQ(s.groups[0].mem_bytes, 64000 * kMiB);
  EXPECT_EQ(s.groups[4].name, "b3");
  EXPECT_EQ(s.groups[4].gpu_model, "v100");
  EXPECT_EQ(s.groups[4].cpu_milli, 8000);
  EXPECT_EQ(s.groups[4].mem_bytes, 32000 * kMiB);
  EXPECT_EQ(s.total_gpus(), 20);
  auto state = ClusterState::Build(s);
  ASSERT_TRUE(state.ok()) << state.status().message();
  EXPECT_EQ(state.value().node(0).name, "a1");
  EXPECT_EQ(state.value().node(4).name, "b3");
  EXPECT_TRUE(HasNote(c, "cluster utest, 5 nodes, 20 GPUs, 1 partitions; gres.conf"));
}

TEST(SlurmConfHand, IncludeDefaultsNodeSetsAndGresConf) {
  const SlurmConf c = Read(Fixture("slurm/hand/slurm.conf"));
  EXPECT_EQ(c.cluster_name, "hand");
  EXPECT_EQ(c.max_array_size, 5000);
  EXPECT_EQ(c.gres_types, "gpu,shard");
  Strings names;
  for (const auto& n : c.nodes) names.push_back(n.name);
  EXPECT_EQ(names, (Strings{"l1", "l2", "c1", "r1-n01", "r1-n02", "r2-n01", "r2-n02"}));
  // l1, l2: from nodes.inc; untyped gpu:4 typed by gres.conf; quoted feature.
  const SlurmConf::Node& l2 = c.nodes[1];
  EXPECT_EQ(l2.cpus, 64);
  EXPECT_EQ(l2.real_memory_mib, 256000);
  EXPECT_EQ(l2.gpus, 4);  // slurm.conf's count, although gres.conf lists 2 files
  EXPECT_EQ(l2.gpu_type, "l40s");
  EXPECT_EQ(l2.features, Strings{"l40s"});
  EXPECT_EQ(l2.partitions, (Strings{"l40", "all"}));
  // c1: CPUs = Boards 2 x SocketsPerBoard 2 x 4 cores x 2 threads; no
  // RealMemory (defined before NodeName=DEFAULT): 1 MiB, counted.
  const SlurmConf::Node& c1 = c.nodes[2];
  EXPECT_EQ(c1.boards, 2);
  EXPECT_EQ(c1.sockets, 4);
  EXPECT_EQ(c1.cpus, 32);
  EXPECT_EQ(c1.real_memory_mib, 1);
  EXPECT_EQ(c1.gpus, 0);
  EXPECT_EQ(c1.gpu_type, "");
  EXPECT_EQ(c1.partitions, (Strings{"all", "cpu"}));
  // r nodes: DEFAULT (continued line) 2 x 16 x 2 = 64 CPUs, 512000 MiB.
  const SlurmConf::Node& r = c.nodes[5];
  EXPECT_EQ(r.name, "r2-n01");
  EXPECT_EQ(r.cpus, 64);
  EXPECT_EQ(r.real_memory_mib, 512000);
  EXPECT_EQ(r.gpus, 8);
  EXPECT_EQ(r.gpu_type, "h100");
  EXPECT_EQ(r.features, (Strings{"h100", "nvlink"}));
  EXPECT_EQ(r.weight, 10);
  EXPECT_EQ(r.state, "UNKNOWN");
  EXPECT_EQ(r.partitions, (Strings{"h100", "all"}));
  ASSERT_EQ(c.partitions.size(), 4u);
  const SlurmConf::Partition& h = c.partitions[0];
  EXPECT_EQ(h.name, "h100");
  EXPECT_EQ(h.nodes, (Strings{"r1-n01", "r1-n02", "r2-n01", "r2-n02"}));  // NodeSet by feature
  EXPECT_TRUE(h.is_default);
  EXPECT_EQ(h.max_time, Seconds(7 * 86400));  // PartitionName=DEFAULT
  EXPECT_EQ(h.default_time, Seconds(3600));
  EXPECT_EQ(h.priority_tier, 10);
  EXPECT_EQ(h.state, "UP");
  EXPECT_EQ(c.partitions[1].nodes, (Strings{"l1", "l2"}));
  EXPECT_FALSE(c.partitions[1].max_time.has_value());  // UNLIMITED
  EXPECT_FALSE(c.partitions[1].is_default);
  EXPECT_EQ(c.partitions[2].nodes.size(), 7u);  // ALL
  EXPECT_EQ(c.partitions[3].max_time, Seconds(1800));
  EXPECT_EQ(c.partitions[3].state, "DOWN");
  // Models in first-seen node order; the CPU-only node has none.
  ASSERT_EQ(c.cluster.models.size(), 2u);
  EXPECT_EQ(c.cluster.models[0].name, "l40s");
  EXPECT_EQ(c.cluster.models[1].name, "h100");
  EXPECT_EQ(c.cluster.groups[2].gpu_model, "");
  EXPECT_EQ(c.cluster.groups[2].gpus, 0);
  EXPECT_EQ(c.cluster.groups[2].cpu_milli, 32000);
  EXPECT_EQ(c.cluster.groups[2].mem_bytes, kMiB);
  EXPECT_TRUE(ClusterState::Build(c.cluster).ok());
  // Warnings and notes.
  const std::string inc = Fixture("slurm/hand/nodes.inc");
  const std::string gres = Fixture("slurm/hand/gres.conf");
  EXPECT_EQ(c.warnings.total(), 2);
  EXPECT_EQ(c.warnings.examples().at(kSlurmConfWarnNoMemory), Strings{inc + ":3: c1"});
  EXPECT_EQ(c.warnings.examples().at(kSlurmConfWarnGresCount),
            Strings{gres + ":7: node l2: gres.conf 2 GPUs, slurm.conf 4"});
  EXPECT_TRUE(HasNote(c, "GRES 'shard' ignored (utilsim models GPUs only; first at " +
                             Fixture("slurm/hand/slurm.conf") + ":16)"));
  EXPECT_TRUE(HasNote(c, "gres.conf: GPU types of 2 nodes with an untyped Gres in slurm.conf"));
  EXPECT_TRUE(HasNote(c, "gres.conf: 1 node names not in slurm.conf ignored (first x9)"));
  EXPECT_TRUE(HasNote(c, "gres.conf: AutoDetect=off (" + gres + ":3)"));
  // Without gres.conf (an explicit empty one): the l40 GPUs stay untyped.
  const std::string dir = TempDir();
  const SlurmConf bare =
      Read(Fixture("slurm/hand/slurm.conf"), WriteFile(dir + "/empty.conf", "# nothing\n"));
  EXPECT_EQ(bare.nodes[0].gpu_type, "");
  EXPECT_EQ(bare.cluster.groups[0].gpu_model, "gpu");
  EXPECT_EQ(bare.cluster.models[0].name, "gpu");
}

TEST(SlurmConfSyntax, CaseCommentsQuotesContinuation) {
  const std::string dir = TempDir();
  const std::string p = WriteFile(dir + "/x.conf",
                                  "clustername=\"my cluster\"  # a comment\n"
                                  "\n"
                                  "   # an indented comment\n"
                                  "NODENAME=n[1-3] cpus=4 \\\n"
                                  "  realmemory=1000 \\\n"
                                  "  gres=gpu:t4:1 Features=\"a,b\"\n"
                                  "partitionname=p nodes=n[1-2],n3 default=yes maxtime=1-0\n");
  const SlurmConf c = Read(p);
  EXPECT_EQ(c.cluster_name, "my cluster");
  ASSERT_EQ(c.nodes.size(), 3u);
  EXPECT_EQ(c.nodes[2].cpus, 4);
  EXPECT_EQ(c.nodes[2].real_memory_mib, 1000);
  EXPECT_EQ(c.nodes[2].gpu_type, "t4");
  EXPECT_EQ(c.nodes[2].features, (Strings{"a", "b"}));
  EXPECT_EQ(c.nodes[2].where, p + ":4");
  EXPECT_TRUE(c.partitions[0].is_default);
  EXPECT_EQ(c.partitions[0].max_time, Seconds(86400));
  EXPECT_EQ(c.cluster.name, "my cluster");
  // No ClusterName: "slurm".
  EXPECT_EQ(Read(WriteFile(dir + "/y.conf", "NodeName=a RealMemory=1\n")).cluster.name, "slurm");
}

TEST(SlurmConfErrors, ExactMessages) {
  const std::string dir = TempDir();
  struct Case {
    std::string text, message;  // message after "<path>"
  };
  const Case cases[] = {
      {"NodeName=a1 CPUs=x\n", ":1: field 'CPUs': expected an integer 1..1000000000, got 'x'"},
      {"NodeName=a1 RealMemory=0\n",
       ":1: field 'RealMemory': expected an integer 1..1099511627776, got '0'"},
      {"NodeName=a[1-2\n",
       ":1: field 'NodeName': expected ']' to close every '[' in a host list, got 'a[1-2'"},
      {"NodeName=a1\nNodeName=a[1-2]\n",
       ":2: field 'NodeName': expected nodes not defined before "
       "(a1 is defined at PATH:1), got 'a[1-2]'"},
      {"NodeName=a1 Gres=gpu:a100:2,gpu:v100:2\n",
       ":1: field 'Gres': GPUs of two types ('a100', 'v100'): utilsim models one GPU model per "
       "node"},
      {"NodeName=a1 Gres=gpu:65\n",
       ":1: field 'Gres': expected at most 64 GPUs per node (utilsim's limit), got 'gpu:65'"},
      {"NodeName=a1 Gres=gpu::2\n",
       ":1: field 'Gres': expected one type and a count per GRES entry (as gpu:a100:4), got "
       "'gpu::2'"},
      {"NodeName=a1\nPartitionName=p Nodes=a2\n",
       ":2: field 'Nodes': expected node names of NodeName lines, NodeSet names or ALL ('a2' is "
       "none of them), got 'a2'"},
      {"NodeName=a1\nPartitionName=p Nodes=a1\nPartitionName=p Nodes=a1\n",
       ":3: field 'PartitionName': expected a partition name not used before, got 'p'"},
      {"NodeName=a1\nPartitionName=p Nodes=a1 MaxTime=soon\n",
       ":2: field 'MaxTime': expected a Slurm duration (M, M:S, H:M:S, D-H, D-H:M, D-H:M:S) or "
       "UNLIMITED, INFINITE, Partition_Limit, got 'soon'"},
      {"NodeName=a1\nPartitionName=p Nodes=a1 PriorityTier=70000\n",
       ":2: field 'PriorityTier': expected an integer 0..65533, got '70000'"},
      {"ClusterName=x\n", ": no NodeName lines (utilsim needs the cluster's nodes)"},
      {"", ": no NodeName lines (utilsim needs the cluster's nodes)"},
      {"NodeName=a1 junk\n", ":1: expected Key=Value pairs (or Include FILE), got 'junk'"},
      {"NodeName=a1 Feature=\"x\n", ":1: field 'Feature': expected a closing '\"'"},
      {"MaxArraySize=-1\nNodeName=a1\n",
       ":1: field 'MaxArraySize': expected an integer 0..4000001, got '-1'"},
      {"Include nope.conf\n",
       ":1: Include nope.conf: DIR/nope.conf: cannot open: No such file or "
       "directory"},
      {"Include /dev/null\n", ":1: Include /dev/null: not a regular file"},
      {"NodeName=" + std::string(700, 'a') + "[1-99999]\n",
       ":1: field 'NodeName': expected node names of at most 64 MiB in all (utilsim's limit), "
       "got '" +
           std::string(100, 'a') + "...'"},
      {"NodeName=a[1-100001]\n",
       ":1: field 'NodeName': expected at most 100000 nodes in all (utilsim's limit), got "
       "'a[1-100001]'"},
  };
  int k = 0;
  for (const Case& c : cases) {
    const std::string path = WriteFile(dir + "/bad" + std::to_string(k++) + ".conf", c.text);
    auto r = ReadSlurmConf(path, dir + "/none.conf");  // (not read: no gres.conf needed)
    ASSERT_FALSE(r.ok()) << c.text;
    std::string want = path + c.message;
    for (auto [from, to] : {std::pair<std::string, std::string>{"PATH", path}, {"DIR", dir}})
      if (size_t at = want.find(from); at != std::string::npos) want.replace(at, from.size(), to);
    EXPECT_EQ(r.status().message(), want) << c.text;
  }
  // Include loops.
  const std::string a = WriteFile(dir + "/a.conf", "Include b.conf\nNodeName=n1\n");
  WriteFile(dir + "/b.conf", "Include a.conf\n");
  auto loop = ReadSlurmConf(a);
  ASSERT_FALSE(loop.ok());
  EXPECT_EQ(loop.status().message(), a + ":1: Include b.conf: " + dir +
                                         "/b.conf:1: Include a.conf: Include loop: " + dir +
                                         "/a.conf");
  const std::string self = WriteFile(dir + "/self.conf", "Include self.conf\n");
  EXPECT_EQ(ReadSlurmConf(self).status().message(),
            self + ":1: Include self.conf: Include loop: " + dir + "/self.conf");
  EXPECT_EQ(ReadSlurmConf(dir + "/missing.conf").status().message(),
            dir + "/missing.conf: cannot open: No such file or directory");
  EXPECT_EQ(ReadSlurmConf(dir).status().message(), dir + ": cannot open: a folder, not a file");
}

TEST(SlurmConfErrors, GresConf) {
  const std::string dir = TempDir();
  const std::string conf = WriteFile(dir + "/s.conf", "NodeName=a1 Gres=gpu:4 RealMemory=10\n");
  struct Case {
    std::string text, message;
  };
  const Case cases[] = {
      {"NodeName=a1 Name=gpu Type=a100 Count=2\nNodeName=a1 Name=gpu Type=v100 Count=2\n",
       ":1: node 'a1': GPUs of two types ('a100', 'v100') in gres.conf: utilsim models one GPU "
       "model per node"},
      {"NodeName=a1 Type=a100 Count=2\n",
       ":1: field 'Name': expected a GRES name (as Name=gpu), got ''"},
      {"Name=gpu File=/dev/nvidia[0-\n",
       ":1: field 'File': expected ']' to close every '[' in a host list, got '/dev/nvidia[0-'"},
      {"Name=gpu Count=lots\n",
       ":1: field 'Count': expected a count (digits, optional K, M or G), got 'lots'"},
      {"NodeName=a[1 Name=gpu\n",
       ":1: field 'NodeName': expected ']' to close every '[' in a host list, got 'a[1'"},
  };
  int k = 0;
  for (const Case& c : cases) {
    const std::string path = WriteFile(dir + "/g" + std::to_string(k++) + ".conf", c.text);
    auto r = ReadSlurmConf(conf, path);
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_EQ(r.status().message(), path + c.message) << c.text;
  }
  EXPECT_EQ(ReadSlurmConf(conf, dir + "/nope").status().message(),
            dir + "/nope: cannot open: No such file or directory");
  // Counts and types that agree or fill in; a node without GPUs in
  // slurm.conf; a different type.
  const std::string ok = WriteFile(dir + "/ok.conf",
                                   "AutoDetect=nvml\n"
                                   "Name=gpu Type=t4 File=/dev/nvidia[0-1]\n"
                                   "Name=gpu Type=t4 File=/dev/nvidia[2-3]\n");
  const SlurmConf c = Read(conf, ok);
  EXPECT_EQ(c.nodes[0].gpu_type, "t4");
  EXPECT_EQ(c.warnings.total(), 0);
  const std::string cpu = WriteFile(dir + "/cpu.conf", "NodeName=a1 RealMemory=10\n");
  EXPECT_EQ(Read(cpu, ok).warnings.count(kSlurmConfWarnGresNode), 1);
  const std::string typed = WriteFile(dir + "/t.conf", "NodeName=a1 Gres=gpu:a10:4 RealMemory=1\n");
  EXPECT_EQ(Read(typed, ok).warnings.count(kSlurmConfWarnGresType), 1);
  EXPECT_EQ(Read(typed, ok).nodes[0].gpu_type, "a10");
}

TEST(SlurmConfDetect, ByNameOrFirstLine) {
  EXPECT_TRUE(LooksLikeSlurmConf(Fixture("slurm/slurm.conf")));
  EXPECT_TRUE(LooksLikeSlurmConf(Fixture("slurm/hand/slurm.conf")));
  const std::string dir = TempDir();
  EXPECT_TRUE(LooksLikeSlurmConf(WriteFile(dir + "/c.conf", "# x\n\nClusterName=c\n")));
  EXPECT_TRUE(LooksLikeSlurmConf(WriteFile(dir + "/d", "  SlurmctldHost=h\n")));
  EXPECT_TRUE(LooksLikeSlurmConf(WriteFile(dir + "/e", "nodename=a1\n")));
  EXPECT_FALSE(LooksLikeSlurmConf(Fixture("canonical/cluster.yaml")));
  EXPECT_FALSE(LooksLikeSlurmConf(WriteFile(dir + "/f.yaml", "name: x\nNodeName=a\n")));
  EXPECT_FALSE(LooksLikeSlurmConf(WriteFile(dir + "/g", "Foo=bar\n")));
  EXPECT_FALSE(LooksLikeSlurmConf(WriteFile(dir + "/h", "")));
  EXPECT_FALSE(LooksLikeSlurmConf(dir + "/missing"));
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim::traces
