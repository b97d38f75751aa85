// Clusters that change (docs/cluster-events.md): each event kind in a
// hand-computed run, under every scheduler of the registry (each queue
// policy with best-fit, each placement policy behind fifo-skip), so that
// every scheduler kind sees nodes appear, disappear, drain and fail under
// running jobs; and the invariants (exact accounting, wait attribution)
// under random events on a random workload.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <random>
#include <set>

#include "mixed_workload.h"
#include "utilsim/engine/simulator.h"
#include "utilsim/policies/registry.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

ClusterSpec Nodes(std::vector<std::pair<std::string, int>> groups, int gpus) {
  ClusterSpec c;
  c.name = "ev";
  c.models = {{"X", 0, 1.0}};
  for (const auto& [name, count] : groups)
    c.groups.push_back({name, count, "X", gpus, 16000, 64LL << 30, 0});
  return c;
}

Job J(const char* name, int64_t submit, int64_t run, int gpus = 1) {
  Job j;
  j.name = name;
  j.submit = Seconds(submit);
  j.task.gpus = gpus;
  j.task.cpu_milli = 1000;
  j.task.mem_bytes = 1LL << 30;
  j.runtime = Seconds(run);
  j.walltime_limit = Seconds(run);
  j.util = 0.5f;
  return j;
}

ClusterEvent Ev(int64_t at, NodeChange change, std::vector<std::string> nodes,
                DownCause cause = DownCause::kFailure, bool kill = true) {
  ClusterEvent e;
  e.at = Seconds(at);
  e.change = change;
  e.nodes = std::move(nodes);
  e.cause = cause;
  e.kill = kill;
  return e;
}

double Cause(const JobRecord& r, WaitCause c) { return r.wait_cause_s[static_cast<size_t>(c)]; }

// Policies whose decisions a hand-computed case of plain FIFO order does not
// describe: as-recorded replays (jobs without recorded starts or hosts).
bool Skipped(const std::string& name) {
  return name.find("as-recorded") != std::string::npos ||
         name.find("recorded-hosts") != std::string::npos;
}

// Runs `w` on `c` with `cfg` under every scheduler (but the as-recorded ones
// unless `all`) and calls check(result); returns the number of runs.
int UnderEveryScheduler(const ClusterSpec& c, const Workload& w, const SimConfig& cfg,
                        const std::function<void(const RunResult&)>& check, bool all = false) {
  const PolicyRegistry reg = BuiltinPolicies();
  int runs = 0;
  for (const PolicyInfo& p : reg.List()) {
    std::string name;
    if (p.kind == "queue") name = p.name + "+best-fit";
    if (p.kind == "placement") name = "fifo-skip+" + p.name;
    if (name.empty() || (!all && Skipped(name))) continue;
    SCOPED_TRACE(name);
    auto s = reg.Make(name, 3);
    if (!s.ok()) continue;
    auto r = Simulate(c, w, *s.value(), cfg);
    EXPECT_TRUE(r.ok()) << r.status().message();
    if (!r.ok()) continue;
    check(r.value());
    ++runs;
  }
  EXPECT_GE(runs, 15);
  return runs;
}

SimConfig Full() {
  SimConfig cfg;
  cfg.window = Window::kFull;
  return cfg;
}

// Grow: node b joins at 100 s. A takes a at 0; B waits for b (nodes-down)
// and runs 100..1100. Absent: 100 GPU-s of b; allocation 2000 / (2 x 1100 -
// 100) GPU-s.
TEST(ClusterEventsRun, GrowAddsANodeAJobWaitedFor) {
  const ClusterSpec c = Nodes({{"a", 1}, {"b", 1}}, 1);
  Workload w;
  w.jobs = {J("A", 0, 1000), J("B", 0, 1000)};
  w.Finalize();
  SimConfig cfg = Full();
  cfg.cluster_events = {Ev(0, NodeChange::kDown, {"b"}, DownCause::kAbsent),
                        Ev(100, NodeChange::kUp, {"b"})};
  cfg.cluster_events[0].at = kBeforeEverything;
  UnderEveryScheduler(c, w, cfg, [](const RunResult& r) {
    const JobRecord& b = r.jobs[1];
    EXPECT_EQ(r.jobs[0].placement, "a:0");
    EXPECT_EQ(b.start, Seconds(100));
    EXPECT_EQ(b.placement, "b:0");
    EXPECT_DOUBLE_EQ(Cause(b, WaitCause::kNodesDown), 100);
    EXPECT_NEAR(r.summary.down_absent_gpu_h, 100 / 3600.0, 1e-12);
    EXPECT_NEAR(r.summary.allocation_pct, 100.0 * 2000 / 2100, 1e-9);
    EXPECT_EQ(r.summary.interruptions, 0);
    EXPECT_DOUBLE_EQ(r.summary.ettr_mean, 1);
  });
}

