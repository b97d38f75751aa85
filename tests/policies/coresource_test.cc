// Co-resource allocation (policies/coresource.h): the demand each CPU
// allocation mode gives, runs that start jobs with it, the per-node GPU
// reservation and the errors. Every number is worked out in the comments.
#include "utilsim/policies/coresource.h"

#include <gtest/gtest.h>

#include <map>

#include "utilsim/engine/simulator.h"
#include "utilsim/engine/stall_model.h"
#include "utilsim/policies/composed_scheduler.h"
#include "utilsim/policies/queue_policy.h"
#include "utilsim/policies/registry.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

constexpr int64_t kGiB = int64_t{1} << 30;

// ---------------------------------------------------------------------------
// Shaping

// g8a: G x 8, 96 cores, 384 GiB     g8b: G x 8, 64 cores, 512 GiB
// t4:  T x 4, 48 cores, 128 GiB     cpu: no GPUs, 128 cores, 256 GiB
// Reference node for the proportional share: the most GPUs among the models
// the job may use, ties -> least CPU and least memory of those nodes:
//   any model or G: 8 GPUs, 64 cores, 384 GiB -> 8 cores and 48 GiB per GPU
//   T only:         4 GPUs, 48 cores, 128 GiB -> 12 cores and 32 GiB per GPU
// Cap of a measured ideal: the largest CPU of a node the job may use
// (any/G: 96 cores; CPU-only jobs: 128 cores).
ClusterSpec ShapeCluster() {
  ClusterSpec s;
  s.name = "shape";
  s.models = {{"G", 32 * kGiB, 1.0}, {"T", 16 * kGiB, 1.0}};
  s.groups = {{"g8a", 1, "G", 8, 96000, 384 * kGiB, 0},
              {"g8b", 1, "G", 8, 64000, 512 * kGiB, 0},
              {"t4", 1, "T", 4, 48000, 128 * kGiB, 0},
              {"cpu", 1, "", 0, 128000, 256 * kGiB, 0}};
  return s;
}

struct ShapeRow {
  const char* name;
  int gpus;
  int gpu_milli;
  int64_t cpu;        // request, milli-CPU
  int64_t mem_gib;    // request
  const char* model;  // "" = any
  float util;
  float input_cpu;   // -1 unknown
  int64_t cpu_used;  // -1 unknown
  // expected
  int64_t prop_cpu;
  int64_t prop_mem_gib;
  int64_t measured_cpu;  // ideal (memory: the request)
};

const ShapeRow kShapeRows[] = {
    // 2 GPUs, any model: 64000 x 2/8 = 16000; 384 GiB x 2/8 = 96 GiB. No
    // profile: the ideal is the request.
    {"a-2gpu", 2, 1000, 2000, 10, "", 1.0f, -1, -1, 16000, 96, 2000},
    // T only: 48000 x 1/4 = 12000; 128 x 1/4 = 32 GiB.
    {"b-t4", 1, 1000, 20000, 4, "T", 1.0f, -1, -1, 12000, 32, 20000},
    // quarter GPU: 64000 x 250/8000 = 2000; 384 GiB x 250/8000 = 12 GiB.
    {"c-frac", 1, 250, 500, 1, "", 1.0f, -1, -1, 2000, 12, 500},
    // CPU-only: request in proportional; measured use 500 x 1.1 = 550.
    {"d-cpu", 0, 1000, 3000, 4, "", 1.0f, -1, 500, 3000, 4, 550},
    // busy 0.5, CPU input stall 0.25: 4000 x (0.5 + 0.25) / 0.5 = 6000.
    {"e-stall", 1, 1000, 4000, 8, "", 0.5f, 0.25f, -1, 8000, 48, 6000},
    // measured use 3000, no stall: ceil(3000 x 1.1) = 3300 (less than asked).
    {"f-used", 1, 1000, 8000, 8, "", 0.6f, 0.0f, 3000, 8000, 48, 3300},
    // stall 0.5 but busy 0.8: ResolveParts cuts the stall to 0.2;
    // 4000 x (0.8 + 0.2) / 0.8 = 5000. (A stall beats a measured use.)
    {"g-cut", 1, 1000, 4000, 8, "", 0.8f, 0.5f, 9999, 8000, 48, 5000},
    // busy 0.05, stall 0.9: 8000 x 0.95 / 0.05 = 152000 > cap 96000.
    {"h-capped", 1, 1000, 8000, 8, "G", 0.05f, 0.9f, -1, 8000, 48, 96000},
    // measured use 0: at least 1 milli-CPU (a 0 grant would read as "as
    // recorded" to the progress model).
    {"i-idle", 1, 1000, 8000, 8, "", 1.0f, -1, 0, 8000, 48, 1},
};

