// Philly readers on hand-written fixtures: machine list, jobs JSON, windows
// and their join (hand-computed util and host CPU), and exact errors.
#include "utilsim/traces/philly.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "testutil/testutil.h"

namespace utilsim::traces {
namespace UTILSIM_UNITY_ID {

using testutil::Fixture;
using testutil::TempDir;
using testutil::WriteFile;

constexpr int64_t kGiB = int64_t{1} << 30;
constexpr int64_t kOrigin = 1506816000;  // 2017-10-01 00:00:00 UTC

const Job* FindJob(const Workload& w, const std::string& name) {
  for (const Job& j : w.jobs)
    if (j.name == name) return &j;
  return nullptr;
}

PhillyPaths FixturePaths() {
  PhillyPaths p;
  p.machines = Fixture("philly/machines.csv");
  p.jobs = Fixture("philly/jobs.json");
  p.gpu_window = Fixture("philly/gpu_util_window.csv");
  p.cpu_window = Fixture("philly/cpu_util_window.csv");
  p.mem_free_window = Fixture("philly/mem_free_pct_window.csv");
  return p;
}

TEST(PhillyTime, ParsesDateTimes) {
  EXPECT_EQ(ParsePhillyTime("2017-10-01 00:00:00"), kOrigin);
  EXPECT_EQ(ParsePhillyTime("1970-01-01 00:00:01"), 1);
  EXPECT_EQ(ParsePhillyTime("2016-02-29 12:30:15"), 1456749015);
  EXPECT_FALSE(ParsePhillyTime("2017-02-29 00:00:00"));
  EXPECT_FALSE(ParsePhillyTime("2017-10-01T00:00:00"));
  EXPECT_FALSE(ParsePhillyTime("2017-13-01 00:00:00"));
  EXPECT_FALSE(ParsePhillyTime("yesterday"));
}

TEST(PhillyMachines, ReadsOneGroupPerMachineOrPerShape) {
  auto r = ReadPhillyMachines(Fixture("philly/machines.csv"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  const ClusterSpec& c = r.value();
  ASSERT_EQ(c.groups.size(), 3u);
  EXPECT_EQ(c.groups[1].name, "m2");
  EXPECT_EQ(c.groups[1].count, 1);
  EXPECT_EQ(c.groups[1].gpus, 8);
  EXPECT_EQ(c.groups[1].gpu_model, "GPU-24GB");
  EXPECT_EQ(c.groups[1].cpu_milli, 64000);
  EXPECT_EQ(c.groups[1].mem_bytes, 512 * kGiB);
  EXPECT_EQ(c.groups[0].cpu_milli, 16000);
  ASSERT_EQ(c.models.size(), 2u);
  EXPECT_EQ(c.models[0].name, "GPU-12GB");
  EXPECT_EQ(c.models[0].memory_bytes, 12 * kGiB);
  EXPECT_EQ(c.total_gpus(), 18);
  PhillyOptions opt;
  opt.group_machines = true;
  auto g = ReadPhillyMachines(Fixture("philly/machines.csv"), opt);
  ASSERT_TRUE(g.ok()) << g.status().message();
  ASSERT_EQ(g.value().groups.size(), 2u);
  EXPECT_EQ(g.value().groups[1].name, "GPU-24GBx8");
  EXPECT_EQ(g.value().groups[1].count, 2);
}

TEST(PhillyJobs, MapsTimesHostsAndTenants) {
  auto r = ReadPhillyJobs(Fixture("philly/jobs.json"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  const TraceData& t = r.value();
  EXPECT_EQ(t.rows_read, 3);
  EXPECT_EQ(t.warnings.count(kPhillyWarnZeroRuntime), 1);
  const Workload& w = t.workload;
  ASSERT_EQ(w.jobs.size(), 2u);
  const Job& j1 = w.jobs[0];
  EXPECT_EQ(j1.name, "j1");
  EXPECT_EQ(j1.submit, Seconds(10 * 3600));
  EXPECT_EQ(j1.recorded_start, Seconds(10 * 3600 + 330));
  EXPECT_EQ(j1.runtime, Seconds(7200));
  EXPECT_EQ(j1.tasks, 1);
  EXPECT_EQ(j1.task.gpus, 4);
  EXPECT_EQ(j1.recorded_hosts, std::vector<std::string>{"m2"});
  EXPECT_EQ(w.tenants[j1.tenant], "vcA");
  EXPECT_FALSE(j1.util_known);
  const Job& j2 = w.jobs[1];
  EXPECT_EQ(j2.tasks, 2);
  EXPECT_EQ(j2.task.gpus, 4);
  EXPECT_EQ(j2.recorded_hosts, (std::vector<std::string>{"m2", "m3"}));
  EXPECT_EQ(w.tenants[j2.tenant], "vcB");
  PhillyOptions opt;
  opt.skip_failed = true;
  opt.origin_unix = kOrigin + 3600;
  auto s = ReadPhillyJobs(Fixture("philly/jobs.json"), opt);
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_EQ(s.value().workload.jobs.size(), 1u);
  EXPECT_EQ(s.value().workload.jobs[0].submit, Seconds(9 * 3600));
}

TEST(PhillyWindows, TracksAndHandComputedJoin) {
  auto r = ReadPhilly(FixturePaths());
  ASSERT_TRUE(r.ok()) << r.status().message();
  const TraceData& t = r.value();
  ASSERT_TRUE(t.cluster.has_value());
  const Workload& w = t.workload;
  EXPECT_EQ(w.signal, UtilSignal::kGpuUtil);
  const Job* j1 = FindJob(w, "j1");
  const Job* j2 = FindJob(w, "j2");
  // j1, minutes 0..3: gpu0 4 x 50, gpu1 4 x 100, gpu2 0 and 0 (-1 and empty
  // left out), gpu3 20+40+60+80: 800 / 14 samples.
  EXPECT_TRUE(j1->util_known);
  EXPECT_FLOAT_EQ(j1->util, 8.0f / 14.0f);
  EXPECT_FLOAT_EQ(j2->util, 0.3f);
  // CPU: 25% x 64 cores x 4/8 GPUs of m2.
  EXPECT_EQ(j1->host_cpu_used_milli, 8000);
  // j2: m2 50%, m3 mean(mean(40, 60), 50, 50) = 50%; each task 16 cores.
  EXPECT_EQ(j2->host_cpu_used_milli, 16000);
  EXPECT_EQ(t.warnings.count(kPhillyWarnMissingSample), 13);
  EXPECT_EQ(t.warnings.count(kPhillyWarnMultiSample), 1);
  EXPECT_EQ(t.warnings.count(kPhillyWarnUnknownJob), 1);
  bool mem_note = false;
  for (const std::string& n : t.notes) mem_note |= n.find("mean 50% over 8 samples") != n.npos;
  EXPECT_TRUE(mem_note);

  auto tel = ReadPhillyWindows(Fixture("philly/gpu_util_window.csv"), w);
  ASSERT_TRUE(tel.ok()) << tel.status().message();
  EXPECT_EQ(tel.value().rows_read, 13);
  ASSERT_EQ(tel.value().tracks.size(), 12u);
  const UtilTrack& g3 = tel.value().tracks[3];
  EXPECT_EQ(g3.job, "j1");
  EXPECT_EQ(g3.host, "m2");
  EXPECT_EQ(g3.gpu, 3);
  EXPECT_EQ(g3.signal, UtilSignal::kGpuUtil);
  ASSERT_EQ(g3.time.size(), 4u);                    // minutes -10..-1 empty
  EXPECT_EQ(g3.time[0], Seconds(10 * 3600 + 300));  // start 10:05:30 -> 10:05
  EXPECT_FLOAT_EQ(g3.busy[3], 0.8f);
  EXPECT_EQ(tel.value().tracks[0].time.front(), Seconds(10 * 3600 + 300 - 600));
}

TEST(PhillyLooksLike, Headers) {
  EXPECT_TRUE(LooksLikePhillyMachines({"machineId", " number of GPUs", " single GPU mem"}));
  EXPECT_TRUE(
      LooksLikePhillyWindow({"jobid", "name", "machine_type", "trace", "-10", "-9", "-8", "-7",
                             "-6", "-5", "-4", "-3", "-2", "-1", "0", "1", "2", "3"}));
  EXPECT_TRUE(LooksLikePhilly({"machineId", "number of GPUs"}));
  EXPECT_FALSE(LooksLikePhilly({"job_id", "submission_time", "duration", "num_gpu"}));
}

struct BadCase {
  const char* label;
  const char* text;
  const char* message;  // after "<path>:"
};

const char kWinHeader[] = "jobid,name,machine_type,trace,-10,-9,-8,-7,-6,-5,-4,-3,-2,-1,0,1,2,3\n";

TEST(PhillyErrors, CsvFilesNameFileLineAndField) {
  const std::string dir = TempDir();
  const BadCase machines[] = {
      {"non-numeric gpus", "machineId,number of GPUs,single GPU mem\nm0,eight,24GB\n",
       "2: field 'number of GPUs': expected an integer 0..64, got 'eight'"},
      {"negative gpus", "machineId,number of GPUs,single GPU mem\nm0,-2,24GB\n",
       "2: field 'number of GPUs': expected an integer 0..64, got '-2'"},
      {"bad memory", "machineId,number of GPUs,single GPU mem\nm0,2,-12GB\n",
       "2: field 'single GPU mem': expected GPU memory as '<number>GB' > 0, got '-12GB'"},
      {"missing column", "machineId,number of GPUs\nm0,2\n",
       "1: missing required column 'single GPU mem'"},
      {"field count", "machineId,number of GPUs,single GPU mem\nm0,2\n",
       "2: expected 3 fields (as in the header), got 2"},
      {"repeated id", "machineId,number of GPUs,single GPU mem\nm0,2,12GB\nm0,2,12GB\n",
       "3: field 'machineId': expected a machine id not already used on line 2, got 'm0'"},
  };
  for (const BadCase& c : machines) {
    const std::string p = WriteFile(dir + "/m.csv", c.text);
    auto r = ReadPhillyMachines(p);
    ASSERT_FALSE(r.ok()) << c.label;
    EXPECT_EQ(r.status().message(), p + ":" + c.message) << c.label;
  }
  const std::string row = "j1,m2_gpu0,gpu,utilization,1,1,1,1,1,1,1,1,1,1,1,1,1,";
  const std::string windows[][3] = {
      {"non-numeric", row + "busy\n",
       "2: field '3': expected a percentage 0..100 (or -1 for none), got 'busy'"},
      {"negative", row + "-5\n",
       "2: field '3': expected a percentage 0..100 (or -1 for none), got '-5'"},
      {"above 100", row + "101\n",
       "2: field '3': expected a percentage 0..100 (or -1 for none), got '101'"},
      {"field count", row + "1,7\n", "2: expected 18 fields (as in the header), got 19"},
      {"bad name", "j1,m2,gpu,utilization,1,1,1,1,1,1,1,1,1,1,1,1,1,1\n",
       "2: field 'name': expected '<host>_gpu<k>', got 'm2'"},
  };
  auto jobs = ReadPhillyJobs(Fixture("philly/jobs.json"));
  ASSERT_TRUE(jobs.ok());
  for (const auto& c : windows) {
    const std::string p = WriteFile(dir + "/w.csv", kWinHeader + c[1]);
    auto r = ReadPhillyWindows(p, jobs.value().workload);
    ASSERT_FALSE(r.ok()) << c[0];
    EXPECT_EQ(r.status().message(), p + ":" + c[2]) << c[0];
  }
  const std::string p = WriteFile(dir + "/w.csv", "jobid,name,-10\nj1,m2_gpu0,1\n");
  EXPECT_EQ(ReadPhillyWindows(p, jobs.value().workload).status().message(),
            p + ":1: missing required column '-9'");
}

TEST(PhillyErrors, JsonNamesLineOfTheKey) {
  const std::string dir = TempDir();
  const std::string head =
      "[\n {\"status\": \"Pass\", \"vc\": \"v\", \"jobid\": \"a\",\n"
      "  \"submitted_time\": \"2017-10-01 10:00:00\", \"user\": \"u\",\n";
  const std::string tail =
      "  \"start_time\": \"2017-10-01 10:00:00\", \"end_time\": \"2017-10-01 11:00:00\",\n"
      "  \"detail\": [{\"ip\": \"m1\", \"gpus\": [\"gpu0\"]}]}\n]\n";
  const BadCase cases[] = {
      {"non-numeric runtime", "  \"runtime_min\": \"sixty\",\n",
       "4: field 'runtime_min': expected a number of minutes >= 0, got 'sixty'"},
      {"negative runtime", "  \"runtime_min\": -3,\n",
       "4: field 'runtime_min': expected a number of minutes >= 0, got '-3'"},
      {"missing runtime", "", "2: field 'runtime_min': expected a number of minutes >= 0, got ''"},
  };
  for (const BadCase& c : cases) {
    const std::string p = WriteFile(dir + "/j.json", head + c.text + tail);
    auto r = ReadPhillyJobs(p);
    ASSERT_FALSE(r.ok()) << c.label;
    EXPECT_EQ(r.status().message(), p + ":" + c.message) << c.label;
  }
  std::string bad_time = head + "  \"runtime_min\": 60,\n" + tail;
  bad_time.replace(bad_time.find("2017-10-01 11:00:00"), 19, "2017-10-01 25:00:00");
  std::string p = WriteFile(dir + "/j.json", bad_time);
  EXPECT_EQ(ReadPhillyJobs(p).status().message(),
            p + ":5: field 'end_time': expected a date-time 'YYYY-MM-DD HH:MM:SS', got "
                "'2017-10-01 25:00:00'");
  std::string bad_gpus = head + "  \"runtime_min\": 60,\n" + tail;
  bad_gpus.replace(bad_gpus.find("[\"gpu0\"]"), 8, "4");
  p = WriteFile(dir + "/j.json", bad_gpus);
  EXPECT_EQ(ReadPhillyJobs(p).status().message(),
            p + ":6: field 'detail[0].gpus': expected an array of GPU names, got '4'");
  p = WriteFile(dir + "/j.json", "[\n {\"jobid\": \"a\",\n  }\n]\n");
  const std::string msg = ReadPhillyJobs(p).status().message();
  EXPECT_EQ(msg.rfind(p + ":3: JSON error: ", 0), 0u) << msg;
  // A number too large for a double is an error, not an exception (found by
  // tests/fuzz: nlohmann's out_of_range.406 is not a parse_error).
  p = WriteFile(dir + "/j.json", "[{\"runtime_min\": 1" + std::string(400, '0') + "}]\n");
  const std::string big = ReadPhillyJobs(p).status().message();
  EXPECT_EQ(big.rfind(p + ": JSON error: ", 0), 0u) << big;
  EXPECT_NE(big.find("number overflow"), std::string::npos) << big;
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim::traces
