// Canonical jobs CSV: reading every field, defaults, profiles, round trips.
#include <gtest/gtest.h>
#include <zlib.h>

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

constexpr int64_t kMiB = 1 << 20;

Workload MustRead(const std::string& path) {
  auto r = ReadJobsCsv(path);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? std::move(r).value() : Workload{};
}

TEST(JobsCsv, ReadsEveryColumnOfTheFixture) {
  const std::string path = Fixture("canonical/jobs.csv");
  Workload w = MustRead(path);
  EXPECT_EQ(w.source, path);
  EXPECT_EQ(w.signal, UtilSignal::kSmActive);
  ASSERT_EQ(w.jobs.size(), 4u);
  // Finalize sorted by submit time.
  EXPECT_EQ(w.jobs[0].name, "infer, small");
  EXPECT_EQ(w.jobs[1].name, "train-1");
  EXPECT_EQ(w.jobs[2].name, "cpu-etl");
  EXPECT_EQ(w.jobs[3].name, "sweep-7");
  // Tenants in order of first appearance in the file.
  EXPECT_EQ(w.tenants, (std::vector<std::string>{"vision", "nlp", "default"}));

  const Job& t = w.jobs[1];
  EXPECT_EQ(t.submit, Micros(10500000));
  EXPECT_EQ(t.runtime, Seconds(3600));
  EXPECT_EQ(t.tasks, 2);
  EXPECT_EQ(t.task.gpus, 8);
  EXPECT_EQ(t.task.gpu_milli, 1000);
  EXPECT_EQ(t.task.cpu_milli, 32000);
  EXPECT_EQ(t.task.mem_bytes, 65536 * kMiB);
  EXPECT_EQ(t.task.gpu_mem_bytes, 40960 * kMiB);
  EXPECT_EQ(t.gpu_models, (std::vector<std::string>{"A100-80GB", "H100-80GB"}));
  EXPECT_EQ(w.tenants[t.tenant], "vision");
  EXPECT_EQ(t.priority, 10);
  EXPECT_EQ(t.util, 0.5f);
  EXPECT_TRUE(t.util_known);
  EXPECT_EQ(t.series, -1);
  EXPECT_EQ(t.recorded_start, Micros(12250000));
  EXPECT_EQ(t.walltime_limit, Seconds(7200));
  EXPECT_TRUE(t.kill_at_limit);
  EXPECT_EQ(t.stalls, (StallSplit{0.2f, -1, 0.1f}));
  EXPECT_EQ(t.nic_bytes_s, 10e9);
  EXPECT_EQ(t.storage_bytes_s, 1.5e9);
  EXPECT_EQ(t.host_cpu_used_milli, 16000);
  EXPECT_EQ(t.gpu_mem_used_bytes, 30000 * kMiB + kMiB / 2);

  const Job& inf = w.jobs[0];
  EXPECT_EQ(inf.runtime, Micros(120000001));
  EXPECT_TRUE(inf.task.fractional());
  EXPECT_EQ(inf.task.gpu_milli, 250);
  EXPECT_EQ(inf.task.gpu_mem_bytes, 0);
  EXPECT_TRUE(inf.gpu_models.empty());
  EXPECT_EQ(w.tenants[inf.tenant], "nlp");
  EXPECT_EQ(inf.priority, -1);
  EXPECT_FALSE(inf.recorded_start.has_value());
  EXPECT_FALSE(inf.walltime_limit.has_value());
  EXPECT_FALSE(inf.kill_at_limit);
  EXPECT_EQ(inf.stalls, StallSplit{});
  EXPECT_EQ(inf.nic_bytes_s, 0);
  EXPECT_EQ(inf.host_cpu_used_milli, -1);
  EXPECT_EQ(inf.gpu_mem_used_bytes, -1);

  // CPU-only job: gpus 0, defaults elsewhere, empty tenant -> "default".
  const Job& etl = w.jobs[2];
  EXPECT_EQ(etl.task.gpus, 0);
  EXPECT_EQ(etl.task.gpu_milli, 1000);
  EXPECT_EQ(etl.tasks, 4);
  EXPECT_EQ(etl.task.mem_bytes, 1024 * kMiB);
  EXPECT_EQ(w.tenants[etl.tenant], "default");
  EXPECT_EQ(etl.priority, 0);
  EXPECT_EQ(etl.util, 1.0f);
}

