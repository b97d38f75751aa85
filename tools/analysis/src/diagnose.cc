// `utilsim diagnose`: the numbers and verdicts (docs/diagnose.md). Text and
// JSON output are in diagnose_format.cc.
#include "utilsim/analysis/diagnose.h"

#include <algorithm>
#include <cmath>

#include "plan_text.h"
#include "utilsim/engine/units.h"

namespace utilsim {

const std::vector<CauseRemedy>& CauseRemedies() {
  static const std::vector<CauseRemedy> kTable = {
      {"input",
       "GPUs wait for input preprocessing on the host CPU (CPU starvation)",
       {},
       "--cpu-alloc measured (or proportional); --model stall-overlapped to see the effect",
       "give input-bound jobs the cores their profile shows they need"},
      {"storage",
       "GPUs wait for storage reads shared with other jobs on the node",
       {"worst-fit", "epvm"},
       "",
       "spreading jobs puts fewer readers on each node's storage; faster storage is a hardware "
       "fix"},
      {"communication",
       "GPUs wait for the network or synchronisation between a gang's tasks",
       {"topology-aware"},
       "profiles: the gang-locality score plugin",
       "keep a gang's tasks in one node, rack or switch"},
      {"fixed",
       "start-up, checkpointing and idle time inside the job itself",
       {},
       "",
       "no placement or queueing policy recovers it: it is the job's own (fix the job, or share "
       "GPUs)"},
      {"sharing",
       "jobs on a shared (fractional) GPU wait for their co-runners",
       {"worst-fit", "fgd"},
       "",
       "spread fractional jobs over GPUs"},
      {"unattributed",
       "idle time the progress model does not split by cause",
       {},
       "--model stall-serial or stall-overlapped (with stall columns or calibration, "
       "docs/model.md)",
       "the whole-gpu model attributes only communication; a stall model splits the rest"},
      {"stranded",
       "free GPUs on nodes whose CPU or memory is exhausted (not allocated, unusable)",
       {"stranding-hybrid"},
       "--gpu-reserve CORES[,GIB]",
       "keep CPU and memory for GPU work on GPU nodes"},
      {"free-while-queued",
       "GPUs left unallocated while jobs waited (fragmentation or head-of-line blocking)",
       {"fgd", "best-fit", "easy-backfill", "conservative-backfill", "fifo-skip"},
       "",
       "pack to keep whole nodes free (fgd, best-fit); let later jobs use the gaps (backfill)"},
  };
  return kTable;
}

namespace {

const CauseRemedy& Remedy(const std::string& cause) {
  for (const auto& r : CauseRemedies())
    if (cause == r.cause) return r;
  return CauseRemedies().front();  // unreachable: every row has a remedy
}

IdleCauseRow Row(const std::string& cause, double gpu_h, double idle_h) {
  IdleCauseRow row;
  const CauseRemedy& r = Remedy(cause);
  row.cause = cause;
  row.gpu_h = gpu_h;
  row.share_pct = idle_h > 0 ? 100.0 * gpu_h / idle_h : NAN;
  row.policies = r.policies;
  row.options = r.options;
  row.note = r.note;
  return row;
}

std::string Rule(const char* op, double threshold) {
  return std::string("yes when ") + op + " " + text::Fixed(threshold, 0) + " %";
}

}  // namespace

Diagnosis Diagnose(const RunResult& run, const DiagnoseThresholds& th, const Workload* workload) {
  const Summary& s = run.summary;
  Diagnosis d;
  d.label = run.meta.label;
  d.queue_policy = run.meta.queue_policy;
  d.placement_policy = run.meta.placement_policy;
  d.workload = run.meta.workload_source;
  d.cluster = run.meta.cluster_name;
  d.progress_model = run.meta.progress_model;
  d.capacity_gpus = s.capacity_gpus;
  d.jobs = s.jobs;
  d.window_start_s = s.window_start.seconds();
  d.window_end_s = s.window_end.seconds();
  d.energy_gpu_kwh = s.energy_busy_kwh + s.energy_alloc_idle_kwh + s.energy_free_kwh;
  d.energy_alloc_idle_kwh = s.energy_alloc_idle_kwh;
  d.energy_free_kwh = s.energy_free_kwh;
  d.energy_facility_kwh = s.energy_facility_kwh;
  d.pue = s.pue;
  d.energy_price_per_kwh = s.energy_price_per_kwh;
  d.idle_alloc_energy_cost = s.idle_alloc_energy_cost;
  for (size_t c = 0; c < kWaitCauses; ++c)
    if (s.wait_cause_h[c] > 0)
      d.wait_causes_h.emplace_back(WaitCauseName(static_cast<WaitCause>(c)), s.wait_cause_h[c]);
  d.down_absent_gpu_h = s.down_absent_gpu_h;
  d.down_maintenance_gpu_h = s.down_maintenance_gpu_h;
  d.down_failure_gpu_h = s.down_failure_gpu_h;
  {
    const double installed_h =
        static_cast<double>(s.capacity_gpus) * (s.window_end - s.window_start).seconds() / 3600.0;
    const double down = s.down_absent_gpu_h + s.down_maintenance_gpu_h + s.down_failure_gpu_h;
    d.down_pct = installed_h > 0 ? 100 * down / installed_h : 0;
    d.interruptions = s.interruptions;
    d.lost_gpu_h = s.lost_gpu_h;
    d.ettr_mean = s.ettr_mean;
    double queued = 0;
    for (double h : s.wait_cause_h) queued += h;
    d.nodes_down_wait_h = s.wait_cause_h[static_cast<size_t>(WaitCause::kNodesDown)];
    d.nodes_down_wait_pct = queued > 0 ? 100 * d.nodes_down_wait_h / queued : 0;
  }
  std::stable_sort(d.wait_causes_h.begin(), d.wait_causes_h.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  const double cap = static_cast<double>(s.capacity_gpus);

  // Q1: allocation.
  DiagnoseAnswer q1;
  q1.id = "allocated";
  q1.question = "Are the GPUs highly allocated?";
  q1.value = s.allocation_pct;
  q1.unit = "%";
  q1.rule = Rule(">=", th.high_allocation_pct);
  q1.yes = s.allocation_pct >= th.high_allocation_pct;
  q1.detail = "allocation " + text::Pct(s.allocation_pct) + " of " +
              std::to_string(s.capacity_gpus) + " GPUs over the window (" +
              text::Fixed(s.alloc_gpu_h, 1) + " GPU-h allocated)";
  d.answers.push_back(q1);

  // Q2: useful work against allocation.
  DiagnoseAnswer q2;
  q2.id = "underused";
  q2.question = "Is useful work below what the allocated GPUs could deliver?";
  q2.value = s.alloc_gpu_h > 0 ? 100.0 * s.idle_alloc_gpu_h / s.alloc_gpu_h : NAN;
  q2.unit = "%";
  q2.rule = std::string("yes when idle allocated GPU-h > ") + text::Fixed(th.idle_share_pct, 0) +
            " % of allocated GPU-h";
  q2.yes = q2.value > th.idle_share_pct;
  q2.detail = "effective utilization " + text::Pct(s.effective_util_pct) +
              " of capacity against allocation " + text::Pct(s.allocation_pct) + "; " +
              text::Fixed(s.idle_alloc_gpu_h, 1) + " GPU-h allocated but idle (" +
              text::Pct(q2.value) + " of allocated), idle cost " + text::Fixed(s.idle_cost, 2) +
              " at " + text::Fixed(s.price_per_gpu_h, 2) + "/GPU-h";
  if (workload) {
    double known = 0, all = 0;
    for (const Job& j : workload->jobs) {
      const double gpu_s = static_cast<double>(j.tasks) *
                           static_cast<double>(j.task.total_gpu_milli()) / kMilliPerUnit *
                           j.runtime.seconds();
      all += gpu_s;
      if (j.util_known) known += gpu_s;
    }
    d.util_measured_pct = all > 0 ? 100.0 * known / all : NAN;
    if (!(known > 0)) {
      q2.unknown = true;
      q2.detail +=
          "; UNKNOWN: no job of the trace has a measured utilization, so every "
          "allocated GPU-hour counts as busy (add --telemetry or --util-library)";
    } else if (d.util_measured_pct < 99.95) {
      q2.detail += "; utilization measured for " + text::Pct(d.util_measured_pct) +
                   " of the GPU time, the rest counts as 100 % busy";
    }
  } else if (s.alloc_gpu_h > 0 && s.idle_alloc_gpu_h == 0) {
    q2.detail +=
        "; every allocated GPU-hour was busy: a trace without measured utilization "
        "looks like this (jobs without one count as 100 % busy)";
  }
  d.answers.push_back(q2);
  d.mfu_available = false;
  d.mfu_note =
      "MFU not available: no trace format this version reads records model FLOPs (effective "
      "utilization is busy time, not FLOP efficiency)";

  // Q3: queues while the cluster looks full, from the samples in the window.
  int64_t n = 0, full_queued = 0, queued = 0;
  double busy_full = 0, free_queued = 0;
  for (const Sample& x : run.samples) {
    if (x.time < s.window_start || x.time >= s.window_end) continue;
    ++n;
    if (x.queued > 0) {
      ++queued;
      free_queued += std::max(0.0, cap - x.gpus_allocated);
      if (x.gpus_allocated >= th.full_allocation_pct / 100.0 * cap) {
        ++full_queued;
        busy_full += x.gpus_busy;
      }
    }
  }
  d.window_samples = n;
  d.full_and_queued_pct =
      n > 0 ? 100.0 * static_cast<double>(full_queued) / static_cast<double>(n) : NAN;
  d.queued_pct = n > 0 ? 100.0 * static_cast<double>(queued) / static_cast<double>(n) : NAN;
  d.busy_when_full_pct =
      full_queued > 0 && cap > 0 ? 100.0 * busy_full / static_cast<double>(full_queued) / cap : NAN;
  d.free_while_queued_gpu_h = free_queued * run.meta.sample_interval.seconds() / 3600.0;
  DiagnoseAnswer q3;
  q3.id = "queued-while-full";
  q3.question = "Do queues stay long while capacity looks full?";
  q3.value = d.full_and_queued_pct;
  q3.unit = "%";
  q3.rule = "yes when the cluster is >= " + text::Fixed(th.full_allocation_pct, 0) +
            " % allocated with jobs queued for >= " + text::Fixed(th.full_and_queued_pct, 0) +
            " % of the window";
  q3.yes = q3.value >= th.full_and_queued_pct;
  q3.detail = text::Pct(d.full_and_queued_pct) +
              " of the window >= " + text::Fixed(th.full_allocation_pct, 0) +
              " % allocated with jobs queued (" + std::to_string(full_queued) + " of " +
              std::to_string(n) + " samples); jobs queued in " + text::Pct(d.queued_pct) +
              "; wait to first start p95 " + text::Duration(s.wait_p95_s) + ", mean " +
              text::Duration(s.wait_mean_s) + "; all time queued (preemptions included) p95 " +
              text::Duration(s.queued_p95_s) + ", mean " + text::Duration(s.queued_mean_s);
  if (full_queued > 0)
    q3.detail += "; while full with jobs queued, only " + text::Pct(d.busy_when_full_pct) +
                 " of the GPUs were busy";
  d.answers.push_back(q3);

  // Causes: idle allocated GPU-h by cause, largest first (ties in the fixed
  // order), then the GPU time lost outside allocations.
  const double idle = s.idle_alloc_gpu_h;
  std::vector<IdleCauseRow> rows = {
      Row("input", s.idle_input_gpu_h, idle),
      Row("storage", s.idle_storage_gpu_h, idle),
      Row("communication", s.idle_comm_gpu_h, idle),
      Row("fixed", s.idle_fixed_gpu_h, idle),
      Row("sharing", s.idle_sharing_gpu_h, idle),
      Row("unattributed", s.idle_unattributed_gpu_h, idle),
  };
  std::stable_sort(rows.begin(), rows.end(),
                   [](const IdleCauseRow& a, const IdleCauseRow& b) { return a.gpu_h > b.gpu_h; });
  rows.push_back(Row("stranded", s.stranded_gpu_h, 0));
  rows.push_back(Row("free-while-queued", d.free_while_queued_gpu_h, 0));
  d.causes = std::move(rows);
  return d;
}

}  // namespace utilsim
