// A small two-model cluster and a seeded random workload on it, for the
// property tests that run every scheduler (wait attribution, power budget):
// jobs of 1, 2 or 4 GPUs per task, some gangs of two tasks, random CPU and
// memory requests, 50 % busy, recorded starts up to 600 s after submission.
// Same shape and seed, same workload.
#pragma once

#include <cstdint>
#include <random>
#include <string>

#include "utilsim/engine/cluster_spec.h"
#include "utilsim/engine/job.h"

namespace utilsim::testutil {

// Three nodes of 4 GPUs of model A (speed 1) and two of 8 GPUs of model B
// (speed 1.5).
inline ClusterSpec MixedCluster() {
  ClusterSpec c;
  c.name = "mixed";
  c.models = {{"A", 0, 1.0}, {"B", 0, 1.5}};
  c.groups = {{"a", 3, "A", 4, 16000, 128LL << 30, 0}, {"b", 2, "B", 8, 32000, 256LL << 30, 0}};
  return c;
}

struct MixedWorkloadShape {
  uint64_t seed = 1;
  int jobs = 100;
  int64_t submit_span_s = 3000;   // submissions uniform in [0, span)
  int64_t runtime_span_s = 1200;  // runtimes 60 s + [0, span)
  int gang_one_in = 6;            // one job in N is a gang of two tasks
  int64_t cpu_cores_max = 8;      // per task, 1..max cores
  int64_t mem_gib_max = 20;       // per task, 1..max GiB
  int pin_model_a_one_in = 0;     // one job in N asks for model A; 0 = none
  int priorities = 0;             // priorities 0..N-1; 0 = all 0
  int tenants = 3;                // t0..t(N-1)
};

inline Workload RandomMixedWorkload(const MixedWorkloadShape& s) {
  std::mt19937_64 rng(s.seed);
  Workload w;
  for (int i = 0; i < s.jobs; ++i) {
    Job j;
    j.name = "j" + std::to_string(i);
    j.submit = Seconds(static_cast<int64_t>(rng() % static_cast<uint64_t>(s.submit_span_s)));
    j.runtime = Seconds(60 + static_cast<int64_t>(rng() % static_cast<uint64_t>(s.runtime_span_s)));
    j.walltime_limit = j.runtime;
    j.task.gpus = static_cast<int32_t>(1u << (rng() % 3));
    j.tasks = rng() % static_cast<uint64_t>(s.gang_one_in) == 0 ? 2 : 1;
    j.task.cpu_milli =
        1000 * static_cast<int64_t>(1 + rng() % static_cast<uint64_t>(s.cpu_cores_max));
    j.task.mem_bytes =
        (1LL << 30) * static_cast<int64_t>(1 + rng() % static_cast<uint64_t>(s.mem_gib_max));
    if (s.pin_model_a_one_in > 0 && rng() % static_cast<uint64_t>(s.pin_model_a_one_in) == 0)
      j.gpu_models = {"A"};
    j.util = 0.5f;
    if (s.priorities > 0)
      j.priority = static_cast<int32_t>(rng() % static_cast<uint64_t>(s.priorities));
    j.tenant = static_cast<uint32_t>(rng() % static_cast<uint64_t>(s.tenants));
    j.recorded_start = j.submit + Seconds(static_cast<int64_t>(rng() % 600));
    w.jobs.push_back(j);
  }
  for (int t = 0; t < s.tenants; ++t) w.tenants.push_back("t" + std::to_string(t));
  w.Finalize();
  return w;
}

}  // namespace utilsim::testutil
