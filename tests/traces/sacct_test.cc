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
namespace UTILSIM_UNITY_ID {

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
  EXPECT_FALSE(j12.kill_at_limit);
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

// The hand-written fixture, row by row (origin = job 100's Submit,
// 1700000000).
TEST(SacctHand, EveryState) {
  const TraceData d = Read({Fixture("slurm/hand/sacct_states.txt")});
  const Workload& w = d.workload;
  EXPECT_EQ(d.rows_read, 28);
  std::vector<std::string> names = Names(w);
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names,
            (std::vector<std::string>{"100",   "101",   "102",   "103",   "104",   "109", "111",
                                      "111#1", "111#2", "112+0", "112+1", "113_0", "114", "115",
                                      "116",   "117",   "118",   "119",   "120",   "121"}));
  const Warnings& wr = d.warnings;
  EXPECT_EQ(wr.count(kSacctWarnStillRunning), 2);      // 105 RUNNING, 106 SUSPENDED
  EXPECT_EQ(wr.count(kSacctWarnPending), 2);           // 107, the array line 113_[3-5]
  EXPECT_EQ(wr.count(kSacctWarnNeverStarted), 1);      // 108 cancelled while pending
  EXPECT_EQ(wr.count(kSacctWarnBootFail), 1);          // 110
  EXPECT_EQ(wr.count(kSacctWarnOtherState), 1);        // 114 RESIZING
  EXPECT_EQ(wr.count(kSacctWarnZeroRuntime), 1);       // 115
  EXPECT_EQ(wr.count(kSacctWarnElapsed), 1);           // 117
  EXPECT_EQ(wr.count(kSacctWarnUneven), 1);            // 102
  EXPECT_EQ(wr.count(kSacctWarnSubmitAfterStart), 1);  // 121
  EXPECT_EQ(wr.count(kSacctWarnGpuTypes), 1);          // 120
  EXPECT_EQ(wr.total(), 12);
  const std::string file = Fixture("slurm/hand/sacct_states.txt");
  EXPECT_EQ(wr.examples().at(kSacctWarnNeverStarted)[0], file + ":18: job 108: CANCELLED");
  EXPECT_EQ(wr.examples().at(kSacctWarnStillRunning)[1], file + ":16: job 106: SUSPENDED");
  EXPECT_EQ(wr.examples().at(kSacctWarnOtherState)[0], file + ":28: job 114: RESIZING");
  EXPECT_EQ(wr.examples().at(kSacctWarnElapsed)[0],
            file + ":31: job 117: Elapsed 60 s, End - Start 200 s");
  EXPECT_TRUE(HasNote(d, "steps skipped: 2 records"));
  EXPECT_TRUE(HasNote(d, "time origin: UNIX 1700000000 = 2023-11-14 22:13:20 UTC"));
  EXPECT_TRUE(HasNote(d,
                      "2 jobs became eligible after Submit (holds, dependencies, --begin; "
                      "up to 600 s later)"));
  EXPECT_TRUE(HasNote(d, "1 jobs ended by NODE_FAIL or PREEMPTED") == false);
  EXPECT_TRUE(HasNote(d, "2 jobs ended by NODE_FAIL or PREEMPTED are replayed"));
  EXPECT_TRUE(HasNote(d, "1 job ids on several records"));