TEST(JobsCsv, ProfilesAreLoadedOnceAndSetUtil) {
  Workload w = MustRead(Fixture("canonical/jobs.csv"));
  ASSERT_EQ(w.series.size(), 1u);
  const UtilSeries& s = w.series[0];
  EXPECT_EQ(s.offset, (std::vector<Micros>{Seconds(0), Seconds(30), Seconds(90)}));
  EXPECT_EQ(s.busy, (std::vector<float>{0.2f, 0.8f, 0.5f}));
  const Job& inf = w.jobs[0];
  const Job& sweep = w.jobs[3];
  EXPECT_EQ(inf.series, 0);
  EXPECT_EQ(sweep.series, 0);
  // sweep-7 runs 100 s: (0.2*30 + 0.8*60 + 0.5*10) / 100 = 0.59.
  EXPECT_NEAR(sweep.util, 0.59, 1e-6);
  // infer runs 120.000001 s: (6 + 48 + 0.5*30.000001) / 120.000001.
  EXPECT_NEAR(inf.util, 69.0000005 / 120.000001, 1e-6);
  EXPECT_EQ(inf.util, static_cast<float>(SeriesMean(s, inf.runtime)));
}

TEST(JobsCsv, OnlyRequiredColumnsGiveDefaults) {
  Workload w = MustRead(Fixture("canonical/jobs_minimal.csv"));
  ASSERT_EQ(w.jobs.size(), 2u);
  EXPECT_EQ(w.signal, UtilSignal::kUnknown);
  const Job& b = w.jobs[0];
  EXPECT_EQ(b.name, "b");
  EXPECT_EQ(b.submit, Micros(1500000));
  EXPECT_EQ(b.runtime, Micros(2250000));
  EXPECT_EQ(b.tasks, 1);
  EXPECT_EQ(b.task.gpus, 1);
  EXPECT_EQ(b.task.gpu_milli, 1000);
  EXPECT_EQ(b.task.cpu_milli, 0);
  EXPECT_EQ(b.task.mem_bytes, 0);
  EXPECT_EQ(b.util, 1.0f);
  EXPECT_FALSE(b.util_known);  // no util column: placeholder
  EXPECT_EQ(b.series, -1);
  EXPECT_EQ(b.tenant, 0u);
  EXPECT_EQ(w.tenants, (std::vector<std::string>{"default"}));
}

TEST(JobsCsv, ReadsGzipByContent) {
  const std::string dir = TempDir();
  std::filesystem::copy(Fixture("canonical/jobs.profiles"), dir + "/jobs.profiles");
  const std::string text = ReadFile(Fixture("canonical/jobs.csv"));
  gzFile g = gzopen((dir + "/jobs.csv").c_str(), "wb");
  ASSERT_NE(g, nullptr);
  gzwrite(g, text.data(), static_cast<unsigned>(text.size()));
  ASSERT_EQ(gzclose(g), Z_OK);
  EXPECT_EQ(DigestWorkload(MustRead(dir + "/jobs.csv")),
            DigestWorkload(MustRead(Fixture("canonical/jobs.csv"))));
}

