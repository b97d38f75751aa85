// Simulates three jobs on a two-node cluster under the built-in "best-fit"
// policy (strict FIFO queue, best-fit placement) and prints where each job
// ran, the GPU allocation and the effective utilization. Built by
// tests/install/install_test.sh against an installed utilsim, which checks
// the numbers below.
//
// Cluster: node big with 8 GPUs, node small with 4 (CPU and memory never bind).
// Jobs (submit, GPUs, runtime, busy fraction of each allocated GPU):
//   a  0 s, 4 GPUs, 100 s, 0.5   b 10 s, 8 GPUs, 100 s, 1.0
//   c 20 s, 4 GPUs,  30 s, 1.0
// best-fit puts a on small (leaves 0 free GPUs; big would leave 4), so b finds
// big empty at 10 s. c waits for a: small frees at 100 s, c runs 100..130.
// (first-fit would put a on big, and b would wait until 100 s.)
// Over the whole run, 0..130 s on 12 GPUs = 1560 GPU-s:
//   allocated 4*100 + 8*100 + 4*30        = 1320 GPU-s -> 84.6 %
//   busy      4*100*0.5 + 8*100 + 4*30    = 1120 GPU-s -> 71.8 %
//
// Then the same jobs under a placement policy of its own, "most-free" v3
// (the node with the most whole free GPUs; ties to the lower index),
// registered in the registry and named as fifo+most-free: a goes to big (8
// free against 4), so b (8 GPUs) waits until a ends at 100 s and runs on big
// 100..200; c queues behind b (fifo) and runs on small 100..130. The results
// record the policy's name and version as its id() gives them.
#include <cstdint>
#include <cstdio>
#include <memory>

#include "utilsim/engine/simulator.h"
#include "utilsim/policies/placement_policy.h"
#include "utilsim/policies/registry.h"

namespace {

// Spreads: each task on the feasible node with the most whole free GPUs.
class MostFree final : public utilsim::PlacementPolicy {
 public:
  utilsim::PolicyId id() const override { return {"most-free", "3"}; }
  std::optional<utilsim::Placement> Place(const utilsim::Job& job, utilsim::ModelMask mask,
                                          utilsim::ClusterState& c) override {
    return utilsim::PlaceTasks(
        job, mask, c,
        [](const utilsim::TaskDemand& d, utilsim::ModelMask m, const utilsim::ClusterState& s) {
          int64_t best = -1;
          for (utilsim::NodeIndex n = 0; n < s.num_nodes(); ++n)
            if (s.CanHost(n, d, m) && (best < 0 || s.free_whole_gpus(n) > s.free_whole_gpus(best)))
              best = static_cast<int64_t>(n);
          return best;
        });
  }
};

utilsim::Job MakeJob(const char* name, int64_t submit_s, int gpus, int64_t runtime_s, float util) {
  utilsim::Job j;
  j.name = name;
  j.submit = utilsim::Seconds(submit_s);
  j.task.gpus = gpus;
  j.task.cpu_milli = 1000;       // 1 core
  j.task.mem_bytes = 1LL << 30;  // 1 GiB
  j.runtime = utilsim::Seconds(runtime_s);
  j.util = util;
  j.util_known = true;
  return j;
}

}  // namespace

// Runs `policy` from `reg` and prints each job and the two figures.
int Report(const utilsim::PolicyRegistry& reg, const char* policy,
           const utilsim::ClusterSpec& cluster, const utilsim::Workload& w) {
  auto scheduler = reg.Make(policy);
  if (!scheduler.ok()) {
    std::fprintf(stderr, "%s\n", scheduler.status().message().c_str());
    return 1;
  }
  utilsim::SimConfig config;
  config.window = utilsim::Window::kFull;  // measure first submit .. last finish
  auto result = utilsim::Simulate(cluster, w, *scheduler.value(), config);
  if (!result.ok()) {
    std::fprintf(stderr, "%s\n", result.status().message().c_str());
    return 1;
  }
  const utilsim::RunMeta& m = result.value().meta;
  std::printf("%s (queue %s v%s, placement %s v%s):\n", m.label.c_str(), m.queue_policy.c_str(),
              m.queue_policy_version.c_str(), m.placement_policy.c_str(),
              m.placement_policy_version.c_str());
  for (const utilsim::JobRecord& job : result.value().jobs)
    std::printf("%s: start %.0f s, finish %.0f s, on %s\n", job.name.c_str(), job.start.seconds(),
                job.finish.seconds(), job.placement.c_str());
  const utilsim::Summary& s = result.value().summary;
  std::printf("allocation: %.1f %%\n", s.allocation_pct);
  std::printf("effective utilization: %.1f %%\n", s.effective_util_pct);
  return 0;
}

int main() {
  utilsim::ClusterSpec cluster;
  cluster.name = "two-nodes";
  cluster.models = {{"G", 32LL << 30, 1.0}};  // one GPU model: 32 GiB, reference speed
  // Node groups: name, count, GPU model, GPUs, CPU (milli-cores), memory. A
  // group of one node names it; a larger group's nodes are <group>-<k>.
  cluster.groups = {{"big", 1, "G", 8, 64000, 512LL << 30},
                    {"small", 1, "G", 4, 64000, 512LL << 30}};

  utilsim::Workload w;
  w.jobs = {MakeJob("a", 0, 4, 100, 0.5f), MakeJob("b", 10, 8, 100, 1.0f),
            MakeJob("c", 20, 4, 30, 1.0f)};
  w.Finalize();  // sorts by submit time; Simulate requires it

  utilsim::PolicyRegistry reg = utilsim::BuiltinPolicies();
  if (Report(reg, "best-fit", cluster, w) != 0) return 1;
  // A policy of one's own: registered, then named like a built-in one.
  utilsim::Status added =
      reg.AddPlacement({"most-free", "", "", "the node with the most whole free GPUs"},
                       [] { return std::make_unique<MostFree>(); });
  if (!added.ok()) {
    std::fprintf(stderr, "%s\n", added.message().c_str());
    return 1;
  }
  return Report(reg, "fifo+most-free", cluster, w);
}
