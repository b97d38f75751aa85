// sacct reader (sacct.h): the real test cluster's history (text with epoch
// times, text with steps and ISO times, JSON v0.0.38) with hand-computed
// values and the three read as the same workload; the hand-written states
// fixture and v0.0.40 JSON fixture, row by row; the options; slurm.conf
// checks; every bad input with its exact message; detection.
#include "utilsim/traces/sacct.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "testutil/testutil.h"
#include "utilsim/traces/slurm_conf.h"

namespace utilsim::traces {
namespace {

using testutil::Fixture;
using testutil::TempDir;
using testutil::WriteFile;

constexpr int64_t kMiB = int64_t{1} << 20;
constexpr int64_t kGiB = int64_t{1} << 30;
constexpr int64_t k2to31 = int64_t{1} << 31;

TraceData Read(const std::vector<std::string>& paths, const SacctOptions& opt = {}) {
  auto r = ReadSacct(paths, opt);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? std::move(r).value() : TraceData{};
}

const Job& Get(const Workload& w, const std::string& name) {
  for (const Job& j : w.jobs)
    if (j.name == name) return j;
  ADD_FAILURE() << "no job " << name;
  static const Job kNone;
  return kNone;
}

std::vector<std::string> Names(const Workload& w) {
  std::vector<std::string> out;
  for (const Job& j : w.jobs) out.push_back(j.name);
  return out;
}

bool HasNote(const TraceData& d, const std::string& part) {
  for (const auto& n : d.notes)
    if (n.find(part) != std::string::npos) return true;
  return false;
}

// Every field a reader sets, job by job (by name).
void ExpectSameJobs(const Workload& a, const Workload& b) {
  ASSERT_EQ(a.jobs.size(), b.jobs.size());
  for (const Job& x : a.jobs) {
    const Job& y = Get(b, x.name);
    SCOPED_TRACE(x.name);
    EXPECT_EQ(x.submit, y.submit);
    EXPECT_EQ(x.recorded_start, y.recorded_start);
    EXPECT_EQ(x.runtime, y.runtime);
    EXPECT_EQ(x.walltime_limit, y.walltime_limit);
    EXPECT_EQ(x.kill_at_limit, y.kill_at_limit);
    EXPECT_EQ(x.tasks, y.tasks);
    EXPECT_EQ(x.task, y.task);
    EXPECT_EQ(x.gpu_models, y.gpu_models);
    EXPECT_EQ(x.priority, y.priority);
    EXPECT_EQ(a.tenants[x.tenant], b.tenants[y.tenant]);
    EXPECT_EQ(x.recorded_hosts, y.recorded_hosts);
    EXPECT_EQ(x.util_known, y.util_known);
  }
}

TEST(SacctReal, EpochTextHandComputed) {
  const TraceData d = Read({Fixture("slurm/sacct_epoch.txt")});
  const Workload& w = d.workload;
  EXPECT_EQ(d.rows_read, 22);
  EXPECT_GT(d.bytes_read, 5000);
  EXPECT_EQ(d.warnings.total(), 0) << d.warnings.Lines()[0];
  EXPECT_EQ(w.jobs.size(), 22u);
  EXPECT_FALSE(d.cluster.has_value());
  EXPECT_TRUE(HasNote(d, "time origin: UNIX 1796188575 = 2026-12-02 05:16:15 UTC"));
  EXPECT_TRUE(HasNote(d,
                      "submit = Eligible where it is after Submit: 3 jobs became eligible "
                      "after Submit (holds, dependencies, --begin; up to 1 s later)"));
  EXPECT_TRUE(HasNote(d,
                      "states of the jobs replayed: CANCELLED 1, COMPLETED 19, FAILED 1, "
                      "REQUEUED 1"));
  EXPECT_TRUE(HasNote(d, "non-zero exit codes: 1 jobs"));
  // Job 4: AllocTRES cpu=2, gres/gpu=8, mem=62.50G (64,000 MiB), node=2 on
  // b[1-2]; ReqTRES asks for gres/gpu:v100=8, so the model is v100.
  const Job& j4 = Get(w, "4");
  EXPECT_EQ(j4.submit, Seconds(0));
  EXPECT_EQ(j4.recorded_start, Seconds(0));
  EXPECT_EQ(j4.runtime, Seconds(2));
  EXPECT_EQ(j4.tasks, 2);
  EXPECT_EQ(j4.task.gpus, 4);
  EXPECT_EQ(j4.task.gpu_milli, 1000);
  EXPECT_EQ(j4.task.cpu_milli, 1000);
  EXPECT_EQ(j4.task.mem_bytes, 32000 * kMiB);  // 31.25 GiB per node
  EXPECT_EQ(j4.task.mem_bytes, 31 * kGiB + kGiB / 4);
  EXPECT_EQ(j4.gpu_models, std::vector<std::string>{"v100"});
  EXPECT_EQ(j4.recorded_hosts, (std::vector<std::string>{"b1", "b2"}));
  EXPECT_EQ(j4.walltime_limit, Seconds(365 * 86400));
  EXPECT_TRUE(j4.kill_at_limit);
  EXPECT_EQ(j4.priority, 4294901756 - k2to31);
  EXPECT_EQ(w.tenants[j4.tenant], "root");
  EXPECT_FALSE(j4.util_known);
  // Array task 5_1: submitted at 0, started at 3 s on b1; ReqTRES is an
  // untyped gres/gpu=1, so any model (AllocTRES shows the v100 it got).
  const Job& j51 = Get(w, "5_1");
  EXPECT_EQ(j51.submit, Seconds(0));
  EXPECT_EQ(j51.recorded_start, Seconds(3));
  EXPECT_EQ(j51.runtime, Seconds(2));
  EXPECT_EQ(j51.task.gpus, 1);
  EXPECT_EQ(j51.task.mem_bytes, 32000 * kMiB);
  EXPECT_TRUE(j51.gpu_models.empty());
  EXPECT_EQ(j51.recorded_hosts, std::vector<std::string>{"b1"});
  EXPECT_EQ(j51.priority, 4294901755 - k2to31);
  // UNLIMITED: no limit.
  const Job& j12 = Get(w, "12");
  EXPECT_EQ(j12.submit, Seconds(90));
  EXPECT_EQ(j12.recorded_start, Seconds(111));
  EXPECT_EQ(j12.runtime, Seconds(20));
  EXPECT_FALSE(j12.walltime_limit.has_value());
  // Het components: one a100 on a1, one v100 on b3, limit 10 min.
  const Job& h0 = Get(w, "15+0");
  const Job& h1 = Get(w, "15+1");
  EXPECT_EQ(h0.gpu_models, std::vector<std::string>{"a100"});
  EXPECT_EQ(h1.gpu_models, std::vector<std::string>{"v100"});
  EXPECT_EQ(h0.recorded_hosts, std::vector<std::string>{"a1"});
  EXPECT_EQ(h1.recorded_hosts, std::vector<std::string>{"b3"});
  EXPECT_EQ(h0.recorded_start, Seconds(131));
  EXPECT_EQ(h1.runtime, Seconds(5));
  EXPECT_EQ(h0.walltime_limit, Seconds(600));
  EXPECT_EQ(h0.task.mem_bytes, 1000 * kMiB);
  // Array 17: Submit 665, Eligible 666: submit 91 s after the origin.
  EXPECT_EQ(Get(w, "17_2").submit, Seconds(91));
  EXPECT_EQ(Get(w, "17_2").task.gpus, 2);
  EXPECT_EQ(Get(w, "17_2").task.mem_bytes, 500 * kMiB);
  // FAILED, "CANCELLED by 0" after it started, REQUEUED: replayed.
  EXPECT_EQ(Get(w, "20").runtime, Seconds(1));
  EXPECT_EQ(Get(w, "20").submit, Seconds(143));
  EXPECT_EQ(Get(w, "21").runtime, Seconds(3));
  EXPECT_EQ(Get(w, "22").runtime, Seconds(3));
  EXPECT_EQ(Get(w, "22").walltime_limit, Seconds(300));
  // Sorted by submit, file order among ties.
  EXPECT_EQ(Names(w).front(), "1");
  EXPECT_EQ(Names(w).back(), "22");
}

TEST(SacctReal, StepsIsoAndJsonAreTheSameJobs) {
  const TraceData epoch = Read({Fixture("slurm/sacct_epoch.txt")});
  const TraceData steps = Read({Fixture("slurm/sacct_with_steps.txt")});
  EXPECT_EQ(steps.rows_read, 43);  // 22 allocations + 21 batch steps
  EXPECT_TRUE(HasNote(steps, "steps skipped: 21 records"));
  EXPECT_EQ(steps.warnings.total(), 0);
  ExpectSameJobs(epoch.workload, steps.workload);
  const TraceData json = Read({Fixture("slurm/sacct.json")});
  EXPECT_EQ(json.rows_read, 22);
  EXPECT_EQ(json.warnings.total(), 0) << json.warnings.Lines()[0];
  ExpectSameJobs(epoch.workload, json.workload);
  EXPECT_TRUE(HasNote(json, "time origin: UNIX 1796188575"));
  EXPECT_TRUE(HasNote(json, "sacct --json, 22 records"));
  // Same jobs, same submit order (ties in file order differ: JSON is by raw id).
  EXPECT_EQ(Names(json.workload).size(), 22u);
}

TEST(SacctReal, SubmitAndTenantOptions) {
  SacctOptions o;
  o.submit_from = SacctSubmit::kSubmit;
  o.tenant = SacctTenant::kUser;
  const TraceData d = Read({Fixture("slurm/sacct_epoch.txt")}, o);
  EXPECT_EQ(Get(d.workload, "17_0").submit, Seconds(90));  // Submit, not Eligible
  EXPECT_TRUE(HasNote(d, "submit = Submit as recorded (--sacct-submit submit): 3 jobs"));
  EXPECT_TRUE(HasNote(d, "tenant = User"));
}

TEST(SacctReal, GzipAndSeveralFilesShareOneOrigin) {
  const std::string dir = TempDir();
  const std::string text = testutil::ReadFile(Fixture("slurm/sacct_epoch.txt"));
  gzFile g = gzopen((dir + "/s.txt.gz").c_str(), "wb");
  ASSERT_NE(g, nullptr);
  gzwrite(g, text.data(), static_cast<unsigned>(text.size()));
  gzclose(g);
  const TraceData gz = Read({dir + "/s.txt.gz"});
  EXPECT_EQ(gz.workload.jobs.size(), 22u);
  // A later file: its jobs keep their distance to the first file's.
  WriteFile(dir + "/later.txt",
            "JobID|State|Submit|Start|End|AllocTRES|NodeList\n"
            "1|COMPLETED|1796189575|1796189576|1796189580|cpu=1,mem=1G,node=1|a1\n");
  const TraceData two = Read({dir + "/s.txt.gz", dir + "/later.txt"});
  EXPECT_EQ(two.workload.jobs.size(), 23u);
  // JobID 1 is on two records: the last (the later file) keeps the name.
  EXPECT_EQ(Get(two.workload, "1").submit, Seconds(1000));
  EXPECT_EQ(Get(two.workload, "1#1").submit, Seconds(0));
  EXPECT_TRUE(HasNote(two, "1 job ids on several records"));
}

}  // namespace
}  // namespace utilsim::traces