// Jobs are "identical" when every field matches, with the tenant compared by
// name and the series by content (indices depend on table order).
void ExpectSameJobs(const Workload& a, const Workload& b) {
  EXPECT_EQ(a.signal, b.signal);
  ASSERT_EQ(a.jobs.size(), b.jobs.size());
  for (size_t i = 0; i < a.jobs.size(); ++i) {
    const Job& x = a.jobs[i];
    const Job& y = b.jobs[i];
    SCOPED_TRACE(x.name);
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.submit, y.submit);
    EXPECT_EQ(a.tenants[x.tenant], b.tenants[y.tenant]);
    EXPECT_EQ(x.priority, y.priority);
    EXPECT_EQ(x.tasks, y.tasks);
    EXPECT_EQ(x.task, y.task);
    EXPECT_EQ(x.gpu_models, y.gpu_models);
    EXPECT_EQ(x.runtime, y.runtime);
    EXPECT_EQ(x.recorded_start, y.recorded_start);
    EXPECT_EQ(x.walltime_limit, y.walltime_limit);
    EXPECT_EQ(x.kill_at_limit, y.kill_at_limit);
    EXPECT_EQ(x.stalls, y.stalls);
    EXPECT_EQ(x.nic_bytes_s, y.nic_bytes_s);
    EXPECT_EQ(x.storage_bytes_s, y.storage_bytes_s);
    EXPECT_EQ(x.util, y.util);
    EXPECT_EQ(x.util_known, y.util_known);
    EXPECT_EQ(x.host_cpu_used_milli, y.host_cpu_used_milli);
    EXPECT_EQ(x.gpu_mem_used_bytes, y.gpu_mem_used_bytes);
    EXPECT_EQ(x.kind, y.kind);
    EXPECT_EQ(x.tokens_per_step, y.tokens_per_step);
    ASSERT_EQ(x.series >= 0, y.series >= 0);
    if (x.series >= 0) {
      EXPECT_EQ(a.series[x.series].offset, b.series[y.series].offset);
      EXPECT_EQ(a.series[x.series].busy, b.series[y.series].busy);
    }
  }
  EXPECT_EQ(DigestWorkload(a), DigestWorkload(b));
}

Workload Tricky() {
  Workload w;
  w.signal = UtilSignal::kGpuUtil;
  w.tenants = {"default", "team, \"a\"", "b"};
  UtilSeries s1{{Micros(0), Micros(1), Micros(2500000)}, {0.1f, 1.0f, 0.0f}};
  UtilSeries unused{{Micros(0)}, {0.3f}};
  UtilSeries s2{{Micros(0)}, {0.7f}};
  w.series = {s1, unused, s2};
  const char* names[] = {"#hash", "plain", " spaced ", "quote\"d", "comma,name", "multi\nline"};
  for (int i = 0; i < 6; ++i) {
    Job j;
    j.name = names[i];
    j.submit = Micros(int64_t{1506477248123457} + i * 333333);
    j.runtime = Micros(1 + int64_t{i} * 7777777);
    j.tenant = static_cast<uint32_t>(i % 3);
    j.priority = i % 2 ? -2147483647 - 1 : 2147483647;
    j.tasks = 1 + i;
    j.task.gpus = i == 1 ? 1 : i;
    j.task.gpu_milli = i == 1 ? 1 : 1000;
    j.task.cpu_milli = 1234567 * i;
    j.task.mem_bytes = 3 + int64_t{i} * 1000000007;  // not whole MiB
    j.task.gpu_mem_bytes = int64_t{i} << 33;
    if (i % 2) j.gpu_models = {"A100-80GB", "V100 M32"};
    if (i % 3 == 0) j.recorded_start = j.submit + Micros(i);
    if (i == 4) j.walltime_limit = Micros(1);
    j.util = i == 5 ? 0.1f : 1.0f / 3.0f;
    j.util_known = i != 1;  // job 1 keeps the placeholder: written empty, read back as 1
    if (!j.util_known) j.util = 1.0f;
    j.host_cpu_used_milli = i % 2 ? 42 * i : -1;
    j.gpu_mem_used_bytes = i % 2 ? -1 : 5 * i + 1;
    if (i == 2) j.kind = JobKind::kTraining;
    if (i == 3) {
      j.kind = JobKind::kInference;
      j.tokens_per_step = 2048;
    }
    if (i == 4) j.tokens_per_step = 0.5f;  // kind unknown
    if (i == 2 || i == 3) {
      j.series = i == 2 ? 2 : 0;
      j.util = static_cast<float>(SeriesMean(w.series[j.series], j.runtime));
    }
    w.jobs.push_back(j);
  }
  w.Finalize();
  return w;
}