Workload ShapeWorkload() {
  Workload w;
  for (const ShapeRow& r : kShapeRows) {
    Job j;
    j.name = r.name;
    j.task.gpus = r.gpus;
    j.task.gpu_milli = r.gpu_milli;
    j.task.cpu_milli = r.cpu;
    j.task.mem_bytes = r.mem_gib * kGiB;
    if (*r.model) j.gpu_models = {r.model};
    j.util = r.util;
    j.util_known = true;
    j.stalls.input_cpu = r.input_cpu;
    j.host_cpu_used_milli = r.cpu_used;
    j.runtime = Seconds(10);
    w.jobs.push_back(j);
  }
  w.Finalize();
  return w;
}

TEST(CoResourceShape, EveryModeOnASmallWorkload) {
  auto state = ClusterState::Build(ShapeCluster());
  ASSERT_TRUE(state.ok());
  const ClusterState& c = state.value();
  const Workload w = ShapeWorkload();
  const ShapedDemands req = ShapeDemands(w, c, {CpuAlloc::kRequest});
  const ShapedDemands prop = ShapeDemands(w, c, {CpuAlloc::kProportional});
  const ShapedDemands meas = ShapeDemands(w, c, {CpuAlloc::kMeasured});
  for (size_t i = 0; i < w.jobs.size(); ++i) {
    const ShapeRow& r = kShapeRows[i];
    const Job& j = w.jobs[i];
    SCOPED_TRACE(r.name);
    EXPECT_EQ(req.first[i], j.task);
    EXPECT_EQ(req.second[i], j.task);
    EXPECT_EQ(prop.first[i].cpu_milli, r.prop_cpu);
    EXPECT_EQ(prop.first[i].mem_bytes, r.prop_mem_gib * kGiB);
    EXPECT_EQ(prop.second[i], prop.first[i]);
    EXPECT_EQ(meas.first[i].cpu_milli, r.measured_cpu);
    EXPECT_EQ(meas.first[i].mem_bytes, j.task.mem_bytes);  // no host-memory measurement
    EXPECT_EQ(meas.second[i], prop.first[i]);              // the fair share
    for (const ShapedDemands* s : {&req, &prop, &meas}) {  // GPUs are the job's
      EXPECT_EQ(s->first[i].gpus, j.task.gpus);
      EXPECT_EQ(s->first[i].gpu_milli, j.task.gpu_milli);
      EXPECT_EQ(s->first[i].gpu_mem_bytes, j.task.gpu_mem_bytes);
    }
    // The free functions agree with ShapeDemands.
    EXPECT_EQ(ProportionalDemand(j, c.ResolveModels(j.gpu_models), c), prop.first[i]);
  }
}

// ---------------------------------------------------------------------------
// Runs: a probe outside the decorator records what the engine granted.

class Probe final : public Scheduler {
 public:
  explicit Probe(std::unique_ptr<Scheduler> inner) : inner_(std::move(inner)) {}
  std::string label() const override { return inner_->label(); }
  PolicyId queue_policy() const override { return inner_->queue_policy(); }
  PolicyId placement_policy() const override { return inner_->placement_policy(); }
  Status Init(const ClusterState& c, const Workload& w) override { return inner_->Init(c, w); }
  void OnArrival(JobIndex j, Micros now) override { inner_->OnArrival(j, now); }
  void OnFinish(JobIndex j, Micros now) override { inner_->OnFinish(j, now); }
  Status Pass(PassContext& ctx) override {
    Status s = inner_->Pass(ctx);
    for (JobIndex j : ctx.running()) {
      if (!granted.count(j)) granted[j] = ctx.granted(j);
      seen.emplace_back(j, ctx.granted(j));
    }
    return s;
  }
  Micros NextWakeup(Micros now) const override { return inner_->NextWakeup(now); }
  size_t queued() const override { return inner_->queued(); }

  std::map<JobIndex, TaskDemand> granted;             // at start
  std::vector<std::pair<JobIndex, TaskDemand>> seen;  // every (running job, grant) after a pass