// Shrink with kill: b leaves at 500 s with its job, which restarts from the
// start (no checkpoints) when a frees at 1000 and ends at 2000: lost 500
// GPU-s; ETTR (1500 - 500) / 2000.
TEST(ClusterEventsRun, ShrinkKillsAndRequeuesTheJobOnTheNode) {
  const ClusterSpec c = Nodes({{"a", 1}, {"b", 1}}, 1);
  Workload w;
  w.jobs = {J("A", 0, 1000), J("B", 0, 1000)};
  w.Finalize();
  SimConfig cfg = Full();
  cfg.cluster_events = {Ev(500, NodeChange::kDown, {"b"}, DownCause::kAbsent)};
  UnderEveryScheduler(c, w, cfg, [](const RunResult& r) {
    const bool a_on_b = r.jobs[0].interruptions == 1;
    const JobRecord& hit = r.jobs[a_on_b ? 0 : 1];
    const JobRecord& other = r.jobs[a_on_b ? 1 : 0];
    EXPECT_EQ(hit.interruptions, 1);
    EXPECT_EQ(other.interruptions, 0);
    EXPECT_EQ(other.finish, Seconds(1000));
    EXPECT_EQ(hit.finish, Seconds(2000));
    EXPECT_EQ(hit.placement, "a:0");
    EXPECT_DOUBLE_EQ(hit.lost_gpu_s, 500);
    EXPECT_DOUBLE_EQ(hit.queued_s, 500);
    EXPECT_DOUBLE_EQ(Cause(hit, WaitCause::kNodesDown), 500);  // it fits only on b
    EXPECT_DOUBLE_EQ(hit.ettr, 0.5);
    EXPECT_EQ(r.summary.interruptions, 1);
    EXPECT_NEAR(r.summary.lost_gpu_h, 500 / 3600.0, 1e-12);
    EXPECT_DOUBLE_EQ(r.summary.ettr_mean, 0.75);
    EXPECT_NEAR(r.summary.down_absent_gpu_h, 1500 / 3600.0, 1e-12);
    // Held: 1000 + 500 + 1000 GPU-s of 2 x 2000 - 1500 not down.
    EXPECT_NEAR(r.summary.allocation_pct, 100.0 * 2500 / 2500, 1e-9);
  });
}

// Shrink that waits: b drains at 500 and leaves when its job ends at 1000;
// C (submitted at 10) starts on a at 1000. Absent 1000..1100 on b.
TEST(ClusterEventsRun, ShrinkThatWaitsLetsTheJobFinish) {
  const ClusterSpec c = Nodes({{"a", 1}, {"b", 1}}, 1);
  Workload w;
  w.jobs = {J("A", 0, 1000), J("B", 0, 1000), J("C", 10, 100)};
  w.Finalize();
  SimConfig cfg = Full();
  cfg.cluster_events = {Ev(500, NodeChange::kDown, {"b"}, DownCause::kAbsent, false)};
  UnderEveryScheduler(c, w, cfg, [](const RunResult& r) {
    EXPECT_EQ(r.jobs[0].finish, Seconds(1000));
    EXPECT_EQ(r.jobs[1].finish, Seconds(1000));
    EXPECT_EQ(r.jobs[2].start, Seconds(1000));
    EXPECT_EQ(r.jobs[2].placement, "a:0");
    EXPECT_EQ(r.summary.interruptions, 0);
    EXPECT_NEAR(r.summary.down_absent_gpu_h, 100 / 3600.0, 1e-12);
    // Both nodes busy all along: the wait is on capacity (the draining
    // node has no free GPU either).
    EXPECT_DOUBLE_EQ(Cause(r.jobs[2], WaitCause::kCapacity), 990);
  });
}

