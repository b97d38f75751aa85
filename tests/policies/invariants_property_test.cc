// Property test of the run invariants (issue 13): random workloads with
// gangs, fractional and CPU-only tasks, utilization series, walltime kills
// and priorities go through every registered queue policy x several
// placements x progress models (whole-GPU, stall-overlapped, time-sliced
// sharing). Every run must pass the engine's own invariants (Simulate fails
// otherwise), and these independent checks:
//  * allocation: rebuilt from the observer's start/finish/kill/preempt log
//    (GPU share up at a start, down at an end), integrated over the window,
//    equals the summary to 1e-9 relative — the old first-start clipping fails
//    this as soon as a job is preempted;
//  * useful <= allocated per job and per run; allocation <= 100 %;
//  * under the whole-GPU model without restart cost, busy GPU-seconds of a
//    finished job = its GPU share x util x runtime whatever the policy (work
//    conservation), and the summary's useful GPU-hours equal the log's busy
//    integral (constant-utilization jobs: share x util over each interval).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "random_mix.h"
#include "utilsim/engine/mig_progress.h"
#include "utilsim/engine/rng.h"
#include "utilsim/engine/sharing_progress.h"
#include "utilsim/engine/simulator.h"
#include "utilsim/engine/stall_model.h"
#include "utilsim/policies/coresource.h"
#include "utilsim/policies/mig_repartition.h"
#include "utilsim/policies/registry.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

using mix::ThreeNodes;

// `series`: some jobs get a utilization series; `kills`: some jobs a
// walltime limit below their runtime.
Workload Mix(uint32_t seed, bool series, bool kills) {
  Rng rng(seed, 0, "invariants-mix");
  auto pick = [&](int lo, int hi) { return static_cast<int>(rng.UniformInt(lo, hi)); };
  Workload w;
  for (int i = 0; i < 120; ++i) {
    Job j;
    j.name = "j" + std::to_string(i);
    j.tenant = w.InternTenant("t" + std::to_string(pick(0, 2)));
    j.submit = Seconds(pick(0, 4000));
    j.priority = pick(0, 3);
    const int kind = pick(0, 9);
    if (kind == 0) {
      j.task.gpus = 0;
      j.task.cpu_milli = pick(1, 8) * 1000;
    } else if (kind <= 2) {
      j.task.gpus = 1;
      j.task.gpu_milli = pick(1, 9) * 100;
    } else {
      j.task.gpus = pick(1, 4);
      j.tasks = pick(1, 2);
    }
    j.task.cpu_milli = std::max<int64_t>(j.task.cpu_milli, pick(1, 6) * 1000);
    j.runtime = Seconds(pick(1, 3000));
    j.util = static_cast<float>(pick(5, 100)) / 100.0f;
    j.util_known = true;
    if (series && j.task.gpus > 0 && pick(0, 2) == 0) {
      UtilSeries s;
      const int steps = pick(2, 6);
      for (int k = 0; k < steps; ++k) {
        s.offset.push_back(Seconds(k * j.runtime.us / 1000000 / steps));
        s.busy.push_back(static_cast<float>(pick(0, 100)) / 100.0f);
      }
      j.series = static_cast<int32_t>(w.series.size());
      w.series.push_back(std::move(s));
    }
    if (kills && pick(0, 5) == 0) {
      j.walltime_limit = Seconds(std::max<int64_t>(1, j.runtime.us / 2000000));
      j.kill_at_limit = true;
    }
    w.jobs.push_back(j);
  }
  w.Finalize();
  return w;
}

struct Logged {
  RunResult run;
  // Per job: its run intervals [start, end), from the observer.
  std::vector<std::vector<std::pair<Micros, Micros>>> intervals;
};

Logged RunLogged(const std::string& policy, const Workload& w, const ProgressModel* model,
                 Micros restart_cost, const PolicyRegistry& reg = BuiltinPolicies(),
                 const ClusterSpec& cluster = ThreeNodes()) {
  Logged out;
  auto s = reg.Make(policy, 3);
  EXPECT_TRUE(s.ok()) << policy << ": " << s.status().message();
  if (!s.ok()) return out;
  out.intervals.assign(w.jobs.size(), {});
  std::vector<Micros> open(w.jobs.size(), Micros(-1));
  SimConfig cfg;
  cfg.progress = model;
  cfg.restart_cost = restart_cost;
  cfg.observer = [&](const EngineEvent& e, RunControl&) {
    if (e.kind == EventKind::kStart) {
      open[e.job] = e.time;
    } else if (e.kind == EventKind::kFinish || e.kind == EventKind::kKill ||
               e.kind == EventKind::kPreempt || e.kind == EventKind::kInterrupt) {
      out.intervals[e.job].push_back({open[e.job], e.time});
      open[e.job] = Micros(-1);
    }
  };
  auto r = Simulate(cluster, w, *s.value(), cfg);
  EXPECT_TRUE(r.ok()) << policy << ": " << r.status().message();
  if (!r.ok()) return out;
  out.run = std::move(r).value();
  // Still running when the run stopped: open up to the window's end.
  for (size_t j = 0; j < open.size(); ++j)
    if (open[j].us >= 0) out.intervals[j].push_back({open[j], out.run.summary.window_end});
  return out;
}