 private:
  std::unique_ptr<Scheduler> inner_;
};

struct RunOut {
  RunResult result;
  std::map<JobIndex, TaskDemand> granted;
};

RunOut RunWith(const ClusterSpec& cluster, const Workload& w, const std::string& policy,
               CoResourceOptions opt, const ProgressModel* model = nullptr) {
  auto base = BuiltinPolicies().Make(policy);
  EXPECT_TRUE(base.ok());
  Probe probe(MakeCoResource(std::move(base).value(), opt));
  SimConfig cfg;
  cfg.sample_interval = Seconds(10);
  cfg.progress = model;
  auto r = Simulate(cluster, w, probe, cfg);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return {r.ok() ? std::move(r).value() : RunResult{}, probe.granted};
}

// Two nodes n-0, n-1: 4 GPUs, 16 cores, 64 GiB each (4 cores, 16 GiB per GPU).
// fifo + first-fit. Jobs (submit, GPUs, CPU request, runtime; 8 GiB each):
//   j1 0 s, 1 GPU, 16 cores, 100 s     j2 1 s, 1 GPU, 16 cores, 100 s
//   j3 2 s, 2 GPUs, 4 cores,  50 s     j4 3 s, 4 GPUs, 4 cores,  20 s
// request: j1 takes all of n-0's CPU (3 GPUs stranded), j2 all of n-1's (6
//   stranded); j3 finds no node with CPU and blocks j4.
//   t=100 j1 ends: j3 -> n-0 (100..150); j4 needs 4 GPUs: n-0 has 2 -> waits;
//   t=101 j2 ends: j4 -> n-1 (101..121).
// proportional (4 cores, 16 GiB per GPU): j1 -> n-0 (0..100), j2 -> n-0
//   (1..101; 3 GPUs, 12 cores left, first fit), j3 2 GPUs 8 cores 32 GiB ->
//   n-0 (2..52), j4 4 GPUs 16 cores 64 GiB -> n-1 (3..23). Nothing stranded.
ClusterSpec TwoNodes() {
  ClusterSpec s;
  s.name = "two";
  s.models = {{"G", 16 * kGiB, 1.0}};
  s.groups = {{"n-0", 1, "G", 4, 16000, 64 * kGiB, 0}, {"n-1", 1, "G", 4, 16000, 64 * kGiB, 0}};
  return s;
}

Workload StrandJobs() {
  Workload w;
  auto add = [&](const char* name, int64_t submit, int gpus, int64_t cpu, int64_t run) {
    Job j;
    j.name = name;
    j.submit = Seconds(submit);
    j.task.gpus = gpus;
    j.task.cpu_milli = cpu;
    j.task.mem_bytes = 8 * kGiB;
    j.runtime = Seconds(run);
    w.jobs.push_back(j);
  };
  add("j1", 0, 1, 16000, 100);
  add("j2", 1, 1, 16000, 100);
  add("j3", 2, 2, 4000, 50);
  add("j4", 3, 4, 4000, 20);
  w.Finalize();
  return w;
}

struct StartRow {
  int64_t start, finish;
  const char* placement;
  int64_t granted_cpu, granted_mem_gib;
};

void CheckRun(const RunOut& out, const std::vector<StartRow>& rows) {
  ASSERT_EQ(out.result.jobs.size(), rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    const JobRecord& rec = out.result.jobs[i];
    SCOPED_TRACE(rec.name);
    EXPECT_EQ(rec.start, Seconds(rows[i].start));
    EXPECT_EQ(rec.finish, Seconds(rows[i].finish));
    EXPECT_EQ(rec.placement, rows[i].placement);
    ASSERT_TRUE(out.granted.count(static_cast<JobIndex>(i)));
    EXPECT_EQ(out.granted.at(static_cast<JobIndex>(i)).cpu_milli, rows[i].granted_cpu);
    EXPECT_EQ(out.granted.at(static_cast<JobIndex>(i)).mem_bytes, rows[i].granted_mem_gib * kGiB);
  }
}

int64_t StrandedAt(const RunResult& r, int64_t t) {
  for (const Sample& s : r.samples)
    if (s.time == Seconds(t)) return s.gpus_stranded;
  ADD_FAILURE() << "no sample at " << t;
  return -1;
}

