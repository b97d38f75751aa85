// The stall model in whole runs: co-runners sharing a node's storage slow
// each other until one leaves; idle GPU time is attributed by cause.
#include <gtest/gtest.h>

#include "engine/fake_scheduler.h"
#include "utilsim/engine/simulator.h"
#include "utilsim/engine/stall_model.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

constexpr size_t kStorage = static_cast<size_t>(IdleCause::kStorage);
constexpr size_t kFixed = static_cast<size_t>(IdleCause::kFixed);

TEST(StallRun, SharedStorageSlowsBothUntilOneLeaves) {
  // One node, 2 GPUs, storage 2 GB/s. a (100 s) and b (200 s), 1 GPU each,
  // u 0.5, storage stall 0.2, fixed 0.3, each reading 1.5 GB/s. Together
  // each gets 1 GB/s: s_sto 1.5, T = 0.3 + 0.5 + 0.3 = 1.1. a ends at 110 s;
  // b has then done 100 s of work and runs its other 100 s alone: 210 s.
  // a: alloc 110, useful 50, idle 60 = storage 30 + fixed 30.
  // b: storage 30 + 20, fixed 30 + 30; alloc 210, useful 100.
  ClusterSpec spec;
  spec.name = "s";
  spec.models = {{"G", 16LL << 30, 1.0}};
  spec.groups = {{"n", 1, "G", 2, 16000, 64LL << 30, 0}};
  spec.topology.storage_bytes_s = 2e9;
  Workload w;
  for (auto [name, runtime] : {std::pair<const char*, int64_t>{"a", 100}, {"b", 200}}) {
    Job j;
    j.name = name;
    j.runtime = Seconds(runtime);
    j.task.gpus = 1;
    j.util = 0.5f;
    j.util_known = true;
    j.stalls = {0, 0.2f, 0};
    j.storage_bytes_s = 1.5e9;
    w.jobs.push_back(j);
  }
  w.Finalize();
  const StallProgress model(Composition::kSerial, 0.1);
  SimConfig cfg;
  cfg.progress = &model;
  cfg.sample_interval = Seconds(50);
  testing::FakeFifo s;
  auto r = Simulate(spec, w, s, cfg);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const JobRecord& a = r.value().jobs[0];
  const JobRecord& b = r.value().jobs[1];
  EXPECT_NEAR(a.finish.seconds(), 110, 1e-5);
  EXPECT_NEAR(b.finish.seconds(), 210, 1e-5);
  EXPECT_NEAR(a.useful_gpu_s, 50, 1e-4);
  EXPECT_NEAR(a.idle_gpu_s[kStorage], 30, 1e-3);
  EXPECT_NEAR(a.idle_gpu_s[kFixed], 30, 1e-3);
  EXPECT_NEAR(b.idle_gpu_s[kStorage], 50, 1e-3);
  EXPECT_NEAR(b.idle_gpu_s[kFixed], 60, 1e-3);
  // Sample at 50 s: both running, each GPU 0.5 / 1.1 busy, 0.3 / 1.1 on
  // storage, 0.3 / 1.1 fixed.
  const Sample& s50 = r.value().samples[1];
  ASSERT_EQ(s50.time, Seconds(50));
  EXPECT_NEAR(s50.gpus_busy, 2 * 0.5 / 1.1, 1e-5);
  EXPECT_NEAR(s50.gpus_idle[kStorage], 2 * 0.3 / 1.1, 1e-5);
  EXPECT_NEAR(s50.gpus_idle[kFixed], 2 * 0.3 / 1.1, 1e-5);
  // At 150 s only b: 0.5 busy, 0.2 storage, 0.3 fixed.
  const Sample& s150 = r.value().samples[3];
  ASSERT_EQ(s150.time, Seconds(150));
  EXPECT_NEAR(s150.gpus_idle[kStorage], 0.2, 1e-5);
  EXPECT_NEAR(s150.gpus_idle[kFixed], 0.3, 1e-5);
  EXPECT_EQ(r.value().meta.progress_model, "stall-serial comm=0.1");
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