// Down with kill, checkpoints every 300 s, restart cost 50 s: at 400 s the
// job keeps 300 - 50 = 250 s of work, waits while the node is down
// (400..600) and ends at 600 + 750. Lost 150 GPU-s; ETTR (400 + 750 - 150)
// / 1350.
TEST(ClusterEventsRun, DownKillsRequeuesAndRestartsFromTheCheckpoint) {
  const ClusterSpec c = Nodes({{"a", 1}}, 1);
  Workload w;
  w.jobs = {J("A", 0, 1000)};
  w.Finalize();
  SimConfig cfg = Full();
  cfg.checkpoint_interval = Seconds(300);
  cfg.restart_cost = Seconds(50);
  cfg.cluster_events = {Ev(400, NodeChange::kDown, {"a"}), Ev(600, NodeChange::kUp, {"a"})};
  UnderEveryScheduler(c, w, cfg, [](const RunResult& r) {
    const JobRecord& a = r.jobs[0];
    EXPECT_EQ(a.outcome, JobOutcome::kFinished);
    EXPECT_EQ(a.finish, Seconds(1350));
    EXPECT_EQ(a.interruptions, 1);
    EXPECT_DOUBLE_EQ(a.lost_gpu_s, 150);
    EXPECT_DOUBLE_EQ(a.queued_s, 200);
    EXPECT_DOUBLE_EQ(Cause(a, WaitCause::kNodesDown), 200);
    EXPECT_DOUBLE_EQ(a.alloc_gpu_s, 1150);
    EXPECT_NEAR(a.ettr, 1000.0 / 1350, 1e-12);
    // Busy work counts once: redone work is idle. 50 % busy x 1000 s.
    EXPECT_NEAR(a.useful_gpu_s, 500, 1e-6);
    EXPECT_NEAR(r.summary.down_failure_gpu_h, 200 / 3600.0, 1e-12);
    EXPECT_NEAR(r.summary.allocation_pct, 100.0 * 1150 / 1150, 1e-9);
  });
}

// Checkpoints by job kind: the training job keeps 300 - 50 s of work at the
// 400 s kill, as above (1350 s); the inference job beside it, with no
// checkpoint and a 20 s restart, starts over at 600 s: 600 + 1000 = 1600 s.
TEST(ClusterEventsRun, CheckpointsByJobKind) {
  const ClusterSpec c = Nodes({{"a", 1}}, 2);
  Workload w;
  w.jobs = {J("T", 0, 1000), J("I", 0, 1000)};
  w.jobs[0].kind = JobKind::kTraining;
  w.jobs[1].kind = JobKind::kInference;
  w.Finalize();
  SimConfig cfg = Full();
  cfg.checkpoint_interval = Seconds(100);  // overridden for both kinds
  cfg.checkpoints_by_kind[static_cast<size_t>(JobKind::kTraining)] =
      Checkpointing{Seconds(300), Seconds(50)};
  cfg.checkpoints_by_kind[static_cast<size_t>(JobKind::kInference)] =
      Checkpointing{kNever, Seconds(20)};
  cfg.cluster_events = {Ev(400, NodeChange::kDown, {"a"}), Ev(600, NodeChange::kUp, {"a"})};
  UnderEveryScheduler(c, w, cfg, [](const RunResult& r) {
    EXPECT_EQ(r.jobs[0].finish, Seconds(1350));
    EXPECT_DOUBLE_EQ(r.jobs[0].lost_gpu_s, 150);
    EXPECT_EQ(r.jobs[1].finish, Seconds(1600));
    EXPECT_DOUBLE_EQ(r.jobs[1].lost_gpu_s, 400);
  });
}

// Drain: the node keeps its job but hosts nothing new 100..300 s; B fits on
// its free GPU and waits for the drain to end. Drained GPUs are capacity.
TEST(ClusterEventsRun, DrainKeepsRunningJobsAndHoldsNewOnes) {
  const ClusterSpec c = Nodes({{"a", 1}}, 2);
  Workload w;
  w.jobs = {J("A", 0, 500), J("B", 150, 100)};
  w.Finalize();
  SimConfig cfg = Full();
  cfg.cluster_events = {Ev(100, NodeChange::kDrain, {"a"}), Ev(300, NodeChange::kResume, {"a"})};
  UnderEveryScheduler(c, w, cfg, [](const RunResult& r) {
    EXPECT_EQ(r.jobs[0].finish, Seconds(500));
    EXPECT_EQ(r.jobs[1].start, Seconds(300));
    EXPECT_EQ(r.jobs[1].finish, Seconds(400));
    EXPECT_DOUBLE_EQ(Cause(r.jobs[1], WaitCause::kNodesDown), 150);
    EXPECT_EQ(r.summary.down_absent_gpu_h + r.summary.down_maintenance_gpu_h +
                  r.summary.down_failure_gpu_h,
              0);
    EXPECT_NEAR(r.summary.allocation_pct, 100.0 * 600 / 1000, 1e-9);
  });
}