TEST(CoResourceRun, RequestStrandsGpusProportionalDoesNot) {
  const RunOut req = RunWith(TwoNodes(), StrandJobs(), "fifo+first-fit", {CpuAlloc::kRequest});
  CheckRun(req, {{0, 100, "n-0:0", 16000, 8},
                 {1, 101, "n-1:0", 16000, 8},
                 {100, 150, "n-0:0,1", 4000, 8},
                 {101, 121, "n-1:0,1,2,3", 4000, 8}});
  const RunOut prop =
      RunWith(TwoNodes(), StrandJobs(), "fifo+first-fit", {CpuAlloc::kProportional});
  CheckRun(prop, {{0, 100, "n-0:0", 4000, 16},
                  {1, 101, "n-0:1", 4000, 16},
                  {2, 52, "n-0:2,3", 8000, 32},
                  {3, 23, "n-1:0,1,2,3", 16000, 64}});
  // At 10 s: request strands 3 + 3 whole-free GPUs behind exhausted CPU;
  // proportional has n-0 full and n-1 idle (4 GPUs free with 16 cores).
  EXPECT_EQ(StrandedAt(req.result, 10), 6);
  EXPECT_EQ(StrandedAt(prop.result, 10), 0);
  // Labels and ids are the inner scheduler's.
  EXPECT_EQ(prop.result.meta.label, "fifo+first-fit");
  EXPECT_EQ(prop.result.meta.placement_policy, "first-fit");
}

// Measured (stall-overlapped model). One node: 4 GPUs, 32 cores, 128 GiB ->
// fair share 8 cores, 32 GiB per GPU. j1..j4 all at 0 s: 1 GPU, 6 cores,
// 8 GiB, busy u = 0.5, CPU input stall i = 0.5, recorded 100 s.
//   ideal = 6000 x (0.5 + 0.5) / 0.5 = 12000 milli-CPU.
//   Run time under the overlapped model: T = max(u, (u + i) x 6000 / granted):
//     12000 -> max(0.5, 0.5)  = 0.5  -> 50 s
//      8000 -> max(0.5, 0.75) = 0.75 -> 75 s
//      6000 -> max(0.5, 1.0)  = 1    -> 100 s
// measured, fifo + first-fit, pass at 0 s: every ideal fits the empty node;
//   round 1: j1 12000, j2 12000 (8000 left), j3's ideal fails -> blocks;
//   j3 and j4 no longer fit their ideal -> fair share; round 2: j3 8000
//   (0 left) starts, j4 blocks. j1, j2 end at 50 s: j4's ideal fits -> 50..100.
// request: 4 x 6000 fit at once, 100 s each; proportional: 4 x 8000, 75 s.
Workload StallJobs() {
  Workload w;
  for (const char* name : {"j1", "j2", "j3", "j4"}) {
    Job j;
    j.name = name;
    j.task.gpus = 1;
    j.task.cpu_milli = 6000;
    j.task.mem_bytes = 8 * kGiB;
    j.util = 0.5f;
    j.util_known = true;
    j.stalls.input_cpu = 0.5f;
    j.runtime = Seconds(100);
    w.jobs.push_back(j);
  }
  w.Finalize();
  return w;
}

ClusterSpec OneNode() {
  ClusterSpec s;
  s.name = "one";
  s.models = {{"G", 16 * kGiB, 1.0}};
  s.groups = {{"n", 1, "G", 4, 32000, 128 * kGiB, 0}};
  return s;
}