double Overlap(std::pair<Micros, Micros> iv, Micros a, Micros b) {
  return std::max(0.0, (std::min(iv.second, b) - std::max(iv.first, a)).seconds());
}

std::vector<std::string> Queues() {
  std::vector<std::string> q;
  for (const PolicyInfo& p : BuiltinPolicies().List())
    if (p.kind == "queue") q.push_back(p.name);
  return q;
}

void CheckRun(const std::string& label, const Workload& w, const Logged& l) {
  const Summary& s = l.run.summary;
  ASSERT_EQ(l.run.jobs.size(), w.jobs.size()) << label;
  double alloc_log = 0, useful = 0;
  for (size_t j = 0; j < w.jobs.size(); ++j) {
    const JobRecord& rec = l.run.jobs[j];
    const double gpus = static_cast<double>(rec.gpu_milli) / 1000.0;
    double held = 0;
    for (const auto& iv : l.intervals[j]) {
      held += (iv.second - iv.first).seconds();
      alloc_log += gpus * Overlap(iv, s.window_start, s.window_end);
    }
    EXPECT_NEAR(rec.alloc_gpu_s, gpus * held, 1e-6 * std::max(1.0, rec.alloc_gpu_s))
        << label << " " << rec.name;
    EXPECT_LE(rec.useful_gpu_s, rec.alloc_gpu_s * (1 + 1e-12)) << label << " " << rec.name;
    useful += rec.useful_gpu_s;
    EXPECT_EQ(rec.preemptions + (rec.start.us >= 0 ? 1 : 0),
              static_cast<int32_t>(l.intervals[j].size()))
        << label << " " << rec.name;
    if (rec.start.us >= 0) {
      EXPECT_GE(rec.queued_s, rec.wait_s() - 1e-9) << label;
    }
  }
  EXPECT_NEAR(s.alloc_gpu_h * 3600, alloc_log, 1e-9 * std::max(1.0, alloc_log)) << label;
  EXPECT_LE(s.allocation_pct, 100.0 + 1e-9) << label;
  EXPECT_LE(s.effective_util_pct, s.allocation_pct + 1e-9) << label;
  EXPECT_LE(s.useful_gpu_h * 3600, useful + 1e-6) << label;
}

TEST(RunInvariants, EveryQueueEveryPlacementEveryModel) {
  const WholeGpuProgress whole;
  const StallProgress stall(Composition::kOverlapped, 0.1);
  SharingConfig ts;
  ts.mode = GpuSharing::kTimeSlice;
  const SharedGpuProgress shared(&whole, ts);
  const std::vector<std::pair<const char*, const ProgressModel*>> models = {
      {"whole-gpu", &whole}, {"stall-overlapped", &stall}, {"timeslice", &shared}};
  const std::vector<std::string> queues = Queues();
  ASSERT_GE(queues.size(), 10u);  // fifo, fifo-skip, as-recorded, backfills, sjf, ... tiresias
  int64_t runs = 0, preemptions = 0;
  for (uint32_t seed : {1u, 2u}) {
    const Workload w = Mix(seed, /*series=*/seed == 2, /*kills=*/seed == 1);
    for (const std::string& q : queues) {
      for (const char* p : {"first-fit", "best-fit", "worst-fit", "colocate"}) {
        for (const auto& [model_name, model] : models) {
          const std::string label = q + "+" + p;
          const Logged l = RunLogged(label, w, model, Seconds(seed * 5));
          if (l.run.jobs.empty()) continue;
          SCOPED_TRACE(label + " " + model_name + " seed " + std::to_string(seed));
          CheckRun(label, w, l);
          for (const JobRecord& r : l.run.jobs) preemptions += r.preemptions;
          ++runs;
        }
      }
    }
  }
  EXPECT_EQ(runs, static_cast<int64_t>(2 * queues.size() * 4 * 3));
  EXPECT_GT(preemptions, 0);  // the mix exercises preemption
}

