// The Philly CPU-starvation scenario (docs/model.md "Calibration"): the DRE
// sample of Philly jobs (sampled_jobs.json) with CPU input stalls calibrated
// from their start-up GPU and host-CPU windows, on the Philly machine list,
// every job given the GPU-proportional CPU baseline. Built here because it
// joins a trace reader (traces) with the estimator (workloads).
//
// Assumption (stated, not in the data): Philly's machine list has GPUs only.
// The scenario assumes the common 8-GPU server of 2017 with 2 x 12-core
// Xeons, i.e. 24 cores per 8 GPUs = 3 cores per GPU (2-GPU machines: 6
// cores), and gives each task cpu_milli_per_gpu x its GPUs (the
// GPU-proportional baseline). Memory stays as ReadPhillyMachines assumes
// (64 GiB per GPU); job memory demand is unknown (0).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "utilsim/engine/cluster_spec.h"
#include "utilsim/engine/job.h"
#include "utilsim/engine/status.h"
#include "utilsim/workloads/calibrate.h"

namespace utilsim {

struct PhillyScenarioOptions {
  // The philly-derived folder (machine_list/, dre_job_windows/).
  std::string dir;
  int64_t cpu_milli_per_gpu = 3000;  // 2 x 12 cores / 8 GPUs (assumed)
  FitOptions fit;                    // default: pooled, theta 0.8
  Attribution rule = Attribution::kFit;
  bool skip_failed = false;  // drop jobs with status Failed
  // true: only jobs with at least one window holding both GPU and CPU
  // samples (the calibrated jobs); false: every job, uncalibrated ones with
  // unknown stalls.
  bool calibrated_only = true;
};

struct PhillyScenario {
  Workload workload;
  ClusterSpec cluster;
  std::vector<JobWindows> windows;  // the calibration windows (minutes with both samples)
  CalibrationFit fit;
  ApplyReport applied;
  int64_t jobs_read = 0;           // jobs in sampled_jobs.json kept by the reader
  std::vector<std::string> notes;  // assumptions and counts, one line each
};

// Calibration windows from the Philly start windows: one CalibrationWindow
// per (job, host, minute 0..3) holding both a GPU and a CPU sample; jobs
// without any such minute are left out. JobWindows::gpus = tasks x GPUs.
// Errors: the window readers' errors.
Result<std::vector<JobWindows>> PhillyCalibrationWindows(const std::string& dir,
                                                         const Workload& jobs,
                                                         const ClusterSpec* cluster);

// Reads <dir>/machine_list/cluster_machine_list.csv and
// <dir>/dre_job_windows/{sampled_jobs.json, gpu_util_window.csv,
// cpu_util_window.csv}, fits FitInputStalls(opt.fit) and applies
// ApplyInputStalls(rule, cpu_milli_per_gpu) to the workload; sets every
// task's cpu_milli to cpu_milli_per_gpu x its GPUs. Errors: the readers'
// errors, the fit's errors.
Result<PhillyScenario> BuildPhillyCpuScenario(const PhillyScenarioOptions& opt);

}  // namespace utilsim