  // TIMEOUT: ran past its 1 h limit by 10 s; kept whole, the engine caps at
  // max(limit, runtime).
  const Job& t = Get(w, "100");
  EXPECT_EQ(t.submit, Seconds(0));
  EXPECT_EQ(t.recorded_start, Seconds(10));
  EXPECT_EQ(t.runtime, Seconds(3610));
  EXPECT_EQ(t.walltime_limit, Seconds(3600));
  EXPECT_TRUE(t.kill_at_limit);
  EXPECT_EQ(t.task.gpus, 8);
  EXPECT_EQ(t.task.cpu_milli, 16000);
  EXPECT_EQ(t.task.mem_bytes, 64 * kGiB);
  EXPECT_EQ(t.gpu_models, std::vector<std::string>{"h100"});
  EXPECT_EQ(t.priority, 1000 - k2to31);
  EXPECT_EQ(w.tenants[t.tenant], "proj-a");
  // NODE_FAIL on a multi-bracket node list; untyped request: any model.
  const Job& nf = Get(w, "101");
  EXPECT_EQ(nf.tasks, 4);
  EXPECT_EQ(nf.task.gpus, 8);
  EXPECT_EQ(nf.task.cpu_milli, 16000);
  EXPECT_EQ(nf.task.mem_bytes, 250 * kGiB);
  EXPECT_EQ(nf.recorded_hosts, (std::vector<std::string>{"r1-n01", "r1-n02", "r2-n01", "r2-n02"}));
  EXPECT_TRUE(nf.gpu_models.empty());
  EXPECT_EQ(nf.walltime_limit, Seconds(2 * 86400));
  EXPECT_EQ(nf.runtime, Seconds(600));
  // PREEMPTED, 3 GPUs and 3 CPUs over 2 nodes: 2 each (rounded up);
  // Partition_Limit: no limit.
  const Job& pr = Get(w, "102");
  EXPECT_EQ(pr.tasks, 2);
  EXPECT_EQ(pr.task.gpus, 2);
  EXPECT_EQ(pr.task.cpu_milli, 2000);
  EXPECT_EQ(pr.task.mem_bytes, 1500 * kMiB);
  EXPECT_FALSE(pr.walltime_limit.has_value());
  EXPECT_EQ(pr.recorded_start, Seconds(300));
  // OUT_OF_MEMORY, CPU-only: kept.
  const Job& oom = Get(w, "103");
  EXPECT_EQ(oom.task.gpus, 0);
  EXPECT_EQ(oom.task.cpu_milli, 4000);
  EXPECT_EQ(oom.task.mem_bytes, 8 * kGiB);
  EXPECT_TRUE(oom.gpu_models.empty());
  EXPECT_EQ(oom.walltime_limit, Seconds(1800));  // "30": minutes
  // DEADLINE, limit "1:30" = 1 min 30 s, typed request.
  EXPECT_EQ(Get(w, "104").walltime_limit, Seconds(90));
  EXPECT_EQ(Get(w, "104").gpu_models, std::vector<std::string>{"l40s"});
  // CANCELLED after it started: replayed.
  EXPECT_EQ(Get(w, "109").runtime, Seconds(100));
  EXPECT_EQ(Get(w, "109").recorded_start, Seconds(650));
  // Requeued attempts in file order; the last keeps the id. The second
  // became eligible 50 s after its Submit.
  EXPECT_EQ(Get(w, "111#1").recorded_hosts, std::vector<std::string>{"r1-n01"});
  EXPECT_EQ(Get(w, "111#1").recorded_start, Seconds(1000));
  EXPECT_EQ(Get(w, "111#2").submit, Seconds(1150));
  EXPECT_EQ(Get(w, "111#2").recorded_start, Seconds(1200));
  EXPECT_EQ(Get(w, "111").recorded_start, Seconds(1400));
  EXPECT_EQ(Get(w, "111").recorded_hosts, std::vector<std::string>{"r2-n01"});
  // Het components: a GPU one and a CPU-only one.
  EXPECT_EQ(Get(w, "112+0").task.gpus, 2);
  EXPECT_EQ(Get(w, "112+1").task.gpus, 0);
  EXPECT_EQ(Get(w, "112+1").recorded_hosts, std::vector<std::string>{"c1"});
  // RESIZING: replayed from its times.
  EXPECT_EQ(Get(w, "114").runtime, Seconds(60));
  // Zero run time: 1 s; Priority 0 and 2^32-1 at the ends of int32.
  EXPECT_EQ(Get(w, "115").runtime, Seconds(1));
  EXPECT_EQ(Get(w, "115").priority, INT32_MIN);
  EXPECT_EQ(Get(w, "116").priority, INT32_MAX);
  // Eligible 600 s after Submit (a hold).
  EXPECT_EQ(Get(w, "116").submit, Seconds(3000));
  // Two GPU types asked: no constraint; no Account: tenant "default".
  const Job& two = Get(w, "120");
  EXPECT_TRUE(two.gpu_models.empty());
  EXPECT_EQ(two.recorded_hosts, (std::vector<std::string>{"r1-n01", "l1"}));
  EXPECT_EQ(w.tenants[two.tenant], "default");
  // Submit after Start: set to Start.
  EXPECT_EQ(Get(w, "121").submit, Seconds(2850));
  EXPECT_EQ(Get(w, "121").recorded_start, Seconds(2850));

  SacctOptions o;
  o.submit_from = SacctSubmit::kSubmit;
  const TraceData s = Read({Fixture("slurm/hand/sacct_states.txt")}, o);
  EXPECT_EQ(Get(s.workload, "116").submit, Seconds(2400));
  EXPECT_EQ(Get(s.workload, "111#2").submit, Seconds(1100));
}

