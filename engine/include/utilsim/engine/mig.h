// NVIDIA Multi-Instance GPU (MIG): profile and placement tables, per-GPU
// layouts and their feasibility, slot choice, reconfiguration with drain and
// time cost, and the MIG speed model (docs/mig.md; facts from
// ../shared/docs/domain.md §1).
//
// Geometry. A MIG GPU has 8 memory slices (the placement axis: NVML's
// nvmlGpuInstancePlacement_t counts memory slices) and 7 compute slices. A GPU
// instance (GI) of a profile occupies `memory_slices` consecutive memory
// slices from one of the profile's valid starts. A layout is the set of GIs on
// one GPU; it is valid iff (a) every GI starts at one of its profile's valid
// starts, (b) no two GIs share a memory slice, (c) every profile's
// max-instance count holds (at most one `+me`) and (d) the compute slices sum
// to at most 7 (implied by (a)-(c) on every model here; checked anyway).
// Compute instances (CIs) inside a GI are not modelled: a GI runs one job.
//
// GPU models and the spellings FindGpuModel accepts (case-insensitive;
// separators ' ', '-', '_' and the tokens NVIDIA, SXM, SXM4, SXM5, PCIE, NVL,
// HBM2, HBM2E, HBM3, HBM3E ignored; a memory size "40G" reads as "40GB"):
//   A100-40GB   e.g. "A100-40GB", "A100-SXM4-40GB", "NVIDIA A100-PCIE-40GB", "a100-40g"
//   A100-80GB   e.g. "A100-80GB", "A100-SXM4-80GB", "A100 80GB PCIe"
//   H100-80GB   e.g. "H100-80GB", "H100-SXM5-80GB", "NVIDIA H100 80GB HBM3"
//   H200-141GB  e.g. "H200-141GB", "H200", "NVIDIA H200 NVL"
// "A100" and "H100" alone are ambiguous (40/80 GB; 80/94/96 GB) and not found.
//
// Thread-safety: the tables are immutable; free functions are pure. A MigGpu
// is a plain value (not synchronized).
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "utilsim/engine/job.h"
#include "utilsim/engine/status.h"
#include "utilsim/engine/time.h"

namespace utilsim::mig {

inline constexpr int kMemorySlices = 8;   // placement axis
inline constexpr int kComputeSlices = 7;  // SM slices

// One GPU-instance profile of one GPU model (domain.md §1.2, §1.3).
struct Profile {
  std::string_view name;   // nvidia-smi name, e.g. "1g.5gb", "1g.5gb+me"
  int id = 0;              // nvidia-smi GI profile ID (19, 20, 15, 14, 9, 5, 0)
  int compute_slices = 0;  // 1..7 (the number before 'g')
  int memory_slices = 0;   // size on the placement axis: 1, 2, 4 or 8
  double memory_gb = 0;    // nominal size from the name (nvidia-smi reports slightly less)
  uint8_t start_mask = 0;  // bit s set: memory slice s is a valid start
  int max_instances = 0;   // per GPU

  bool ValidStart(int s) const { return s >= 0 && s < kMemorySlices && (start_mask >> s) & 1; }
  // Bits of the memory slices a GI of this profile at `start` occupies.
  uint8_t Mask(int start) const {
    return static_cast<uint8_t>(((1u << memory_slices) - 1u) << start);
  }
};

struct GpuModel {
  std::string_view name;  // canonical: "A100-40GB", "A100-80GB", "H100-80GB", "H200-141GB"
  double memory_gb = 0;   // total GPU memory (nominal)
  std::span<const Profile> profiles;  // ordered by nvidia-smi listing (ID 19, 20, 15, 14, 9, 5, 0)

