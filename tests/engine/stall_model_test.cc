// The stall-decomposed progress model (stall_model.h): its equations on
// hand-computed cases, through a hand-made view of the running jobs.
#include "utilsim/engine/stall_model.h"

#include <gtest/gtest.h>

#include <map>

namespace utilsim {
namespace UTILSIM_UNITY_ID {

constexpr int64_t kGiB = int64_t{1} << 30;
constexpr size_t kInputIdx = static_cast<size_t>(IdleCause::kInput);
constexpr size_t kCommIdx = static_cast<size_t>(IdleCause::kCommunication);
constexpr size_t kFixedIdx = static_cast<size_t>(IdleCause::kFixed);
constexpr size_t kStorageIdx = static_cast<size_t>(IdleCause::kStorage);

// Four nodes n-0..n-3 of 8 GPUs and 32 cores; racks r0 = {n-0, n-1} and
// r1 = {n-2, n-3} behind 4:1 uplinks; NIC 12.5 GB/s, storage 2 GB/s a node.
ClusterState Cluster() {
  ClusterSpec s;
  s.name = "m";
  s.models = {{"G", 16 * kGiB, 1.0}};
  s.groups = {{"n", 4, "G", 8, 32000, 256 * kGiB, 0}};
  s.topology.racks = {{"r0", "", {"n-0", "n-1"}, 4.0, ""}, {"r1", "", {"n-2", "n-3"}, 4.0, ""}};
  s.topology.storage_bytes_s = 2e9;
  return ClusterState::Build(s).value();
}

class View final : public RunView {
 public:
  explicit View(const ClusterState& c) : c_(c) {}
  JobIndex Add(const Job& j, Placement p, TaskDemand granted) {
    const JobIndex k = static_cast<JobIndex>(w_.jobs.size());
    w_.jobs.push_back(j);
    p_.push_back(p);
    g_.push_back(granted);
    for (const auto& tp : p) {
      auto& v = on_[tp.node];
      if (v.empty() || v.back() != k) v.push_back(k);
    }
    return k;
  }
  const Workload& workload() const override { return w_; }
  const ClusterState& state() const override { return c_; }
  const Placement& placement_of(JobIndex j) const override { return p_[j]; }
  const TaskDemand& granted(JobIndex j) const override { return g_[j]; }
  const std::vector<JobIndex>& jobs_on(NodeIndex n) const override {
    auto it = on_.find(n);
    return it == on_.end() ? none_ : it->second;
  }

