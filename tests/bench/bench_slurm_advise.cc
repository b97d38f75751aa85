// Benchmark of one Slurm advisor poll (docs/live-slurm.md) without the
// commands: squeue --json and sinfo --json text in the v0.0.38 shape for a
// cluster of N nodes x 8 GPUs (4 GPU types), filled by running jobs of 1, 2,
// 4 and 8 GPUs to about 85 % of its GPUs, with P pending jobs of the same
// shapes (time limits 1-24 h), as a large site's queue looks. Times parsing
// both documents, building the model (the Placer with every running job on
// its exact GPUs) and advising every pending job (the list schedule). Prints
// one key=value line.
//
// Usage: bench_slurm_advise [--nodes N] [--pending P] [--policy NAME] [--rounds R]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "utilsim/live/slurm_model.h"
#include "utilsim/live/slurm_objects.h"

using namespace utilsim;
using Clock = std::chrono::steady_clock;

namespace {

const char* const kTypes[] = {"a100", "h100", "v100", "l40s"};

// A deterministic generator (no <random>: the same text on every machine).
struct Lcg {
  uint64_t s = 42;
  uint32_t Next() {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<uint32_t>(s >> 33);
  }
};

std::string Nodes(int nodes) {
  std::string out =
      "{\"meta\":{\"plugin\":{\"type\":\"openapi/v0.0.38\"}},\"errors\":[],\"nodes\":[";
  for (int n = 0; n < nodes; ++n) {
    char buf[320];
    std::snprintf(buf, sizeof buf,
                  "%s{\"name\":\"n%05d\",\"cpus\":64,\"real_memory\":512000,\"gres\":\"gpu:%s:8\","
                  "\"state\":\"mixed\",\"partitions\":[\"gpu\"]}",
                  n ? "," : "", n, kTypes[n % 4]);
    out += buf;
  }
  return out + "]}";
}

std::string Jobs(int nodes, int pending, int64_t now) {
  Lcg rng;
  std::string out =
      "{\"meta\":{\"plugin\":{\"type\":\"openapi/v0.0.38\"}},\"errors\":[],\"jobs\":[";
  int id = 1;
  bool first = true;
  auto add = [&](const std::string& j) {
    out += (first ? "" : ",") + j;
    first = false;
  };
  const int sizes[] = {1, 2, 4, 8};
  // Running: fill each node with jobs up to 7 of 8 GPUs (about 85 %).
  for (int n = 0; n < nodes; ++n) {
    int used = 0;
    while (used < 7) {
      int g = sizes[rng.Next() % 4];
      if (used + g > 7) g = 7 - used;
      std::string idx = std::to_string(used) + (g > 1 ? "-" + std::to_string(used + g - 1) : "");
      char buf[700];
      std::snprintf(buf, sizeof buf,
                    "{\"job_id\":%d,\"job_state\":\"RUNNING\",\"partition\":\"gpu\",\"user_name\":"
                    "\"u%u\",\"cpus\":%d,\"nodes\":\"n%05d\",\"start_time\":%lld,\"end_time\":%lld,"
                    "\"time_limit\":%d,\"priority\":1000,\"tres_per_node\":\"gres:gpu:%s:%d\","
                    "\"job_resources\":{\"allocated_nodes\":[{\"nodename\":\"n%05d\","
                    "\"memory_allocated\":%d}]},\"gres_detail\":[\"gpu:%s:%d(IDX:%s)\"]}",
                    id++, rng.Next() % 200, 4 * g, n, static_cast<long long>(now - 600),
                    static_cast<long long>(now + 600 + rng.Next() % 86400), 1440, kTypes[n % 4], g,
                    n, 32000 * g, kTypes[n % 4], g, idx.c_str());
      add(buf);
      used += g;
    }
  }
  for (int p = 0; p < pending; ++p) {
    const int g = sizes[rng.Next() % 4];
    char buf[500];
    std::snprintf(buf, sizeof buf,
                  "{\"job_id\":%d,\"job_state\":\"PENDING\",\"state_reason\":\"Resources\","
                  "\"partition\":\"gpu\",\"user_name\":\"u%u\",\"cpus\":%d,\"memory_per_node\":%d,"
                  "\"priority\":%u,\"submit_time\":%lld,\"time_limit\":%u,"
                  "\"tres_per_node\":\"gres:gpu:%s%s%d\",\"node_count\":1}",
                  id++, rng.Next() % 200, 4 * g, 32000 * g, 100000 - p,
                  static_cast<long long>(now - p), 60 + rng.Next() % 1380,
                  p % 3 == 0 ? "" : kTypes[rng.Next() % 4], p % 3 == 0 ? "" : ":", g);
    add(buf);
  }
  return out + "]}";
}

double Ms(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

}  // namespace

int main(int argc, char** argv) {
  int nodes = 1000, pending = 2000, rounds = 3;
  std::string policy = "best-fit";
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--nodes") == 0) nodes = std::atoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--pending") == 0) pending = std::atoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--policy") == 0) policy = argv[i + 1];
    if (std::strcmp(argv[i], "--rounds") == 0) rounds = std::atoi(argv[i + 1]);
  }
  const int64_t now = 1800000000;
  const std::string nodes_text = Nodes(nodes), jobs_text = Jobs(nodes, pending, now);
  live::SlurmAdviceOptions o;
  o.policy = policy;
  o.max_jobs = pending;
  std::vector<double> parse, build, advise;
  size_t advised = 0, now_n = 0, running = 0;
  for (int r = 0; r < rounds; ++r) {
    const auto t0 = Clock::now();
    auto jobs = live::ParseSlurmJobs(jobs_text);
    auto ns = live::ParseSlurmNodes(nodes_text);
    const auto t1 = Clock::now();
    if (!jobs.ok() || !ns.ok()) {
      std::fprintf(stderr, "bench_slurm_advise: %s%s\n", jobs.status().message().c_str(),
                   ns.status().message().c_str());
      return 1;
    }
    auto m = live::SlurmModel::Build(ns.value(), jobs.value(), o);
    const auto t2 = Clock::now();
    if (!m.ok()) {
      std::fprintf(stderr, "bench_slurm_advise: %s\n", m.status().message().c_str());
      return 1;
    }
    const auto advice = m.value()->Advise(now);
    const auto t3 = Clock::now();
    parse.push_back(Ms(t0, t1));
    build.push_back(Ms(t1, t2));
    advise.push_back(Ms(t2, t3));
    advised = 0;
    now_n = 0;
    for (const auto& a : advice) {
      advised += !a.nodes.empty();
      now_n += a.now;
    }
    running = m.value()->modelled();
  }
  auto med = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  std::printf(
      "nodes=%d gpus=%d running=%zu pending=%d advised=%zu now=%zu json_mib=%.1f parse_ms=%.0f "
      "model_ms=%.0f advise_ms=%.0f poll_ms=%.0f\n",
      nodes, nodes * 8, running, pending, advised, now_n,
      static_cast<double>(nodes_text.size() + jobs_text.size()) / (1 << 20), med(parse), med(build),
      med(advise), med(parse) + med(build) + med(advise));
  return 0;
}
