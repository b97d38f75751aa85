// Canonical jobs CSV: every bad input gives one exact message naming the
// file, the line and the field.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "testutil/testutil.h"
#include "utilsim/traces/canonical.h"

namespace utilsim::traces {
namespace UTILSIM_UNITY_ID {

using testutil::TempDir;
using testutil::WriteFile;

struct BadCase {
  const char* label;
  const char* text;     // the jobs file
  const char* message;  // expected message after "<path>:"
};

// clang-format off
const BadCase kCases[] = {
    {"malformed row", "id,submit_s,runtime_s,gpus\na,0,10,1\nb,0,10\n",
     "3: expected 4 fields (as in the header), got 3"},
    {"unterminated quote", "id,submit_s,runtime_s\n\"a,0,10\n",
     "2: unterminated quoted field 1"},
    {"unknown column", "id,submit_s,runtime_s,gpu\na,0,1,1\n",
     "1: unknown column 'gpu' (known: id, submit_s, runtime_s, tasks, gpus, gpu_milli, "
     "cpu_milli, mem_mib, gpu_mem_mib, gpu_models, tenant, priority, util, profile, "
     "recorded_start_s, walltime_s, host_cpu_milli, gpu_mem_used_mib, kill_at_limit, "
     "stall_input_cpu, stall_input_storage, stall_comm, nic_gb_s, storage_gb_s, job_kind, "
     "tokens_per_step)"},
    {"missing required column", "# c\nid,submit_s\na,0\n",
     "2: missing required column 'runtime_s'"},
    {"duplicate column", "id,submit_s,runtime_s,id\na,0,1,a\n", "1: duplicate column 'id'"},
    {"empty file", "", " empty file, expected a header row"},
    {"negative submit", "id,submit_s,runtime_s\na,-1,10\n",
     "2: field 'submit_s': expected seconds >= 0, got '-1'"},
    {"non-numeric runtime", "id,submit_s,runtime_s\na,0,ten\n",
     "2: field 'runtime_s': expected seconds > 0, got 'ten'"},
    {"negative runtime", "id,submit_s,runtime_s\na,0,-5\n",
     "2: field 'runtime_s': expected seconds > 0, got '-5'"},
    {"zero runtime after rounding", "id,submit_s,runtime_s\na,0,0.0000001\n",
     "2: field 'runtime_s': expected seconds > 0, got '0.0000001'"},
    {"empty required field", "id,submit_s,runtime_s\na,,5\n",
     "2: field 'submit_s': expected seconds >= 0, got ''"},
    {"empty id", "id,submit_s,runtime_s\n,0,5\n", "2: field 'id': expected a non-empty id, got ''"},
    {"duplicate id", "id,submit_s,runtime_s\na,0,5\nb,0,5\n\na,1,5\n",
     "5: field 'id': expected an id not already used on line 2, got 'a'"},
    // The id is checked after the other fields (the reader prefetches its
    // table slot meanwhile), but its error still comes first.
    {"duplicate id and bad submit", "id,submit_s,runtime_s\na,0,5\na,-1,5\n",
     "3: field 'id': expected an id not already used on line 2, got 'a'"},
    {"duplicate id and bad profile", "id,submit_s,runtime_s,profile\na,0,5,\na,0,5,absent.csv\n",
     "3: field 'id': expected an id not already used on line 2, got 'a'"},
    {"fractional with gpus > 1", "id,submit_s,runtime_s,gpus,gpu_milli\na,0,5,2,500\n",
     "2: field 'gpu_milli': expected 1000 when gpus is not 1 (fractions need gpus == 1), "
     "got '500'"},
    {"fractional without gpus", "id,submit_s,runtime_s,gpus,gpu_milli\na,0,5,0,500\n",
     "2: field 'gpu_milli': expected 1000 when gpus is not 1 (fractions need gpus == 1), "
     "got '500'"},
    {"gpu_milli zero", "id,submit_s,runtime_s,gpu_milli\na,0,5,0\n",
     "2: field 'gpu_milli': expected an integer 1..1000, got '0'"},
    {"gpu_milli too big", "id,submit_s,runtime_s,gpu_milli\na,0,5,1001\n",
     "2: field 'gpu_milli': expected an integer 1..1000, got '1001'"},
    {"tasks zero", "id,submit_s,runtime_s,tasks\na,0,5,0\n",
     "2: field 'tasks': expected an integer 1..1000000, got '0'"},
    {"gpus negative", "id,submit_s,runtime_s,gpus\na,0,5,-1\n",
     "2: field 'gpus': expected an integer 0..1000000, got '-1'"},
    {"gpus fractional", "id,submit_s,runtime_s,gpus\na,0,5,0.5\n",
     "2: field 'gpus': expected an integer 0..1000000, got '0.5'"},
    {"cpu negative", "id,submit_s,runtime_s,cpu_milli\na,0,5,-3\n",
     "2: field 'cpu_milli': expected an integer >= 0, got '-3'"},
    {"tasks beyond 64 bits", "id,submit_s,runtime_s,tasks\na,0,5,9223372036854775808\n",
     "2: field 'tasks': expected an integer 1..1000000, got '9223372036854775808'"},
    {"tasks sign twice", "id,submit_s,runtime_s,tasks\na,0,5,+-1\n",
     "2: field 'tasks': expected an integer 1..1000000, got '+-1'"},
    {"mem 19 digits", "id,submit_s,runtime_s,mem_mib\na,0,5,1234567890123456789\n",
     "2: field 'mem_mib': expected MiB >= 0, got '1234567890123456789'"},
    {"mem just above the limit", "id,submit_s,runtime_s,mem_mib\na,0,5,8000000000001\n",
     "2: field 'mem_mib': expected MiB >= 0, got '8000000000001'"},
    {"mem hex", "id,submit_s,runtime_s,mem_mib\na,0,5,0x10\n",
     "2: field 'mem_mib': expected MiB >= 0, got '0x10'"},
    {"mem negative", "id,submit_s,runtime_s,mem_mib\na,0,5,-1.5\n",
     "2: field 'mem_mib': expected MiB >= 0, got '-1.5'"},
    {"gpu mem not a number", "id,submit_s,runtime_s,gpu_mem_mib\na,0,5,lots\n",
     "2: field 'gpu_mem_mib': expected MiB >= 0, got 'lots'"},
    {"gpu models empty item", "id,submit_s,runtime_s,gpu_models\na,0,5,A100||V100\n",
     "2: field 'gpu_models': expected GPU model names separated by '|', got 'A100||V100'"},
    {"priority out of range", "id,submit_s,runtime_s,priority\na,0,5,3000000000\n",
     "2: field 'priority': expected a 32-bit integer, got '3000000000'"},
    {"util above one", "id,submit_s,runtime_s,util\na,0,5,1.5\n",
     "2: field 'util': expected a fraction 0..1, got '1.5'"},
    {"util nan", "id,submit_s,runtime_s,util\na,0,5,nan\n",
     "2: field 'util': expected a fraction 0..1, got 'nan'"},
    {"recorded start before submit", "id,submit_s,runtime_s,recorded_start_s\na,10,5,9.5\n",
     "2: field 'recorded_start_s': expected seconds >= submit_s, got '9.5'"},
    {"walltime zero", "id,submit_s,runtime_s,walltime_s\na,0,5,0\n",
     "2: field 'walltime_s': expected seconds > 0, got '0'"},
    {"host cpu negative", "id,submit_s,runtime_s,host_cpu_milli\na,0,5,-1\n",
     "2: field 'host_cpu_milli': expected an integer >= 0, got '-1'"},
    {"kill flag not 0/1", "id,submit_s,runtime_s,walltime_s,kill_at_limit\na,0,5,10,yes\n",
     "2: field 'kill_at_limit': expected 0 or 1, got 'yes'"},
    {"kill flag without limit", "id,submit_s,runtime_s,kill_at_limit\na,0,5,1\n",
     "2: field 'kill_at_limit': expected 0 when walltime_s is empty, got '1'"},
    {"stalls over the whole", "id,submit_s,runtime_s,util,stall_input_cpu,stall_comm\na,0,5,0.6,0.3,0.2\n",
     "2: field 'stall_comm': expected util + stall fractions <= 1 (the parts of the runtime), "
     "total 1.100, got '0.2'"},
    {"stall without util", "id,submit_s,runtime_s,stall_comm\na,0,5,0.2\n",
     "2: field 'stall_comm': expected util to be given with stall fractions, got '0.2'"},
    {"stall not a fraction", "id,submit_s,runtime_s,util,stall_input_cpu\na,0,5,0.5,-0.1\n",
     "2: field 'stall_input_cpu': expected a fraction 0..1, got '-0.1'"},
    {"negative bandwidth", "id,submit_s,runtime_s,nic_gb_s\na,0,5,-1\n",
     "2: field 'nic_gb_s': expected GB/s >= 0, got '-1'"},
    {"gpu mem used bad", "id,submit_s,runtime_s,gpu_mem_used_mib\na,0,5,x\n",
     "2: field 'gpu_mem_used_mib': expected MiB >= 0, got 'x'"},
    {"job kind unknown", "id,submit_s,runtime_s,job_kind\na,0,5,training\n",
     "2: field 'job_kind': expected train or infer, got 'training'"},
    {"tokens zero", "id,submit_s,runtime_s,tokens_per_step\na,0,5,0\n",
     "2: field 'tokens_per_step': expected a number > 0 (batch x sequence length), got '0'"},
    {"tokens for training", "id,submit_s,runtime_s,job_kind,tokens_per_step\na,0,5,train,512\n",
     "2: field 'tokens_per_step': expected empty for a training job (job_kind train), got '512'"},
    {"bad signal", "# signal: nvml\nid,submit_s,runtime_s\na,0,5\n",
     "1: signal: expected gpu_util|sm_active|gr_engine_active|synthetic, got 'nvml'"},
};
// clang-format on

TEST(JobsCsvErrors, EveryBadInputNamesFileLineAndField) {
  const std::string dir = TempDir();
  const std::string path = dir + "/jobs.csv";
  for (const BadCase& c : kCases) {
    SCOPED_TRACE(c.label);
    WriteFile(path, c.text);
    auto r = ReadJobsCsv(path);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().message(), path + ":" + c.message);
  }
}

// Integer and MiB fields of plain digits take a fast path; other forms go
// the general way, accepted as they always were.
TEST(JobsCsvNumbers, FormsAcceptedAsBefore) {
  const std::string path = TempDir() + "/jobs.csv";
  WriteFile(path,
            "id,submit_s,runtime_s,tasks,cpu_milli,mem_mib,gpu_mem_mib\n"
            "a,0,5,+3,007,+5,1e3\n"
            "b,0,5, 12 ,-0,\"12\",5.5\n"
            "c,0,5,1,9223372036854775807,8000000000000,.5\n");
  auto r = ReadJobsCsv(path);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const std::vector<Job>& j = r.value().jobs;
  ASSERT_EQ(j.size(), 3u);
  constexpr int64_t kMiB = int64_t{1} << 20;
  EXPECT_EQ(j[0].tasks, 3);
  EXPECT_EQ(j[0].task.cpu_milli, 7);
  EXPECT_EQ(j[0].task.mem_bytes, 5 * kMiB);
  EXPECT_EQ(j[0].task.gpu_mem_bytes, 1000 * kMiB);
  EXPECT_EQ(j[1].tasks, 12);
  EXPECT_EQ(j[1].task.cpu_milli, 0);
  EXPECT_EQ(j[1].task.mem_bytes, 12 * kMiB);
  EXPECT_EQ(j[1].task.gpu_mem_bytes, 11 * kMiB / 2);
  EXPECT_EQ(j[2].task.cpu_milli, INT64_MAX);
  EXPECT_EQ(j[2].task.mem_bytes, 8000000000000 * kMiB);
  EXPECT_EQ(j[2].task.gpu_mem_bytes, kMiB / 2);
}

// Thousands of ids: the id table (sized from the file) finds a repeat of
// the first one.
TEST(JobsCsvErrors, RepeatAmongThousandsOfIds) {
  std::string text = "id,submit_s,runtime_s\n";
  for (int i = 0; i < 5000; ++i) text += "job-" + std::to_string(i) + ",0,5\n";
  const std::string path = WriteFile(TempDir() + "/jobs.csv", text + "job-0,1,5\n");
  EXPECT_EQ(ReadJobsCsv(path).status().message(),
            path + ":5002: field 'id': expected an id not already used on line 2, got 'job-0'");
}

TEST(JobsCsvErrors, UnreadablePath) {
  auto r = ReadJobsCsv("/nonexistent/jobs.csv");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "/nonexistent/jobs.csv: cannot open: No such file or directory");
}