// With the cluster's slurm.conf: partitions become GPU model constraints,
// and jobs that do not fit their recorded nodes are counted.
TEST(SacctHand, CheckedAgainstSlurmConf) {
  auto conf = ReadSlurmConf(Fixture("slurm/hand/slurm.conf"));
  ASSERT_TRUE(conf.ok()) << conf.status().message();
  SacctOptions o;
  o.conf = &conf.value();
  const TraceData d = Read({Fixture("slurm/hand/sacct_states.txt")}, o);
  const Workload& w = d.workload;
  const std::string file = Fixture("slurm/hand/sacct_states.txt");
  EXPECT_EQ(d.warnings.count(kSacctWarnUnknownNode), 1);
  EXPECT_EQ(d.warnings.examples().at(kSacctWarnUnknownNode)[0], file + ":32: job 118 on z1");
  EXPECT_EQ(d.warnings.count(kSacctWarnTooManyGpus), 1);
  EXPECT_EQ(d.warnings.examples().at(kSacctWarnTooManyGpus)[0],
            file + ":33: job 119: 16 GPUs per node, r2-n02 has 8");
  // c1 has no RealMemory (1 MiB): 103, 112+1, 114, 121.
  EXPECT_EQ(d.warnings.count(kSacctWarnTooBig), 4);
  EXPECT_EQ(d.warnings.examples().at(kSacctWarnTooBig)[0],
            file + ":13: job 103: 4 CPUs, 8192 MiB per node, c1 has 32 CPUs, 1 MiB");
  EXPECT_EQ(d.warnings.count(kSacctWarnUnknownPartition), 0);
  // Untyped requests in partitions that hold one model get it.
  EXPECT_EQ(Get(w, "101").gpu_models, std::vector<std::string>{"h100"});
  EXPECT_EQ(Get(w, "102").gpu_models, std::vector<std::string>{"l40s"});
  EXPECT_EQ(Get(w, "109").gpu_models, std::vector<std::string>{"l40s"});
  EXPECT_EQ(Get(w, "113_0").gpu_models, std::vector<std::string>{"l40s"});
  EXPECT_TRUE(Get(w, "120").gpu_models.empty());  // partition "all": every model
  EXPECT_TRUE(Get(w, "103").gpu_models.empty());  // CPU-only
  EXPECT_EQ(Get(w, "111#1").gpu_models, std::vector<std::string>{"h100"});  // and #2, 111
  EXPECT_TRUE(HasNote(d,
                      "slurm.conf: 7 jobs without a GPU type limited to the GPU models of "
                      "their partition"));
  // The real cluster's history fits its slurm.conf: no findings, and one
  // partition with every model adds no constraint.
  auto real = ReadSlurmConf(Fixture("slurm/slurm.conf"));
  ASSERT_TRUE(real.ok()) << real.status().message();
  o.conf = &real.value();
  const TraceData r = Read({Fixture("slurm/sacct_epoch.txt")}, o);
  EXPECT_EQ(r.warnings.total(), 0);
  EXPECT_TRUE(Get(r.workload, "5_1").gpu_models.empty());
}