TEST(RunInvariants, BusyWorkIsConservedAcrossPolicies) {
  // Whole-GPU model, flat cluster, no restart cost: a finished job's busy
  // GPU-seconds are its share x util x recorded runtime under any policy;
  // the summary's busy time equals the log's share x util x interval.
  const Workload w = Mix(3, /*series=*/false, /*kills=*/false);
  int64_t preemptions = 0;
  for (const std::string& q : Queues()) {
    const std::string label = q + "+best-fit";
    const Logged l = RunLogged(label, w, nullptr, Micros(0));
    if (l.run.jobs.empty()) continue;
    const Summary& s = l.run.summary;
    double busy_log = 0;
    for (size_t j = 0; j < w.jobs.size(); ++j) {
      const JobRecord& rec = l.run.jobs[j];
      const Job& job = w.jobs[j];
      const double gpus = static_cast<double>(rec.gpu_milli) / 1000.0;
      preemptions += rec.preemptions;
      for (const auto& iv : l.intervals[j])
        busy_log += gpus * job.util * Overlap(iv, s.window_start, s.window_end);
      if (rec.outcome != JobOutcome::kFinished) continue;
      EXPECT_NEAR(rec.useful_gpu_s, gpus * job.util * job.runtime.seconds(),
                  1e-6 * std::max(1.0, rec.useful_gpu_s))
          << label << " " << rec.name;
    }
    EXPECT_NEAR(s.useful_gpu_h * 3600, busy_log, 1e-6 * std::max(1.0, busy_log)) << label;
  }
  EXPECT_GT(preemptions, 0);
}

TEST(RunInvariants, DynamicMigUnderEveryQueue) {
  // Two H100 nodes of 4 GPUs, unpartitioned: random 1g..7g jobs make the
  // repartitioning planner create, destroy and drain instances while the
  // MIG speed model (MigProgress) stretches jobs on small instances.
  ClusterSpec spec;
  spec.name = "h100";
  spec.models = {{"H100-80GB", 80LL << 30, 1.0}};
  spec.groups = {{"n", 2, "H100-80GB", 4, 64000, 512LL << 30, 0}};
  spec.groups[0].mig = {""};
  const int kProfiles[] = {0, 3, 4, 5, 6};  // 1g.10gb, 2g.20gb, 3g.40gb, 4g.40gb, 7g.80gb
  const int kMemSlices[] = {1, 1, 2, 2, 4, 4, 8};
  Rng rng(7, 0, "mig-mix");
  Workload w;
  for (int i = 0; i < 80; ++i) {
    Job j;
    j.name = "m" + std::to_string(i);
    j.submit = Seconds(rng.UniformInt(0, 3000));
    j.runtime = Seconds(rng.UniformInt(10, 2000));
    j.priority = static_cast<int32_t>(rng.UniformInt(0, 3));
    const int p = kProfiles[rng.UniformInt(0, 4)];
    j.task.gpus = 1;
    j.task.mig_profile = p;
    j.task.gpu_milli = p == 6 ? 1000 : 125 * kMemSlices[p];
    j.task.cpu_milli = 1000;
    j.task.mem_bytes = 1LL << 30;
    j.util = static_cast<float>(rng.UniformInt(5, 100)) / 100.0f;
    j.util_known = true;
    w.jobs.push_back(j);
  }
  w.Finalize();
  const WholeGpuProgress whole;
  const MigProgress mig(&whole, spec);
  auto stats = std::make_shared<MigReconfigStats>();
  auto reg = DecoratePlacements(BuiltinPolicies(), [&](std::unique_ptr<PlacementPolicy> inner) {
    return MakeMigRepartition(std::move(inner), MigRepartitionParams{}, stats);
  });
  ASSERT_TRUE(reg.ok()) << reg.status().message();
  int64_t runs = 0;
  for (const std::string& q : Queues()) {
    if (q == "as-recorded") continue;  // no recorded starts in this mix
    const std::string label = q + "+best-fit";
    const Logged l = RunLogged(label, w, &mig, Seconds(3), reg.value(), spec);
    if (l.run.jobs.empty()) continue;
    SCOPED_TRACE(label + " dynamic MIG");
    CheckRun(label, w, l);
    ++runs;
  }
  EXPECT_EQ(runs, static_cast<int64_t>(Queues().size()) - 1);
  EXPECT_GT(stats->created, 0);
  EXPECT_GT(stats->destroyed, 0);
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
