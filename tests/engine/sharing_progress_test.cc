// SharedGpuProgress: jobs sharing a GPU slow down by the interference model;
// a job alone on its GPU runs exactly at the inner model's rate. Parameters
// alpha 0.1, beta 0.3, gamma 0.3; solo profile u = util x milli / 1000,
// m = 0.5 u (sharing_progress.h).
#include "utilsim/engine/sharing_progress.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "engine/fake_scheduler.h"
#include "utilsim/engine/simulator.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

constexpr size_t kSharing = static_cast<size_t>(IdleCause::kSharing);
constexpr size_t kUnattributed = static_cast<size_t>(IdleCause::kUnattributed);

class View final : public RunView {
 public:
  explicit View(const ClusterState& c) : c_(c) {}
  JobIndex Add(int32_t milli, float util, Placement p) {
    Job j;
    j.name = "j" + std::to_string(w_.jobs.size());
    j.runtime = Seconds(100);
    j.task.gpus = 1;
    j.task.gpu_milli = milli;
    j.util = util;
    const JobIndex k = static_cast<JobIndex>(w_.jobs.size());
    w_.jobs.push_back(j);
    p_.push_back(p);
    for (const auto& tp : p) on_[tp.node].push_back(k);
    return k;
  }
  const Workload& workload() const override { return w_; }
  const ClusterState& state() const override { return c_; }
  const Placement& placement_of(JobIndex j) const override { return p_[j]; }
  const TaskDemand& granted(JobIndex j) const override { return w_.jobs[j].task; }
  const std::vector<JobIndex>& jobs_on(NodeIndex n) const override {
    auto it = on_.find(n);
    return it == on_.end() ? none_ : it->second;
  }

 private:
  const ClusterState& c_;
  Workload w_;
  std::vector<Placement> p_;
  std::map<NodeIndex, std::vector<JobIndex>> on_;
  const std::vector<JobIndex> none_;
};

ClusterSpec OneNode(int gpus) {
  ClusterSpec spec;
  spec.name = "s";
  spec.models = {{"G", 16LL << 30, 1.0}};
  spec.groups = {{"n", 1, "G", gpus, 16000, 64LL << 30, 0}};
  return spec;
}

InterferenceParams Params() { return {0.1, 0.3, 0.3, 1.0}; }

TEST(SharedGpuProgress, SoloProfile) {
  Job j;
  j.task.gpus = 1;
  j.task.gpu_milli = 400;
  j.util = 0.5f;
  EXPECT_DOUBLE_EQ(SoloGpuUtil(j), 0.2);
  EXPECT_DOUBLE_EQ(CoRunnerOf(j, {}).mem_util, 0.1);
  j.task.gpus = 0;
  EXPECT_EQ(SoloGpuUtil(j), 0);
}

TEST(SharedGpuProgress, TwoHalfGpuJobsOnOneGpu) {
  // u 0.5 each, m 0.25, U = 1: T = 1 + 0.1 x 0.5 x 0.5 + 0.3 x 0.5 x 0.25
  // = 1.0625 for both. Inner (whole-gpu, one GPU, speed 1): rate 1, util 1
  // so no idle; all idle is sharing: 1 - 1/1.0625.
  auto c = ClusterState::Build(OneNode(2));
  ASSERT_TRUE(c.ok());
  View v(c.value());
  const JobIndex a = v.Add(500, 1.0f, {{0, 1}});
  const JobIndex b = v.Add(500, 1.0f, {{0, 1}});
  const WholeGpuProgress inner;
  const SharedGpuProgress m(&inner, {}, Params());
  for (JobIndex j : {a, b}) {
    const Progress p = m.Evaluate(j, v);
    EXPECT_NEAR(p.rate, 1 / 1.0625, 1e-12);
    EXPECT_NEAR(p.idle[kSharing], 1 - 1 / 1.0625, 1e-12);
    EXPECT_NEAR(p.idle[kUnattributed], 0, 1e-12);
  }
  std::vector<Progress> many;
  m.EvaluateMany({a, b}, v, &many);
  ASSERT_EQ(many.size(), 2u);
  EXPECT_EQ(many[1].rate, m.Evaluate(b, v).rate);
  EXPECT_EQ(m.name(), "whole-gpu comm=0.1 sharing=time-slice");
}