// Maintenance 200..500 s that kills: checkpoints every 100 s keep all 200 s
// of work; the job ends at 500 + 800. Maintenance: 300 GPU-s.
TEST(ClusterEventsRun, MaintenanceThatKillsLosesNothingAtACheckpoint) {
  const ClusterSpec c = Nodes({{"a", 1}}, 1);
  Workload w;
  w.jobs = {J("A", 0, 1000)};
  w.Finalize();
  SimConfig cfg = Full();
  cfg.checkpoint_interval = Seconds(100);
  cfg.cluster_events = {Ev(200, NodeChange::kDown, {"a"}, DownCause::kMaintenance),
                        Ev(500, NodeChange::kUp, {"a"})};
  UnderEveryScheduler(c, w, cfg, [](const RunResult& r) {
    const JobRecord& a = r.jobs[0];
    EXPECT_EQ(a.finish, Seconds(1300));
    EXPECT_EQ(a.interruptions, 1);
    EXPECT_DOUBLE_EQ(a.lost_gpu_s, 0);
    EXPECT_NEAR(a.ettr, 1000.0 / 1300, 1e-12);
    EXPECT_NEAR(r.summary.down_maintenance_gpu_h, 300 / 3600.0, 1e-12);
    EXPECT_NEAR(r.summary.down_failure_gpu_h, 0, 1e-12);
  });
}

// Maintenance that waits: the node drains at 100 s, goes down when A ends
// at 300 and is back at 500 as planned; B waits 150..500 (nodes-down).
TEST(ClusterEventsRun, MaintenanceThatWaitsStartsWhenTheNodeEmpties) {
  const ClusterSpec c = Nodes({{"a", 1}}, 2);
  Workload w;
  w.jobs = {J("A", 0, 300), J("B", 150, 100)};
  w.Finalize();
  SimConfig cfg = Full();
  cfg.cluster_events = {Ev(100, NodeChange::kDown, {"a"}, DownCause::kMaintenance, false),
                        Ev(500, NodeChange::kUp, {"a"})};
  UnderEveryScheduler(c, w, cfg, [](const RunResult& r) {
    EXPECT_EQ(r.jobs[0].finish, Seconds(300));
    EXPECT_EQ(r.jobs[0].interruptions, 0);
    EXPECT_EQ(r.jobs[1].start, Seconds(500));
    EXPECT_DOUBLE_EQ(Cause(r.jobs[1], WaitCause::kNodesDown), 350);
    EXPECT_NEAR(r.summary.down_maintenance_gpu_h, 2 * 200 / 3600.0, 1e-12);
    // Samples see the down GPUs and count none of them free.
    for (const Sample& s : r.samples) {
      const bool down = s.time >= Seconds(300) && s.time < Seconds(500);
      EXPECT_EQ(s.gpus_down, down ? 2 : 0) << s.time.seconds();
      if (down) {
        EXPECT_EQ(s.gpus_free_whole, 0);
      }
    }
  });
}

// A straggler: a-1 runs at half pace 200..600 s. The gang of two tasks on
// a-0 and a-1 runs at its slowest member's pace: 200 s of work by 200 s,
// 200 more by 600 s, the last 600 by 1200 s. Its work (and busy GPU time,
// 50 % of 2 GPUs x 1000 s) is unchanged; while slow, half its wall time its
// GPUs wait on the straggler: 2 GPUs x 400 s x 0.5 = 400 GPU-s idle for
// communication.
TEST(ClusterEventsRun, AStragglerSlowsTheGangToItsPace) {
  const ClusterSpec c = Nodes({{"a", 2}}, 1);
  Workload w;
  w.jobs = {J("G", 0, 1000)};
  w.jobs[0].tasks = 2;
  w.Finalize();
  SimConfig cfg = Full();
  cfg.comm_fraction = 0;
  ClusterEvent slow = Ev(200, NodeChange::kSlow, {"a-1"});
  slow.speed = 0.5;
  ClusterEvent fast = slow;
  fast.at = Seconds(600);
  fast.change = NodeChange::kSlowEnd;
  cfg.cluster_events = {slow, fast};
  UnderEveryScheduler(c, w, cfg, [](const RunResult& r) {
    const JobRecord& g = r.jobs[0];
    EXPECT_EQ(g.finish, Seconds(1200));
    EXPECT_DOUBLE_EQ(g.alloc_gpu_s, 2400);
    EXPECT_NEAR(g.useful_gpu_s, 1000, 1e-6);
    EXPECT_NEAR(g.idle_gpu_s[static_cast<size_t>(IdleCause::kCommunication)], 400, 1e-6);
    EXPECT_EQ(g.interruptions, 0);
    EXPECT_DOUBLE_EQ(g.ettr, 1);  // slow, not lost
  });
}

