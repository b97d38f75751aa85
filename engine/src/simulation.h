// The simulation behind Engine (private to the engine): per-event logic and
// exact accounting in simulator.cc, the run loop and results in
// simulation_run.cc.
#pragma once

#include <array>
#include <atomic>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "accounting.h"
#include "event_queue.h"
#include "finish_heap.h"
#include "run_state.h"
#include "summary.h"
#include "utilsim/engine/engine.h"
#include "utilsim/engine/simulator.h"
#include "utilsim/engine/stranding.h"
#include "utilsim/engine/units.h"

namespace utilsim::internal {

inline constexpr JobIndex kNoJob = std::numeric_limits<JobIndex>::max();
// A kClusterChange event's `job`: a node index (powering off, waking up), or
// this tag + the index of a cluster event (SimConfig::cluster_events).
inline constexpr uint32_t kNodeEventTag = 0x80000000u;

// Splits `idle` GPU-seconds by cause in proportion to `share_us` (all
// unattributed when the shares are all zero).
void SplitIdle(double idle, const std::array<double, kCauses>& share_us,
               std::array<double, kCauses>* out);

class Simulation final : public Engine, public PassContext, public RunView {
 public:
  Simulation(ClusterState cluster, const Workload& w, Scheduler& s, const SimConfig& cfg)
      : cluster_(std::move(cluster)),
        w_(w),
        sched_(s),
        cfg_(cfg),
        default_progress_(cfg.comm_fraction) {
    progress_ = cfg_.progress ? cfg_.progress : &default_progress_;
  }

  // Checks the inputs, initialises the scheduler, queues the first events.
  Status Init();

  // Engine
  Result<bool> Step() override;
  Status RunUntil(Micros t) override;
  bool Done() const override { return done_; }
  Result<RunResult> Finish() override;
  void RequestStop() override { stop_requested_.store(true, std::memory_order_relaxed); }
  Micros Now() const override { return now_; }

  // PassContext
  Micros now() const override { return now_; }
  const Workload& workload() const override { return w_; }
  ClusterState& cluster() override { return cluster_; }
  ModelMask mask(JobIndex j) const override { return masks_[j]; }
  Status Start(JobIndex j, const Placement& p) override { return StartWith(j, p, w_.jobs[j].task); }
  Status StartWith(JobIndex j, const Placement& p, const TaskDemand& granted) override;
  const TaskDemand& granted(JobIndex j) const override {
    return granted_.empty() ? w_.jobs[j].task : granted_[j];
  }
  const std::vector<JobIndex>& running() const override { return running_list_; }
  Micros started_at(JobIndex j) const override { return RunOrNone(j).start; }
  const Placement& placement_of(JobIndex j) const override { return RunOrNone(j).placement; }
  double work_done_s(JobIndex j) const override {
    const JobRun& r = RunOrNone(j);
    return (r.done + (r.running ? static_cast<double>((now_ - r.last).us) * r.rate : 0)) /
           kMicrosPerSecond;
  }
  Status Preempt(JobIndex j) override;
  void Waiting(JobIndex j, WaitCause cause, WaitCause if_fits, JobIndex blocker,
               Micros estimate) override {
    reports_.push_back(WaitReport{j, cause, if_fits, blocker, estimate});
  }

  // RunView
  const ClusterState& state() const override { return cluster_; }
  const std::vector<JobIndex>& jobs_on(NodeIndex n) const override {
    return on_node_.empty() ? no_jobs_ : on_node_[n];
  }
  double speed(JobIndex j) const override { return RunOrNone(j).speed; }
  double comm_slowdown(JobIndex j) const override {
    const JobRun& r = RunOrNone(j);
    if (r.comm < 0) r.comm = CommSlowdown(w_.jobs[j], r.placement, cluster_);
    return r.comm;
  }