TEST(CoResourceRun, MeasuredGivesTheIdealWhenItFitsElseTheFairShare) {
  const StallProgress model(Composition::kOverlapped, 0.0);
  for (const char* policy : {"fifo+first-fit", "fifo-skip+best-fit"}) {
    SCOPED_TRACE(policy);
    CheckRun(RunWith(OneNode(), StallJobs(), policy, {CpuAlloc::kMeasured}, &model),
             {{0, 50, "n:0", 12000, 8},
              {0, 50, "n:1", 12000, 8},
              {0, 75, "n:2", 8000, 32},
              {50, 100, "n:0", 12000, 8}});
  }
  CheckRun(RunWith(OneNode(), StallJobs(), "fifo+first-fit", {CpuAlloc::kRequest}, &model),
           {{0, 100, "n:0", 6000, 8},
            {0, 100, "n:1", 6000, 8},
            {0, 100, "n:2", 6000, 8},
            {0, 100, "n:3", 6000, 8}});
  CheckRun(RunWith(OneNode(), StallJobs(), "fifo+first-fit", {CpuAlloc::kProportional}, &model),
           {{0, 75, "n:0", 8000, 32},
            {0, 75, "n:1", 8000, 32},
            {0, 75, "n:2", 8000, 32},
            {0, 75, "n:3", 8000, 32}});
  // One inner pass per engine pass: j3 cannot fall back in the pass that
  // took its ideal, so it waits; at 50 s 24 cores are free and both j3's and
  // j4's ideals fit -> both start with 12000 (50..100).
  CheckRun(RunWith(OneNode(), StallJobs(), "fifo+first-fit", {CpuAlloc::kMeasured, 1.1, 1}, &model),
           {{0, 50, "n:0", 12000, 8},
            {0, 50, "n:1", 12000, 8},
            {50, 100, "n:0", 12000, 8},
            {50, 100, "n:1", 12000, 8}});
}

TEST(CoResourceRun, RequestModeIsTheInnerSchedulerItself) {
  auto base = BuiltinPolicies().Make("best-fit");
  ASSERT_TRUE(base.ok());
  Scheduler* raw = base.value().get();
  auto same = MakeCoResource(std::move(base).value(), {CpuAlloc::kRequest});
  EXPECT_EQ(same.get(), raw);
}

// Every queue policy (batch schedulers with reservations and preemption
// included) runs under proportional and measured, and every grant the engine
// records is one of the job's two shapes. Jobs: a fixed mix of 1..8-GPU tasks,
// gangs of 2, CPU-only jobs, CPU input stalls, measured CPU use and priorities.
TEST(CoResourceRun, EveryQueuePolicyStartsJobsWithTheirShapes) {
  ClusterSpec cluster;
  cluster.name = "mix";
  cluster.models = {{"G", 16 * kGiB, 1.0}};
  cluster.groups = {{"g", 3, "G", 8, 32000, 256 * kGiB, 0}, {"c", 1, "", 0, 16000, 64 * kGiB, 0}};
  Workload w;
  for (int i = 0; i < 60; ++i) {
    Job j;
    j.name = "j" + std::to_string(i);
    j.submit = Seconds(i * 7);
    j.tasks = i % 11 == 0 ? 2 : 1;
    j.task.gpus = i % 9 == 4 ? 0 : int32_t{1} << (i % 4);
    j.task.cpu_milli = 1000 + (i * 2300) % 15000;
    j.task.mem_bytes = (1 + i % 5) * 8 * kGiB;
    j.priority = i % 3;
    j.tenant = w.InternTenant(i % 2 ? "a" : "b");
    j.util = 0.3f + 0.1f * static_cast<float>(i % 5);
    j.util_known = true;
    if (i % 3 == 0) j.stalls.input_cpu = 0.1f + 0.05f * static_cast<float>(i % 4);
    if (i % 3 == 1) j.host_cpu_used_milli = 500 + (i * 700) % 6000;
    j.runtime = Seconds(40 + (i * 37) % 400);
    w.jobs.push_back(j);
  }
  w.Finalize();
  auto built = ClusterState::Build(cluster);
  ASSERT_TRUE(built.ok());
  const StallProgress model(Composition::kOverlapped, 0.0);
  const PolicyRegistry reg = BuiltinPolicies();
  int queues = 0;
  int64_t preemptions = 0, fair_starts = 0, ideal_starts = 0;
  for (const PolicyInfo& info : reg.List()) {
    if (info.kind != "queue" || info.name == "as-recorded") continue;  // no recorded starts here
    ++queues;
    for (CpuAlloc mode : {CpuAlloc::kProportional, CpuAlloc::kMeasured}) {
      SCOPED_TRACE(info.name + " " + CpuAllocName(mode));
      const ShapedDemands shapes = ShapeDemands(w, built.value(), {mode});
      auto base = reg.Make(info.name + "+best-fit");
      ASSERT_TRUE(base.ok()) << base.status().message();
      Probe probe(MakeCoResource(std::move(base).value(), {mode}));
      SimConfig cfg;
      cfg.progress = &model;
      cfg.restart_cost = Seconds(5);
      auto r = Simulate(cluster, w, probe, cfg);
      ASSERT_TRUE(r.ok()) << r.status().message();
      EXPECT_EQ(r.value().summary.finished, 60);
      for (const auto& [j, g] : probe.seen)
        EXPECT_TRUE(g == shapes.first[j] || g == shapes.second[j]) << w.jobs[j].name;
      for (const JobRecord& rec : r.value().jobs) preemptions += rec.preemptions;
      if (mode == CpuAlloc::kMeasured)
        for (const auto& [j, g] : probe.granted)
          if (!(shapes.first[j] == shapes.second[j]))
            ++(g == shapes.first[j] ? ideal_starts : fair_starts);
    }
  }
  EXPECT_GE(queues, 9);
  // The mix exercises preemption and both of measured's shapes.
  EXPECT_GT(preemptions, 0);
  EXPECT_GT(ideal_starts, 0);
  EXPECT_GT(fair_starts, 0);
}