// Events name nodes and groups that exist; an unknown one is an error that
// names the event's source.
TEST(ClusterEventsRun, AnUnknownNodeIsAnError) {
  const ClusterSpec c = Nodes({{"a", 2}}, 1);
  Workload w;
  w.jobs = {J("A", 0, 100)};
  w.Finalize();
  SimConfig cfg = Full();
  cfg.cluster_events = {Ev(10, NodeChange::kDown, {"a-2"})};
  cfg.cluster_events[0].where = "ev.yaml:3";
  auto s = BuiltinPolicies().Make("best-fit");
  ASSERT_TRUE(s.ok());
  auto r = Simulate(c, w, *s.value(), cfg);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("ev.yaml:3: no node or node group named 'a-2'"),
            std::string::npos)
      << r.status().message();
  cfg.cluster_events[0].nodes = {"a-1"};
  auto s2 = BuiltinPolicies().Make("best-fit");
  EXPECT_TRUE(Simulate(c, w, *s2.value(), cfg).ok());
}

// Random downs, ups, drains, resumes and stragglers on a random workload: every
// scheduler keeps the engine's invariants (a broken one fails the run), the
// wait causes sum to each job's queued time, and no job is lost.
TEST(ClusterEventsRun, EverySchedulerKeepsTheInvariantsUnderRandomEvents) {
  const ClusterSpec c = testutil::MixedCluster();
  testutil::MixedWorkloadShape shape;
  shape.seed = 5;
  shape.jobs = 120;
  const Workload w = testutil::RandomMixedWorkload(shape);
  SimConfig cfg;
  cfg.restart_cost = Seconds(20);
  cfg.checkpoint_interval = Seconds(120);
  std::mt19937_64 rng(9);
  const std::vector<std::string> names = {"a-0", "a-1", "a-2", "b-0", "b-1"};
  for (int i = 0; i < 40; ++i) {
    const int64_t at = static_cast<int64_t>(rng() % 4000);
    const std::string& n = names[rng() % names.size()];
    const int kind = static_cast<int>(rng() % 4);
    if (kind == 0) {
      ClusterEvent e =
          Ev(at, NodeChange::kDown, {n}, static_cast<DownCause>(rng() % 3), rng() % 2 == 0);
      cfg.cluster_events.push_back(e);
      cfg.cluster_events.push_back(
          Ev(at + 60 + static_cast<int64_t>(rng() % 600), NodeChange::kUp, {n}));
    } else if (kind == 1) {
      cfg.cluster_events.push_back(Ev(at, NodeChange::kDrain, {n}));
      cfg.cluster_events.push_back(
          Ev(at + 60 + static_cast<int64_t>(rng() % 600), NodeChange::kResume, {n}));
    } else if (kind == 2) {
      cfg.cluster_events.push_back(Ev(at, NodeChange::kDown, {n}));
      cfg.cluster_events.push_back(Ev(at + 300, NodeChange::kUp, {n}));
    } else {  // a straggler
      ClusterEvent e = Ev(at, NodeChange::kSlow, {n});
      e.speed = 0.25 + 0.5 * static_cast<double>(rng() % 2);
      cfg.cluster_events.push_back(e);
      e.at = Seconds(at + 400);
      e.change = NodeChange::kSlowEnd;
      cfg.cluster_events.push_back(e);
    }
  }
  int interrupted = 0;
  const int runs = UnderEveryScheduler(
      c, w, cfg,
      [&](const RunResult& r) {
        int64_t kills = 0;
        for (const JobRecord& j : r.jobs) {
          kills += j.interruptions;
          if (j.queued_s < 0) continue;
          double sum = 0;
          for (double v : j.wait_cause_s) sum += v;
          EXPECT_NEAR(sum, j.queued_s, 1e-6) << j.name;
          if (j.start.us >= 0) {
            EXPECT_GE(j.ettr, 0.0);
            EXPECT_LE(j.ettr, 1.0);
          }
        }
        EXPECT_EQ(kills, r.summary.interruptions);
        EXPECT_EQ(r.summary.finished + r.summary.killed + r.summary.unfinished + r.summary.rejected,
                  120);
        interrupted += kills > 0;
      },
      /*all=*/true);
  EXPECT_GE(interrupted, runs / 2);
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