// The v0.0.40+ JSON shape (hand-written fixture).
TEST(SacctHand, JsonV0040) {
  const TraceData d = Read({Fixture("slurm/hand/sacct_v0040.json")});
  const Workload& w = d.workload;
  EXPECT_EQ(d.rows_read, 10);
  std::vector<std::string> names = Names(w);
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names,
            (std::vector<std::string>{"200", "201_7", "203+0", "203+1", "206", "207", "207#1"}));
  EXPECT_EQ(d.warnings.count(kSacctWarnStillRunning), 1);  // 205
  EXPECT_EQ(d.warnings.count(kSacctWarnPending), 1);       // 208_[1-3]
  EXPECT_EQ(d.warnings.count(kSacctWarnNeverStarted), 1);  // 209 [PENDING, REQUEUED]
  EXPECT_EQ(d.warnings.total(), 3);
  const std::string file = Fixture("slurm/hand/sacct_v0040.json");
  EXPECT_EQ(d.warnings.examples().at(kSacctWarnPending)[0],
            file + ": jobs[8]: job 208_[1-3] (array tasks that never started)");
  const Job& a = Get(w, "200");
  EXPECT_EQ(a.submit, Seconds(0));
  EXPECT_EQ(a.recorded_start, Seconds(10));
  EXPECT_EQ(a.runtime, Seconds(100));
  EXPECT_EQ(a.walltime_limit, Seconds(3600));  // limit {"number": 60} minutes
  EXPECT_EQ(a.task.gpus, 4);
  EXPECT_EQ(a.task.cpu_milli, 8000);
  EXPECT_EQ(a.task.mem_bytes, 64 * kGiB);  // mem count 65536 MiB
  EXPECT_EQ(a.gpu_models, std::vector<std::string>{"h100"});
  EXPECT_EQ(a.priority, 4294901759 - k2to31);
  EXPECT_EQ(w.tenants[a.tenant], "proj-a");
  const Job& arr = Get(w, "201_7");  // array.job_id 201, task_id {"number": 7}
  EXPECT_EQ(arr.submit, Seconds(5));
  EXPECT_EQ(arr.runtime, Seconds(90));
  EXPECT_EQ(arr.walltime_limit, Seconds(60));
  EXPECT_TRUE(arr.gpu_models.empty());
  EXPECT_EQ(w.tenants[arr.tenant], "proj-b");
  const Job& h0 = Get(w, "203+0");
  EXPECT_EQ(h0.tasks, 2);
  EXPECT_EQ(h0.task.gpus, 1);
  EXPECT_EQ(h0.task.mem_bytes, kGiB);
  EXPECT_EQ(h0.recorded_hosts, (std::vector<std::string>{"r1-n01", "r2-n01"}));
  EXPECT_EQ(Get(w, "203+1").task.gpus, 0);  // CANCELLED after it started
  const Job& inf = Get(w, "206");
  EXPECT_FALSE(inf.walltime_limit.has_value());  // {"infinite": true}
  EXPECT_EQ(inf.priority, 0);                    // {"set": false}
  EXPECT_EQ(Get(w, "207#1").runtime, Seconds(50));
  EXPECT_EQ(Get(w, "207").submit, Seconds(160));  // eligible 10 s after its Submit
  EXPECT_EQ(Get(w, "207").recorded_start, Seconds(200));
}