// ---------------------------------------------------------------------------
// GPU reservation

// g: 4 GPUs, 16 cores, 64 GiB (node 0); c: no GPUs, 16 cores, 64 GiB (node 1).
ClusterSpec GpuAndCpuNode() {
  ClusterSpec s;
  s.name = "gc";
  s.models = {{"G", 16 * kGiB, 1.0}};
  s.groups = {{"g", 1, "G", 4, 16000, 64 * kGiB, 0}, {"c", 1, "", 0, 16000, 64 * kGiB, 0}};
  return s;
}

struct ReserveRow {
  const char* what;
  int64_t reserve_cpu, reserve_mem_gib;  // per whole-free GPU
  int64_t busy_c_cpu;                    // CPU already held on c by a CPU-only task
  bool two_gpus_busy;                    // a 2-GPU task holding 4 cores already runs on g
  int gpus;                              // the task to place
  int64_t cpu, mem_gib;
  int64_t expect;  // node index, -1 = no placement now
};

const ReserveRow kReserveRows[] = {
    // 12 cores without reservation: g first (first fit; best fit: both
    // leave 250 permille, tie -> lowest index), leaving g 4 cores.
    {"no reservation", 0, 0, 0, false, 0, 12000, 4, 0},
    // 2 cores x 4 whole-free GPUs = 8 held on g: 8 < 12 -> c.
    {"reserved, room elsewhere", 2000, 0, 0, false, 0, 12000, 4, 1},
    // c has 6 cores left: nowhere -> the task waits.
    {"reserved, no room elsewhere", 2000, 0, 10000, false, 0, 12000, 4, -1},
    {"no reservation, c busy", 0, 0, 10000, false, 0, 12000, 4, 0},
    // g: 12 cores free, 2 whole-free GPUs -> 4 held -> 8 for CPU-only work.
    {"partly used node, fits", 2000, 0, 10000, true, 0, 8000, 4, 0},
    {"partly used node, too big", 2000, 0, 10000, true, 0, 9000, 4, -1},
    // GPU tasks ignore the reservation and may use reserved cores.
    {"GPU task uses reserved CPU", 2000, 0, 0, false, 1, 14000, 4, 0},
    // Memory: 12 GiB x 4 = 48 held on g -> 16 GiB left < 20 -> c.
    {"memory reserved", 0, 12, 0, false, 0, 2000, 20, 1},
    // Reservation capped at what is free: 2 whole-free GPUs x 8 cores = 16
    // > 12 free -> all 12 held -> a CPU-only task of 1 core goes to c.
    {"capped at free", 8000, 0, 0, true, 0, 1000, 1, 1},
};

