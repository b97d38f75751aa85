// Random job mixes shared by the policy tests: gangs, fractional and CPU-only
// tasks, four tenants, priorities 0..3, on three nodes of 4 GPUs. The checks:
// every job finishes, no job beats its recorded run time, and a second run
// gives the same finish times (determinism).
#pragma once

#include <gtest/gtest.h>

#include <vector>

#include "utilsim/engine/rng.h"
#include "utilsim/engine/simulator.h"

namespace utilsim::mix {

inline Workload RandomJobs(uint32_t seed) {
  Rng rng(seed, 0, "random-mix");
  auto pick = [&](int lo, int hi) { return static_cast<int>(rng.UniformInt(lo, hi)); };
  Workload w;
  for (int i = 0; i < 300; ++i) {
    Job j;
    j.name = "j" + std::to_string(i);
    j.tenant = w.InternTenant("t" + std::to_string(pick(0, 3)));
    j.submit = Seconds(pick(0, 3000));
    j.priority = pick(0, 3);
    const int kind = pick(0, 9);
    if (kind == 0) {
      j.task.gpus = 0;
      j.task.cpu_milli = pick(1, 8) * 1000;
    } else if (kind == 1) {
      j.task.gpus = 1;
      j.task.gpu_milli = pick(1, 9) * 100;
    } else {
      j.task.gpus = pick(1, 4);
      j.tasks = pick(1, 2);
    }
    j.runtime = Seconds(pick(1, 2000));
    w.jobs.push_back(j);
  }
  w.Finalize();
  return w;
}

// Preemptions summed over every Finishes call of the test binary.
inline int64_t& Preemptions() {
  static int64_t n = 0;
  return n;
}

// Three nodes of 4 GPUs, 32 cores and 256 GiB: n-0, n-1, n-2.
inline ClusterSpec ThreeNodes() {
  ClusterSpec c;
  c.name = "three";
  c.models = {{"G", 0, 1.0}};
  c.groups = {{"n", 3, "G", 4, 32000, 256LL << 30, 0}};
  return c;
}

inline std::vector<int64_t> Finishes(Scheduler& s, const Workload& w) {
  const ClusterSpec c = ThreeNodes();
  SimConfig cfg;
  cfg.restart_cost = Seconds(7);
  auto r = Simulate(c, w, s, cfg);
  EXPECT_TRUE(r.ok()) << r.status().message();
  std::vector<int64_t> out;
  if (!r.ok()) return out;
  for (const auto& j : r.value().jobs) {
    EXPECT_EQ(j.outcome, JobOutcome::kFinished) << j.name;
    EXPECT_GE(j.finish, j.start + Micros(j.recorded_runtime)) << j.name;
    out.push_back(j.finish.us);
    Preemptions() += j.preemptions;
  }
  return out;
}

}  // namespace utilsim::mix