 private:
  // Live job j's state. Precondition: j is live (arrived, record not final).
  JobRun& Run(JobIndex j) { return live_[slot_[j]]; }
  const JobRun& Run(JobIndex j) const { return live_[slot_[j]]; }
  bool IsLive(JobIndex j) const { return j < slot_.size() && slot_[j] < kFinal; }
  // For the policies' and progress models' queries, which may name any job:
  // a job that is not live reads as one never started.
  const JobRun& RunOrNone(JobIndex j) const {
    static const JobRun none;
    return IsLive(j) ? Run(j) : none;
  }
  // Gives job j a fresh slot (precondition: not live); frees it once its
  // record is final (precondition: live).
  JobRun& Acquire(JobIndex j);
  void ReleaseRun(JobIndex j);
  // Adds job j's held, busy, idle and energy integrals to windows_.
  // Precondition: its meter is final (RecordOf: accounted up to now_).
  void AddToWindows(JobIndex j);
  void Observe(EventKind kind, JobIndex j) {
    if (cfg_.observer) cfg_.observer(EngineEvent{now_, kind, j}, *this);
  }
  // Job j's record, once it is final (rejected, finished or killed) or at
  // the end of the run (accounts a running job up to now_). Called once per
  // job: it moves the job's reason out.
  JobRecord RecordOf(JobIndex j);
  // Gives a final record to the sink and keeps it (SimConfig::keep_rows) or
  // only the figures the summary needs.
  void Deliver(JobRecord&& rec);
  void Deliver(Sample&& s);
  // The state now, after every event so far. at_tick: a sample tick (brings
  // series jobs' accounting up to now and checks the stranded count against
  // a scan of the nodes, as samples always did); otherwise the accounting is
  // left alone (a series job's busy fraction is taken at its progress now).
  Sample StateNow(bool at_tick);
  // Series form "changes": the instant now_ is over (called before time
  // moves on, and in Finish); delivers its change point if the state
  // differs from the last one, and checks it against the tick's sample.
  void EndInstant();
  // Time of the next event, kNever when none is left.
  Micros NextTime() const;
  // Processes one event (precondition: one is left, at or before the horizon).
  Status ProcessNext();
  std::string Infeasible(const Job& job, ModelMask mask);
  void SchedulePass(Micros t);
  void DoArrival(JobIndex j);
  void DoFinish(JobIndex j);
  // A sample tick; false when not taken (TickIdle).
  bool DoSample();
  // Change points: a tick need not be taken when it cannot differ from the
  // point of its instant nor feed anything: no series job (whose progress
  // it would account), no sampled fragmentation mean to feed, and the
  // nodes' resources unchanged since the last tick's scan of them.
  bool TickIdle() const {
    return changes_form_ && running_series_.empty() && !frag_meter_ &&
           cluster_.version() == scanned_version_;
  }
  // True when a window mark not yet taken falls at or before t.
  bool MarkDue(Micros t) const {
    for (const JobMarks& m : marks_)
      if (!m.taken && m.time <= t) return true;
    return false;
  }
  void UpdateRates(const Placement& p, JobIndex except);
  void SetProgress(JobIndex j, const Progress& pr);
  void Account(JobIndex j);  // brings progress and busy accounting up to now_
  bool HasFutureWork() const;
  int64_t ConstBusy(JobIndex j) const;
  // The GPU share job j holds while running, in micro-GPUs (an integer,
  // exact as a double).
  double MicroGpus(JobIndex j) const {
    const Job& job = w_.jobs[j];
    return static_cast<double>(job.task.total_gpu_milli()) * job.tasks * 1000.0;
  }
  // Contribution of a running constant-util job to the idle sum of cause c,
  // micro-GPUs (from its current share).
  int64_t IdleMicro(JobIndex j, size_t c) const {
    const float share = Run(j).share[c];
    if (share == 0.0f) return 0;
    return std::llround(MicroGpus(j) * static_cast<double>(share));
  }
  void AddRunning(JobIndex j);
  void RemoveRunning(JobIndex j);
  // Busy GPU-us of series job j while it does the recorded work [d0, d1]
  // at its current rate (> 0).
  double SeriesBusyUs(JobIndex j, double d0, double d1) const;
  // Exact accounting (accounting.h): the levels now, the meter brought up to
  // t before the events at t, window marks, stranded GPUs per node.
  Levels LevelsNow() const {
    return Levels{cluster_.allocated_gpu_milli(),
                  cluster_.allocated_cpu(),
                  cluster_.allocated_mem(),
                  stranded_total_,
                  free_uw_total_,
                  stranded_uw_total_,
                  node_uw_total_,
                  off_gpus_,
                  down_gpus_};
  }
  // Powering off idle nodes (SimConfig::power_off_after): node n became
  // empty now; a cluster-change event for n (power off, or a wake-up done);
  // after a pass, wake off nodes for the jobs it could not place.
  void NodeEmptied(NodeIndex n);
  void DoClusterChange(uint32_t what);
  void WakeFor(const std::vector<JobIndex>& unplaced);
  void SetNodePower(NodeIndex n, uint8_t state);
  // True when an off or waking node could host a task of job j.
  bool FitsOnSleepingNode(JobIndex j) const;
  // Clusters that change (cluster_events.h; cluster_change.cc): resolves
  // the events' nodes, applies those at or before the start, queues the
  // rest; applies event i; a node goes down (precondition: nothing on it)
  // or comes up; the node's cordon from its power, down and drain states.
  Status InitClusterEvents();
  void DoNodeEvent(size_t i);
  void SetDown(NodeIndex n, DownCause c);
  void SetUp(NodeIndex n);
  void RefreshCordon(NodeIndex n);
  // Stragglers (NodeChange::kSlow): the pace job j runs at, the least of
  // its nodes' (1 when none is slow); re-rates the running jobs on `nodes`.
  double Pace(JobIndex j) const;
  void Repace(const std::vector<NodeIndex>& nodes);
  // The running jobs with a task on `nodes`, in job order.
  std::vector<JobIndex> RunningOn(const std::vector<NodeIndex>& nodes) const;
  bool Unavailable(NodeIndex n) const {
    return !down_.empty() && (down_[n] | drained_[n] | pending_down_[n]) != 0;
  }
  bool IsDown(NodeIndex n) const { return !down_.empty() && down_[n] != 0; }
  // True when a down, drained or absent node's free resources could host a
  // task of job j now.
  bool FitsOnUnavailableNode(JobIndex j) const;
  // Stops running job j because a node of its placement goes down: it keeps
  // the work of its last checkpoint (SimConfig::checkpoint_interval) less
  // the restart cost and is queued again (Scheduler::OnKilled).
  void Interrupt(JobIndex j);
  // Removes running job j from the running state and releases its
  // resources (Preempt, Interrupt); it is queued again.
  void StopRunning(JobIndex j, double keep_work);
  int64_t NodeUw(NodeIndex n) const;  // node n's non-GPU power, micro-watts
  // Power (power.h): per GPU model of the cluster, resolved once; the free
  // power of the nodes of p brought up to date after an allocation change.
  // Per-model power figures, node power, and the power budget (SimConfig).
  Status InitPower();
  Status InitBudget(ClusterState::PowerBudget budget);
  // Why job can never start under the power budget ("" when it can).
  std::string OverBudget(const Job& job, ModelMask mask);
  void UpdatePower(const Placement& p);
  // Sets job j's per-GPU context and active watts from its placement.
  void SetJobPower(JobIndex j);
  // Job j's power now in micro-watts, at busy fraction `busy`.
  int64_t JobPowerUw(JobIndex j, double busy) const {
    const JobRun& r = Run(j);
    return std::llround(MicroGpus(j) * (r.context_w + (r.active_w - r.context_w) * busy));
  }
  void AdvanceMeters(Micros t);
  void TakeMark(JobMarks* m);
  JobMeter MeterOf(JobIndex j) const;  // held/busy/idle up to now_ (accounted)
  // What job j had accumulated at the instant of mark m, given its final
  // meter `total`: its meter at the mark, total (it ended before the mark),
  // or zero (it started after it).
  const JobMeter* MeterAt(const JobMarks& m, JobIndex j, const JobMeter& total,
                          const JobMeter& zero) const;
  // The exact window integrals; checks them against the cluster's.
  // Precondition: every job's record is final (AddToWindows).
  WindowTotals WindowFigures(Micros ws, Micros we);
  void UpdateStranded(const Placement& p);
  void Violate(const std::string& name, JobIndex j, const std::string& detail);
  // Wait attribution (wait.h). A job becomes queued (arrival or preemption);
  // a pass's reports are applied after it; Settle brings job j's state up to
  // pass `pass` (the passes before it that did not examine j turn its cause
  // to the unexamined one); Close ends its current interval at t.
  void QueuedNow(JobIndex j, bool preempted);
  void ApplyWaitReports();
  void Settle(JobIndex j, uint32_t pass);
  void CloseWait(JobIndex j, Micros t);
  // Per-cause seconds of job j's closed intervals; checks their sum against
  // its queued time (queued_us).
  void WaitTotals(JobIndex j, int64_t queued_us, JobRecord* rec);
  // Energy invariants of a summary: every GPU draws between its idle and its
  // active power, so the GPUs' energy lies between those bounds over the
  // window; stranded energy is part of the free energy.
  void CheckEnergy(const Summary& s);