TEST(GpuReservation, CpuOnlyTasksKeepOffTheCoresIdleGpusNeed) {
  for (const char* inner : {"first-fit", "best-fit"}) {
    for (const ReserveRow& r : kReserveRows) {
      SCOPED_TRACE(std::string(inner) + ": " + r.what);
      auto built = ClusterState::Build(GpuAndCpuNode());
      ASSERT_TRUE(built.ok());
      ClusterState c = std::move(built).value();
      if (r.busy_c_cpu > 0) {
        TaskDemand d;
        d.gpus = 0;
        d.cpu_milli = r.busy_c_cpu;
        ASSERT_TRUE(c.Allocate({1, 0}, d).ok());
      }
      if (r.two_gpus_busy) {
        TaskDemand d;
        d.gpus = 2;
        d.cpu_milli = 4000;
        d.mem_bytes = 4 * kGiB;
        ASSERT_TRUE(c.Allocate({0, 0b11}, d).ok());
      }
      auto p = BuiltinPolicies().MakePlacement(inner);
      ASSERT_TRUE(p.ok());
      auto policy =
          MakeGpuReservation(std::move(p).value(), r.reserve_cpu, r.reserve_mem_gib * kGiB);
      Job job;
      job.name = "t";
      job.task.gpus = r.gpus;
      job.task.cpu_milli = r.cpu;
      job.task.mem_bytes = r.mem_gib * kGiB;
      const ClusterState before = c;
      auto placed = policy->Place(job, kAnyModel, c);
      if (r.expect < 0) {
        EXPECT_FALSE(placed.has_value());
      } else {
        ASSERT_TRUE(placed.has_value());
        EXPECT_EQ((*placed)[0].node, static_cast<NodeIndex>(r.expect));
      }
      // The state is left as found.
      for (NodeIndex n = 0; n < c.num_nodes(); ++n) {
        EXPECT_EQ(c.free_cpu(n), before.free_cpu(n));
        EXPECT_EQ(c.free_mem(n), before.free_mem(n));
        EXPECT_EQ(c.free_whole_gpus(n), before.free_whole_gpus(n));
        EXPECT_EQ(c.tasks_on(n), before.tasks_on(n));
      }
      EXPECT_EQ(c.allocated_cpu(), before.allocated_cpu());
      EXPECT_EQ(c.allocated_mem(), before.allocated_mem());
    }
  }
}

// The same through a run, with the registry decorated (every name form).
// A (0 s): CPU-only, 12 cores, 100 s. B (1 s): 4 GPUs, 8 cores, 10 s.
// fifo + first-fit: A -> g (4 cores left), B waits for A: 100..110.
// with 2 cores per GPU reserved: A -> c, B -> g at 1..11.
TEST(GpuReservation, RunStartsTheGpuJobAtOnce) {
  Workload w;
  Job a;
  a.name = "A";
  a.task.gpus = 0;
  a.task.cpu_milli = 12000;
  a.task.mem_bytes = 4 * kGiB;
  a.runtime = Seconds(100);
  Job b = a;
  b.name = "B";
  b.submit = Seconds(1);
  b.task.gpus = 4;
  b.task.cpu_milli = 8000;
  b.runtime = Seconds(10);
  w.jobs = {a, b};
  w.Finalize();
  auto decorated = DecoratePlacements(BuiltinPolicies(), [](std::unique_ptr<PlacementPolicy> p) {
    return MakeGpuReservation(std::move(p), 2000, 0);
  });
  ASSERT_TRUE(decorated.ok()) << decorated.status().message();
  struct Case {
    const PolicyRegistry* reg;
    int64_t a_start, b_start;
    const char* a_node;
  };
  const PolicyRegistry plain = BuiltinPolicies();
  for (const Case& k : {Case{&plain, 0, 100, "g:"}, Case{&decorated.value(), 0, 1, "c:"}}) {
    auto s = k.reg->Make("first-fit");
    ASSERT_TRUE(s.ok());
    auto r = Simulate(GpuAndCpuNode(), w, *s.value(), SimConfig{});
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_EQ(r.value().jobs[0].start, Seconds(k.a_start));
    EXPECT_EQ(r.value().jobs[0].placement, k.a_node);
    EXPECT_EQ(r.value().jobs[1].start, Seconds(k.b_start));
    EXPECT_EQ(r.value().jobs[1].placement, "g:0,1,2,3");
  }
  // Every name form builds the decorated placement.
  for (const char* name : {"best-fit", "fifo-skip+worst-fit", "as-recorded",
                           "easy-backfill+first-fit", "random", "tight"}) {
    SCOPED_TRACE(name);
    PolicyRegistry reg = BuiltinPolicies();
    ASSERT_TRUE(LoadProfilesFromString("profiles:\n"
                                       "  - name: tight\n"
                                       "    queue: fifo-skip\n"
                                       "    filters: [resources-fit]\n"
                                       "    scores:\n"
                                       "      - {plugin: gpu-least-leftover, weight: 1}\n",
                                       "inline", &reg)
                    .ok());
    auto deco = DecoratePlacements(reg, [](std::unique_ptr<PlacementPolicy> p) {
      return MakeGpuReservation(std::move(p), 2000, kGiB);
    });
    ASSERT_TRUE(deco.ok()) << deco.status().message();
    auto plain_s = reg.Make(name);
    auto deco_s = deco.value().Make(name);
    ASSERT_TRUE(plain_s.ok() && deco_s.ok());
    EXPECT_EQ(deco_s.value()->placement_policy().name,
              plain_s.value()->placement_policy().name + "+gpu-reserve(2000m,1073741824B)");
    EXPECT_EQ(deco_s.value()->queue_policy().name, plain_s.value()->queue_policy().name);
    EXPECT_EQ(deco_s.value()->label(), plain_s.value()->label());
  }
}