TEST(JobsCsv, RoundTripGivesIdenticalJobs) {
  const std::string dir = TempDir();
  Workload w = Tricky();
  ASSERT_TRUE(WriteJobsCsv(w, dir + "/out.csv").ok());
  EXPECT_TRUE(std::filesystem::exists(dir + "/out.profiles/0.csv"));
  EXPECT_TRUE(std::filesystem::exists(dir + "/out.profiles/2.csv"));
  EXPECT_FALSE(std::filesystem::exists(dir + "/out.profiles/1.csv"));  // unused
  for (const auto& e : std::filesystem::directory_iterator(dir))       // no temporary file left
    EXPECT_TRUE(e.path().filename() == "out.csv" || e.path().filename() == "out.profiles")
        << e.path();
  Workload back = MustRead(dir + "/out.csv");
  ExpectSameJobs(w, back);
  EXPECT_EQ(back.series.size(), 2u);
  // Writing what was read, reading and writing again, gives the same bytes.
  const std::string dir2 = TempDir();
  ASSERT_TRUE(WriteJobsCsv(back, dir + "/again.csv").ok());
  ASSERT_TRUE(WriteJobsCsv(MustRead(dir + "/again.csv"), dir2 + "/again.csv").ok());
  EXPECT_EQ(ReadFile(dir + "/again.csv"), ReadFile(dir2 + "/again.csv"));
  EXPECT_EQ(ReadFile(dir + "/again.profiles/1.csv"), ReadFile(dir2 + "/again.profiles/1.csv"));
}

TEST(JobsCsv, FixtureRoundTripAndExactText) {
  const std::string dir = TempDir();
  Workload w = MustRead(Fixture("canonical/jobs.csv"));
  ASSERT_TRUE(WriteJobsCsv(w, dir + "/jobs.csv").ok());
  ExpectSameJobs(w, MustRead(dir + "/jobs.csv"));
  const std::string text = ReadFile(dir + "/jobs.csv");
  EXPECT_EQ(text.substr(0, text.find('\n', text.find('\n') + 1)),
            "# signal: sm_active\nid,submit_s,runtime_s,tasks,gpus,gpu_milli,cpu_milli,mem_mib,"
            "gpu_mem_mib,gpu_models,tenant,priority,util,profile,recorded_start_s,walltime_s,"
            "host_cpu_milli,gpu_mem_used_mib,kill_at_limit,stall_input_cpu,stall_input_storage,"
            "stall_comm,nic_gb_s,storage_gb_s,job_kind,tokens_per_step");
  EXPECT_NE(text.find("\ntrain-1,10.5,3600,2,8,1000,32000,65536,40960,A100-80GB|H100-80GB,vision,"
                      "10,0.5,,12.25,7200,16000,30000.5,1,0.2,,0.1,10,1.5,train,\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\n\"infer, small\",0,120.000001,"), std::string::npos);
  EXPECT_NE(text.find(",infer,512\n"), std::string::npos) << text;
  EXPECT_NE(text.find(",jobs.profiles/0.csv,"), std::string::npos);
  EXPECT_EQ(ReadFile(dir + "/jobs.profiles/0.csv"), "offset_s,busy\n0,0.2\n30,0.8\n90,0.5\n");
}

TEST(JobsCsv, RewriteReplacesStaleProfiles) {
  const std::string dir = TempDir();
  Workload w = Tricky();
  ASSERT_TRUE(WriteJobsCsv(w, dir + "/w.csv").ok());
  for (Job& j : w.jobs) j.series = -1;
  ASSERT_TRUE(WriteJobsCsv(w, dir + "/w.csv").ok());
  EXPECT_FALSE(std::filesystem::exists(dir + "/w.profiles"));
  EXPECT_TRUE(MustRead(dir + "/w.csv").series.empty());
}

TEST(JobsCsv, FailedWritesLeaveNoFile) {
  const std::string dir = TempDir();
  Workload w = Tricky();
  Status s = WriteJobsCsv(w, dir + "/missing-dir/out.csv");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("missing-dir"), std::string::npos) << s.message();
  w.jobs[0].tenant = 99;
  s = WriteJobsCsv(w, dir + "/out.csv");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("tenant index 99 out of range"), std::string::npos);
  w.jobs[0].tenant = 0;
  w.jobs[0].gpu_models = {"A|B"};
  EXPECT_FALSE(WriteJobsCsv(w, dir + "/out.csv").ok());
  EXPECT_TRUE(std::filesystem::is_empty(dir));
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim::traces