  // Index into profiles of a profile name (case-insensitive) or of a numeric
  // nvidia-smi ID ("9"); -1 when this model has no such profile.
  int FindProfile(std::string_view name_or_id) const;
  // "1g.5gb, 1g.5gb+me, ..." for messages.
  std::string ProfileNames() const;
};

// True for a "+me" profile (one 1g instance with all media engines).
bool IsMediaExtended(const Profile& p);
// The profile with the same compute and memory slices that is not "+me"
// (p itself unless p is "+me"). Profile indices are the same on every model.
int PlainProfile(const GpuModel& model, int p);

// The four models above, in that order.
std::span<const GpuModel> GpuModels();
// The model for a spelling (see the header comment), or nullptr.
const GpuModel* FindGpuModel(std::string_view name);
// "A100-40GB, A100-80GB, H100-80GB, H200-141GB" for messages.
std::string GpuModelNames();

// One GPU instance: a profile (index into GpuModel::profiles) at a start
// memory slice. Within a valid layout the start identifies the instance.
struct Instance {
  int profile = 0;
  int start = 0;
  friend bool operator==(const Instance&, const Instance&) = default;
};
// A GPU's instances. Functions returning layouts return them sorted by start
// (canonical); functions taking layouts accept any order.
using Layout = std::vector<Instance>;

// OK iff the layout is valid (rules (a)-(d) above). The message names the
// first offending instance (in start order), e.g. "2g.10gb@1: start 1 is not
// a valid placement (valid starts: 0, 2, 4)" or "1g.5gb@5: overlaps 3g.20gb@4
// on memory slice 5".
Status CheckLayout(const GpuModel& model, const Layout& layout);
// "3g.20gb@4" and "1g.5gb@0,2g.10gb@2,3g.20gb@4" (canonical order); "" for empty.
std::string FormatInstance(const GpuModel& model, const Instance& instance);
std::string FormatLayout(const GpuModel& model, const Layout& layout);

// Parses "3g.20gb@0,2g.10gb@4,1g.5gb@6" (spaces around entries ignored;
// profiles by name or nvidia-smi ID; "" = no instances). Entries without
// "@<start>" are placed after the explicit ones, one by one in the listed
// order, at the start the driver would choose (PlaceLikeDriver), so an order
// that `nvidia-smi mig -cgi` rejects is rejected here too. Errors name the
// entry: "entry 2 '2g.10gb@3': start 3 is not a valid placement ...".
// The result is canonical and passes CheckLayout.
Result<Layout> ParseLayout(const GpuModel& model, std::string_view text);

// The start the driver picks for a GI created without a placement, given the
// GIs already there: the lowest free valid start for 1-compute-slice profiles,
// the highest for larger ones. Derived from the MIG guide's examples
// (domain.md §1.3: `-cgi 9,9` gives 4 then 0; `-cgi 9,19,14,19` gives 3g@4,
// 1g@0, 2g@2, 1g@1; `-cgi 19,19,14,9` fails; `-cgi 14,19x5` gives 2g@4 and
// 1g at 0,1,2,3,6); NVIDIA does not document the rule. nullopt when no valid
// start is free or the profile's max count is reached.
std::optional<int> DriverStart(const GpuModel& model, const Layout& current, int profile);
// Emulates `nvidia-smi mig -cgi p1,p2,...` on an empty GPU: places the
// profiles in order with DriverStart; fails naming the first that cannot be
// placed.
Result<Layout> PlaceLikeDriver(const GpuModel& model, std::span<const int> profiles);

// Valid starts of `profile` that are free in `current` (ascending); empty
// when none or the profile's max count is reached.
std::vector<int> FreeStarts(const GpuModel& model, const Layout& current, int profile);
// Longest run of consecutive free memory slices.
int LargestFreeRun(const GpuModel& model, const Layout& current);
// Slot choice for a new GI that keeps the most room (for right-sizing): among
// FreeStarts, the start that after placing maximizes, in order, (1) the
// largest profile (memory slices, then compute slices) that can still be
// placed, (2) LargestFreeRun, (3) the number of (profile, start) placements
// still possible; ties go to the lowest start. nullopt when none is free.
std::optional<int> ChooseStart(const GpuModel& model, const Layout& current, int profile);

// Every valid layout of the model, including the empty one, each canonical,
// in a fixed order. 2319 layouts on each model here (docs/mig.md).
std::vector<Layout> EnumerateLayouts(const GpuModel& model);

// Time a layout change takes on one GPU. Defaults are assumptions: NVIDIA
// publishes no number (domain.md §1.5, open item 2); the only measurement
// found is DCGM seeing a new instance "1 or 2 seconds" after creation
// (NVIDIA/DCGM issue #230), so create = destroy = 2 s; fixed = 0 (e.g. a
// Kubernetes device-plugin restart, which has no published time either).
struct ReconfigTimes {
  Micros create = Seconds(2);   // per GI created
  Micros destroy = Seconds(2);  // per GI destroyed
  Micros fixed = Micros(0);     // once per change that creates or destroys anything
};

// One MIG GPU over time: its instances, which run a job, when new ones are
// ready. Instances are named by their start slice. A layout change destroys
// the instances not in the target (same profile and start) and creates the
// target's new ones; it needs every destroyed instance idle (drain rule: the
// MIG guide's "Reconfigure: When idle") while kept instances run on
// (NVIDIA/k8s-device-plugin#992). Changes on one GPU run one after another.
class MigGpu {
 public:
  // Fails when the layout is invalid. All instances start idle and ready.
  static Result<MigGpu> Create(const GpuModel& model, const Layout& layout,
                               ReconfigTimes times = {});