 private:
  const ClusterState& c_;
  Workload w_;
  std::vector<Placement> p_;
  std::vector<TaskDemand> g_;
  std::map<NodeIndex, std::vector<JobIndex>> on_;
  const std::vector<JobIndex> none_;
};

Job MakeJob(int tasks, int gpus, int64_t cpu_milli, float util, StallSplit st) {
  Job j;
  j.name = "j";
  j.tasks = tasks;
  j.task.gpus = gpus;
  j.task.cpu_milli = cpu_milli;
  j.task.mem_bytes = kGiB;
  j.runtime = Seconds(1000);
  j.util = util;
  j.util_known = true;
  j.stalls = st;
  return j;
}

TaskDemand WithCpu(const Job& j, int64_t cpu_milli) {
  TaskDemand d = j.task;
  d.cpu_milli = cpu_milli;
  return d;
}

TEST(StallModel, PartsResolveWithDefaults) {
  StallParts p = ResolveParts(MakeJob(1, 1, 4000, 0.5f, {0.4f, -1, -1}), 0.1);
  EXPECT_DOUBLE_EQ(p.busy, 0.5);
  EXPECT_FLOAT_EQ(static_cast<float>(p.input_cpu), 0.4f);
  EXPECT_EQ(p.comm, 0.0);  // one GPU: no communication by default
  EXPECT_NEAR(p.fixed, 0.1, 1e-7);
  p = ResolveParts(MakeJob(2, 4, 4000, 0.85f, {-1, -1, -1}), 0.2);
  EXPECT_NEAR(p.comm, 0.15, 1e-7);  // cut to what is left after busy
  EXPECT_NEAR(p.fixed, 0.0, 1e-7);
}

TEST(StallModel, CpuStarvedJobGivenTwiceTheCores) {
  // u = 0.5, CPU input 0.4, fixed 0.1; 4 cores recorded, 8 given: s_cpu = 0.5.
  //   serial:     T = 0.1 + 0.5 + 0.4 x 0.5 = 0.8            -> rate 1.25
  //   overlapped: I = (0.5 + 0.4) x 0.5 = 0.45 < 0.5 = G,
  //               T = 0.1 + max(0.5, 0.45) = 0.6             -> rate 1 / 0.6
  const ClusterState c = Cluster();
  const Job j = MakeJob(1, 1, 4000, 0.5f, {0.4f, 0, 0});
  for (Composition comp : {Composition::kSerial, Composition::kOverlapped}) {
    SCOPED_TRACE(comp == Composition::kSerial ? "serial" : "overlapped");
    const StallProgress m(comp, 0.1);
    View same(c), more(c);
    const JobIndex a = same.Add(j, {{0, 0b1}}, j.task);
    const JobIndex b = more.Add(j, {{0, 0b1}}, WithCpu(j, 8000));
    const Progress p0 = m.Evaluate(a, same);
    EXPECT_EQ(p0.rate, 1.0);  // identity
    EXPECT_NEAR(p0.idle[kInputIdx], 0.4, 1e-7);
    const Progress p1 = m.Evaluate(b, more);
    if (comp == Composition::kSerial) {
      EXPECT_NEAR(p1.rate, 1.25, 1e-6);
      EXPECT_NEAR(p1.idle[kInputIdx], 0.2 / 0.8, 1e-6);
      EXPECT_NEAR(p1.idle[kFixedIdx], 0.1 / 0.8, 1e-6);
    } else {
      EXPECT_NEAR(p1.rate, 1 / 0.6, 1e-6);
      EXPECT_NEAR(p1.idle[kInputIdx], 0.0, 1e-9);  // the stall is gone
      EXPECT_NEAR(p1.idle[kFixedIdx], 0.1 / 0.6, 1e-6);
    }
  }
  // Half the cores: serial 0.1 + 0.5 + 0.8 = 1.4; overlapped
  // I = 0.9 x 2 = 1.8, T = 0.1 + 1.8 = 1.9.
  View fewer(c);
  const JobIndex k = fewer.Add(j, {{0, 0b1}}, WithCpu(j, 2000));
  EXPECT_NEAR(StallProgress(Composition::kSerial, 0.1).Evaluate(k, fewer).rate, 1 / 1.4, 1e-6);
  EXPECT_NEAR(StallProgress(Composition::kOverlapped, 0.1).Evaluate(k, fewer).rate, 1 / 1.9, 1e-6);
}

TEST(StallModel, HeadroomBindsOnlyBelowMeasuredUse) {
  // No recorded input stall, but the job used 3 of its 4 cores (h = 0.75).
  // Overlapped: input stage I = u h s_cpu. With 4 cores I = 0.375 < 0.5;
  // with 2 cores I = 0.75 > 0.5: T = 0.5 + 0.75 = 1.25 (fixed 0.5).
  const ClusterState c = Cluster();
  Job j = MakeJob(1, 1, 4000, 0.5f, {0, 0, 0});
  j.host_cpu_used_milli = 3000;
  const StallProgress m(Composition::kOverlapped, 0.1);
  View v(c);
  const JobIndex a = v.Add(j, {{0, 0b1}}, j.task);
  const JobIndex b = v.Add(j, {{1, 0b1}}, WithCpu(j, 2000));
  EXPECT_EQ(m.Evaluate(a, v).rate, 1.0);
  EXPECT_NEAR(m.Evaluate(b, v).rate, 1 / 1.25, 1e-6);
  EXPECT_NEAR(m.Evaluate(b, v).idle[kInputIdx], 0.25 / 1.25, 1e-6);
  // Serial composition scales recorded stalls only: no change.
  EXPECT_EQ(StallProgress(Composition::kSerial, 0.1).Evaluate(b, v).rate, 1.0);
}

TEST(StallModel, JobMovedAcrossRacks) {
  // 2 tasks x 4 GPUs, u = 0.6, comm 0.2 (recorded), fixed 0.2. Assumed
  // recorded one task a node in one rack (12.5 GB/s). Across the 4:1
  // uplinks it gets 3.125 GB/s: s_net = 4; serial T = 0.2 + 0.6 + 0.8 = 1.6.
  const ClusterState c = Cluster();
  const Job j = MakeJob(2, 4, 4000, 0.6f, {0, 0, 0.2f});
  const StallProgress m(Composition::kSerial, 0.1);
  View v(c);
  const JobIndex in_rack = v.Add(j, {{0, 0x0F}, {1, 0x0F}}, j.task);
  const JobIndex across = v.Add(j, {{0, 0xF0}, {2, 0x0F}}, j.task);
  EXPECT_EQ(m.Evaluate(in_rack, v).rate, 1.0);
  const Progress p = m.Evaluate(across, v);
  EXPECT_NEAR(p.rate, 1 / 1.6, 1e-6);
  EXPECT_NEAR(p.idle[kCommIdx], 0.8 / 1.6, 1e-6);
}

TEST(StallModel, TwoJobsShareANic) {
  // Two 2-node jobs on n-0 and n-1, each driving 10 GB/s over 12.5 GB/s
  // NICs: max-min fair share 6.25 each, s_net = 10 / 6.25 = 1.6. With
  // comm 0.25, u 0.5, fixed 0.25: T = 0.25 + 0.5 + 0.25 x 1.6 = 1.15.
  // A third job demanding 2 GB/s gets all of it; the two big ones then
  // share 12.5 - 2 = 10.5: 5.25 each, s = 10 / 5.25.
  const ClusterState c = Cluster();
  Job j = MakeJob(2, 2, 4000, 0.5f, {0, 0, 0.25f});
  j.nic_bytes_s = 10e9;
  const StallProgress m(Composition::kSerial, 0.1);
  View v(c);
  const JobIndex a = v.Add(j, {{0, 0b11}, {1, 0b11}}, j.task);
  EXPECT_EQ(m.Evaluate(a, v).rate, 1.0);  // alone: its 10 GB/s fit
  const JobIndex b = v.Add(j, {{0, 0b1100}, {1, 0b1100}}, j.task);
  EXPECT_NEAR(m.Evaluate(a, v).rate, 1 / 1.15, 1e-6);
  EXPECT_NEAR(m.Evaluate(b, v).rate, 1 / 1.15, 1e-6);
  Job small = j;
  small.nic_bytes_s = 2e9;
  const JobIndex s = v.Add(small, {{0, 0b110000}, {1, 0b110000}}, small.task);
  EXPECT_EQ(m.Evaluate(s, v).rate, 1.0);
  EXPECT_NEAR(m.Evaluate(a, v).rate, 1 / (0.75 + 0.25 * 10 / 5.25), 1e-6);
  // A single-node job does not touch the NIC.
  Job local = j;
  const JobIndex l = v.Add(local, {{0, 0b11000000}}, local.task);
  EXPECT_NEAR(m.Evaluate(a, v).rate, 1 / (0.75 + 0.25 * 10 / 5.25), 1e-6);
  EXPECT_EQ(m.Evaluate(l, v).rate, 1.0);
}

TEST(StallModel, StorageSharedOnANode) {
  // Two jobs reading 1.5 GB/s each from a 2 GB/s node store: 1 GB/s each,
  // s_sto = 1.5. Storage stall 0.2, u 0.5, fixed 0.3: serial
  // T = 0.3 + 0.5 + 0.3 = 1.1; the storage share of idle time is 0.3 / 1.1.
  const ClusterState c = Cluster();
  Job j = MakeJob(1, 1, 4000, 0.5f, {0, 0.2f, 0});
  j.storage_bytes_s = 1.5e9;
  const StallProgress m(Composition::kSerial, 0.1);
  View v(c);
  const JobIndex a = v.Add(j, {{3, 0b1}}, j.task);
  EXPECT_EQ(m.Evaluate(a, v).rate, 1.0);
  v.Add(j, {{3, 0b10}}, j.task);
  const Progress p = m.Evaluate(a, v);
  EXPECT_NEAR(p.rate, 1 / 1.1, 1e-6);
  EXPECT_NEAR(p.idle[kStorageIdx], 0.3 / 1.1, 1e-6);
}

TEST(StallModel, MaxMinShares) {
  EXPECT_DOUBLE_EQ(MaxMinShare(10, {10, 10}, 12.5), 6.25);
  EXPECT_DOUBLE_EQ(MaxMinShare(2, {2, 10, 10}, 12.5), 2);
  EXPECT_DOUBLE_EQ(MaxMinShare(10, {2, 10, 10}, 12.5), 5.25);
  EXPECT_DOUBLE_EQ(MaxMinShare(3, {3, 4}, 12.5), 3);
  EXPECT_EQ(StallProgress(Composition::kOverlapped, 0.1).name(), "stall-overlapped comm=0.1");
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