TEST(SharedGpuProgress, AloneIsTheInnerModelExactly) {
  // One job per GPU (GPU 0 and GPU 1 of one node): nothing shared.
  auto c = ClusterState::Build(OneNode(2));
  ASSERT_TRUE(c.ok());
  View v(c.value());
  const JobIndex a = v.Add(500, 0.6f, {{0, 1}});
  const JobIndex b = v.Add(300, 0.9f, {{0, 2}});
  const WholeGpuProgress inner;
  for (GpuSharing mode : {GpuSharing::kTimeSlice, GpuSharing::kMps}) {
    SharingConfig cfg;
    cfg.mode = mode;
    cfg.mps_default_thread_fraction = 0.5;
    const SharedGpuProgress m(&inner, cfg, Params());
    for (JobIndex j : {a, b}) {
      const Progress p = m.Evaluate(j, v);
      const Progress q = inner.Evaluate(j, v);
      EXPECT_EQ(p.rate, q.rate);
      EXPECT_EQ(p.idle, q.idle);
      EXPECT_EQ(m.SharingSpeed(j, v), 1.0);
    }
  }
}

TEST(SharedGpuProgress, ThreeCoRunners) {
  // Three 0.3-GPU jobs, util 1: u 0.3, m 0.15, U = 0.9.
  // T = 1 + 0.1 x 0.3 x 0.6 + 0.3 x 0.3 x 0.3 = 1.045.
  // A fourth job on GPU 1 is alone.
  auto c = ClusterState::Build(OneNode(2));
  ASSERT_TRUE(c.ok());
  View v(c.value());
  for (int i = 0; i < 3; ++i) v.Add(300, 1.0f, {{0, 1}});
  const JobIndex d = v.Add(300, 1.0f, {{0, 2}});
  const WholeGpuProgress inner;
  const SharedGpuProgress m(&inner, {}, Params());
  for (JobIndex j = 0; j < 3; ++j) EXPECT_NEAR(m.Evaluate(j, v).rate, 1 / 1.045, 1e-12);
  EXPECT_EQ(m.Evaluate(d, v).rate, 1.0);
  // Lower utilization, less interference: util 0.5 at 0.3 GPU -> u 0.15.
  View w(c.value());
  const JobIndex x = w.Add(300, 0.5f, {{0, 1}});
  w.Add(300, 1.0f, {{0, 1}});
  // x: u 0.15, others u 0.3 (m 0.15): T = 1 + 0.1 x 0.15 x 0.3 + 0.3 x 0.15 x 0.15.
  // Inner: util 0.5, rate 1, unattributed 0.5 -> scaled by s.
  const double t = 1 + 0.1 * 0.15 * 0.3 + 0.3 * 0.15 * 0.15;
  const Progress p = m.Evaluate(x, w);
  EXPECT_NEAR(p.rate, 1 / t, 1e-12);
  EXPECT_NEAR(p.idle[kUnattributed], 0.5 / t, 1e-12);
  EXPECT_NEAR(p.idle[kSharing], 1 - 1 / t, 1e-12);
}

TEST(SharedGpuProgress, MpsVersusTimeSlice) {
  // Two 0.5-GPU jobs, util 1 (u 0.5, m 0.25).
  // MPS, daemon limit 50 %: p = 0.5 each, sum 1 -> o = 0:
  //   T = 1 + 0.5 (1/0.5 - 1) + 0.3 x 0.5 x 0.25 = 1.5375.
  // MPS unlimited: p = 1, o = 1: same as time-slicing, 1.0625.
  auto c = ClusterState::Build(OneNode(1));
  ASSERT_TRUE(c.ok());
  View v(c.value());
  const JobIndex a = v.Add(500, 1.0f, {{0, 1}});
  v.Add(500, 1.0f, {{0, 1}});
  const WholeGpuProgress inner;
  SharingConfig mps;
  mps.mode = GpuSharing::kMps;
  mps.mps_default_thread_fraction = 0.5;
  const SharedGpuProgress limited(&inner, mps, Params());
  EXPECT_NEAR(limited.Evaluate(a, v).rate, 1 / 1.5375, 1e-12);
  EXPECT_EQ(limited.name(), "whole-gpu comm=0.1 sharing=mps threads=50%");
  mps.mps_default_thread_fraction = 1.0;
  const SharedGpuProgress unlimited(&inner, mps, Params());
  EXPECT_NEAR(unlimited.Evaluate(a, v).rate, 1 / 1.0625, 1e-12);
}

