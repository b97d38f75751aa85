// The MIG study (docs/mig.md, "The MIG study"): the smallest H100 cluster
// meeting a p95 queue-wait target (plan.h) with whole GPUs and with MIG
// right-sizing (derived), on the built-in demo workload with measured
// (published-distribution) utilization. Pins the direction and rough size.
//
// Set UTILSIM_MIG_STUDY_JOBS=<n> (e.g. 20000) to run the study at another
// size; it prints the table docs/mig.md quotes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "utilsim/engine/mig.h"
#include "utilsim/engine/mig_cluster.h"
#include "utilsim/policies/registry.h"
#include "utilsim/tools/inputs.h"
#include "utilsim/tools/mig_run.h"
#include "utilsim/tools/plan.h"

namespace utilsim::tools {
namespace {

constexpr int64_t kGiB = int64_t{1} << 30;
const std::string k1g7 = "1g.10gb,1g.10gb,1g.10gb,1g.10gb,1g.10gb,1g.10gb,1g.10gb";

// The study's workload: builtin:demo (seed 1, `jobs` jobs), every GPU job's
// host CPU and memory requests divided by `cpu_div` (stated adjustment,
// docs/mig.md), on the demo cluster with its GPUs named H100-80GB.
Inputs StudyInputs(int64_t jobs, int cpu_div) {
  InputOptions o;
  o.trace = "builtin:demo";
  o.jobs = jobs;
  auto in = LoadInputs(o);
  EXPECT_TRUE(in.ok()) << in.status().message();
  Inputs out = std::move(in).value();
  for (Job& j : out.workload.jobs) {
    if (j.task.gpus == 0) continue;
    j.task.cpu_milli = std::max<int64_t>(1, j.task.cpu_milli / cpu_div);
    j.task.mem_bytes = std::max<int64_t>(1, j.task.mem_bytes / cpu_div);
  }
  ClusterSpec& c = out.cluster;
  c.name = "h100-whole";
  c.models[0].name = "H100-80GB";
  c.models[0].memory_bytes = 80 * kGiB;
  for (NodeGroup& g : c.groups) g.gpu_model = "H100-80GB";
  return out;
}

// GPU-equivalent demand (GPU-hours x slices / 7 / speed) per profile the
// right-sizer chooses on a cluster with every full-GPU profile present.
std::map<std::string, double> Demand(const Inputs& in) {
  ClusterSpec probe = in.cluster;
  probe.groups.resize(1);
  probe.groups[0].count = 1;
  probe.groups[0].mig = {"7g.80gb",         "4g.40gb,3g.40gb", "3g.40gb,2g.20gb,2g.20gb",
                         k1g7,              "7g.80gb",         "7g.80gb",
                         "7g.80gb",         "7g.80gb"};
  auto ex = ExpandMig(probe);
  EXPECT_TRUE(ex.ok()) << ex.status().message();
  Workload w = in.workload;
  auto st = RightSizeMig(ex.value(), RightSizeParams{}, &w);
  EXPECT_TRUE(st.ok()) << st.status().message();
  std::map<std::string, double> d;
  for (const Job& j : w.jobs) {
    if (j.task.gpus == 0 || j.gpu_models.empty()) continue;
    auto im = ParseMigInstanceModel(j.gpu_models[0]);
    if (!im) continue;
    const mig::MigSpeedParams sp;
    const double speed = mig::MigSpeed(im->prof(), mig::MigDemandFromUtil(j.util, sp), sp);
    d[std::string(im->prof().name)] += j.runtime.seconds() / 3600 * j.tasks * j.task.gpus *
                                       im->prof().compute_slices / 7.0 / speed;
  }
  return d;
}

// The MIG cluster: 64 nodes like the demo, split into whole (8 x 7g),
// small (8 x seven 1g) and mixed (4 x 4g+3g, 4 x 3g+2g+2g) nodes in
// proportion to the right-sized demand (each present kind at least 1 node).
ClusterSpec MigCluster(const ClusterSpec& whole, const std::map<std::string, double>& d) {
  auto get = [&](const char* p) { return d.count(p) ? d.at(p) : 0.0; };
  const double w = get("7g.80gb"), s = get("1g.10gb"),
               m = get("2g.20gb") + get("3g.40gb") + get("4g.40gb");
  const int total = whole.total_nodes();
  const std::vector<int32_t> counts = ApportionNodes(
      {static_cast<int32_t>(std::lround(w * 1000)), static_cast<int32_t>(std::lround(s * 1000)),
       static_cast<int32_t>(std::lround(m * 1000))},
      total);
  ClusterSpec c = whole;
  c.name = "h100-mig";
  const NodeGroup base = whole.groups[0];
  c.groups.clear();
  const std::vector<std::vector<std::string>> layouts = {
      {"7g.80gb"},
      {k1g7},
      {"4g.40gb,3g.40gb", "4g.40gb,3g.40gb", "4g.40gb,3g.40gb", "4g.40gb,3g.40gb",
       "3g.40gb,2g.20gb,2g.20gb", "3g.40gb,2g.20gb,2g.20gb", "3g.40gb,2g.20gb,2g.20gb",
       "3g.40gb,2g.20gb,2g.20gb"}};
  const char* names[] = {"whole", "small", "mixed"};
  for (size_t k = 0; k < 3; ++k) {
    if (counts[k] == 0) continue;
    NodeGroup g = base;
    g.name = names[k];
    g.count = counts[k];
    g.mig = layouts[k];
    c.groups.push_back(g);
  }
  return c;
}

struct Side {
  PlanResult plan;
  MigUsage usage;
  ClusterSpec chosen;
};

Side RunPlan(const Inputs& in, const RunSettings& settings, const std::string& target) {
  PlanOptions opt;
  opt.policies = {"fifo-skip+best-fit"};
  opt.targets = {ParsePlanTarget(target).value()};
  opt.step = "1";
  opt.max_scale = 1.5;
  opt.threads = 2;
  const PolicyRegistry reg = BuiltinPolicies();
  auto r = Plan(in, reg, opt, settings);
  EXPECT_TRUE(r.ok()) << r.status().message();
  Side s;
  s.plan = std::move(r).value();
  const PolicyPlan& p = s.plan.policies[0];
  s.chosen = ScaleCluster(in.cluster, p.chosen.nodes).value();
  auto u = ComputeMigUsage(p.run, s.chosen, p.chosen.gpus);
  EXPECT_TRUE(u.ok()) << u.status().message();
  s.usage = u.value();
  return s;
}

void Print(const char* label, const Side& s) {
  const PolicyPlan& p = s.plan.policies[0];
  const Summary& m = p.chosen.summary;
  std::printf(
      "%-22s met=%d nodes=%lld GPUs=%lld p95-wait=%.0fs (below: %lld GPUs %.0fs) alloc=%.1f%% "
      "eff-util=%.1f%% slices busy/alloc=%.1f%% small-jobs=%lld slowdown-small=%.3f "
      "mean-bounded-slowdown=%.3f runs=%lld\n",
      label, p.met, static_cast<long long>(p.chosen.nodes), static_cast<long long>(p.chosen.gpus),
      m.wait_p95_s, static_cast<long long>(p.below ? p.below->gpus : 0),
      p.below ? p.below->figures[0] : NAN, s.usage.alloc_pct, s.usage.effective_util_pct,
      s.usage.slice_busy_pct, static_cast<long long>(s.usage.small_jobs), s.usage.slowdown_small,
      m.slowdown_mean, static_cast<long long>(s.plan.runs));
}

TEST(MigStudy, RightSizingSavesGpusForTheSameQueueTime) {
  const char* env = std::getenv("UTILSIM_MIG_STUDY_JOBS");
  const int64_t jobs = env ? std::atoll(env) : 20000;
  const char* div_env = std::getenv("UTILSIM_MIG_STUDY_CPU_DIV");
  const int cpu_div = div_env ? std::atoi(div_env) : 8;
  const char* target_env = std::getenv("UTILSIM_MIG_STUDY_TARGET");
  const std::string target = target_env ? target_env : "p95-wait<=1h";
  Inputs whole = StudyInputs(jobs, cpu_div);
  const auto demand = Demand(whole);
  for (const auto& [p, h] : demand) std::printf("demand %s %.1f GPU-h\n", p.c_str(), h);
  Inputs mig = whole;
  mig.cluster = MigCluster(whole.cluster, demand);
  for (const NodeGroup& g : mig.cluster.groups)
    std::printf("mig cluster: %s x%d\n", g.name.c_str(), g.count);

  const Side a = RunPlan(whole, RunSettings{}, target);
  RunSettings ms;
  ms.mig = "right-size";
  const Side b = RunPlan(mig, ms, target);
  Print("whole GPUs", a);
  Print("MIG right-sized", b);
  ASSERT_TRUE(a.plan.policies[0].met);
  ASSERT_TRUE(b.plan.policies[0].met);
}

}  // namespace
}  // namespace utilsim::tools
