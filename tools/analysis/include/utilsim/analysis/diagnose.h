// `utilsim diagnose`: the allocation-versus-utilization diagnosis of one run
// (docs/diagnose.md). Three questions, each answered with its number, the
// threshold and a verdict; where the allocated-but-idle GPU time goes; and
// which policies and options of this project address each cause.
//
// Every number comes from the run's own tables (Summary, samples), so a
// diagnosis of a results database equals the diagnosis of the run that wrote
// it.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "utilsim/engine/job.h"
#include "utilsim/engine/metrics.h"

namespace utilsim {

// Thresholds of the verdicts (stated in every answer).
struct DiagnoseThresholds {
  double high_allocation_pct = 80;  // Q1: yes when allocation_pct >= this
  double idle_share_pct = 20;       // Q2: yes when idle / allocated GPU-h > this
  double full_allocation_pct = 90;  // Q3: a sample is "full" at >= this % of capacity allocated
  double full_and_queued_pct =
      25;  // Q3: yes when full with jobs queued for >= this % of the window
};

struct DiagnoseAnswer {
  std::string id;        // "allocated", "underused", "queued-while-full"
  std::string question;  // the question in words
  double value = 0;      // the deciding number
  std::string unit;      // "%"
  std::string rule;      // the threshold in words, e.g. "yes when >= 80 %"
  bool yes = false;
  bool unknown = false;  // no verdict: value NaN, or the data cannot tell (see detail)
  std::string detail;    // the supporting numbers in words
};

// A cause of allocated-but-idle (or unusable) GPU time and what addresses it.
struct IdleCauseRow {
  std::string cause;  // "input", "storage", ..., "stranded", "free-while-queued"
  double gpu_h = 0;
  double share_pct = 0;               // of idle allocated GPU-h (NaN for the non-idle rows)
  std::vector<std::string> policies;  // names `utilsim policies` lists
  std::string options;                // CLI options, e.g. "--cpu-alloc measured"
  std::string note;
};

// The static cause -> remedy table (docs/diagnose.md). Every name in
// `policies` is a queue or placement policy of BuiltinPolicies() (tested).
struct CauseRemedy {
  const char* cause;
  const char* what;  // what the cause means
  std::vector<std::string> policies;
  const char* options;
  const char* note;
};
const std::vector<CauseRemedy>& CauseRemedies();

struct Diagnosis {
  std::string label, queue_policy, placement_policy, workload, cluster, progress_model;
  int64_t capacity_gpus = 0, jobs = 0;
  double window_start_s = 0, window_end_s = 0;
  std::vector<DiagnoseAnswer> answers;  // the three questions, in order
  // Sample-based figures of Q3 (over samples in [window_start, window_end)).
  int64_t window_samples = 0;
  double full_and_queued_pct =
      0;                  // % of those samples >= full_allocation_pct allocated with jobs queued
  double queued_pct = 0;  // % of those samples with jobs queued
  double busy_when_full_pct =
      0;  // mean busy GPUs / capacity over the full-and-queued samples (NaN if none)
  double free_while_queued_gpu_h = 0;  // unallocated GPU-h while jobs were queued
  bool mfu_available = false;
  std::string mfu_note;
  // Share of the workload's GPU time (GPUs x recorded runtime) whose jobs
  // have a measured utilization (Job::util_known); jobs without one count as
  // 100 % busy. NaN when the workload is not at hand (a results database).
  double util_measured_pct = NAN;
  std::vector<IdleCauseRow>
      causes;  // idle causes by GPU-h, largest first, then stranded and free-while-queued
  // Energy over the window (docs/energy.md): the GPUs' energy, what idle
  // allocated GPUs drew and its cost at the run's energy price.
  double energy_gpu_kwh = 0, energy_alloc_idle_kwh = 0, energy_free_kwh = 0;
  double energy_facility_kwh = 0, pue = 1, energy_price_per_kwh = 0, idle_alloc_energy_cost = 0;
  // Queued job-hours by primary cause (docs/explain.md), largest first; zero
  // causes left out.
  std::vector<std::pair<std::string, double>> wait_causes_h;
  // Clusters that change (docs/cluster-events.md): GPU-h down in the window
  // by cause (absent, maintenance, failure), its share of the window's
  // installed GPU time, interruptions and the work they lost, the finished
  // jobs' mean ETTR, and the queued job-hours on nodes-down with their share.
  double down_absent_gpu_h = 0, down_maintenance_gpu_h = 0, down_failure_gpu_h = 0;
  double down_pct = 0;
  int64_t interruptions = 0;
  double lost_gpu_h = 0, ettr_mean = 1;
  double nodes_down_wait_h = 0, nodes_down_wait_pct = 0;
};

// `workload` (may be null) is the run's input, for util_measured_pct. With
// no job's utilization measured, question 2 has no verdict (UNKNOWN).
Diagnosis Diagnose(const RunResult& run, const DiagnoseThresholds& th = {},
                   const Workload* workload = nullptr);

// Plain text of one or more diagnoses; JSON (an object with a "runs" array).
std::string FormatDiagnosis(const std::vector<Diagnosis>& d, const DiagnoseThresholds& th = {});
std::string DiagnosisJson(const std::vector<Diagnosis>& d, const DiagnoseThresholds& th = {});

}  // namespace utilsim