// Every bad input gives exactly this message (and never a crash).
TEST(SacctErrors, ExactMessages) {
  const std::string dir = TempDir();
  const std::string head = "JobID|State|Submit|Start|End|AllocTRES|NodeList|Timelimit|Priority\n";
  auto row = [](const std::string& f) { return f + "\n"; };
  const std::string ok = "7|COMPLETED|100|100|200|cpu=1,mem=1G,node=1|a1|10|5";
  struct Case {
    std::string text, message;  // message after "<path>"
  };
  const Case cases[] = {
      {"", ": empty file, expected sacct --parsable2 or --json output"},
      {"  \n\n", ": empty file, expected sacct --parsable2 or --json output"},
      {"# only a comment\n", ": empty file, expected a sacct --parsable2 header"},
      {row(ok),
       ":1: expected a header line of '|'-separated field names (JobID|State|...), got a job "
       "record: run sacct without --noheader"},
      {"hello world\n",
       ":1: expected a sacct --parsable2 header of '|'-separated field names (JobID|State|...)"},
      {"JobID|State|Submit|End|AllocTRES\n", ":1: missing required column 'Start'"},
      {"JobID|State|Submit|Start|End|NodeList\n",
       ":1: missing required column 'AllocTRES' (or 'ReqTRES')"},
      {head + row("7|COMPLETED|100|100|200|cpu=1|a1|10"),
       ":2: expected 9 fields (as in the header), got 8 (a '|' inside a field, e.g. in a job "
       "name?)"},
      {head + row("7|COMPLETED|x|100|200|cpu=1|a1|10|5"),
       ":2: field 'Submit': expected UNIX seconds >= 0 or a time YYYY-MM-DDTHH:MM:SS (or "
       "Unknown, None), got 'x'"},
      {head + row("7|COMPLETED|100|-5|200|cpu=1|a1|10|5"),
       ":2: field 'Start': expected UNIX seconds >= 0 or a time YYYY-MM-DDTHH:MM:SS (or Unknown, "
       "None), got '-5'"},
      {head + row("7|COMPLETED|100|100|200|cpu|a1|10|5"),
       ":2: field 'AllocTRES': expected TRES entries name=count (as cpu=2,mem=1000M,gres/gpu=2), "
       "got 'cpu'"},
      {head + row("7|COMPLETED|100|100|200|mem=-1G|a1|10|5"),
       ":2: field 'AllocTRES': expected mem=<size>[K|M|G|T|P] (as mem=62.50G) in a TRES list, got "
       "'mem=-1G'"},
      {head + row("7|COMPLETED|100|100|200|cpu=1|a[1-|10|5"),
       ":2: field 'NodeList': expected ']' to close every '[' in a host list, got 'a[1-'"},
      {head + row("7|COMPLETED|100|100|50|cpu=1|a1|10|5"),
       ":2: field 'End': expected a time >= Start (100), got '50'"},
      {head + row("7|COMPLETED|100|100|200|cpu=1|a1|1:2:3:4|5"),
       ":2: field 'Timelimit': expected a Slurm duration (M, M:S, H:M:S, D-H, D-H:M, D-H:M:S) or "
       "UNLIMITED, INFINITE, Partition_Limit, got '1:2:3:4'"},
      {head + row("7|COMPLETED|100|100|200|cpu=1|a1|10|-1"),
       ":2: field 'Priority': expected an integer 0..4294967295, got '-1'"},
      {head + row("7|COMPLETED|100|100|200|cpu=1|a1|10|4294967296"),
       ":2: field 'Priority': expected an integer 0..4294967295, got '4294967296'"},
      {head + row("|COMPLETED|100|100|200|cpu=1|a1|10|5"),
       ":2: field 'JobID': expected a job id (as 123, 5_0, 15+1), got ''"},
      {head + row("7||100|100|200|cpu=1|a1|10|5"),
       ":2: field 'State': expected a job state (as COMPLETED), got ''"},
      {head + row("7|COMPLETED|Unknown|100|200|cpu=1|a1|10|5"),
       ":2: field 'Submit': expected a time for a job that ran, got 'Unknown'"},
      {head + row("7|COMPLETED|100|100|200|node=2000000|a1|10|5"),
       ":2: field 'AllocTRES': expected node=<count> of at most 1000000, got 'node=2000000'"},
      {head + row(ok) + row("8|COMPLETED|100|100|200|cpu=1,mem=1G,node=1|a[3-1]|10|5"),
       ":3: field 'NodeList': expected ranges lo-hi with lo <= hi in a host list, got 'a[3-1]'"},
      // JSON.
      {"[1, 2]", ": expected a sacct --json object with a \"jobs\" array"},
      {"{\"jobs\": 5}", ": expected a sacct --json object with a \"jobs\" array"},
      {"{\"jobs\": [5]}", ": jobs[0]: expected a job object, got '5'"},
      {"{\"jobs\": [{}]}", ": jobs[0]: field 'job_id': expected a job id, got 'null'"},
      {"{\"jobs\": [{\"job_id\": 1.5}]}",
       ": jobs[0]: field 'job_id': expected an integer >= 0 (or {\"set\", \"infinite\", "
       "\"number\"}), got '1.5'"},
      {"{\"jobs\": [{\"job_id\": 1}]}",
       ": jobs[0]: field 'state.current': expected a job state (as \"COMPLETED\" or "
       "[\"COMPLETED\"]), got 'null'"},
      {"{\"jobs\": [{\"job_id\": 1, \"state\": {\"current\": [\"COMPLETED\"]}, \"time\": "
       "{\"end\": -5}}]}",
       ": jobs[0]: field 'time.end': expected an integer >= 0 (or {\"set\", \"infinite\", "
       "\"number\"}), got '-5'"},
      {"{\"jobs\": [{\"job_id\": 1, \"state\": {\"current\": \"COMPLETED\"}, \"time\": "
       "{\"submission\": 10, \"start\": 100, \"end\": 50}, \"nodes\": \"a1\"}]}",
       ": jobs[0]: field 'time.end': expected a time >= time.start (100), got '50'"},
      {"{\"jobs\": [{\"job_id\": 1, \"state\": {\"current\": \"COMPLETED\"}, \"tres\": "
       "{\"allocated\": 5}}]}",
       ": jobs[0]: field 'tres.allocated': expected an array of {type, name, count}, got '5'"},
      {"{\"jobs\": [{\"job_id\": 1, \"state\": {\"current\": \"COMPLETED\"}, \"tres\": "
       "{\"requested\": [{\"type\": \"cpu\", \"count\": \"x\"}]}}]}",
       ": jobs[0]: field 'tres.requested[0].count': expected an integer >= 0 (or {\"set\", "
       "\"infinite\", \"number\"}), got '\"x\"'"},
      {"{\"jobs\": [{\"job_id\": 1, \"state\": {\"current\": \"COMPLETED\"}, \"time\": "
       "{\"submission\": 10, \"start\": 100, \"end\": 150}, \"nodes\": \"a[\"}]}",
       ": jobs[0]: field 'nodes': expected ']' to close every '[' in a host list, got 'a['"},
      {"{\"jobs\": [{\"job_id\": 1, \"state\": {\"current\": \"COMPLETED\"}, \"time\": "
       "{\"limit\": {\"set\": true, \"number\": -1}}}]}",
       ": jobs[0]: field 'time.limit': expected an integer >= 0 (or {\"set\", \"infinite\", "
       "\"number\"}), got '{\"number\":-1,\"set\":true}'"},
  };
  int k = 0;
  for (const Case& c : cases) {
    const std::string path = WriteFile(dir + "/bad" + std::to_string(k++) + ".txt", c.text);
    auto r = ReadSacct({path});
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_EQ(r.status().message(), path + c.message) << c.text;
  }
  // Node lists may expand to at most 64 MiB + 1000 bytes per input byte in
  // all: a guard against a small file that would fill the memory.
  const std::string name(200, 'a');
  const std::string big = WriteFile(dir + "/big.txt",
                                    "JobID|State|Submit|Start|End|AllocTRES|NodeList\n"
                                    "1|COMPLETED|1|1|2|node=600000|" +
                                        name + "[1-600000]\n");
  EXPECT_EQ(ReadSacct({big}).status().message(),
            big +
                ":2: field 'NodeList': expected node lists that expand to at most 64 MiB + "
                "1000 bytes per input byte in all (a guard against hostile input), got '" +
                name.substr(0, 100) + "...'");
  // A JSON syntax error names the line.
  const std::string broken = WriteFile(dir + "/broken.json", "{\n\"jobs\": [\n{,\n");
  auto r = ReadSacct({broken});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message().rfind(broken + ":3: JSON error: ", 0), 0u) << r.status().message();
  EXPECT_EQ(ReadSacct({dir + "/missing.txt"})
                .status()
                .message()
                .rfind(dir + "/missing.txt: cannot open: ", 0),
            0u);
  EXPECT_EQ(ReadSacct({}).status().message(), "ReadSacct: no input files");
}

