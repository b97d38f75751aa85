// openb reader: every bad input gives one exact message naming the file, the
// line and the field.
#include <gtest/gtest.h>

#include <string>

#include "testutil/testutil.h"
#include "utilsim/traces/openb.h"

namespace utilsim::traces {
namespace UTILSIM_UNITY_ID {

using testutil::TempDir;
using testutil::WriteFile;

struct BadCase {
  const char* label;
  const char* text;     // the file
  const char* message;  // expected message after "<path>:"
};

#define H                                                                             \
  "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time," \
  "deletion_time,scheduled_time\n"
#define M "name,cpu_milli,memory_mib,num_gpu,gpu_milli\n"

// clang-format off
const BadCase kPodCases[] = {
    {"non-numeric cpu", H "a,lots,1,1,1000,,LS,Running,0,10,0\n",
     "2: field 'cpu_milli': expected an integer >= 0, got 'lots'"},
    {"negative cpu", M "a,-1,1,1,1000\n", "2: field 'cpu_milli': expected an integer >= 0, got '-1'"},
    {"fractional cpu", M "a,0.5,1,1,1000\n",
     "2: field 'cpu_milli': expected an integer >= 0, got '0.5'"},
    {"negative memory", M "a,1,-2,1,1000\n", "2: field 'memory_mib': expected MiB >= 0, got '-2'"},
    {"non-numeric memory", M "a,1,x,1,1000\n", "2: field 'memory_mib': expected MiB >= 0, got 'x'"},
    {"negative num_gpu", M "a,1,1,-1,1000\n",
     "2: field 'num_gpu': expected an integer 0..1000000, got '-1'"},
    {"empty num_gpu", M "a,1,1,,1000\n", "2: field 'num_gpu': expected an integer 0..1000000, got ''"},
    {"gpu_milli > 1000", M "a,1,1,1,1001\n",
     "2: field 'gpu_milli': expected an integer 1..1000 when num_gpu is 1, got '1001'"},
    {"gpu_milli 0 with one GPU", M "a,1,1,1,0\n",
     "2: field 'gpu_milli': expected an integer 1..1000 when num_gpu is 1, got '0'"},
    {"gpu_milli > 1000 with 8 GPUs", M "a,1,1,8,2000\n",
     "2: field 'gpu_milli': expected an integer 0..1000, got '2000'"},
    {"gpu_milli > 1000 CPU-only", M "a,1,1,0,1500\n",
     "2: field 'gpu_milli': expected an integer 0..1000, got '1500'"},
    {"negative gpu_milli", M "a,1,1,0,-5\n",
     "2: field 'gpu_milli': expected an integer 0..1000, got '-5'"},
    {"missing column", "name,cpu_milli,memory_mib,gpu_milli\na,1,1,1000\n",
     "1: missing required column 'num_gpu'"},
    {"partial times", "name,cpu_milli,memory_mib,num_gpu,gpu_milli,creation_time\na,1,1,1,1000,0\n",
     "1: missing required column 'deletion_time'"},
    {"wrong column count", M "a,1,1,1,1000\nb,1,1,1\n",
     "3: expected 5 fields (as in the header), got 4"},
    {"too many fields", H "a,1,1,1,1000,,LS,Running,0,10,0,9\n",
     "2: expected 11 fields (as in the header), got 12"},
    {"empty name", M ",1,1,1,1000\n", "2: field 'name': expected a non-empty name, got ''"},
    {"duplicate name", M "a,1,1,1,1000\nb,1,1,1,1000\na,1,1,1,1000\n",
     "4: field 'name': expected a name not already used on line 2, got 'a'"},
    {"negative creation", H "a,1,1,1,1000,,LS,Running,-1,10,0\n",
     "2: field 'creation_time': expected seconds >= 0, got '-1'"},
    {"non-numeric deletion", H "a,1,1,1,1000,,LS,Running,0,soon,0\n",
     "2: field 'deletion_time': expected seconds >= 0, got 'soon'"},
    {"empty deletion", H "a,1,1,1,1000,,LS,Running,0,,0\n",
     "2: field 'deletion_time': expected seconds >= 0, got ''"},
    {"scheduled before creation", H "a,1,1,1,1000,,LS,Running,50,100,40\n",
     "2: field 'scheduled_time': expected seconds >= creation_time (50), got '40'"},
    {"unknown qos", H "a,1,1,1,1000,,Gold,Running,0,10,0\n",
     "2: field 'qos': expected one of LS, BE, Burstable, Guaranteed, got 'Gold'"},
    {"empty qos", H "a,1,1,1,1000,,,Running,0,10,0\n",
     "2: field 'qos': expected one of LS, BE, Burstable, Guaranteed, got ''"},
    {"empty model in gpu_spec", H "a,1,1,1,1000,T4||G2,LS,Running,0,10,0\n",
     "2: field 'gpu_spec': expected GPU model names separated by '|', got 'T4||G2'"},
    {"empty file", "", " empty file, expected a header row"},
};

const BadCase kNodeCases[] = {
    {"non-numeric gpu", "sn,cpu_milli,memory_mib,gpu,model\nn,1000,1024,two,T4\n",
     "2: field 'gpu': expected an integer 0..64, got 'two'"},
    {"too many gpus", "sn,cpu_milli,memory_mib,gpu,model\nn,1000,1024,65,T4\n",
     "2: field 'gpu': expected an integer 0..64, got '65'"},
    {"zero cpu", "sn,cpu_milli,memory_mib,gpu,model\nn,0,1024,0,\n",
     "2: field 'cpu_milli': expected an integer > 0, got '0'"},
    {"negative memory", "sn,cpu_milli,memory_mib,gpu,model\nn,1000,-1,0,\n",
     "2: field 'memory_mib': expected MiB > 0, got '-1'"},
    {"gpus without model", "sn,cpu_milli,memory_mib,gpu,model\nn,1000,1024,2,\n",
     "2: field 'model': expected a GPU model name when gpu > 0, got ''"},
    {"model without gpus", "sn,cpu_milli,memory_mib,gpu,model\nn,1000,1024,0,T4\n",
     "2: field 'model': expected an empty model when gpu is 0 (CPU-only node), got 'T4'"},
    {"bar in model", "sn,cpu_milli,memory_mib,gpu,model\nn,1000,1024,1,T4|A10\n",
     "2: field 'model': expected a model name without '|', got 'T4|A10'"},
    {"duplicate sn", "sn,cpu_milli,memory_mib,gpu,model\nn,1000,1024,0,\nn,1000,1024,0,\n",
     "3: field 'sn': expected a node id not already used on line 2, got 'n'"},
    {"empty sn", "sn,cpu_milli,memory_mib,gpu,model\n,1000,1024,0,\n",
     "2: field 'sn': expected a non-empty node id, got ''"},
    {"missing column", "sn,cpu_milli,memory_mib,model\nn,1000,1024,\n",
     "1: missing required column 'gpu'"},
    {"wrong column count", "sn,cpu_milli,memory_mib,gpu,model\nn,1000,1024,0\n",
     "2: expected 5 fields (as in the header), got 4"},
    {"no nodes", "sn,cpu_milli,memory_mib,gpu,model\n", " no nodes listed"},
};
// clang-format on

TEST(OpenbErrors, BadPodFiles) {
  const std::string dir = TempDir();
  for (const BadCase& c : kPodCases) {
    const std::string path = WriteFile(dir + "/pods.csv", c.text);
    auto r = ReadOpenbPods(path);
    ASSERT_FALSE(r.ok()) << c.label;
    EXPECT_EQ(r.status().message(), path + ":" + c.message) << c.label;
  }
}

TEST(OpenbErrors, BadNodeFiles) {
  const std::string dir = TempDir();
  for (const BadCase& c : kNodeCases) {
    const std::string path = WriteFile(dir + "/nodes.csv", c.text);
    auto r = ReadOpenbNodes(path);
    ASSERT_FALSE(r.ok()) << c.label;
    EXPECT_EQ(r.status().message(), path + ":" + c.message) << c.label;
  }
}

TEST(OpenbErrors, MissingFileAndBadOption) {
  auto r = ReadOpenbPods("/nonexistent/openb.csv");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message().rfind("/nonexistent/openb.csv: cannot open: ", 0), 0u);
  const std::string path = WriteFile(TempDir() + "/m.csv", M "a,1,1,1,1000\n");
  auto bad = ReadOpenbPods(path, {OpenbPending::kRunFromCreation, 0});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            path + ": option assumed_runtime_s: expected seconds > 0, got '0'");
  EXPECT_FALSE(ReadOpenbNodes("/nonexistent/nodes.csv").ok());
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim::traces
