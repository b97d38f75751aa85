// MIG in the simulation with static layouts (docs/mig.md, "Simulation"):
// the cluster expansion that turns MIG GPUs into instance "GPUs", and the
// right-sizing that chooses each job's MIG profile.
//
// Expansion. ExpandMig(spec) replaces every node group that declares MIG
// layouts (NodeGroup::mig) by one node group per profile present in its
// layouts (largest profile first), named "<group>/<profile>", whose GPUs are
// that profile's instances on one physical node (the sum over the node's
// GPUs' layouts) and whose GPU model is "<gpu_model>/<profile>" (GPU memory
// = the physical model's memory x memory slices / 8, speed = the physical
// model's). A job placed there holds whole instances; instance counts per
// physical node and so per GPU are exactly the layouts' (MIG isolates the
// instances, so they are independent resources while layouts are static).
// Approximation (stated): the physical node's CPU and host memory are
// divided among its profile sub-nodes in proportion to the compute slices of
// their instances (floor; the remainder goes to the first sub-node), so a job
// cannot use CPU "belonging" to another profile's instances. NVLink domains
// of expanded groups are whole-node (0). A node group whose layouts hold no
// instance becomes a CPU-only group. Groups without `mig` are copied
// unchanged, as are the GPU models; expanded models are appended.
//
// Right-sizing (docs/mig.md, "Right-sizing"; results using it are derived).
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "utilsim/engine/cluster_spec.h"
#include "utilsim/engine/job.h"
#include "utilsim/engine/mig.h"
#include "utilsim/engine/status.h"
#include "utilsim/engine/units.h"

namespace utilsim {

// Separates the physical GPU model and the profile in an expanded GPU model
// name ("H100-80GB/1g.10gb") and an expanded group name ("h/1g.10gb").
inline constexpr char kMigSeparator = '/';

// The MIG model and profile an expanded GPU model name denotes; nullopt for a
// name without the separator, or whose parts are not a MIG model and one of
// its profiles.
struct MigInstanceModel {
  const mig::GpuModel* model = nullptr;
  int profile = 0;  // index into model->profiles
  const mig::Profile& prof() const { return model->profiles[profile]; }
};
std::optional<MigInstanceModel> ParseMigInstanceModel(std::string_view gpu_model_name);

// The expansion above. Errors name the cluster, node group and field:
// "cluster 'c', node group 'h': gpu_model 'V100' has no MIG profiles (MIG
// models: ...)", "... mig[1]: entry 1 '3g.40gb@1': start 1 is not a valid
// placement (valid starts: 0, 4)", "... mig: expected 1 or 8 layouts (one per
// GPU), got 3", and a rack topology with MIG groups (not supported: the
// expanded nodes would not be its members). A spec without MIG layouts is
// returned unchanged.
Result<ClusterSpec> ExpandMig(const ClusterSpec& spec);
// True when some node group declares MIG layouts.
bool HasMig(const ClusterSpec& spec);

// Right-sizing: each job's MIG profile from its measured utilization and GPU
// memory, for a cluster expanded by ExpandMig. For each physical MIG model
// M the job may use (Job::gpu_models, empty = any) the profile is chosen
// among the profiles present in the expanded cluster, ordered by (compute
// slices, memory slices); `+me` instances count as their plain 1g profile:
//  * jobs with more than one GPU (tasks x gpus > 1) and single-GPU jobs with
//    unknown utilization (!util_known) and a whole-GPU request keep whole
//    GPUs: the 7g profile;
//  * fractional requests (gpu_milli < 1000): the first profile with compute
//    slices >= ceil(7 x gpu_milli / 1000) whose memory holds the job's;
//  * other single-GPU jobs: the first profile whose memory holds the job's
//    and whose predicted speed MigSpeed(profile, MigDemandFromUtil(util))
//    is >= tolerance;
//  * when no present profile qualifies: 7g if present, else the largest
//    present one (counted as `fallback`).
// A profile below 7g qualifies only when the job's host CPU and memory
// requests fit one instance's share of its sub-node (ExpandMig divides the
// node's CPU and memory among the profiles by compute slices), so right-sized
// jobs cannot strand a sub-node's instances on CPU or memory.
// A job's GPU memory: gpu_mem_used_bytes when measured (>= 0), else the
// request task.gpu_mem_bytes (> 0), else unknown_mem_bytes (a stated
// default). Profile memory = the expanded model's memory_bytes.
// The job's gpu_models become the chosen "<M>/<profile>" names (with the
// "+me" twin when present) for every allowed MIG model, plus the allowed
// whole-GPU models of non-MIG groups; gpu_milli becomes 1000 (a job holds
// whole instances). Multi-GPU and CPU-only jobs are otherwise unchanged.
struct RightSizeParams {
  double tolerance = 0.9;                         // (0, 1]
  int64_t unknown_mem_bytes = 10 * kBytesPerGiB;  // 10 GiB, a stated assumption
  mig::MigSpeedParams speed;
};
struct RightSizeStats {
  int64_t jobs = 0;                           // GPU jobs seen
  int64_t multi_gpu = 0;                      // kept whole: more than one GPU
  int64_t unknown_util = 0;                   // kept whole: no measured utilization
  int64_t fractional = 0;                     // mapped from gpu_milli
  int64_t by_util = 0;                        // mapped from utilization and memory
  int64_t mem_unknown = 0;                    // of the mapped: memory from unknown_mem_bytes
  int64_t fallback = 0;                       // no present profile qualified
  std::map<std::string, int64_t> by_profile;  // chosen profile name (first MIG model) -> jobs
};
// Errors: tolerance out of (0, 1], a spec without expanded MIG models.
Result<RightSizeStats> RightSizeMig(const ClusterSpec& expanded, const RightSizeParams& params,
                                    Workload* w);
// One line for run notes: "mig right-size tol=0.9 (derived): 1g.10gb 812, ...".
std::string FormatRightSizeStats(const RightSizeStats& s, const RightSizeParams& params);

// Right-sizing for dynamic MIG (docs/mig.md, "Dynamic repartitioning"): the
// cluster is NOT expanded; the node groups that declare `mig` are
// MIG-managed, their declared layouts only the initial state. Each GPU job
// allowed on a MIG-managed group's model gets task.mig_profile, chosen as
// RightSizeMig chooses (same rules and counters) among ALL plain profiles of
// the model (not only those present), without the per-instance host share
// test (the node's CPU and memory are not divided: the placement checks them
// per node). Profile memory = memory_slices / 8 x the spec model's
// memory_bytes. When several MIG models are allowed, the largest of their
// choices (compute, then memory slices) is taken, so it fits on each.
// A job given a profile below 7g: gpu_milli = 125 x memory slices,
// gpu_mem_bytes = the instance's memory (the smallest over its allowed
// models: MIG isolates memory, the instance holds it), and gpu_models = the
// allowed MIG-managed models only (it needs an instance);
// a 7g job: gpu_milli = 1000 and its gpu_models unchanged (on a non-MIG node
// it is a whole GPU). Jobs allowed on no MIG-managed model are unchanged.
// Errors: tolerance out of (0, 1]; a spec with no `mig` group; a MIG-managed
// group whose model is not a MIG model (names the group).
Result<RightSizeStats> RightSizeMigDynamic(const ClusterSpec& spec, const RightSizeParams& params,
                                           Workload* w);

}  // namespace utilsim