TEST(SacctDetect, OwnFilesOnly) {
  EXPECT_TRUE(LooksLikeSacct(Fixture("slurm/sacct_epoch.txt")));
  EXPECT_TRUE(LooksLikeSacct(Fixture("slurm/sacct_with_steps.txt")));
  EXPECT_TRUE(LooksLikeSacct(Fixture("slurm/sacct.json")));
  EXPECT_TRUE(LooksLikeSacct(Fixture("slurm/hand/sacct_states.txt")));
  EXPECT_TRUE(LooksLikeSacct(Fixture("slurm/hand/sacct_v0040.json")));
  const std::string dir = TempDir();
  EXPECT_TRUE(LooksLikeSacct(WriteFile(dir + "/a.txt", "State|JobID|Start\n")));
  // Minified JSON (one line) and JSON whose jobs come after a long "meta".
  EXPECT_TRUE(LooksLikeSacct(WriteFile(dir + "/m.json", "{\"jobs\":[{\"job_id\":1}]}")));
  EXPECT_TRUE(LooksLikeSacct(WriteFile(dir + "/n.json", "{\"meta\": \"" + std::string(20000, 'x') +
                                                            "\", \"jobs\": [{\"job_id\": 1}]}")));
  EXPECT_FALSE(LooksLikeSacct(WriteFile(dir + "/b.txt", "JobIDs|States\n")));
  EXPECT_FALSE(LooksLikeSacct(WriteFile(dir + "/c.txt", "id,submit_s,runtime_s\n")));
  EXPECT_FALSE(LooksLikeSacct(WriteFile(dir + "/d.json", "{\"status\": \"success\"}")));
  EXPECT_FALSE(LooksLikeSacct(WriteFile(dir + "/e.txt", "")));
  EXPECT_FALSE(LooksLikeSacct(dir + "/missing"));
  // Other formats' fixtures.
  for (const char* f : {"aaic/q1.csv", "canonical/jobs.csv", "swf/small.swf", "slurm/slurm.conf",
                        "slurm/gres.conf"})
    EXPECT_FALSE(LooksLikeSacct(Fixture(f))) << f;
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim::traces
