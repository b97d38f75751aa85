#include "utilsim/workloads/synthetic.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

#include "synthetic_parts.h"
#include "utilsim/engine/huge_pages.h"
#include "utilsim/engine/rng.h"
#include "utilsim/engine/units.h"
#include "utilsim/workloads/published_stats.h"
#include "utilsim/workloads/quantile_table.h"

namespace utilsim {
namespace {

// Gang shape of one drawable job size.
struct Shape {
  int32_t tasks;
  int32_t gpus;  // per task
};

// Everything derived from the parameters once per call.
struct Model {
  std::vector<Shape> shapes;
  std::vector<double> shape_weights;
  std::vector<uint32_t> tenant_ids;
  std::vector<double> tenant_weights;
  double hourly[24];  // arrival-rate multiplier per hour of day, mean 1
  double hourly_max = 1;
  double candidate_gap_us = 0;  // mean gap of the thinning's candidate stream
  QuantileSampler runtime_s{published::PhillyRuntimeSeconds()};
  QuantileSampler util_pct{published::PhillyGpuUtilPct()};
  QuantileSampler cpu_milli_per_gpu{published::OpenbCpuMilliPerGpu()};
  QuantileSampler mem_mib_per_gpu{published::OpenbMemMibPerGpu()};
};

Model BuildModel(const SyntheticParams& p, Workload* w) {
  Model m;
  const int32_t gpn = p.gpus_per_node;
  double mean_gpus = 0, total_weight = 0;
  for (const auto& s : published::PhillyGpuCountShares()) {
    if (s.gpus > p.max_job_gpus) continue;
    // Up to a node: one task; beyond: whole nodes, rounded up.
    Shape shape = s.gpus <= gpn ? Shape{1, s.gpus} : Shape{(s.gpus + gpn - 1) / gpn, gpn};
    if (shape.tasks > p.nodes) continue;
    m.shapes.push_back(shape);
    m.shape_weights.push_back(s.share);
    mean_gpus += s.share * shape.tasks * shape.gpus;
    total_weight += s.share;
  }
  mean_gpus /= total_weight;

  for (const auto& t : published::PhillyVcShares()) {
    m.tenant_ids.push_back(w->InternTenant(t.name));
    m.tenant_weights.push_back(t.share);
  }

  const auto venus = published::VenusHourlySubmitProfile();
  double venus_mean = 0;
  for (double v : venus) venus_mean += v / 24.0;
  for (int h = 0; h < 24; ++h) {
    m.hourly[h] = 1.0 + p.diurnal_amplitude * (venus[h] / venus_mean - 1.0);
    m.hourly_max = std::max(m.hourly_max, m.hourly[h]);
  }

  const double mean_runtime_s =
      QuantilesMean(published::PhillyRuntimeSeconds(), 1.0, static_cast<double>(p.runtime_max_s));
  const double capacity = static_cast<double>(p.nodes) * gpn;
  const double mean_gap_us =
      mean_gpus * mean_runtime_s * kMicrosPerSecond / (capacity * p.target_load);
  m.candidate_gap_us = mean_gap_us / m.hourly_max;
  return m;
}

// Thinning (Lewis & Shedler): candidates at the peak rate, each kept with
// probability rate(hour) / peak. t is in microseconds since midnight of day 0.
int64_t NextArrival(Rng& rng, const Model& m, int64_t t_us) {
  constexpr int64_t kHourUs = 3600 * kMicrosPerSecond;
  for (;;) {
    t_us += std::llround(rng.Exponential(m.candidate_gap_us));
    const double rate = m.hourly[(t_us / kHourUs) % 24];
    if (rng.Uniform01() * m.hourly_max < rate) return t_us;
  }
}

int64_t RoundTo(double v, int64_t unit) { return std::llround(v / unit) * unit; }

}  // namespace

SyntheticParams DemoParams() { return SyntheticParams{}; }

SyntheticParams BenchParams() {
  SyntheticParams p;
  p.name = "bench";
  p.jobs = 1'000'000;
  p.nodes = 1250;
  p.profile_share = 0.0;
  return p;
}

Status ValidateSyntheticParams(const SyntheticParams& p) {
  auto bad = [](const char* what) { return Status::Error(std::string("synthetic: ") + what); };
  if (p.jobs < 0) return bad("jobs must be >= 0");
  if (p.nodes < 1) return bad("nodes must be >= 1");
  if (p.gpus_per_node < 1 || p.gpus_per_node > 64) return bad("gpus_per_node must be in 1..64");
  if (p.gpu_mem_bytes < 0) return bad("gpu_mem_bytes must be >= 0");
  if (p.node_cpu_milli <= 0) return bad("node_cpu_milli must be > 0");
  if (p.node_mem_bytes <= 0) return bad("node_mem_bytes must be > 0");
  if (!(p.target_load > 0 && p.target_load <= 100)) return bad("target_load must be in (0, 100]");
  if (!(p.diurnal_amplitude >= 0 && p.diurnal_amplitude <= 1))
    return bad("diurnal_amplitude must be in [0, 1]");
  if (p.runtime_max_s < 86400 || p.runtime_max_s > int64_t{366} * 86400)
    return bad("runtime_max_s must be in [86400, 31622400]");
  if (p.max_job_gpus < 1) return bad("max_job_gpus must be >= 1");
  if (!(p.profile_share >= 0 && p.profile_share <= 1))
    return bad("profile_share must be in [0, 1]");
  return Status::Ok();
}

ClusterSpec SyntheticCluster(const SyntheticParams& p) {
  ClusterSpec c;
  c.name = p.name;
  c.models.push_back(GpuModelSpec{p.gpu_model, p.gpu_mem_bytes, 1.0});
  NodeGroup g;
  g.name = "node";
  g.count = p.nodes;
  g.gpu_model = p.gpu_model;
  g.gpus = p.gpus_per_node;
  g.cpu_milli = p.node_cpu_milli;
  g.mem_bytes = p.node_mem_bytes;
  c.groups.push_back(std::move(g));
  return c;
}

Workload GenerateSynthetic(const SyntheticParams& p, uint64_t seed) {
  if (Status st = ValidateSyntheticParams(p); !st.ok()) {
    std::fprintf(stderr, "GenerateSynthetic: %s\n", st.message().c_str());
    std::abort();
  }
  Workload w;
  w.signal = UtilSignal::kSynthetic;
  w.source =
      "synthetic:" + p.name + " seed=" + std::to_string(seed) + " jobs=" + std::to_string(p.jobs);
  const Model m = BuildModel(p, &w);

  // One stream per attribute: changing one distribution leaves the others'
  // draws unchanged.
  Rng arrival(seed, 0, "synthetic/arrival"), size(seed, 0, "synthetic/size"),
      runtime(seed, 0, "synthetic/runtime"), util(seed, 0, "synthetic/util"),
      host(seed, 0, "synthetic/host"), tenant(seed, 0, "synthetic/tenant"),
      walltime(seed, 0, "synthetic/walltime"), profile(seed, 0, "synthetic/profile");
  constexpr int64_t kMib = int64_t{1} << 20;
  const double max_runtime_s = static_cast<double>(p.runtime_max_s);

  ReserveHuge(w.jobs, static_cast<size_t>(p.jobs));
  int64_t t_us = 0;
  for (int64_t i = 0; i < p.jobs; ++i) {
    Job& job = w.jobs.emplace_back();
    job.name = synthetic_internal::JobName(i + 1);
    t_us = NextArrival(arrival, m, t_us);
    job.submit = Micros(t_us);
    job.tenant = m.tenant_ids[tenant.Discrete(m.tenant_weights)];
    const Shape shape = m.shapes[size.Discrete(m.shape_weights)];
    job.tasks = shape.tasks;
    job.task.gpus = shape.gpus;
    job.task.gpu_milli = kMilliPerUnit;
    const double cpu = m.cpu_milli_per_gpu(host.Uniform01());
    const double mib = m.mem_mib_per_gpu(host.Uniform01());
    // Requests in 100 milli-cores and whole GiB, at least one unit, at most a node.
    job.task.cpu_milli =
        std::min(p.node_cpu_milli, std::max<int64_t>(RoundTo(cpu * shape.gpus, 100), 100));
    job.task.mem_bytes =
        std::min(p.node_mem_bytes, std::max<int64_t>(RoundTo(mib * shape.gpus, 1024), 1024) * kMib);
    const double r = m.runtime_s(runtime.Uniform01());
    const int64_t runtime_s = std::llround(std::clamp(r, 1.0, max_runtime_s));
    job.runtime = Seconds(runtime_s);
    job.walltime_limit =
        Seconds(synthetic_internal::DrawWalltimeSeconds(walltime, runtime_s, p.runtime_max_s));
    const double u = m.util_pct(util.Uniform01()) / 100.0;
    job.util = static_cast<float>(u);
    job.util_known = true;
    if (p.profile_share > 0 && profile.Uniform01() < p.profile_share) {
      UtilSeries s;
      if (synthetic_internal::MakeStartupSeries(job.runtime, u, &s)) {
        job.util = static_cast<float>(SeriesMean(s, job.runtime));
        job.series = static_cast<int32_t>(w.series.size());
        w.series.push_back(std::move(s));
      }
    }
  }
  w.Finalize();
  return w;
}

}  // namespace utilsim
