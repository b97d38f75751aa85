// Benchmark of the decision API (policies/placer.h): single-job Place
// queries on a 10,000-GPU cluster (1,250 nodes x 8 GPUs, the core
// benchmark's shape) filled to about 70 % by running jobs of the benchmark
// workload's shapes. Prints one key=value line: median and p99 microseconds
// per query, and the decision count.
//
// Usage: bench_placer [--policy NAME] [--queries N]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "utilsim/policies/placer.h"
#include "utilsim/workloads/synthetic.h"

using namespace utilsim;

int main(int argc, char** argv) {
  std::string policy = "best-fit";
  size_t queries = 20000;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--policy") == 0) policy = argv[i + 1];
    if (std::strcmp(argv[i], "--queries") == 0) queries = std::strtoull(argv[i + 1], nullptr, 10);
  }
  SyntheticParams params = BenchParams();
  params.jobs = 200000;
  const Workload w = GenerateSynthetic(params, 1);
  const ClusterSpec cluster = SyntheticCluster(params);
  auto made = Placer::Create(cluster, policy, BuiltinPolicies(), 1, &w);
  if (!made.ok()) {
    std::fprintf(stderr, "bench_placer: %s\n", made.status().message().c_str());
    return 1;
  }
  Placer& p = *made.value();
  const double capacity = static_cast<double>(p.state().total_gpus()) * 1000.0;
  // Fill to ~70 % of the GPU share with the workload's jobs, in order.
  size_t next = 0;
  while (next < w.jobs.size() &&
         static_cast<double>(p.state().allocated_gpu_milli()) < 0.7 * capacity) {
    const Job& job = w.jobs[next++];
    if (auto where = p.Place(job)) (void)p.Started(job.name, job, *where);
  }
  std::vector<double> us;
  us.reserve(queries);
  int64_t placed = 0;
  for (size_t q = 0; q < queries; ++q) {
    const Job& job = w.jobs[(next + q) % w.jobs.size()];
    const auto t0 = std::chrono::steady_clock::now();
    const auto where = p.Place(job);
    const auto t1 = std::chrono::steady_clock::now();
    placed += where.has_value();
    us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
  }
  std::sort(us.begin(), us.end());
  const double median = us[us.size() / 2];
  const double p99 = us[std::min(us.size() - 1, us.size() * 99 / 100)];
  std::printf(
      "policy=%s gpus=%lld running=%zu allocated_pct=%.1f queries=%zu placeable=%lld "
      "median_us=%.2f p99_us=%.2f\n",
      policy.c_str(), static_cast<long long>(p.state().total_gpus()), p.running(),
      100.0 * static_cast<double>(p.state().allocated_gpu_milli()) / capacity, queries,
      static_cast<long long>(placed), median, p99);
  return 0;
}
