// Runs with MIG (docs/mig.md, "Simulation"): what BuildRun does for
// RunSpec::mig (right-size[:TOL] expands the cluster's MIG layouts and
// right-sizes the jobs, dynamic[:TOL] sizes them for repartitioning during
// the run; both noted in every result). Also the MIG figures of a
// run (slice-weighted allocation, slices allocated and busy, slowdown on
// instances), which the summary cannot give: there an instance counts as a
// GPU.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "utilsim/analysis/run_spec.h"
#include "utilsim/engine/cluster_spec.h"
#include "utilsim/engine/metrics.h"
#include "utilsim/engine/mig_cluster.h"
#include "utilsim/engine/status.h"
#include "utilsim/io/inputs.h"
#include "utilsim/policies/mig_repartition.h"
#include "utilsim/policies/registry.h"

namespace utilsim {

// "right-size" or "right-size:TOL" (TOL in (0, 1], default 0.9), or
// "dynamic" / "dynamic:TOL". Errors name --mig.
struct MigMode {
  bool dynamic = false;  // repartition during the run (policies/mig_repartition.h)
  RightSizeParams size;
};
Result<MigMode> ParseMigMode(const std::string& text);
// The right-sizing parameters of ParseMigMode (either mode).
Result<RightSizeParams> ParseMigOption(const std::string& text);
// "CREATE[,DESTROY[,FIXED]]" seconds >= 0 (--mig-reconfig; DESTROY defaults
// to CREATE, FIXED to 0). Errors name --mig-reconfig.
Result<mig::ReconfigTimes> ParseMigReconfig(const std::string& text);

// What MIG changes of a run (BuildRun step 2, run_spec.h).
struct MigRun {
  bool dynamic = false;
  ClusterSpec run_cluster;           // right-size: the expanded cluster; dynamic: as given
  std::vector<std::string> notes;    // right-sizing figures and how instances are counted
  MigRepartitionParams repartition;  // dynamic: for MakeMigRepartition
};
// Validates the cluster's MIG layouts (errors name mig and the node group /
// field, ExpandMig) and sizes `w`'s jobs in place: right-size expands the
// cluster and right-sizes the jobs (RightSizeMig, a derived mapping);
// dynamic keeps the cluster and sizes the jobs by RightSizeMigDynamic.
Result<MigRun> PrepareMig(const MigSpec& spec, const ClusterSpec& cluster, Workload* w);
// Appends the run's slice figures (ComputeMigUsage against the physical
// cluster; `sized`: the dynamic run's workload, else null) to its notes.
Status NoteMigUsage(const ClusterSpec& physical, const Workload* sized, RunResult* r);

// MIG figures of one run over [first submit, last finish] (span_s), from the
// job records. `run_cluster` is the cluster the run used (expanded or not;
// it is expanded here when it has MIG layouts), `physical_gpus` the GPUs of
// the physical cluster. A job's instance: the GPU model of its first task's
// node; whole GPUs (and 7g) have 7 slices. Dynamic MIG (a run on the
// unexpanded cluster): a job on a node of a `mig` group has the compute
// slices of its profile in `sized` (the run's workload after
// RightSizeMigDynamic, matched by job name); pass null otherwise.
//   gpu_alloc_h   sum alloc_gpu_s x slices / 7 (GPU-equivalents held)
//   useful_h      sum useful_gpu_s (full-GPU busy work, the same in any run)
//   slice_alloc_h sum alloc_gpu_s x slices;  slice_busy_h: the same for the
//                 instance-busy time, alloc - (instances x recorded runtime
//                 - useful) for finished jobs (the inner model's idle time is
//                 not busy; MigProgress adds none), useful otherwise
//   small_jobs    finished jobs on instances of fewer than 7 slices;
//   slowdown_small mean (finish - start) / recorded runtime over them
struct MigUsage {
  int64_t physical_gpus = 0;
  double span_s = 0;
  double gpu_alloc_h = 0, useful_h = 0, slice_alloc_h = 0, slice_busy_h = 0;
  double alloc_pct = 0;           // gpu_alloc_h / (physical_gpus x span)
  double effective_util_pct = 0;  // useful_h / (physical_gpus x span)
  double slice_busy_pct = 0;      // slice_busy_h / slice_alloc_h
  int64_t small_jobs = 0;
  double slowdown_small = 1;
};
Result<MigUsage> ComputeMigUsage(const RunResult& r, const ClusterSpec& run_cluster,
                                 int64_t physical_gpus, const Workload* sized = nullptr);

}  // namespace utilsim