  const GpuModel& model() const { return *model_; }
  const Layout& layout() const { return layout_; }  // canonical
  const ReconfigTimes& times() const { return times_; }
  // Index into layout() of the instance at `start`, or -1.
  int Find(int start) const;
  bool busy(int start) const;  // false when there is no such instance
  // When the instance at `start` can run a job (kNever when absent).
  Micros ready_at(int start) const;
  // When the last change finishes (Micros(0) when none was made).
  Micros change_done_at() const { return change_done_at_; }

  // A job starts on / leaves the instance at `start`. StartJob fails when
  // there is no such instance, it is busy, or it is not ready at `now`.
  Status StartJob(int start, Micros now);
  Status FinishJob(int start);

  // Starts of the busy instances that changing to `target` would destroy
  // (what must drain first); empty when the change can be made now.
  std::vector<int> MustDrain(const Layout& target) const;
  // Duration of the change to `target`: destroyed x destroy + created x create
  // + fixed (when anything changes); 0 for the same layout.
  Micros Cost(const Layout& target) const;
  // Changes the layout, starting at max(now, change_done_at()). Refused, with
  // the state unchanged, when `target` is invalid or MustDrain is not empty
  // (the message names the busy instances). Returns the completion time, at
  // which the created instances become ready.
  Result<Micros> Reconfigure(const Layout& target, Micros now);

 private:
  MigGpu(const GpuModel* model, Layout layout, ReconfigTimes times);
  const GpuModel* model_;
  Layout layout_;
  std::vector<bool> busy_;        // parallel to layout_
  std::vector<Micros> ready_at_;  // parallel to layout_
  ReconfigTimes times_;
  Micros change_done_at_{0};
};

// MIG speed model (docs/mig.md). A GI's capacity is the weighted harmonic mean
// of its compute and memory shares,
//   s = 1 / ((1 - w) * 7 / compute_slices + w * 8 / memory_slices),
// (1 for 7g). A job that needs a share d of the full GPU (its demand, 0..1:
// the throughput it gets on the full GPU is limited elsewhere once the GPU
// gives it d) runs on the GI at
//   speed = min(1, s / d)
// of its full-GPU throughput. Without a measured demand, d is estimated from
// the job's utilization on the full GPU: d = min(1, util / util_at_saturation).
// Defaults: fitted on the MIGProfiler A100-40GB data (workloads/mig_fit.h;
// docs/mig.md gives the fit and hold-out errors).
struct MigSpeedParams {
  double memory_weight = 0.41;       // w in [0, 1]
  double util_at_saturation = 0.44;  // > 0: full-GPU utilization at which d = 1
  // MigDemand (below), for jobs whose kind or step size is known:
  double util_at_saturation_train = 0.90;  // > 0: the same, for training jobs
  double tokens_at_saturation = 3200;      // batch x sequence length at d = 1; <= 0: not used
};

// What is known of a job on the full GPU.
struct MigDemandInputs {
  double util = std::numeric_limits<double>::quiet_NaN();  // busy fraction, 0..1; NaN unknown
  JobKind kind = JobKind::kUnknown;
  // Inference batch size x sequence length (tokens per step) for a
  // transformer-style job; <= 0 unknown.
  double tokens_per_step = 0;
};
// s above, in (0, 1]. memory_weight is clamped to [0, 1].
double MigCapacity(const Profile& profile, double memory_weight);
// d above from a full-GPU utilization (clamped to [0, 1]); NaN gives 1.
double MigDemandFromUtil(double util, const MigSpeedParams& params);
// d from what is known (docs/mig.md, "Demand by job kind"), first that applies:
//  * an inference (or unknown-kind) job with tokens_per_step > 0 and
//    tokens_at_saturation > 0: min(1, tokens_per_step / tokens_at_saturation)
//    (a small step is latency-bound and hides a small GI);
//  * a training job: min(1, util / util_at_saturation_train);
//  * otherwise MigDemandFromUtil (util_at_saturation);
// NaN util gives 1 in the last two.
double MigDemand(const MigDemandInputs& in, const MigSpeedParams& params);
// MigDemand when one of its rules has something to go by (the token rule
// applies, or util is known); nullopt when it would only assume d = 1.
std::optional<double> MigMeasuredDemand(const MigDemandInputs& in, const MigSpeedParams& params);
// What a job says: util when job.util_known (else NaN), kind, tokens per step.
MigDemandInputs MigInputsOf(const Job& job);
// speed above, in (0, 1]. demand <= 0 gives 1; NaN or > 1 is treated as 1.
double MigSpeed(const Profile& profile, double demand, const MigSpeedParams& params);

}  // namespace utilsim::mig