  ClusterState cluster_;
  const Workload& w_;
  Scheduler& sched_;
  const SimConfig cfg_;  // a copy: the engine may outlive the caller's
  WholeGpuProgress default_progress_;
  const ProgressModel* progress_;
  bool interacts_ = false;  // progress_->Interacts for this run

  EventQueue events_;              // arrivals, passes, cluster changes
  Micros next_tick_ = kNever;      // the next sample tick (kSample events, outside the queue)
  FinishHeap finishes_;            // running jobs by finish time
  StrandingTest stranding_;        // can a node's free CPU/memory still host a GPU task?
  std::vector<JobIndex> touched_;  // UpdateRates scratch: co-runners to re-rate
  std::vector<Progress> rerated_;  // and their new progress
  Micros now_{0};
  Micros pass_at_ = Micros(-1);  // time of the pending pass event, if any
  size_t next_arrival_ = 0;
  std::vector<ModelMask> masks_;
  // Live jobs' state (run_state.h): slot_[j] is job j's index into live_
  // while it is live, else kNotArrived or kFinal; freed slots are reused
  // last-freed first (their memory is the warmest).
  static constexpr uint32_t kNotArrived = UINT32_MAX, kFinal = UINT32_MAX - 1;
  std::vector<uint32_t> slot_;
  std::vector<JobRun> live_;
  std::vector<uint32_t> free_slots_;
  // The window integrals of the jobs whose records are final (AddToWindows),
  // for each pair of window ends: [from the run's start or from the first
  // mark][to the second mark or to the end].
  // Their allocation is also summed exactly, in milli-GPU-us (an integer
  // per job), so the headline figure does not depend on the order in which
  // jobs end.
  std::array<std::array<WindowTotals, 2>, 2> windows_{};
  std::array<std::array<WideInt, 2>, 2> window_alloc_{};
  std::vector<std::vector<JobIndex>> on_node_;  // running jobs per node, if interacts()
  struct NodeShape {
    NodeIndex example;
    int64_t count;
  };
  std::vector<NodeShape> shapes_;  // distinct (model, GPUs, CPU, memory) node shapes
  // The rows, when kept (SimConfig::keep_rows): records by job (filled as
  // they become final) and samples. Otherwise only the summary's figures.
  std::vector<JobRecord> jobs_;
  std::vector<Sample> samples_;
  // Series form "changes" (SimConfig::series): the points (rows kept), the
  // last one delivered, whether an event happened at now_ since the last
  // EndInstant, the sample of a tick at now_ (to check the point against).
  bool changes_form_ = false;
  std::vector<Sample> changes_;
  std::optional<Sample> last_point_, tick_sample_;
  bool instant_open_ = false;
  uint64_t frag_version_ = UINT64_MAX;  // ClusterState::version() of frag_now_
  double frag_now_ = 0;
  int64_t ticks_ = 0;  // sample ticks so far
  // ClusterState::version() at the last tick's scan of the nodes.
  uint64_t scanned_version_ = UINT64_MAX;
  std::vector<JobFigures> figures_;
  WaitMicros wait_us_{};  // queued us by cause over the delivered records (no rows kept)
  std::unique_ptr<FragMeter> frag_meter_;
  int64_t running_ = 0;
  int64_t events_processed_ = 0;
  Micros last_finish_{0};
  Micros window_start_{0};
  bool stopped_at_horizon_ = false;
  bool deadlocked_ = false;
  int64_t busy_micro_const_ = 0;                     // busy sum of constant-util running jobs
  std::array<int64_t, kCauses> idle_micro_const_{};  // idle by cause, constant-util jobs
  std::vector<TaskDemand> granted_;  // per job, once some job was granted other than its request
  const std::vector<JobIndex> no_jobs_;
  std::vector<JobIndex> running_series_;  // running jobs with a utilization series
  std::vector<JobIndex> running_list_;    // running jobs, in no particular order
  std::unique_ptr<ClusterMeter> meter_;
  std::array<JobMarks, 2> marks_;       // arrivals window: start, end
  std::vector<int32_t> node_stranded_;  // stranded GPUs per node (StrandingTest)
  int64_t stranded_total_ = 0;
  struct ModelPower {
    double idle_w = 0, context_w = 0, active_w = 0;
    int64_t idle_uw = 0, context_uw = 0;  // per GPU
  };
  std::vector<ModelPower> model_power_;  // by GPU model index
  std::vector<int64_t> node_free_uw_;    // power of each node's free GPU share
  int64_t free_uw_total_ = 0, stranded_uw_total_ = 0, node_uw_total_ = 0;
  int64_t power_const_uw_ = 0;  // power of the running constant-util jobs' GPUs
  struct WaitReport {
    JobIndex job;
    WaitCause cause, if_fits;
    JobIndex blocker;
    Micros estimate;
  };
  std::vector<WaitReport> reports_;  // of the pass in progress
  std::vector<Micros> pass_time_;    // time of each pass, by pass index
  std::vector<JobIndex> unplaced_;   // jobs the pass could not place
  // Power states: 0 on, 1 off, 2 waking (until wake_at_); the empty-since
  // time that a pending power-off check belongs to.
  std::vector<uint8_t> node_state_;
  std::vector<Micros> empty_since_, wake_at_;
  int64_t off_gpus_ = 0, sleeping_nodes_ = 0, wakeups_ = 0;
  size_t arrivals_done_ = 0;  // arrival events processed
  // Cluster events: the run's events and their nodes; per node, down (cause
  // + 1, 0 = up; the latest down's cause), drained, and a down waiting for
  // the node to empty (cause + 1); GPUs down by cause; nodes down, drained
  // or pending.
  std::vector<ClusterEvent> cluster_events_;
  std::vector<std::vector<NodeIndex>> event_nodes_;
  std::vector<uint8_t> down_, drained_, pending_down_;
  std::vector<uint32_t> down_count_;       // downs in effect or pending minus ups, per node
  std::vector<std::vector<double>> slow_;  // per node, the paces of the kSlow events in effect
  std::vector<double> node_pace_;          // per node, the least of them (1 = none)
  int64_t slow_nodes_ = 0;                 // nodes with a kSlow in effect
  std::array<int64_t, kDownCauses> down_gpus_{};
  int64_t unavailable_nodes_ = 0;
  std::string violation_;  // first broken invariant, if any
  bool done_ = false;      // no event will be processed any more
  bool finished_ = false;  // Finish() was called
  bool stopped_on_request_ = false;
  std::atomic<bool> stop_requested_{false};
};

}  // namespace utilsim::internal