TEST(JobsCsvErrors, ProfileErrors) {
  const std::string dir = TempDir();
  const std::string jobs = dir + "/jobs.csv";
  WriteFile(jobs, "id,submit_s,runtime_s,profile\na,0,5,\nb,0,5,p.csv\n");
  auto r = ReadJobsCsv(jobs);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            jobs + ":3: field 'profile': expected a readable utilization series file (" + dir +
                "/p.csv: cannot open: No such file or directory), got 'p.csv'");

  struct {
    const char* text;
    std::string message;  // after "<profile>:"
  } cases[] = {
      {"offset_s,busy\n0,0.5\n10,1.2\n", "3: field 'busy': expected a fraction 0..1, got '1.2'"},
      {"offset_s,busy\n0,0.5\n10,0.2\n10,0.3\n",
       "4: field 'offset_s': expected seconds > the previous offset (10), got '10'"},
      {"offset_s,busy\n5,0.5\n", "2: field 'offset_s': expected 0 on the first row, got '5'"},
      {"offset_s,busy\n0,0.5\nx,0.5\n", "3: field 'offset_s': expected a time in seconds, got 'x'"},
      {"offset_s,busy,extra\n0,1,2\n", "1: unknown column 'extra' (known: offset_s, busy)"},
      {"busy\n0.5\n", "1: expected the columns offset_s, busy"},
      {"offset_s,busy\n", "1: expected at least one row after the header"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    WriteFile(dir + "/p.csv", c.text);
    auto bad = ReadJobsCsv(jobs);
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.status().message(),
              dir + "/p.csv:" + c.message + " (profile of job 'b' at " + jobs + ":3)");
  }
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim::traces