// ---------------------------------------------------------------------------
// Errors

TEST(CoResourceErrors, ReservationLargerThanANodeNamesTheGroup) {
  ClusterSpec s;
  s.models = {{"G", 16 * kGiB, 1.0}};
  s.groups = {{"a", 2, "G", 8, 96000, 384 * kGiB, 0}, {"cpu", 1, "", 0, 8000, 16 * kGiB, 0}};
  struct Row {
    int64_t cpu, mem;
    const char* error;  // "" = valid
  };
  const Row rows[] = {
      // 12 cores x 8 = 96 cores: exactly the node (CPU-only groups ignored).
      {12000, 48 * kGiB, ""},
      {16000, 0,
       "reservation 16000 milli-CPU per GPU x 8 GPUs exceeds node group 'a' (96000 milli-CPU)"},
      {0, 64 * kGiB,
       "reservation 68719476736 bytes of memory (64 GiB) per GPU x 8 GPUs exceeds node group 'a' "
       "(412316860416 bytes, 384 GiB)"},
      {-1, 0, "reservation: CPU per GPU must be >= 0, got -1 milli-CPU"},
      {0, -1, "reservation: memory per GPU must be >= 0, got -1 bytes"},
  };
  for (const Row& r : rows) {
    const Status st = ValidateGpuReservation(s, {r.cpu, r.mem});
    EXPECT_EQ(st.message(), r.error);
    GpuReservationPlacement p(BuiltinPolicies().MakePlacement("first-fit").value(), {r.cpu, r.mem});
    EXPECT_EQ(p.Validate(s).message(), r.error);
  }
}

TEST(CoResourceErrors, ParsingAndOptions) {
  struct Row {
    const char* text;
    int64_t cpu, mem;
    bool ok;
  };
  for (const Row& r :
       {Row{"4", 4000, 0, true}, Row{"2.5,16", 2500, 16 * kGiB, true},
        Row{"0,0.5", 0, kGiB / 2, true}, Row{"x", 0, 0, false}, Row{"4,", 0, 0, false},
        Row{"-1", 0, 0, false}, Row{"", 0, 0, false}, Row{"4,16,2", 0, 0, false}}) {
    SCOPED_TRACE(r.text);
    auto g = ParseGpuReservation(r.text);
    ASSERT_EQ(g.ok(), r.ok);
    if (r.ok) {
      EXPECT_EQ(g.value().cpu_milli_per_gpu, r.cpu);
      EXPECT_EQ(g.value().mem_bytes_per_gpu, r.mem);
    } else {
      EXPECT_EQ(g.status().message(),
                std::string("expected CORES_PER_GPU[,MEM_GIB_PER_GPU] (numbers >= 0), got '") +
                    r.text + "'");
    }
  }
  EXPECT_EQ(ParseCpuAlloc("measured").value(), CpuAlloc::kMeasured);
  EXPECT_EQ(ParseCpuAlloc("greedy").status().message(),
            "unknown CPU allocation mode 'greedy' (known: request, proportional, measured)");
  // Bad options fail the run at Init, naming the field.
  for (const auto& [opt, error] :
       {std::pair{CoResourceOptions{CpuAlloc::kMeasured, 0.5},
                  "co-resource: headroom must be a finite number >= 1, got 0.500000"},
        std::pair{CoResourceOptions{CpuAlloc::kProportional, 1.1, 0},
                  "co-resource: max_rounds must be >= 1, got 0"},
        std::pair{CoResourceOptions{CpuAlloc::kRequest, -1},
                  "co-resource: headroom must be a finite number >= 1, got -1.000000"}}) {
    auto s = MakeCoResource(BuiltinPolicies().Make("best-fit").value(), opt);
    auto r = Simulate(OneNode(), StallJobs(), *s, SimConfig{});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().message(), error);
  }
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