TEST(SharedGpuProgress, InteractsOnlyWithFractionalJobs) {
  auto c = ClusterState::Build(OneNode(2));
  ASSERT_TRUE(c.ok());
  const WholeGpuProgress inner;
  const SharedGpuProgress m(&inner, {}, Params());
  Workload w;
  Job j;
  j.task.gpus = 1;
  w.jobs.push_back(j);
  EXPECT_FALSE(m.Interacts(w, c.value()));
  w.jobs[0].task.gpu_milli = 500;
  EXPECT_TRUE(m.Interacts(w, c.value()));
}

TEST(SharedGpuProgress, WholeRunTwoHalfGpuJobs) {
  // One GPU; a and b (100 s, 0.5 GPU, util 1) start together and share it
  // at 1/1.0625 each: both finish at 106.25 s. Each: alloc 0.5 x 106.25 =
  // 53.125 GPU-s, useful 50, idle 3.125 all sharing. A third job c (0.5
  // GPU, 50 s) arrives at 200 s alone: exactly 50 s.
  Workload w;
  for (auto [name, runtime, submit] :
       {std::tuple<const char*, int, int>{"a", 100, 0}, {"b", 100, 0}, {"c", 50, 200}}) {
    Job j;
    j.name = name;
    j.runtime = Seconds(runtime);
    j.submit = Seconds(submit);
    j.task.gpus = 1;
    j.task.gpu_milli = 500;
    j.util = 1.0f;
    w.jobs.push_back(j);
  }
  w.Finalize();
  const WholeGpuProgress inner;
  const SharedGpuProgress m(&inner, {}, Params());
  SimConfig cfg;
  cfg.progress = &m;
  cfg.sample_interval = Seconds(50);
  testing::FakeFifo s;
  auto r = Simulate(OneNode(1), w, s, cfg);
  ASSERT_TRUE(r.ok()) << r.status().message();
  for (int i = 0; i < 2; ++i) {
    const JobRecord& rec = r.value().jobs[i];
    EXPECT_NEAR(rec.finish.seconds(), 106.25, 1e-5);
    EXPECT_NEAR(rec.alloc_gpu_s, 53.125, 1e-5);
    EXPECT_NEAR(rec.useful_gpu_s, 50, 1e-5);
    EXPECT_NEAR(rec.idle_gpu_s[kSharing], 3.125, 1e-4);
  }
  EXPECT_NEAR(r.value().jobs[2].finish.seconds(), 250, 1e-6);
  EXPECT_EQ(r.value().jobs[2].idle_gpu_s[kSharing], 0);
  // Sample at 50 s: 1 GPU allocated, busy 2 x 0.5 / 1.0625.
  const Sample& s50 = r.value().samples[1];
  ASSERT_EQ(s50.time, Seconds(50));
  EXPECT_NEAR(s50.gpus_busy, 1 / 1.0625, 1e-5);
  EXPECT_NEAR(s50.gpus_idle[kSharing], 1 - 1 / 1.0625, 1e-5);
  EXPECT_EQ(r.value().meta.progress_model, "whole-gpu comm=0.1 sharing=time-slice");
}

TEST(FragmentationHook, FillsSamplesAndTheWindowMean) {
  // One GPU; a 0.5-GPU job runs 0..100 s. Samples at 0 and 50 s fall in the
  // window [0, 100) with 500 milli free; a hook saying 250 milli gives 50 %.
  Workload w;
  Job j;
  j.name = "a";
  j.runtime = Seconds(100);
  j.task.gpus = 1;
  j.task.gpu_milli = 500;
  w.jobs.push_back(j);
  w.Finalize();
  SimConfig cfg;
  cfg.sample_interval = Seconds(50);
  testing::FakeFifo s1;
  auto none = Simulate(OneNode(1), w, s1, cfg);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(std::isnan(none.value().samples[0].frag_gpu_milli));
  EXPECT_TRUE(std::isnan(none.value().summary.frag_mean_pct));
  int calls = 0;
  cfg.fragmentation = [&calls](const ClusterState& c) {
    ++calls;
    return c.allocated_gpu_milli() > 0 ? 250.0 : 0.0;
  };
  testing::FakeFifo s2;
  auto r = Simulate(OneNode(1), w, s2, cfg);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(calls, static_cast<int>(r.value().samples.size()));
  EXPECT_EQ(r.value().samples[1].frag_gpu_milli, 250.0);
  EXPECT_DOUBLE_EQ(r.value().summary.frag_mean_pct, 50.0);
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
