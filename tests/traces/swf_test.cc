// SWF reader: a hand-computed fixture in both units, header comments, bad
// inputs with exact messages, detection, and the real NASA iPSC log.
#include "utilsim/traces/swf.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "testutil/testutil.h"
#include "utilsim/traces/canonical.h"

namespace utilsim::traces {
namespace UTILSIM_UNITY_ID {

using testutil::Fixture;
using testutil::TempDir;
using testutil::WriteFile;

std::string Joined(const std::vector<std::string>& lines) {
  std::string all;
  for (const std::string& l : lines) all += l + "\n";
  return all;
}

TEST(SwfFixture, GpuUnitMapsFields) {
  auto r = ReadSwf(Fixture("swf/small.swf"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  const TraceData& d = r.value();
  const Workload& w = d.workload;
  EXPECT_EQ(d.rows_read, 7);
  ASSERT_EQ(w.jobs.size(), 4u);  // 3 (run 0), 4 (run -1), 6 (no processors) skipped
  const Job& j1 = w.jobs[0];
  EXPECT_EQ(j1.name, "1");
  EXPECT_EQ(j1.submit, Seconds(0));
  EXPECT_EQ(j1.recorded_start, Seconds(10));
  EXPECT_EQ(j1.runtime, Seconds(100));
  EXPECT_EQ(j1.tasks, 1);
  EXPECT_EQ(j1.task.gpus, 4);
  EXPECT_EQ(j1.task.cpu_milli, 0);
  EXPECT_EQ(j1.walltime_limit, Seconds(200));
  EXPECT_EQ(w.tenants[j1.tenant], "u1");
  EXPECT_EQ(j1.priority, 0);
  const Job& j2 = w.jobs[1];
  EXPECT_EQ(j2.name, "2");
  EXPECT_FALSE(j2.recorded_start.has_value());
  EXPECT_FALSE(j2.walltime_limit.has_value());
  EXPECT_EQ(j2.task.gpus, 8);
  EXPECT_EQ(j2.priority, 1);
  const Job& j5 = w.jobs[2];  // requested 12 processors -> 2 nodes of 8
  EXPECT_EQ(j5.name, "5");
  EXPECT_EQ(j5.submit, Seconds(25));
  EXPECT_EQ(j5.recorded_start, Seconds(27));
  EXPECT_EQ(j5.runtime, Micros(7500000));
  EXPECT_EQ(j5.tasks, 2);
  EXPECT_EQ(j5.task.gpus, 8);
  EXPECT_EQ(j5.priority, 2);
  EXPECT_EQ(w.tenants[j5.tenant], "u3");
  const Job& j7 = w.jobs[3];
  EXPECT_EQ(j7.tasks, 3);
  EXPECT_EQ(w.tenants, (std::vector<std::string>{"u1", "u2", "u3"}));
  const Warnings& wn = d.warnings;
  EXPECT_EQ(wn.count(kSwfWarnZeroRuntime), 1);
  EXPECT_EQ(wn.count(kSwfWarnUnknownRuntime), 1);
  EXPECT_EQ(wn.count(kSwfWarnNoProcessors), 1);
  EXPECT_EQ(wn.count(kSwfWarnRequestedProcs), 1);
  EXPECT_EQ(wn.count(kSwfWarnUnevenGang), 2);
  EXPECT_EQ(wn.count(kSwfWarnTooLarge), 1);
  EXPECT_EQ(wn.examples().at(kSwfWarnZeroRuntime).front(), Fixture("swf/small.swf") + ":15: job 3");
  EXPECT_EQ(wn.examples().at(kSwfWarnTooLarge).front(),
            Fixture("swf/small.swf") + ":19: job 7: 3 nodes > 2");
  ASSERT_TRUE(d.cluster.has_value());
  EXPECT_EQ(d.cluster->name, "Test Machine");
  EXPECT_EQ(d.cluster->total_nodes(), 2);
  EXPECT_EQ(d.cluster->total_gpus(), 16);
  EXPECT_EQ(d.cluster->models[0].name, kSwfGpuModel);
}

TEST(SwfFixture, CpuUnitAndZeroRuntimeKept) {
  SwfOptions o;
  o.unit = SwfUnit::kCpu;
  o.keep_zero_runtime = true;
  auto r = ReadSwf(Fixture("swf/small.swf"), o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const Workload& w = r.value().workload;
  ASSERT_EQ(w.jobs.size(), 5u);
  // Node size MaxProcs / MaxNodes = 4 cores: 8 processors -> 2 x 4 cores.
  EXPECT_EQ(w.jobs[1].name, "2");
  EXPECT_EQ(w.jobs[1].tasks, 2);
  EXPECT_EQ(w.jobs[1].task.gpus, 0);
  EXPECT_EQ(w.jobs[1].task.cpu_milli, 4000);
  EXPECT_EQ(w.jobs[2].name, "3");
  EXPECT_EQ(w.jobs[2].runtime, Seconds(1));
  EXPECT_EQ(w.jobs[4].name, "7");
  EXPECT_EQ(w.jobs[4].tasks, 5);
  const Warnings& wn = r.value().warnings;
  EXPECT_EQ(wn.count(kSwfWarnZeroRuntimeKept), 1);
  EXPECT_EQ(wn.count(kSwfWarnUnevenGang), 0);
  EXPECT_EQ(wn.count(kSwfWarnTooLarge), 1);
  const ClusterSpec& c = *r.value().cluster;
  EXPECT_EQ(c.total_nodes(), 4);
  EXPECT_EQ(c.total_gpus(), 0);
  EXPECT_EQ(c.groups[0].cpu_milli, 4000);
  EXPECT_TRUE(c.models.empty());
}

TEST(SwfFixture, HeaderEntriesAndNotes) {
  auto h = ReadSwfHeader(Fixture("swf/small.swf"));
  ASSERT_TRUE(h.ok()) << h.status().message();
  EXPECT_EQ(h.value().max_nodes, 4);
  EXPECT_EQ(h.value().max_procs, 16);
  EXPECT_EQ(h.value().unix_start_time, 1000000000);
  EXPECT_EQ(h.value().version, "2.2");
  EXPECT_EQ(h.value().time_zone_string, "Europe/Berlin");
  auto r = ReadSwf(Fixture("swf/small.swf"));
  ASSERT_TRUE(r.ok());
  const std::string all = Joined(r.value().notes);
  for (const char* want :
       {"SWF header: Information: http://example.org/ http://example.org/second\n",
        "SWF header: Note: a note that continues here\n",
        "time origin: UnixStartTime 1000000000 = 2001-09-09 01:46:40 UTC (TimeZoneString "
        "Europe/Berlin)",
        "status over all job lines: 0 (failed): 1; 1 (completed): 5; 5 (cancelled): 1\n",
        "queue_number (= priority, -1 -> 0) over all job lines: -1: 1; 0: 4; 1: 1; 2: 1\n",
        "wait time known for 3 of 4 jobs", "1 jobs name a preceding job"}) {
    EXPECT_NE(all.find(want), std::string::npos) << want << "\n" << all;
  }
}

struct BadCase {
  const char* label;
  const char* text;
  const char* message;  // after "<path>:"
};

// clang-format off
const BadCase kCases[] = {
    {"17 fields", "; Version: 2.2\n1 0 -1 10 1 -1 -1 1 -1 -1 1 1 1 -1 0 -1 -1 -1\n"
                  "2 0 -1 10 1 -1 -1 1 -1 -1 1 1 1 -1 0 -1 -1\n",
     "3: expected 18 fields, got 17"},
    {"non-numeric", "1 0 -1 ten 1 -1 -1 1 -1 -1 1 1 1 -1 0 -1 -1 -1\n",
     "1: field 'run_time': expected a number, got 'ten'"},
    {"fractional job number", "1.5 0 -1 10 1 -1 -1 1 -1 -1 1 1 1 -1 0 -1 -1 -1\n",
     "1: field 'job_number': expected an integer, got '1.5'"},
    {"negative submit", "1 -3 -1 10 1 -1 -1 1 -1 -1 1 1 1 -1 0 -1 -1 -1\n",
     "1: field 'submit_time': expected seconds >= 0, got '-3'"},
    {"wait -2", "1 0 -2 10 1 -1 -1 1 -1 -1 1 1 1 -1 0 -1 -1 -1\n",
     "1: field 'wait_time': expected seconds >= 0 or -1, got '-2'"},
    {"run -5", "1 0 -1 -5 1 -1 -1 1 -1 -1 1 1 1 -1 0 -1 -1 -1\n",
     "1: field 'run_time': expected seconds >= 0 or -1, got '-5'"},
    {"processors -2", "1 0 -1 10 -2 -1 -1 1 -1 -1 1 1 1 -1 0 -1 -1 -1\n",
     "1: field 'allocated_processors': expected an integer -1..10000000, got '-2'"},
    {"bad queue", "1 0 -1 10 1 -1 -1 1 -1 -1 1 1 1 -1 -3 -1 -1 -1\n",
     "1: field 'queue_number': expected an integer -1..2147483647, got '-3'"},
    {"think time text", "1 0 -1 10 1 -1 -1 1 -1 -1 1 1 1 -1 0 -1 -1 x\n",
     "1: field 'think_time': expected a number, got 'x'"},
    {"repeated job", "; c\n4 0 -1 10 1 -1 -1 1 -1 -1 1 1 1 -1 0 -1 -1 -1\n"
                     "4 9 -1 10 1 -1 -1 1 -1 -1 1 1 1 -1 0 -1 -1 -1\n",
     "3: field 'job_number': expected a job number not already used on line 2, got '4'"},
    {"bad MaxProcs", "; Version: 2.2\n; MaxProcs: many\n", "2: field 'MaxProcs': expected an "
     "integer 1..10000000, got 'many'"},
    {"bad UnixStartTime", ";UnixStartTime: -5\n", "1: field 'UnixStartTime': expected UNIX "
     "seconds >= 0, got '-5'"},
};
// clang-format on

TEST(SwfErrors, EveryBadInputNamesFileLineAndField) {
  const std::string dir = TempDir();
  for (const BadCase& c : kCases) {
    const std::string path = WriteFile(dir + "/bad.swf", c.text);
    auto r = ReadSwf(path);
    ASSERT_FALSE(r.ok()) << c.label;
    EXPECT_EQ(r.status().message(), path + ":" + c.message) << c.label;
  }
  EXPECT_EQ(ReadSwf(Fixture("swf/small.swf"), {.gpus_per_node = 0}).status().message(),
            "SwfOptions.gpus_per_node: expected 1..64, got 0");
  auto missing = ReadSwf(dir + "/absent.swf");
  EXPECT_EQ(missing.status().message().rfind(dir + "/absent.swf: cannot open: ", 0), 0u);
}

TEST(SwfFixture, CommentsOnlyAndNoHeader) {
  const std::string dir = TempDir();
  auto empty = ReadSwf(WriteFile(dir + "/c.swf", "; Computer: X\n;\n"));
  ASSERT_TRUE(empty.ok()) << empty.status().message();
  EXPECT_TRUE(empty.value().workload.jobs.empty());
  EXPECT_FALSE(empty.value().cluster.has_value());
  auto bare =
      ReadSwf(WriteFile(dir + "/b.swf", "1 0 0 10 2 -1 -1 2 -1 -1 1 1 1 -1 -1 -1 -1 -1\r\n"));
  ASSERT_TRUE(bare.ok()) << bare.status().message();
  ASSERT_EQ(bare.value().workload.jobs.size(), 1u);
  EXPECT_EQ(bare.value().workload.tenants, std::vector<std::string>{"u1"});
  EXPECT_FALSE(bare.value().cluster.has_value());
}

TEST(SwfDetect, LooksLikeSwf) {
  EXPECT_TRUE(LooksLikeSwf("; Version: 2.2"));
  EXPECT_TRUE(LooksLikeSwf("   1 0 -1 1451 128 -1 -1 -1 -1 -1 -1 1 1 -1 -1 -1 -1 -1"));
  EXPECT_TRUE(LooksLikeSwf("1 0.5 -1 1.5 128 -1 -1 -1 -1 -1 -1 1 1 -1 -1 -1 -1 -1\r"));
  EXPECT_FALSE(LooksLikeSwf("1 0 -1 1451 128"));
  EXPECT_FALSE(LooksLikeSwf("id,submit_s,runtime_s"));
  EXPECT_FALSE(LooksLikeSwf(""));
}

// ---- The real NASA Ames iPSC/860 log (shared/traces/pwa-swf-nasa-ipsc) ----

TEST(SwfReal, NasaIpscParsesEveryJobLine) {
  const std::string path = testutil::TracePath("pwa-swf-nasa-ipsc/NASA-iPSC-1993-3.1-cln.swf");
  const std::string gz = testutil::TracePath("pwa-swf-nasa-ipsc/NASA-iPSC-1993-3.1-cln.swf.gz");
  if (path.empty() || gz.empty()) GTEST_SKIP() << "pwa-swf-nasa-ipsc/*.swf[.gz] not found";
  // Job lines and zero run times counted here from the raw text.
  int64_t lines = 0, zero_runtime = 0;
  std::map<int64_t, int64_t> procs;
  const std::string text = testutil::ReadFile(path);
  for (size_t pos = 0; pos < text.size();) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    const std::string line = text.substr(pos, nl - pos);
    pos = nl + 1;
    const size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == ';') continue;
    ++lines;
    long long f[5] = {0, 0, 0, 0, 0};
    ASSERT_EQ(
        std::sscanf(line.c_str(), "%lld %lld %lld %lld %lld", &f[0], &f[1], &f[2], &f[3], &f[4]),
        5);
    zero_runtime += f[3] == 0;
    ++procs[f[4]];
  }
  EXPECT_EQ(lines, 18239);  // SOURCE.md
  auto r = ReadSwf(path);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const TraceData& d = r.value();
  EXPECT_EQ(d.rows_read, lines);
  EXPECT_EQ(static_cast<int64_t>(d.workload.jobs.size()) + zero_runtime, lines);
  EXPECT_EQ(d.warnings.count(kSwfWarnZeroRuntime), zero_runtime);
  EXPECT_EQ(d.warnings.total(), zero_runtime);
  SwfOptions keep;
  keep.keep_zero_runtime = true;
  auto all = ReadSwf(gz, keep);
  ASSERT_TRUE(all.ok()) << all.status().message();
  EXPECT_EQ(static_cast<int64_t>(all.value().workload.jobs.size()), lines);
  auto plain_all = ReadSwf(path, keep);
  EXPECT_EQ(DigestWorkload(all.value().workload), DigestWorkload(plain_all.value().workload));
  // Allocated processors as in SOURCE.md: 1 -> 4,935 ... 128 -> 420.
  std::map<int64_t, int64_t> gpus;
  for (const Job& j : all.value().workload.jobs) ++gpus[int64_t{j.tasks} * j.task.gpus];
  EXPECT_EQ(gpus, procs);
  EXPECT_EQ(procs, (std::map<int64_t, int64_t>{{1, 4935},
                                               {2, 1763},
                                               {4, 2683},
                                               {8, 1793},
                                               {16, 1780},
                                               {32, 3662},
                                               {64, 1203},
                                               {128, 420}}));
  auto h = ReadSwfHeader(path);
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h.value().max_nodes, 128);
  EXPECT_EQ(h.value().max_procs, 128);
  EXPECT_EQ(h.value().unix_start_time, 749458803);
  EXPECT_EQ(h.value().time_zone_string, "US/Pacific");
  EXPECT_EQ(d.cluster->total_gpus(), 128);
  EXPECT_EQ(d.cluster->name, "Intel iPSC/860");
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim::traces
